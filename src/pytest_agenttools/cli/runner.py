"""The one place that builds the suite's pytest command line, for ``run`` and ``selfcheck``.

``agenttools run`` runs it in this process (``run_in_process``); one run in a child process of
its own is ``run_in_subprocess``; many runs (``selfcheck``: a hundred broken implementations,
the alternatives) are ``run_batch``: one child Python imports and collects the suite once, then
forks a process per run from that warm state, so a run pays for its own tests, not for starting
Python, importing pytest and hypothesis and rewriting the suite's asserts again. All of them
leave nothing in the caller's directory: the hypothesis database goes to a scratch directory,
and the suite's own ini file pins the rootdir so node ids are short and no ini file of the
caller applies.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pytest_agenttools.run.options import OPTIONS, option

SUITE = "pytest_agenttools.conformance"
#: the pytest plugins a run of the suite loads, by module, each with the name its entry point
#: registers (what ``-p no:NAME`` blocks): the kit's own, xdist (``-n``), hypothesis (its
#: profiles and the example database) and syrupy (golden snapshots)
SUITE_PLUGINS = {
    "pytest_agenttools.plugin": "agenttools",
    "xdist.plugin": "xdist",
    "xdist.looponfail": "xdist.looponfail",
    "_hypothesis_pytestplugin": "hypothesispytest",
    "syrupy": "syrupy",
}


#: pytest arguments for a run that needs only its verdicts (a broken implementation's, a peer's
#: strict run against its expectations): hypothesis does not shrink the counterexamples of
#: failures that are expected, and pytest does not excerpt their source (its default excerpts
#: parse the failing test's module again for every traceback entry: half of a short run's CPU)
VERDICT_ONLY = ("--agenttools-hypothesis-profile=verdict", "--tb=native")


@dataclass(frozen=True)
class SuiteRun:
    """What to run against which implementation; ``args()`` is the pytest command line."""

    impl: str | None = None
    cmd: str | None = None
    mcp: str | None = None
    mcp_mapping: str | None = None
    manifest: str | None = None
    expectations: str | None = None
    strict: bool = False
    report: str | None = None
    tools: str | None = None
    features: str | None = None
    #: comma-separated clause ids: only their tests run
    clauses: str | None = None
    modules: Sequence[str] = ()
    quiet: bool = True
    extra: Sequence[str] = field(default_factory=tuple)
    #: False: pytest's output leaves out the conformance section (the caller prints it)
    pytest_summary: bool = True
    #: values of the options of the table (``run.options.OPTIONS``) that have no field above
    options: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.options:
            if name in OPTION_FIELDS:
                raise ValueError(f"SuiteRun: give {name!r} as its own field, not in options")
            try:
                option(name)  # an unknown name is an error, never a flag silently dropped
            except KeyError as exc:
                raise ValueError(f"SuiteRun: {exc.args[0]}") from None

    @classmethod
    def from_options(cls, values: Mapping[str, Any], **fields: Any) -> SuiteRun:
        """A run from option values by name: those with a field of their own go there."""
        own = {k: v for k, v in values.items() if k in OPTION_FIELDS}
        rest = {k: v for k, v in values.items() if k not in OPTION_FIELDS}
        return cls(**own, **fields, options=rest)

    def option_values(self) -> dict[str, Any]:
        """Every option this run sets, by the table's names."""
        values = {name: getattr(self, name) for name in OPTION_FIELDS}
        return {**values, **self.options}

    def collected_modules(self) -> list[str]:
        """The suite modules to collect: those named, else (a clause selection) the modules of
        the chosen clauses' tests, else none named (the whole suite)."""
        if self.modules:
            return list(self.modules)
        if self.clauses:
            from pytest_agenttools.run.selection import split_list
            from pytest_agenttools.spec.clauses import modules_testing

            return modules_testing(sorted(split_list(self.clauses)))
        return []

    def args(self) -> list[str]:
        from pytest_agenttools.spec.clauses import suite_dir

        root = str(suite_dir())
        targets = [f"{SUITE}.{m}" for m in self.collected_modules()] or [SUITE]
        args = [
            "--pyargs",
            *targets,
            "--rootdir",
            root,
            "-c",
            os.path.join(root, "pytest.ini"),
            # only the plugins the suite needs: an installed plugin that reruns, reorders or
            # times out tests must not change a verdict, and importing unrelated plugins in
            # every xdist worker cost about 0.9 s of CPU each (more with `-- -p NAME`)
            "--disable-plugin-autoload",
            *(arg for name in _plugins(self.extra) for arg in ("-p", name)),
            # a partial run (-k, --tools) leaves goldens of other tests unused, not stale
            "--snapshot-warn-unused",
        ]
        if self.quiet:
            args += ["-q", "-rfE"]
        if not self.pytest_summary:
            from pytest_agenttools.report.data import SUMMARY_PLUGIN

            args += ["-p", f"no:{SUMMARY_PLUGIN}"]
        args += option_args(self.option_values())
        return args + list(self.extra)


