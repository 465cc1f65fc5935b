"""Robustness: valid but extreme calls answer within a bound, and a cancel ends them."""

from __future__ import annotations

import time
from typing import Any

from pytest_agenttools import AdapterError, ToolClient, Workspace
from pytest_agenttools.conformance.robust_strategies import (
    CANCEL_DEADLINE,
    EXTREME_DEADLINE,
    MEGABYTE,
    Ledger,
    Liveness,
    judge_call,
    seed_workspace,
)
from pytest_agenttools.conformance.test_robust import still_serving
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.markers import clause

HUGE = 10**12
REPEATED = 20_000
#: lines of the file grep's extreme values are tried on, every one a match. A grep that shows
#: each match with a context block of its own does work in proportion to the matches times the
#: context asked for; at 10^12 lines of context that is the whole file per match, far past the
#: deadline on any machine at this size, while a grep that works in proportion to the file
#: (2.3 MB) is far within it. (At 20,000 lines such a grep answered in 5 s of the 10 s on a
#: quiet machine, and its verdict turned on the machine's load.) read's values are tried on
#: the smaller file: they are extreme against any file, and the time a read takes to show a
#: large file whole is no paging value's doing.
MATCHES = 200_000


def bounded(result: Any) -> str | None:
    size = len(result.text.encode("utf-8", "surrogatepass"))
    return f"the text is {size} bytes, more than a mebibyte" if size > MEGABYTE else None


@clause("ROBUST-EXTREME-01")
def test_extreme_paging_values(tools: ToolClient, ws: Workspace) -> None:
    seed_workspace(ws.root)
    ws.file("many.txt").write_text("".join(f"match {i}\n" for i in range(REPEATED)))
    cases: list[tuple[str, dict[str, Any]]] = []
    if tools.manifest.has_tool("read"):
        cases += [
            ("read", {"path": "many.txt", "offset": HUGE}),
            ("read", {"path": "many.txt", "limit": HUGE}),
            ("read", {"path": "many.txt", "offset": HUGE, "limit": HUGE}),
        ]
    if tools.manifest.has_tool("grep"):
        ws.file("matches.txt").write_text("".join(f"match {i}\n" for i in range(MATCHES)))
        grep = {"pattern": "match", "path": "matches.txt", "output_mode": "content"}
        cases += [
            ("grep", {**grep, "context": HUGE}),
            ("grep", {**grep, "offset": HUGE}),
            ("grep", {**grep, "limit": HUGE}),
            ("grep", {"pattern": "match", "limit": HUGE}),
        ]
    if tools.manifest.has_tool("glob"):
        cases += [
            ("glob", {"pattern": "*", "offset": HUGE}),
            ("glob", {"pattern": "**/*", "limit": HUGE}),
        ]
    ledger = Ledger()
    liveness = Liveness(tools.adapter)
    for tool, arguments in cases:
        call = tools.make_call(tool, arguments)
        judge_call(ledger, liveness, tools.adapter, call, deadline=EXTREME_DEADLINE, check=bounded)
    still_serving(tools, ledger, liveness)
    ledger.assert_clean()


@clause("ROBUST-EXTREME-02")
def test_pathological_diffs(tools: ToolClient, ws: Workspace) -> None:
    ledger = Ledger()
    liveness = Liveness(tools.adapter)
    target = ws.file("same.txt")
    same = "same\n" * REPEATED
    alternating = "".join("same\n" if i % 2 else "diff\n" for i in range(REPEATED))
    # (tool, arguments, the file before the call or None to keep it, the file after)
    steps: list[tuple[str, dict[str, Any], str | None, str]] = []
    if tools.manifest.has_tool("write"):
        steps += [
            ("write", {"path": "same.txt", "content": same}, None, same),
            ("write", {"path": "same.txt", "content": alternating}, None, alternating),
        ]
    if tools.manifest.has_tool("edit"):
        one = {"file_path": "same.txt", "old_string": "unique", "new_string": "x"}
        steps.append(("edit", one, same + "unique\n", same + "x\n"))
        if tools.manifest.has_feature("edit.replace_all"):
            every = {**one, "old_string": "diff", "new_string": "same", "replace_all": True}
            steps.append(("edit", every, alternating, same))
    for tool, arguments, before, after in steps:
        if before is not None:
            target.write_text(before)
        call = tools.make_call(tool, arguments)
        result = judge_call(ledger, liveness, tools.adapter, call, deadline=EXTREME_DEADLINE)
        if result is None:
            continue
        if result.is_error:
            ledger.other.append(f"{tool} failed: {result.text[:200]!r} <- {call.describe()}")
        elif target.read_text() != after:
            ledger.other.append(f"the bytes on disk are not what was asked <- {call.describe()}")
    still_serving(tools, ledger, liveness)
    ledger.assert_clean()


#: when the cancel is sent after the call: at once, and later. A cancel that arrives before the
#: call has started proves nothing about the work it should stop (a busy machine may not have
#: begun it), so each call is also cancelled once the work is surely under way
CANCEL_AFTER_S = (0.05, 0.5, 2.0)


def _cancelled_in_time(tools: ToolClient, tool: str, arguments: dict[str, Any]) -> str | None:
    """The call cancelled after each of ``CANCEL_AFTER_S``: what went wrong first (None: every
    cancel answered in time)."""
    for delay in CANCEL_AFTER_S:
        problem = _cancelled_after(tools, tool, arguments, delay)
        if problem:
            return problem
    return None


def _cancelled_after(
    tools: ToolClient, tool: str, arguments: dict[str, Any], delay: float
) -> str | None:
    pending = tools.submit(tool, **arguments)
    time.sleep(delay)
    pending.cancel()
    cancelled = time.monotonic()
    bound = scaled(CANCEL_DEADLINE)
    try:
        pending.result(bound)
    except AdapterError as exc:
        return (
            f"{tool}: no answer within {bound:.1f} s of a cancel sent {delay:g} s after the "
            f"call ({str(exc)[:200]})"
        )
    waited = time.monotonic() - cancelled
    if waited > bound:
        return f"{tool}: answered {waited:.1f} s after a cancel sent {delay:g} s after the call"
    return None


@clause("ROBUST-CANCEL-01")
def test_cancel_ends_extreme_calls(tools: ToolClient, ws: Workspace) -> None:
    problems = []
    if tools.manifest.has_tool("grep"):
        ws.file("big.txt").write_text("".join(f"match {i}\n" for i in range(200_000)))
        arguments = {"pattern": "match", "path": "big.txt", "output_mode": "content"}
        problems.append(_cancelled_in_time(tools, "grep", {**arguments, "context": HUGE}))
    if tools.manifest.has_tool("edit"):
        ws.file("same.txt").write_text("same\n" * REPEATED + "unique\n")
        arguments = {"file_path": "same.txt", "old_string": "unique", "new_string": "x"}
        problems.append(_cancelled_in_time(tools, "edit", arguments))
    ledger = Ledger()
    still_serving(tools, ledger, Liveness(tools.adapter))
    found = [p for p in problems if p] + ledger.problems()
    assert not found, "\n".join(found)
