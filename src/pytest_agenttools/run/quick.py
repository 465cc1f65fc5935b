"""``--agenttools-quick`` (``agenttools run --quick``): a first verdict on every clause, fast.

A quick run judges every selected clause without the waiting and the repetition:

- a test marked ``agenttools_long`` (it waits out a timeout, a kill grace, a yield window) runs
  only where its clause has no other test: then the shortest such test of the clause runs;
- property tests run the ``quick`` hypothesis profile (``QUICK_EXAMPLES`` examples each, a
  tenth of ``ci``, unshrunk), unless ``--agenttools-hypothesis-profile`` chooses;
- a clause that failed is not judged further (``--agenttools-first-failure``).

Every case of a parametrized test still runs: a case costs a call or two, and a defect often
shows in one case only (a CJK or UTF-16 variant of a size check), so cutting them would pass
clauses that the full run fails. Every test left out is skipped as ``not run in --quick``, so
the report shows what the full run would add. Each clause keeps at least one test, so none goes
unjudged; but a clause judged without its waiting tests or on five examples of a property has
not been shown to hold, so a quick report is provisional: its JSON says
``"quick": true``, and every rendering says it is a quick run and awards no conformance level
(``report.render``). A quick run can therefore never score better than the full one.
"""

from __future__ import annotations

from collections.abc import Generator

import pytest

from pytest_agenttools.harness import markers
from pytest_agenttools.run.selection import clause_info

#: the plugin's name
QUICK_PLUGIN = "agenttools-quick"
#: the reason every test that a quick run leaves out is skipped with
NOT_RUN_QUICK = "not run in --quick"
#: examples per property test of the ``quick`` hypothesis profile
QUICK_EXAMPLES = 5


def quick_choice(items: list[pytest.Item]) -> dict[str, str]:
    """The tests a quick run leaves out, by node id, each with why: a test that waits
    (``agenttools_long``) where its clause has one that does not; where all its tests wait, the
    shortest stays. Tests that name no clause are kept; every clause keeps at least one test."""
    by_clause: dict[str, list[pytest.Item]] = {}
    for item in items:
        info = clause_info(item)
        if info is not None:
            by_clause.setdefault(info.clause.id, []).append(item)
    left_out: dict[str, str] = {}
    for clause_id, firsts in by_clause.items():
        short = [item for item in firsts if not markers.seconds_of(item)]
        if short:
            waiting = [item for item in firsts if markers.seconds_of(item)]
        else:  # only tests that wait: the shortest of them judges the clause
            keep = min(firsts, key=markers.seconds_of)
            waiting = [item for item in firsts if item is not keep]
        for item in waiting:
            left_out[item.nodeid] = (
                f"{NOT_RUN_QUICK}: it waits about {markers.seconds_of(item):g} s (a timeout or "
                f"grace); {clause_id} has a shorter test; the full run judges it"
            )
    return left_out


class Quick:
    """Marks the tests a quick run leaves out as skipped, after every other plugin has chosen
    and ordered the tests (so only the chosen ones count)."""

    @pytest.hookimpl(wrapper=True)
    def pytest_collection_modifyitems(
        self, items: list[pytest.Item]
    ) -> Generator[None, None, None]:
        yield
        left_out = quick_choice(items)
        for item in items:
            reason = left_out.get(item.nodeid)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))


def register(config: pytest.Config) -> None:
    config.pluginmanager.register(Quick(), QUICK_PLUGIN)