#: the options of the table that a SuiteRun holds as fields of its own
OPTION_FIELDS = (
    "impl",
    "cmd",
    "mcp",
    "mcp_mapping",
    "manifest",
    "expectations",
    "strict",
    "report",
    "tools",
    "features",
    "clauses",
)


def option_args(values: Mapping[str, Any]) -> list[str]:
    """The pytest flags of the options given (a switch when true, else the flag and value)."""
    args: list[str] = []
    for row in OPTIONS:
        value = values.get(row.name)
        if value is None or value is False or value == "":
            continue
        args += [row.flag] if row.kind == "bool" else [row.flag, str(value)]
    return args


def _plugins(extra: Sequence[str]) -> list[str]:
    """The suite's plugin modules to load: those installed here (xdist may have been removed:
    the suite then runs in one process, as pytest does without it) and not blocked by the
    caller's own ``-p no:NAME`` (``-- -p no:xdist``)."""
    import importlib.util

    blocked = {arg[3:] for arg in _p_values(extra) if arg.startswith("no:")}
    found = []
    for module, name in SUITE_PLUGINS.items():
        if name in blocked or module in blocked or module.split(".")[0] in blocked:
            continue
        # the top-level name only: finding a submodule would import its package first, and
        # pytest could then no longer rewrite the plugin's asserts
        if importlib.util.find_spec(module.split(".")[0]) is not None:
            found.append(module)
    return found


def _p_values(args: Sequence[str]) -> list[str]:
    """The values of every ``-p`` option in ``args`` (``-p NAME`` and ``-pNAME``)."""
    values = []
    for index, arg in enumerate(args):
        if arg == "-p" and index + 1 < len(args):
            values.append(args[index + 1])
        elif arg.startswith("-p") and len(arg) > 2:
            values.append(arg[2:])
    return values


def seed_hypothesis_storage(directory: str) -> None:
    """Give a fresh hypothesis storage directory the Unicode category table that hypothesis
    otherwise builds in every process that starts with it: a walk over all 1.1 million code
    points, about 0.14 s of CPU in each xdist worker and each child run. The table is built
    here once per process (without importing hypothesis, which warns when its storage is
    touched before its pytest plugin loads) and written where and as hypothesis caches it; a
    file it cannot read it builds again, so a change of format in hypothesis costs time, never
    a wrong table."""
    import gzip
    import unicodedata

    try:
        target = os.path.join(directory, "unicode_data", unicodedata.unidata_version)
        os.makedirs(target, exist_ok=True)
        with gzip.GzipFile(os.path.join(target, "charmap.json.gz"), "wb", mtime=1) as stream:
            stream.write(_category_table())
    except OSError:  # an optimisation only: hypothesis builds the table itself
        return


@functools.cache
def _category_table() -> bytes:
    """Each Unicode category's code point spans, as JSON: ``[[category, [[start, end] ...]] ...]``
    sorted by category (hypothesis's ``charmap`` cache file). Kept in the user's cache
    directory once built: every ``agenttools run`` is a new process, and the walk costs each
    of them 0.2 s of CPU; a cache that cannot be read or written is built again."""
    import unicodedata

    cached = os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"),
        "pytest-agenttools",
        f"unicode-categories-{unicodedata.unidata_version}-{sys.maxunicode}.json",
    )
    with contextlib.suppress(OSError, ValueError):
        with open(cached, "rb") as stream:
            data = stream.read()
        table = json.loads(data)  # a write cut short elsewhere is no table
        if isinstance(table, list) and all(isinstance(row[0], str) for row in table):
            return data
    data = _walk_categories()
    with contextlib.suppress(OSError):
        from pytest_agenttools.run.baseline import write_atomically

        os.makedirs(os.path.dirname(cached), exist_ok=True)
        write_atomically(cached, data.decode())  # whole or not at all, whoever else writes it
    return data


