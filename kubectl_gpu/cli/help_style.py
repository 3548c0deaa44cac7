"""`--help` laid out as kubectl lays out its own: the description, `Examples:`, `Options:` as
`    -o, --output='':` with the help on the next line after a tab, `Usage:`, and a closing pointer.

typer draws help with rich (boxes, metavars such as `<bool>` and `<list[str]>`, choices wrapped inside a
column); an SRE reads kubectl's every day. So the root and every command format their help here, from the
click parameters typer built: a flag shows its default (`--all=false`, `--timeout='2m'`, `--only=[]`), as
kubectl's do, which is also how it is typed (`--all=true`: cli.bool_flags). Plain text at WIDTH columns,
whatever the terminal: the same bytes piped or not, so `help_render` pre-renders it once per program name
(cli.prog: `kubectl gpu` when kubectl ran us).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Any, get_args

import typer.core
from typer._click.core import Context

from kubectl_gpu.cli.coercion import quicken
from kubectl_gpu.cli.options import GLOBAL_PANEL

__all__ = ["WIDTH", "KubectlCommand", "KubectlGroup", "command_help", "root_help"]

WIDTH = 80
_TAB = 8  # a tab's width on a terminal, for wrapping the text after it
_HELP_FLAGS = ("--help", "-h")


def _wrap(text: str, width: int = WIDTH, indent: str = "") -> list[str]:
    """Paragraphs (blank-line separated) re-flowed to `width`, each line prefixed by `indent`."""
    lines: list[str] = []
    for paragraph in textwrap.dedent(text).strip().split("\n\n"):
        if lines:
            lines.append("")
        flowed = " ".join(paragraph.split())
        lines += textwrap.wrap(flowed, width, initial_indent=indent, subsequent_indent=indent,
                               break_on_hyphens=False, break_long_words=False)  # fmt: skip
    return lines


def _annotation(param: Any) -> Any:
    descriptor = getattr(param, "type_descriptor", None)
    return getattr(descriptor, "annotation", None)


def _choices(param: Any) -> list[str]:
    annotation = _annotation(param)
    candidates = [annotation, *get_args(annotation)]
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, Enum):
            return [str(member.value) for member in candidate]
    return []


def is_bool_flag(param: Any) -> bool:
    return bool(getattr(param, "is_bool_flag", False) or getattr(param, "is_flag", False))


def _default(param: Any) -> str:
    """The default as kubectl shows it after `=`: false, '' (unset), [] (repeatable), 8, 'auto'."""
    if is_bool_flag(param):
        return "true" if param.default else "false"
    value = param.default
    if getattr(param, "multiple", False):
        return "[]" if not value else "[" + ",".join(str(v) for v in value) + "]"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, float):
        return f"{value:g}"  # as Go's %v: 10, 0.5
    if isinstance(value, bool | int):
        return str(value)
    return f"'{'' if value is None else value}'"


def _flag_help(param: Any) -> str:
    text = " ".join((param.help or "").split())
    choices = _choices(param)
    if choices and not all(choice in text for choice in choices):
        text = f"{text} One of: {', '.join(choices)}.".strip()
    if getattr(param, "multiple", False) and "epeatable" not in text:
        text = f"{text} Repeatable.".strip()
    return text


def _flag_lines(param: Any) -> list[str]:
    shorts = sorted(o for o in param.opts if not o.startswith("--"))
    longs = [o for o in param.opts if o.startswith("--")]
    names = ", ".join([*shorts, *longs])
    lines = [f"    {names}={_default(param)}:"]
    for line in _wrap(_flag_help(param), WIDTH - _TAB) or [""]:
        lines.append(f"\t{line}" if line else "")
    return lines


def _visible_options(params: Iterable[Any]) -> list[Any]:
    return [
        p for p in params
        if getattr(p, "param_type_name", "") == "option" and not getattr(p, "hidden", False)
        and not set(p.opts) <= set(_HELP_FLAGS)
    ]  # fmt: skip


def _sections(params: Sequence[Any], *, with_global: bool) -> list[tuple[str, list[Any]]]:
    """(title, options): `Options`, each panel typer groups by (`Prices Options`), the global ones last."""
    panels: dict[str, list[Any]] = {}
    for param in _visible_options(params):
        panel = getattr(param, "rich_help_panel", None)
        if panel == GLOBAL_PANEL and not with_global:
            continue
        if panel == GLOBAL_PANEL:
            title = "Global Options (accepted before or after the command)"
        else:
            title = f"{panel} Options" if panel else "Options"
        panels.setdefault(title, []).append(param)
    order = sorted(panels, key=lambda title: (title != "Options", title.startswith("Global")))
    return [(title, panels[title]) for title in order]


def _examples(command: str) -> list[str]:
    from kubectl_gpu.cli.help_text import EXAMPLES  # the help's text: only for a help

    pairs = EXAMPLES.get(command, ())
    if not pairs:
        return []
    lines = ["Examples:"]
    for i, (what, line) in enumerate(pairs):
        if i:
            lines.append("")
        lines += [f"  # {what}", f"  {line}"]
    return [*lines, ""]


def _argument_lines(params: Iterable[Any]) -> list[str]:
    """`Arguments:`: each positional argument as the usage line names it, with its help below."""
    lines: list[str] = []
    for param in params:
        if getattr(param, "param_type_name", "") == "argument" and getattr(param, "help", None):
            lines.append(f"    {(param.name or '').upper()}:")
            lines += [f"\t{line}" if line else "" for line in _wrap(param.help, WIDTH - _TAB)]
            lines.append("")
    return ["Arguments:", *lines] if lines else []


def _usage_pieces(params: Iterable[Any], *, after_dashes: bool = False) -> str:
    """The arguments for `Usage:`; those whose metavar starts with `[--` (`shell NODE -- COMMAND`) go after
    the options, with that metavar, as kubectl writes `exec POD [options] -- COMMAND [args...]`."""
    pieces = []
    for param in params:
        if getattr(param, "param_type_name", "") != "argument":
            continue
        metavar = getattr(param, "metavar", None) or ""
        if metavar.startswith("[--") != after_dashes:
            continue
        if after_dashes:
            pieces.append(metavar)
            continue
        name = (param.name or "").upper()
        if param.nargs == -1:
            name = f"{name}..."
        pieces.append(name if param.required else f"[{name}]")
    return " ".join(pieces)


def _global_names(params: Iterable[Any]) -> str:
    names = []
    for param in _visible_options(params):
        if getattr(param, "rich_help_panel", None) == GLOBAL_PANEL:
            shorts = [o for o in param.opts if not o.startswith("--")]
            names.append(shorts[0] if shorts else param.opts[0])
    return ", ".join(names)


def command_help(ctx: Context, command: Any) -> str:
    """One command's help: description, examples, its options, usage, where the global options are."""
    program = ctx.find_root().info_name or "kubectl-gpu"
    lines = [*_wrap(command.help or ""), ""]
    lines += _examples(ctx.info_name or "")
    lines += _argument_lines(command.params)
    for title, params in _sections(command.params, with_global=False):
        lines.append(f"{title}:")
        for param in params:
            lines += _flag_lines(param)
            lines.append("")
    args = _usage_pieces(command.params)
    tail = _usage_pieces(command.params, after_dashes=True)
    lines += [
        "Usage:",
        f"  {ctx.command_path} {args + ' ' if args else ''}[options]{' ' + tail if tail else ''}",
        "",
    ]
    lines += _wrap(
        f'Use "{program} --help" for the global options ({_global_names(command.params)}); they are '
        "accepted before or after the command."
    )
    return "\n".join(lines) + "\n"


