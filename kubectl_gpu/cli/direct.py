"""The read-only commands (one-shot or `-w`), `usage`, `simulate`, `smi` and `tui` answered without typer, on a
plain command line.

Importing typer and building a command with it costs a one-shot run about 35-45 ms (bench/HISTORY.md), more
than anything else its start-up pays that the floor does not. A command line made of one of `COMMANDS`, at most
one positional argument where the command takes one (any number for `smi`'s nodes), the command's common options
(`DirectCommand.options`) and the global options runbooks give (`VALUE_OPTIONS`, `FLAG_OPTIONS`), each
written once, in click's spellings, is answered here: the global options become the `GlobalOptions` typer
would make, `check_options` checks them as `with_global_options` does, the command's own function runs with
the values given and its defaults for the rest, and its outcome is the exit code `cli.app` would give
(`cli.exits`). Anything else (another command or option, a value that starts with `-`, a choice that is
not one, `--`, a flag written `=false`) is left to typer, which answers it as before: `answer` returns and
changes nothing. tests/cli/test_direct.py holds both paths to the same options, output, messages and exit
codes, and these tables to typer's declarations."""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from kubectl_gpu.cli.global_options import GlobalOptions

__all__ = ["COMMANDS", "FLAG_OPTIONS", "VALUE_OPTIONS", "DirectCommand", "Parsed", "answer", "parse"]

#: How a command option's value is read: "flag" (no value: True), "text", "texts" (repeatable: a list in
#: order), "number" (a float, as click reads one), "fail-on" (`core.report.FailOn`'s values only), or one of
#: `CHOICES`' names (its values only, given as text).
FLAG, TEXT, TEXTS, NUMBER, FAIL_ON = "flag", "text", "texts", "number", "fail-on"
PATCH_TYPE, SIMULATE_FAIL_ON = "patch-type", "simulate-fail-on"
#: The choices given to the command as text (the enums that declare them are typer's modules' or the
#: command's): `explain` and `simulate` read `str()` of the value, the same for the enum's member and its
#: value. `option_declarations.PatchTypeOption`, `simulate.FailOnOption`.
CHOICES: dict[str, tuple[str, ...]] = {
    PATCH_TYPE: ("strategic", "merge", "json"),
    SIMULATE_FAIL_ON: ("regression", "any", "none"),
}
PATCH_TYPES = CHOICES[PATCH_TYPE]


class DirectCommand(NamedTuple):
    """A command answered here: its function (module under kubectl_gpu.cli, name), whether it takes
    `-o csv`, its positional parameter (None: it takes none; `required`: it must be given) and its options:
    spelling -> (parameter, kind). A printing command (the read-only ones) is registered with
    `printing=True` and its page's fleet face (`fleet_entry.fleet_face`); `usage` with the fleet face only
    (`fleet`); `simulate`, `smi` and `tui` with neither."""

    module: str
    function: str
    csv: bool = False
    argument: str | None = None
    required: bool = False
    many: bool = False  # the positional parameter takes any number of words (a list, in order)
    options: dict[str, tuple[str, str]] = {}  # noqa: RUF012 (a NamedTuple's default, never mutated)
    printing: bool = True
    fleet: bool | None = None  # run per cluster by its fleet face (None: as `printing` says)

    @property
    def has_fleet(self) -> bool:
        return self.printing if self.fleet is None else self.fleet


