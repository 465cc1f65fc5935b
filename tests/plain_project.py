"""A small pytest project that knows nothing of the kit, and how to compare two runs of it.

The kit's plugin loads in every pytest run of an environment where it is installed, so it must
leave unrelated runs as they were. This project is such a run: passes, a failure (exit code 1),
a skip, an xfail, a parametrised table, a registered marker, ``tmp_path`` and a warning. Its
output with the kit installed is compared with its output without the kit, line by line, once
the lines that name the environment (interpreter, directories, plugin list) and the timings
are set aside.

Used by ``tests/test_good_citizen.py``, ``tests/test_install.py`` and ``.ci/run``
(``python3 tests/plain_project.py write DIR`` and ``... same [--any-order] RUN_A RUN_B``).
"""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

FILES = {
    "pytest.ini": """\
[pytest]
markers =
    smoke: quick checks
""",
    "test_things.py": """\
import warnings

import pytest


def add(a, b):
    return a + b


@pytest.mark.smoke
def test_add():
    assert add(2, 3) == 5


@pytest.mark.parametrize(("a", "b", "total"), [(1, 1, 2), (2, 2, 4), (3, 3, 7)])
def test_add_table(a, b, total):
    assert add(a, b) == total


def test_tmp_path(tmp_path):
    (tmp_path / "f.txt").write_text("x")
    assert (tmp_path / "f.txt").read_text() == "x"


@pytest.mark.skip(reason="not today")
def test_skipped():
    pass


@pytest.mark.xfail(reason="known")
def test_expected_failure():
    assert add(1, 1) == 3


def test_warns():
    warnings.warn("deprecated thing", DeprecationWarning)
""",
}

# What the project was written to produce (reviewed by hand): the third table row fails.
OUTCOME = "1 failed, 5 passed, 1 skipped, 1 xfailed, 1 warning"
EXIT_CODE = 1

# Header lines that name the environment, not the run: the interpreter and its directory, the
# plugin list, and hypothesis' profile (printed under -v by hypothesis' own plugin wherever
# hypothesis is installed; the kit depends on hypothesis).
ENVIRONMENT_LINE = re.compile(
    r"^(platform |cachedir: |rootdir: |configfile: |plugins: |hypothesis profile )"
)
ROOTDIR = re.compile(r"^rootdir: (\S+)", re.MULTILINE)
TIMING = re.compile(r"\bin \d+(\.\d+)?s\b|\(\d+:\d\d:\d\d\)")
VERDICT = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) ")
OUTCOME_LINE = re.compile(r"^=* ?(?P<outcome>(\d+ \w+(, )?)+) in [\d.]+s")


def write(dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    for name, text in FILES.items():
        (dest / name).write_text(text, encoding="utf-8")
    return dest


def normalized(output: str) -> list[str]:
    """The run's lines without the environment lines, its directory as ``<rootdir>`` and
    timings blanked (a line with a timing loses its ``=`` padding too: its width follows the
    timing's)."""
    root = ROOTDIR.search(output)
    lines = []
    for line in output.splitlines():
        if ENVIRONMENT_LINE.match(line):
            continue
        if root:
            line = line.replace(root.group(1), "<rootdir>")
        timed = TIMING.sub("in <time>", line)
        lines.append(timed.strip("= ") if timed != line else line)
    return lines


def verdicts(output: str) -> list[str]:
    """The ``-rA`` short summary lines, sorted: a run spread over workers finishes its tests in
    any order, so this and the outcome are what two such runs can be compared on."""
    return sorted(line for line in output.splitlines() if VERDICT.match(line))


def outcome(output: str) -> str | None:
    """The closing outcome, e.g. ``1 failed, 5 passed``; None when the run has none."""
    for line in reversed(output.splitlines()):
        found = OUTCOME_LINE.match(line.strip())
        if found:
            return found.group("outcome")
    return None


def listing(root: Path) -> tuple[str, ...]:
    """Every file and directory under ``root``, relative, sorted (symbolic links not followed)."""
    found = []
    for base, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            found.append(os.path.relpath(os.path.join(base, name), root))
    return tuple(sorted(found))


@dataclass(frozen=True)
class Run:
    """One run: its exit code, what it printed (stdout and stderr together) and the files it
    left in the project and in its temporary directory."""

    exit_code: int
    output: str
    files: tuple[str, ...] = ()
    temp_files: tuple[str, ...] = ()

    def differences(self, other: Run, *, ordered: bool = True) -> list[str]:
        """Where ``other`` differs from this run; empty when they are the same run.

        ``ordered=False`` is for runs spread over workers: then the exit code, the outcome
        and the sorted ``-rA`` verdicts must match, not the order of the lines.
        """
        problems = []
        if self.exit_code != other.exit_code:
            problems.append(f"exit code {self.exit_code} != {other.exit_code}")
        if ordered:
            mine, theirs = normalized(self.output), normalized(other.output)
        else:
            mine = [str(outcome(self.output)), *verdicts(self.output)]
            theirs = [str(outcome(other.output)), *verdicts(other.output)]
        if self.files != other.files:
            problems.append(f"files left in the project: {self.files} != {other.files}")
        if ordered and self.temp_files != other.temp_files:
            problems.append(f"files left in TMPDIR: {self.temp_files} != {other.temp_files}")
        if mine != theirs:
            diff = difflib.unified_diff(
                mine, theirs, "without the kit", "with the kit", lineterm=""
            )
            problems.append("output differs:\n" + "\n".join(diff))
        return problems


def run(pytest_exe: str | Path, args: Sequence[str], where: Path, timeout: float = 180) -> Run:
    """Write the project under ``where`` and run ``pytest_exe`` on it with its own TMPDIR and
    an environment cleaned of the calling run's ``PYTEST_*`` and coverage variables."""
    project = write(where / "project")
    temp = where / "tmp"
    temp.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_CORE_"))}
    env.update(TMPDIR=str(temp), COLUMNS="80")
    proc = subprocess.run(
        [str(pytest_exe), *args],
        cwd=project,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return Run(proc.returncode, proc.stdout + proc.stderr, listing(project), listing(temp))


def _same(paths: list[str], ordered: bool) -> int:
    """CLI: ``same [--any-order] A B``; each path holds a run's output, ``A.rc`` its exit code."""
    a, b = (
        Run(int(Path(p + ".rc").read_text().strip()), Path(p).read_text(encoding="utf-8"))
        for p in paths
    )
    problems = a.differences(b, ordered=ordered)
    for problem in problems:
        print(problem, file=sys.stderr)
    if not problems:
        print(f"same run: exit code {a.exit_code}, {outcome(a.output)}")
    return 1 if problems else 0


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        print(write(Path(argv[1])))
        return 0
    if len(argv) == 3 and argv[0] == "same":
        return _same(argv[1:], ordered=True)
    if len(argv) == 4 and argv[:2] == ["same", "--any-order"]:
        return _same(argv[2:], ordered=False)
    print("usage: plain_project.py write DIR | same [--any-order] RUN_A RUN_B", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
