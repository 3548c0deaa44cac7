"""ephemeral-storage of a new node, from real NodeClasses (tests/fixtures/karpenter, see its PROVENANCE.jsonl).

aws/karpenter-provider-aws pkg/providers/instancetype/types.go `ephemeralStorage`: RAID0 instance store when
`instanceStorePolicy: RAID0`; else the `rootVolume` block device; else the AMI family's ephemeral device
(`EphemeralBlockDevice`: /dev/xvda for AL2023, /dev/xvdb for Bottlerocket); else `amifamily.DefaultEBS` 20Gi.
`evictionThreshold`: 10% of it; `kubeReservedResources`: 1Gi. The NodePool min-values example carries
`minValues` through to the requirements (pkg/scheduling/requirements.go `NewNodeSelectorRequirementsWithMinValues`).
"""

from __future__ import annotations

from decimal import Decimal

import pytest
import yaml

from kubectl_gpu.core.analyses.pending.targets.pools.fit import GI, ephemeral_allocatable, ephemeral_capacity
from kubectl_gpu.core.k8s.models import NodeClass, NodePool
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.scheduling.instances import InstanceIndex
from kubectl_gpu.core.scheduling.requirements import nodepool_requirements
from tests.core.analyses.pending._scenarios import catalog
from tests.helpers import FIXTURES

KARPENTER = FIXTURES / "karpenter"


def _objects(name: str) -> list:
    return [parse_object(d) for d in yaml.safe_load_all((KARPENTER / name).read_text()) if d]


def _node_class(name: str) -> NodeClass:
    return next(o for o in _objects(name) if isinstance(o, NodeClass))


def _entry(name: str, provider: str = "karpenter"):  # type: ignore[no-untyped-def]
    return next(e for e in InstanceIndex(catalog(), provider).types if e.it.name == name)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fixture", "expected"),
    [
        ("karpenter-provider-aws__examples-v1__multiple-ebs.yaml", 20 * GI),  # AL2023: /dev/xvda 20Gi
        ("karpenter-provider-aws__examples-v1__bottlerocket.yaml", 20 * GI),  # Bottlerocket: /dev/xvdb 20Gi
        ("karpenter-provider-aws__examples-v1__general-purpose.yaml", 20 * GI),  # no mapping: DefaultEBS
    ],
)
def test_the_ephemeral_device_of_an_ec2nodeclass(fixture: str, expected: Decimal) -> None:
    assert ephemeral_capacity(_node_class(fixture), _entry("g6e.xlarge")) == expected


def test_raid0_instance_store_is_the_local_nvme() -> None:
    node_class = _node_class("karpenter-provider-aws__examples-v1__instance-store-ephemeral-storage.yaml")
    entry = _entry("g6e.xlarge")
    assert entry.it.local_nvme_total_gb > 0
    assert ephemeral_capacity(node_class, entry) == Decimal(entry.it.local_nvme_total_gb) * 10**9


def test_allocatable_leaves_kube_reserved_and_the_eviction_threshold() -> None:
    node_class = _node_class("karpenter-provider-aws__examples-v1__multiple-ebs.yaml")
    capacity = 20 * GI
    assert ephemeral_allocatable(node_class, capacity) == capacity - GI - Decimal(2147483648)  # 10% of 20Gi


def test_auto_mode_ephemeral_storage_size() -> None:
    node_class = _node_class("eks-docs__automode-nodeclass-ephemeral-storage.yaml")
    assert node_class.ephemeral_storage_size == 80 * GI
    small = next(e for e in InstanceIndex(catalog(), "auto").types if e.it.local_nvme_total_gb == 0)
    assert ephemeral_capacity(node_class, small) == 80 * GI


def test_min_values_reach_the_requirements() -> None:
    pool = next(
        o
        for o in _objects("karpenter-provider-aws__examples-v1__min-values-family.yaml")
        if isinstance(o, NodePool)
    )
    reqs = nodepool_requirements(pool.name, pool.requirements, pool.template_labels)
    family = reqs.get("karpenter.k8s.aws/instance-family")
    assert family is not None and family.min_values == 5
