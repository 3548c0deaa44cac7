"""The `kubectl-gpu` command line: typer app, global options, error handling and exit codes.

A run builds the root's options and only the command it names (`COMMAND_MODULES`: a command's module is
imported when the command is first read, so `nodes` never imports the debug pods' or the TUI's); `app`, the
typer app with every command (help_render, completion_spec, the tests), is built on first use."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, MutableMapping
from typing import Annotated, Any

import typer
import typer.core
from typer._click.exceptions import ClickException
from typer._click.utils import PacifyFlushWrapper

from kubectl_gpu import __version__
from kubectl_gpu.cli.bool_flags import normalise
from kubectl_gpu.cli.exits import (
    debug_requested,
    debug_requests,
    error,
    exit_code_of,
    finish,
    say_interrupted,
)
from kubectl_gpu.cli.help_style import KubectlCommand, KubectlGroup
from kubectl_gpu.cli.options import collect, global_parameters
from kubectl_gpu.cli.prog import program_name
from kubectl_gpu.core.errors import ExitCode

__all__ = ["COMMAND_MODULES", "app", "main"]

#: Each module under kubectl_gpu.cli with a `register(app)`, and the commands it registers, in the order
#: of the help's list. A run imports and builds only the command it runs (`_LazyCommands`); `app`, every
#: command (help_render, completion_spec, tests), is built on first use (tests/cli/test_app_lazy.py holds
#: this table to what the modules register).
COMMAND_MODULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("nodes", ("nodes",)),
    ("pools", ("pools",)),
    ("pending", ("pending", "explain")),
    ("diagnose", ("diagnose",)),
    ("simulate", ("simulate",)),
    ("snapshot", ("snapshot",)),
    ("cost", ("cost",)),
    ("usage", ("usage",)),
    ("inventory", ("inventory",)),
    ("debug", ("smi", "shell", "cleanup")),
    ("drivers", ("drivers",)),
    ("nvme", ("nvme",)),
    ("lifecycle", ("lifecycle",)),
    ("lint", ("lint",)),
    ("completion_cmd", ("completion",)),
    ("tui", ("tui",)),
)

_MODULE_OF = {name: module for module, names in COMMAND_MODULES for name in names}

_SETTINGS: dict[str, Any] = {
    "name": "kubectl-gpu",
    "help": (
        "GPU debugging for Kubernetes and EKS Auto Mode: GPU inventory, why GPU pods are Pending, "
        "drivers and CUDA ceilings, debug pods with nvidia-smi.\n\n"
        "Exit codes: 0 ok, 1 findings, 2 usage or bad input, 3 cluster/runtime error, 4 could not look (a kind "
        "it reads was forbidden), 130 interrupted."
    ),
    "no_args_is_help": False,
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "context_settings": {"help_option_names": ["-h", "--help"]},
    "cls": KubectlGroup,
}

app: typer.Typer  # every command; built on first use (module __getattr__)


def _root(ctx: typer.Context, **values: Any) -> None:
    if values.pop("version", False):
        typer.echo(f"kubectl-gpu {__version__}")  # the executable's name, as `__main__` prints it
        raise typer.Exit()
    ctx.obj = collect(values)
    if ctx.invoked_subcommand is None:
        from kubectl_gpu.cli import tui as tui_cmd

        if tui_cmd.stdio_is_terminal():  # `kubectl gpu` on a terminal: the TUI; piped: the help, as before
            raise typer.Exit(tui_cmd.launch(tui_cmd.tui_config(ctx.obj)))
        typer.echo(ctx.get_help())
        raise typer.Exit()


def _install_root_callback() -> None:
    import inspect

    version = inspect.Parameter(
        "version",
        inspect.Parameter.KEYWORD_ONLY,
        default=False,
        annotation=Annotated[bool, typer.Option("--version", help="Print the version and exit.")],
    )
    ctx_param = inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
    params = [ctx_param, version, *global_parameters()]
    _root.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    _root.__annotations__ = {p.name: p.annotation for p in params}


_install_root_callback()


def _root_app() -> typer.Typer:
    """The app with the root's options and no command yet."""
    root = typer.Typer(**_SETTINGS)
    root.callback(invoke_without_command=True)(_root)
    return root


