"""The App's fleet overview: `:ctx` alone reads every kubeconfig context at once (`tui.fleet.overview`, in a thread
worker) and shows them (`tui/fleet/screen.py`); choosing one switches to it, as `:ctx NAME` does."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING

from textual import work
from textual.app import App

from kubectl_gpu.kube.contexts import KubeContexts
from kubectl_gpu.kube.source import ClusterSource, SourceOptions
from kubectl_gpu.tui.background import off_thread
from kubectl_gpu.tui.config import TuiConfig

if TYPE_CHECKING:  # imported on the first `:ctx` (start-up imports only the first screen's modules)
    from kubectl_gpu.tui.fleet.overview import FleetOverview

__all__ = ["FleetKeys"]


class FleetKeys(App[int]):
    """What `GpuApp` gives it: the config, how it reads contexts and sources, the clock, `:ctx NAME`."""

    config: TuiConfig
    contexts_loader: Callable[[str | None], KubeContexts]
    source_factory: Callable[[SourceOptions], ClusterSource]
    clock: Callable[[], datetime]

    def switch_context(self, name: str) -> None:
        raise NotImplementedError

    def open_fleet(self) -> None:
        if not self.config.live:
            self.notify(
                "a snapshot holds one cluster; the fleet overview needs a kubeconfig", severity="warning"
            )
            return
        self.notify("reading every context...", timeout=3)
        self._load_fleet(self.config)

    @work(group="fleet", exit_on_error=False)
    async def _load_fleet(self, config: TuiConfig) -> None:
        """In a thread that quitting does not wait for (`tui.background`)."""
        from kubectl_gpu.tui.fleet.overview import read_fleet

        def read() -> FleetOverview:
            contexts = self.contexts_loader(config.source.kubeconfig)
            return read_fleet(config, contexts, factory=self.source_factory, clock=self.clock)

        # What fails is said by the app's one worker-error handler (`tui.background.ShowsWorkerFailures`).
        self._show_fleet(await off_thread("fleet", read))

    def _show_fleet(self, overview: FleetOverview) -> None:
        from kubectl_gpu.tui.fleet.screen import FleetScreen

        self.push_screen(FleetScreen(overview, self.config.context), callback=self._fleet_chosen)

    def _fleet_chosen(self, name: str | None) -> None:
        if name is not None and name != self.config.context:
            self.switch_context(name)
