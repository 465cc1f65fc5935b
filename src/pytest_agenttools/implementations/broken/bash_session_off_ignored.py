"""``configure {"bash.session_env": false}`` is acknowledged as applied but changes nothing: every
command still sees the session variables."""

from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import session_env
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class IgnoredSwitch(session_env.SessionEnv):
    def configure(self, value: Any) -> bool:
        return isinstance(value, bool)


def create() -> ReferenceTools:
    tools = ReferenceTools()
    tools.session = tools.services[session_env.SERVICE] = IgnoredSwitch()
    return tools


BROKEN = Broken(
    caught_by={"BASH-SESSION-03"},
    suite_modules=["test_bash_session"],
    create=create,
)
