"""Hypothesis strategies shared by the property suites."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st

#: max_examples of the ci profile (conftest.py); other profiles scale from it
CI_EXAMPLES = 50
LINE_ENDINGS = st.sampled_from(["\n", "\r\n", "\r"])
# Text that survives any transport: no lone surrogates (JSON in Node cannot carry them intact),
# no NUL (a binary marker for read),
# no other control characters (a file of them is binary by design), no BOM character.
SAFE_CHARS = st.characters(
    blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufeff"
) | st.just("\t")


@st.composite
def file_text(draw: st.DrawFn, max_lines: int = 30) -> str:
    """Lines of arbitrary text joined by a mix of LF, CRLF and lone CR, maybe no final newline."""
    lines = draw(st.lists(st.text(SAFE_CHARS, max_size=40), max_size=max_lines))
    out = []
    for line in lines:
        out.append(line + draw(LINE_ENDINGS))
    text = "".join(out)
    if text and draw(st.booleans()):
        text = text.rstrip("\r\n")
    return text


def examples(ci_count: int) -> int:
    """A property's example count under the active profile: ``ci_count`` in ci, scaled up in
    dev and fuzz, so a slow property that sets its own count still grows when asked to."""
    return max(1, ci_count * settings().max_examples // CI_EXAMPLES)
