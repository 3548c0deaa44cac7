"""How the CLI starts the TUI: `kubectl gpu tui`, and `kubectl gpu` alone on a terminal (help otherwise);
the global options become its config; `--help` stays light."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from kubectl_gpu.cli import tui as tui_cmd
from kubectl_gpu.tui.config import TuiConfig
from tests.conftest import Result
from tests.tui.conftest import DEMO

Cli = Callable[..., Result]


@pytest.fixture
def launched(monkeypatch: pytest.MonkeyPatch) -> list[TuiConfig]:
    """The configs the TUI would have been started with (it is not started)."""
    seen: list[TuiConfig] = []

    def launch(config: TuiConfig) -> int:
        seen.append(config)
        return 0

    monkeypatch.setattr(tui_cmd, "launch", launch)
    return seen


def test_tui_takes_the_global_options(cli: Cli, launched: list[TuiConfig]) -> None:
    result = cli("tui", "--snapshot", str(DEMO), "--now", "2026-11-29T00:00:00Z", "-n", "ml", "--no-color")
    assert result.code == 0, result.err
    (config,) = launched
    assert config.source.snapshot == (str(DEMO),) and not config.live
    assert config.now == datetime(2026, 11, 29, tzinfo=UTC)
    assert config.namespace == "ml" and config.no_color and config.refresh == 30.0


def test_refresh_and_context(cli: Cli, launched: list[TuiConfig]) -> None:
    assert cli("--context", "prod", "tui", "--refresh", "10s").code == 0
    assert cli("tui", "--refresh", "0").code == 0
    assert [c.refresh for c in launched] == [10.0, None]
    assert launched[0].context == "prod" and launched[0].live


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("tui", "-o", "json"), "-o/--output does not apply to the TUI"),
        (("tui", "--refresh", "soon"), "--refresh: not a duration"),
        (("tui", "--refresh", "0.5"), "--refresh: at least 1s"),
        (("tui", "--now", "yesterday"), "--now"),
    ],
)
def test_bad_options_are_usage_errors(
    cli: Cli, launched: list[TuiConfig], args: tuple[str, ...], message: str
) -> None:
    result = cli(*args)
    assert result.code == 2 and message in result.err and not launched


def test_bare_kubectl_gpu_opens_the_tui_on_a_terminal(
    cli: Cli, launched: list[TuiConfig], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tui_cmd, "stdio_is_terminal", lambda: True)
    result = cli("--snapshot", str(DEMO))
    assert result.code == 0 and len(launched) == 1 and launched[0].source.snapshot == (str(DEMO),)


def test_bare_kubectl_gpu_with_fleet_options_is_a_usage_error(
    cli: Cli, launched: list[TuiConfig], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tui_cmd, "stdio_is_terminal", lambda: True)
    for args in (("--all-contexts",), ("--contexts", "a,b"), ("tui", "--all-contexts")):
        result = cli(*args)
        assert result.code == 2 and "--contexts/--all-contexts" in result.err and not launched


def test_bare_kubectl_gpu_prints_help_when_piped(cli: Cli, launched: list[TuiConfig]) -> None:
    result = cli()
    assert result.code == 0 and "tui" in result.out and "Usage" in result.out and not launched


def test_tui_help_does_not_import_textual() -> None:
    code = (
        "import contextlib, io, sys\n"
        "from kubectl_gpu.cli.app import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['tui', '--help'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'textual'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_launch_deletes_what_the_app_left(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """After the app (also when it raised), every pod still tracked is deleted; what could not be is said."""
    from kubectl_gpu.tui import app as app_module

    class Crashing(app_module.GpuApp):
        def run(self, *args: object, **kwargs: object) -> None:  # type: ignore[override]
            raise RuntimeError("boom")

        def run_cleanup(self) -> list[str]:
            return ["default/gpu-debug-x-abcde: 500"]

    monkeypatch.setattr(app_module, "GpuApp", Crashing)
    with pytest.raises(RuntimeError):
        tui_cmd.launch(TuiConfig())
    assert "could not delete debug pod default/gpu-debug-x-abcde" in capsys.readouterr().err
