"""What the TUI is started with: where to read from (the CLI's global options, already parsed), the instant
to evaluate at, and how often to refresh. `:ctx` and `:ns` derive new configs from it."""

from __future__ import annotations

import os
from datetime import datetime

import msgspec

from kubectl_gpu.kube.source import SourceOptions

__all__ = ["DEFAULT_REFRESH_S", "ContextMemory", "TuiConfig", "TuiSettings", "initial_theme", "tui_settings"]

DEFAULT_REFRESH_S = 30.0


class TuiConfig(msgspec.Struct, frozen=True, dict=True):
    source: SourceOptions = msgspec.field(default_factory=SourceOptions)
    #: --now: evaluate time-based findings at this instant (else the snapshot's capture time, else the clock)
    now: datetime | None = None
    #: seconds between live refreshes; None: only on `r` (snapshots are never re-read on their own)
    refresh: float | None = DEFAULT_REFRESH_S
    no_color: bool = False
    #: a Textual theme name; None: from the terminal's background (COLORFGBG), else dark
    theme: str | None = None
    #: --readonly (or `tui: {readonly: true}` in the config file): no key creates a pod (no `s` live, no `x`)
    readonly: bool = False
    #: ask before `s` / `x` create a privileged pod (`tui: {confirm: false}` in the config file: do not)
    confirm: bool = True

    @property
    def live(self) -> bool:
        return not self.source.snapshot

    @property
    def context(self) -> str | None:
        return self.source.context

    @property
    def namespace(self) -> str | None:
        return self.source.scope.namespace

    @property
    def debug_namespace(self) -> str:
        """Where debug pods go: the namespace in scope (-n, `:ns`), as `kubectl gpu smi -n`, else the
        context's (as kubectl), else default."""
        if self.source.scope.namespace or self.source.snapshot:
            return self.source.scope.namespace or "default"
        from kubectl_gpu.kube.connection import context_namespace

        return context_namespace(self.source.kubeconfig, self.source.context)

    def with_context(self, context: str) -> TuiConfig:
        return msgspec.structs.replace(self, source=msgspec.structs.replace(self.source, context=context))

    def with_namespace(self, namespace: str | None) -> TuiConfig:
        scope = msgspec.structs.replace(self.source.scope, namespace=namespace)
        return msgspec.structs.replace(self, source=msgspec.structs.replace(self.source, scope=scope))


class TuiSettings(msgspec.Struct, frozen=True, dict=True):
    """The `tui:` mapping of the config file (`~/.config/kubectl-gpu/config.yaml`)."""

    readonly: bool = False
    confirm: bool = True


def tui_settings(config: object, where: str = "config") -> TuiSettings:
    """`tui: {readonly: BOOL, confirm: BOOL}` from the config file's mapping (None: no file); ValueError
    with what is wrong (an unknown key, a value that is not true/false)."""
    if not isinstance(config, dict) or config.get("tui") is None:
        return TuiSettings()
    section = config["tui"]
    if not isinstance(section, dict):
        raise ValueError(f"{where}: tui: expected a mapping (e.g. tui: {{readonly: true}})")
    known = set(TuiSettings.__struct_fields__)
    unknown = sorted(str(k) for k in section if k not in known)
    if unknown:
        raise ValueError(f"{where}: tui: unknown key(s) {', '.join(unknown)} (known: readonly, confirm)")
    for key, value in section.items():
        if not isinstance(value, bool):
            raise ValueError(f"{where}: tui.{key}: expected true or false, not {value!r}")
    return TuiSettings(**section)


def initial_theme(config: TuiConfig, env: dict[str, str] | None = None) -> str:
    """--theme, else the terminal's background as COLORFGBG reports it (light: 7 or 15), else dark."""
    if config.theme:
        return config.theme
    values = os.environ if env is None else env
    background = (values.get("COLORFGBG") or "").rpartition(";")[2]
    return "textual-light" if background in ("7", "15") else "textual-dark"


class ContextMemory(msgspec.Struct, dict=True):
    """What `:ctx` restores when coming back to a context: the view and each view's filter."""

    view: str = "overview"
    filters: dict[str, str] = msgspec.field(default_factory=dict)
