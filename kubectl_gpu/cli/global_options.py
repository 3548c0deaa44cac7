"""kubectl's global options as a command receives them (`GlobalOptions`), and the checks every command makes
of them before it reads anything (`check_options`). Typer declares them (cli.options); one-shot commands
answered without typer (cli.direct) build them here too: this module imports no typer."""

from __future__ import annotations

import functools
import os
import re
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import msgspec

from kubectl_gpu.cli.output_flag import OutputFormat
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.selectors import parse_selector
from kubectl_gpu.core.k8s.times import TimeError, parse_go_duration, parse_time

if TYPE_CHECKING:
    from kubectl_gpu.kube.connection import Connection, ConnectionFlags

__all__ = ["REPEATED_FIELDS", "GlobalOptions", "OutputFormat", "check_options"]


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
            elif name in REPEATED_FIELDS:  # kubectl's repeatable flags add up, wherever they are written
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
#: kubectl's repeatable flags: they add up wherever they are written
REPEATED_FIELDS = ("snapshot", "as_group", "label_columns")
_BOOL_DEFAULT_TRUE = {"allow_missing_template_keys": True}
_CONNECTION_FIELDS: tuple[str, ...] = ("cluster", "user", "server", "token", "certificate_authority")
_CONNECTION_FIELDS += ("insecure_skip_tls_verify", "tls_server_name", "as_user", "as_uid")


@functools.lru_cache(maxsize=8)
def _resolved(opts: GlobalOptions, _files: tuple[tuple[str, int, int], ...]) -> Connection:
    from kubectl_gpu.kube.connection import resolve

    return resolve(opts.kubeconfig_path(), opts.context, opts.timeout_seconds, opts.connection_flags())


_NOW_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_NOW_LATEST = datetime(3000, 1, 1, tzinfo=UTC)


def check_options(opts: GlobalOptions, command: str, *, csv: bool, printing: bool, fleet: bool) -> None:
    """What every command checks of its options before it reads anything (exit 2 on each): `-o csv` only
    where the command takes it (`csv`), kubectl's printers only where it prints them (`printing`), `-n`
    a namespace name, the connection flags, `-l` a selector, --contexts/--all-contexts only where the
    command has a fleet mode (`fleet`)."""
    if opts.output is OutputFormat.csv and not csv:
        raise InvalidInput(
            f"-o csv is not supported by {command}", "use -o table, wide, json or yaml (csv: inventory)"
        )
    if not printing:
        _refuse_printers(opts, command)
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
    if opts.fleet and not fleet:
        raise InvalidInput(
            f"--contexts/--all-contexts: {command} works on one cluster",
            "use --context NAME (fleet mode: the read-only commands, docs/fleet.md)",
        )


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
