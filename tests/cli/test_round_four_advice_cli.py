"""Issue 37, causes 6, 7 and 11, through the CLI: `explain` on the hand-made cases of
tests/scenarios/pending/ours__round-four-advice.yaml reads right to an SRE, and the line between a verified fix
and advice shows in text and JSON. The rules each case follows are cited in
tests/core/analyses/pending/test_round_four_advice.py."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from tests.conftest import Result
from tests.core.analyses.pending._scenarios import NOW_TEXT, path_of

Cli = Callable[..., Result]
SNAPSHOT = str(path_of("round-four-advice"))


def _explain(cli: Cli, pod: str, *extra: str) -> Result:
    return cli("explain", f"advice/{pod}", "--snapshot", SNAPSHOT, "--now", NOW_TEXT, "--no-color", *extra)


@pytest.mark.parametrize(
    ("pod", "verdict", "said", "never", "outcome"),
    [
        # 6: only nodes are judged and none has a Neuron device: no GPU node's taint is the reason.
        (
            "neuron-pinned",
            "POD_IGNORED_BY_PROVISIONER",
            "no node has aws.amazon.com/neuron",
            "does not tolerate",
            "# advice: not tried on a copy of the cluster",
        ),
        # 7: the only term selects the unknown key alone: remove the required node affinity, not the key.
        (
            "team-affinity",
            "UNKNOWN_LABEL",
            "remove spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
            "from the pod's nodeSelector/affinity",
            "# verified (the pod's example.com/team selector removed",
        ),
        # 7: a volume pinned to one hostname: advice about that node, not a zone.
        (
            "pinned-volume",
            "VOLUME_TOPOLOGY_CONFLICT",
            "the pod's volume lives on node i-07fd006840ed07309",
            "allow the volume's zone",
            "# not verified:",
        ),
        # 11: the only node with the MIG slice is quarantined by NVSentinel: named, never tolerated.
        (
            "mig-slice",
            "NODE_QUARANTINED",
            "NVIDIA NVSentinel quarantined it",
            "tolerations:",
            "# not verified:",
        ),
    ],
)
def test_explain_reads_right(cli: Cli, pod: str, verdict: str, said: str, never: str, outcome: str) -> None:
    result = _explain(cli, pod)
    assert result.code == 1 and result.err == "", result.err
    assert f"Verdict: {verdict}" in result.out
    assert said in result.out and never not in result.out, result.out
    assert outcome in result.out.split("Fix:", 1)[1], result.out


def test_json_keeps_verified_fixes_and_advice_apart(cli: Cli) -> None:
    """`fixVerified` is the pod's fix alone: true for the tried selector removal, null for advice; the
    blockers' fixes are advice (docs/json-contract.md)."""
    result = cli("pending", "--snapshot", SNAPSHOT, "--now", NOW_TEXT, "-o", "json")
    data = json.loads(result.out)
    by_name = {p["name"]: p for p in data["pods"]}
    assert by_name["team-affinity"]["fixVerified"] is True
    assert by_name["team-affinity"]["fixAfter"]["verdict"] == "NO_BLOCKER_FOUND"
    assert by_name["mig-slice"]["fixVerified"] is None and by_name["mig-slice"]["fixAfter"] is None
    assert by_name["neuron-pinned"]["fixVerified"] is None


def test_pending_text_marks_each_fix(cli: Cli) -> None:
    result = cli("pending", "--snapshot", SNAPSHOT, "--now", NOW_TEXT, "--no-color")
    fixes = result.out  # the table, then each pod's fix and its outcome line
    assert fixes.count("# verified (") == 1
    assert "# advice: not tried on a copy of the cluster" in fixes
    assert fixes.count("# not verified:") == 2
