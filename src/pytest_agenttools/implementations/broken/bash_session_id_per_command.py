"""Every command gets a session id of its own, so the id ties nothing together."""

import uuid

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import session_env
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class IdPerCommand(session_env.SessionEnv):
    def variables(self) -> dict[str, str]:
        self.session_id = uuid.uuid4().hex
        return super().variables()


def create() -> ReferenceTools:
    tools = ReferenceTools()
    tools.session = tools.services[session_env.SERVICE] = IdPerCommand()
    return tools


BROKEN = Broken(
    caught_by={"BASH-SESSION-02"},
    suite_modules=["test_bash_session"],
    create=create,
)
