"""The spec and the suite stay in step: every clause tested, every test tied to a clause."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pytest_agenttools.cli.selfcheck import caught_index
from pytest_agenttools.spec.clauses import (
    clause_test_index,
    implementation_index,
    load,
    render_markdown,
    suite_dir,
)
from tests.support import REPO


def test_docs_spec_is_generated_from_the_spec_files() -> None:
    expected = render_markdown(load(), clause_test_index(), implementation_index(), caught_index())
    actual = (REPO / "docs" / "spec.md").read_text(encoding="utf-8")
    assert actual == expected, (
        "docs/spec.md is out of date; regenerate it with "
        "`agenttools clauses --markdown > docs/spec.md`"
    )


def test_every_active_clause_has_a_test() -> None:
    tested = clause_test_index()
    untested = [c.id for c in load().active() if not tested.get(c.id)]
    assert not untested, f"clauses without tests: {untested}"


def test_every_test_names_a_known_clause() -> None:
    known = load().by_id()
    unnamed, unknown = [], []
    for path in sorted(suite_dir().glob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                ids = [
                    str(d.args[0].value)
                    for d in node.decorator_list
                    if isinstance(d, ast.Call)
                    and getattr(d.func, "id", "") == "clause"
                    and d.args
                    and isinstance(d.args[0], ast.Constant)
                ]
                if not ids:
                    unnamed.append(f"{path.name}::{node.name}")
                unknown += [f"{path.name}::{node.name} -> {i}" for i in ids if i not in known]
    assert not unnamed, f"conformance tests without a clause: {unnamed}"
    assert not unknown, f"tests naming clauses the spec lacks: {unknown}"


def test_clause_ids_are_well_formed() -> None:
    for clause in load().clauses:
        prefix = clause.id.split("-")[0].lower()
        assert prefix in (clause.tool, "task"), (
            f"{clause.id}: prefix does not match tool {clause.tool}"
        )
        assert clause.id == clause.id.upper(), clause.id


def test_malformed_spec_is_rejected(tmp_path: Path) -> None:
    bad = tmp_path / "spec.toml"
    bad.write_text(
        '[[clause]]\nid = "X-1"\ntool = "read"\nlevel = "MAY"\ntitle = "t"\n'
        'text = "t"\nrationale = "r"\n'
    )
    with pytest.raises(ValueError, match="MUST or SHOULD"):
        load(bad)
    bad.write_text('[[clause]]\nid = "X-1"\ntool = "read"\n')
    with pytest.raises(ValueError, match="lacks"):
        load(bad)


def test_every_active_clause_says_what_it_observes() -> None:
    silent = [c.id for c in load().active() if not c.observes]
    assert not silent, f"clauses without `observes`: {silent}"


def test_every_active_clause_names_its_reference_code() -> None:
    implemented = implementation_index()
    missing = [c.id for c in load().active() if not implemented.get(c.id)]
    assert not missing, (
        f"clauses no reference function names (put the id in the docstring or a comment of "
        f"the code that implements it): {missing}"
    )


def test_reference_code_names_only_known_clauses() -> None:
    known = load().by_id()
    unknown = sorted(set(implementation_index()) - set(known))
    assert not unknown, f"reference code names clause ids the spec lacks: {unknown}"


def test_features_and_limits_named_by_clauses_are_registered() -> None:
    spec = load()
    for clause in spec.active():
        for feature in clause.features:
            assert feature in spec.features, f"{clause.id}: unregistered feature {feature}"
        for limit in clause.limits:
            assert limit in spec.limits, f"{clause.id}: unregistered limit {limit}"


def test_spec_is_parsed_once_per_process() -> None:
    from pytest_agenttools.spec.clauses import _load

    load()
    before = _load.cache_info()
    for _ in range(3):
        load()
    after = _load.cache_info()
    assert after.misses == before.misses, "load() parsed the spec files again"


CLAUSE_DUMP = """
import json, os
from pytest_agenttools.harness.markers import clause_of

def pytest_collection_finish(session):
    found = {}
    for item in session.items:
        ident = clause_of(item)
        if ident:
            found.setdefault(ident, set()).add(item.nodeid.split("::")[0].rsplit("/", 1)[-1])
    with open(os.environ["CLAUSE_DUMP"], "w") as out:
        json.dump({k: sorted(v) for k, v in found.items()}, out)
"""


def test_a_clause_selection_collects_every_module_with_its_tests(tmp_path: Path) -> None:
    """``--clauses`` collects only the modules the source names for those clauses
    (``modules_testing``): every clause's collected tests, wherever their marker comes from,
    live in those modules, so the narrower collection loses no test."""
    import json
    import os
    import subprocess
    import sys

    from pytest_agenttools.cli.runner import SuiteRun
    from pytest_agenttools.spec.clauses import modules_testing

    (tmp_path / "clause_dump.py").write_text(CLAUSE_DUMP, encoding="utf-8")
    dump = tmp_path / "clauses.json"
    args = [*SuiteRun().args(), "-p", "clause_dump", "--collect-only", "-q"]
    env = {
        **os.environ,
        "CLAUSE_DUMP": str(dump),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert dump.is_file(), proc.stdout[-2000:] + proc.stderr[-2000:]
    collected: dict[str, list[str]] = json.loads(dump.read_text(encoding="utf-8"))
    assert len(collected) >= len(load().active())
    index = clause_test_index()
    for ident, files in collected.items():
        named = {f"{module}.py" for module in modules_testing([ident], index)}
        assert set(files) <= named, f"{ident}: tests in {files}, the source names {named}"
    assert modules_testing(["NO-SUCH-01"]) == [], "an unknown id must collect the whole suite"
    run = SuiteRun(clauses="GLOB-CAP-01, READ-ARG-01")
    assert run.collected_modules() == modules_testing(["GLOB-CAP-01", "READ-ARG-01"])
    assert "pytest_agenttools.conformance" not in run.args()
