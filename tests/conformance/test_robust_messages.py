"""Robustness verdicts blame the call that went wrong: with read and edit only, an edit that
rightly writes a NUL into ``a.txt`` must not make the closing valid read fail (ROBUST-ARGS-02);
the seeded file is put back and the read is judged on its own."""

from __future__ import annotations

from pathlib import Path

from tests.support import suite_report


def test_a_valid_read_is_not_blamed_for_an_edit_that_changed_the_file(tmp_path: Path) -> None:
    data = suite_report(tmp_path, "ROBUST-ARGS-02", impl="tests.conformance.read_edit_only:create")
    messages = [str(t.get("message") or "") for t in data["tests"]]
    assert data["clauses"]["ROBUST-ARGS-02"] == "passed", "\n".join(messages)[-3000:]
