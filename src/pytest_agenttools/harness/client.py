"""The tool client the suite calls: canonical calls in, validated ToolResults out.

It is bound to one workspace (its ``cwd``), remembers every ``configure`` it made and undoes them
when the test ends, so one test's knob never leaks into the next. It never skips a test: an
undeclared limit is ``None`` (the test then probes it), an extra method the adapter cannot send
is a failure of the feature that needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pytest_agenttools.connect.base import Adapter, PendingCall, ProtocolError
from pytest_agenttools.harness.clock import scaled
from pytest_agenttools.harness.contract import Limit, Manifest, ToolCall, ToolResult
from pytest_agenttools.harness.tracebacks import kit_frame
from pytest_agenttools.harness.workspace import Workspace

#: this module's frames are left out of short tracebacks (harness/tracebacks.py)
__tracebackhide__ = kit_frame


class ToolClient:
    """Call the implementation under test.

    ``call(tool, **arguments)`` returns a ToolResult (its ``observation`` parsed on demand);
    ``read(...)``, ``write(...)`` and friends are shortcuts. ``submit`` starts a call without
    waiting (for concurrency and cancellation). ``configure(**settings)`` applies knobs for this
    test only and returns what was applied. ``limit(name)`` is the declared limit or None.
    """

    def __init__(
        self,
        adapter: Adapter,
        manifest: Manifest,
        workspace: Workspace,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.adapter = adapter
        self.manifest = manifest
        self.workspace = workspace
        self.cwd = str(workspace.root)
        self.env = env
        self._restore: dict[str, Any] = {}

    def make_call(
        self,
        tool: str,
        arguments: Any,
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ToolCall:
        return ToolCall(
            tool=tool,
            arguments=dict(arguments) if isinstance(arguments, Mapping) else arguments,
            cwd=cwd or self.cwd,
            env=env if env is not None else self.env,
        )

    def call(
        self,
        tool: str,
        /,
        *,
        _cwd: str | None = None,
        _env: Mapping[str, str] | None = None,
        _timeout: float | None = None,
        **arguments: Any,
    ) -> ToolResult:
        # a test's wait is a quiet machine's: widened by the slowdown measured (harness.clock)
        wait = None if _timeout is None else scaled(_timeout)
        return self.adapter.call(self.make_call(tool, arguments, cwd=_cwd, env=_env), wait)

    def call_raw(
        self, tool: str, arguments: Any, *, cwd: str | None = None, timeout: float | None = None
    ) -> ToolResult:
        """Send arguments exactly as given (even a non-object), for bad-input clauses."""
        wait = None if timeout is None else scaled(timeout)
        return self.adapter.call(self.make_call(tool, arguments, cwd=cwd), wait)

    def submit(
        self,
        tool: str,
        /,
        *,
        _cwd: str | None = None,
        _env: Mapping[str, str] | None = None,
        **arguments: Any,
    ) -> PendingCall:
        return self.adapter.submit(self.make_call(tool, arguments, cwd=_cwd, env=_env))

    def request(self, method: str, /, **params: Any) -> Any:
        """Send an extra protocol method; an adapter that cannot send it fails the test."""
        try:
            return self.adapter.request(method, params)
        except ProtocolError as exc:
            if exc.code == -32601:
                raise AssertionError(
                    f"{self.manifest.name} declares the feature that needs protocol method "
                    f"{method}, but {self.adapter.describe()} does not answer it: {exc}"
                ) from exc
            raise

    def analyze(self, command: str) -> dict[str, Any]:
        """``bash/analyze``: class, reasons, top-level parts and keepalive of a command."""
        answer = self.request("bash/analyze", command=command)
        assert isinstance(answer, dict), f"bash/analyze must answer an object, got {answer!r}"
        return answer

    def read(self, **arguments: Any) -> ToolResult:
        return self.call("read", **arguments)

    def write(self, **arguments: Any) -> ToolResult:
        return self.call("write", **arguments)

    def edit(self, **arguments: Any) -> ToolResult:
        return self.call("edit", **arguments)

    def grep(self, **arguments: Any) -> ToolResult:
        return self.call("grep", **arguments)

    def glob(self, **arguments: Any) -> ToolResult:
        return self.call("glob", **arguments)

    def bash(self, **arguments: Any) -> ToolResult:
        return self.call("bash", **arguments)

    def limit(self, name: str) -> Limit | None:
        """The declared limit, or None: a MUST clause then probes with input beyond any sane cap."""
        return self.manifest.limit(name)

    def can_configure(self, *names: str) -> bool:
        return all(n in self.manifest.settings for n in names)

    def configure(self, **settings: Any) -> dict[str, Any]:
        """Apply the declared settings among ``settings`` for this test; return what applied."""
        wanted = {k: v for k, v in settings.items() if k in self.manifest.settings}
        if not wanted:
            return {}
        for name in wanted:
            declared = self.manifest.limits.get(name)
            if name not in self._restore and declared is not None:
                self._restore[name] = declared.value
        return self.adapter.configure(wanted)

    def restore(self) -> None:
        if self._restore:
            restore, self._restore = self._restore, {}
            self.adapter.configure(restore)
