"""The reference implementation as one object: manifest, settings, and call dispatch.

This is the in-process entry point (``pytest_agenttools.reference_impl:create``) and what the
stdio server wraps. It turns every expected failure into an error result and every unexpected
one into an ``internal`` error result, so a call never raises into its caller.
"""

from __future__ import annotations

import os
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from . import read, write
from .context import CallContext
from .limits import Limits
from .mutation_queue import MutationQueue
from .results import ToolError, UnknownToolError, error_result

NAME = "agenttools-reference"
VERSION = "0.1.0"
PROTOCOL = "agenttools/1"
SPEC_VERSION = "0.1"
OUTPUT_PROFILE = "agenttools-reference/1"

Tool = Callable[[Any, CallContext], dict[str, Any]]
TOOLS: Mapping[str, Tool] = {"read": read.run, "write": write.run}
FEATURES = (
    "read.binary_detection",
    "read.device_guard",
    "read.images",
    "read.notebook",
    "read.path_variants",
    "read.pdf",
    "write.atomic",
    "write.keep_bom",
    "write.keep_utf16le",
    "write.mkdirs",
    "write.patch",
)


class ReferenceTools:
    """One reference instance: its own limits and mutation queue, nothing global."""

    def __init__(self, limits: Mapping[str, int] | None = None) -> None:
        self.limits = Limits(limits)
        self.queue = MutationQueue()
        self._lock = threading.Lock()

    def manifest(self) -> dict[str, Any]:
        values = self.limits.as_dict()
        return {
            "name": NAME,
            "version": VERSION,
            "protocol": PROTOCOL,
            "spec_version": SPEC_VERSION,
            "tools": sorted(TOOLS),
            "features": sorted(FEATURES),
            "output": {"line_numbers": "arrow", "profile": OUTPUT_PROFILE},
            "limits": values,
            "settings": sorted(values),
        }

    def initialize(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {"name": NAME, "version": VERSION, "protocol": PROTOCOL, "manifest": self.manifest()}

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        with self._lock:
            return {"applied": self.limits.apply(settings)}

    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        run = TOOLS.get(tool)
        if run is None:
            raise UnknownToolError(
                f"unknown tool {tool!r}; this implementation has {sorted(TOOLS)}"
            )
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            return error_result("invalid_cwd", f"cwd must be an absolute path, got {cwd!r}.")
        if not os.path.isdir(cwd):
            return error_result("invalid_cwd", f"Working directory does not exist: {cwd}")
        ctx = CallContext(
            cwd=cwd,
            limits=self.limits,
            queue=self.queue,
            env=env,
            cancel=cancel or threading.Event(),
        )
        try:
            return run(arguments, ctx)
        except ToolError as exc:
            return error_result(exc.code, exc.message, **exc.details)
        except FileNotFoundError as exc:
            return error_result("not_found", f"File not found: {exc.filename or exc}.")
        except Exception as exc:  # the contract: a call never raises into its caller
            return error_result(
                "internal",
                f"Internal error in {tool}: {type(exc).__name__}: {exc}",
                traceback=traceback.format_exc(limit=5),
            )

    def shutdown(self) -> None:
        """Nothing to release yet; background tasks will be reaped here."""
