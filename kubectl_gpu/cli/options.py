"""kubectl's global options, accepted before or after the subcommand.

Typer binds options to the command that declares them, so each global option is declared twice: on the
root callback (`kubectl gpu --context prod nodes`) and, by `with_global_options`, on every subcommand
(`kubectl gpu nodes --context prod`). The two are merged; the one written after the subcommand wins.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
from collections.abc import Callable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar, get_type_hints

import msgspec
import typer

from kubectl_gpu.cli.output_flag import BASIC_FORMATS, PRINTERS, OutputFormat, label_params, output_format
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.selectors import parse_selector
from kubectl_gpu.core.k8s.times import TimeError, parse_go_duration, parse_time

if TYPE_CHECKING:
    from kubectl_gpu.kube.connection import Connection, ConnectionFlags

__all__ = ["GLOBAL_PANEL", "GlobalOptions", "OutputFormat", "with_global_options"]


class GlobalOptions(msgspec.Struct, frozen=True, dict=True):
    context: str | None = None
    contexts: str | None = None  # fleet mode: comma-separated contexts (see cli/fleet.py)
    all_contexts: bool = False  # fleet mode: every context of the kubeconfig
    kubeconfig: str | None = None
    namespace: str | None = None
    all_namespaces: bool = False
    selector: str | None = None
    output: OutputFormat | None = None
    output_spec: str | None = None  # what follows `jsonpath=` or `custom-columns=`
    no_headers: bool = False
    sort_by: str | None = None
    allow_missing_template_keys: bool = True
    show_labels: bool = False
    field_selector: str | None = None
    label_columns: tuple[str, ...] = msgspec.field(default_factory=tuple)  # -L, as given (a,b)
    request_timeout: str | None = None
    snapshot: tuple[str, ...] = msgspec.field(default_factory=tuple)
    now: str | None = None
    no_color: bool = False
    debug: bool = False
    # kubectl's connection flags, over the kubeconfig (`kube.connection`: kubectl's precedence)
    cluster: str | None = None
    user: str | None = None
    server: str | None = None
    token: str | None = None
    certificate_authority: str | None = None
    insecure_skip_tls_verify: bool = False
    tls_server_name: str | None = None
    as_user: str | None = None
    as_group: tuple[str, ...] = msgspec.field(default_factory=tuple)
    as_uid: str | None = None
    #: these are one cluster's options in a fleet run (set by `cli.fleet`, never by a flag)
    fleet_member: bool = False

    def merged(self, later: GlobalOptions) -> GlobalOptions:
        """Options given after the subcommand override those given before it."""
        changes: dict[str, Any] = {}
        for name in self.__struct_fields__:
            value = getattr(later, name)
            if isinstance(value, bool):  # a flag given on either side (true by default: its --no- form)
                default = _BOOL_DEFAULT_TRUE.get(name, False)
                changes[name] = (value and getattr(self, name)) if default else (value or getattr(self, name))
            elif name in _REPEATED:  # kubectl's repeatable flags add up, wherever they are written
                changes[name] = getattr(self, name) + value
            elif value is not None:
                changes[name] = value
        return msgspec.structs.replace(self, **changes)

    @property
    def fleet(self) -> bool:
        """--contexts or --all-contexts: read several clusters (docs/fleet.md)."""
        return self.contexts is not None or self.all_contexts

    @property
    def format(self) -> OutputFormat:
        return self.output or OutputFormat.table

    @property
    def timeout_seconds(self) -> float | None:
        """--request-timeout as kubectl (client-go's ParseTimeout) reads it: a whole number of seconds, or a Go
        duration (`25h`, `1h30m`, `500ms`); 0 (or a negative duration, as kubectl's HTTP client) means none."""
        text = self.request_timeout
        if text is None:
            return 30.0
        if re.fullmatch(r"\+?[0-9]+", text):
            seconds = float(int(text))
        else:
            delta = parse_go_duration(text)
            if delta is None:
                raise InvalidInput(
                    f"--request-timeout: invalid timeout value {text!r}: Timeout must be a single integer in "
                    "seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)",
                    "use forms like 10s, 1m, 25h, 90 (seconds) or 0 (none)",
                )
            seconds = delta.total_seconds()
        if seconds <= 0 or seconds > _MAX_TIMEOUT_S:  # sockets overflow on timeouts of millennia: as none
            return None
        return seconds

    def kubeconfig_path(self) -> str | None:
        """--kubeconfig, checked as kubectl checks it: a missing file is bad input, not "no configuration"."""
        path = self.kubeconfig
        if path and not os.path.exists(path):
            raise InvalidInput(
                f"--kubeconfig {path}: no such file",
                "check the path, or drop it to use KUBECONFIG or ~/.kube/config",
            )
        return path or None

    def default_namespace(self) -> str:
        """-n, else the namespace kubectl would use: the context's (live: `connection()`), else `default`
        (snapshots)."""
        if self.snapshot:
            return self.namespace or "default"
        return self.connection().namespace

    def connection_flags(self) -> ConnectionFlags:
        """kubectl's flags that override the kubeconfig, for `kube.connection` (and `-n`, `--debug`)."""
        from kubectl_gpu.kube.connection import ConnectionFlags

        same = {name: getattr(self, name) for name in _CONNECTION_FIELDS}
        return ConnectionFlags(**same, as_groups=self.as_group, namespace=self.namespace, debug=self.debug)

    def connection(self) -> Connection:
        """The live connection these options make (`kube.connection.resolve`), resolved once per options
        and kubeconfig files: server, identity, TLS, namespace and timeouts, as kubectl resolves them."""
        from kubectl_gpu.kube.kubeconfig import files_stamp

        return _resolved(self, files_stamp(self.kubeconfig))

    def now_or(self, fallback: datetime | None) -> datetime:
        """The instant time-based analysis uses: --now, else the snapshot's capture time, else now
        (`core.evaluation.evaluation_instant`)."""
        from kubectl_gpu.core.evaluation import evaluation_instant

        return evaluation_instant(self.requested_now(), fallback, datetime.now(UTC))

    def requested_now(self) -> datetime | None:
        """--now as an instant (None when not given); InvalidInput when malformed or out of range."""
        if self.now is not None:
            try:
                value = parse_time(self.now)
            except TimeError as exc:
                raise InvalidInput(f"--now: {exc}") from None
            except OverflowError:  # an offset that pushes the instant past year 9999 or before year 1
                value = datetime.max.replace(tzinfo=UTC)
            if not _NOW_EARLIEST <= value < _NOW_LATEST:
                # Analyses add expiry periods and budget windows to it: keep far from datetime's limits.
                raise InvalidInput(
                    f"--now: {self.now!r} is out of range",
                    f"use an instant from {_NOW_EARLIEST.year} to {_NOW_LATEST.year - 1}",
                )
            return value
        return None


_MAX_TIMEOUT_S = 10 * 365 * 86400.0  # beyond: as no timeout
_REPEATED = ("snapshot", "as_group", "label_columns")
_BOOL_DEFAULT_TRUE = {"allow_missing_template_keys": True}
_CONNECTION_FIELDS: tuple[str, ...] = ("cluster", "user", "server", "token", "certificate_authority")
_CONNECTION_FIELDS += ("insecure_skip_tls_verify", "tls_server_name", "as_user", "as_uid")


@functools.lru_cache(maxsize=8)
def _resolved(opts: GlobalOptions, _files: tuple[tuple[str, int, int], ...]) -> Connection:
    from kubectl_gpu.kube.connection import resolve

    return resolve(opts.kubeconfig_path(), opts.context, opts.timeout_seconds, opts.connection_flags())


_NOW_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_NOW_LATEST = datetime(3000, 1, 1, tzinfo=UTC)


_HELP = "Global options (also accepted before the subcommand)"
GLOBAL_PANEL = _HELP  # the panel of the global options (cli.help_style lists them apart)


def _text(*names: str, help: str) -> tuple[Any, None]:  # noqa: A002 (typer's name)
    """A global option taking a string, unset by default (kubectl's connection flags)."""
    return Annotated[str | None, typer.Option(*names, help=help, rich_help_panel=_HELP)], None


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
    repeated: dict[str, Any] = {name: tuple(values.pop(name, None) or ()) for name in _REPEATED}
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


F = TypeVar("F", bound=Callable[..., Any])
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
    resolved = get_type_hints(func, include_extras=True)
    own = [
        p.replace(annotation=resolved.get(name, p.annotation))
        for name, p in signature.parameters.items()
        if name != "opts"
    ]

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        values = {k: kwargs.pop(k) for k in list(kwargs) if k in _PARAMS}
        later = collect(values)
        ctx = kwargs["ctx"]
        root = ctx.find_root().obj if ctx.find_root().obj is not None else GlobalOptions()
        opts = root.merged(later)
        if opts.output is OutputFormat.csv and not csv:
            raise InvalidInput(
                f"-o csv is not supported by {ctx.info_name or 'this command'}",
                "use -o table, wide, json or yaml (csv: inventory)",
            )
        if not printing:
            _refuse_printers(opts, ctx.info_name or "this command")
        else:
            from kubectl_gpu.render.printers import parse_printing

            # a malformed template is exit 2 before anything is read
            parse_printing(opts.output, opts.output_spec, opts.sort_by, no_headers=opts.no_headers)
        if opts.namespace == "":  # else it would mean every namespace (cleanup --yes would delete in all)
            raise InvalidInput("-n/--namespace: empty namespace", "name one, or use -A for all namespaces")
        _check_connection_flags(opts)
        if opts.selector:  # as kubectl: a malformed -l fails here, not as the API server's 400 (exit 3)
            try:
                parse_selector(opts.selector)
            except ValueError as exc:
                raise InvalidInput(f"-l/--selector: {exc}") from None
        if callable(fleet):
            return fleet(lambda member: func(*args, opts=member, **kwargs), opts, ctx.info_name or "")
        if opts.fleet and fleet is None:
            raise InvalidInput(
                f"--contexts/--all-contexts: {ctx.info_name or 'this command'} works on one cluster",
                "use --context NAME (fleet mode: the read-only commands, docs/fleet.md)",
            )
        return func(*args, opts=opts, **kwargs)

    params = own + global_parameters()
    params.sort(key=lambda p: p.kind)
    wrapper.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    hints = {k: v for k, v in resolved.items() if k != "opts"}
    hints.update({name: annotation for name, (annotation, _) in _PARAMS.items()})
    wrapper.__annotations__ = hints
    del wrapper.__wrapped__
    wrapper.output_formats = (  # type: ignore[attr-defined]  # read by cli.completion_spec
        *BASIC_FORMATS,
        *(PRINTERS if printing else ()),
        *(("csv",) if csv else ()),
    )
    return wrapper


def _check_connection_flags(opts: GlobalOptions) -> None:
    """-n a namespace name (kubectl's words), before anything is read; in fleet mode, no flag that would
    point every context at one cluster or one identity."""
    if opts.namespace:
        from kubectl_gpu.kube.connection import check_namespace  # only then: a snapshot run may never connect

        check_namespace(opts.namespace)
    pinned = opts.connection_flags().pinned() if opts.fleet else []
    if pinned:
        raise InvalidInput(
            f"{', '.join(pinned)} and --contexts/--all-contexts: fleet mode reads each context's own "
            "cluster and user",
            "read one cluster with --context NAME",
        )


def _refuse_printers(opts: GlobalOptions, command: str) -> None:
    if opts.output in (OutputFormat.name, OutputFormat.jsonpath, OutputFormat.custom_columns):
        raise InvalidInput(
            f"-o {opts.output}: not supported by {command}", "use -o table, wide, json or yaml"
        )
    if opts.no_headers or opts.sort_by or opts.show_labels or opts.label_columns:
        flag = "--no-headers" if opts.no_headers else "--sort-by" if opts.sort_by else "--show-labels/-L"
        raise InvalidInput(f"{flag}: not supported by {command}", "the read-only commands take it")
