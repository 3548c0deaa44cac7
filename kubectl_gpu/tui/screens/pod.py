"""One pod (from a node's pods): what it is, the findings about it and, when it is Pending, `kubectl gpu
explain`'s page (the same view model); `e` events, `y` YAML, `l` the last log lines (live only, bounded),
`enter` its node's pods; `esc` or `-` back."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from rich.console import Group, RenderableType
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.screen import Screen

from kubectl_gpu.core.accelerators.resources import accelerator_requests, is_accelerator_resource
from kubectl_gpu.core.analyses.pending import PodDiagnosis
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.kube.pod_logs import LIMIT_BYTES, TAIL_LINES, LogTail
from kubectl_gpu.render import theme
from kubectl_gpu.render.node_pods_view import owner_text
from kubectl_gpu.render.page_lines import message_line, page_text, page_title, pod_gone
from kubectl_gpu.tui.drill import GONE, Drill
from kubectl_gpu.tui.messages import ShowObject
from kubectl_gpu.tui.page_text import log_text
from kubectl_gpu.tui.screens.detail import Body, DetailScreen
from kubectl_gpu.tui.screens.explain import explain_parts
from kubectl_gpu.tui.views.base import lines, object_detail

__all__ = [
    "PodScreen",
    "find_pod",
    "log_body",
    "log_container",
    "log_page",
    "log_title",
    "pod_body",
    "show_logs",
]


def log_container(pod: Pod) -> str | None:
    """The container whose log to read: the first that asks for an accelerator, else the first."""
    containers = [c for c in pod.containers if c.name]
    for container in containers:
        if any(is_accelerator_resource(name) for name in container.resource_names):
            return container.name
    return containers[0].name if containers else None


def _containers(pod: Pod) -> str | None:
    states = [
        f"{s.name} {s.state}{f' ({s.reason})' if s.reason else ''}, {s.restart_count} restarts"
        for s in pod.container_statuses
        if not s.init
    ]
    return "; ".join(states) or None


def pod_body(drill: Drill, pod: Pod | None, ref: ObjectRef, diag: PodDiagnosis | None) -> RenderableType:
    if pod is None:
        return Text(pod_gone(ref, GONE), style=theme.WARNING)
    wanted = accelerator_requests(pod.requests)
    head = lines(
        [
            ("Pod", (f"{pod.namespace}/{pod.name}", theme.HEADER)),
            ("Phase", "Terminating" if pod.meta.deleting else pod.phase),
            ("Node", pod.node_name or "none (not scheduled)"),
            ("Owner", owner_text(pod)),
            ("Accelerators", ", ".join(f"{k} {v}" for k, v in sorted(wanted.items())) or "none"),
            ("Containers", _containers(pod)),
            ("Keys", "e events  y YAML  l last log lines  enter its node  esc back"),
        ]
    )
    parts: list[RenderableType] = [object_detail(drill.snapshot, ref, head)]
    if diag is not None:
        parts += [Text(""), Text("explain (as kubectl gpu explain prints it):", style=theme.HEADER)]
        parts += explain_parts(diag)
    return Group(*parts)


def log_title(ref: ObjectRef, container: str | None) -> str:
    return page_title("logs", ref) + (page_title(f" ({container})") if container else "")


def log_body(tail: LogTail) -> Body:
    """The log's last lines (made safe: a log is cluster text; bounded, the newest kept: `tui.page_text`)
    and the text `c` copies, whole; or the one line why there is none."""
    if tail.text is None:
        return Text(message_line(tail.error or "no log"), style=theme.WARNING), None
    note = f"the last {TAIL_LINES} lines, at most {LIMIT_BYTES // 1024} KiB" + (
        " (cut at that size: older lines are left out)" if tail.cut else ""
    )
    text = page_text(tail.text) or "(the log is empty)"
    return Group(Text(note, style=theme.MUTED), log_text(text)), text


def log_page(ref: ObjectRef, tail: LogTail) -> DetailScreen:
    """The log's last lines as a page, built here (`show_logs` builds it in a worker thread)."""
    body, copy = log_body(tail)
    return DetailScreen(log_title(ref, tail.container), body, copy=copy, copy_what="the log lines")


def find_pod(drill: Drill, ref: ObjectRef) -> Pod | None:
    """The pod `ref` names, as the drill's refresh read it (None: gone)."""
    pods = drill.snapshot.state.pods
    return next((p for p in pods if p.name == ref.name and p.namespace == ref.namespace), None)


def show_logs(screen: Screen[Any], drill: Drill, ref: ObjectRef, pod: Pod | None) -> None:
    """`l` (k9s' logs key) on a pod or a list of pods: its last log lines on a page that opens at once and
    reads them in a worker thread (`esc` leaves meanwhile); live only: a snapshot has none, and says so."""
    app = screen.app
    if not drill.live:
        app.push_screen(log_page(ref, LogTail(error="logs are not in a snapshot")))
        return
    container = log_container(pod) if pod is not None else None
    waiting = Text(f"reading the last {TAIL_LINES} log lines...", style=theme.MUTED)
    page = DetailScreen(log_title(ref, container), waiting, copy_what="the log lines")
    app.push_screen(page)
    page.fill(partial(_read_log, drill, ref, container), "the log")


def _read_log(drill: Drill, ref: ObjectRef, container: str | None) -> Body:
    return log_body(drill.logs(ref.namespace or "", ref.name, container))


class PodScreen(DetailScreen):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q,minus,backspace", "back", "Back"),
        Binding("e", "object('events')", "Events"),
        Binding("y", "object('yaml')", "YAML"),
        Binding("l", "logs", "Logs"),
        Binding("enter", "node", "Node"),  # one level down: its node's pods (Shift+N sorts by name)
    ]

    def __init__(self, drill: Drill, ref: ObjectRef, open_node: Callable[[str], Screen[None]]) -> None:
        self.ref = ref
        self._read(drill)
        fix = self.diag.fix if self.diag is not None else None
        super().__init__(
            page_title("pod", f"{ref.namespace}/{ref.name}"), self._body(), copy=fix, copy_what="the fix"
        )
        self.open_node = open_node  # a node's pods page (the module that draws it opens this one)

    def _read(self, drill: Drill) -> None:
        ref, self.drill = self.ref, drill
        self.pod = find_pod(drill, ref)
        key = f"{ref.namespace}/{ref.name}"
        self.diag = next((d for d in drill.snapshot.pending.pods if d.key == key), None)

    def _body(self) -> RenderableType:
        return pod_body(self.drill, self.pod, self.ref, self.diag)

    def follow(self, drill: Drill) -> None:
        """A refresh: the same pod, as it is now (or gone)."""
        self._read(drill)
        self.show_body(self._body(), self.diag.fix if self.diag is not None else None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A pod gone from the refresh has no YAML or node to show (its events may remain; `l` stays the
        pod's logs key, and says why there are none, rather than turn into the Lifecycle view's)."""
        if action == "object" and parameters[:1] == ("yaml",):
            return self.pod is not None
        if action == "node":
            return self.pod is not None and bool(self.pod.node_name)
        return super().check_action(action, parameters)

    def action_object(self, what: str) -> None:
        self.app.post_message(ShowObject(self.ref, "yaml" if what == "yaml" else "events"))

    def action_node(self) -> None:
        node = self.pod.node_name if self.pod is not None else None
        if not node:
            self.notify("the pod is not on a node", severity="warning", timeout=3)
            return
        self.app.push_screen(self.open_node(node))

    def action_logs(self) -> None:
        show_logs(self, self.drill, self.ref, self.pod)
