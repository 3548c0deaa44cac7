"""The contexts of a kubeconfig, without connecting to any: for the TUI's `:ctx` (completion, and to refuse
an unknown name before anything is read) and its header (the cluster a context points at)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from kubectl_gpu.core.errors import ClusterError, InvalidInput

__all__ = ["KubeContexts", "fleet_contexts", "kube_contexts"]


@dataclass(frozen=True, slots=True)
class KubeContexts:
    names: tuple[str, ...] = ()
    current: str | None = None
    #: context name -> the name of the cluster entry it uses
    clusters: Mapping[str, str] = field(default_factory=dict)


def kube_contexts(kubeconfig: str | None) -> KubeContexts:
    """Every context of the kubeconfig (`kubeconfig`, else KUBECONFIG, else ~/.kube/config), sorted."""
    from kubernetes import config
    from kubernetes.config.config_exception import ConfigException

    try:
        contexts, active = config.list_kube_config_contexts(config_file=kubeconfig)  # type: ignore[no-untyped-call]
    except ConfigException as exc:
        raise ClusterError(f"cannot load kubeconfig: {exc}") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read kubeconfig: {exc}") from None
    except Exception as exc:  # a malformed file: yaml, type and key errors from inside the client
        raise InvalidInput(f"malformed kubeconfig: {type(exc).__name__}: {str(exc)[:200]}") from None
    names: list[str] = []
    clusters: dict[str, str] = {}
    for entry in contexts or []:
        name = entry.get("name") if isinstance(entry, dict) else None
        if not isinstance(name, str):
            continue
        names.append(name)
        cluster = (entry.get("context") or {}).get("cluster")
        if isinstance(cluster, str):
            clusters[name] = cluster
    current = (active or {}).get("name") if isinstance(active, dict) else None
    return KubeContexts(tuple(sorted(names)), current if isinstance(current, str) else None, clusters)


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
