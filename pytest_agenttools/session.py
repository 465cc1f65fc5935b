"""The run's one link to the implementation: started on first use, shared by a worker's tests.

Registered as a plugin by ``plugin.py``. It owns the fixtures (``agenttools_workspace``,
``agenttools_client``, ``agenttools_manifest``), skips tests whose tool or feature the
implementation does not declare, and builds the adapter through the
``pytest_agenttools_make_adapter`` hook.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from . import markers
from .options import Settings
from .workspace import Workspace, make_workspace, remove_workspace

REFERENCE_FACTORY = "pytest_agenttools.reference_impl:create"
SESSION_KEY = pytest.StashKey["AgentToolsSession"]()


def load_manifest_file(path: str) -> dict[str, Any]:
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise pytest.UsageError(f"--agenttools-manifest: no such file {path!r}") from None
    except tomllib.TOMLDecodeError as exc:
        raise pytest.UsageError(
            f"--agenttools-manifest={path!r} is not valid TOML: {exc}"
        ) from None


class AgentToolsSession:
    """Lazily started adapter plus its manifest; the adapter is closed when the run ends."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.manifest_override = (
            load_manifest_file(settings.manifest) if settings.manifest else None
        )
        self._adapter: Any = None
        self._manifest: Any = None
        self._failure: str | None = None

    @property
    def started(self) -> bool:
        return self._manifest is not None

    def ensure_started(self) -> None:
        if self._failure:
            pytest.fail(self._failure, pytrace=False)
        if self._manifest is not None:
            return
        from .adapters.base import AdapterError
        from .contract import ContractViolation

        hook_settings = {
            "impl": self.settings.impl,
            "cmd": self.settings.cmd,
            "mcp": self.settings.mcp,
            "mcp_mapping": self.settings.mcp_mapping,
            "manifest": self.manifest_override,
            "call_timeout": self.settings.call_timeout,
        }
        try:
            adapter = self.config.hook.pytest_agenttools_make_adapter(
                config=self.config, settings=hook_settings
            )
            manifest = adapter.start()
        except (AdapterError, ContractViolation) as exc:
            self._failure = f"agenttools: the implementation could not be started: {exc}"
            pytest.fail(self._failure, pytrace=False)
        self._adapter, self._manifest = adapter, manifest

    @property
    def adapter(self) -> Any:
        self.ensure_started()
        return self._adapter

    @property
    def manifest(self) -> Any:
        self.ensure_started()
        return self._manifest

    def describe(self) -> dict[str, Any]:
        if self._manifest is None:
            return {}
        return {
            "name": self._manifest.name,
            "version": self._manifest.version,
            "spec_version": self._manifest.spec_version,
            "adapter": self._adapter.describe(),
            "manifest": self._manifest.to_wire(),
        }

    def close(self) -> None:
        if self._adapter is not None:
            self._adapter.close()
            self._adapter = None


def get_session(config: pytest.Config) -> AgentToolsSession:
    return config.stash[SESSION_KEY]


@pytest.hookimpl(trylast=True)
def pytest_agenttools_make_adapter(config: pytest.Config, settings: dict[str, Any]) -> Any:
    if settings.get("mcp"):
        from .adapters.mcp import McpAdapter

        return McpAdapter(
            settings["mcp"],
            settings["mcp_mapping"],
            settings["manifest"],
            settings["call_timeout"],
        )
    if settings["cmd"]:
        from .adapters.stdio import StdioAdapter

        return StdioAdapter(settings["cmd"], settings["manifest"], settings["call_timeout"])
    from .adapters.inprocess import InProcessAdapter

    return InProcessAdapter(settings["impl"] or REFERENCE_FACTORY, settings["manifest"])


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    clause_id = markers.clause_of(item)
    features = markers.features_of(item)
    profile = item.get_closest_marker(markers.PROFILE)
    if clause_id is None and not features and profile is None:
        return
    session = get_session(item.config)
    if item.get_closest_marker(markers.SLOW) and not session.settings.slow:
        pytest.skip("slow clause; run with --agenttools-slow")
    manifest = session.manifest
    if clause_id is not None:
        from .clauses import load

        clause = load().by_id().get(clause_id)
        if clause is not None:
            if not manifest.has_tool(clause.tool):
                pytest.skip(f"tool {clause.tool} not declared by {manifest.name}")
            features = [*clause.features, *features]
    for name in features:
        if not manifest.has_feature(name):
            pytest.skip(f"feature {name} not declared by {manifest.name}")
    if profile is not None and manifest.output_profile != profile.args[0]:
        pytest.skip(
            f"golden output of profile {profile.args[0]}; {manifest.name} declares "
            f"{manifest.output_profile or 'no output profile'}"
        )


@pytest.fixture(scope="session")
def agenttools_manifest(pytestconfig: pytest.Config) -> Any:
    """The implementation's manifest (tools, features, output facts, limits), started lazily."""
    return get_session(pytestconfig).manifest


@pytest.fixture
def agenttools_workspace() -> Iterator[Workspace]:
    """A fresh, empty directory for one test: the implementation's ``cwd``; removed afterwards."""
    workspace = make_workspace()
    try:
        yield workspace
    finally:
        remove_workspace(workspace)


@pytest.fixture
def agenttools_client(
    pytestconfig: pytest.Config, agenttools_workspace: Workspace
) -> Iterator[Any]:
    """A ToolClient bound to this test's workspace; settings it changed are restored after."""
    from .client import ToolClient

    session = get_session(pytestconfig)
    client = ToolClient(session.adapter, session.manifest, str(agenttools_workspace.root))
    try:
        yield client
    finally:
        client.restore()
