#!/usr/bin/env python3
"""Mutation testing of the kit: how many seeded defects in
``src/pytest_agenttools/implementations/reference/`` the suite catches.

    python scripts/mutation.py --tool read            # one tool's modules, its suite subset
    python scripts/mutation.py --all                  # every group, one after the other
    python scripts/mutation.py --tool read --module sniff   # one module of that group
    python scripts/mutation.py --list                 # which modules each group mutates

mutmut (pinned: ``MUTMUT``) mutates one function at a time and runs the tests that reach it (its
stats pass maps tests to functions). It insists that a module's import path matches its file
path, and ``src/pytest_agenttools/implementations/reference/`` installs as
``pytest_agenttools.implementations.reference``, so each group
runs in a staged tree laid out like the installed package (the ``package-dir`` map of
pyproject.toml), with its own venv in which the kit is NOT installed (the plugin would load
twice). Both live under the cache directory (``--cache``, default
``$XDG_CACHE_HOME/agenttools-mutation`` or ``~/.cache/agenttools-mutation``), outside the
repository; results stay there between runs, so a second run re-checks only mutants of changed
functions and the mutants that were not killed.

The score of a group is detected / (total - equivalent), where detected is killed plus timed
out (a mutant that hangs the suite is caught), and equivalent counts the survivors matched by an
entry of ``scripts/mutation/equivalent.toml`` (a mutation that cannot change observable
behaviour, with its reason). An entry that matches no surviving mutant is stale and fails the
run, so the file cannot hide a later regression. The command exits 1 when a group scores
below ``--min-score``.

This file runs with any Python 3.11+ and imports only the standard library.
"""

from __future__ import annotations

import argparse
import filecmp
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
HERE = Path(__file__).resolve().parent / "mutation"
EQUIVALENT_FILE = HERE / "equivalent.toml"
MUTMUT = "mutmut==3.8.1"
PACKAGE = "pytest_agenttools"
REFERENCE = f"{PACKAGE}/implementations/reference"
#: hypothesis draws from a fixed seed, so a property kills the same mutants on every run
HYPOTHESIS_SEED = "20260101"
DETECTED = ("killed", "timeout", "caught by type check")
STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')
WORD = re.compile(r"[A-Za-z]{2,}")


@dataclass(frozen=True)
class Group:
    """A tool (or tool family) and the reference modules its suite is meant to pin down.

    ``suite`` is the ``--agenttools-tools`` value the group's tests run with; ``extra_tests``
    adds kit tests of the reference (tests/implementations/reference/ style) that judge what no
    conformance clause should: they must exist in the staged tree's ``tests/``.
    """

    name: str
    suite: tuple[str, ...]
    modules: tuple[str, ...]
    extra_tests: tuple[str, ...] = ()


#: every module of src/pytest_agenttools/implementations/reference/ belongs to exactly one group (a
#: kit test checks it)
GROUPS: tuple[Group, ...] = (
    # textcodec also encodes for edit (and write): those tests are the ones that reach that part
    Group(
        "read",
        ("read", "edit"),
        ("read", "read_pdf", "read_notebook", "read_paging", "sniff", "textcodec", "image_resize"),
        ("implementations/reference/test_read_policy.py",),
    ),
    Group(
        "write",
        ("write", "edit"),
        ("write", "mutation_queue"),
        ("implementations/reference/test_write_policy.py",),
    ),
    Group(
        "edit",
        ("edit",),
        ("edit", "text_match", "diffing"),
        (
            "implementations/reference/test_edit_policy.py",
            "implementations/reference/test_diffing.py",
            "implementations/reference/test_text_match.py",
            "implementations/reference/test_edit.py",
        ),
    ),
    Group(
        "search",
        ("grep", "glob"),
        (
            "grep",
            "glob",
            "globmatch",
            "ripgrep",
            "search_filters",
            "search_input",
            "search_ops",
            "search_paging",
            "search_root",
        ),
        (
            "implementations/reference/test_search_policy.py",
            "implementations/reference/test_search_units.py",
            "implementations/reference/test_globmatch.py",
            "implementations/reference/test_glob.py",
            "implementations/reference/test_grep.py",
            "implementations/reference/test_ripgrep.py",
            "implementations/reference/test_search_helpers.py",
        ),
    ),
    Group(
        "bash",
        ("bash",),
        (
            "bash",
            "processes",
            "tasks",
            "output_capture",
            "env_sanitize",
            "rm_shim",
            "command_analysis",
            "command_risk",
            "command_rules",
            "bash_sandbox",
            "session_env",
        ),
        (
            "implementations/reference/test_output_capture.py",
            "implementations/reference/test_bash_units.py",
            "implementations/reference/test_tasks.py",
            "implementations/reference/test_processes.py",
            "implementations/reference/test_bash_policy.py",
            "implementations/reference/test_command_rules.py",
        ),
    ),
    Group(
        "shared",
        ("read", "write", "edit", "grep", "glob", "bash"),
        (
            "paths",
            "arguments",
            "results",
            "toolbox",
            "limits",
            "context",
            "fsport",
            "definition",
            "confine",
        ),
        (
            "implementations/reference/test_shared_policy.py",
            "implementations/reference/test_units.py",
        ),
    ),
)
#: modules that run in another process (the suite reaches them only through a child process),
#: where mutmut's per-function switch cannot reach: not scored, said in docs/mutation.md
OUT_OF_PROCESS = {
    "supervisor": "runs as a script in its own interpreter (python -I -S supervisor.py)",
    "server": "the stdio server runs as a child process (agenttools serve)",
    "mcp_server": "the MCP server runs as a child process (agenttools serve --mcp)",
    "__init__": "the factory only",
    "private_stdout": "guards the stdout of `agenttools call` and `serve`, both run as processes",
}
BY_NAME = {group.name: group for group in GROUPS}


