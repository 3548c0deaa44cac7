"""`kubectl gpu tui` (and `kubectl gpu` alone, on a terminal): the terminal UI over the same analyses.

Textual is imported only when the TUI starts, so `kubectl gpu --help` and every other command stay light
(tests/test_import_hygiene.py). typer is imported only to register the command: a plain `tui` command line
starts without it (cli.direct). The TUI gets its settings as a `TuiConfig` and never imports the CLI.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import msgspec

from kubectl_gpu.cli.global_options import GlobalOptions
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:
    import typer

    from kubectl_gpu.tui.config import TuiConfig, TuiSettings

__all__ = ["DEFAULT_REFRESH", "launch", "register", "tui_config"]

DEFAULT_REFRESH = "30s"


def _refresh_seconds(text: str) -> float | None:
    """`--refresh 10s` -> 10.0; `0` or `off`: only on `r`."""
    from kubectl_gpu.cli.durations import parse_seconds

    if text.strip().lower() in ("0", "0s", "off", "never", "none"):
        return None
    seconds = parse_seconds(text, "--refresh")
    if seconds < 1:
        raise InvalidInput("--refresh: at least 1s", "use 0 or off to refresh only on r")
    return seconds


def _settings(readonly: bool) -> TuiSettings:
    """The config file's `tui:` settings; --readonly (or a top-level readonly: true) wins over
    `tui: {readonly: false}`."""
    from kubectl_gpu.kube.debug.setup import config_path, read_config
    from kubectl_gpu.tui.config import tui_settings

    path = config_path()
    try:
        settings = tui_settings(read_config(path), str(path))
    except ValueError as exc:
        raise InvalidInput(str(exc), "e.g. tui: {readonly: true, confirm: true}") from None
    from kubectl_gpu.cli.readonly import config_readonly

    readonly = readonly or config_readonly()  # the CLI's readonly: true covers the TUI too
    return msgspec.structs.replace(settings, readonly=True) if readonly else settings


def tui_config(
    opts: GlobalOptions, refresh: str = DEFAULT_REFRESH, theme: str | None = None, readonly: bool = False
) -> TuiConfig:
    """The global options as the TUI takes them: the same source (-n, -l on nodes, --snapshot, --context,
    --kubeconfig, --request-timeout), the --now instant, the refresh interval; the config file's `tui:`
    settings (read-only, ask before a debug pod)."""
    from kubectl_gpu.cli.run import source_options
    from kubectl_gpu.tui.config import TuiConfig

    if opts.output is not None:
        raise InvalidInput(
            "-o/--output does not apply to the TUI", "run a command (kubectl gpu nodes -o json)"
        )
    if opts.fleet:  # `kubectl gpu --all-contexts` on a terminal: not silently one cluster
        raise InvalidInput(
            "--contexts/--all-contexts do not apply to the TUI",
            "start it and type :ctx for the fleet overview",
        )
    now = opts.now_or(None) if opts.now is not None else None
    settings = _settings(readonly)
    return TuiConfig(
        source=source_options(opts, "nodes"),
        now=now,
        refresh=_refresh_seconds(refresh),
        no_color=opts.no_color,
        theme=theme,
        readonly=settings.readonly,
        confirm=settings.confirm,
    )


def launch(config: TuiConfig) -> int:
    """Run the app until it quits; then delete any debug pod it still tracks (also after a crash, and on
    SIGTERM or SIGHUP, raised as KeyboardInterrupt so that this cleanup runs)."""
    from kubectl_gpu.cli.say import say
    from kubectl_gpu.kube.debug.runner import interrupts_on_sigterm
    from kubectl_gpu.tui.app import GpuApp

    app = GpuApp(config)
    try:
        with interrupts_on_sigterm():
            app.run()
    finally:
        app.ended()  # after a hang-up, the last resort stands aside: this cleanup is the one that runs
        for left in app.run_cleanup():
            say(f"warning: could not delete debug pod {left}; run kubectl gpu cleanup")
    return app.return_code or 0


def stdio_is_terminal() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def tui(
    refresh: Annotated[
        str,
        typer.Option("--refresh", help="Live: read the cluster again this often (10s, 1m; 0 = only on r)."),
    ] = DEFAULT_REFRESH,
    theme: Annotated[
        str | None,
        typer.Option(
            "--theme", help="A Textual theme (default: the terminal's background, else textual-dark)."
        ),
    ] = None,
    readonly: Annotated[
        bool,
        typer.Option(
            "--readonly",
            help="No key creates a pod (s and x are off; also tui: {readonly: true} in the config).",
        ),
    ] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """The terminal UI: the fleet, Pending pods and their fix, findings, drivers, NVMe, lifecycle and cost in
    one screen; nvidia-smi and a shell on any node. Live (refreshing) or on a --snapshot. Keys: ?"""
    return launch(tui_config(opts, refresh, theme, readonly))


def register(app: typer.Typer) -> None:
    from kubectl_gpu.cli.options import with_global_options

    app.command("tui")(with_global_options(tui))
