"""The App's debug-pod keys: `s` (nvidia-smi on the selected or marked nodes), `x` (a shell), and quitting
without leaving a pod behind. Jobs run in thread workers through `actions` (the runner `kubectl gpu smi`
and `shell` use); the UI thread only starts, cancels and shows them.

Before a privileged pod is created the app asks (`ConfirmPod`: the nodes, the image, the namespace),
unless the config file says `tui: {confirm: false}`; read-only (`--readonly`, `tui: {readonly: true}`)
offers neither key on a live cluster. Offline, `s` reads the stored probes: no pod, no question.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual import work
from textual.app import App, SuspendNotSupported

from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.render.page_lines import message_line
from kubectl_gpu.tui import data
from kubectl_gpu.tui.config import TuiConfig
from kubectl_gpu.tui.debug.jobs import DebugJobs, JobOutcome, ShellJob, SmiJob, offline_smi
from kubectl_gpu.tui.views import TableView

if TYPE_CHECKING:
    from kubectl_gpu.tui.debug.smi_screen import SmiScreen

__all__ = ["DebugKeys"]


class DebugKeys(App[int]):
    """What `GpuApp` gives it: the config, the data shown, the jobs, the current view."""

    config: TuiConfig
    snapshot: data.Refresh | None
    jobs: DebugJobs
    shell_job: ShellJob | None
    _quitting: bool

    @property
    def view(self) -> TableView:
        raise NotImplementedError

    # --- debug pods --------------------------------------------------------------------------------

    def _target_nodes(self) -> list[str]:
        grid = self.view.grid
        marked = [r.node for r in grid.marked_rows if r.node]
        if marked:
            return list(dict.fromkeys(marked))
        row = grid.cursor_row
        return [row.node] if row is not None and row.node else []

    def debug_allowed(self, what: str) -> bool:
        """Whether `s` (smi) / `x` (shell) may run: `x` needs a live cluster; read-only, nothing that makes a
        pod (offline `s` reads the stored probes: allowed)."""
        if what == "shell":
            return self.config.live and not self.config.readonly
        return not (self.config.live and self.config.readonly)

    def _images(self, nodes: list[str]) -> list[str] | None:
        """The image each node's debug pod would run (the choice the runner makes), None when it fails."""
        from kubectl_gpu.core.debugpod import Accelerator, accelerator_of
        from kubectl_gpu.core.errors import KubectlGpuError
        from kubectl_gpu.kube.debug.setup import image_chooser

        by_name = {n.name: n for n in self.snapshot.state.nodes} if self.snapshot else {}
        try:
            choose = image_chooser(None, None)
            kinds = [accelerator_of(by_name[n]) if n in by_name else Accelerator.NVIDIA for n in nodes]
            return [choose(kind).image for kind in kinds]
        except KubectlGpuError as exc:
            self.notify(exc.line(), title="debug image", severity="error", timeout=10)
            return None

    def _ask_then(self, what: str, nodes: list[str], then: Callable[[], None]) -> None:
        """Run `then` once the question about a privileged pod is answered yes (or at once: confirm off)."""
        from kubectl_gpu.tui.screens.confirm import ConfirmPod

        if not self.config.confirm:
            then()
            return
        images = self._images(nodes)
        if images is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                then()
            else:
                self.notify("cancelled: no pod created", timeout=3)

        self.push_screen(ConfirmPod(what, nodes, images, self.config.debug_namespace), callback=answered)

    def action_smi(self) -> None:
        self.smi_on(self._target_nodes())

    def smi_running(self) -> bool:
        """Whether the page on top is an nvidia-smi page still running (a view key waits for it). Its module
        is imported on the first `s` (not at start-up): before that no such page can be on the stack."""
        module = sys.modules.get("kubectl_gpu.tui.debug.smi_screen")
        return module is not None and isinstance(self.screen, module.SmiScreen) and self.screen.running

    def smi_on(self, nodes: list[str]) -> None:
        from kubectl_gpu.tui.debug.smi_screen import SmiScreen

        if not nodes or self.snapshot is None:
            self.notify("select a node (n: Nodes) or mark some with space", severity="warning", timeout=4)
            return
        if not self.debug_allowed("smi"):
            self.notify("read-only: no debug pod is created (s is off)", severity="warning", timeout=4)
            return
        if not self.config.live:
            screen = SmiScreen(nodes, live=False)
            self.push_screen(screen)
            screen.post_message(
                SmiScreen.Finished(JobOutcome(results=offline_smi(self.snapshot.state, nodes)))
            )
            return
        self._ask_then("nvidia-smi", nodes, lambda: self._start_smi(nodes))

    def _start_smi(self, nodes: list[str]) -> None:
        from kubectl_gpu.tui.debug.smi_screen import SmiScreen

        holder: list[SmiScreen] = []

        def phase(node: str, text: str) -> None:
            holder[0].post_message(SmiScreen.Phase(node, text))

        def done(result: SmiResult) -> None:
            holder[0].post_message(SmiScreen.NodeDone(result))

        job = SmiJob(self.config, nodes, on_phase=phase, on_done=done)
        screen = SmiScreen(nodes, live=True, on_cancel=job.cancel)
        holder.append(screen)
        self.jobs.add(job)
        self.push_screen(screen)
        self._run_smi(job, screen)

    @work(thread=True, group="debug", exit_on_error=False)
    def _run_smi(self, job: SmiJob, screen: SmiScreen) -> None:
        """A job never raises (its errors are its outcome's); posting to a page gone never fails."""
        from kubectl_gpu.tui.debug.smi_screen import SmiScreen

        screen.post_message(SmiScreen.Finished(job.run()))

    def action_shell(self) -> None:
        nodes = self._target_nodes()
        self.shell_on(nodes[0] if nodes else None)

    def shell_on(self, node: str | None) -> None:
        if not self.debug_allowed("shell"):
            why = "read-only: no debug pod is created" if self.config.readonly else "it needs a live cluster"
            self.notify(f"x opens a shell in a debug pod: {why}", severity="warning", timeout=5)
            return
        if node is None:
            self.notify("select a node (n: Nodes) first", severity="warning", timeout=4)
            return
        if self.shell_job is not None and not self.shell_job.done.is_set():
            self.notify("a shell is already starting", timeout=3)
            return
        self._ask_then("a shell", [node], lambda: self._start_shell(node))

    def _start_shell(self, node: str) -> None:
        job = ShellJob(self.config, node, hand_over=self._hand_over)
        self.shell_job = job
        self.jobs.add(job)
        self.notify(f"starting a shell pod on {node} (esc cancels)...", timeout=5)
        self._run_shell(job)

    @work(thread=True, group="debug", exit_on_error=False)
    def _run_shell(self, job: ShellJob) -> None:
        outcome = job.run()
        self.call_from_thread(self._shell_done, outcome)

    def _hand_over(self, greeting: list[str], argv: list[str]) -> int:
        """From the shell job's thread: give the terminal to `kubectl exec` on the UI thread, wait for it."""
        result: int = self.call_from_thread(self._exec, greeting, argv)
        return result

    def _exec(self, greeting: list[str], argv: list[str]) -> int:
        from kubectl_gpu.kube.debug.shell import run_in_foreground

        def run() -> int:
            for line in greeting:
                print(message_line(line), file=sys.stderr)  # the pod's notes: made safe, as every message
            return run_in_foreground(argv)

        try:
            with self.suspend():
                return run()
        except SuspendNotSupported:  # no terminal to hand over (headless, tests): run it as it is
            return run()

    def _shell_done(self, outcome: JobOutcome) -> None:
        if outcome.error:
            self.notify(outcome.error, title="shell", severity="error", timeout=10)
        elif outcome.cancelled:
            self.notify("shell cancelled; its pod is deleted", timeout=4)
        else:
            self.notify(f"shell ended (exit {outcome.exit_code}); its pod is deleted", timeout=4)
        for pod in outcome.left:
            self.notify(
                f"could not delete debug pod {pod}; run kubectl gpu cleanup", severity="error", timeout=15
            )
        self.refresh()

    # --- quitting ------------------------------------------------------------------------------------

    async def action_quit(self) -> None:
        if not self.jobs.running or self._quitting:
            self.action_quit_now()
            return
        self._quitting = True
        self.jobs.cancel_all()
        self.notify("deleting debug pods before quitting (q again to quit at once)...", timeout=30)
        self._quit_after_jobs()

    @work(thread=True, group="quit", exit_on_error=False)
    def _quit_after_jobs(self) -> None:
        try:
            self.jobs.wait(60.0)
        finally:  # quit whatever happened: `launch` deletes any pod still tracked
            self.call_from_thread(self.action_quit_now)

    def action_quit_now(self) -> None:
        self._quitting = True
        self.exit(0)

    def run_cleanup(self) -> list[str]:
        """After the app: delete any debug pod still tracked (the last resort; see actions.DebugJobs)."""
        return self.jobs.cleanup()
