"""The built wheel, installed into clean environments, as a user gets it (``-m install``).

One wheel is built from a copy of the checkout (``pip wheel --no-deps``) and installed with its
dependencies from the package index into fresh venvs; two venvs that never saw the kit hold the
same pytest (and xdist and common plugins) for comparison:

- ``kit``: the wheel and its dependencies (xdist among them), pytest-cov, pytest-randomly and
  pytest-timeout;
- ``kit_no_xdist``: the wheel and its dependencies, then ``pip uninstall pytest-xdist``;
- ``bare``: pytest alone, at the kit venv's version;
- ``bare_plugins``: pytest, pytest-xdist, pytest-cov, pytest-randomly and pytest-timeout, at the
  kit venv's versions.

Making the venvs is the cost, so the checks are the subtests of one test: one xdist worker makes
and uses the venvs while the others go on (with one test per check, every worker that drew one
would wait for the venvs). The venvs have no pip of their own: this interpreter's pip installs
into them (``pip --python``), which saves about 3 s a venv and installs exactly what the venv's
own pip would, less the bytecode (``--no-compile``: compiled on first import instead, a third
less CPU for the install). pip's cache serves repeated downloads. Cost, measured: about a minute of
CPU (50-62 s), most of it the two kit installs (run side by side) and about 1 s per pytest run
in a venv; the wall time follows the machine's load (3 to 4 minutes with the two cores shared
by a dozen busy processes).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests import plain_project
from tests.support import REPO

pytestmark = pytest.mark.install

CHECKOUT = REPO
NOT_SOURCE = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "node_modules",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    ".benchmarks",
)
COMMON_PLUGINS = ("pytest-cov", "pytest-randomly", "pytest-timeout")
INSTALL_TIMEOUT = 600


def _env() -> dict[str, str]:
    """The caller's environment without what ties it to this pytest run or this venv."""
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("PYTEST_", "COV_CORE_")) and k not in ("VIRTUAL_ENV", "PYTHONPATH")
    }


def _run(args: Sequence[str | Path], cwd: Path, timeout: float = 300) -> tuple[int, str]:
    proc = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    return proc.returncode, proc.stdout + proc.stderr


def _must(args: Sequence[str | Path], cwd: Path, timeout: float = INSTALL_TIMEOUT) -> str:
    code, output = _run(args, cwd, timeout)
    if code != 0:
        raise RuntimeError(f"{' '.join(map(str, args))} exited {code}:\n{output[-4000:]}")
    return output


@dataclass(frozen=True)
class Envs:
    root: Path

    def bin(self, name: str) -> Path:
        return self.root / name / "bin"

    @property
    def wheels(self) -> Path:
        return self.root / "wheels"


def _pip(envs: Envs, venv: str, *args: str) -> None:
    target = envs.bin(venv) / "python"
    _must([sys.executable, "-m", "pip", "--python", target, *args], envs.root)


def _version(envs: Envs, venv: str, dist: str) -> str:
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    return _must([envs.bin(venv) / "python", "-c", code], envs.root).strip()


def _build(envs: Envs) -> None:
    source = envs.root / "source"
    shutil.copytree(CHECKOUT, source, ignore=NOT_SOURCE, symlinks=True)
    _must(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", envs.wheels, source],
        envs.root,
    )
    (wheel,) = envs.wheels.glob("pytest_agenttools-*.whl")
    for venv in ("kit", "kit_no_xdist", "bare", "bare_plugins"):
        _must([sys.executable, "-m", "venv", "--without-pip", envs.root / venv], envs.root)

    def kit() -> None:
        _pip(envs, "kit", "install", "-q", "--no-compile", str(wheel), *COMMON_PLUGINS)

    def kit_no_xdist() -> None:
        _pip(envs, "kit_no_xdist", "install", "-q", "--no-compile", str(wheel))
        _pip(envs, "kit_no_xdist", "uninstall", "-q", "-y", "pytest-xdist")

    with ThreadPoolExecutor(2) as pool:
        for done in [pool.submit(kit), pool.submit(kit_no_xdist)]:
            done.result()
    pins = {d: _version(envs, "kit", d) for d in ("pytest", "pytest-xdist", *COMMON_PLUGINS)}
    with ThreadPoolExecutor(2) as pool:
        jobs = [
            pool.submit(
                _pip, envs, "bare", "install", "-q", "--no-compile", f"pytest=={pins['pytest']}"
            ),
            pool.submit(
                _pip,
                envs,
                "bare_plugins",
                "install",
                "-q",
                "--no-compile",
                *(f"{d}=={v}" for d, v in pins.items()),
            ),
        ]
        for done in jobs:
            done.result()


@pytest.fixture(scope="module")
def envs(tmp_path_factory: pytest.TempPathFactory) -> Envs:
    """The wheel and the four venvs."""
    made = Envs(tmp_path_factory.mktemp("install"))
    _build(made)
    return made


