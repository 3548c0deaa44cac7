"""Live: pending reads PersistentVolumeClaims, PersistentVolumes, StorageClasses, DaemonSets and NodeOverlays
through the real `kubernetes` client, and a 403 on one of them leaves the checks that need it unknown
(UNVERIFIED), never NO_BLOCKER_FOUND (issue 11, items 4 to 7)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_gpu.core.analyses import pending
from kubectl_gpu.core.analyses.pending import Verdict
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions
from tests.core.analyses.pending._round_two import add_requirement, daemonset, gpu_pod
from tests.core.analyses.pending._scenarios import NOW, catalog, items
from tests.core.analyses.pending.test_volumes import pv, pvc, storage_class, zone_expr
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.resources import CRD_NAMES


def _serve(apiserver: FakeKubeAPI) -> None:
    # The scenario's events.k8s.io/v1 copies are not served by the fake API: the core/v1 ones are.
    objects = [o for o in items("automode-gpu") if o.get("apiVersion") != "events.k8s.io/v1"]
    add_requirement(
        objects, "gpu", {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-west-2b"]}
    )
    volume = [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]
    apiserver.install_crds(*CRD_NAMES)
    apiserver.add(
        *objects,
        pvc(volume="pv-a"),
        pv("pv-a", zone_expr("us-west-2a")),
        storage_class(),
        daemonset("agent"),
        gpu_pod(volumes=volume),
    )


def _verdict(kubeconfig: Path) -> tuple[Verdict, str]:
    state = LiveClusterSource(SourceOptions(kubeconfig=str(kubeconfig))).load(pending.KINDS)
    report = pending.analyse_pending(state, catalog(), NOW, pods=[p for p in state.pods if p.name == "p"])
    (diag,) = report.pods
    return diag.verdict, diag.reason


def test_the_volume_kinds_are_read_live(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _serve(apiserver)
    verdict, reason = _verdict(kubeconfig)
    assert verdict is Verdict.VOLUME_TOPOLOGY_CONFLICT, reason
    paths = {r.path for r in apiserver.requests}
    assert {"/api/v1/persistentvolumeclaims", "/api/v1/persistentvolumes"} <= paths
    assert {"/apis/storage.k8s.io/v1/storageclasses", "/apis/apps/v1/daemonsets"} <= paths


@pytest.mark.parametrize(
    "path", [r"^/api/v1/persistentvolumeclaims$", r"^/api/v1/persistentvolumes$", r"storageclasses$"]
)
def test_a_forbidden_volume_kind_leaves_the_pod_unverified(
    apiserver: FakeKubeAPI, kubeconfig: Path, path: str
) -> None:
    _serve(apiserver)
    apiserver.fault(path=path, status=403)
    verdict, reason = _verdict(kubeconfig)
    assert verdict is Verdict.UNVERIFIED, reason
    assert "forbidden" in reason