def _walk_categories() -> bytes:
    import unicodedata

    category = unicodedata.category
    spans: dict[str, list[list[int]]] = {}
    last, start = category(chr(0)), 0
    for point in range(1, sys.maxunicode + 1):
        now = category(chr(point))
        if now != last:
            spans.setdefault(last, []).append([start, point - 1])
            last, start = now, point
    spans.setdefault(last, []).append([start, sys.maxunicode])
    return json.dumps(sorted(spans.items())).encode()


def child_env(scratch: str) -> dict[str, str]:
    """The environment of a child run: this one, with hypothesis's storage (its example
    database, its caches) in a seeded directory under ``scratch``."""
    storage = os.path.join(scratch, "hypothesis")
    seed_hypothesis_storage(storage)
    return dict(os.environ, HYPOTHESIS_STORAGE_DIRECTORY=storage)


@contextlib.contextmanager
def scratch_hypothesis() -> Iterator[str]:
    """Point hypothesis's example database at a scratch directory for the run's duration."""
    scratch = tempfile.mkdtemp(prefix="agenttools-hypothesis-")
    seed_hypothesis_storage(scratch)
    previous = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = scratch
    try:
        yield scratch
    finally:
        if previous is None:
            os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
        else:
            os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = previous
        shutil.rmtree(scratch, ignore_errors=True)


def read_report(path: str) -> dict[str, Any]:
    try:
        with open(path, encoding="utf-8") as stream:
            data = json.load(stream)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def run_in_process(run: SuiteRun) -> tuple[int, dict[str, Any]]:
    """Run the suite with ``pytest.main`` here; return the exit code and the report data.

    Without ``run.report`` the report goes to a temporary file that is removed afterwards.
    """
    import pytest

    with tempfile.TemporaryDirectory(prefix="agenttools-run-") as scratch:
        target = run.report or os.path.join(scratch, "report.json")
        args = _with_report(run, target).args()
        if not any(a == "--basetemp" or a.startswith("--basetemp=") for a in run.extra):
            # pytest's temp root (xdist makes one for its workers) inside the run's scratch
            # space, not a pytest-of-USER directory left behind in the user's TMPDIR
            args.append(f"--basetemp={os.path.join(scratch, 'pytest')}")
        with scratch_hypothesis():
            code = int(pytest.main(args))
        return code, read_report(target)


@dataclass
class ChildRun:
    """The outcome of a suite run in a child process."""

    exit_code: int
    report: dict[str, Any]
    output: str
    problem: str = ""
    #: how long the run took, from its start to its end
    wall_s: float = 0.0
    #: CPU seconds of the run and of the processes it waited for (its bash commands, its
    #: implementation's server); None where they cannot be told from other runs' (a child run
    #: started by a caller that may run others at once)
    cpu_s: float | None = None


def run_in_subprocess(run: SuiteRun, timeout: float = 900) -> ChildRun:
    """Run the suite in a child Python (its own pytest session), from a scratch directory."""
    with tempfile.TemporaryDirectory(prefix="agenttools-child-") as scratch:
        target = run.report or os.path.join(scratch, "report.json")
        env = child_env(scratch)
        command = [sys.executable, "-m", "pytest", *_with_report(run, target).args()]
        started = time.monotonic()
        try:
            proc = subprocess.run(
                command, cwd=scratch, env=env, capture_output=True, text=True, timeout=timeout
            )
        except subprocess.TimeoutExpired:
            return ChildRun(
                -1, {}, "", f"the run did not finish within {timeout:.0f} s", timeout, None
            )
        took = time.monotonic() - started
        output = proc.stdout + proc.stderr
        report = read_report(target)
        problem = "" if report else f"no report; pytest said: {output[-1500:]}"
        return ChildRun(proc.returncode, report, output, problem, took, None)


