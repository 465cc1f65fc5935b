"""The reference implementation as one object: manifest, settings, and call dispatch.

This is the in-process entry point (``pytest_agenttools.implementations.reference:create``) and
what the
stdio server wraps. It turns every expected failure into an error result and every unexpected
one into an ``internal`` error result (a plain message; the trace goes to ``details`` and the
``agenttools.reference`` log), so a call never raises into its caller. The only exceptions it
raises are protocol faults (``results.ProtocolFault``: an unknown tool, a malformed ``env``),
which the server answers as JSON-RPC errors.

The tools come from the modules named in ``TOOL_MODULES``, each ending in ``TOOLS``: a tuple of
``definition.ToolDefinition`` (its ``run``, features, default limits, operations port, the
details of a refusal, extra protocol methods, its shutdown). That one typed value is all the
toolbox reads of a module.

A variant of the reference (the kit's broken and alternative implementations) is this class
with parts swapped through the constructor: another operations port for a tool (``ops``),
another function for a tool (``runs``), another mutation queue; and ``present`` (the hook that
may reword a finished result) and ``manifest`` overridden. No module is ever patched.
"""

from __future__ import annotations

import importlib
import logging
import os
import threading
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from pytest_agenttools.implementations.reference import confine, session_env
from pytest_agenttools.implementations.reference.arguments import described, preview
from pytest_agenttools.implementations.reference.context import CallContext
from pytest_agenttools.implementations.reference.definition import Run, ToolDefinition
from pytest_agenttools.implementations.reference.limits import Limits
from pytest_agenttools.implementations.reference.mutation_queue import MutationQueue
from pytest_agenttools.implementations.reference.results import (
    InvalidParamsError,
    ToolError,
    UnknownToolError,
    error_result,
)

NAME = "agenttools-reference"
VERSION = "0.2.0"
PROTOCOL = "agenttools/2"
SPEC_VERSION = "0.2"
OUTPUT_PROFILE = "agenttools-reference/1"

#: the tool modules inside this package, in order; each ends in ``TOOLS``
TOOL_MODULES: tuple[str, ...] = ("read", "write", "edit", "grep", "glob", "bash")

Tool = Run
log = logging.getLogger("agenttools.reference")


def _check_env(env: Any) -> None:
    """``env`` is absent or an object of strings without NUL (a process environment cannot
    hold anything else); anything else is a fault of the caller's harness."""
    if env is None:
        return
    if not isinstance(env, Mapping):
        raise InvalidParamsError(
            f"env must be an object mapping variable names to strings, got {described(env)}"
        )
    for name, value in env.items():
        if not isinstance(value, str):
            raise InvalidParamsError(
                f"env[{preview(name)}] must be a string, got {described(value)}"
            )
        for text, what in ((name, "name"), (value, "value")):
            if "\0" in text or (what == "name" and (not text or "=" in text)):
                raise InvalidParamsError(
                    f"env {what} {preview(text)} cannot be part of a process environment "
                    "(empty name, '=' in a name, or a NUL character)"
                )
            try:  # surrogate escapes of undecodable bytes pass, lone surrogates do not
                text.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                raise InvalidParamsError(
                    f"env {what} {preview(text)} holds a lone surrogate, which no process "
                    "environment can carry"
                ) from None


def _check_cwd(cwd: Any) -> dict[str, Any] | None:
    """An error result when ``cwd`` is not an existing absolute directory, else None."""
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        return error_result("invalid_cwd", f"cwd must be an absolute path, got {described(cwd)}.")
    if "\0" in cwd or not os.path.isdir(cwd):
        return error_result("invalid_cwd", f"Working directory does not exist: {preview(cwd)}")
    return None


def _filename(exc: OSError) -> str:
    name = exc.filename
    if isinstance(name, bytes):
        name = name.decode("utf-8", "replace")
    if not isinstance(name, str):
        return "(unknown path)"
    return name if len(name) <= 300 else preview(name)


def _os_error_text(tool: str, exc: OSError) -> str:
    """What the operating system refused, in its own words, without Python's ``[Errno N]``."""
    reason = exc.strerror or "the operating system refused the operation"
    where = f": {_filename(exc)}" if exc.filename is not None else ""
    return f"{tool}: {reason}{where}."


