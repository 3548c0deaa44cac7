"""Property: `pending` never answers NO_BLOCKER_FOUND while a check of the nearest target is unknown or a
kind it depends on could not be read (issue 11, item 10), also with the round-two checks (daemonsets,
NodeOverlays, volumes, topology spread, ephemeral storage: issue 11 items 4 to 7) and round three's (issue 20:
pods read in part, limits on pods, existing nodes as targets, NodeClaims in flight)."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.analyses.pending import Verdict, analyse_pending
from kubectl_gpu.core.k8s.state import Note
from tests.core.analyses.pending._scenarios import NOW, catalog, find, items, state_of

_UNKNOWN_KEYS = ("eks.amazonaws.com/instance-hypervisor", "eks.amazonaws.com/instance-cpu-manufacturer")
_FORBIDDABLE = (
    "nodepools",
    "nodeclaims",
    "events",
    "nodes",
    "persistentvolumeclaims",
    "persistentvolumes",
    "storageclasses",
    "daemonsets",
    "nodeoverlays",
)
_PLURAL = {"StorageClass": "storageclasses"}
_VOLUME_KINDS = frozenset({"persistentvolumeclaims", "persistentvolumes", "storageclasses"})


def _plural(kind: str) -> str:
    return _PLURAL.get(kind, kind.lower() + "s")


def _volume_objects(draw: st.DrawFn) -> list[dict[str, Any]]:
    """A claim (maybe absent), its volume or class, each maybe missing."""
    out: list[dict[str, Any]] = []
    bound = draw(st.booleans())
    claim: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {"name": "data", "namespace": "t"},
        "spec": {"storageClassName": "gp3"},
        "status": {"phase": "Bound" if bound else "Pending"},
    }
    if bound:
        claim["spec"]["volumeName"] = "pv-1"
        claim["metadata"]["annotations"] = {"pv.kubernetes.io/bind-completed": "yes"}
    if draw(st.booleans()):
        out.append(claim)
    zone = draw(st.sampled_from(["us-west-2a", "us-west-2b", "us-west-2c"]))
    if draw(st.booleans()):
        out.append(
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": "pv-1"},
                "spec": {
                    "nodeAffinity": {
                        "required": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {
                                            "key": "topology.kubernetes.io/zone",
                                            "operator": "In",
                                            "values": [zone],
                                        }
                                    ]
                                }
                            ]
                        }
                    }
                },
            }
        )
    if draw(st.booleans()):
        out.append(
            {
                "apiVersion": "storage.k8s.io/v1",
                "kind": "StorageClass",
                "metadata": {"name": "gp3"},
                "volumeBindingMode": draw(st.sampled_from(["WaitForFirstConsumer", "Immediate"])),
            }
        )
    return out


def _node_group_node(zone: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "ng-1",
            "labels": {
                "node.kubernetes.io/instance-type": "g6.12xlarge",
                "topology.kubernetes.io/zone": zone,
                "kubernetes.io/hostname": "ng-1",
            },
        },
        "spec": {},
        "status": {"allocatable": {"cpu": "47", "memory": "180Gi", "nvidia.com/gpu": "4", "pods": "234"}},
    }


def _claim_in_flight(instance_type: str) -> dict[str, Any]:
    return {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodeClaim",
        "metadata": {
            "name": "gpu-inflight",
            "labels": {"karpenter.sh/nodepool": "gpu", "node.kubernetes.io/instance-type": instance_type},
            "creationTimestamp": "2026-11-29T11:58:00Z",
        },
        "spec": {
            "requirements": [],
            "nodeClassRef": {"group": "eks.amazonaws.com", "kind": "NodeClass", "name": "gpu"},
        },
        "status": {"conditions": [{"type": "Launched", "status": "True"}]},
    }


@st.composite
def clusters(draw: st.DrawFn) -> Any:
    objects = items("automode-gpu")
    if draw(st.booleans()):
        objects = [o for o in objects if o["kind"] != "NodeClass"]
    reqs = find(objects, "NodePool", "gpu")["spec"]["template"]["spec"]["requirements"]
    for key in draw(st.lists(st.sampled_from(_UNKNOWN_KEYS), unique=True)):
        reqs.append({"key": key, "operator": "Exists"})
    if draw(st.booleans()):
        reqs.append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2b"]})
    pool = find(objects, "NodePool", "gpu")
    if draw(st.booleans()):  # issue 20: limits on pods (max pods per type, from the catalog)
        pool["spec"]["limits"] = {"pods": str(draw(st.sampled_from([50, 200, 1000])))}
    if draw(st.booleans()):  # issue 20: a node group's GPU node, a target before any NodePool
        objects.append(_node_group_node(draw(st.sampled_from(["us-west-2a", "us-west-2b"]))))
    if draw(st.booleans()):  # issue 20: a NodeClaim in flight, its allocatable not reported yet
        objects.append(_claim_in_flight(draw(st.sampled_from(["g6e.xlarge", "g6.12xlarge", "p5.48xlarge"]))))
    gpus = draw(st.integers(min_value=1, max_value=4))
    requests = {"nvidia.com/gpu": str(gpus)}
    if draw(st.booleans()):
        requests["ephemeral-storage"] = draw(st.sampled_from(["10Gi", "500Gi"]))
    spec: dict[str, Any] = {
        "tolerations": [{"operator": "Exists"}],
        "containers": [{"name": "m", "image": "x", "resources": {"requests": requests}}],
    }
    with_volume = draw(st.booleans())
    if with_volume:
        spec["volumes"] = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
        objects += _volume_objects(draw)
    if draw(st.booleans()):
        spec["topologySpreadConstraints"] = [
            {
                "maxSkew": 1,
                "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "p"}},
            }
        ]
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "t", "uid": "uid-p", "labels": {"app": "p"}},
            "spec": spec,
            "status": {"phase": "Pending"},
        }
    )
    forbidden = draw(st.lists(st.sampled_from(_FORBIDDABLE), unique=True))
    state = state_of(o for o in objects if _plural(o["kind"]) not in forbidden)
    notes = tuple(Note("FORBIDDEN", f"forbidden to list {k}", k) for k in forbidden)
    partial = draw(st.booleans())
    if partial:  # pods readable in one namespace only: what the others take is unknown
        notes += (Note("PARTIAL", "forbidden to list pods cluster-wide: counting namespace t", "pods"),)
    return dataclasses.replace(state, notes=notes), frozenset(forbidden), with_volume, partial


@settings(max_examples=120, deadline=None)
@given(clusters())
def test_no_blocker_found_only_when_every_check_passed(cluster: Any) -> None:
    state, forbidden, with_volume, partial = cluster
    for diag in analyse_pending(state, catalog(), NOW).pods:
        if diag.verdict is not Verdict.NO_BLOCKER_FOUND:
            continue
        nearest = next(e for e in diag.evaluations if e.target == diag.nearest)
        assert all(c.ok is True for c in nearest.checks), (diag.key, nearest.checks)
        assert not forbidden & {"nodepools", "nodeclaims", "nodes"}, (diag.key, forbidden)
        assert not (diag.key == "t/p" and with_volume and forbidden & _VOLUME_KINDS), (diag.key, forbidden)
        # An existing node's free accelerators are unknown while the pods on it are not all read.
        assert not (partial and diag.nearest is not None and diag.nearest.kind == "Node"), diag.key
