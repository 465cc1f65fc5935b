"""docs/what-the-suite-asks.md: the MUST clauses that surprise implementers. Every clause it
names is an active MUST of the spec, chosen from the peers' expectations files, and the page is
linked from the README's quick start and from every skeleton's README (which ``init`` writes
beside the page)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from pytest_agenttools.cli.scaffold import ASKS, SKELETONS, template, write_skeleton
from pytest_agenttools.spec.clauses import CLAUSE_ID, load
from tests.support import REPO

PAGE = REPO / "docs" / "what-the-suite-asks.md"
#: the two write MUSTs that every new implementation fails first (issue 28)
WRITE_MUSTS = {"WRITE-BOM-01", "WRITE-ENC-01"}
LINK = re.compile(r"\[[^\]]*\]\(([^)#\s]+)(?:#[^)]*)?\)")


def named() -> list[str]:
    return CLAUSE_ID.findall(PAGE.read_text(encoding="utf-8"))


def peers_naming(clause: str) -> set[str]:
    found = set()
    for path in (REPO / "peers").glob("*/expectations.toml"):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        ids = {
            str(entry.get("id"))
            for entries in data.values()
            if isinstance(entries, list)
            for entry in entries
        }
        if clause in ids:
            found.add(path.parent.name)
    return found


def test_every_clause_it_names_is_an_active_must() -> None:
    spec = load().by_id()
    ids = named()
    assert len(ids) >= 10 and set(ids) >= WRITE_MUSTS
    for ident in ids:
        clause = spec.get(ident)
        assert clause is not None, f"{ident} is no clause of the spec"
        assert not clause.retired, f"{ident} is retired"
        assert clause.level == "MUST", f"{ident} is a {clause.level}"


def test_each_clause_is_one_the_peers_fail() -> None:
    for ident in set(named()) - WRITE_MUSTS:
        assert len(peers_naming(ident)) >= 2, f"{ident}: fewer than two peers expect it to fail"


def test_the_page_is_linked_from_the_quick_start_and_every_skeleton(tmp_path: Path) -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    start = readme.index("## Quick start for implementers")
    quick_start = readme[start : readme.index("\n## ", start + 1)]
    assert "(docs/what-the-suite-asks.md)" in quick_start
    assert template("what-the-suite-asks.md.tmpl") == PAGE.read_text(encoding="utf-8"), (
        "the page init writes is the docs page"
    )
    for language in SKELETONS:
        written = write_skeleton(language, tmp_path / language)
        directory = tmp_path / language
        assert directory / ASKS in written
        text = (directory / "README.md").read_text(encoding="utf-8")
        links = LINK.findall(text)
        assert ASKS in links, f"the {language} README links the page"
        for target in links:
            assert (directory / target).exists(), f"{language} README: {target} is not there"
        assert "--quick" in text, f"the {language} README says to run --quick first"
