"""bash environment: what the child process sees (checked by running ``env``).

The names come from the spec's data tables (``bash.env_*``, docs/spec.md), and properties draw
more of them, so the suite never trusts an implementation's own lists.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pytest_agenttools import ToolClient, Workspace
from pytest_agenttools.conformance.bash_strategies import drain, parse_env, task_id_of
from pytest_agenttools.conformance.strategies import examples
from pytest_agenttools.harness.assertions import (
    bash_obs,
    expect_error,
    expect_ok,
    precondition,
)
from pytest_agenttools.harness.markers import clause, feature
from pytest_agenttools.spec.clauses import load

MODE = "AGENTTOOLS_BASH_ENV_SANITIZE"
ALLOW = "AGENTTOOLS_BASH_ENV_ALLOW"
SPEC = load()
LAYER_A_KEPT = [
    n for n, rule in SPEC.table("bash.env_layer_a").rows if rule == "kept" and "*" not in n
]
FALSE_WORDS = SPEC.table("bash.env_false_words").column("value")
SCRUBBED = SPEC.table("bash.env_scrub").column("name")
SCRUB_KEPT = SPEC.table("bash.env_scrub_kept").column("name")
STRICT = re.compile(SPEC.table("bash.env_strict").column("pattern")[0], re.IGNORECASE)
PROTECTED = SPEC.table("bash.env_protected").column("name")
KEYWORDS = ["API_KEY", "APIKEY", "KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"]
KEYWORDS += ["CREDENTIALS", "PRIVATE_KEY", "PRIVATEKEY"]

words = st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", min_size=1, max_size=8)


def base_env(ws: Workspace) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(ws.root),
        "LANG": "C.UTF-8",
    }


def child_env(
    tools: ToolClient, env: dict[str, str], cwd: str | None = None
) -> tuple[dict[str, str], Any]:
    result = expect_ok(tools.call("bash", command="env", _env=env, _cwd=cwd))
    return parse_env(bash_obs(result).output), result


def secret(name: str) -> str:
    return f"value-of-{name.lower()}-s3cr3t"


@st.composite
def own_names(draw: st.DrawFn) -> list[str]:
    """Names of the implementation's namespace that layer A removes."""
    names = draw(st.lists(words.map(lambda w: f"AGENTTOOLS_{w}"), min_size=1, max_size=8))
    return [n for n in dict.fromkeys(names) if n not in LAYER_A_KEPT]


@clause("BASH-ENV-01")
@settings(max_examples=examples(10))
@given(names=own_names(), mode=st.sampled_from(["off", "scrub", "strict"]))
def test_layer_a_always(tools: ToolClient, ws: Workspace, names: list[str], mode: str) -> None:
    env = {**base_env(ws), MODE: mode, ALLOW: "", **{n: secret(n) for n in names}}
    seen, _ = child_env(tools, env)
    leaked = [n for n in names if n in seen]
    assert not leaked, f"layer A let the implementation's own names through in {mode}: {leaked}"
    kept = [n for n in LAYER_A_KEPT if n in env and n not in seen]
    assert not kept, f"layer A must keep {kept}"
    assert seen.get(MODE) == mode


def _precedence() -> list[tuple[dict[str, str], str]]:
    cases: list[tuple[dict[str, str], str]] = [({}, "off")]
    for word in FALSE_WORDS:
        cases += [({"CI": word}, "off"), ({"GITHUB_ACTIONS": word.upper()}, "off")]
    for word in ("true", "1", "yes", "anything"):
        cases += [({"CI": word}, "scrub"), ({"GITHUB_ACTIONS": word}, "scrub")]
    cases += [
        ({"CI": "true", MODE: "off"}, "off"),
        ({"CI": "true", MODE: "STRICT"}, "strict"),
        ({MODE: "scrub"}, "scrub"),
        ({MODE: " strict "}, "strict"),
        ({"GITHUB_ACTIONS": "true", MODE: "Off"}, "off"),
    ]
    return cases


PRECEDENCE = _precedence()


@clause("BASH-ENV-02")
@pytest.mark.parametrize(
    ("extra", "mode"), PRECEDENCE, ids=[f"{sorted(e.items())}->{m}" for e, m in PRECEDENCE]
)
def test_mode_precedence(
    tools: ToolClient, ws: Workspace, extra: dict[str, str], mode: str
) -> None:
    env = {**base_env(ws), **extra, "OPENAI_API_KEY": "k1", "MY_SERVICE_TOKEN": "k2"}
    seen, _ = child_env(tools, env)
    observed = (
        "off" if "OPENAI_API_KEY" in seen else "scrub" if "MY_SERVICE_TOKEN" in seen else "strict"
    )
    assert observed == mode, f"with {extra} the child saw mode {observed}, expected {mode}"


