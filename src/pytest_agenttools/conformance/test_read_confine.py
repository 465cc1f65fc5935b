"""confine.files for read: every spelling that leaves the roots refused, links inside kept,
hard links and a swapped directory never carrying outside content in (READ-CONF-01..05)."""

from __future__ import annotations

import os

import pytest

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.confine_support import (
    SECRET,
    Confined,
    Swapper,
    expect_names_root,
    expect_no_leak,
)
from pytest_agenttools.harness.assertions import expect_error, expect_ok, shown
from pytest_agenttools.harness.markers import clause
from pytest_agenttools.spec.clauses import load

ESCAPES = load().table("confine.read_escapes").rows
#: enough ``..`` to climb to / from any working directory an implementation may have
UP = "/.." * 40


def make_links(ws: Workspace, confined: Confined) -> None:
    out = str(confined.outside.root)
    os.symlink(os.path.join(out, "secret.txt"), ws.file("link-file"))
    os.symlink(out, ws.file("link-dir"))
    os.symlink(os.path.join("..", confined.outside.name), ws.file("link-rel"))
    os.symlink("link-dir", ws.file("link-chain"))
    os.symlink("/proc/self/root" + out, ws.file("link-proc"))
    ws.file("sub").mkdir()


def spelled(template: str, ws: Workspace, confined: Confined) -> str:
    out = str(confined.outside.root)
    root = str(ws.root)
    return (
        template.replace("/proc/self/cwd/..", "/proc/self/cwd" + UP)
        .replace("WSUPPER", root.upper())
        .replace("OUTNAME", confined.outside.name)
        .replace("OUT", out)
    )


@clause("READ-CONF-01")
@pytest.mark.parametrize("row", ESCAPES, ids=[r[1] for r in ESCAPES])
def test_escapes_refused(
    tools: ToolClient, ws: Workspace, confined: Confined, row: tuple[str, str]
) -> None:
    make_links(ws, confined)
    confined.apply()
    path = spelled(row[0], ws, confined)
    result = expect_error(tools.read(path=path), what=f"{row[1]}: {path}")
    expect_no_leak(result, row[1])
    plain = path[len("file://") :] if path.startswith("file://") else path
    full = os.path.realpath(os.path.join(str(ws.root), plain))
    if full == os.path.realpath(confined.outside.root / "secret.txt"):
        expect_names_root(result, str(ws.root), "workspace_root", row[1])


@clause("READ-CONF-02")
@pytest.mark.parametrize(
    "path", ["secrets/key.txt", "ABS", "sub/../secrets/key.txt", "link-key", "link-secrets/key.txt"]
)
def test_forbid_read(tools: ToolClient, ws: Workspace, confined: Confined, path: str) -> None:
    ws.put("secrets/key.txt", SECRET + "\n")
    ws.put("ok.txt", "visible\n")
    ws.file("sub").mkdir()
    os.symlink("secrets/key.txt", ws.file("link-key"))
    os.symlink(str(ws.file("secrets")), ws.file("link-secrets"))
    forbidden = str(ws.file("secrets"))
    confined.apply(forbid_read=[forbidden])
    spelling = str(ws.file("secrets/key.txt")) if path == "ABS" else path
    result = expect_error(tools.read(path=spelling), what=f"forbid_read {spelling}")
    expect_no_leak(result, spelling)
    expect_names_root(result, forbidden, "forbid_read", spelling)
    beside = expect_ok(tools.read(path="ok.txt"), "a file beside the forbidden directory")
    assert "visible" in beside.text, shown(beside)


@clause("READ-CONF-03")
def test_links_inside_still_work(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    ws.put("real/a.txt", "inside-content\n")
    os.symlink("real/a.txt", ws.file("rel-link"))
    os.symlink("real", ws.file("dir-link"))
    os.symlink(str(ws.file("real/a.txt")), ws.file("abs-link"))
    confined.apply()
    inside = ("real/a.txt", "rel-link", "dir-link/a.txt", "abs-link", str(ws.file("real/a.txt")))
    for path in inside:
        result = expect_ok(tools.read(path=path), f"a link inside the roots: {path}")
        assert "inside-content" in result.text, f"{path}: {shown(result)}"


@clause("READ-CONF-04")
def test_hard_link_does_not_carry_content(
    tools: ToolClient, ws: Workspace, confined: Confined
) -> None:
    try:
        os.link(confined.outside.root / "secret.txt", ws.file("hard"))
    except OSError as exc:  # another file system: nothing to link, nothing to test
        pytest.fail(f"the workspace and its sibling must share a file system: {exc}")
    confined.apply()
    expect_no_leak(tools.read(path="hard"), "a hard link to a file outside the roots")


@clause("READ-CONF-05")
def test_swapped_directory_race(tools: ToolClient, ws: Workspace, confined: Confined) -> None:
    ws.put("d/f.txt", "inside\n")
    outside = confined.outside.root / "d2"
    outside.mkdir()
    (outside / "f.txt").write_text(SECRET + "\n", encoding="utf-8")
    os.symlink(str(outside), ws.file("d-alt"))
    confined.apply()
    leaked = 0
    with Swapper(ws.file("d"), ws.file("d-alt")) as swapper:
        for attempt in range(400):
            result = tools.read(path="d/f.txt")
            if SECRET in result.text:
                leaked = attempt + 1
                break
    assert swapper.swaps > 0, "the directory was never swapped"
    assert not leaked, (
        f"read {leaked} of d/f.txt showed the outside file while d was being swapped for a "
        "link: the path was checked, then opened again by name"
    )
