"""kubectl's global options, accepted before or after the subcommand, as typer declares them.

Typer binds options to the command that declares them, so each global option is declared twice: on the
root callback (`kubectl gpu --context prod nodes`) and, by `with_global_options`, on every subcommand
(`kubectl gpu nodes --context prod`). The two are merged; the one written after the subcommand wins.
What a command receives (`GlobalOptions`) and checks of them (`check_options`) are cli.global_options'.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Annotated, Any, Literal, get_type_hints

import typer

from kubectl_gpu.cli.global_options import REPEATED_FIELDS, GlobalOptions, check_options
from kubectl_gpu.cli.option_declarations import ANNOTATION_NAMES
from kubectl_gpu.cli.output_flag import BASIC_FORMATS, PRINTERS, OutputFormat, output_format

__all__ = ["GLOBAL_PANEL", "GlobalOptions", "OutputFormat", "label_params", "with_global_options"]

_HELP = "Global options (also accepted before the subcommand)"
GLOBAL_PANEL = _HELP  # the panel of the global options (cli.help_style lists them apart)


def _text(*names: str, help: str) -> tuple[Any, None]:  # noqa: A002 (typer's name)
    """A global option taking a string, unset by default (kubectl's connection flags)."""
    return Annotated[str | None, typer.Option(*names, help=help, rich_help_panel=_HELP)], None


def label_params(panel: str) -> dict[str, tuple[Any, Any]]:
    """kubectl's --show-labels, -L/--label-columns and --field-selector, as global options."""
    return {
        "field_selector": (
            Annotated[
                str | None,
                typer.Option(
                    "--field-selector",
                    help="Only the nodes or pods listed with these fields (status.phase=Pending).",
                    rich_help_panel=panel,
                ),
            ],
            None,
        ),
        "show_labels": (
            Annotated[
                bool,
                typer.Option(
                    "--show-labels",
                    help="Tables of nodes or pods: a LABELS column last.",
                    rich_help_panel=panel,
                ),
            ],
            False,
        ),
        "label_columns": (
            Annotated[
                list[str] | None,
                typer.Option(
                    "-L",
                    "--label-columns",
                    help="Tables of nodes or pods: a column per label key (a,b; repeatable).",
                    rich_help_panel=panel,
                ),
            ],
            None,
        ),
    }


# name -> (annotation, default). Defaults are "unset" so that merging can tell who set what.
_PARAMS: dict[str, tuple[Any, Any]] = {
    "context": (
        Annotated[str | None, typer.Option("--context", help="Kubeconfig context.", rich_help_panel=_HELP)],
        None,
    ),
    "contexts": (
        Annotated[
            str | None,
            typer.Option(
                "--contexts",
                help="Fleet mode: these contexts (a,b,c), read in parallel.",
                rich_help_panel=_HELP,
            ),
        ],
        None,
    ),
    "all_contexts": (
        Annotated[
            bool,
            typer.Option(
                "--all-contexts", help="Fleet mode: every kubeconfig context.", rich_help_panel=_HELP
            ),
        ],
        False,
    ),
    "kubeconfig": (
        Annotated[str | None, typer.Option("--kubeconfig", help="Kubeconfig file.", rich_help_panel=_HELP)],
        None,
    ),
    "namespace": (
        Annotated[
            str | None, typer.Option("--namespace", "-n", help="Namespace for pods.", rich_help_panel=_HELP)
        ],
        None,
    ),
    "all_namespaces": (
        Annotated[
            bool,
            typer.Option("--all-namespaces", "-A", help="Pods in all namespaces.", rich_help_panel=_HELP),
        ],
        False,
    ),
    "selector": (
        Annotated[
            str | None,
            typer.Option("--selector", "-l", help="Label selector (k=v,k2!=v2).", rich_help_panel=_HELP),
        ],
        None,
    ),
    "output": (
        Annotated[
            str | None,
            typer.Option(
                "--output",
                "-o",
                help="table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=SPEC, or either -file=PATH "
                "(csv: inventory).",
                rich_help_panel=_HELP,
            ),
        ],
        None,
    ),
    "no_headers": (
        Annotated[
            bool,
            typer.Option("--no-headers", help="Tables without their header line.", rich_help_panel=_HELP),
        ],
        False,
    ),
    "sort_by": (
        Annotated[
            str | None,
            typer.Option(
                "--sort-by", help="Sort the objects by this JSONPath (.name).", rich_help_panel=_HELP
            ),
        ],
        None,
    ),
    "allow_missing_template_keys": (
        Annotated[
            bool,
            typer.Option(
                "--allow-missing-template-keys/--no-allow-missing-template-keys",
                help="A key -o jsonpath= finds in no object prints nothing; =false: an error.",
                rich_help_panel=_HELP,
            ),
        ],
        True,
    ),
    **label_params(_HELP),
    "request_timeout": (
        Annotated[
            str | None,
            typer.Option(
                "--request-timeout",
                help="Per-request timeout (10s, 1h30m, 90; 0 = none).",
                rich_help_panel=_HELP,
            ),
        ],
        None,
    ),
    "snapshot": (
        Annotated[
            list[str] | None,
            typer.Option(
                "--snapshot",
                help="Read a saved cluster (bundle, kubectl -o json/yaml output, or a directory). Repeatable.",
                rich_help_panel=_HELP,
            ),
        ],
        None,
    ),
    "now": (
        Annotated[
            str | None,
            typer.Option(
                "--now", help="Evaluate time-based findings at this RFC 3339 instant.", rich_help_panel=_HELP
            ),
        ],
        None,
    ),
    "no_color": (
        Annotated[
            bool, typer.Option("--no-color", help="No colours (also NO_COLOR).", rich_help_panel=_HELP)
        ],
        False,
    ),
    "debug": (
        Annotated[
            bool,
            typer.Option(
                "--debug", help="Show tracebacks and the resolved connection.", rich_help_panel=_HELP
            ),
        ],
        False,
    ),
    "cluster": _text("--cluster", help="Kubeconfig cluster (instead of the context's)."),
    "user": _text("--user", help="Kubeconfig user (instead of the context's)."),
    "server": _text("--server", "-s", help="API server URL (instead of the cluster's)."),
    "token": _text("--token", help="Bearer token (sent over https only)."),
    "certificate_authority": _text("--certificate-authority", help="CA file for the server."),
    "insecure_skip_tls_verify": (
        Annotated[
            bool,
            typer.Option(
                "--insecure-skip-tls-verify",
                help="Do not verify the server's certificate (insecure).",
                rich_help_panel=_HELP,
            ),
        ],
        False,
    ),
    "tls_server_name": _text("--tls-server-name", help="Server name to verify the certificate for."),
    "as_user": _text("--as", help="Impersonate this user."),
    "as_group": (
        Annotated[
            list[str] | None,
            typer.Option("--as-group", help="Impersonate this group (repeatable).", rich_help_panel=_HELP),
        ],
        None,
    ),
    "as_uid": _text("--as-uid", help="Impersonate this UID."),
}


def collect(values: dict[str, Any]) -> GlobalOptions:
    repeated: dict[str, Any] = {name: tuple(values.pop(name, None) or ()) for name in REPEATED_FIELDS}
    given = {k: values.pop(k) for k in list(_PARAMS) if k in values}
    if given.get("output") is not None:
        given["output"], given["output_spec"] = output_format(given["output"])
    if given.get("token"):
        from kubectl_gpu.kube.secret_text import remember

        remember(given["token"])  # never printed, from the first error on
    return GlobalOptions(**repeated, **given)


def global_parameters() -> list[inspect.Parameter]:
    return [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
        for name, (annotation, default) in _PARAMS.items()
    ]


#: How a command with a fleet mode is run (`cli.fleet.dispatch`): the command given its options, the
#: options, the command's name; the exit code.
Dispatch = Callable[[Callable[[GlobalOptions], Any], GlobalOptions, str], int]


def with_global_options(
    func: Callable[..., Any],
    *,
    csv: bool = False,
    fleet: Dispatch | Literal["own"] | None = None,
    printing: bool = False,
) -> Callable[..., Any]:
    """Give a subcommand the global options; it receives them merged as `opts: GlobalOptions`.

    The command declares `ctx: typer.Context` and `opts: GlobalOptions` (filled in here, hidden from typer).
    `-o csv` is a usage error (exit 2) unless the command is registered with `csv=True`. A command
    registered with `fleet=cli.fleet.dispatch` runs once per cluster under --contexts/--all-contexts (or on
    a --snapshot of several clusters' bundles); one with `fleet="own"` reads those options itself
    (`snapshot`); elsewhere they are a usage error. One registered with `printing=True` (a `run.Command`
    with a `listing`) takes kubectl's printers (-o name|jsonpath=|custom-columns=, --no-headers,
    --sort-by: cli.printing); elsewhere they are a usage error.
    """
    signature = inspect.signature(func)
    # The commands' modules import typer only for their annotations, and only when type-checked: typer's
    # names are supplied here, where typer builds the command (cli.direct runs commands without typer).
    resolved = get_type_hints(func, localns=ANNOTATION_NAMES, include_extras=True)
    own = [
        p.replace(annotation=resolved.get(name, p.annotation))
        for name, p in signature.parameters.items()
        if name != "opts"
    ]
    if "ctx" not in signature.parameters:  # the wrapper reads the context; the command does not
        own.insert(
            0, inspect.Parameter("ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)
        )
    takes_ctx = "ctx" in signature.parameters

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {k: kwargs.pop(k) for k in list(kwargs) if k in _PARAMS}
        later = collect(values)
        ctx = kwargs["ctx"] if takes_ctx else kwargs.pop("ctx")
        root = ctx.find_root().obj if ctx.find_root().obj is not None else GlobalOptions()
        opts = root.merged(later)
        command = ctx.info_name or "this command"
        check_options(opts, command, csv=csv, printing=printing, fleet=fleet is not None)
        if callable(fleet):
            return fleet(lambda member: func(*args, opts=member, **kwargs), opts, ctx.info_name or "")
        return func(*args, opts=opts, **kwargs)

    params = own + global_parameters()
    params.sort(key=lambda p: p.kind)
    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    hints = {k: v for k, v in resolved.items() if k != "opts"}
    hints["ctx"] = typer.Context
    hints.update({name: annotation for name, (annotation, _) in _PARAMS.items()})
    wrapper.__annotations__ = hints
    del wrapper.__wrapped__
    wrapper.output_formats = (  # type: ignore[attr-defined]  # read by cli.completion_spec
        *BASIC_FORMATS,
        *(PRINTERS if printing else ()),
        *(("csv",) if csv else ()),
    )
    return wrapper
