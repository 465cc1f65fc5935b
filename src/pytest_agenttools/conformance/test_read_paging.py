"""read: caps, continuation, exact paging facts, paging completeness, and huge files.

A declared cap is tested at its declared value in its unit (shrunk with ``configure`` where the
implementation allows, so files stay small); an undeclared one is probed with a file far
beyond any sane cap, and the page must still be bounded and say how to continue.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_agenttools import Manifest, ToolClient, Workspace
from pytest_agenttools.conformance.read_checks import (
    CEILING_TEXT,
    MEMORY_GROWTH,
    expect_bounded_page,
    expect_continues,
    file_lines,
    fresh_process,
    limit_in_force,
    observed,
    peak_memory_growth,
    read_all,
    size_in,
)
from pytest_agenttools.conformance.strategies import file_text
from pytest_agenttools.fixtures import builders
from pytest_agenttools.harness.assertions import (
    expect_number,
    expect_ok,
    precondition,
    read_obs,
)
from pytest_agenttools.harness.markers import clause

HUGE = 64 * 1024 * 1024


def _mixed_line(chars: int) -> str:
    """A line of ``chars`` characters, half of them two bytes in UTF-8 (so bytes != chars)."""
    return ("é" + "x") * (chars // 2) + "x" * (chars % 2)


# --- line cap -----------------------------------------------------------------------------


@clause("READ-CAP-01")
def test_line_cap_and_continuation(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.max_lines", 7)
    if cap is None:
        builders.make_line_file(ws.file("probe.txt"), 1_000_000)
        _, obs = observed(tools, path="probe.txt")
        expect_bounded_page(obs, "read.max_lines undeclared")
        expect_continues(obs, "a 1,000,000-line file")
        return
    n = int(cap.value)
    builders.make_line_file(ws.file("many.txt"), n + 25)
    _, obs = observed(tools, path="many.txt")
    assert list(obs.lines) == [f"line {k}" for k in range(1, n + 1)], (
        f"read.max_lines={n}: page one must show exactly lines 1-{n}; saw {len(obs.lines)} lines"
    )
    expect_continues(obs, f"{n + 25} lines, read.max_lines={n}")
    assert obs.truncated_by in (None, "lines"), f"stopped by the line cap, not {obs.truncated_by}"
    _, rest = observed(tools, path="many.txt", offset=n + 1)
    last = min(2 * n, n + 25)
    assert list(rest.lines) == [f"line {k}" for k in range(n + 1, last + 1)]
    assert rest.truncated == (last < n + 25)


@clause("READ-CAP-01")
def test_exactly_cap_lines_has_no_continuation(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.max_lines", 7)
    n = int(cap.value) if cap is not None else 2000
    builders.make_line_file(ws.file("exact.txt"), n)
    _, obs = observed(tools, path="exact.txt")
    assert len(obs.lines) == n, f"a file of {n} lines fits one page; saw {len(obs.lines)}"
    assert not obs.truncated and obs.next_offset is None, "nothing follows the last line"


@clause("READ-CAP-01")
def test_limit_above_the_cap_is_capped(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.max_lines", 5)
    n = int(cap.value) if cap is not None else 2000
    builders.make_line_file(ws.file("f.txt"), n + 40)
    _, obs = observed(tools, path="f.txt", limit=n + 20)
    if cap is None:
        expect_bounded_page(obs, "read.max_lines undeclared, limit above it")
    else:
        assert len(obs.lines) == n, f"limit={n + 20} is above read.max_lines={n}"
        assert obs.truncated_by in (None, "lines")
    expect_continues(obs, f"{n + 40} lines")


@clause("READ-CAP-01")
def test_shipped_many_lines(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/many_lines.txt", "m.txt")
    cap = tools.limit("read.max_lines")
    seen = read_all(tools, "m.txt")
    assert [n for n, _, _ in seen] == list(range(1, 2501))
    _, first = observed(tools, path="m.txt")
    assert len(first.lines) <= (cap.value if cap else 2500)


# --- text-size cap ----------------------------------------------------------------------


@clause("READ-CAP-02")
def test_text_size_cap(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.max_bytes", 2000)
    if cap is None:
        builders.make_text_file(ws.file("wide.txt"), HUGE, line="w" * 999 + "\n")
        _, obs = observed(tools, path="wide.txt")
        expect_bounded_page(obs, "read.max_bytes undeclared")
        expect_continues(obs, "a 64 MiB file")
        return
    budget = int(cap.value)
    chars = max(40, budget // 20)
    line_cap = tools.limit("read.max_line_chars")
    if line_cap is not None:  # lines the per-line cap leaves whole (READ-CAP-03 is not judged)
        most = int(line_cap.value)
        chars = min(chars, most if line_cap.unit == "chars" else most * 2 // 3)
    line = _mixed_line(chars)
    per_line = size_in([line], cap.unit)
    builders.make_line_file(ws.file("wide.txt"), 3 * budget // per_line + 10, fmt=line + "\n")
    _, obs = observed(tools, path="wide.txt")
    used = size_in(obs.lines, cap.unit)
    assert obs.lines and all(x == line for x in obs.lines), (
        "whole lines only, exactly as in the file"
    )
    assert used <= budget, (
        f"the page holds {used} {cap.unit} of text, over read.max_bytes = {budget} {cap.unit}"
    )
    assert used + 2 * per_line > budget, (
        f"the page holds {len(obs.lines)} lines ({used} {cap.unit}) though read.max_bytes = "
        f"{budget} {cap.unit} leaves room for more: is the cap counted in another unit?"
    )
    expect_continues(obs, "a page cut by the text-size cap")
    assert obs.truncated_by in (None, "bytes"), f"stopped by the size cap, not {obs.truncated_by}"


@clause("READ-CAP-02")
def test_text_size_cap_counts_every_line_feed(tools: ToolClient, ws: Workspace) -> None:
    # two-character lines: the LF is a third of each line's size, so a cap that leaves it out
    # (or counts it twice) is off by half the page
    cap = limit_in_force(tools, "read.max_bytes", 300)
    if cap is None:
        builders.make_line_file(ws.file("short.txt"), 1_200_000, fmt="ab\n")
        _, obs = observed(tools, path="short.txt")
        expect_bounded_page(obs, "read.max_bytes undeclared")
        expect_continues(obs, "1.2 million short lines")
        return
    budget = int(cap.value)
    lines_cap = limit_in_force(tools, "read.max_lines", budget)
    builders.make_line_file(ws.file("short.txt"), budget, fmt="ab\n")
    _, obs = observed(tools, path="short.txt")
    used = size_in(obs.lines, cap.unit)
    assert obs.lines and set(obs.lines) == {"ab"}, "whole lines only"
    assert used <= budget, (
        f"the page holds {used} {cap.unit} (each line with its LF), over read.max_bytes = "
        f"{budget} {cap.unit}"
    )
    if lines_cap is None or int(lines_cap.value) > budget // 3:
        assert used + 2 * 3 > budget, (
            f"read.max_bytes = {budget} {cap.unit} holds {budget // 3} lines of 3 {cap.unit} "
            f"(LF included), give or take one; the page shows {len(obs.lines)} lines"
        )
    expect_continues(obs, "a page cut by the text-size cap")


@clause("READ-CAP-02")
def test_a_line_over_the_size_cap_is_still_shown(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.max_bytes", 200)
    budget = int(cap.value) if cap is not None else CEILING_TEXT
    tools.configure(**{"read.max_line_chars": budget * 4})
    ws.put("big.txt", "b" * (budget + 50) + "\nnext\n")
    _, obs = observed(tools, path="big.txt")
    assert len(obs.lines) >= 1 and obs.lines[0].startswith("b"), "at least one line per call"
    if len(obs.lines) == 1:
        expect_continues(obs, "a first line larger than the size cap")


# --- per-line cap -------------------------------------------------------------------------


def _expected_cut(line: str, cap: int, unit: str) -> str:
    if unit == "chars":
        return line[:cap]
    return line.encode("utf-8")[:cap].decode("utf-8", errors="ignore")


@clause("READ-CAP-03")
def test_line_cap_cuts_long_line(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.max_line_chars", 10)
    if cap is None:
        with open(ws.file("one.line"), "wb") as handle:
            for _ in range(16):
                handle.write(b"z" * (1024 * 1024))
            handle.write(b"\ntail\n")
        _, obs = observed(tools, path="one.line")
        expect_bounded_page(obs, "read.max_line_chars undeclared")
        assert 1 in obs.cut_lines, "a 16 MiB line must be shown cut"
        assert obs.lines[1:2] == ("tail",) or obs.next_offset == 2
        return
    n = int(cap.value)
    long = _mixed_line(n + 7)
    ws.put("l.txt", f"{long}\nshort\n{'q' * n}\n")
    _, obs = observed(tools, path="l.txt")
    assert obs.lines[0] == _expected_cut(long, n, cap.unit), (
        f"read.max_line_chars = {n} {cap.unit}: line 1 must be cut to exactly its first {n} "
        f"{cap.unit}; saw {obs.lines[0]!r:.200}"
    )
    # (how the file splits into lines, say an empty line after the last LF, is READ-LN-01's)
    assert list(obs.lines[1:3]) == ["short", "q" * n], "lines after the long one are still shown"
    assert list(obs.cut_lines) == [1], (
        f"only line 1 is cut (line 3 is exactly at the cap): {obs.cut_lines}"
    )


@clause("READ-CAP-03")
def test_shipped_long_line(tools: ToolClient, ws: Workspace) -> None:
    ws.copy_fixture("text/long_line.txt", "long.txt")
    full = file_lines(ws.get("long.txt").decode())
    cap = tools.limit("read.max_line_chars")
    _, obs = observed(tools, path="long.txt")
    limit = int(cap.value) if cap is not None else CEILING_TEXT
    unit = cap.unit if cap is not None else "chars"
    if len(full[0]) > limit:
        assert obs.lines[0] == _expected_cut(full[0], limit, unit)
        assert 1 in obs.cut_lines
    assert list(obs.lines[1 : len(full)]) == full[1:], "lines after the long one are still shown"


@clause("READ-PRES-06")
def test_cut_line_is_announced(tools: ToolClient, ws: Workspace) -> None:
    cap = limit_in_force(tools, "read.max_line_chars", 10)
    long = _mixed_line(int(cap.value) + 7) if cap is not None else "z" * (2 * 1024 * 1024)
    ws.put("l.txt", f"{long}\nshort\n")
    cut_result, cut = observed(tools, path="l.txt")
    with precondition("READ-CAP-03", "a line over the cap must be reported cut"):
        assert 1 in cut.cut_lines and cut.lines and len(cut.lines[0]) < len(long), (
            f"line 1 of {len(long)} characters is not reported cut: {cut.cut_lines}"
        )
    shown = cut.lines[0]
    ws.put("l.txt", f"{shown}\nshort\n")
    whole_result, whole = observed(tools, path="l.txt")
    with precondition("READ-CAP-03", "a line no longer than the cap is shown whole"):
        assert not whole.cut_lines and whole.lines[:1] == (shown,), (
            f"a line of {len(shown)} characters, the part shown before, is cut: {whole.cut_lines}"
        )
    assert cut_result.text != whole_result.text, (
        f"line 1 ({len(long)} characters) was cut to {len(shown)}, and the observation says so, "
        "but the text is the same as for a file whose line 1 really ends there: the text must "
        "say that the line was cut"
    )


# --- offset and limit, exact facts ----------------------------------------------------------


@clause("READ-PAGE-02")
def test_offset_and_limit(tools: ToolClient, ws: Workspace) -> None:
    builders.make_line_file(ws.file("f.txt"), 50)
    _, obs = observed(tools, path="f.txt", offset=10, limit=5)
    assert obs.start_line == 10
    assert list(obs.lines) == [f"line {n}" for n in range(10, 15)]
    _, tail = observed(tools, path="f.txt", offset=48, limit=10)
    assert (tail.start_line, list(tail.lines)) == (48, ["line 48", "line 49", "line 50"])


@clause("READ-PAGE-02")
def test_limit_gives_continuation(tools: ToolClient, ws: Workspace) -> None:
    builders.make_line_file(ws.file("f.txt"), 50)
    _, obs = observed(tools, path="f.txt", offset=3, limit=4)
    assert obs.next_offset == 7 and obs.truncated
    assert obs.truncated_by in (None, "limit")


@clause("READ-TRUNC-01")
def test_page_ending_at_the_last_line(tools: ToolClient, ws: Workspace) -> None:
    builders.make_line_file(ws.file("f.txt"), 12)
    for arguments in ({"limit": 12}, {"offset": 5, "limit": 8}, {"offset": 12}, {}):
        _, obs = observed(tools, path="f.txt", **arguments)
        assert not obs.truncated and obs.next_offset is None, (
            f"read({arguments}) ends exactly at the last line: not truncated, no next_offset; "
            f"saw truncated={obs.truncated}, next_offset={obs.next_offset}"
        )
        assert obs.total_lines == 12, (
            f"read({arguments}) reached the end of the file, so total_lines must be given and "
            f"be 12; saw {obs.total_lines}"
        )


@clause("READ-TRUNC-01")
def test_total_lines_counts_like_read(tools: ToolClient, ws: Workspace) -> None:
    cases = {"a.txt": "a\nb\nc\n", "b.txt": "a\nb\nc", "c.txt": "a\n\n\n", "d.txt": "x\r\ny\r\n"}
    for name, content in cases.items():
        ws.put(name, content)
        _, obs = observed(tools, path=name)
        assert obs.total_lines == len(file_lines(content)), (
            f"{content!r} has {len(file_lines(content))} lines; total_lines says {obs.total_lines}"
        )


def _expect_stopped_by(tools: ToolClient, reason: str, **arguments: int) -> None:
    _, obs = observed(tools, path="f.txt", **arguments)
    expect_continues(obs, f"read({arguments})")
    assert obs.truncated_by in (None, reason), (
        f"read({arguments}) was stopped by {reason}; truncated_by says {obs.truncated_by}"
    )
    if obs.total_lines is not None:
        assert obs.total_lines == 60, f"total_lines, when given, is 60: {obs.total_lines}"


@clause("READ-TRUNC-01")
def test_truncation_facts_name_the_cap(tools: ToolClient, ws: Workspace) -> None:
    builders.make_line_file(ws.file("f.txt"), 60, fmt="{n:0>3} " + "y" * 46 + "\n")
    _expect_stopped_by(tools, "limit", limit=4)
    lines = limit_in_force(tools, "read.max_lines", 6)
    if lines is not None and lines.value < 30:
        _expect_stopped_by(tools, "lines", limit=30)
    tools.configure(**{"read.max_lines": 50})
    size = limit_in_force(tools, "read.max_bytes", 400)
    if size is not None and size.value <= 400:
        _expect_stopped_by(tools, "bytes")


# --- completeness ---------------------------------------------------------------------------


@st.composite
def _file_bytes(draw: st.DrawFn) -> bytes:
    text = draw(file_text(max_lines=40))
    if draw(st.booleans()):
        text += "\n".join(draw(st.lists(st.text("ab€😀 ", min_size=30, max_size=90), max_size=3)))
    bom = b"\xef\xbb\xbf" if draw(st.integers(0, 4)) == 0 else b""
    return bom + text.encode("utf-8")


@clause("READ-PAGE-01")
@given(
    data=_file_bytes(),
    max_lines=st.integers(1, 7),
    max_bytes=st.integers(40, 400),
    max_line_chars=st.sampled_from([8, 25, 100_000]),
)
def test_paging_reconstructs_file(
    tools: ToolClient,
    ws: Workspace,
    data: bytes,
    max_lines: int,
    max_bytes: int,
    max_line_chars: int,
) -> None:
    tools.configure(
        **{
            "read.max_lines": max_lines,
            "read.max_bytes": max_bytes,
            "read.max_line_chars": max_line_chars,
        }
    )
    text = data.removeprefix(b"\xef\xbb\xbf").decode("utf-8")
    expected = file_lines(text)
    where = ws.subdir()
    (where.root / "f.txt").write_bytes(data)
    path = str(where.root / "f.txt")
    if not expected:
        _, obs = observed(tools, path=path)
        assert obs.lines == () and not obs.truncated
        return
    seen = read_all(tools, path)
    assert [n for n, _, _ in seen] == list(range(1, len(expected) + 1)), (
        f"lines repeated or skipped: {[n for n, _, _ in seen]} for {len(expected)} lines"
    )
    cap = tools.limit("read.max_line_chars")
    for number, line, cut in seen:
        whole = expected[number - 1]
        if cut:
            assert cap is not None and whole.startswith(line) and len(line) < len(whole), (
                f"line {number} is marked cut but {line!r} is not a proper prefix of {whole!r}"
            )
        else:
            assert line == whole, f"line {number}: shown {line!r}, file has {whole!r}"


# --- huge files -----------------------------------------------------------------------------


def _cap_or_ceiling(tools: ToolClient, name: str, ceiling: int) -> int:
    cap = tools.limit(name)
    return int(cap.value) if cap is not None else ceiling


@clause("READ-STREAM-01")
def test_page_one_of_huge_file(tools: ToolClient, ws: Workspace) -> None:
    builders.make_text_file(ws.file("huge.log"), HUGE)
    result = expect_ok(tools.call("read", path="huge.log", _timeout=60))
    obs = read_obs(result)
    expect_bounded_page(obs, "page one of 64 MiB")
    max_lines = _cap_or_ceiling(tools, "read.max_lines", 10_000)
    assert len(obs.lines) <= max_lines
    size_cap = tools.limit("read.max_bytes")
    if size_cap is not None:
        assert size_in(obs.lines, size_cap.unit) <= size_cap.value
    expect_continues(obs, "a 64 MiB file")


@clause("READ-STREAM-01")
def test_one_huge_line(tools: ToolClient, ws: Workspace) -> None:
    with open(ws.file("one.line"), "wb") as handle:
        for _ in range(16):
            handle.write(b"x" * (1024 * 1024))
    result = expect_ok(tools.call("read", path="one.line", _timeout=60))
    obs = read_obs(result)
    assert len(obs.lines) == 1, "the file is one line"
    expect_bounded_page(obs, "a 16 MiB line")
    assert obs.cut_lines == (1,), "the line must be shown cut"
    assert len(obs.lines[0]) <= _cap_or_ceiling(tools, "read.max_line_chars", CEILING_TEXT)
    assert not obs.truncated, "nothing follows the only line"


@clause("READ-STREAM-02")
def test_page_one_is_streamed(
    tools: ToolClient, ws: Workspace, pytestconfig: pytest.Config, request: pytest.FixtureRequest
) -> None:
    builders.make_text_file(ws.file("huge.log"), HUGE)
    with fresh_process(tools, pytestconfig, request.addfinalizer) as fresh:
        growth, result = peak_memory_growth(
            lambda: fresh.call("read", path="huge.log", _timeout=60)
        )
    with precondition("READ-STREAM-01", "page one of a 64 MiB file must be read to measure it"):
        expect_ok(result)
    assert growth < MEMORY_GROWTH, (
        f"reading page one of a 64 MiB file grew the implementation's peak memory by "
        f"{growth / 2**20:.1f} MiB (at most {MEMORY_GROWTH / 2**20:.0f} MiB): it loads the file "
        "instead of streaming it"
    )


@clause("READ-STREAM-02")
def test_one_huge_line_is_streamed(
    tools: ToolClient, ws: Workspace, pytestconfig: pytest.Config, request: pytest.FixtureRequest
) -> None:
    with open(ws.file("one.line"), "wb") as handle:
        for _ in range(64):
            handle.write(b"y" * (1024 * 1024))
        handle.write(b"\nafter\n")
    with fresh_process(tools, pytestconfig, request.addfinalizer) as fresh:
        growth, result = peak_memory_growth(
            lambda: fresh.call("read", path="one.line", _timeout=60)
        )
    with precondition("READ-STREAM-01", "a file of one 64 MiB line must be read to measure it"):
        expect_ok(result)
    assert growth < MEMORY_GROWTH, (
        f"reading a file that is one 64 MiB line grew the implementation's peak memory by "
        f"{growth / 2**20:.1f} MiB (at most {MEMORY_GROWTH / 2**20:.0f} MiB): the line is held "
        "whole instead of cut while streaming"
    )


# --- presentation -----------------------------------------------------------------------


@clause("READ-PRES-02")
def test_cut_page_says_where_to_continue(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    base = manifest.offset_base("read")
    builders.make_line_file(ws.file("f.txt"), 300, fmt="x\n")
    for arguments in ({"offset": 10, "limit": 5}, {"limit": 37}, {"offset": 200, "limit": 3}):
        result = tools.read(path="f.txt", **arguments)
        obs = read_obs(expect_ok(result))
        assert obs.truncated and obs.next_offset is not None
        expect_number(
            result,
            obs.next_offset - 1 + base,
            f"the offset to continue from ({base}-based, dialect.offset_base.read)",
            ws.root,
        )


@clause("READ-PRES-02")
def test_cap_cut_says_where_to_continue(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    base = manifest.offset_base("read")
    limit_in_force(tools, "read.max_lines", 23)
    builders.make_line_file(ws.file("f.txt"), 30_000, fmt="x\n")
    result = tools.read(path="f.txt")
    obs = read_obs(expect_ok(result))
    expect_continues(obs, "a 30,000-line file")
    assert obs.next_offset is not None
    expect_number(result, obs.next_offset - 1 + base, "the offset to continue from", ws.root)
