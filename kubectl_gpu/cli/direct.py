"""The read-only one-shot commands answered without typer, when their command line is a plain one.

Importing typer and building a command with it costs a one-shot run about 35-45 ms (bench/README.md), more
than anything else its start-up pays that the floor does not. A command line made only of a read-only
command (`COMMANDS`) and the global options runbooks give (`VALUE_OPTIONS`, `FLAG_OPTIONS`), each written
once, in kubectl's spellings, is answered here: the options become the `GlobalOptions` typer would make,
`check_options` checks them as `with_global_options` does, the command's own function runs with its
defaults, and its outcome is the exit code `cli.app` would give (`cli.exits`). Anything else (another
command or option, a value that starts with `-`, `--`, a flag written `=false`, a positional) is left to
typer, which answers it as before: `answer` returns and changes nothing.
tests/cli/test_direct.py holds both paths to the same options, output, messages and exit codes."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

__all__ = ["COMMANDS", "FLAG_OPTIONS", "VALUE_OPTIONS", "answer", "parse"]

#: The commands answered here: name -> (module under kubectl_gpu.cli, function, takes `-o csv`). Each is
#: registered with `printing=True` and its page's fleet face (`fleet_entry.fleet_face`).
COMMANDS: dict[str, tuple[str, str, bool]] = {
    "nodes": ("nodes", "nodes", False),
    "pending": ("pending", "pending", False),
    "diagnose": ("diagnose", "diagnose", False),
    "drivers": ("drivers", "drivers", False),
    "lint": ("lint", "lint", False),
    "lifecycle": ("lifecycle", "lifecycle", False),
    "nvme": ("nvme", "nvme", False),
    "cost": ("cost", "cost", False),
    "inventory": ("inventory", "inventory", True),
}
#: Options taking a value, by spelling: the `GlobalOptions` field. `--snapshot` is kubectl-gpu's one
#: repeatable option among them; the others may be written once.
VALUE_OPTIONS: dict[str, str] = {
    "--snapshot": "snapshot",
    "--output": "output",
    "-o": "output",
    "--namespace": "namespace",
    "-n": "namespace",
    "--now": "now",
    "--context": "context",
    "--kubeconfig": "kubeconfig",
    "--request-timeout": "request_timeout",
}
#: Flags, by spelling: the `GlobalOptions` field they set.
FLAG_OPTIONS: dict[str, str] = {
    "--all-namespaces": "all_namespaces",
    "-A": "all_namespaces",
    "--no-color": "no_color",
}


def parse(args: Sequence[str]) -> tuple[str, dict[str, Any]] | None:
    """The command and the options' values as typer would read them, or None: typer reads this one."""
    if not args or args[0] not in COMMANDS:
        return None
    values: dict[str, Any] = {}
    snapshots: list[str] = []
    rest = list(args[1:])
    while rest:
        word = rest.pop(0)
        if word in FLAG_OPTIONS:
            field = FLAG_OPTIONS[word]
            value: Any = True
        else:
            split = _option_value(word, rest)
            if split is None:
                return None
            field, value = split
            if field == "snapshot":
                snapshots.append(value)
                continue
        if field in values:
            return None  # written twice: typer's rule (the last wins), not repeated here
        values[field] = value
    if snapshots:
        values["snapshot"] = tuple(snapshots)
    return args[0], values


def _option_value(word: str, rest: list[str]) -> tuple[str, str] | None:
    """`--name VALUE`, `--name=VALUE`, `-x VALUE` or `-xVALUE` (click's forms), its field and value; the
    value taken from `rest` when it is the next word. None: not one of ours, or a value click might read
    otherwise (a next word that starts with `-`, `-x=VALUE`)."""
    if word.startswith("--"):
        name, equals, value = word.partition("=")
        if name not in VALUE_OPTIONS:
            return None
        if equals:
            return VALUE_OPTIONS[name], value
    else:
        name, value = word[:2], word[2:]
        if name not in VALUE_OPTIONS or value.startswith("="):
            return None
        if value:
            return VALUE_OPTIONS[name], value
    if not rest or rest[0].startswith("-"):
        return None
    return VALUE_OPTIONS[name], rest.pop(0)


def options_of(values: dict[str, Any]) -> Any:
    """The `GlobalOptions` typer's path makes of these values (`options.collect`: -o read by
    `output_format`)."""
    from kubectl_gpu.cli.global_options import GlobalOptions
    from kubectl_gpu.cli.output_flag import output_format

    given = dict(values)
    if "output" in given:
        given["output"], given["output_spec"] = output_format(given["output"])
    return GlobalOptions(**given)


def answer(args: Sequence[str]) -> None:
    """Answer the command line and exit (SystemExit with the exit code) when it is a plain one; return,
    having done nothing, when typer must read it."""
    parsed = parse(args)
    if parsed is None:
        return
    from kubectl_gpu.cli.exits import finish, run_guarded

    name, values = parsed
    finish(run_guarded(lambda: _run(name, values), debug=False))


def _run(name: str, values: dict[str, Any]) -> Any:
    """What `with_global_options`' wrapper does once typer has read the options, and the command."""
    from kubectl_gpu.cli.fleet_entry import fleet_face
    from kubectl_gpu.cli.global_options import check_options

    module, function, csv = COMMANDS[name]
    command = getattr(importlib.import_module(f"kubectl_gpu.cli.{module}"), function)
    opts = options_of(values)
    fleet = fleet_face(name)
    check_options(opts, name, csv=csv, printing=True, fleet=fleet is not None)
    if fleet is not None:
        return fleet(lambda member: command(opts=member), opts, name)
    return command(opts=opts)