def _with_details(result: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``result`` with ``extra`` details (a tool's ``REFUSED``: the observation of a call that
    did not get to run)."""
    if extra:
        result["details"] = {**result.get("details", {}), **extra}
    return result


def _internal_error(tool: str) -> dict[str, Any]:
    """An unexpected exception as a result: a plain message for the model, the trace for the
    implementer (in ``details.traceback`` and on the log, i.e. stderr over stdio)."""
    log.error("internal error in %s", tool, exc_info=True)
    return error_result(
        "internal",
        f"{tool}: internal error; the tool failed unexpectedly and did not complete this call. "
        "This is a defect of the tool, not of the call; a different call may work.",
        traceback=traceback.format_exc(limit=8),
    )


def _exhausted(tool: str, exc: BaseException) -> dict[str, Any] | None:
    """A resource running out (memory, threads) as a result that names it; None otherwise."""
    if isinstance(exc, MemoryError):
        code = "out_of_memory"
        text = (
            f"{tool}: ran out of memory and did not complete this call. Retry with a smaller "
            "input (a smaller file, page or output), or give the process more memory."
        )
    elif isinstance(exc, RuntimeError) and "thread" in str(exc):
        code = "resource_exhausted"
        text = (
            f"{tool}: could not start a thread (the process is at its thread limit, "
            "`ulimit -u`, or out of memory for thread stacks), so the call did not complete. "
            "Retry when other calls or background commands have finished."
        )
    else:
        return None
    log.error("%s", text, exc_info=True)
    return error_result(code, text, traceback=traceback.format_exc(limit=8))


def load_tools() -> dict[str, ToolDefinition]:
    """The definitions of the tool modules that exist; a tool whose module is absent is not
    offered, and a module's ``TOOLS`` that is not a tuple of definitions is an error.

    Public so that a batch of runs (``runner.run_batch``) can import them once before it forks."""
    found: dict[str, ToolDefinition] = {}
    for module_name in TOOL_MODULES:
        try:
            module = importlib.import_module(f".{module_name}", __package__)
        except ModuleNotFoundError as exc:
            if exc.name == f"{__package__}.{module_name}":
                continue
            raise
        definitions = getattr(module, "TOOLS", None)
        if not isinstance(definitions, tuple) or not all(
            isinstance(d, ToolDefinition) for d in definitions
        ):
            raise TypeError(f"{module.__name__}.TOOLS must be a tuple of ToolDefinition")
        for definition in definitions:
            found[definition.name] = definition
    return found


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
        confinement: confine.Confinement | None = None,
    ) -> None:
        self.definitions = load_tools()
        self.tools: dict[str, Tool] = {name: d.run for name, d in self.definitions.items()}
        self.tools.update(runs or {})
        self._refused: dict[str, Mapping[str, Any]] = {
            name: d.refused for name, d in self.definitions.items() if d.refused
        }
        defaults: dict[str, Any] = {}
        for definition in self.definitions.values():
            defaults.update(definition.limits)
        self.limits = Limits(limits, extra_defaults=defaults, units=units)
        self.ops: dict[str, Any] = {
            name: d.ops for name, d in self.definitions.items() if d.ops is not None
        }
        self.ops.update(ops or {})
        self.queue = queue if queue is not None else MutationQueue()
        self.services: dict[str, Any] = {}
        #: the roots set with ``configure {"confine.roots": ...}`` and how they are enforced
        self.confinement = confinement if confinement is not None else confine.Confinement()
        self.services[confine.SERVICE] = self.confinement
        self.session = session_env.of(self.services)  # BASH-SESSION-02: one id per instance
        self._lock = threading.Lock()
        self._features: tuple[str, ...] | None = None

    def features(self) -> list[str]:
        """Fixed for the instance (the tools' own, and confinement's once its sandbox is
        probed), so worked out once: every call's context asks for them, and confinement
        warns each time it finds no sandbox."""
        if self._features is None:
            found: set[str] = set()
            for definition in self.definitions.values():
                found.update(definition.features)
            found.update(self.confinement.features())
            self._features = tuple(sorted(found))
        return list(self._features)

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
            "settings": sorted([*values, confine.SETTING, session_env.SETTING]),
            "dialect": {"session_env": dict(session_env.NAMES)},
        }

    def initialize(self, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return {
            "name": NAME,
            "version": VERSION,
            "protocol": PROTOCOL,
            "manifest": self.manifest(),
            "notes": self.confinement.notes(),
        }

    def configure(self, settings: Mapping[str, Any]) -> dict[str, Any]:
        with self._lock:
            others = (confine.SETTING, session_env.SETTING)
            limits = {k: v for k, v in settings.items() if k not in others}
            applied = self.limits.apply(limits)
            if session_env.SETTING in settings and self.session.configure(
                settings[session_env.SETTING]
            ):
                applied[session_env.SETTING] = settings[session_env.SETTING]
            if confine.SETTING in settings and self.confinement.configure(
                settings[confine.SETTING]
            ):
                applied[confine.SETTING] = settings[confine.SETTING]
            return {"applied": applied}

    def method(self, name: str) -> Callable[[Any, dict[str, Any]], Any] | None:
        """An extra protocol method (beyond the four core ones) that some tool provides."""
        for definition in self.definitions.values():
            found = definition.methods.get(name)
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
            features=frozenset(self.features()),
        )

    def call(
        self,
        tool: str,
        arguments: Any,
        cwd: str,
        env: Mapping[str, str] | None = None,
        cancel: threading.Event | None = None,
    ) -> dict[str, Any]:
        """Run one call. Expected failures are error results; a fault of the call itself (an
        unknown tool, ``env`` that is not an object of strings) raises a ProtocolFault; any
        other exception becomes an ``internal`` error result whose text names no Python
        exception (ROBUST-ARGS-01), with the trace in ``details`` and in the log."""
        # ROBUST-TOOL-01: an unknown tool is a protocol fault;
        # ROBUST-FUZZ-01: any arguments get a result, never an exception
        run = self.tools.get(tool) if isinstance(tool, str) else None
        if run is None:
            raise UnknownToolError(
                f"unknown tool {preview(tool)}; this implementation has {sorted(self.tools)}"
            )
        refused = self._refused.get(tool, {})
        _check_env(env)
        bad_cwd = _check_cwd(cwd)
        if bad_cwd is not None:
            return _with_details(bad_cwd, refused)
        ctx = self.context(cwd, env, cancel)
        try:
            result = self.confinement.run(tool, run, arguments, ctx)
        except ToolError as exc:
            result = error_result(exc.code, exc.message, **exc.details)
        except FileNotFoundError as exc:
            result = error_result("not_found", f"File not found: {_filename(exc)}.", **refused)
        except OSError as exc:
            result = error_result("os_error", _os_error_text(tool, exc), **refused)
        except (MemoryError, RuntimeError) as exc:  # a resource ran out: say which one
            result = _with_details(_exhausted(tool, exc) or _internal_error(tool), refused)
        except Exception:  # the contract: a call never raises into its caller
            result = _with_details(_internal_error(tool), refused)
        try:
            return self.present(tool, arguments, cwd, result)
        except Exception:
            return _with_details(_internal_error(tool), refused)

    def present(
        self, tool: str, arguments: Any, cwd: str, result: dict[str, Any]
    ) -> dict[str, Any]:
        """The model-facing form of a finished result; variants reword it here."""
        return result

    def shutdown(self) -> None:
        """Release what tools hold (background processes, temp files)."""
        for definition in self.definitions.values():
            if definition.shutdown is None:
                continue
            try:  # one tool failing to clean up must not keep the others from it
                definition.shutdown(self.services)
            except Exception:
                log.error("shutdown of %s failed", definition.name, exc_info=True)
        self.confinement.shutdown()
        try:  # temp files this instance's writes left (WRITE-ATOMIC-01)
            self.queue.close()
        except Exception:
            log.error("sweeping temp files at shutdown failed", exc_info=True)
