"""The run's one link to the implementation: started on first use, shared by a worker's tests.

Registered as a plugin by ``plugin.py``. It owns the fixtures (``agenttools_workspace``,
``agenttools_client``, ``agenttools_manifest``), decides which tests do not run (a tool the
implementation does not have, an optional feature it does not declare, a golden of another
output profile, a slow clause without ``--agenttools-slow``; never an undeclared limit), and
builds the adapter through the ``pytest_agenttools_make_adapter`` hook.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_agenttools.harness import markers
from pytest_agenttools.harness.workspace import Workspace, make_workspace, remove_workspace
from pytest_agenttools.run.options import Settings
from pytest_agenttools.run.selection import clause_info

if TYPE_CHECKING:
    from pytest_agenttools.connect.base import Adapter
    from pytest_agenttools.harness.client import ToolClient
    from pytest_agenttools.harness.contract import Manifest

SESSION_KEY = pytest.StashKey["AgentToolsSession"]()
NOT_RUN = "not run: "


def load_manifest_file(path: str) -> dict[str, Any]:
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise pytest.UsageError(f"--agenttools-manifest: no such file {path!r}") from None
    except tomllib.TOMLDecodeError as exc:
        raise pytest.UsageError(
            f"--agenttools-manifest={path!r} is not valid TOML: {exc}"
        ) from None


def check_mapping_file(path: str) -> None:
    """An MCP mapping file that cannot be read or is not valid is a usage error that names the
    file and the line (or key), before any test runs, not an error in every test."""
    from pytest_agenttools.connect.base import AdapterError
    from pytest_agenttools.connect.mcp.mapping import load_mapping

    try:
        load_mapping(path)
    except AdapterError as exc:
        raise pytest.UsageError(f"--agenttools-mcp-mapping: {exc}") from None


class AgentToolsSession:
    """Lazily started adapter plus its manifest; the adapter is closed when the run ends."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.manifest_override = (
            load_manifest_file(settings.manifest) if settings.manifest else None
        )
        if settings.mcp_mapping:
            check_mapping_file(settings.mcp_mapping)
        self._adapter: Adapter | None = None
        self._manifest: Manifest | None = None
        self._failure: str | None = None

    @property
    def started(self) -> bool:
        return self._manifest is not None

    def ensure_started(self) -> tuple[Adapter, Manifest]:
        if self._failure:
            pytest.fail(self._failure, pytrace=False)
        if self._adapter is not None and self._manifest is not None:
            return self._adapter, self._manifest
        from pytest_agenttools.connect.base import AdapterError
        from pytest_agenttools.harness.clock import scaled
        from pytest_agenttools.harness.contract import ContractViolation

        target = self.settings.target(self.manifest_override)
        # the call deadline is a quiet machine's; a busy one gets as much more as it is slower
        target = dataclasses.replace(target, call_timeout=scaled(target.call_timeout))
        hook_settings = target.to_settings()
        try:
            adapter = self.config.hook.pytest_agenttools_make_adapter(
                config=self.config, settings=hook_settings
            )
            manifest = adapter.start()
        except (AdapterError, ContractViolation) as exc:
            self._failure = f"agenttools: the implementation could not be started: {exc}"
            pytest.fail(self._failure, pytrace=False)
        self._adapter, self._manifest = adapter, manifest
        return adapter, manifest

    @property
    def adapter(self) -> Adapter:
        return self.ensure_started()[0]

    @property
    def manifest(self) -> Manifest:
        return self.ensure_started()[1]

    def describe(self) -> dict[str, Any]:
        if self._manifest is None or self._adapter is None:
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


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    info = clause_info(item)
    profile = item.get_closest_marker(markers.PROFILE)
    features = info.features if info else tuple(markers.features_of(item))
    if info is None and not features and profile is None:
        return
    session = get_session(item.config)
    if item.get_closest_marker(markers.SLOW) and not session.settings.slow:
        pytest.skip(f"{NOT_RUN}slow clause; run with --agenttools-slow")
    manifest = session.manifest
    clause = info.clause if info is not None else None
    tool_wide = clause is not None and not clause.for_every_implementation
    if clause is not None and tool_wide:
        for tool in (clause.tool, *clause.needs):
            if not manifest.has_tool(tool):
                pytest.skip(f"{NOT_RUN}tool {tool} not declared by {manifest.name}")
    if clause is not None and clause.transports:
        adapter = session.adapter
        transport = getattr(adapter, "transport", None)
        if transport not in clause.transports:
            pytest.skip(
                f"{NOT_RUN}judges what only the {' or '.join(clause.transports)} transport "
                f"carries; {adapter.describe()} speaks {transport or 'another transport'}"
            )
    # an adapter may be unable to run a declared tool safely (an MCP shell server with no way
    # to run commands in the test's workspace): its clauses are not run, with the adapter's reason
    unsafe = getattr(session.adapter, "not_run", {}).get(clause.tool) if clause else None
    if unsafe:
        pytest.skip(f"{NOT_RUN}{unsafe}")
    for name in features:
        if not manifest.has_feature(name):
            pytest.skip(f"{NOT_RUN}optional feature {name} not declared by {manifest.name}")
    if profile is not None and manifest.output_profile != profile.args[0]:
        pytest.skip(
            f"{NOT_RUN}golden output of profile {profile.args[0]}; {manifest.name} declares "
            f"{manifest.output_profile or 'no output profile'}"
        )


@pytest.fixture(scope="session")
def agenttools_manifest(pytestconfig: pytest.Config) -> Manifest:
    """The implementation's manifest (tools, features, dialect, limits), started lazily."""
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
) -> Iterator[ToolClient]:
    """A ToolClient bound to this test's workspace; settings it changed are restored after."""
    from pytest_agenttools.harness.client import ToolClient

    adapter, manifest = get_session(pytestconfig).ensure_started()
    client = ToolClient(adapter, manifest, agenttools_workspace)
    try:
        yield client
    finally:
        client.restore()