_PRICES = {"--region": ("region", TEXT), "--price-file": ("price_file", TEXT)}
#: `-w` prints the table, then each row that changes (`cli/watch.py`): its first table pays no typer either
_WATCH = {"--watch": ("watch", FLAG), "-w": ("watch", FLAG)}
COMMANDS: dict[str, DirectCommand] = {
    "nodes": DirectCommand(
        "nodes", "nodes", argument="node", options={"--all": ("include_all", FLAG), **_PRICES, **_WATCH}
    ),
    "pending": DirectCommand(
        "pending",
        "pending",
        options={"--all-pending": ("all_pending", FLAG), "--by-workload": ("by_workload", FLAG), **_WATCH},
    ),
    "explain": DirectCommand(
        "pending",
        "explain",
        argument="pod",
        required=True,
        options={
            "--with": ("with_files", TEXTS),
            "--delete": ("delete", TEXTS),
            "--type": ("patch_type", PATCH_TYPE),
            "--target": ("target", TEXT),
        },
    ),
    "pools": DirectCommand("pools", "pools"),
    "diagnose": DirectCommand(
        "diagnose", "diagnose", options={"--fail-on": ("fail_on", FAIL_ON), "--only": ("only", TEXTS)}
    ),
    "drivers": DirectCommand("drivers", "drivers"),
    "lint": DirectCommand(
        "lint",
        "lint",
        options={
            "--fail-on": ("fail_on", FAIL_ON),
            "--filename": ("filename", TEXTS),
            "-f": ("filename", TEXTS),
        },
    ),
    "lifecycle": DirectCommand(
        "lifecycle",
        "lifecycle",
        options={"--pod": ("pod", TEXT), "--needs": ("needs", TEXT), "--all": ("include_all", FLAG)},
    ),
    "nvme": DirectCommand("nvme", "nvme", options={"--all": ("include_all", FLAG)}),
    "cost": DirectCommand("cost", "cost", options={**_PRICES, "--min-idle": ("min_idle", TEXT)}),
    "inventory": DirectCommand(
        "inventory", "inventory", csv=True, options={"--all": ("include_all", FLAG), **_PRICES}
    ),
    # live, its debug pods take seconds; its saved forms (--snapshot, --from-file) answer as the others do.
    # --concurrency (a bounded number) and --strategy (a choice) are left to typer, which words their errors
    "smi": DirectCommand(
        "debug.smi",
        "smi",
        argument="nodes",
        many=True,
        printing=False,
        options={
            "--all": ("all_nodes", FLAG),
            "--timeout": ("timeout", TEXT),
            "--image": ("image", TEXT),
            "--neuron-image": ("neuron_image", TEXT),
            "--raw": ("raw", FLAG),
            "--from-file": ("from_file", TEXT),
            "--dry-run": ("dry_run", FLAG),
        },
    ),
    # not a printing command, but run per cluster (fleet mode) as they are; --idle-below is read as click
    # reads a float, and a value click would refuse is left to typer, which words the error
    "usage": DirectCommand(
        "usage",
        "usage",
        printing=False,
        fleet=True,
        options={
            "--window": ("window", TEXT),
            "--idle-below": ("idle_below", NUMBER),
            "--sample": ("sample", FLAG),
            "--readonly": ("readonly", FLAG),
            "--exporter-namespace": ("exporter_namespace", TEXTS),
            **_PRICES,
        },
    ),
    "simulate": DirectCommand(
        "simulate",
        "simulate",
        printing=False,
        options={
            "--filename": ("filename", TEXTS),
            "-f": ("filename", TEXTS),
            "--delete": ("delete", TEXTS),
            "--type": ("patch_type", PATCH_TYPE),
            "--target": ("target", TEXT),
            "--fail-on": ("fail_on", SIMULATE_FAIL_ON),
        },
    ),
    # Textual's imports are the TUI's start; typer's would add ~40 ms to them
    "tui": DirectCommand(
        "tui",
        "tui",
        printing=False,
        options={
            "--refresh": ("refresh", TEXT),
            "--theme": ("theme", TEXT),
            "--readonly": ("readonly", FLAG),
        },
    ),
}
#: Global options taking a value, by spelling: the `GlobalOptions` field. `--snapshot` is kubectl-gpu's one
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
#: Global flags, by spelling: the `GlobalOptions` field they set.
FLAG_OPTIONS: dict[str, str] = {
    "--all-namespaces": "all_namespaces",
    "-A": "all_namespaces",
    "--no-color": "no_color",
}


class Parsed(NamedTuple):
    """A plain command line as typer would read it."""

    command: str
    values: dict[str, Any]  # the global options given, by field
    params: dict[str, Any]  # the command's own, by parameter


def parse(args: Sequence[str]) -> Parsed | None:
    """The command and the values as typer would read them, or None: typer reads this command line."""
    if not args or args[0] not in COMMANDS:
        return None
    command = COMMANDS[args[0]]
    values: dict[str, Any] = {}
    params: dict[str, Any] = {}
    rest = list(args[1:])
    while rest:
        word = rest.pop(0)
        if not word.startswith("-"):
            if command.argument is None or (command.argument in params and not command.many):
                return None
            params[command.argument] = [*params.get(command.argument, ()), word] if command.many else word
            continue
        if word in FLAG_OPTIONS:
            if FLAG_OPTIONS[word] in values:
                return None  # written twice: typer's rule (the last wins), not repeated here
            values[FLAG_OPTIONS[word]] = True
            continue
        if not (_global(word, rest, values) or _own(command, word, rest, params)):
            return None
    if command.required and command.argument not in params:
        return None  # typer words the missing argument
    return Parsed(args[0], values, params)


