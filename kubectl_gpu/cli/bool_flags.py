"""Boolean flags written with a value, as kubectl (pflag) takes them: `--all=true`, `--all=false`, `-A=false`.

click's flags take no value (`--all=true` was "unexpected extra argument" or "does not take a value"). Before
parsing, each `--flag=VALUE` / `-f=VALUE` naming a boolean flag of the root or of the command is rewritten:
true -> `--flag`, false -> nothing (the default of a boolean flag is false) or, for one true by default, its
`--no-` form. VALUE is read as Go's
strconv.ParseBool reads it (1, t, T, TRUE, true, True; 0, f, F, FALSE, false, False); anything else is bad
input, as kubectl's `invalid argument "x" for "--all" flag`. `--flag` alone stays true; `--flag true`
(a space) is, as for kubectl, the flag and then an argument `true`. Nothing after `--` is touched.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kubectl_gpu.core.errors import InvalidInput

__all__ = ["FALSE", "TRUE", "bool_flags", "normalise"]

TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


def bool_flags(params: Iterable[Any]) -> dict[str, str | None]:
    """The option names (`--all`, `-A`) of the boolean flags among click parameters, each with what `=false`
    becomes: nothing (None), or for a flag true by default (`--allow-missing-template-keys`) its `--no-` form."""
    names: dict[str, str | None] = {}
    for param in params:
        if getattr(param, "is_bool_flag", False):
            negation = getattr(param, "secondary_opts", None)
            names.update(dict.fromkeys(param.opts, negation[0] if negation else None))
    return names


def _command_of(args: Sequence[str], commands: Iterable[str]) -> str | None:
    """The subcommand: the first argument (before `--`) that names one."""
    known = set(commands)
    for arg in args:
        if arg == "--":
            return None
        if arg in known:
            return arg
    return None


def normalise(args: Sequence[str], root: Any) -> list[str]:
    """`args` with every `FLAG=true|false` of a boolean flag rewritten as click reads it."""
    commands = getattr(root, "commands", {})
    flags = bool_flags(root.params)
    name = _command_of(args, commands)
    if name is not None:
        flags |= bool_flags(commands[name].params)
    out: list[str] = []
    for i, arg in enumerate(args):
        if arg == "--":
            return out + list(args[i:])
        flag, equals, value = arg.partition("=")
        if not (equals and arg.startswith("-") and flag in flags):
            out.append(arg)
        elif value in TRUE:
            out.append(flag)
        elif value not in FALSE:
            raise InvalidInput(f'invalid argument "{value}" for "{flag}" flag', "use true or false")
        elif flags[flag] is not None:
            out.append(str(flags[flag]))
    return out
