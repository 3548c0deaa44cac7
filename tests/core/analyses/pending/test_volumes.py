"""Issue 11 round two, item 6: volume topology.

kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/volumetopology.go: `GetRequirements`
(bound claim -> its PersistentVolume's required node affinity, local/hostPath without the hostname term;
unbound -> the StorageClass's allowedTopologies), `mergeVolumeRequirementAlternatives`,
`ValidatePersistentVolumeClaims` (deleting, Lost, bound without pv.kubernetes.io/bind-completed, unbound
without a class or with an Immediate class: the pod is ignored); pkg/controllers/provisioning/suite_test.go
"Volume Topology Requirements": "should schedule to volume zones if volume already bound", "should not schedule
if volume zones are incompatible", "should not schedule if storage class zones are incompatible", "should
schedule to storage class zones if volume does not exist (ephemeral volume)", "should not schedule with an
empty storage class if the pvc is not bound", "should not ignore hostname affinity when using non-local path
volumes" (a new node has its own placeholder hostname, `NewNodeClaim`). kube-scheduler
pkg/scheduler/framework/plugins/volumebinding (PV node affinity against the node, unbound immediate claims).
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.analyses.pending import analyse_pending
from kubectl_gpu.core.k8s.state import Note
from tests.core.analyses.pending._round_two import add_requirement, check, gpu_pod, verdict
from tests.core.analyses.pending._scenarios import NOW, Obj, catalog, diagnosis, find, items, state_of

ZONE = "topology.kubernetes.io/zone"
VOLUME = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]


def pvc(
    name: str = "data",
    *,
    volume: str | None = None,
    storage_class: str | None = "gp3",
    phase: str = "Bound",
    bound: bool = True,
) -> Obj:
    spec: dict[str, Any] = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "10Gi"}}}
    if volume:
        spec["volumeName"] = volume
    if storage_class:
        spec["storageClassName"] = storage_class
    annotations = {"pv.kubernetes.io/bind-completed": "yes"} if bound and volume else {}
    return {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": name, "namespace": "t", "annotations": annotations},
        "spec": spec,
        "status": {"phase": phase},
    }


def pv(name: str, *terms: list[dict[str, Any]], local: bool = False) -> Obj:
    spec: dict[str, Any] = {"capacity": {"storage": "10Gi"}}
    if terms:
        spec["nodeAffinity"] = {"required": {"nodeSelectorTerms": [{"matchExpressions": t} for t in terms]}}
    if local:
        spec["local"] = {"path": "/mnt/disks/ssd1"}
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name}, "spec": spec}


def storage_class(
    name: str = "gp3", mode: str = "WaitForFirstConsumer", zones: list[str] | None = None
) -> Obj:
    obj: dict[str, Any] = {
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"name": name},
        "provisioner": "ebs.csi.eks.amazonaws.com",
        "volumeBindingMode": mode,
    }
    if zones:
        obj["allowedTopologies"] = [{"matchLabelExpressions": [{"key": ZONE, "values": zones}]}]
    return obj


def zone_expr(*zones: str) -> list[dict[str, Any]]:
    return [{"key": ZONE, "operator": "In", "values": list(zones)}]


def cluster(pool_zones: list[str] | None, *extra: Obj) -> list[Obj]:
    objects = items("automode-gpu")
    if pool_zones:
        add_requirement(objects, "gpu", {"key": ZONE, "operator": "In", "values": pool_zones})
    return [*objects, *extra, gpu_pod(volumes=VOLUME)]


@pytest.mark.parametrize(
    ("pool_zones", "conflict"), [(["us-west-2b"], True), (["us-west-2a"], False), (None, False)]
)
def test_a_bound_volume_in_another_zone(pool_zones: list[str] | None, conflict: bool) -> None:
    diag = verdict(
        cluster(pool_zones, pvc(volume="pv-a"), pv("pv-a", zone_expr("us-west-2a")), storage_class())
    )
    assert (diag.verdict is V.VOLUME_TOPOLOGY_CONFLICT) is conflict, diag.reason
    assert check(diag, "gpu", "volumes").ok is not conflict


def test_storage_class_allowed_topologies() -> None:
    objects = cluster(
        ["us-west-2b"],
        pvc(storage_class="zonal", phase="Pending"),
        storage_class("zonal", zones=["us-west-2a"]),
    )
    assert verdict(objects).verdict is V.VOLUME_TOPOLOGY_CONFLICT


def test_a_local_volumes_hostname_term_is_dropped_for_a_new_node() -> None:
    host = [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["some-node"]}]
    diag = verdict(cluster(None, pvc(volume="local-1"), pv("local-1", host, local=True), storage_class()))
    assert check(diag, "gpu", "volumes").ok is True


@pytest.mark.parametrize(
    ("claim", "why"),
    [
        (pvc(phase="Pending", storage_class="immediate"), "binds Immediately"),
        (pvc(phase="Lost", volume="gone"), "Lost"),
        (pvc(phase="Pending", storage_class=None), "names no StorageClass"),
        (pvc(volume="pv-a", bound=False), "not bound yet"),
    ],
)
def test_claims_karpenter_does_not_provision_for(claim: Obj, why: str) -> None:
    diag = verdict(cluster(None, claim, pv("pv-a"), storage_class("immediate", mode="Immediate")))
    assert diag.verdict is V.VOLUME_UNAVAILABLE
    assert why in diag.reason


def test_a_claim_not_in_the_data_is_unknown() -> None:
    diag = verdict(cluster(None))
    assert diag.verdict is V.UNVERIFIED
    assert check(diag, "gpu", "volumes").ok is None


def test_forbidden_claims_are_unknown_never_no_blocker_found() -> None:
    state = state_of(cluster(None, pvc(volume="pv-a"), pv("pv-a"), storage_class()))
    note = Note("FORBIDDEN", "forbidden to list persistentvolumeclaims", "persistentvolumeclaims")
    state = dataclasses.replace(state, notes=(note,))
    diag = diagnosis(
        analyse_pending(state, catalog(), NOW, pods=[p for p in state.pods if p.name == "p"]), "t/p"
    )
    assert diag.verdict is V.UNVERIFIED
    assert "forbidden" in diag.reason


def test_alternatives_of_two_volumes_merge() -> None:
    # volumetopology.go mergeVolumeRequirementAlternatives: a|b and b|c leave b.
    from kubectl_gpu.core.analyses.pending.checks.volumes import volume_facts
    from kubectl_gpu.core.analyses.pending.pod.shape import shape_of

    objects = [
        pvc("one", volume="pv-1"),
        pv("pv-1", zone_expr("us-west-2a"), zone_expr("us-west-2b")),
        pvc("two", volume="pv-2"),
        pv("pv-2", zone_expr("us-west-2b"), zone_expr("us-west-2c")),
        gpu_pod(
            volumes=[
                {"name": "a", "persistentVolumeClaim": {"claimName": "one"}},
                {"name": "b", "persistentVolumeClaim": {"claimName": "two"}},
            ]
        ),
    ]
    state = state_of(objects)
    facts = volume_facts(state, shape_of(state.pods[0]), frozenset())
    assert len(facts.alternatives) == 1 and facts.alternatives[0].get(ZONE).values == {"us-west-2b"}


def test_an_existing_node_in_another_zone() -> None:
    objects = items("no-karpenter")
    t4 = find(objects, "Pod", "t4-inference")
    t4["spec"]["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    claim = pvc(volume="pv-a")
    claim["metadata"]["namespace"] = "serving"
    diag = verdict([*objects, claim, pv("pv-a", zone_expr("us-west-2a"))], "t4-inference", "serving")
    assert diag.verdict is V.VOLUME_TOPOLOGY_CONFLICT
    assert "PersistentVolume pv-a requires" in diag.reason


def test_hostname_affinity_of_a_non_local_volume_is_kept() -> None:
    host = [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["some-node"]}]
    diag = verdict(cluster(None, pvc(volume="pv-h"), pv("pv-h", host), storage_class()))
    assert diag.verdict is V.VOLUME_TOPOLOGY_CONFLICT
    assert "some-node" in diag.reason


def test_an_ephemeral_volumes_claim_is_named_after_the_pod() -> None:
    claim = pvc("p-scratch", storage_class="zonal", phase="Pending")
    objects = items("automode-gpu")
    add_requirement(objects, "gpu", {"key": ZONE, "operator": "In", "values": ["us-west-2b"]})
    ephemeral = [
        {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"storageClassName": "zonal"}}}}
    ]
    objects += [claim, storage_class("zonal", zones=["us-west-2a"]), gpu_pod(volumes=ephemeral)]
    assert verdict(objects).verdict is V.VOLUME_TOPOLOGY_CONFLICT
