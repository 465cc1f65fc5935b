"""The tool client the suite calls: canonical calls in, validated ToolResults out.

It is bound to one workspace (its ``cwd``), remembers every ``configure`` it made and undoes them
when the test ends, so one test's knob never leaks into the next.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .adapters.base import Adapter, PendingCall
from .contract import Manifest, ToolCall, ToolResult


class ToolClient:
    """Call the implementation under test.

    ``call(tool, **arguments)`` returns a ToolResult; ``read(...)``, ``write(...)`` and friends
    are shortcuts. ``submit`` starts a call without waiting (for concurrency and cancellation).
    ``configure(**settings)`` applies knobs for this test only and returns what was applied.
    """

    def __init__(
        self, adapter: Adapter, manifest: Manifest, cwd: str, env: Mapping[str, str] | None = None
    ) -> None:
        self.adapter = adapter
        self.manifest = manifest
        self.cwd = cwd
        self.env = env
        self._restore: dict[str, Any] = {}

    def make_call(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        cwd: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> ToolCall:
        return ToolCall(
            tool=tool,
            arguments=dict(arguments),
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
        return self.adapter.call(self.make_call(tool, arguments, cwd=_cwd, env=_env), _timeout)

    def call_raw(self, tool: str, arguments: Any, *, cwd: str | None = None) -> ToolResult:
        """Send arguments exactly as given (even a non-object), for bad-input clauses."""
        call = ToolCall(tool=tool, arguments=arguments, cwd=cwd or self.cwd, env=self.env)
        return self.adapter.call(call)

    def submit(self, tool: str, /, *, _cwd: str | None = None, **arguments: Any) -> PendingCall:
        return self.adapter.submit(self.make_call(tool, arguments, cwd=_cwd))

    def request(self, method: str, /, **params: Any) -> Any:
        """Send an extra protocol method; skip the test when the adapter cannot send one."""
        send = getattr(self.adapter, "request", None)
        if send is None:
            import pytest

            pytest.skip(f"{self.adapter.describe()} cannot send protocol method {method}")
        return send(method, params)

    def analyze(self, command: str) -> dict[str, Any]:
        """``bash/analyze``: class, reasons, top-level parts and keepalive of a command."""
        answer = self.request("bash/analyze", command=command)
        assert isinstance(answer, dict), f"bash/analyze must answer an object, got {answer!r}"
        return answer

    def read(self, **arguments: Any) -> ToolResult:
        return self.call("read", **arguments)

    def write(self, **arguments: Any) -> ToolResult:
        return self.call("write", **arguments)

    def limit(self, name: str) -> Any:
        """The declared limit; a test of an undeclared limit is skipped, as the spec says."""
        if name not in self.manifest.limits:
            import pytest

            pytest.skip(f"limit {name} not declared by {self.manifest.name}")
        return self.manifest.limit(name)

    def can_configure(self, *names: str) -> bool:
        return all(n in self.manifest.settings for n in names)

    def configure(self, **settings: Any) -> dict[str, Any]:
        wanted = {k: v for k, v in settings.items() if k in self.manifest.settings}
        if not wanted:
            return {}
        for name in wanted:
            if name not in self._restore and name in self.manifest.limits:
                self._restore[name] = self.manifest.limits[name]
        return self.adapter.configure(wanted)

    def restore(self) -> None:
        if self._restore:
            restore, self._restore = self._restore, {}
            self.adapter.configure(restore)