def _register(target: typer.Typer, module: str) -> None:
    """`module`'s commands on `target`, each with its --help in kubectl's layout (cli.help_style)."""
    before = len(target.registered_commands)
    importlib.import_module(f"kubectl_gpu.cli.{module}").register(target)
    for info in target.registered_commands[before:]:
        if info.cls in (None, typer.core.TyperCommand):
            info.cls = KubectlCommand


def _full_app() -> typer.Typer:
    full = _root_app()
    for module, _ in COMMAND_MODULES:
        _register(full, module)
    return full


def __getattr__(name: str) -> typer.Typer:
    if name == "app":
        full = globals()["app"] = _full_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _LazyCommands(MutableMapping[str, Any]):
    """The root group's commands, each module imported and its commands built when one of them is first
    read: a run reads one (`nodes` builds no `smi`); the help's list reads them all."""

    def __init__(self, settings: typer.Typer) -> None:
        self._settings = settings
        self._names = [name for _, names in COMMAND_MODULES for name in names]
        self._built: dict[str, Any] = {}

    def _build(self, module: str) -> None:
        holder = typer.Typer()
        _register(holder, module)
        for info in holder.registered_commands:
            command = typer.main.get_command_from_info(
                info,
                pretty_exceptions_short=self._settings.pretty_exceptions_short,
                rich_markup_mode=self._settings.rich_markup_mode,
            )
            if command.name and command.name not in self._built:
                self._built[command.name] = command

    def __getitem__(self, name: str) -> Any:
        if name not in self._names:
            raise KeyError(name)
        if name not in self._built:
            self._build(_MODULE_OF[name])
        return self._built[name]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._names))

    def __contains__(self, name: object) -> bool:
        return name in self._names

    def __len__(self) -> int:
        return len(self._names)

    def __setitem__(self, name: str, command: Any) -> None:
        if name not in self._names:
            self._names.append(name)
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        self._names.remove(name)
        self._built.pop(name, None)


def _command() -> Any:
    """The click group a run parses with: the root's options; each command built when it is read."""
    root = _root_app()
    group = typer.main.get_command(root)
    group.commands = _LazyCommands(root)  # type: ignore[attr-defined]
    return group


def _usage_line(exc: ClickException) -> str:
    """A usage error as one line (click prints usage, a hint and the error on four)."""
    # typer words enum mismatches as "Value error, 'x' is not one of ...": the prefix says nothing.
    message = " ".join(exc.format_message().replace("Value error, ", "").split()).rstrip(".")
    ctx = getattr(exc, "ctx", None)
    if ctx is not None:
        return f"{message}; see '{ctx.command_path} -h'"
    return message


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the app, turn every expected failure into one line and an exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if "kubectl_gpu.kube.budget" in sys.modules:  # run again in one process (tests): count afresh
        sys.modules["kubectl_gpu.kube.budget"].budgets_used()
    try:
        _main(args)
    finally:
        if debug_requested(args):
            debug_requests()


def _main(args: list[str]) -> None:
    debug = debug_requested(args)
    command = _command()
    try:
        args = normalise(args, command)  # `--all=true`, `-A=false`: kubectl's boolean flags (cli.bool_flags)
        debug = debug_requested(args)
        rc = command.main(args=args, prog_name=program_name(), standalone_mode=False)
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except ClickException as exc:
        error(_usage_line(exc))
        sys.exit(ExitCode.USAGE)
    except typer.Abort:
        say_interrupted()
        sys.exit(ExitCode.INTERRUPTED)
    except SystemExit:
        # typer handles EPIPE itself: it wraps stdout so that the final flush stays quiet, then exits 1,
        # which here would read as "findings"; the reader left before any verdict was known: as kubectl.
        if isinstance(sys.stdout, PacifyFlushWrapper):
            sys.exit(ExitCode.SIGPIPE)
        raise
    except BaseException as exc:  # ours: KubectlGpuError, Ctrl-C, a closed pipe, an internal error
        code = exit_code_of(exc, debug=debug)
        if code is None:
            raise
        sys.exit(code)
    finish(rc)
