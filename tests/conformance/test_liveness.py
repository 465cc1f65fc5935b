"""``Liveness`` says what happened to the implementation's process: a process started while
watching is no loss, a replacement after a call overran its deadline is not called a death,
and a death is."""

from __future__ import annotations

from dataclasses import dataclass

from pytest_agenttools.conformance.robust_strategies import Liveness


@dataclass
class Adapter:
    pid: int | None = None
    restarts: int = 0
    retired: int = 0


def test_a_process_started_after_a_retirement_is_no_loss() -> None:
    # the previous test's call overran: the harness retired the process, none runs now
    adapter = Adapter(pid=None, restarts=1, retired=1)
    liveness = Liveness(adapter)
    adapter.pid = 200  # the next line sent starts a new one
    assert liveness.lost() is None


def test_a_replacement_after_an_overrun_is_not_called_a_death() -> None:
    adapter = Adapter(pid=100)
    liveness = Liveness(adapter)
    adapter.pid, adapter.restarts, adapter.retired = 200, 1, 1
    said = liveness.lost()
    assert said is not None
    assert "overran its deadline" in said and "died" not in said.replace("did not die", "")


def test_a_death_is_called_a_death() -> None:
    adapter = Adapter(pid=100)
    liveness = Liveness(adapter)
    adapter.pid, adapter.restarts = 200, 1
    assert liveness.lost() == "the implementation process died and a new one was started"
    assert liveness.lost() is None  # reported once
    adapter.pid = None
    assert liveness.lost() == "the implementation process died"
