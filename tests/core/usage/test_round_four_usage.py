"""Issue 37, cause 10 (usage): what a capture cannot say is unknown, and nothing more; and cause 9 for usage.

- USAGE_EMPTY_GPU_NODE never calls a GPU idle when its utilisation was measured above zero (a node with no
  GPU pod whose GPUs are busy is used by something the pods do not show), and its idle cost is then unknown;
- a node of a static NodePool (`spec.replicas`) is never consolidated (kubernetes-sigs/karpenter
  pkg/controllers/disruption/consolidation.go and emptiness.go skip `OwnedByStaticNodePool()`): its fix is
  to lower replicas, not "let Karpenter consolidate it";
- `usage -o wide` names a MIG instance by its profile and GPU instance id (DCGM's `GPU_I_PROFILE` and
  `GPU_I_ID` labels), so two instances of one profile are two rows apart.

The DCGM text is the real T4 exporter output of tests/fixtures/metrics (PROVENANCE.jsonl) with the MIG labels
dcgm-exporter adds on a MIG instance put on its series at test time, once per instance (the file is never
edited).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

from kubectl_gpu.core.analyses.usage.attribution import gpu_rows
from kubectl_gpu.core.analyses.usage.findings import findings_of
from kubectl_gpu.core.analyses.usage.report import NodeUsage
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet
from kubectl_gpu.core.usage.window import read_window
from kubectl_gpu.render.usage_view import _gpu_row

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "metrics"
T4 = (FIXTURES / "dcgm" / "datadog__tesla-t4__metrics.txt").read_text(encoding="utf-8")
T0 = datetime(2026, 12, 1, 12, tzinfo=UTC)


def _node(util: float | None, pool: str | None = "gpu") -> NodeUsage:
    return NodeUsage(
        name="ip-10-0-1-10",
        instance_type="g4dn.xlarge",
        node_pool=pool,
        model="Tesla T4",
        gpus=Decimal(1),
        held=Decimal(0),
        gpu_pods=0,
        source="dcgm" if util is not None else "allocation-only",
        util_percent=util,
        memory_used_mib=None,
        memory_total_mib=None,
        power_w=None,
        price_per_hour=Decimal("0.526"),
        price_source="list",
        held_cost_per_hour=None,
        idle_cost_per_hour=None,
        state="empty",
    )


def _empty(util: float | None, static: tuple[str, ...] = ()) -> tuple[str, str]:
    (finding,) = findings_of([_node(util)], [], [], [], load_catalog(), 5.0, static)
    assert finding.code == "USAGE_EMPTY_GPU_NODE"
    return finding.message, finding.fix or ""


def test_an_empty_node_measured_at_zero_is_idle() -> None:
    message, fix = _empty(0.0)
    assert "idle" in message and "consolidate" in fix


def test_an_empty_node_measured_above_zero_is_never_called_idle() -> None:
    message, fix = _empty(37.5)
    assert "idle" not in message
    assert "37.5% utilisation" in message and "something outside the GPU pods uses them" in message
    assert fix.startswith("find what runs there") and "kubectl gpu smi ip-10-0-1-10" in fix


def test_an_empty_node_without_a_measure_keeps_the_allocation_answer() -> None:
    message, _ = _empty(None)
    assert "runs no GPU pod: every GPU is paid for and idle" in message


def test_a_static_pools_empty_node_is_told_to_lower_replicas() -> None:
    _, fix = _empty(0.0, ("gpu",))
    assert fix == "lower spec.replicas on NodePool gpu (a static pool keeps its nodes)"
    assert "consolidate" not in fix


def _mig(text: str, instances: list[tuple[str, str, str]]) -> str:
    """Each GPU series of `text` once per (profile, GPU instance id, value of GR_ENGINE_ACTIVE)."""
    out = []
    for line in text.splitlines():
        if line.startswith("#") or 'UUID="' not in line:
            out.append(line)
            continue
        for profile, gi, active in instances:
            labelled = line.replace(
                'modelName="Tesla T4"', f'modelName="Tesla T4",GPU_I_PROFILE="{profile}",GPU_I_ID="{gi}"'
            )
            if labelled.startswith("DCGM_FI_PROF_GR_ENGINE_ACTIVE"):
                labelled = re.sub(r"} \S+$", "} " + active, labelled)
            out.append(labelled)
    return "\n".join(out) + "\n"


def test_wide_names_each_mig_instance_apart() -> None:
    text = _mig(T4, [("1g.5gb", "3", "0.5"), ("1g.5gb", "5", "0.0")])
    scrape = Scrape("dcgm", "gpu-operator", "dcgm-exporter-x", T0, node="ip-10-0-1-10", text=text)
    window = read_window(ScrapeSet(window_s=0, scrapes=(scrape,)))
    rows = gpu_rows(window.gpus, None)
    assert sorted((r.mig_profile, r.mig_instance) for r in rows) == [("1g.5gb", "3"), ("1g.5gb", "5")]
    assert {r.to_dict()["migInstance"] for r in rows} == {"3", "5"}
    names = sorted(_gpu_row(r, 5.0).cells[0].text for r in rows)
    assert names == ["ip-10-0-1-10/0 (1g.5gb, GI 3)", "ip-10-0-1-10/0 (1g.5gb, GI 5)"]


def test_a_whole_gpu_has_no_mig_instance() -> None:
    scrape = Scrape("dcgm", "gpu-operator", "dcgm-exporter-x", T0, node="ip-10-0-1-10", text=T4)
    (row,) = gpu_rows(read_window(ScrapeSet(window_s=0, scrapes=(scrape,))).gpus, None)
    assert row.mig_instance is None and _gpu_row(row, 5.0).cells[0].text == "ip-10-0-1-10/0"
