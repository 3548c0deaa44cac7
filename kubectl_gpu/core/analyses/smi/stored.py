"""`smi` on a snapshot: the probe stored per node by `snapshot --probe`, as the same `SmiResult` a live debug
pod gives (`kubectl gpu smi --snapshot`, the TUI's `s` offline), with the node's pods from the bundle."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kubectl_gpu.core.analyses.smi.analysis import SmiResult
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.probe.attribution import pod_names_by_uid
from kubectl_gpu.core.probe.errors import ProbeParseError

__all__ = ["stored_results"]

PodsOf = Callable[[str], tuple[dict[str, str] | None, str | None]]


def _pods_of(state: ClusterState) -> PodsOf:
    """node -> (its pods from the bundle, UID -> namespace/name; or None and why the bundle has none)."""
    missing = next((n for n in state.notes if n.kind == "pods" and n.code == "FORBIDDEN"), None)
    if missing is not None:
        why = f"the snapshot holds no pod list ({missing.message})"
        return lambda node: (None, why)
    if not state.pods:
        return lambda node: (None, "the snapshot holds no pods")
    return lambda node: (pod_names_by_uid(state.pods_by_node.get(node, [])), None)


def _text(value: object) -> str | None:
    """A string field of a stored probe; anything else (a hand-edited bundle) is dropped."""
    return value if isinstance(value, str) and value else None


def _stored(state: ClusterState, node: str, pods_of: PodsOf) -> SmiResult:
    stored = state.probes.get(node)
    if stored is None:
        return SmiResult(
            node,
            None,
            None,
            error=f"node {node}: the snapshot holds no nvidia-smi output for it (not probed: `snapshot --probe` "
            f"probes the accelerator nodes it reaches); `kubectl gpu smi {node}` on the cluster reads it now",
            missing=True,
        )
    entry = stored if isinstance(stored, dict) else {"output": stored}
    output = entry.get("output")
    error = _text(entry.get("error"))
    from kubectl_gpu.core.probe.saved import parse_saved_output  # the parsers, only where a probe is stored

    try:
        probe = parse_saved_output(output) if isinstance(output, str) and output else None
    except ProbeParseError as exc:  # a bundle edited or truncated by hand
        probe, error = None, error or f"node {node}: stored output is unreadable: {exc}"
    pods, pods_unknown = pods_of(node)
    return SmiResult(
        node,
        _text(entry.get("strategy")),
        probe,
        error=error or (None if probe else f"node {node}: no output stored"),
        raw=output if isinstance(output, str) else None,
        image=_text(entry.get("image")),
        pods=pods,
        pods_unknown=pods_unknown,
    )


def stored_results(state: ClusterState, names: Sequence[str] = ()) -> list[SmiResult]:
    """One result per named node (every probed node when none is named), in that order; a node the
    snapshot did not probe is a result with an error."""
    pods_of = _pods_of(state)
    return [_stored(state, node, pods_of) for node in (list(names) or sorted(state.probes))]
