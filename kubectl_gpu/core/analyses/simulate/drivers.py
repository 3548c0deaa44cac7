"""Drivers: an EC2NodeClass change that moves the AMI moves the NVIDIA driver, so the CUDA ceiling of the nodes
it launches (and of the nodes its drift replaces). A Bottlerocket alias (`bottlerocket@1.26.1`) names a
release whose driver the catalog knows (Bottlerocket's NVIDIA variants, `aws-k8s-<minor>-nvidia`); any other
alias, or `@latest`, is not known: said, never taken as compatible. Auto Mode's NodeClass selects no AMI."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubectl_gpu.core.analyses.diagnose import Suite
from kubectl_gpu.core.analyses.simulate.effects import Direction, Effect
from kubectl_gpu.core.catalog import Catalog
from kubectl_gpu.core.catalog.errors import CatalogError
from kubectl_gpu.core.changes import Applied
from kubectl_gpu.core.changes.fields import ami_aliases
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.lazy_pattern import lazy_pattern
from kubectl_gpu.core.report import ObjectRef

__all__ = ["driver_effects"]

_VARIANT = lazy_pattern(r"aws-k8s-(\d+\.\d+)")


def _pools(state: ClusterState, nodeclass: str) -> set[str]:
    return {
        p.name
        for p in state.nodepools
        if p.node_class_ref and p.node_class_ref.kind == "EC2NodeClass" and p.node_class_ref.name == nodeclass
    }


def _k8s_minor(state: ClusterState, nodeclass: str) -> str | None:
    """The Kubernetes minor of the nodes of the pools that use this EC2NodeClass (their kubelet)."""
    pools = _pools(state, nodeclass)
    for node in state.nodes:
        if node.labels.get("karpenter.sh/nodepool") not in pools:
            continue
        variant = _VARIANT.search(node.os_image or "")  # "Bottlerocket OS 1.26.1 (aws-k8s-1.31-nvidia)"
        if variant:
            return variant.group(1)
        parts = (node.kubelet_version or "").lstrip("v").split(".")
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            return f"{parts[0]}.{parts[1]}"
    return None


def _driver(catalog: Catalog, alias: str, minor: str | None) -> str | None:
    family, _, version = alias.partition("@")
    if family != "bottlerocket" or not version or version == "latest" or minor is None:
        return None
    release = catalog.bottlerocket.release_for(version.lstrip("v"), f"aws-k8s-{minor}-nvidia")
    return release.drivers[-1] if release is not None and release.drivers else None


def _needs(before: Suite, state: ClusterState, nodeclass: str) -> list[tuple[Any, str]]:
    """The CUDA need of each GPU workload with a pod on a node of a pool that uses the class."""
    pools = _pools(state, nodeclass)
    on_pool = {
        (p.namespace, p.name)
        for p in state.pods
        if p.node_name
        and (node := state.node_by_name.get(p.node_name)) is not None
        and node.labels.get("karpenter.sh/nodepool") in pools
    }
    report = before.reports.get("drivers")
    return [
        (w, w.cuda.need.version)
        for w in getattr(report, "workloads", ())
        if w.cuda.need is not None and any((w.namespace, pod) in on_pool for pod in w.pods)
    ]


def driver_effects(
    state: ClusterState, applied: Sequence[Applied], before: Suite, catalog: Catalog
) -> list[Effect]:
    out = []
    for item in applied:
        if item.change.kind != "EC2NodeClass" or item.after is None:
            continue
        old, new = ami_aliases(item.before), ami_aliases(item.after)
        if old == new or not new:
            continue
        ref = ObjectRef("EC2NodeClass", item.change.name)
        moved = f"AMI {', '.join(old) or 'selector'} -> {', '.join(new)}"
        minor = _k8s_minor(state, item.change.name)
        driver = _driver(catalog, new[0], minor)
        if driver is None:
            text = f"{moved}: the new AMI's NVIDIA driver is not known here (only Bottlerocket releases are): check `kubectl gpu drivers` on the first new node"
            out.append(Effect("drivers", Direction.UNCHANGED, ref, text))
            continue
        ceiling = catalog.cuda.max_cuda(driver)
        text = f"{moved}: NVIDIA driver {driver}, CUDA <= {ceiling.cuda if ceiling else 'unknown'}"
        out.append(Effect("drivers", Direction.UNCHANGED, ref, text, None, {"driver": driver}))
        needs = _needs(before, state, item.change.name)
        was = _driver(catalog, old[0], minor) if old else None
        flagged = {str(f.object) for f in before.diagnose.findings if f.code == "CUDA_EXCEEDS_DRIVER"}
        out += _workload_effects(needs, catalog, driver, was, new[0], flagged)
    return out


def _runs(catalog: Catalog, driver: str | None, need: str) -> bool | None:
    if driver is None:
        return None
    try:
        return catalog.cuda.satisfies(driver, need).level.value in ("full", "minor-compat")
    except CatalogError:
        return None


def _workload_effects(
    needs: list[tuple[Any, str]],
    catalog: Catalog,
    driver: str,
    old_driver: str | None,
    alias: str,
    flagged: set[str],
) -> list[Effect]:
    """Each GPU workload whose CUDA need the new driver runs no longer (worse) or now runs (better). With
    the old AMI's driver unknown, "ran before" is the drivers analysis's answer on the nodes as they are
    (`flagged`: the objects of its CUDA_EXCEEDS_DRIVER findings)."""
    out = []
    for workload, need in needs:
        wref = ObjectRef(workload.kind, workload.name, workload.namespace)
        now, was = _runs(catalog, driver, need), _runs(catalog, old_driver, need)
        if was is None:
            was = str(wref) not in flagged
        if now is None or now == was:
            continue
        detail = {"driver": driver, "cudaNeeded": need}
        if now:
            text = f"needs CUDA {need}: driver {driver} of {alias} runs it"
            out.append(Effect("drivers", Direction.BETTER, wref, text, None, detail))
        else:
            text = f"needs CUDA {need}, above what driver {driver} of {alias} runs"
            fix = "keep the AMI until the image is rebuilt for the new CUDA ceiling, or pin an AMI whose driver runs it"
            out.append(Effect("drivers", Direction.WORSE, wref, text, fix, detail))
    return out