# -- the venv and the staged tree ------------------------------------------------------------


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "agenttools-mutation"


#: the dev extras the groups' kit tests need beside the runtime dependencies
KIT_TEST_NEEDS = ("pyfakefs",)


def requirements() -> list[str]:
    """The kit's runtime dependencies (never the kit itself), what the groups' kit tests need
    from the dev extras (as pinned there), and the pinned mutmut."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dev = project["optional-dependencies"]["dev"]
    name = re.compile(r"[A-Za-z0-9_.-]+")
    needed = [spec for spec in dev if (m := name.match(spec)) and m[0] in KIT_TEST_NEEDS]
    return [*project["dependencies"], *needed, MUTMUT]


def ensure_venv(venv: Path, python: str) -> Path:
    """Make (or reuse) the mutation venv; rebuilt when the requirement list changes."""
    wanted = "\n".join(requirements())
    stamp = venv / "agenttools-requirements.txt"
    if stamp.is_file() and stamp.read_text(encoding="utf-8") == wanted:
        return venv
    if venv.exists():
        shutil.rmtree(venv)
    say(f"making the mutation venv at {venv}")
    subprocess.run([python, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", *requirements()],
        check=True,
    )
    stamp.write_text(wanted, encoding="utf-8")
    return venv


def package_dirs() -> dict[str, str]:
    """Installed package -> directory in the repository (a src layout: one tree, as installed)."""
    return {PACKAGE: f"src/{PACKAGE}"}


def _ignored(_: str, names: list[str]) -> set[str]:
    return {n for n in names if n in {"__pycache__", "node_modules"} or n.endswith(".pyc")}


def sync_file(source: Path, target: Path) -> None:
    """Copy with the source's mtime, and only when the bytes differ, so mutmut sees an
    unchanged file as unchanged and keeps its mutants and results."""
    if target.is_file() and filecmp.cmp(source, target, shallow=False):
        return
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)


def sync_tree(source: Path, target: Path) -> set[Path]:
    """Mirror ``source`` into ``target``; return the target files it holds."""
    kept: set[Path] = set()
    for root, dirs, files in os.walk(source):
        dirs[:] = [d for d in dirs if not _ignored(root, [d])]
        for name in files:
            if _ignored(root, [name]):
                continue
            src = Path(root) / name
            dst = target / src.relative_to(source)
            sync_file(src, dst)
            kept.add(dst)
    return kept


def stage(stage_dir: Path, group: Group, modules: Sequence[str], tests: Sequence[str]) -> None:
    """Lay the package out as installed under ``stage_dir`` and write mutmut's config.

    The previous stage's ``mutants/`` (mutmut's copy and its results) is kept; files that left
    the repository are removed from both, and non-Python files are refreshed in ``mutants/``
    too (mutmut copies them only once).
    """
    stage_dir.mkdir(parents=True, exist_ok=True)
    kept: set[Path] = set()
    for package, directory in sorted(package_dirs().items()):
        target = stage_dir / package.replace(".", "/")
        kept |= sync_tree(REPO / directory, target)
    kit_tests = stage_dir / "tests"
    kept |= sync_tree(REPO / "tests", kit_tests) if group.extra_tests else set()
    for root in (stage_dir / PACKAGE, kit_tests):
        for path in list(root.rglob("*")) if root.exists() else []:
            if path.is_file() and path not in kept and "__pycache__" not in path.parts:
                path.unlink()
    mutants = stage_dir / "mutants"
    if mutants.is_dir():
        for path in kept:
            copy = mutants / path.relative_to(stage_dir)
            # mutmut copies data files and tests/ only once; its own copies of the package's
            # Python files it regenerates itself
            if path.suffix != ".py" or copy.is_relative_to(mutants / "tests"):
                sync_file(path, copy)
        for root in (mutants / PACKAGE, mutants / "tests"):
            for path in list(root.rglob("*")) if root.exists() else []:
                original = stage_dir / path.relative_to(mutants)
                stale = path.suffix in {".py", ".toml", ".json", ".ini"} and not original.exists()
                if stale and path.is_file():
                    path.unlink()
        # mutmut maps tests to the functions they reach once, for the modules mutated then; a
        # module added since would have no tests: drop that map and the module's copy (which
        # mutmut made unmutated while it was left out, and would take as up to date)
        record = stage_dir / "agenttools-mapped-modules.txt"
        mapped = set(record.read_text(encoding="utf-8").split()) if record.is_file() else set()
        added = set(modules) - mapped
        # the map is also stale when the tests changed: a test added since reaches nothing
        digest = stage_dir / "agenttools-mapped-tests.sha256"
        tests_now = tests_digest(stage_dir, [*tests, *group.extra_tests])
        if not digest.is_file() or digest.read_text(encoding="utf-8") != tests_now:
            (mutants / "mutmut-stats.json").unlink(missing_ok=True)
        digest.write_text(tests_now, encoding="utf-8")
        if added:
            (mutants / "mutmut-stats.json").unlink(missing_ok=True)
            for module in added:
                for suffix in (".py", ".py.meta", ".py.spans"):
                    (mutants / REFERENCE / f"{module}{suffix}").unlink(missing_ok=True)
        record.write_text("\n".join(sorted(mapped | set(modules))) + "\n", encoding="utf-8")
    config = mutmut_config(group, modules, tests)
    (stage_dir / "pyproject.toml").write_text(config, encoding="utf-8")


def tests_digest(stage_dir: Path, selection: Sequence[str]) -> str:
    """A digest of the test code a run uses (the suite and the kit tests, with the selection)."""
    digest = hashlib.sha256("\n".join(sorted(selection)).encode())
    for root in (stage_dir / PACKAGE / "conformance", stage_dir / "tests"):
        for path in sorted(root.rglob("*.py")) if root.is_dir() else []:
            digest.update(str(path.relative_to(stage_dir)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def mutmut_config(group: Group, modules: Sequence[str], tests: Sequence[str] = ()) -> str:
    args = [
        "-p",
        f"{PACKAGE}.plugin",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:benchmark",
        "-p",
        "no:randomly",
        "--snapshot-warn-unused",
        f"--hypothesis-seed={HYPOTHESIS_SEED}",
        "--agenttools-tools",
        ",".join(group.suite),
        # a kit test's stdio twin serves the reference from a child process, which the mutant
        # switch does not reach (and whose server cannot start from the staged tree)
        "-k",
        "not stdio",
    ]
    suite = [f"{PACKAGE}/conformance/{t}" for t in tests] or [f"{PACKAGE}/conformance"]
    selection = [*suite, *(f"tests/{t}" for t in group.extra_tests)]
    only = [f"{REFERENCE}/{m}.py" for m in modules]
    return (
        "# written by scripts/mutation.py for one run; not a project file\n"
        "[tool.mutmut]\n"
        f'source_paths = ["{PACKAGE}"]\n'
        f"only_mutate = {json.dumps(only)}\n"
        f"pytest_add_cli_args = {json.dumps(args)}\n"
        f"pytest_add_cli_args_test_selection = {json.dumps(selection)}\n"
        "timeout_multiplier = 5.0\n"
        "timeout_constant = 10.0\n"
        "use_git_change_detection = false\n"
        "\n[tool.pytest.ini_options]\n"
        'addopts = "-p no:cacheprovider"\n'
        "xfail_strict = false\n"
    )


# -- running mutmut and reading its results --------------------------------------------------

#: runs in the mutation venv (mutmut importable): every mutant's status, and a diff of each
#: one that was not detected, as JSON on stdout
COLLECT = r"""
import json, sys
from mutmut.mutation.data import SourceFileMutationData
from mutmut.mutation.diff_apply import get_diff_for_mutant
from mutmut.stats import status_by_exit_code
from mutmut.utils.file_utils import walk_mutatable_files
detected = set(sys.argv[1].split(","))
out = []
for path in walk_mutatable_files():
    data = SourceFileMutationData(path=path)
    data.load()
    for name, code in data.exit_code_by_key.items():
        status = status_by_exit_code[code]
        diff = "" if status in detected else get_diff_for_mutant(name, path=path)
        out.append({"name": name, "path": str(path), "status": status, "diff": diff})
