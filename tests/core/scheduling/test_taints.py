from __future__ import annotations

import pytest

from kubectl_gpu.core.scheduling.taints import (
    EFFECTS,
    Taint,
    Toleration,
    not_tolerated_message,
    pretty,
    suggest_toleration,
    tolerates,
    untolerated,
)

GPU = Taint("nvidia.com/gpu", "", "NoSchedule")
GPU_TRUE = Taint("nvidia.com/gpu", "true", "NoSchedule")
GPU_EXEC = Taint("nvidia.com/gpu", "", "NoExecute")
GPU_PREFER = Taint("nvidia.com/gpu", "", "PreferNoSchedule")
CRITICAL = Taint("CriticalAddonsOnly", "", "NoSchedule")


def tol(**kw: object) -> Toleration:
    return Toleration.from_dict(kw)


@pytest.mark.parametrize(
    ("toleration", "taint", "expected"),
    [
        # Exists
        (tol(key="nvidia.com/gpu", operator="Exists"), GPU, True),
        (tol(key="nvidia.com/gpu", operator="Exists"), GPU_TRUE, True),  # Exists ignores the value
        (tol(key="nvidia.com/gpu", operator="Exists", value="ignored"), GPU_TRUE, True),
        (tol(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule"), GPU_EXEC, False),
        (tol(key="nvidia.com/gpu", operator="Exists", effect="NoExecute"), GPU_EXEC, True),
        (tol(key="amd.com/gpu", operator="Exists"), GPU, False),
        # empty key + Exists tolerates everything; empty effect matches every effect
        (tol(operator="Exists"), GPU, True),
        (tol(operator="Exists"), GPU_TRUE, True),
        (tol(operator="Exists"), CRITICAL, True),
        (tol(operator="Exists", effect="NoExecute"), GPU, False),
        (tol(operator="Exists", effect="NoExecute"), GPU_EXEC, True),
        # Equal (default operator): exact value
        (tol(key="nvidia.com/gpu"), GPU, True),  # operator defaults to Equal, "" == ""
        (tol(key="nvidia.com/gpu"), GPU_TRUE, False),
        (tol(key="nvidia.com/gpu", operator="Equal", value="true"), GPU_TRUE, True),
        (tol(key="nvidia.com/gpu", operator="Equal", value="True"), GPU_TRUE, False),  # case-sensitive
        (tol(key="nvidia.com/gpu", operator="Equal", value="true "), GPU_TRUE, False),  # no trimming
        (tol(key="nvidia.com/gpu", operator="Equal", value="true"), GPU, False),  # value mismatch
        (tol(key="NVIDIA.com/gpu", operator="Exists"), GPU, False),  # keys are case-sensitive
        # empty key + Equal: ToleratesTaint compares values only (API validation forbids the spelling)
        (tol(operator="Equal"), GPU, True),
        (tol(operator="Equal"), GPU_TRUE, False),
        # NoExecute with tolerationSeconds still tolerates for scheduling
        (
            tol(key="nvidia.com/gpu", operator="Exists", effect="NoExecute", tolerationSeconds=300),
            GPU_EXEC,
            True,
        ),
        (
            tol(key="nvidia.com/gpu", operator="Exists", effect="NoExecute", tolerationSeconds=0),
            GPU_EXEC,
            True,
        ),
        # unknown operator tolerates nothing
        (tol(key="nvidia.com/gpu", operator="exists"), GPU, False),
    ],
)
def test_tolerates_table(toleration: Toleration, taint: Taint, expected: bool) -> None:
    assert toleration.tolerates(taint) is expected
    assert tolerates([toleration], taint) is expected


@pytest.mark.parametrize(
    ("operator", "tol_value", "taint_value", "expected"),
    [
        ("Lt", "10", "5", True),  # taint < toleration
        ("Lt", "10", "10", False),
        ("Gt", "10", "11", True),  # taint > toleration
        ("Gt", "10", "10", False),
        ("Gt", "-3", "0", True),
        ("Gt", "10", "011", False),  # non-canonical integers never match
        ("Lt", "+10", "5", False),
        ("Lt", "10", "abc", False),
        ("Lt", "10", "", False),
        ("Gt", "9223372036854775807", "9223372036854775808", False),  # out of int64
    ],
)
def test_comparison_operator_tolerations(
    operator: str, tol_value: str, taint_value: str, expected: bool
) -> None:
    toleration = Toleration(key="example.com/slots", operator=operator, value=tol_value)
    taint = Taint("example.com/slots", taint_value, "NoSchedule")
    assert toleration.tolerates(taint) is expected
    assert toleration.tolerates(taint, comparison_operators=False) is False


def test_from_dict_defaults_and_errors() -> None:
    t = Toleration.from_dict({})
    assert t == Toleration("", "Equal", "", "", None)
    assert Toleration.from_dict({"operator": ""}).operator == "Equal"
    assert (
        Toleration.from_dict({"key": "k", "operator": "Exists", "tolerationSeconds": 30}).toleration_seconds
        == 30
    )
    with pytest.raises(TypeError):
        Toleration.from_dict({"tolerationSeconds": "30"})
    with pytest.raises(TypeError):
        Toleration.from_dict({"key": 1})
    assert Taint.from_dict({"key": "k", "effect": "NoSchedule", "timeAdded": "x"}) == Taint(
        "k", "", "NoSchedule"
    )
    with pytest.raises(ValueError, match="key"):
        Taint.from_dict({"effect": "NoSchedule"})
    with pytest.raises(ValueError, match="effect"):
        Taint.from_dict({"key": "k"})


def test_untolerated_effects() -> None:
    taints = [GPU, GPU_PREFER, CRITICAL, GPU_EXEC]
    assert untolerated([], taints) == (GPU, CRITICAL, GPU_EXEC)  # PreferNoSchedule never blocks
    assert untolerated([], taints, EFFECTS) == (GPU, GPU_PREFER, CRITICAL, GPU_EXEC)  # Karpenter's 1st pass
    tols = [tol(key="nvidia.com/gpu", operator="Exists")]
    assert untolerated(tols, taints) == (CRITICAL,)
    assert untolerated([tol(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule")], taints) == (
        CRITICAL,
        GPU_EXEC,
    )
    assert untolerated([tol(operator="Exists")], taints, EFFECTS) == ()


def test_pretty_and_messages() -> None:
    assert pretty(GPU) == "nvidia.com/gpu:NoSchedule"
    assert pretty(GPU_TRUE) == "nvidia.com/gpu=true:NoSchedule"
    assert str(GPU_TRUE) == "nvidia.com/gpu=true:NoSchedule"
    # karpenter_messages.json / EKS-FACTS §2.2
    assert not_tolerated_message(GPU) == "did not tolerate taint (taint=nvidia.com/gpu:NoSchedule)"
    assert not_tolerated_message(GPU_TRUE) == "did not tolerate taint (taint=nvidia.com/gpu=true:NoSchedule)"
    assert not_tolerated_message(GPU, "v1.1") == "did not tolerate nvidia.com/gpu:NoSchedule"
    assert not_tolerated_message(GPU, "v1.0") == "did not tolerate nvidia.com/gpu=:NoSchedule"
    # observed on Karpenter v1.0.6 (aws/karpenter-provider-aws#7574)
    one = Taint("nvidia.com/gpu", "1", "NoSchedule")
    assert not_tolerated_message(one, "v1.0") == "did not tolerate nvidia.com/gpu=1:NoSchedule"


@pytest.mark.parametrize("taint", [GPU, GPU_TRUE, GPU_EXEC, GPU_PREFER, CRITICAL])
def test_suggest_toleration(taint: Taint) -> None:
    suggestion = suggest_toleration(taint)
    if taint.value:
        assert suggestion == {
            "key": taint.key,
            "operator": "Equal",
            "value": taint.value,
            "effect": taint.effect,
        }
    else:
        assert suggestion == {"key": taint.key, "operator": "Exists", "effect": taint.effect}
    assert Toleration.from_dict(suggestion).tolerates(taint)


def test_round_trip_dicts() -> None:
    assert Taint.from_dict(GPU_TRUE.to_dict()) == GPU_TRUE
    assert GPU.to_dict() == {"key": "nvidia.com/gpu", "effect": "NoSchedule"}
    t = Toleration("k", "Exists", "", "NoExecute", 60)
    assert Toleration.from_dict(t.to_dict()) == t