@clause("BASH-ENV-07")
@pytest.mark.parametrize("value", ["strikt", "scurb", "none", "on", "paranoid"])
def test_misspelt_mode_refuses(tools: ToolClient, ws: Workspace, value: str) -> None:
    env = {**base_env(ws), MODE: value, "CI": "true", "OPENAI_API_KEY": "k1"}
    result = tools.call("bash", command="touch ran; env", _env=env)
    what = f"{MODE}={value!r}"
    expect_error(result, what=f"a command under {what}")
    obs = bash_obs(result)
    assert not obs.running and obs.exit_code is None, (
        f"{what}: a refused command's observation must say that nothing ran: {dict(obs.raw)}"
    )
    assert not ws.exists("ran"), f"{what}: the command was refused but ran anyway"
    assert MODE in result.text and value in result.text, (
        f"the error must give the variable and its value {value!r}: {result.text[:300]!r}"
    )


@clause("BASH-ENV-03")
def test_scrub_list(tools: ToolClient, ws: Workspace) -> None:
    names = [*SCRUBBED, *(f"INPUT_{n}" for n in SCRUBBED)]
    unlisted = ["MY_SERVICE_TOKEN", "DATABASE_URL", "SOME_API_KEY"]
    env = {
        **base_env(ws),
        MODE: "scrub",
        **{n: secret(n) for n in [*names, *SCRUB_KEPT, *unlisted]},
    }
    seen, _ = child_env(tools, env)
    leaked = [n for n in names if n in seen]
    assert not leaked, f"scrub passed these through: {leaked}"
    lost = [n for n in [*SCRUB_KEPT, *unlisted] if seen.get(n) != secret(n)]
    assert not lost, f"scrub must keep {lost}"


@st.composite
def credential_names(draw: st.DrawFn) -> str:
    """A name the strict pattern matches: a keyword at a word boundary, any case."""
    keyword = draw(st.sampled_from(KEYWORDS)) + draw(st.sampled_from(["", "S"]))
    before = draw(st.sampled_from(["", *(f"{w}_" for w in draw(st.lists(words, max_size=2)))]))
    after = draw(st.sampled_from(["", *(f"_{w}" for w in draw(st.lists(words, max_size=2)))]))
    name = before + keyword + after
    return draw(st.sampled_from([name, name.lower(), name.title()]))


plain_names = words.map(lambda w: f"X{w}").filter(lambda n: not STRICT.search(n))
protected_names = st.sampled_from(PROTECTED).flatmap(
    lambda n: words.map(lambda w: f"LC_{w}") if n == "LC_*" else st.just(n)
)


def is_protected(name: str) -> bool:
    """The protected table's rule: a listed name, or one under a listed ``PREFIX*``, any case."""
    upper = name.upper()
    return any(upper.startswith(p[:-1]) if p.endswith("*") else upper == p for p in PROTECTED)


@clause("BASH-ENV-04")
@settings(max_examples=examples(10))
@example(removed=["LC_KEY", "Path_Token"], kept=[], protected=["HOME"])
@given(
    removed=st.lists(credential_names(), min_size=1, max_size=8),
    kept=st.lists(plain_names, max_size=6),
    protected=st.lists(protected_names, min_size=1, max_size=4),
)
def test_strict_pattern(
    tools: ToolClient, ws: Workspace, removed: list[str], kept: list[str], protected: list[str]
) -> None:
    # a drawn credential name that the protected table covers (``LC_KEY`` under ``LC_*``) is
    # kept by the spec, whether or not this example drew it as protected
    removed = [n for n in dict.fromkeys(removed) if not is_protected(n)]
    env = {**base_env(ws), MODE: "strict"}
    env.update({n: secret(n) for n in [*removed, *kept, *SCRUBBED[:3], *SCRUB_KEPT]})
    env.update({n: env.get(n, f"system-{n.lower()}") for n in protected})
    seen, _ = child_env(tools, env)
    for name in removed:  # the draw matches the table's pattern by construction
        assert STRICT.search(name), f"strategy error: {name} does not match"
    leaked = [n for n in [*removed, *SCRUBBED[:3], *SCRUB_KEPT] if n in seen]
    assert not leaked, f"strict passed these through: {leaked}"
    lost = [n for n in [*kept, *protected, "HOME", "LANG", "PATH"] if n not in seen]
    assert not lost, f"strict must keep {lost}"


@clause("BASH-ENV-04")
def test_strict_allowlist(tools: ToolClient, ws: Workspace) -> None:
    env = {
        **base_env(ws),
        MODE: "strict",
        ALLOW: "my_api_key, Db_Password",
        "MY_API_KEY": "a",
        "db_password": "b",
        "OTHER_TOKEN": "c",
    }
    seen, _ = child_env(tools, env)
    assert seen.get("MY_API_KEY") == "a" and seen.get("db_password") == "b", sorted(seen)
    assert "OTHER_TOKEN" not in seen


