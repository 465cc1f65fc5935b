"""bash output: the bounded view (in the declared unit), the full-output file and its bound,
bounded memory, and the announcement of a cut.

Sizes come from the declared caps (shrunk with ``configure`` when settable); an undeclared cap
is probed with output far beyond any sane one, and the answer must still be bounded.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import (
    PROBE_VIEW_BYTES,
    PROBE_VIEW_LINES,
    RERUN_ADVICE,
    SANE_VIEW_BYTES,
    Caps,
    check_cut,
    count_lines,
    measure,
    view_caps,
)
from pytest_agenttools.harness.assertions import (
    bash_obs,
    expect_in_order,
    expect_names_path,
    expect_ok,
    precondition,
)
from pytest_agenttools.harness.markers import clause

segments = st.lists(
    st.tuples(
        st.integers(0, 300), st.integers(1, 80), st.sampled_from(["a", "b", "xyz", "中", "é"])
    ),
    min_size=0,
    max_size=5,
)


@clause("BASH-OUT-06")
@given(shape=segments, final_newline=st.booleans())
def test_view_within_caps(
    tools: ToolClient, ws: Workspace, shape: list[Any], final_newline: bool
) -> None:
    caps = view_caps(tools)
    root = ws.subdir()
    lines = [f"{n}:{ch * length}" for length, count, ch in shape for n in range(count)]
    content = "\n".join(lines) + ("\n" if final_newline and lines else "")
    root.put("out.txt", content)
    obs = bash_obs(expect_ok(tools.call("bash", command="cat out.txt", _cwd=str(root.root))))
    fits = (caps.size is None or measure(content, caps.unit) <= caps.size) and (
        caps.lines is None or count_lines(content) <= caps.lines
    )
    if not obs.truncated:
        assert fits or (caps.size is None and caps.lines is None), (
            f"{measure(content, caps.unit)} {caps.unit} in {count_lines(content)} lines shown "
            f"whole, over the caps ({caps.size} {caps.unit}, {caps.lines} lines)"
        )
        assert obs.output == content, "an uncut view must be the exact output"
        return
    assert not fits or caps.size is None or caps.lines is None, "output within the caps was cut"
    check_cut(obs, content, caps, "cut view")


def _probe_line_bytes(caps: Caps) -> tuple[str, int]:
    """A command printing far more than the size cap allows (or 64 MiB), and its size."""
    if caps.size is None:
        return "yes \"$(printf 'a%.0s' $(seq 1 999))\" | head -c " + str(PROBE_VIEW_BYTES), (
            PROBE_VIEW_BYTES
        )
    # in the declared unit: multibyte text, so that a cap counted in the wrong unit shows;
    # whole lines of 8 bytes, so that no character is cut
    size = (caps.size * 4 + 1000) // 8 * 8
    return f"yes 'ab中é' | head -c {size}", size


@clause("BASH-OUT-06")
def test_view_bounded_in_size(tools: ToolClient, ws: Workspace) -> None:
    caps = view_caps(tools)
    command, size = _probe_line_bytes(caps)
    obs = bash_obs(expect_ok(tools.call("bash", command=command, timeout=120)))
    assert obs.truncated, (
        f"{size} bytes of output were shown whole: the view has no size cap "
        f"(declared: {caps.size} {caps.unit})"
    )
    shown = obs.output_head + (obs.output_tail or "")
    if caps.size is None:
        assert measure(shown, "bytes") <= SANE_VIEW_BYTES, (
            f"{measure(shown, 'bytes')} bytes shown of a {size}-byte output: not bounded"
        )
        return
    printed = "ab中é\n" * (size // 8)
    check_cut(obs, printed, caps, f"{size} bytes of output")


@clause("BASH-OUT-06")
def test_view_bounded_in_lines(tools: ToolClient) -> None:
    caps = view_caps(tools)
    count = caps.lines * 3 if caps.lines is not None else PROBE_VIEW_LINES
    obs = bash_obs(expect_ok(tools.call("bash", command=f"seq 1 {count}", timeout=120)))
    printed = "".join(f"{i}\n" for i in range(1, count + 1))
    assert obs.truncated, f"{count} lines were shown whole: the view has no line cap"
    if caps.lines is None:
        shown = count_lines(obs.output_head) + count_lines(obs.output_tail or "")
        assert shown <= count // 4, f"{shown} of {count} lines shown: not bounded"
    check_cut(obs, printed, Caps(caps.size, caps.unit, caps.lines), f"{count} lines")


@clause("BASH-PRES-03")
def test_cut_is_announced(tools: ToolClient, ws: Workspace) -> None:
    caps = view_caps(tools)
    count = caps.lines * 3 if caps.lines is not None else PROBE_VIEW_LINES
    result = expect_ok(tools.call("bash", command=f"seq 1 {count}", timeout=120))
    obs = bash_obs(result)
    assert obs.truncated and obs.full_output_path, "the view should be cut, with a full output"
    expect_names_path(result, obs.full_output_path, str(ws.root))
    expect_in_order(
        result,
        [obs.output_head.rstrip("\n"), (obs.output_tail or "").rstrip("\n")],
        "the kept head and tail of the output",
    )


@clause("BASH-PRES-06")
def test_cut_advises_against_rerunning(tools: ToolClient) -> None:
    caps = view_caps(tools)
    count = caps.lines * 3 if caps.lines is not None else PROBE_VIEW_LINES
    result = tools.call("bash", command=f"seq 1 {count}", timeout=120)
    with precondition("BASH-OUT-06", "output over the line cap is cut"):
        expect_ok(result)
        assert bash_obs(result).truncated, f"{count} lines were shown whole"
    assert RERUN_ADVICE.search(result.text), (
        "the notice of a cut should tell the model to read the full output rather than run the "
        f"command again (no such advice found in the text, which ends {result.text[-300:]!r})"
    )
