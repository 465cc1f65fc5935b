"""The gate then and now: an earlier commit of the kit next to this checkout, on the earlier
commit's work and on today's, measured in one run on one machine.

The speed targets (the suite against the reference in 15 s with ``-n auto``, ``agenttools
selfcheck`` in 30 s, on two cores) were set for the kit at ca8d4bf: 165 clauses, 22 broken
implementations and no alternatives in selfcheck. The kit has grown since, so a total measured
today mixes what got faster with what got added. This measures three things per row:

- ``then``: the earlier commit: its whole suite (``agenttools run -- -n auto``) and its whole
  selfcheck;
- ``now, then's work``: this checkout on the same work: the earlier commit's clauses
  (``--clauses``) and its broken implementations (``selfcheck --broken-only NAMES``);
- ``now``: this checkout's whole suite and every broken implementation (``--broken-only``;
  ``--alternatives`` adds the full selfcheck, alternatives included).

Both are installed the same way, as a user installs them: each into a venv of its own, the
earlier commit from ``git archive``, this checkout from its working tree (uncommitted changes
included). An editable install would not compare like with like: hypothesis reads the constants
of every module outside site-packages into its examples, a cost only an editable kit pays.

Every command runs once untimed first (``--warmup``): the first run of an install writes
pytest's rewritten test modules to ``__pycache__``, which the later runs, like a user's second
run, read. Then the commands alternate, ``--rounds`` times; wall and CPU seconds are medians.
Any run that fails stops the benchmark. Installing takes about a minute each (pip's cache helps).

    python benchmarks/bench_then_and_now.py [--base ca8d4bf] [--rounds 2] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from measure import timed_command

from pytest_agenttools.cli.selfcheck import broken_implementations
from pytest_agenttools.spec.clauses import load

REPO = Path(__file__).resolve().parents[1]
BASE = "ca8d4bf"
TARGET_SUITE_S = 15.0
TARGET_SELFCHECK_S = 30.0
#: the closing counts of a run: the suite's summary line and selfcheck's kill matrix
SUITE_COUNT = re.compile(r"(\d+) passed, (\d+) failed, (\d+) error, (\d+) skipped")
KILLED = re.compile(r"(\d+) of (\d+) broken implementations caught")
ALTERNATIVES = re.compile(r"(\d+) of (\d+) alternative implementations pass")


@dataclass
class Row:
    """One command, measured ``rounds`` times; ``count`` is what it ran (tests, implementations)."""

    name: str
    args: list[str]
    count: Callable[[str], str]
    walls: list[float] = field(default_factory=list)
    cpus: list[float] = field(default_factory=list)
    ran: str = ""

    def measure(self, env: dict[str, str], *, timed: bool = True) -> None:
        with tempfile.TemporaryDirectory() as cwd:
            wall, cpu, done = timed_command(self.args, cwd, env)
        if done.returncode != 0:
            raise SystemExit(
                f"{self.name}: exit {done.returncode}\n{done.stdout[-3000:]}{done.stderr[-2000:]}"
            )
        self.ran = self.count(done.stdout)
        if not timed:
            return
        self.walls.append(wall)
        self.cpus.append(cpu)

    def figures(self) -> dict[str, object]:
        return {
            "wall_s": round(statistics.median(self.walls), 1),
            "cpu_s": round(statistics.median(self.cpus), 1),
            "walls_s": [round(w, 1) for w in self.walls],
            "ran": self.ran,
        }


def suite_count(output: str) -> str:
    found = SUITE_COUNT.findall(output)
    if not found:
        return "?"
    passed, failed, error, skipped = found[-1]
    return f"{int(passed) + int(failed) + int(error) + int(skipped)} tests"


def selfcheck_count(output: str) -> str:
    parts = [f"{m[1]} broken" for m in KILLED.findall(output)[-1:]]
    parts += [f"{m[1]} alternatives" for m in ALTERNATIVES.findall(output)[-1:]]
    return ", ".join(parts) or "?"


def base_checkout(rev: str, into: Path) -> Path:
    """The earlier commit's files (``git archive``), not a worktree: nothing to clean up in git."""
    source = into / "source"
    source.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", rev], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    return source


