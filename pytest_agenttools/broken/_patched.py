"""A reference whose calls run with some module attributes swapped: the shared base of the
broken implementations, so each one states only its defect."""

from __future__ import annotations

import threading
from collections.abc import Callable
from types import ModuleType
from typing import Any

from pytest_agenttools.reference_impl.toolbox import ReferenceTools

_SWAP_LOCK = threading.RLock()


class PatchedReference(ReferenceTools):
    """``patches``: (module, attribute name, replacement factory taking the original)."""

    patches: tuple[tuple[ModuleType, str, Callable[[Any], Any]], ...] = ()

    def call(self, tool: str, arguments: Any, cwd: str, env: Any = None, cancel: Any = None) -> Any:
        with _SWAP_LOCK:  # calls are serialised so that a swap never leaks into another call
            saved = [(module, name, getattr(module, name)) for module, name, _ in self.patches]
            try:
                for (module, name, make), (_, _, original) in zip(self.patches, saved, strict=True):
                    setattr(module, name, make(original))
                return super().call(tool, arguments, cwd, env, cancel)
            finally:
                for module, name, original in saved:
                    setattr(module, name, original)