def _sanitised_env(ws: Workspace, mode: str) -> tuple[dict[str, str], list[str]]:
    names = ["OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "INPUT_FIGMA_TOKEN", "MY_DB_PASSWORD"]
    env = {
        **base_env(ws),
        MODE: mode,
        "AGENTTOOLS_SESSION_ID": "x",
        **{n: secret(n) for n in names},
    }
    return env, names


def _fresh(mode: str) -> dict[str, str]:
    """Names no earlier command of the session can have had removed: a layer A name in every
    mode, and in strict mode a credential-like one too; with their values."""
    tag = uuid.uuid4().hex.upper()
    names = [f"AGENTTOOLS_FRESH_{tag}"] + ([f"AGT{tag}_TOKEN"] if mode == "strict" else [])
    return {n: secret(n) for n in names}


def _removed(env: dict[str, str], seen: dict[str, str], fresh: dict[str, str]) -> set[str]:
    """The names the command lost; the fresh ones must be among them (their removal is another
    clause's rule: BASH-ENV-01 for the implementation's own names, BASH-ENV-04 for strict)."""
    removed = {n for n in env if n not in seen}
    for name in fresh:
        owner = "BASH-ENV-01" if name.startswith("AGENTTOOLS_") else "BASH-ENV-04"
        with precondition(owner, f"{name} is removed"):
            assert name in removed, f"{name} reached the command"
    return removed


def _expect_reported(
    reports: list[list[str]], removed: set[str], first_time: set[str], what: str
) -> None:
    """Every name removed for the first time in the session is reported; each report holds
    only removed names, each once (a name removed before may be repeated or left out)."""
    for report in reports:
        assert len(report) == len(set(report)), f"{what}: a name reported twice: {report}"
        assert set(report) <= removed, f"{what}: reported names that were not removed: {report}"
    missing = sorted(first_time - {n for r in reports for n in r})
    assert not missing, (
        f"{what}: {missing} were removed for the first time in this session but not reported "
        f"in env_removed; reported: {reports}"
    )


def _expect_no_value(results: list[Any], env: dict[str, str], removed: set[str]) -> None:
    wire = "".join(r.text + json.dumps(dict(r.details)) for r in results)
    leaked = [n for n in removed if env[n].startswith("value-of-") and env[n] in wire]
    assert not leaked, f"the removed value of {sorted(leaked)} appears in a result"


@clause("BASH-ENV-06")
@pytest.mark.parametrize("mode", ["scrub", "strict"])
def test_removed_names_reported(tools: ToolClient, ws: Workspace, mode: str) -> None:
    env, _ = _sanitised_env(ws, mode)
    first = _fresh(mode)
    env = {**env, **first}
    seen, result = child_env(tools, env)
    removed = _removed(env, seen, first)
    reported = bash_obs(result).env_removed
    _expect_reported([list(reported or ())], removed, set(first), "a first command")
    _expect_no_value([result], env, removed)
    # the same names again, and new ones: the new ones are reported, the others may be
    second = _fresh(mode)
    env = {**env, **second}
    seen, again = child_env(tools, env)
    removed = _removed(env, seen, second)
    reported = bash_obs(again).env_removed
    _expect_reported([list(reported or ())], removed, set(second), "a second command")
    _expect_no_value([again], env, removed)


@clause("BASH-ENV-06")
@feature("bash.background")
def test_removed_names_reported_for_a_task(tools: ToolClient, ws: Workspace) -> None:
    env, _ = _sanitised_env(ws, "strict")
    first = _fresh("strict")
    env = {**env, **first}
    started = tools.call("bash", command="env > task-env", run_in_background=True, _env=env)
    _, polls = drain(tools, task_id_of(started))
    seen = parse_env(ws.get("task-env").decode())
    removed = _removed(env, seen, first)
    results = [started, *polls]
    observed = [bash_obs(r) for r in results]
    reports = [list(o.env_removed) for o in observed if o.env_removed is not None]
    _expect_reported(reports, removed, set(first), "a background task")
    _expect_no_value(results, env, removed)


@clause("BASH-BG-04")
@pytest.mark.parametrize("mode", ["scrub", "strict"])
def test_background_env_sanitised(tools: ToolClient, ws: Workspace, mode: str) -> None:
    env, _ = _sanitised_env(ws, mode)
    expect_ok(tools.call("bash", command="env > fg-env", _env=env))
    task_id = task_id_of(
        tools.call("bash", command="env > bg-env", run_in_background=True, _env=env)
    )
    drain(tools, task_id)
    foreground = set(parse_env(ws.get("fg-env").decode()))
    background = set(parse_env(ws.get("bg-env").decode()))
    assert background == foreground, (
        f"a background task saw {sorted(background - foreground)} that a foreground command "
        f"does not (and lacks {sorted(foreground - background)})"
    )
