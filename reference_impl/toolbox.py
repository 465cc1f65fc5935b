"""The reference implementation as one object: manifest, settings, and call dispatch.

This is the in-process entry point (``pytest_agenttools.reference_impl:create``) and what the
stdio server wraps. It turns every expected failure into an error result and every unexpected
one into an ``internal`` error result, so a call never raises into its caller.

Tools are modules named in ``TOOL_MODULES``. A tool module provides ``run(arguments, ctx)`` (or
the function named after the colon) and may provide ``FEATURES`` (manifest feature names),
``LIMITS`` (default limit values, configurable), ``OPS`` (its operations port: the object through
which it touches files and processes), ``REFUSED`` (details every error result of the tool
carries when the tool did not get to run, e.g. the observation of a call that ran nothing),
``METHODS`` (extra protocol methods, each
``fn(params, services) -> result``) and ``shutdown(services)``.

A variant of the reference (the kit's broken and alternative implementations) is this class
with parts swapped through the constructor: another operations port for a tool (``ops``),
another function for a tool (``runs``), another mutation queue; and ``present`` (the hook that
may reword a finished result) and ``manifest`` overridden. No module is ever patched.
"""

from __future__ import annotations

import importlib
import os
import threading
import traceback
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from .context import CallContext
from .limits import Limits
from .mutation_queue import MutationQueue
from .results import ToolError, UnknownToolError, error_result

NAME = "agenttools-reference"
VERSION = "0.2.0"
PROTOCOL = "agenttools/2"
SPEC_VERSION = "0.2"
OUTPUT_PROFILE = "agenttools-reference/1"

#: canonical tool name -> "module" or "module:function" inside this package
TOOL_MODULES: Mapping[str, str] = {
    "read": "read",
    "write": "write",
    "edit": "edit",
    "grep": "grep",
    "glob": "glob",
    "bash": "bash",
    "task_output": "bash:run_task_output",
}

Tool = Callable[[Any, CallContext], dict[str, Any]]


def _load_tools() -> tuple[dict[str, Tool], dict[str, ModuleType]]:
    """Import the tool modules that exist; a tool whose module is absent is not offered."""
    tools: dict[str, Tool] = {}
    modules: dict[str, ModuleType] = {}
    for name, spec in TOOL_MODULES.items():
        module_name, _, function = spec.partition(":")
        try:
            module = importlib.import_module(f".{module_name}", __package__)
        except ModuleNotFoundError as exc:
            if exc.name == f"{__package__}.{module_name}":
                continue
            raise
        tools[name] = getattr(module, function or "run")
        modules[name] = module
    return tools, modules


class ReferenceTools:
    """One reference instance: its own limits, mutation queue and services, nothing global."""

    def __init__(
        self,
        limits: Mapping[str, Any] | None = None,
        *,
        ops: Mapping[str, Any] | None = None,
        runs: Mapping[str, Tool] | None = None,
        queue: MutationQueue | None = None,
        units: Mapping[str, str] | None = None,
    ) -> None:
        self.tools, by_tool = _load_tools()
        self.tools.update(runs or {})
        self.modules = list(dict.fromkeys(by_tool.values()))
        self._refused: dict[str, Mapping[str, Any]] = {
            name: module.REFUSED for name, module in by_tool.items() if hasattr(module, "REFUSED")
        }
        defaults: dict[str, Any] = {}
        for module in self.modules:
            defaults.update(getattr(module, "LIMITS", {}))
        self.limits = Limits(limits, extra_defaults=defaults, units=units)
        self.ops: dict[str, Any] = {
            name: module.OPS for name, module in by_tool.items() if hasattr(module, "OPS")
        }
        self.ops.update(ops or {})
        self.queue = queue if queue is not None else MutationQueue()
        self.services: dict[str, Any] = {}
        self._lock = threading.Lock()

    def features(self) -> list[str]:
        found: set[str] = set()
        for module in self.modules:
            found.update(getattr(module, "FEATURES", ()))
        return sorted(found)

    def manifest(self) -> dict[str, Any]:
        values = self.limits.as_dict()
        return {
            "name": NAME,
            "version": VERSION,
            "protocol": PROTOCOL,
            "spec_version": SPEC_VERSION,
            "tools": sorted(self.tools),
            "features": self.features(),
            "output": {"line_numbers": "arrow", "profile": OUTPUT_PROFILE},
            "limits": self.limits.declared(),
            "settings": sorted(values),
        }

    def initialize(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {"name": NAME, "version": VERSION, "protocol": PROTOCOL, "manifest": self.manifest()}

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        with self._lock:
            return {"applied": self.limits.apply(settings)}

    def method(self, name: str) -> Callable[[Any, dict[str, Any]], Any] | None:
        """An extra protocol method (beyond the four core ones) that some tool provides."""
        for module in self.modules:
            found = getattr(module, "METHODS", {}).get(name)
            if found is not None:
                return found
        return None

    def context(
        self, cwd: str, env: Mapping[str, str] | None, cancel: threading.Event | None
    ) -> CallContext:
        return CallContext(
            cwd=cwd,
            limits=self.limits,
            queue=self.queue,
            env=env,
            cancel=cancel or threading.Event(),
            services=self.services,
            ops=self.ops,
        )

    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        run = self.tools.get(tool)
        if run is None:
            raise UnknownToolError(
                f"unknown tool {tool!r}; this implementation has {sorted(self.tools)}"
            )
        refused = self._refused.get(tool, {})
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            return error_result(
                "invalid_cwd", f"cwd must be an absolute path, got {cwd!r}.", **refused
            )
        if not os.path.isdir(cwd):
            return error_result(
                "invalid_cwd", f"Working directory does not exist: {cwd}", **refused
            )
        ctx = self.context(cwd, env, cancel)
        try:
            result = run(arguments, ctx)
        except ToolError as exc:
            result = error_result(exc.code, exc.message, **exc.details)
        except FileNotFoundError as exc:
            result = error_result("not_found", f"File not found: {exc.filename or exc}.", **refused)
        except Exception as exc:  # the contract: a call never raises into its caller
            result = error_result(
                "internal",
                f"Internal error in {tool}: {type(exc).__name__}: {exc}",
                traceback=traceback.format_exc(limit=5),
                **refused,
            )
        return self.present(tool, arguments, cwd, result)

    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        """The model-facing form of a finished result; variants reword it here."""
        return result

    def shutdown(self) -> None:
        """Release what tools hold (background processes, temp files)."""
        for module in self.modules:
            stop = getattr(module, "shutdown", None)
            if stop is not None:
                stop(self.services)
