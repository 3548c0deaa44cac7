"""What every read-only command does first: pick the source, load the cluster, settle on `now`."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING

from kubectl_gpu.cli.options import GlobalOptions, OutputFormat
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.state import ClusterState, Note
from kubectl_gpu.render.output import dump_json, dump_yaml, make_console

if TYPE_CHECKING:
    from kubectl_gpu.kube.live import LiveSource

__all__ = ["Loaded", "emit_data", "live_source", "load_state", "pod_ref", "print_notes"]


class Loaded:
    def __init__(self, state: ClusterState, now: datetime) -> None:
        self.state = state
        self.now = now


def load_state(
    opts: GlobalOptions, kinds: Iterable[str] | None = None, *, selector_on: str = "nodes"
) -> Loaded:
    """Load from --snapshot when given, else from the live cluster of the chosen context.

    `selector_on` says which kind -l filters ("nodes" or "pods"), as kubectl applies -l to the listed kind.
    """
    if opts.snapshot:
        from kubectl_gpu.kube.snapshot import load_snapshot

        state = load_snapshot(opts.snapshot)
        state = _filter_snapshot(state, opts, selector_on)
    else:
        source = live_source(opts, selector_on=selector_on)
        state, _ = source.load(kinds)
    return Loaded(state, opts.now_or(state.captured_at))


def pod_ref(text: str, default_namespace: str | None, what: str = "pod") -> tuple[str, str]:
    """NAMESPACE/NAME or NAME (then -n, else "default") as (namespace, name); InvalidInput when malformed."""
    namespace, slash, name = text.partition("/")
    if not slash:
        namespace, name = default_namespace or "default", text
    if not name or not namespace or "/" in name:
        raise InvalidInput(f"{what}: not a pod name: {text!r}", "write NAME or NAMESPACE/NAME")
    return namespace, name


def live_source(opts: GlobalOptions, *, selector_on: str = "none") -> LiveSource:
    """The live source for the global options (kubeconfig, context, namespace, timeout, -l)."""
    from kubectl_gpu.kube.live import LiveOptions, LiveSource

    return LiveSource(
        LiveOptions(
            kubeconfig=opts.kubeconfig_path(),
            context=opts.context,
            namespace=opts.namespace,
            all_namespaces=opts.all_namespaces or opts.namespace is None,
            request_timeout=opts.timeout_seconds,
            node_selector=opts.selector if selector_on == "nodes" else None,
            pod_selector=opts.selector if selector_on == "pods" else None,
        )
    )


def _filter_snapshot(state: ClusterState, opts: GlobalOptions, selector_on: str) -> ClusterState:
    """Apply -n and -l to a snapshot the way the live source applies them on the server."""
    from kubectl_gpu.core.k8s.selectors import matches_selector, parse_selector

    if opts.namespace and not opts.all_namespaces:
        state.pods = [p for p in state.pods if p.namespace == opts.namespace]
    if opts.selector:
        try:
            selector = parse_selector(opts.selector)
        except ValueError as exc:
            raise InvalidInput(f"-l/--selector: {exc}") from None
        if selector_on == "nodes":
            state.nodes = [n for n in state.nodes if matches_selector(selector, n.labels)]
        elif selector_on == "pods":
            state.pods = [p for p in state.pods if matches_selector(selector, p.meta.labels)]
    return state


def print_notes(notes: Iterable[Note], *, no_color: bool) -> None:
    console = make_console(stderr=True, no_color=no_color)
    for note in notes:
        style = "yellow" if note.code in ("FORBIDDEN", "PARTIAL") else "dim"
        console.print(f"warning: {note.message}", style=style, markup=False, highlight=False)


def emit_data(
    data: dict[str, object] | Callable[[], dict[str, object]], fmt: OutputFormat, notes: list[Note]
) -> bool:
    """Write JSON/YAML to stdout; True when handled (the format was machine-readable).

    `data` may be the report's `to_dict`: a table then never builds the document (on a large cluster
    the pending report alone holds millions of blocker entries)."""
    if fmt not in (OutputFormat.json, OutputFormat.yaml):
        return False
    if callable(data):
        data = data()
    if notes:
        data = {**data, "notes": [{"code": n.code, "message": n.message, "kind": n.kind} for n in notes]}
    sys.stdout.write(dump_json(data) if fmt is OutputFormat.json else dump_yaml(data))
    return True
