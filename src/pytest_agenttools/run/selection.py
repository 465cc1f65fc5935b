"""Each test's clause, resolved once at collection; choosing part of the suite by tool, tag or
clause.

The spec is loaded once per session (``spec_of``). Every conformance item gets a ``ClauseInfo``
in its stash, its clause id in its ``user_properties`` (so the report on an xdist controller
sees it), and its tool and tags (manifest features and topic tags such as ``bom``) as markers,
so ``-m "edit and crlf"`` works. Session gating, expectations and the report read what this
module stored; none of them looks a clause up again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from pytest_agenttools.harness import markers
from pytest_agenttools.run.shard import Shard, deal
from pytest_agenttools.spec.clauses import Clause, Spec

SAFE = re.compile(r"[^A-Za-z0-9_]")
CLAUSE_PROPERTY = "agenttools_clause"
SPEC_KEY = pytest.StashKey["Spec"]()
CLAUSE_KEY = pytest.StashKey["ClauseInfo"]()


@dataclass(frozen=True)
class ClauseInfo:
    """What gating and reporting need to know about one test, worked out once."""

    clause: Clause
    features: tuple[str, ...]
    tags: frozenset[str]

    @property
    def tool(self) -> str:
        return self.clause.tool


def spec_of(config: pytest.Config) -> Spec:
    """The spec, parsed at most once per session."""
    spec = config.stash.get(SPEC_KEY, None)
    if spec is None:
        from pytest_agenttools.spec.clauses import load

        spec = config.stash[SPEC_KEY] = load()
    return spec


def clause_info(item: pytest.Item) -> ClauseInfo | None:
    return item.stash.get(CLAUSE_KEY, None)


def marker_name(tag: str) -> str:
    """``read.pdf`` -> ``read_pdf``: a marker name usable in ``-m`` expressions."""
    return SAFE.sub("_", tag)


def split_list(value: str | None) -> set[str]:
    return {part.strip() for part in (value or "").split(",") if part.strip()}


def unknown_clauses(spec: Spec, chosen: set[str]) -> str | None:
    """What is wrong with a clause selection (ids the spec does not know), or None."""
    import difflib

    known = spec.by_id()
    unknown = sorted(chosen - set(known))
    if not unknown:
        return None
    hints = []
    for ident in unknown:
        close = difflib.get_close_matches(ident, list(known), n=1)
        hints.append(f"{ident} (did you mean {close[0]}?)" if close else ident)
    return f"unknown clause id(s) {', '.join(hints)}; `agenttools clauses` lists them"


class Selection:
    def __init__(
        self,
        config: pytest.Config,
        tools: str | None,
        features: str | None,
        clauses: str | None = None,
        shard: str | None = None,
    ) -> None:
        self.config = config
        self.shard = Shard.parse(shard) if shard else None
        self.tools = split_list(tools)
        self.features = split_list(features)
        self.clauses = split_list(clauses)
        self.registered: set[str] = set()
        if self.clauses:
            problem = unknown_clauses(spec_of(config), self.clauses)
            if problem:
                raise pytest.UsageError(f"--agenttools-clauses: {problem}")

    def _register(self, name: str) -> None:
        if name not in self.registered:
            self.registered.add(name)
            self.config.addinivalue_line("markers", f"{name}: agenttools tool or feature tag")

    @pytest.hookimpl(tryfirst=True)  # before -m: the markers must be there
    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        marked = [(item, markers.clause_of(item)) for item in items]
        if not any(ident for _, ident in marked):
            return
        spec = spec_of(config).by_id()
        for item, ident in marked:
            clause = spec.get(ident or "")
            if clause is None:
                continue
            features = tuple(dict.fromkeys((*clause.features, *markers.features_of(item))))
            tags = frozenset({*features, *clause.tags})
            item.stash[CLAUSE_KEY] = ClauseInfo(clause, features, tags)
            item.user_properties.append((CLAUSE_PROPERTY, clause.id))
            for name in {clause.tool, *tags}:
                self._register(marker_name(name))
                item.add_marker(marker_name(name))

    # (a second implementation of the hook: pytest reads only names that start with pytest_)
    @pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
    def pytest_deselect_unchosen(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Keep the chosen tools', tags' and clauses' tests. This runs after syrupy has seen
        every collected test, so it counts the goldens of the tests left out as not selected
        (not as unused goldens to delete). A clause selection keeps only tests of those clauses;
        a tool or tag selection also keeps tests that name no clause."""
        if self.tools or self.features or self.clauses:
            self._keep_chosen(config, items)
        if self.shard is not None:
            self._keep_shard(config, items, self.shard)

    def _keep_chosen(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            info = clause_info(item)
            if info is None:
                wanted = not self.clauses
            else:
                wanted = (
                    (not self.tools or info.tool in self.tools)
                    and (not self.features or bool(info.tags & self.features))
                    and (not self.clauses or info.clause.id in self.clauses)
                )
            (keep if wanted else drop).append(item)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    @staticmethod
    def _keep_shard(config: pytest.Config, items: list[pytest.Item], shard: Shard) -> None:
        """Keep this shard's part of what the selection left (``run.shard``)."""
        shards = deal(items, shard.count, shard_group, shard_weight)
        keep = shards[shard.index - 1]
        kept = {id(item) for item in keep}
        drop = [item for item in items if id(item) not in kept]
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    @pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
    def pytest_spread_long_tests(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Tests marked ``agenttools_long`` are spread evenly through the run, longest first;
        the rest keep their order. A run with no marked test is left as it is.

        Most of a long test is waiting (a timeout, a kill grace). xdist hands each worker a run
        of consecutive tests (``load``: chunks from the front; ``worksteal``: a share each), so
        long tests placed together would queue up on one worker and keep the run open alone;
        spread out, each worker gets its share, the longest at the front of the first one.
        """
        spread_long_tests(items)


def shard_group(item: pytest.Item) -> str:
    """A test's unit of the split: its clause, else its module."""
    info = clause_info(item)
    return f"clause:{info.clause.id}" if info else "module:" + item.nodeid.split("::", 1)[0]


def shard_weight(item: pytest.Item) -> float:
    return 1.0 + markers.seconds_of(item)


def spread_long_tests(items: list[pytest.Item]) -> None:
    """Put the marked tests at evenly spaced places, longest first, starting at the front."""
    seconds = {id(item): markers.seconds_of(item) for item in items}
    long = sorted((item for item in items if seconds[id(item)]), key=lambda i: -seconds[id(i)])
    if not long:
        return
    rest = [item for item in items if not seconds[id(item)]]
    stride = len(items) / len(long)
    places = {round(k * stride): item for k, item in enumerate(long)}
    ordered: list[pytest.Item] = []
    others = iter(rest)
    for index in range(len(items)):
        ordered.append(places[index] if index in places else next(others))
    items[:] = ordered


class FirstFailure:
    """``--agenttools-first-failure``: once a clause has failed, its later tests are skipped.

    A clause's verdict is failed from its first failure on (``report.clause_verdict``), so a run
    that wants only verdicts (a broken implementation's, which must fail its clauses) need not
    wait through the rest of that clause's tests: a quarter of the self-check's test time was
    spent so. Each xdist worker judges its own tests; an expected failure (xfail) is no failure.
    """

    def __init__(self) -> None:
        self.failed: set[str] = set()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        info = clause_info(item)
        if info is not None and info.clause.id in self.failed:
            pytest.skip(f"not run: {info.clause.id} already failed in this run (first failure)")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed and not hasattr(report, "wasxfail"):
            ident = dict(report.user_properties).get(CLAUSE_PROPERTY)
            if isinstance(ident, str):
                self.failed.add(ident)