def _with_report(run: SuiteRun, path: str) -> SuiteRun:
    return replace(run, report=path)


# --- many runs in one warm child ----------------------------------------------------------------


def run_batch(
    runs: Sequence[SuiteRun],
    *,
    jobs: int = 2,
    timeout: float = 900,
    progress: Callable[[int, ChildRun], None] | None = None,
) -> list[ChildRun]:
    """Run each of ``runs`` (up to ``jobs`` at once); return their outcomes in order.

    One child Python (``python -m pytest_agenttools.cli.runner PLAN``) collects every suite module
    the runs name, once, then forks one process per run: each run is its own pytest session
    with its own implementation, isolated from the others by the fork, but none of them starts
    Python or imports the suite again. ``progress(index, outcome)`` is called as runs finish.
    Where ``os.fork`` does not exist, each run gets a child Python of its own.
    """
    if not runs:
        return []
    if not hasattr(os, "fork"):
        each: list[ChildRun] = []
        for index, run in enumerate(runs):
            each.append(run_in_subprocess(run, timeout))
            if progress:
                progress(index, each[-1])
        return each
    with tempfile.TemporaryDirectory(prefix="agenttools-batch-") as scratch:
        specs: list[dict[str, Any]] = [
            {
                "args": _with_report(run, os.path.join(scratch, f"{i}.json")).args(),
                "report": os.path.join(scratch, f"{i}.json"),
                "output": os.path.join(scratch, f"{i}.out"),
                "impl": run.impl,
            }
            for i, run in enumerate(runs)
        ]
        plan = {
            "jobs": max(1, jobs),
            "timeout": timeout,
            "warm": _warm_args(runs),
            "runs": specs,
        }
        plan_file = os.path.join(scratch, "plan.json")
        with open(plan_file, "w", encoding="utf-8") as stream:
            json.dump(plan, stream)
        env = child_env(scratch)
        outcomes: dict[int, ChildRun] = {}
        with subprocess.Popen(
            [sys.executable, "-m", __name__, plan_file],
            cwd=scratch,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        ) as proc:
            # the child's own complaints (a warm-up that failed) are read on a thread so a
            # full stderr pipe never stalls it
            complaints: list[str] = []
            reader = threading.Thread(
                target=lambda: complaints.append(proc.stderr.read() if proc.stderr else ""),
                daemon=True,
            )
            reader.start()
            assert proc.stdout is not None
            for line in proc.stdout:
                done = json.loads(line)
                index = int(done["index"])
                spec = specs[index]
                outcome = _outcome(done, spec["report"], spec["output"])
                outcomes[index] = outcome
                if progress:
                    progress(index, outcome)
            proc.wait()
            reader.join(5)
        said = "".join(complaints)[-1500:]
        return [
            outcomes.get(i)
            or ChildRun(-1, {}, said, f"the batch ended without this run; it said: {said}")
            for i in range(len(runs))
        ]


def _outcome(done: dict[str, Any], report_path: str, output_path: str) -> ChildRun:
    try:
        with open(output_path, encoding="utf-8", errors="replace") as stream:
            output = stream.read()
    except OSError:
        output = ""
    report = read_report(report_path)
    problem = str(done.get("problem") or "")
    if not problem and not report:
        problem = f"no report; pytest said: {output[-1500:]}"
    cpu = done.get("cpu_s")
    return ChildRun(
        int(done["exit_code"]),
        report,
        output,
        problem,
        float(done.get("wall_s") or 0.0),
        None if cpu is None else float(cpu),
    )


def _warm_args(runs: Sequence[SuiteRun]) -> list[str]:
    """Collect-only over every module the runs name (the whole suite if one names none)."""
    modules: list[str] = []
    for run in runs:
        if not run.modules:
            modules = []
            break
        modules += [m for m in run.modules if m not in modules]
    return [*SuiteRun(modules=tuple(modules)).args(), "--collect-only"]


