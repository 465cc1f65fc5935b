"""Robustness: hostile arguments to every declared tool, unknown tools and methods, a fuzzer.

Every call is judged by ``robust_strategies.judge_call``: answered within the deadline, a result
(not a JSON-RPC error), no runtime exception text, the same live process; each test ends with a
valid call that must still be served. Problems are collected and reported together.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings

from pytest_agenttools import AdapterError, Manifest, ProtocolError, ToolCall, ToolClient, Workspace
from pytest_agenttools.conformance.robust_strategies import (
    ARGUMENTS,
    HUGE_NUMBERS,
    MEGABYTE,
    NUL_AND_SURROGATES,
    NUMBER_STRINGS,
    REQUIRED,
    WORKSPACE_FILES,
    Budget,
    Ledger,
    Liveness,
    deep,
    hostile_call,
    judge_call,
    megabyte_strings,
    seed_workspace,
    valid_arguments,
    wrong_types,
)
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.harness.assertions import expect_names_argument
from pytest_agenttools.harness.exception_text import find_exception_text
from pytest_agenttools.harness.markers import clause, long

NOT_OBJECTS: list[Any] = [[], "a.txt", 5, True, [{"path": "a.txt"}]]


def declared(tools: ToolClient) -> list[str]:
    return sorted(t for t in ARGUMENTS if tools.manifest.has_tool(t))


def still_serving(tools: ToolClient, ledger: Ledger, liveness: Liveness) -> None:
    """A valid call after the hostile ones is answered (and by the same process).

    The files a valid call needs are put in place first (without touching those a test left),
    so that the call is valid in every test: a read of ``a.txt`` in an unseeded workspace is a
    missing-file error, and an implementation without glob would fail for it. A seeded file a
    hostile call changed is put back too: an edit may rightly write a NUL into ``a.txt``, and
    a read then rightly refuses it as binary.
    """
    tool = next((t for t in ("glob", "read", "grep", "write") if tools.manifest.has_tool(t)), None)
    if tool is None:
        return
    changed = []
    for name, text in WORKSPACE_FILES.items():
        path = Path(tools.cwd) / name
        if path.is_file() and path.read_bytes() != text.encode():
            changed.append(name)
        if not path.exists() or name in changed:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    arguments = valid_arguments(tool)
    result = judge_call(ledger, liveness, tools.adapter, tools.make_call(tool, arguments))
    if result is not None and result.is_error:
        restored = f" (with {', '.join(changed)} put back as seeded)" if changed else ""
        ledger.other.append(
            f"a valid {tool} call {arguments}{restored} failed after the hostile ones: "
            f"{result.text[:200]}"
        )


def names_argument(result: Any, manifest: Manifest, tool: str, name: str) -> bool:
    try:
        expect_names_argument(result, manifest, tool, name)
    except AssertionError:
        return False
    return True


def run_all(
    tools: ToolClient,
    ledger: Ledger,
    cases: list[tuple[str, Any]],
    *,
    check: Any = None,
) -> None:
    budget = Budget(tools)
    liveness = Liveness(tools.adapter)
    for tool, arguments in cases:
        call = tools.make_call(tool, arguments)
        deadline = budget.deadline(tool)
        judge_call(ledger, liveness, tools.adapter, call, deadline=deadline, check=check)
    still_serving(tools, ledger, liveness)


@clause("ROBUST-ARGS-01")
def test_wrong_types_missing_and_unknown_arguments(
    tools: ToolClient, ws: Workspace, manifest: Manifest
) -> None:
    seed_workspace(ws.root)
    ledger = Ledger()
    liveness = Liveness(tools.adapter)
    budget = Budget(tools)
    for tool in declared(tools):
        base = tools.adapter.call(tools.make_call(tool, valid_arguments(tool)), 10.0)
        # the argument can only be named when nothing else is wrong with the call
        judged = not base.is_error
        cases: list[tuple[Any, str | None, bool]] = [(bad, None, True) for bad in NOT_OBJECTS]
        for required in REQUIRED[tool]:
            left = {k: v for k, v in valid_arguments(tool).items() if k != required}
            cases.append((left, required, True))
        cases.append(({**valid_arguments(tool), "no_such_argument": 1}, None, False))
        for argument in ARGUMENTS[tool]:
            for value in wrong_types(tool, argument):
                cases.append(({**valid_arguments(tool), argument: value}, argument, False))
        for arguments, name, must_fail in cases:
            call = tools.make_call(tool, arguments)
            deadline = budget.deadline(tool)
            result = judge_call(ledger, liveness, tools.adapter, call, deadline=deadline)
            if result is None:
                continue
            where = call.describe()[:200]
            if must_fail and not result.is_error:
                ledger.other.append(f"accepted, an error result was due <- {where}")
            if (
                result.is_error
                and name
                and judged
                and not names_argument(result, manifest, tool, name)
            ):
                ledger.other.append(
                    f"the error does not name {name}: {result.text[:200]!r} <- {where}"
                )
    still_serving(tools, ledger, liveness)
    ledger.assert_clean()


@clause("ROBUST-ARGS-02")
def test_nul_and_lone_surrogates(tools: ToolClient, ws: Workspace) -> None:
    seed_workspace(ws.root)
    before = {p.relative_to(ws.root) for p in ws.root.rglob("*")}
    ledger = Ledger()
    cases = [
        (tool, {**valid_arguments(tool), name: value})
        for tool in declared(tools)
        for name, kinds in ARGUMENTS[tool].items()
        if "string" in kinds
        for value in NUL_AND_SURROGATES
    ]
    run_all(tools, ledger, cases)
    # a path holding them writes nothing, not even under a name cut at the NUL; the valid
    # path of the other writes (w.txt) may appear
    after = {p.relative_to(ws.root) for p in ws.root.rglob("*")}
    appeared = sorted(str(p) for p in after - before if str(p) != "w.txt")
    if appeared:
        ledger.other.append(f"files appeared under names no call gave: {appeared}")
    ledger.assert_clean()


@clause("ROBUST-ARGS-03")
def test_huge_and_negative_numbers(tools: ToolClient, ws: Workspace) -> None:
    seed_workspace(ws.root)
    ledger = Ledger()
    cases = [
        (tool, {**valid_arguments(tool), name: number})
        for tool in declared(tools)
        for name, kinds in ARGUMENTS[tool].items()
        if {"integer", "number"} & set(kinds)
        for number in (*HUGE_NUMBERS, *NUMBER_STRINGS)
    ]
    run_all(tools, ledger, cases)
    ledger.assert_clean()


@clause("ROBUST-ARGS-04")
@long(1.2)
def test_megabyte_strings(tools: ToolClient, ws: Workspace) -> None:
    seed_workspace(ws.root)
    ledger = Ledger()
    cases = [
        (tool, {**valid_arguments(tool), name: value})
        for tool in declared(tools)
        for name, kinds in ARGUMENTS[tool].items()
        if "string" in kinds
        for value in megabyte_strings(tool, name)
    ]
    assert cases or not declared(tools)  # with no tool declared there is nothing to send
    assert all(
        len(value) >= MEGABYTE // 2
        for tool, arguments in cases
        for name, value in arguments.items()
        if name not in valid_arguments(tool) or value != valid_arguments(tool)[name]
    )
    run_all(tools, ledger, cases)
    ledger.assert_clean()


@clause("ROBUST-ARGS-05")
def test_deep_nesting(tools: ToolClient, ws: Workspace) -> None:
    seed_workspace(ws.root)
    ledger = Ledger()
    cases = [
        (tool, {**valid_arguments(tool), name: deep(300)})
        for tool in declared(tools)
        for name in ARGUMENTS[tool]
    ]
    run_all(tools, ledger, cases)
    ledger.assert_clean()


@clause("ROBUST-FUZZ-01")
def test_fuzzed_calls(tools: ToolClient, ws: Workspace, record_property: Any) -> None:
    seed_workspace(ws.root)
    ledger = Ledger()
    liveness = Liveness(tools.adapter)
    budget = Budget(tools)
    names = declared(tools)

    @settings(max_examples=examples(200))
    @given(case=hostile_call(names))
    def fuzz(case: tuple[str, Any]) -> None:
        tool, arguments = case
        call = tools.make_call(tool, arguments)
        judge_call(ledger, liveness, tools.adapter, call, deadline=budget.deadline(tool))
        if ledger.calls % 50 == 0:
            still_serving(tools, ledger, liveness)

    if names:  # with no tool declared there is nothing to fuzz
        fuzz()
    still_serving(tools, ledger, liveness)
    for key, value in ledger.figures().items():
        record_property(f"robust_{key}", value)
    ledger.assert_clean()


@clause("ROBUST-TOOL-01")
@pytest.mark.parametrize(
    "name",
    ["frobnicate", "", "READ", "read\0", "t" * 100_000, "../read"],
    ids=["unknown", "empty", "case", "nul", "long", "dots"],
)
def test_unknown_tools(tools: ToolClient, ws: Workspace, name: str) -> None:
    liveness = Liveness(tools.adapter)
    call = ToolCall(name, {"path": "a.txt"}, str(ws.root))
    with pytest.raises(ProtocolError) as caught:
        tools.adapter.call(call, 10.0)
    assert caught.value.code == -32602, f"expected JSON-RPC error -32602, got {caught.value}"
    found = find_exception_text(str(caught.value))
    assert not found, f"the error holds exception text: {found}"
    ledger = Ledger()
    liveness.lost()
    still_serving(tools, ledger, liveness)
    ledger.assert_clean()


@clause("ROBUST-METHOD-01")
def test_unknown_methods(tools: ToolClient, ws: Workspace) -> None:
    liveness = Liveness(tools.adapter)
    for method in ("agenttools/no-such-method", "", "bash/no-such-method"):
        try:
            answer = tools.adapter.request(method, {"x": 1})
        except ProtocolError as exc:
            assert exc.code == -32601, f"{method!r}: expected -32601, got {exc}"
        except AdapterError as exc:
            raise AssertionError(f"{method!r} broke the implementation: {exc}") from exc
        else:
            raise AssertionError(f"{method!r} was answered {answer!r:.200}; -32601 was due")
    ledger = Ledger()
    still_serving(tools, ledger, liveness)
    ledger.assert_clean()
