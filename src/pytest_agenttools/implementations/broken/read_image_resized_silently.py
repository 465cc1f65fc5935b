"""A large image is scaled down as declared, but the result does not say so: the observation
has no sizes and the text no note, so the model takes the scaled pixels for the file's."""

from collections.abc import Mapping
from typing import Any

from pytest_agenttools.implementations.broken._table import Broken
from pytest_agenttools.implementations.reference.toolbox import ReferenceTools

SIZE_KEYS = ("resized", "width", "height", "original_width", "original_height")


class Silent(ReferenceTools):
    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: Any = None,
    ) -> dict[str, Any]:
        result = super().call(tool, arguments, cwd, env, cancel)
        observation = result.get("details", {}).get("observation", {})
        if tool == "read" and observation.get("resized"):
            for key in SIZE_KEYS:
                observation.pop(key, None)
            header = result["content"][0]
            header["text"] = header["text"].split("\n")[0]
        return result


def create() -> Silent:
    return Silent()


BROKEN = Broken(
    caught_by={"READ-IMG-04"},
    suite_modules=["test_read_formats"],
    create=create,
)