def _plugin_and_command(envs: Envs, cwd: Path) -> None:
    code, output = _run([envs.bin("kit") / "agenttools", "--help"], cwd)
    assert code == 0, output
    assert "run" in output and "selfcheck" in output
    code, output = _run([envs.bin("kit") / "pytest", "--help"], cwd)
    assert code == 0, output
    assert "--agenttools-cmd" in output
    assert "--numprocesses" in output, "pytest-xdist is a dependency of the kit"


def _collects_with_pyargs(envs: Envs, cwd: Path) -> None:
    args = ["--pyargs", "pytest_agenttools.conformance", "--collect-only", "-q"]
    code, output = _run([envs.bin("kit") / "pytest", *args], cwd)
    assert code == 0, output[-3000:]
    closing = output.strip().splitlines()[-1]
    assert closing.split()[1:3] == ["tests", "collected"], output[-2000:]
    assert int(closing.split()[0]) > 0
    assert "warning" not in closing and "error" not in closing, closing


def _runs_by_path_without_xdist(envs: Envs, cwd: Path) -> None:
    python = envs.bin("kit_no_xdist") / "python"
    where = "from pytest_agenttools.spec.clauses import suite_dir; print(suite_dir())"
    suite = _must([python, "-c", where], cwd).strip()
    assert "site-packages" in suite, "the venv must run the installed kit, not the checkout"
    code, output = _run([envs.bin("kit_no_xdist") / "pytest", "-q", f"{suite}/test_read.py"], cwd)
    assert code == 0, output[-3000:]
    assert (plain_project.outcome(output) or "").endswith("passed"), output[-2000:]


def _agenttools_run_without_xdist(envs: Envs, cwd: Path) -> None:
    """README command 1 stopped here (an unknown xdist hook) before xdist was a dependency;
    .ci/run runs it in full, and with ``-- -n 2``, in a venv made as the README says."""
    exe = envs.bin("kit_no_xdist") / "agenttools"
    code, output = _run([exe, "run", "--tools", "read", "--report-json", "r.json"], cwd)
    assert code == 0, output[-4000:]
    assert "INTERNALERROR" not in output and "PytestAssertRewriteWarning" not in output
    assert "warning" not in (plain_project.outcome(output) or "warning"), output[-4000:]
    report = json.loads((cwd / "r.json").read_text())
    assert report["implementation"]["name"] == "agenttools-reference"
    assert report["summary"]["passed"] > 0
    assert report["summary"]["failed"] == report["summary"]["error"] == 0


STRICT = ["-v", "-rA", "--strict-markers", "--strict-config", "-W", "error::pytest.PytestWarning"]
# (venv with the kit, venv without it, pytest arguments, whether lines come in a fixed order)
UNRELATED = {
    "xdist absent": ("kit_no_xdist", "bare", STRICT, True),
    "xdist installed": ("kit", "bare_plugins", [*STRICT, "-p", "no:randomly"], True),
    "xdist disabled": ("kit", "bare_plugins", ["-rA", "-p", "no:xdist", "-p", "no:randomly"], True),
    "-n 2": ("kit", "bare_plugins", ["-rA", "-n", "2", "-p", "no:randomly"], False),
    "cov, randomly, timeout": (
        "kit",
        "bare_plugins",
        ["-rA", "--randomly-seed=1234", "--cov", "--cov-report=term", "--timeout=60"],
        True,
    ),
}


def _unrelated_project(envs: Envs, cwd: Path, name: str) -> None:
    with_kit, without_kit, args, ordered = UNRELATED[name]
    before = plain_project.run(envs.bin(without_kit) / "pytest", args, cwd / "without")
    assert before.exit_code == plain_project.EXIT_CODE, before.output
    assert plain_project.outcome(before.output) == plain_project.OUTCOME, before.output
    after = plain_project.run(envs.bin(with_kit) / "pytest", args, cwd / "with")
    assert "agenttools-" in after.output, "the kit's plugin is not in the run's plugin list"
    assert before.differences(after, ordered=ordered) == []


@pytest.mark.kit_long(90)
def test_the_installed_wheel(envs: Envs, tmp_path: Path, subtests: pytest.Subtests) -> None:
    checks = {
        "agenttools --help and the plugin's options": _plugin_and_command,
        "--pyargs pytest_agenttools.conformance --collect-only": _collects_with_pyargs,
        "the suite by path, without xdist": _runs_by_path_without_xdist,
        "agenttools run, without xdist": _agenttools_run_without_xdist,
    }
    for number, (what, check) in enumerate(checks.items()):
        with subtests.test(msg=what):
            cwd = tmp_path / f"check{number}"
            cwd.mkdir()
            check(envs, cwd)
    for number, name in enumerate(UNRELATED):
        with subtests.test(msg=f"an unrelated project runs as without the kit: {name}"):
            _unrelated_project(envs, tmp_path / f"unrelated{number}", name)
