"""The table of run options: a new option is one row, and it reaches pytest, its ini twin,
``agenttools run`` and the run's settings without another edit."""

from __future__ import annotations

import pytest

from pytest_agenttools.cli import commands as cli
from pytest_agenttools.cli import runner
from pytest_agenttools.run import options

pytest_plugins = ["pytester"]

TOY = options.Option("toy_flag", "a toy option of one row", run_flag="--toy-flag", metavar="X")


@pytest.fixture
def toy_row(monkeypatch: pytest.MonkeyPatch) -> options.Option:
    monkeypatch.setattr(options, "OPTIONS", (*options.OPTIONS, TOY))
    monkeypatch.setattr(runner, "OPTIONS", options.OPTIONS)
    return TOY


def test_a_new_row_is_a_flag_of_agenttools_run_that_reaches_pytest(
    toy_row: options.Option, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[list[str]] = []

    def fake_run(run: runner.SuiteRun) -> tuple[int, dict[str, object]]:
        seen.append(run.args())
        return 0, {}

    monkeypatch.setattr(runner, "run_in_process", fake_run)
    parsed = cli.build_parser().parse_args(["run", "--toy-flag", "x1", "--tools", "read"])
    assert parsed.toy_flag == "x1"
    cli.main(["run", "--toy-flag", "x1", "--tools", "read"])
    (args,) = seen
    assert args[args.index("--agenttools-toy-flag") + 1] == "x1"
    assert args[args.index("--agenttools-tools") + 1] == "read"


def test_a_new_row_is_read_into_the_settings_from_the_flag_and_the_ini(
    toy_row: options.Option, pytester: pytest.Pytester
) -> None:
    pytester.makeconftest(
        """
        from pytest_agenttools.run.options import read_settings
        def pytest_configure(config):
            config._toy = read_settings(config)
        def pytest_report_header(config):
            from tests_toy import TOY
            return "toy=" + str(config._toy.of(TOY))
        """
    )
    pytester.makepyfile(
        tests_toy="from pytest_agenttools.run.options import option\nTOY = option('toy_flag')\n",
        test_a="def test_a(): pass\n",
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--agenttools-toy-flag=x2")
    result.stdout.fnmatch_lines(["toy=x2"])
    pytester.makeini("[pytest]\nagenttools_toy_flag = x3\n")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(["toy=x3"])


def test_an_unknown_option_name_is_an_error_that_suggests_the_nearest() -> None:
    with pytest.raises(KeyError, match="did you mean 'call_timeout'"):
        options.option("call_timout")
    with pytest.raises(ValueError, match="call_timout"):
        runner.SuiteRun(options={"call_timout": 5})
    with pytest.raises(TypeError, match="call_timout"):
        cli.run_conformance(call_timout=5)


def test_a_row_named_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="'cmd'"):
        options.check_options((*options.OPTIONS, options.OPTIONS[1]))


def test_every_row_with_a_run_flag_is_an_option_of_agenttools_run() -> None:
    parser = cli.build_parser()
    run = parser.parse_args(["run"])
    for row in options.OPTIONS:
        assert hasattr(run, row.name) == bool(row.run_flag), row.name


def test_the_call_timeout_is_a_flag_of_agenttools_run_too() -> None:
    args = runner.SuiteRun.from_options({"call_timeout": 7.5, "impl": "x:y"}).args()
    assert args[args.index("--agenttools-call-timeout") + 1] == "7.5"
    assert args[args.index("--agenttools-impl") + 1] == "x:y"
