"""confine.files for write: refused outside allow_write with nothing written, by every
spelling, and while a parent is swapped for a link (WRITE-CONF-01, WRITE-CONF-02)."""

from __future__ import annotations

import os

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.confine_support import Confined, Swapper, expect_names_root
from pytest_agenttools.harness.assertions import expect_error, expect_ok
from pytest_agenttools.harness.markers import clause

#: (spelling, whether the refusal must name the root: a hard link may be replaced instead)
SPELLINGS = [
    ("OUT/new.txt", True),
    ("../OUTNAME/new.txt", True),
    ("/proc/self/rootOUT/new.txt", True),
    ("link-file", True),
    ("link-dir/new.txt", True),
    ("link-missing", True),
    ("link-dir/newdir/sub/x.txt", True),
    ("link-dir/../OUTNAME/new.txt", True),
    ("hard", False),
]


@clause("WRITE-CONF-01")
@pytest.mark.parametrize("row", SPELLINGS, ids=[s for s, _ in SPELLINGS])
def test_outside_refused_nothing_written(
    tools: ToolClient, ws: Workspace, confined: Confined, row: tuple[str, bool]
) -> None:
    spelling, names_root = row
    out = str(confined.outside.root)
    os.symlink(os.path.join(out, "existing.txt"), ws.file("link-file"))
    os.symlink(out, ws.file("link-dir"))
    os.symlink(os.path.join(out, "missing.txt"), ws.file("link-missing"))
    os.link(os.path.join(out, "existing.txt"), ws.file("hard"))
    confined.apply()
    before = confined.outside.snapshot()
    path = spelling.replace("OUTNAME", confined.outside.name).replace("OUT", out)
    result = tools.write(path=path, content="written by the tool\n")
    assert confined.outside.snapshot() == before, (
        f"write {path!r} changed the directory outside the roots (result: {result.text[:300]!r})"
    )
    if names_root:
        expect_error(result, what=f"a write outside allow_write: {path}")
        expect_names_root(result, str(ws.root), "allow_write", path)


@clause("WRITE-CONF-01")
def test_workspace_root_not_writable(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    ws.file("w").mkdir()
    confined.apply(allow_write=[str(ws.file("w"))])
    result = expect_error(tools.write(path="top.txt", content="x\n"), what="outside allow_write")
    assert not ws.exists("top.txt"), "the refused write created top.txt"
    expect_names_root(result, str(ws.file("w")), "allow_write", "top.txt")
    expect_ok(tools.write(path="w/ok.txt", content="ok\n"), "inside allow_write")
    assert ws.get("w/ok.txt") == b"ok\n"
    expect_ok(tools.write(path="w/new/deeper/ok.txt", content="ok\n"), "new parents inside")
    assert ws.get("w/new/deeper/ok.txt") == b"ok\n"


@clause("WRITE-CONF-02")
def test_swapped_parent_race(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    ws.file("d").mkdir()
    target = confined.outside.root / "d2"
    target.mkdir()
    os.symlink(str(target), ws.file("d-alt"))
    confined.apply()
    with Swapper(ws.file("d"), ws.file("d-alt")) as swapper:
        for attempt in range(400):
            tools.write(path=f"d/n{attempt}.txt", content="x\n")
            if any(target.iterdir()):
                break
    assert swapper.swaps > 0, "the directory was never swapped"
    landed = sorted(p.name for p in target.iterdir())
    assert not landed, (
        f"writes below d landed outside the roots while d was swapped for a link: {landed[:5]}"
    )
