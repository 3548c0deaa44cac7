"""Issue 11 round two, item 5: `minValues` on NodePool requirements, strict by default.

kubernetes-sigs/karpenter pkg/cloudprovider/types.go `InstanceTypes.SatisfiesMinValues` (the distinct values
of each minValues key over the instance types left must reach minValues; its doc comment's cases: c4/c5/m4
with minValues 3 passes, c4/c4/c5 fails), called from
pkg/controllers/provisioning/scheduling/nodeclaim.go `filterInstanceTypesByRequirements` after the pod's
requirements and resources narrowed the types; with `--min-values-policy` Strict (the default,
pkg/operator/options/options.go) nothing launches then.
"""

from __future__ import annotations

import pytest

from kubectl_gpu.core.analyses.pending import Verdict as V
from tests.core.analyses.pending._round_two import add_requirement, check, gpu_pod, verdict
from tests.core.analyses.pending._scenarios import items

FAMILY = "eks.amazonaws.com/instance-family"


def with_min_values(key: str, values: list[str] | None, minimum: int, *pods: dict) -> list:
    objects = items("automode-gpu")
    requirement: dict = {"key": key, "operator": "In" if values else "Exists", "minValues": minimum}
    if values:
        requirement["values"] = values
    add_requirement(objects, "gpu", requirement)
    return [*objects, *(pods or [gpu_pod()])]


@pytest.mark.parametrize(("minimum", "met"), [(2, True), (3, False)])
def test_min_values_on_the_families(minimum: int, met: bool) -> None:
    diag = verdict(with_min_values(FAMILY, ["g6e", "g6"], minimum))
    assert (diag.verdict is V.MIN_VALUES_UNSATISFIED) is not met, diag.reason
    assert check(diag, "gpu", "minValues").ok is met


def test_the_pods_selector_narrows_the_types_counted() -> None:
    # Two families allowed, minValues 2, but the pod selects g6 only: one family is left.
    pod = gpu_pod(nodeSelector={FAMILY: "g6"})
    diag = verdict(with_min_values(FAMILY, ["g6e", "g6"], 2, pod))
    assert diag.verdict is V.MIN_VALUES_UNSATISFIED
    assert f"{FAMILY}: 1 of minValues 2 (g6)" in diag.reason


def test_the_pods_resources_narrow_the_types_counted() -> None:
    # 8 GPUs fit only the largest sizes: far fewer than 20 instance types.
    pod = gpu_pod(requests={"nvidia.com/gpu": "8"})
    diag = verdict(with_min_values("node.kubernetes.io/instance-type", None, 20, pod))
    assert diag.verdict is V.MIN_VALUES_UNSATISFIED


def test_no_min_values_no_check() -> None:
    diag = verdict([*items("automode-gpu"), gpu_pod()])
    gpu = next(e for e in diag.evaluations if e.target.name == "gpu")
    assert "minValues" not in [c.name for c in gpu.checks]
