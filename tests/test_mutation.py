"""Mutation testing of the reference (scripts/mutation.py, docs/mutation.md).

The fast tests check the command's bookkeeping: every reference module is measured by exactly one
group, the equivalents file is well formed, a wording-only mutant is told apart from one that
changes a value, and the score leaves out only what it says it does. ``-m mutation`` runs mutmut
for real on one small module with its suite module and the kit tests of its policy, and checks
the score against the floor recorded below (about a minute of CPU, plus a venv made once under
``~/.cache/agenttools-mutation``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import REPO

SCRIPT = REPO / "scripts" / "mutation.py"
#: the CI subset: one module, the suite modules that judge it, the floor its score stays above
CI_GROUP, CI_MODULE, CI_TESTS = "read", "sniff", ("test_read.py", "test_read_formats.py")
CI_FLOOR = 0.90


@pytest.fixture(scope="module")
def mutation() -> Iterator[ModuleType]:
    spec = importlib.util.spec_from_file_location("agenttools_mutation_script", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


def test_every_reference_module_is_measured_once(mutation: ModuleType) -> None:
    modules = sorted(
        p.stem
        for p in (REPO / "src" / "pytest_agenttools" / "implementations" / "reference").glob("*.py")
    )
    grouped = [m for group in mutation.GROUPS for m in group.modules]
    assert len(grouped) == len(set(grouped)), f"a module is in two groups: {sorted(grouped)}"
    assert not set(grouped) & set(mutation.OUT_OF_PROCESS)
    assert sorted([*grouped, *mutation.OUT_OF_PROCESS]) == modules


def test_groups_name_real_tools_and_tests(mutation: ModuleType) -> None:
    tools = {"read", "write", "edit", "grep", "glob", "bash"}
    for group in mutation.GROUPS:
        assert set(group.suite) <= tools, group
        for name in group.extra_tests:
            assert (REPO / "tests" / name).is_file(), f"{group.name}: no tests/{name}"


def test_equivalents_are_well_formed(mutation: ModuleType) -> None:
    grouped = {m for group in mutation.GROUPS for m in group.modules}
    for entry in mutation.load_equivalents():
        assert entry.module in grouped, entry
        assert "\n" not in entry.reason.strip() and len(entry.reason) >= 20, entry
        assert entry.line.strip() != entry.mutant.strip(), entry


def test_equivalents_file_refuses_an_entry_without_reason(
    mutation: ModuleType, tmp_path: Path
) -> None:
    bad = tmp_path / "equivalent.toml"
    bad.write_text('[[equivalent]]\nmodule = "sniff"\nfunction = "f"\nline = "a"\nmutant = "b"\n')
    with pytest.raises(SystemExit, match="reason"):
        mutation.load_equivalents(bad)


@pytest.mark.parametrize(
    ("line", "mutant", "wording"),
    [
        ('raise _bad("limit must be 1 or more lines", "limit")', None, True),
        ('hint = " Check the path with glob."', None, True),
        ('return Kind("binary")', 'return Kind("XXbinaryXX")', False),
        ('return Kind("binary")', 'return Kind("BINARY")', False),
        ('sep = "two words"', 'sep = "XXtwo wordsXX"', False),
        ('u = limits.unit("read.max_bytes")', 'u = limits.unit("XXread.max_bytesXX")', False),
        ('raise _bad("limit must be 1 or more lines", "limit")', "raise _bad(None)", False),
        ('x = "a b c" + "d e f"', 'x = "a b c" + "XXd e fXX"', False),  # one-letter words
    ],
)
def test_wording_is_only_a_sentence_rewritten(
    mutation: ModuleType, line: str, mutant: str | None, wording: bool
) -> None:
    if mutant is None:
        literal = line.split('"')[1]
        mutant = line.replace(literal, f"XX{literal}XX", 1)
    parsed = mutation.Mutant("m", "read", "run", "survived", line, mutant)
    assert parsed.wording is wording


def test_score_leaves_out_equivalent_and_wording_only(mutation: ModuleType) -> None:
    group = mutation.Group("read", ("read",), ("sniff",))
    mutants = [
        mutation.Mutant("a", "sniff", "f", "killed", "", ""),
        mutation.Mutant("b", "sniff", "f", "timeout", "", ""),
        mutation.Mutant("c", "sniff", "f", "survived", "x = 1", "x = 2"),
        mutation.Mutant("d", "sniff", "f", "survived", "y = 1", "y = 2"),
        mutation.Mutant(
            "e", "sniff", "f", "no tests", 'm("the long sentence")', 'm("XXthe long sentenceXX")'
        ),
        mutation.Mutant("f", "other", "f", "survived", "z = 1", "z = 2"),
    ]
    equivalents = [
        mutation.Equivalent("sniff", "f", "x = 1", "x = 2", "a reason long enough to say why"),
        mutation.Equivalent("sniff", "f", "w = 1", "w = 2", "matches nothing, so it is stale"),
    ]
    result = mutation.score(group, ["sniff"], mutants, equivalents)
    assert (result.total, result.killed, result.timeout, result.survived) == (5, 1, 1, 1)
    assert (result.equivalent, result.wording, result.no_tests) == (1, 1, 0)
    assert result.score == pytest.approx(2 / 3)
    assert result.score_with_wording == pytest.approx(2 / 4)
    assert [e["line"] for e in result.stale_equivalents] == ["w = 1"]
    assert [m["name"] for m in result.survivors] == ["d"]


def test_changed_lines_of_a_diff(mutation: ModuleType) -> None:
    diff = "--- a.py\n+++ a.py\n@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 2\n"
    assert mutation.changed_lines(diff) == ("return 1", "return 2")


@pytest.mark.mutation
@pytest.mark.kit_long(140)
def test_mutation_score_of_one_module_stays_above_its_floor(tmp_path: Path) -> None:
    """The CI subset: a real mutmut run over one module; the full per-tool run is for releases."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    venv = cache / "agenttools-mutation" / "venv"
    report = tmp_path / "scores.json"
    args = [sys.executable, str(SCRIPT), "--tool", CI_GROUP, "--module", CI_MODULE]
    args += [f"--tests={name}" for name in CI_TESTS]
    args += ["--cache", str(tmp_path), "--venv", str(venv), "--json", str(report)]
    args += ["--max-children", "1", "--survivors"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    (result,) = json.loads(report.read_text())["scores"]
    assert result["total"] > 50, result
    assert result["score"] >= CI_FLOOR, done.stdout[-4000:]
