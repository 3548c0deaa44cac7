"""The contexts of a kubeconfig, without connecting to any: for the TUI's `:ctx` (completion, and to refuse
an unknown name before anything is read) and its header (the cluster a context points at)."""

from __future__ import annotations

from collections.abc import Mapping

import msgspec

from kubectl_gpu.core.errors import InvalidInput

__all__ = ["KubeContexts", "fleet_contexts", "kube_contexts"]


class KubeContexts(msgspec.Struct, frozen=True):
    names: tuple[str, ...] = ()
    current: str | None = None
    #: context name -> the name of the cluster entry it uses
    clusters: Mapping[str, str] = msgspec.field(default_factory=dict)


def kube_contexts(kubeconfig: str | None) -> KubeContexts:
    """Every context of the kubeconfig (`kubeconfig`, else KUBECONFIG, else ~/.kube/config), sorted; the
    current one as kubectl picks it (`kube.kubeconfig`: the first file to set it wins)."""
    from kubectl_gpu.kube.kubeconfig import load_kubeconfig

    merged = load_kubeconfig(kubeconfig)
    clusters = {name: cluster for name in merged.context_names if (cluster := merged.cluster_of(name))}
    current = merged.current_context if merged.current_context in merged.contexts else None
    return KubeContexts(merged.context_names, current, clusters)


def fleet_contexts(kubeconfig: str | None, names: tuple[str, ...], *, every: bool) -> KubeContexts:
    """The contexts of a fleet run: `names` in the order given (duplicates dropped), or with `every` all
    the kubeconfig's, sorted; a name the kubeconfig lacks is bad input (exit 2), before anything is read."""
    known = kube_contexts(kubeconfig)
    if every:
        if not known.names:
            raise InvalidInput("--all-contexts: the kubeconfig has no contexts", "check --kubeconfig")
        return known
    wanted = tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
    if not wanted:
        raise InvalidInput("--contexts: no context named", "e.g. --contexts prod,staging")
    unknown = [n for n in wanted if n not in known.names]
    if unknown:
        choices = ", ".join(known.names) or "none"
        raise InvalidInput(
            f"--contexts: no context {', '.join(map(repr, unknown))} in the kubeconfig",
            f"its contexts: {choices}",
        )
    return KubeContexts(wanted, known.current, {n: known.clusters[n] for n in wanted if n in known.clusters})
