"""Issue 11 item 8: a Karpenter older than v1 (v1alpha5 Provisioner / Machine, or their events) is named with
UNSUPPORTED_KARPENTER_VERSION, never answered as if the cluster had no NodePools.

Objects: Karpenter's own v1alpha5 examples (tests/fixtures/karpenter, aws/karpenter-provider-aws
examples/provisioner/large-instances.yaml and examples/machine.yaml). Event texts: v0.31's scheduler
(`incompatible with provisioner %q, ...`, kubernetes-sigs/karpenter scheduler.go @v0.31), as reported in
aws/karpenter-provider-aws#4738 and #4698, and its `Pod should schedule on: machine/<name>` nomination."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kubectl_gpu.core.analyses.pending import Verdict
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.karpenter.legacy import legacy_karpenter
from tests.core.analyses.pending._scenarios import NOW_TEXT, analyse, diagnosis, items, state_of
from tests.helpers import FIXTURES

PROVISIONER = (
    FIXTURES / "karpenter" / "karpenter-provider-aws__examples-provisioner__large-instances-v1alpha5.yaml"
)
MACHINE = FIXTURES / "karpenter" / "karpenter-provider-aws__examples__machine-v1alpha5.yaml"

# aws/karpenter-provider-aws#4738 (Karpenter 0.31.0), the controller's "Could not schedule pod" error, which it
# also writes as the pod's FailedScheduling event ("Failed to schedule pod, <err>"); overhead shortened there.
V031_FAILED = (
    'Failed to schedule pod, incompatible with provisioner "monitoring", daemonset overhead={"cpu":"655m",'
    '"memory":"643072k","pods":"7"}, no instance type satisfied resources {"cpu":"2655m","memory":'
    '"22117908480","pods":"8"} and requirements karpenter.k8s.aws/instance-category In [c m r]'
)
# aws/karpenter-provider-aws#4698 (karpenter-core v0.30.0).
V030_LIMITS = 'Failed to schedule pod, all available instance types exceed limits for provisioner: "default"'
V031_NOMINATED = "Pod should schedule on: machine/default-8xv2q"


def _docs(path: Any) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _event(reason: str, message: str, pod: str = "training/h100-eval", kind: str = "Pod") -> dict[str, Any]:
    namespace, name = pod.split("/")
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{name}.legacy", "namespace": namespace},
        "involvedObject": {"kind": kind, "namespace": namespace, "name": name},
        "reason": reason,
        "message": message,
        "source": {"component": "karpenter"},
        "count": 1,
        "firstTimestamp": NOW_TEXT,
        "lastTimestamp": NOW_TEXT,
    }


def test_v1alpha5_objects_parse_as_legacy_karpenter() -> None:
    state = state_of(_docs(PROVISIONER) + _docs(MACHINE))
    assert sorted((o.kind, o.name, o.api_version) for o in state.legacy_karpenter) == [
        ("AWSNodeTemplate", "my-provider", "karpenter.k8s.aws/v1alpha1"),
        ("Machine", "example", "karpenter.sh/v1alpha5"),
        ("Provisioner", "default", "karpenter.sh/v1alpha5"),
    ]
    assert not state.nodepools
    assert "Provisioner default (karpenter.sh/v1alpha5)" in (legacy_karpenter(state) or "")


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param(lambda: _docs(PROVISIONER), id="Provisioner"),
        pytest.param(lambda: _docs(MACHINE), id="Machine"),
        pytest.param(lambda: [_event("FailedScheduling", V031_FAILED)], id="v0.31 FailedScheduling"),
        pytest.param(lambda: [_event("FailedScheduling", V030_LIMITS)], id="v0.30 limits"),
        # on another pod: the nominated one is PROVISIONING (capacity is on its way)
        pytest.param(
            lambda: [_event("Nominated", V031_NOMINATED, "training/a100-job")], id="v0.31 Nominated"
        ),
        pytest.param(
            lambda: [_event("Launched", "Launched machine", "default/default-8xv2q", kind="Machine")],
            id="event about a Machine",
        ),
    ],
)
def test_a_pre_v1_karpenter_is_said_instead_of_no_nodepool(extra: Any) -> None:
    objects = items("no-karpenter")
    before = analyse(objects)
    assert diagnosis(before, "training/rocm-0").verdict is Verdict.NO_ACCELERATOR_NODEPOOL
    report = analyse(objects + extra())
    for key in ("training/rocm-0", "training/h100-eval", "notebooks/notebook-c"):
        diag = diagnosis(report, key)
        assert diag.verdict is Verdict.UNSUPPORTED_KARPENTER_VERSION, key
        assert "older than v1" in diag.reason and diag.fix and "provisioner" in diag.fix
    assert report.exit_code() == 1  # blocking: a human has to look


def test_v1_nodepools_that_offer_the_accelerator_are_still_evaluated() -> None:
    """A migration in progress: a v1alpha5 Provisioner next to v1 NodePools that can serve the pod."""
    objects = items("automode-gpu")
    before = {d.key: d.verdict for d in analyse(objects).pods}
    after = {d.key: d.verdict for d in analyse(objects + _docs(PROVISIONER)).pods}
    changed = {k for k in before if before[k] != after[k]}
    assert all(after[k] is Verdict.UNSUPPORTED_KARPENTER_VERSION for k in changed)
    # no v1 NodePool offers MIG slices or Neuron devices: the Provisioner might
    assert {k for k, v in before.items() if v is Verdict.NO_ACCELERATOR_NODEPOOL} == changed
    assert changed == {"ml/mig-slice", "ml/neuron-6c9d4-xk2lq"}


def test_v1_messages_are_not_taken_for_v1alpha5() -> None:
    state = state_of(
        [
            _event("FailedScheduling", 'Failed to schedule pod, incompatible with nodepool "gpu", ...'),
            _event("Nominated", "Pod should schedule on: nodeclaim/gpu-ljvhl"),
        ]
    )
    assert legacy_karpenter(state) is None
    assert parse_object(_docs(MACHINE)[0]) is not None


@pytest.mark.parametrize(
    "message",
    [
        V031_FAILED,
        V030_LIMITS,
        V031_NOMINATED,
        V031_FAILED.upper(),
        V031_NOMINATED.replace("machine", "MaChInE"),
        'incompatible with proviſioner "x"',  # U+017F folds to `s` under re.IGNORECASE: left to the pattern
        "label karpenter.sh/provisioner-name not found",
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
        "Pod should schedule on: nodeclaim/default-8xv2q",
        "",
    ],
)
def test_the_cheap_test_never_drops_a_message_the_pattern_matches(message: str) -> None:
    """`_may_be_legacy` only skips the pattern for messages it cannot match (50,000 events: bench/)."""
    from kubectl_gpu.core.karpenter.legacy import _EVENT_TEXT, _may_be_legacy

    if _EVENT_TEXT.search(message):
        assert _may_be_legacy(message)


@pytest.mark.parametrize(
    "message",
    [
        V031_FAILED,
        V031_NOMINATED.replace("machine", "MaChInE"),
        'incompatible with proviſioner "x"',
        "label karpenter.sh/provisioner-name not found",
    ],
)
def test_a_v1alpha5_message_among_many_plain_ones_is_found(message: str) -> None:
    """A message in the v1alpha5 form is found wherever it stands among 2,000 plain ones (the first, a middle
    one, the last): the cheap test that skips plain messages (`_may_be_legacy`) never skips it."""
    plain = [f"0/{n} nodes are available: {n} Insufficient nvidia.com/gpu." for n in range(2000)]
    for where in (0, 1000, 2000):
        events = [_event("FailedScheduling", m) for m in [*plain[:where], message, *plain[where:]]]
        assert legacy_karpenter(state_of(events)) is not None, where


def test_an_event_about_a_legacy_kind_among_plain_ones_is_found() -> None:
    """The one-pass test over every message (`_any_legacy_event`) does not read the messages alone: an event
    about a Machine whose words name neither a provisioner nor a machine is still a sign."""
    plain = [_event("FailedScheduling", f"0/{n} nodes are available.") for n in range(500)]
    about = _event("Launched", "Launched instance i-0abc", pod="default/default-8xv2q", kind="Machine")
    assert legacy_karpenter(state_of(plain)) is None
    found = legacy_karpenter(state_of([*plain, about]))
    assert found == "an event about Machine default-8xv2q: 'Launched instance i-0abc'"


def test_messages_taken_together_make_no_sign_that_none_has_alone() -> None:
    """Messages that spell `provisioner` or `machine/` only across their join are no sign; the legacy objects
    are still named when no event is one."""
    events = [
        _event("A", "incompatible with provi"),
        _event("B", 'sioner "x"'),
        _event("C", "machine"),
        _event("D", "/x"),
    ]
    assert legacy_karpenter(state_of(events)) is None
    assert legacy_karpenter(state_of(_docs(PROVISIONER) + _docs(MACHINE) + events)) == legacy_karpenter(
        state_of(_docs(PROVISIONER) + _docs(MACHINE))
    )