def _command_list(group: Any, ctx: Context) -> list[str]:
    from kubectl_gpu.cli.help_text import SHORT

    names = [n for n, c in group.commands.items() if not getattr(c, "hidden", False)]
    width = max(len(n) for n in names) + 2
    lines = ["Commands:"]
    for name in names:
        short = SHORT.get(name) or (group.commands[name].help or "").split(". ")[0]
        wrapped = _wrap(short, WIDTH - 2 - width) or [""]
        lines.append(f"  {name.ljust(width)}{wrapped[0]}")
        lines += [f"  {' ' * width}{rest}" for rest in wrapped[1:]]
    return [*lines, ""]


def root_help(ctx: Context, group: Any) -> str:
    """The root's help: what the tool is, examples, the commands, the global options, usage."""
    program = ctx.command_path
    lines = [*_wrap(group.help or ""), ""]
    lines += _examples("")
    lines += _command_list(group, ctx)
    for title, params in _sections(group.params, with_global=True):
        lines.append(f"{title}:")
        for param in params:
            lines += _flag_lines(param)
            lines.append("")
    lines += ["Usage:", f"  {program} [command] [options]", ""]
    lines += [f'Use "{program} <command> --help" for more information about a given command.']
    return "\n".join(lines) + "\n"


class KubectlCommand(typer.core.TyperCommand):
    """A typer command whose --help is kubectl's layout (command_help), not rich's panels, and whose
    options are read without pydantic where they can be (cli.coercion)."""

    def get_params(self, ctx: Context) -> list[Any]:
        params = super().get_params(ctx)
        quicken(params)
        return params

    def format_help(self, ctx: Context, formatter: Any) -> None:
        formatter.write(command_help(ctx, self))


class KubectlGroup(typer.core.TyperGroup):
    """The root group: kubectl's layout (root_help); its options as a command's (cli.coercion)."""

    def get_params(self, ctx: Context) -> list[Any]:
        params = super().get_params(ctx)
        quicken(params)
        return params

    def format_help(self, ctx: Context, formatter: Any) -> None:
        formatter.write(root_help(ctx, self))
