"""The shared shapes of the broken implementations that change a result after the fact.

``Misworded``: the reference's behaviour and observation, with ``text(tool, arguments, result)``
deciding what the model is told (None keeps the reference's text). ``Reshaped``: the reference's
behaviour, with ``reshape(tool, seen, result)`` changing the observation ``seen`` (and, where the
defect needs it, the result) in place."""

from __future__ import annotations

from typing import Any

from pytest_agenttools.implementations.reference.toolbox import ReferenceTools


class Misworded(ReferenceTools):
    def text(self, tool: str, arguments: Any, result: dict[str, Any]) -> str | None:
        raise NotImplementedError

    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        replaced = self.text(tool, arguments, result)
        if replaced is not None:
            result["content"] = [{"type": "text", "text": replaced}]
        return result


class Reshaped(ReferenceTools):
    def reshape(self, tool: str, seen: dict[str, Any], result: dict[str, Any]) -> None:
        raise NotImplementedError

    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        self.reshape(tool, observation(result), result)
        return result


def observation(result: dict[str, Any]) -> dict[str, Any]:
    found = result.get("details", {}).get("observation")
    return found if isinstance(found, dict) else {}