json.dump(out, sys.stdout)
"""


def run_mutmut(venv: Path, stage_dir: Path, cache: Path, group: Group, children: int) -> float:
    env = dict(os.environ)
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(cache / "hypothesis" / group.name)
    env.pop("PYTEST_ADDOPTS", None)
    mutmut = str(venv / "bin" / "mutmut")
    log = cache / "logs" / f"{group.name}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    # mutmut keeps the verdicts of earlier runs; tests written since may kill the mutants that
    # survived them, so those are run again by name after the run
    earlier: list[str] = []
    if (stage_dir / "mutants").is_dir():
        # (a mutant not checked yet is the main run's to check: only verdicts are re-checked)
        earlier = [
            m["name"]
            for m in collect(venv, stage_dir)
            if m["status"] not in (*DETECTED, "not checked")
        ]
    started = time.monotonic()
    with log.open("a", encoding="utf-8") as out:
        out.write(f"\n== {time.strftime('%Y-%m-%d %H:%M:%S')} mutmut run\n")
        out.flush()
        done = subprocess.run(
            [mutmut, "run", "--max-children", str(children)],
            cwd=stage_dir,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        if done.returncode != 0:
            raise SystemExit(f"mutmut run failed ({done.returncode}); see {log}")
        if earlier:
            out.write(f"\n== re-checking {len(earlier)} mutants an earlier run did not detect\n")
            out.flush()
            subprocess.run(
                [mutmut, "run", "--max-children", str(children), *earlier],
                cwd=stage_dir,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                check=False,
            )
    return time.monotonic() - started


def collect(venv: Path, stage_dir: Path) -> list[dict[str, str]]:
    done = subprocess.run(
        [str(venv / "bin" / "python"), "-c", COLLECT, ",".join(DETECTED)],
        cwd=stage_dir,
        capture_output=True,
        text=True,
        check=True,
    )
    result: list[dict[str, str]] = json.loads(done.stdout)
    return result


# -- equivalents and scores -----------------------------------------------------------------


@dataclass(frozen=True)
class Mutant:
    """One mutant: ``module`` (file stem), ``function`` (``name`` or ``Class.method``), and
    the changed lines of its diff with indentation removed, which stay the same when mutmut
    renumbers the mutants of an edited function."""

    name: str
    module: str
    function: str
    status: str
    removed: str
    added: str

    @classmethod
    def parse(cls, raw: dict[str, str]) -> Mutant:
        name = raw["name"]
        module = Path(raw["path"]).stem
        mangled = name.rsplit(".", 1)[-1].rsplit("__mutmut_", 1)[0]
        if mangled.startswith("x_"):
            function = mangled[2:]
        else:  # xǁClassǁmethod
            function = ".".join(part for part in mangled.split("ǁ")[1:])
        removed, added = changed_lines(raw.get("diff", ""))
        return cls(name, module, function, raw["status"], removed, added)

    @property
    def detected(self) -> bool:
        return self.status in DETECTED

    @property
    def wording(self) -> bool:
        """Only the words of a sentence changed: a string literal of three or more words (with
        spaces between them: not a name like ``read.max_bytes``) wrapped in ``XX`` or put in
        upper or lower case, as mutmut does to every string.

        Such a literal is prose for the model (an error message, a notice); the suite judges
        text only neutrally (a number, a path, an argument's name), never its words, so no
        conformance test may kill these. They are counted apart from the score, and listed.
        """
        if "\n" in self.removed or "\n" in self.added or self.removed == self.added:
            return False
        for literal in STRING.findall(self.removed):
            body = literal[1:-1]
            if len(body.split()) < 3 or len(WORD.findall(body)) < 3:
                continue
            for changed in (f"XX{body}XX", body.upper(), body.lower()):
                if changed == body:
                    continue
                quoted = literal[0] + changed + literal[-1]
                if self.removed.replace(literal, quoted, 1) == self.added:
                    return True
        return False


def changed_lines(diff: str) -> tuple[str, str]:
    removed: list[str] = []
    added: list[str] = []
    for line in diff.splitlines():
        if line.startswith(("---", "+++")):
            continue
        if line.startswith("-"):
            removed.append(line[1:].strip())
        elif line.startswith("+"):
            added.append(line[1:].strip())
    return "\n".join(removed), "\n".join(added)


@dataclass(frozen=True)
class Equivalent:
    module: str
    function: str
    line: str
    mutant: str
    reason: str

    def matches(self, mutant: Mutant) -> bool:
        return (
            mutant.module == self.module
            and mutant.function == self.function
            and mutant.removed == self.line.strip()
            and mutant.added == self.mutant.strip()
        )


def load_equivalents(path: Path = EQUIVALENT_FILE) -> list[Equivalent]:
    if not path.is_file():
        return []
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    entries = []
    for index, raw in enumerate(data.get("equivalent", [])):
        missing = {"module", "function", "line", "mutant", "reason"} - set(raw)
        unknown = set(raw) - {"module", "function", "line", "mutant", "reason"}
        if missing or unknown or not str(raw.get("reason", "")).strip():
            raise SystemExit(
                f"{path}: entry {index + 1} needs module, function, line, mutant and a reason "
                f"(missing {sorted(missing)}, unknown {sorted(unknown)})"
            )
        entries.append(Equivalent(**{k: str(v) for k, v in raw.items()}))
    return entries


@dataclass
class Score:
    group: str
    modules: list[str]
    total: int = 0
    killed: int = 0
    timeout: int = 0
    survived: int = 0
    no_tests: int = 0
    suspicious: int = 0
    not_checked: int = 0
    equivalent: int = 0
    wording: int = 0
    seconds: float = 0.0
    survivors: list[dict[str, str]] = field(default_factory=list)
    wording_mutants: list[dict[str, str]] = field(default_factory=list)
    stale_equivalents: list[dict[str, str]] = field(default_factory=list)

    @property
    def score(self) -> float:
        """Detected share of the mutants a test of behaviour could catch."""
        judged = self.total - self.equivalent - self.wording
        return (self.killed + self.timeout) / judged if judged else 1.0

    @property
    def score_with_wording(self) -> float:
        judged = self.total - self.equivalent
        return (self.killed + self.timeout) / judged if judged else 1.0

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["score"] = round(self.score, 4)
        data["score_with_wording"] = round(self.score_with_wording, 4)
        return data


def score(
    group: Group,
    modules: Sequence[str],
    mutants: Iterable[Mutant],
    equivalents: Sequence[Equivalent],
) -> Score:
    result = Score(group.name, list(modules))
    mine = [e for e in equivalents if e.module in modules]
    used: set[Equivalent] = set()
    for mutant in mutants:
        if mutant.module not in modules:
            continue
        result.total += 1
        if mutant.detected:
            if mutant.status == "timeout":
                result.timeout += 1
            else:
                result.killed += 1
            continue
        entry = next((e for e in mine if e.matches(mutant)), None)
        if entry is not None:
            used.add(entry)
            result.equivalent += 1
            continue
        info = {
            "name": mutant.name,
            "status": mutant.status,
            "module": mutant.module,
            "function": mutant.function,
            "line": mutant.removed,
            "mutant": mutant.added,
        }
        if mutant.wording:
            result.wording += 1
            result.wording_mutants.append(info)
            continue
        if mutant.status == "survived":
            result.survived += 1
        elif mutant.status == "no tests":
            result.no_tests += 1
        elif mutant.status == "not checked":
            result.not_checked += 1
        else:
            result.suspicious += 1
        result.survivors.append(info)
    result.stale_equivalents = [asdict(e) for e in mine if e not in used]
    return result


# -- the command ------------------------------------------------------------------------------


def say(text: str) -> None:
    print(text, flush=True)


def table(scores: Sequence[Score]) -> str:
    head = (
        "group    mutants  killed  timeout  survived  no-tests  other  equivalent  wording"
        "   score  with wording"
    )
    rows = [head]
    for s in scores:
        rows.append(
            f"{s.group:<8} {s.total:>7}  {s.killed:>6}  {s.timeout:>7}  {s.survived:>8}  "
            f"{s.no_tests:>8}  {s.suspicious + s.not_checked:>5}  {s.equivalent:>10}  "
            f"{s.wording:>7}  {s.score:>6.1%}  {s.score_with_wording:>12.1%}"
        )
    return "\n".join(rows)


def run_group(args: argparse.Namespace, venv: Path, group: Group) -> Score:
    modules = list(args.module or group.modules)
    unknown = [m for m in modules if m not in group.modules]
    if unknown:
        raise SystemExit(
            f"--module {', '.join(unknown)}: not a module of group {group.name!r} "
            f"(its modules: {', '.join(group.modules)})"
        )
    # one stage per group: mutmut keeps the results of modules a --module run leaves out
    stage_dir = (
        args.cache / "stage" / (group.name + ("-" + "-".join(args.tests) if args.tests else ""))
    )
    if args.fresh and stage_dir.exists():
        shutil.rmtree(stage_dir)
    stage(stage_dir, group, modules, args.tests or ())
    say(
        f"== {group.name}: mutating {', '.join(modules)} against --agenttools-tools "
        f"{','.join(group.suite)} (stage {stage_dir})"
    )
    seconds = run_mutmut(venv, stage_dir, args.cache, group, args.max_children)
    result = score(
        group, modules, [Mutant.parse(m) for m in collect(venv, stage_dir)], load_equivalents()
    )
    result.seconds = round(seconds, 1)
    return result


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="scripts/mutation.py",
        description=__doc__.split("\n\n")[0] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--tool", action="append", choices=sorted(BY_NAME), help="a group to run")
    which.add_argument("--all", action="store_true", help="every group, one after the other")
    which.add_argument("--list", action="store_true", help="print the groups and their modules")
    parser.add_argument(
        "--module", action="append", help="mutate only this module of the group (repeatable)"
    )
    parser.add_argument(
        "--tests",
        action="append",
        help="run only this suite module (test_read.py; repeatable): a quicker, weaker check",
    )
    parser.add_argument("--max-children", type=int, default=2, help="parallel mutants (2)")
    parser.add_argument("--cache", type=Path, default=default_cache(), help="venv and stages")
    parser.add_argument("--venv", type=Path, help="the mutation venv (default: CACHE/venv)")
    parser.add_argument("--python", default=sys.executable, help="interpreter for the venv")
    parser.add_argument("--fresh", action="store_true", help="forget earlier results")
    parser.add_argument("--json", type=Path, help="write the scores here (JSON)")
    parser.add_argument("--min-score", type=float, default=0.0, help="exit 1 below this")
    parser.add_argument(
        "--survivors", action="store_true", help="print every undetected, non-equivalent mutant"
    )
    args = parser.parse_args(argv)
    if args.module and (not args.tool or len(args.tool) != 1):
        parser.error("--module needs exactly one --tool")
    if not (args.tool or args.all or args.list):
        parser.error("choose --tool NAME, --all or --list")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.list:
        for group in GROUPS:
            say(f"{group.name:<8} suite {','.join(group.suite):<30} {' '.join(group.modules)}")
        for module, why in OUT_OF_PROCESS.items():
            say(f"{'-':<8} not scored: {module} ({why})")
        return 0
    args.cache = args.cache.resolve()
    load_equivalents()  # a malformed file fails before any work
    venv = ensure_venv((args.venv or args.cache / "venv").resolve(), args.python)
    groups = GROUPS if args.all else [BY_NAME[name] for name in args.tool]
    scores = [run_group(args, venv, group) for group in groups]
    say(table(scores))
    failed = False
    for s in scores:
        if args.survivors:
            for m in s.survivors:
                say(f"  {m['status']:<10} {m['module']}.{m['function']}  {m['name']}")
                say(f"      - {m['line']!r}\n      + {m['mutant']!r}")
        for e in s.stale_equivalents:
            failed = True
            say(f"stale equivalent entry (matches no undetected mutant): {e}")
        if s.score < args.min_score:
            failed = True
            say(f"{s.group}: score {s.score:.1%} is below --min-score {args.min_score:.1%}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(
            json.dumps({"scores": [s.to_json() for s in scores]}, indent=2) + "\n",
            encoding="utf-8",
        )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
