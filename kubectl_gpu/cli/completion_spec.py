"""The command tree shell completion offers, read from the typer app and written to the package data.

`kubectl_complete-gpu` must answer in a few tens of milliseconds, so it never imports typer or the commands:
it reads `kubectl_gpu/data/completion.json`, which this module writes from the app (subcommands, their options,
what each option's value and each argument is). tests/cli/test_completion.py fails when the file is stale:

    python -m kubectl_gpu.cli.completion_spec      # rewrite kubectl_gpu/data/completion.json
"""

from __future__ import annotations

import enum
import json
import sys
from pathlib import Path
from typing import Any

__all__ = ["SPEC_PATH", "build_spec", "main", "render_spec"]

SPEC_PATH = Path(__file__).resolve().parent.parent / "data" / "completion.json"

#: What an option's value is, by option name: "file" (the shell completes paths), a name the cluster or the
#: kubeconfig knows, or "value" (free text: nothing to offer). Enums become their choices.
OPTION_VALUES: dict[str, str] = {
    "--context": "context",
    "--contexts": "context",  # the first name of the comma-separated list
    "--kubeconfig": "file",
    "--certificate-authority": "file",
    "--namespace": "namespace",
    "--exporter-namespace": "namespace",
    "--snapshot": "file",
    "--price-file": "file",
    "--out": "file",
    "--filename": "file",
    "--from-file": "file",
    "--pod": "pod",
}
#: What a positional argument is, by command and parameter name: a page's say so in its spec
#: (kubectl_gpu/pages: `Page.arguments`), the other commands' here.
ARGUMENTS: dict[tuple[str, str], str | list[str]] = {
    ("smi", "nodes"): "node",
    ("shell", "node"): "node",
    ("completion", "shell"): ["bash", "zsh", "fish"],
}


def _argument_kinds() -> dict[tuple[str, str], str | list[str]]:
    from kubectl_gpu.pages import pages

    found: dict[tuple[str, str], str | list[str]] = dict(ARGUMENTS)
    for page in pages():
        found.update({(page.command, name): kind for name, kind in page.arguments.items() if page.command})
    return found


def _choices(param: Any) -> list[str] | None:
    annotation = getattr(getattr(param, "type_descriptor", None), "annotation", None)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(member.value) for member in annotation]
    return None


def _value_kind(command: str, param: Any) -> str | list[str] | None:
    if param.is_flag:
        return None
    if command == "diagnose" and param.name == "only":
        from kubectl_gpu.core.analyses.diagnose.analysis import ANALYSES

        return list(ANALYSES)
    choices = _choices(param)
    if choices is not None:
        return choices
    long = next((o for o in param.opts if o.startswith("--")), param.opts[0])
    return OPTION_VALUES.get(long, "value")


def _options(command: str, params: list[Any], skip: set[str]) -> dict[str, str | list[str] | None]:
    out: dict[str, str | list[str] | None] = {}
    for param in params:
        if getattr(param, "param_type_name", "") != "option" or param.hidden:
            continue
        kind = _value_kind(command, param)
        for name in (*param.opts, *param.secondary_opts):
            if name not in skip:
                out[name] = kind
    return out


def _arguments(command: str, params: list[Any]) -> list[dict[str, Any]]:
    out = []
    kinds = _argument_kinds()
    for param in params:
        if getattr(param, "param_type_name", "") != "argument":
            continue
        kind = kinds.get((command, param.name), "value")
        out.append({"name": param.name, "kind": kind, "many": param.nargs == -1 or bool(param.multiple)})
    return out


def build_spec() -> dict[str, Any]:
    """The completion spec of the typer app: global options, root-only options, and every subcommand."""
    import typer

    from kubectl_gpu.cli.app import app
    from kubectl_gpu.cli.output_flag import BASIC_FORMATS, PRINTERS

    root = typer.main.get_command(app)
    global_options = _options("", [p for p in root.params if p.name != "version"], set())
    # Before the subcommand, -o offers every format; after it, what that command takes (`output_formats`).
    global_options["-o"] = global_options["--output"] = [*BASIC_FORMATS, *PRINTERS, "csv"]
    global_options.update({"-h": None, "--help": None})
    skip = set(global_options)
    commands: dict[str, Any] = {}
    for name, command in sorted(getattr(root, "commands", {}).items()):
        if getattr(command, "hidden", False):
            continue
        options = _options(name, list(command.params), skip)
        formats = getattr(command.callback, "output_formats", None)
        if formats is not None:
            options["-o"] = options["--output"] = list(formats)
        commands[name] = {
            "options": options,
            "arguments": _arguments(name, list(command.params)),
        }
    return {
        "version": 1,
        "global": global_options,
        "root": _options("", [p for p in root.params if p.name == "version"], set()),
        "commands": commands,
    }


def render_spec(spec: dict[str, Any]) -> str:
    return json.dumps(spec, indent=1, sort_keys=True) + "\n"


def main() -> None:
    SPEC_PATH.write_text(render_spec(build_spec()), encoding="utf-8")
    sys.stdout.write(f"wrote {SPEC_PATH}\n")


if __name__ == "__main__":
    main()
