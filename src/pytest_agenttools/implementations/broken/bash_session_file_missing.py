"""The manifest declares the session file's variable, but commands never see it (only the session
id is injected)."""

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference import session_env
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class NoFile(session_env.SessionEnv):
    def variables(self) -> dict[str, str]:
        found = super().variables()
        found.pop(session_env.NAMES["session_file"], None)
        return found


def create() -> ReferenceTools:
    tools = ReferenceTools()
    tools.session = tools.services[session_env.SERVICE] = NoFile()
    return tools


BROKEN = Broken(
    caught_by={"BASH-SESSION-01"},
    suite_modules=["test_bash_session"],
    create=create,
)