def working_tree(into: Path) -> Path:
    """This checkout's files as they are now: tracked and untracked ones that git does not
    ignore (no venv, build or node_modules), without a file deleted but not yet committed."""
    source = into / "source"
    listed = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        origin = REPO / name
        if origin.is_file():
            target = source / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(origin, target)
    return source


def install(source: Path, into: Path) -> Path:
    """``source`` installed as a user installs it, with pytest-xdist (not yet a dependency of the
    kit at ca8d4bf) for ``-n auto``; returns its venv's bin directory."""
    venv = into / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "pip"), "install", "-q", str(source), "pytest-xdist"]
    done = subprocess.run(pip, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"installing {source} failed:\n{done.stdout}{done.stderr[-3000:]}")
    return venv / "bin"


def base_clauses(source: Path) -> list[str]:
    ids = []
    for spec in sorted((source / "conformance" / "spec").glob("*.toml")):
        ids += [c["id"] for c in tomllib.loads(spec.read_text(encoding="utf-8")).get("clause", [])]
    return ids


def base_broken(source: Path) -> list[str]:
    folder = source / "pytest_agenttools" / "broken"
    return sorted(p.stem for p in folder.glob("*.py") if p.stem[0] != "_")


def rows(
    then_bin: Path, now_bin: Path, ids: Sequence[str], broken: Sequence[str], alternatives: bool
) -> list[Row]:
    then, now = str(then_bin / "agenttools"), str(now_bin / "agenttools")
    auto = ["--", "-n", "auto"]
    out = [
        Row("suite: then", [then, "run", *auto], suite_count),
        Row(
            "suite: now, then's clauses",
            [now, "run", "--clauses", ",".join(ids), *auto],
            suite_count,
        ),
        Row("suite: now", [now, "run", *auto], suite_count),
        Row("selfcheck: then", [then, "selfcheck"], selfcheck_count),
        Row(
            "selfcheck: now, then's broken",
            [now, "selfcheck", "--broken-only", *broken],
            selfcheck_count,
        ),
        Row(
            "selfcheck: now, --broken-only",
            [now, "selfcheck", "--broken-only"],
            selfcheck_count,
        ),
    ]
    if alternatives:
        out.append(Row("selfcheck: now, in full", [now, "selfcheck"], selfcheck_count))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=BASE, help=f"the earlier commit (default {BASE})")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--warmup", type=int, default=1, help="untimed rounds first (default 1)")
    parser.add_argument("--alternatives", action="store_true", help="also the full selfcheck")
    parser.add_argument("--json", help="write the figures here too")
    options = parser.parse_args()
    # bytecode is cached as on a user's machine (a sandbox may turn that off)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "TMPDIR")}
    with tempfile.TemporaryDirectory() as scratch:
        source = base_checkout(options.base, Path(scratch, "then"))
        then = install(source, Path(scratch, "then"))
        now = install(working_tree(Path(scratch, "now")), Path(scratch, "now"))
        clauses, broken = base_clauses(source), base_broken(source)
        # the same work today: then's clauses that are still active (a retired clause has no
        # tests), then's broken implementations that still exist
        active = {c.id for c in load().active()}
        ids = [i for i in clauses if i in active]
        shipped = set(broken_implementations())
        still = [b for b in broken if b in shipped]
        measured = rows(then, now, ids, still, options.alternatives)
        for _ in range(options.warmup):
            for row in measured:
                row.measure(env, timed=False)
        for _ in range(options.rounds):
            for row in measured:
                row.measure(env)
    figures: dict[str, object] = {
        "base": options.base,
        "base_clauses": len(clauses),
        "base_clauses_active_now": len(ids),
        "base_broken": len(broken),
        "base_broken_existing_now": len(still),
        "target_suite_s": TARGET_SUITE_S,
        "target_selfcheck_s": TARGET_SELFCHECK_S,
    }
    for row in measured:
        fig = figures[row.name] = row.figures()
        print(f"{row.name:32} {fig['wall_s']:7} s wall {fig['cpu_s']:7} s CPU   {row.ran}")
    print(
        f"then's work: {len(clauses)} clauses ({len(ids)} active today), "
        f"{len(broken)} broken implementations ({len(still)} still shipped); targets: "
        f"suite <= {TARGET_SUITE_S:.0f} s, selfcheck <= {TARGET_SELFCHECK_S:.0f} s"
    )
    if options.json:
        Path(options.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