def _serve_plan(plan_file: str) -> int:
    """The batch child: warm up, then fork one process per run; report each as a JSON line."""
    with open(plan_file, encoding="utf-8") as stream:
        plan = json.load(stream)
    import importlib

    import pytest

    with _output_to(os.devnull):
        pytest.main(plan["warm"])
    for run in plan["runs"]:  # the implementations' modules, imported once for every run
        module, _, _ = (run["impl"] or "").rpartition(":")
        if module and not module.endswith(".py") and os.sep not in module:
            with contextlib.suppress(Exception):
                importlib.import_module(module)
    if any((run["impl"] or "").startswith(f"{__package__}.") for run in plan["runs"]):
        # the shipped implementations (broken, alternative) are the reference underneath, which
        # imports its tool modules when an instance starts: in each run, 0.14 s, unless here
        from pytest_agenttools.implementations.reference.toolbox import load_tools

        with contextlib.suppress(Exception):
            load_tools()
    if threading.active_count() > 1:
        # a thread would not survive the fork (and could hold a lock the child needs): each
        # run gets a child Python of its own instead
        for index, run in enumerate(plan["runs"]):
            before, started = _children_cpu(), time.monotonic()
            with open(run["output"], "w", encoding="utf-8") as output:
                code = subprocess.run(
                    [sys.executable, "-m", "pytest", *run["args"]], stdout=output, stderr=output
                ).returncode
            _report(index, code, "", time.monotonic() - started, _children_cpu() - before)
        return 0
    # What the warm-up made is shared by every fork and lives as long as they do: frozen, the
    # full collections each run's pytest makes at its end need not walk it (0.15 s a run), and
    # its memory pages stay shared instead of being touched and copied.
    gc.collect()
    gc.freeze()
    pending = list(enumerate(plan["runs"]))
    #: pid -> (index, when it started, when it is due)
    running: dict[int, tuple[int, float, float]] = {}
    timeout = float(plan["timeout"])
    while pending or running:
        while pending and len(running) < int(plan["jobs"]):
            index, run = pending.pop(0)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - the forked run
                _forked(run["args"], run["output"])
            started = time.monotonic()
            running[pid] = (index, started, started + timeout)
        # wait4: the fork's resource use, its own and that of every process it waited for
        pid, status, usage = os.wait4(-1, os.WNOHANG)
        if pid:
            index, started, _ = running.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            _report(
                index,
                code,
                "" if code >= 0 else f"the run was killed by signal {-code}",
                time.monotonic() - started,
                _cpu_seconds(usage),
            )
            continue
        now = time.monotonic()
        for pid, (index, started, due) in list(running.items()):
            if now > due:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)
                _, _, usage = os.wait4(pid, 0)
                running.pop(pid)
                _report(
                    index,
                    -1,
                    f"the run did not finish within {timeout:.0f} s",
                    now - started,
                    _cpu_seconds(usage),
                )
        time.sleep(0.01)
    return 0


def _forked(args: list[str], output: str) -> None:
    """In the forked process: its own process group, its output to a file, one pytest session."""
    code = 3
    try:
        os.setpgid(0, 0)
        code = _run_in_child(args, output)
    finally:
        os._exit(code)


def _run_in_child(args: list[str], output: str) -> int:
    import pytest

    try:
        with _output_to(output):
            return int(pytest.main(args))
    except BaseException as exc:  # a run must always report, whatever pytest raised
        with open(output, "a", encoding="utf-8") as stream:
            stream.write(f"\npytest.main raised {type(exc).__name__}: {exc}\n")
        return 3


@contextlib.contextmanager
def _output_to(path: str) -> Iterator[None]:
    """Send this process's stdout and stderr (the file descriptors) to ``path``."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    target = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.dup2(target, 1)
        os.dup2(target, 2)
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (target, *saved):
            os.close(fd)


def _children_cpu() -> float:
    import resource  # POSIX only, as is the batch child

    return _cpu_seconds(resource.getrusage(resource.RUSAGE_CHILDREN))


def _cpu_seconds(usage: Any) -> float:
    """User plus system seconds of a ``struct_rusage``."""
    return float(usage.ru_utime + usage.ru_stime)


def _report(index: int, exit_code: int, problem: str, wall_s: float, cpu_s: float) -> None:
    print(
        json.dumps(
            {
                "index": index,
                "exit_code": exit_code,
                "problem": problem,
                "wall_s": round(wall_s, 3),
                "cpu_s": round(cpu_s, 3),
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    sys.exit(_serve_plan(sys.argv[1]))
