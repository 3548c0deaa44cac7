"""Pending rules pinned against their upstream source (Karpenter, kube-scheduler), one test module per rule."""

from kubectl_gpu.core.analyses.pending import Verdict

# Verdict codes the scenario table (tests/core/analyses/pending/test_verdicts.py) does not hold: pinned here instead.
PINNED_ELSEWHERE = frozenset(
    {
        Verdict.NODEPOOL_NOT_READY,
        Verdict.INVALID_SELECTOR,
        Verdict.POD_IGNORED_BY_PROVISIONER,
        Verdict.SCHEDULING_GATED,
        Verdict.NOT_HANDLED_BY_SCHEDULER,
        Verdict.UNVERIFIED,
        Verdict.UNSUPPORTED_KARPENTER_VERSION,  # test_legacy_karpenter.py
        # Issue 11 round two: tests/core/analyses/pending/test_resources.py, test_min_values.py, test_topology.py,
        # test_volumes.py.
        Verdict.INSUFFICIENT_RESOURCES,
        Verdict.HOST_PORT_CONFLICT,
        Verdict.MIN_VALUES_UNSATISFIED,
        Verdict.TOPOLOGY_SPREAD_UNSATISFIABLE,
        Verdict.POD_AFFINITY_UNSATISFIABLE,
        Verdict.VOLUME_TOPOLOGY_CONFLICT,
        Verdict.VOLUME_UNAVAILABLE,
        # Issue 20: tests/core/analyses/pending/test_round_three.py.
        Verdict.NODEPOOL_DELETING,
        Verdict.STATIC_NODEPOOL,
        # Issue 37: tests/core/analyses/pending/test_round_four_advice.py.
        Verdict.NODE_QUARANTINED,
    }
)
