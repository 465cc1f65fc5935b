"""grep and glob take a `limit` below 1 as "no limit" instead of refusing it (GREP-ARG-01,
GLOB-ARG-01); what they say of every other error is the reference's."""

from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class AcceptsBadLimit(ReferenceTools):
    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: Any = None,
    ) -> dict[str, Any]:
        limit = arguments.get("limit") if isinstance(arguments, dict) else None
        if tool in ("grep", "glob") and isinstance(limit, int) and limit < 1:
            arguments = {k: v for k, v in arguments.items() if k != "limit"}
        return super().call(tool, arguments, cwd, env, cancel)


def create() -> AcceptsBadLimit:
    return AcceptsBadLimit()


BROKEN = Broken(
    caught_by={"GREP-ARG-01", "GLOB-ARG-01"},
    suite_modules=["test_grep", "test_glob"],
    create=create,
)
