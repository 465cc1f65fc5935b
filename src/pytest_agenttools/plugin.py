"""The pytest11 entry point: wiring only, and cheap to import.

This module loads in every pytest run of an environment where the kit is installed, so it
imports pytest and the standard library only; adapters, the reference, hypothesis and syrupy
load when a test needs them. Each concern lives in its own module, registered here by name.
"""

from __future__ import annotations

import pytest

# pytest marks an installed plugin's whole distribution for assertion rewriting, but not an
# editable install (its finder is invisible to pytest) nor a plugin loaded with -p while
# autoloading is off; the suite's helpers (assertions, client, strategies) need it in every case.
pytest.register_assert_rewrite("pytest_agenttools")

PLUGIN_MODULES = ("pytest_agenttools.run.session", "pytest_agenttools.run.snapshots")
#: the kit's adapter kinds (one table) answer the kit's own hook, as an outside plugin would
ADAPTER_KINDS = "pytest_agenttools.connect.kinds"


def pytest_addoption(parser: pytest.Parser) -> None:
    from pytest_agenttools.run.options import add_options

    add_options(parser)


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    from pytest_agenttools import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


# First, so the session exists before any conftest's own pytest_configure reads it: a suite run
# by path loads its conftest before this hook runs, and pluggy calls later plugins first.
@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    import importlib

    for name in PLUGIN_MODULES:
        config.pluginmanager.import_plugin(name)
    if not config.pluginmanager.has_plugin(ADAPTER_KINDS):
        config.pluginmanager.register(importlib.import_module(ADAPTER_KINDS), ADAPTER_KINDS)
    from pytest_agenttools.harness import markers, tracebacks
    from pytest_agenttools.report.plugin import ReportPlugin
    from pytest_agenttools.run.options import option, read_settings
    from pytest_agenttools.run.selection import Selection
    from pytest_agenttools.run.session import SESSION_KEY, AgentToolsSession

    markers.register(config)
    tracebacks.hide_kit_frames(
        tracebacks.short_tracebacks(config.getoption("tbstyle", "auto"))
        and not config.getoption("fulltrace", False)
    )
    settings = read_settings(config)
    config.stash[SESSION_KEY] = AgentToolsSession(config, settings)
    expectations = None
    if settings.expectations:
        from pytest_agenttools.run.expectations import Expectations

        expectations = Expectations(settings.expectations, settings.strict)
    config.pluginmanager.register(
        Selection(
            config,
            settings.tools,
            settings.features,
            settings.clauses,
            settings.of(option("shard")),
        ),
        "agenttools-selection",
    )
    config.pluginmanager.register(
        ReportPlugin(config, expectations, settings.report), "agenttools-report"
    )
    progress = settings.values.get("progress")
    if progress:
        from pytest_agenttools.report.progress import register

        register(config, float(progress))
    if settings.quick:
        from pytest_agenttools.run.quick import register as register_quick

        register_quick(config)
    from pytest_agenttools.run import stress

    stress.register(config, settings.values.get("stress"))
    if settings.first_failure:
        from pytest_agenttools.run.selection import FirstFailure

        config.pluginmanager.register(FirstFailure(), "agenttools-first-failure")


# tryfirst: the hook takes the first answer, and xdist's own always answers; which plugin
# registered last must not decide (`agenttools run` loads this one before xdist)
@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    from pytest_agenttools.run.parallel import auto_workers

    return auto_workers(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    from pytest_agenttools.run import stress
    from pytest_agenttools.run.session import SESSION_KEY

    session = config.stash.get(SESSION_KEY, None)
    if session is not None:
        session.close()
    stress.stop(config)