def _global(word: str, rest: list[str], values: dict[str, Any]) -> bool:
    """Read a global option taking a value into `values`; False: not one, or not read here."""
    split = _option_value(word, rest, VALUE_OPTIONS)
    if split is None:
        return False
    field, value = split
    if field == "snapshot":
        values["snapshot"] = (*values.get("snapshot", ()), value)
        return True
    if field in values:
        return False
    values[field] = value
    return True


def _own(command: DirectCommand, word: str, rest: list[str], params: dict[str, Any]) -> bool:
    """Read one of the command's options into `params`; False: not one, or not read here."""
    kinds = dict(command.options.values())  # parameter -> kind
    flag = command.options.get(word)
    if flag is not None and flag[1] == FLAG:
        if flag[0] in params:
            return False
        params[flag[0]] = True
        return True
    spellings = {name: param for name, (param, kind) in command.options.items() if kind != FLAG}
    split = _option_value(word, rest, spellings)
    if split is None:
        return False
    param, value = split
    if kinds[param] == TEXTS:
        params[param] = [*params.get(param, ()), value]
        return True
    if param in params:
        return False
    if kinds[param] == FAIL_ON:
        from kubectl_gpu.core.report import FailOn

        if value not in {member.value for member in FailOn}:
            return False  # typer words the error
        params[param] = FailOn(value)
        return True
    if kinds[param] in CHOICES and value not in CHOICES[kinds[param]]:
        return False  # typer words the error
    if kinds[param] == NUMBER:
        return _number(param, value, params)
    params[param] = value
    return True


def _number(param: str, value: str, params: dict[str, Any]) -> bool:
    """A float option's value as click reads it (`float()` of the text); False: one it refuses, which typer
    words."""
    try:
        params[param] = float(value)
    except ValueError:
        return False
    return True


def _option_value(word: str, rest: list[str], spellings: dict[str, str]) -> tuple[str, str] | None:
    """`--name VALUE`, `--name=VALUE`, `-x VALUE` or `-xVALUE` (click's forms) of one of `spellings`: its
    field and value, the value taken from `rest` when it is the next word. None: not one of them, or a value
    click might read otherwise (a next word that starts with `-`, `-x=VALUE`)."""
    if word.startswith("--"):
        name, equals, value = word.partition("=")
        if name not in spellings:
            return None
        if equals:
            return spellings[name], value
    else:
        name, value = word[:2], word[2:]
        if name not in spellings or value.startswith("="):
            return None
        if value:
            return spellings[name], value
    if not rest or rest[0].startswith("-"):
        return None
    return spellings[name], rest.pop(0)


def options_of(values: dict[str, Any]) -> GlobalOptions:
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
    having done nothing, when typer must read it. `kubectl gpu` alone on a terminal is `tui` (off one, typer
    prints the help)."""
    parsed = parse(args) if args else _bare()
    if parsed is None:
        return
    from kubectl_gpu.cli.exits import finish, run_guarded

    finish(run_guarded(lambda: _run(parsed), debug=False))


def _bare() -> Parsed | None:
    """`kubectl gpu` with no word: the TUI on a terminal, as the root command starts it (`cli.app`)."""
    from kubectl_gpu.cli.tui import stdio_is_terminal

    return Parsed("tui", {}, {}) if stdio_is_terminal() else None


def _run(parsed: Parsed) -> Any:
    """What `with_global_options`' wrapper does once typer has read the options, and the command."""
    from kubectl_gpu.cli.fleet_entry import fleet_face
    from kubectl_gpu.cli.global_options import check_options

    command = COMMANDS[parsed.command]
    function = getattr(importlib.import_module(f"kubectl_gpu.cli.{command.module}"), command.function)
    opts = options_of(parsed.values)
    fleet = fleet_face(parsed.command) if command.has_fleet else None
    check_options(opts, parsed.command, csv=command.csv, printing=command.printing, fleet=fleet is not None)
    params = parsed.params
    if fleet is not None:
        return fleet(lambda member: function(**params, opts=member), opts, parsed.command)
    return function(**params, opts=opts)
