"""What the TUI is started with: where to read from (the CLI's global options, already parsed), the instant
to evaluate at, and how often to refresh. `:ctx` and `:ns` derive new configs from it."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import datetime

from kubectl_gpu.kube.source import SourceOptions

__all__ = ["DEFAULT_REFRESH_S", "TuiConfig"]

DEFAULT_REFRESH_S = 30.0


@dataclass(frozen=True)
class TuiConfig:
    source: SourceOptions = field(default_factory=SourceOptions)
    #: --now: evaluate time-based findings at this instant (else the snapshot's capture time, else the clock)
    now: datetime | None = None
    #: seconds between live refreshes; None: only on `r` (snapshots are never re-read on their own)
    refresh: float | None = DEFAULT_REFRESH_S
    no_color: bool = False
    #: a Textual theme name; None: from the terminal's background (COLORFGBG), else dark
    theme: str | None = None

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
        from kubectl_gpu.kube.kubeconfig import context_namespace

        return context_namespace(self.source.kubeconfig, self.source.context)

    def with_context(self, context: str) -> TuiConfig:
        return dataclasses.replace(self, source=dataclasses.replace(self.source, context=context))

    def with_namespace(self, namespace: str | None) -> TuiConfig:
        scope = dataclasses.replace(self.source.scope, namespace=namespace)
        return dataclasses.replace(self, source=dataclasses.replace(self.source, scope=scope))
