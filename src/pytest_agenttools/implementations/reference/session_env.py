"""The session variables every command sees (BASH-SESSION-01..03).

One ``SessionEnv`` per instance (in its services): a fresh session id, no session file (the
reference keeps no transcript) and the switch ``configure {"bash.session_env": false}``. The
names are the reference's own, declared in its manifest's ``dialect.session_env``; the
reference has no provider, model or reasoning level, so it names none.
"""

from __future__ import annotations

import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

#: the feature, its setting and the services key of this instance's session
FEATURE = SETTING = SERVICE = "bash.session_env"
#: fact -> variable name (the manifest's ``dialect.session_env``)
NAMES: dict[str, str] = {"session_id": "AGENT_SESSION_ID", "session_file": "AGENT_SESSION_FILE"}


@dataclass
class SessionEnv:
    """This instance's session facts and whether commands see them."""

    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    session_file: str = ""
    enabled: bool = True

    def variables(self) -> dict[str, str]:
        """What to add to a command's environment (BASH-SESSION-01): nothing while switched off."""
        if not self.enabled:
            return {}
        return {NAMES["session_id"]: self.session_id, NAMES["session_file"]: self.session_file}

    def configure(self, value: Any) -> bool:
        """Switch on or off (BASH-SESSION-03); False (not applied) for anything but a boolean."""
        if not isinstance(value, bool):
            return False
        self.enabled = value
        return True


_LOCK = threading.Lock()


def of(services: dict[str, Any]) -> SessionEnv:
    """The instance's session, made on first use: one id per instance (BASH-SESSION-02)."""
    with _LOCK:
        found = services.get(SERVICE)
        if not isinstance(found, SessionEnv):
            found = services[SERVICE] = SessionEnv()
        return found
