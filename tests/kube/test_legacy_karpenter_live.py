"""Issue 11 item 8, live: a Karpenter v0.x cluster serves `karpenter.sh/v1alpha5` provisioners and machines.
`pending` lists them (through the real client, against the suite's API server) and says
UNSUPPORTED_KARPENTER_VERSION; a v1 cluster answers 404 (absent); a 403 there is an UNCHECKED note, never
"could not look". The Provisioner is Karpenter's own example (examples/provisioner/large-instances.yaml)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from kubectl_gpu.core.analyses import pending
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.kube.live import LiveOptions, LiveSource
from tests.helpers import FIXTURES, node, pod
from tests.kube.apiserver import FakeKubeAPI

PROVISIONERS = r"/apis/karpenter\.sh/v1alpha5/provisioners$"
EXAMPLE = (
    FIXTURES / "karpenter" / "karpenter-provider-aws__examples-provisioner__large-instances-v1alpha5.yaml"
)
NOW = datetime(2026, 11, 29, 12, tzinfo=UTC)


def _provisioner_list() -> dict[str, Any]:
    provisioner = next(d for d in yaml.safe_load_all(EXAMPLE.read_text()) if d and d["kind"] == "Provisioner")
    return {
        "apiVersion": "karpenter.sh/v1alpha5",
        "kind": "ProvisionerList",
        "metadata": {},
        "items": [provisioner],
    }


def _serves_v1alpha5(apiserver: FakeKubeAPI) -> None:
    """Discovery as a Karpenter v0.x cluster answers it: karpenter.sh at v1alpha5 (the live source reads
    /apis first and lists only what it names)."""
    versions = [{"groupVersion": "karpenter.sh/v1alpha5", "version": "v1alpha5"}]
    groups = {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [{"name": "karpenter.sh", "versions": versions}],
    }
    apiserver.fault(path=r"^/apis$", status=200, body=groups)


def _load(apiserver: FakeKubeAPI, kubeconfig: Path) -> Any:
    apiserver.add(node("cpu-1"), pod("train", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}))
    state, _ = LiveSource(LiveOptions(kubeconfig=str(kubeconfig))).load(pending.KINDS)
    return state


def test_served_provisioners_give_unsupported_karpenter_version(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    _serves_v1alpha5(apiserver)
    apiserver.fault(path=PROVISIONERS, status=200, body=_provisioner_list())
    state = _load(apiserver, kubeconfig)
    assert [(o.kind, o.name) for o in state.legacy_karpenter] == [("Provisioner", "default")]
    (diag,) = pending.analyse(state, load_catalog(), NOW).pods
    assert diag.verdict is pending.Verdict.UNSUPPORTED_KARPENTER_VERSION
    assert "Provisioner default (karpenter.sh/v1alpha5)" in diag.reason


def test_a_v1_cluster_has_none(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    state = _load(apiserver, kubeconfig)
    assert {"provisioners", "machines"} <= state.absent and not state.notes
    (diag,) = pending.analyse(state, load_catalog(), NOW).pods
    assert diag.verdict is pending.Verdict.NO_ACCELERATOR_NODEPOOL  # as before: no pool, no GPU node


def test_forbidden_provisioners_are_unchecked_not_could_not_look(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    _serves_v1alpha5(apiserver)
    apiserver.fault(path=PROVISIONERS, status=403)
    state = _load(apiserver, kubeconfig)
    (note,) = state.notes
    assert (
        note.code == "UNCHECKED"
        and note.kind == "provisioners"
        and "provisioners.karpenter.sh" in note.message
    )
    assert pending.analyse(state, load_catalog(), NOW).exit_code() == 1  # the pod's verdict, not exit 4
