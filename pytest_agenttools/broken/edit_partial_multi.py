"""A multi-edit applies and writes its entries one by one, so a failing entry leaves the earlier
ones on disk."""

from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

SUITE_MODULES = ["test_edit"]
CAUGHT_BY = {"EDIT-MULTI-03"}


class PartialMulti(ReferenceTools):
    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        if tool != "edit" or not isinstance(arguments, dict) or "edits" not in arguments:
            return super().call(tool, arguments, cwd, env, cancel)
        result: Any = None
        for entry in arguments["edits"]:
            single = {"file_path": arguments.get("file_path"), **entry}
            result = super().call(tool, single, cwd, env, cancel)
            if result["isError"]:
                return result
        return result


def create() -> PartialMulti:
    return PartialMulti()
