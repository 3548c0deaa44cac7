"""The views of `smi` (on the demo bundle's stored probes), `--dry-run`, `cleanup` and the fan-out
progress, against golden text files where the text is worth reading whole."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kubectl_gpu.cli.debug.smi import _from_snapshot
from kubectl_gpu.cli.options import GlobalOptions
from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.debugpod import DebugPodSpec, Strategy, build_debug_pod, kubectl_debug_command
from kubectl_gpu.render.smi_view import (
    DryRunPlan,
    FanoutProgress,
    SmiView,
    cleanup_table,
    dry_run_text,
    smi_view,
)
from tests.render.helpers import check_golden, render

DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json")


def _text(view: SmiView) -> str:
    """stdout, then (after a marker line) what goes to stderr."""
    if view.err is None:
        return render(view.out) + "--- nothing on stderr ---\n"
    return render(view.out) + "--- stderr ---\n" + render(view.err)


def test_smi_on_the_demo_probes() -> None:
    results = _from_snapshot(GlobalOptions(snapshot=(DEMO,)), [])
    check_golden("smi", _text(smi_view(results)))
    check_golden("smi-wide", _text(smi_view(results, wide=True)))


def test_smi_with_only_a_failed_node_has_no_gpu_tables_and_errors_on_stderr() -> None:
    view = smi_view([SmiResult("i-0aaa", None, None, error="node i-0aaa: not probed in this snapshot")])
    assert render(view.out) == (
        "NODE    DRIVER  CUDA  GPUS  STRATEGY  STATUS\ni-0aaa  -       -     -     -         error\n"
    )
    assert view.err is not None
    assert render(view.err) == "error: node i-0aaa: not probed in this snapshot\n"


def test_smi_without_errors_or_notes_has_nothing_for_stderr() -> None:
    results = _from_snapshot(GlobalOptions(snapshot=(DEMO,)), ["i-06e3be66fc8ce4055"])
    assert smi_view(results).err is None


def _plan(node: str, strategy: Strategy, notes: tuple[str, ...] = ()) -> DryRunPlan:
    spec = DebugPodSpec(
        node=node,
        image="ghcr.io/kubectl-gpu/debug-nvidia:0.1.0",
        suffix="x7k2p",
        command=("sh", "-c", "nvidia-smi -q -x"),
        strategy=strategy,
        resource="nvidia.com/gpu",
        active_deadline_seconds=180,
    )
    return DryRunPlan(
        node=node,
        strategy=strategy.value,
        image_source="default",
        manifest=build_debug_pod(spec),
        kubectl=kubectl_debug_command(spec, ["--context", "demo"]),
        notes=notes,
    )


def test_dry_run_text() -> None:
    plans = [
        _plan(
            "i-0aaa",
            Strategy.PRIVILEGED_ALL,
            ("auto: when this pod sees no device, a second pod requests one",),
        ),
        _plan("i-0bbb", Strategy.REQUEST),
    ]
    check_golden("dry-run", dry_run_text(plans))


def _pod(name: str, **fields: Any) -> dict[str, Any]:
    meta = {"namespace": "default", "name": name, "labels": {"kubectl-gpu/mode": "smi"}}
    return {"metadata": {**meta, **fields.pop("metadata", {})}, **fields}


def test_cleanup_table() -> None:
    pods = [
        _pod(
            "kubectl-gpu-smi-i-0aaa-x7k2p",
            metadata={"creationTimestamp": "2026-11-28T08:00:00Z"},
            spec={"nodeName": "i-0aaa"},
            status={"phase": "Running"},
        ),
        # what a half-written pod may lack: a node, a phase, a readable creation time, the mode label
        _pod("kubectl-gpu-shell-i-0bbb-q9w3e", metadata={"creationTimestamp": "yesterday", "labels": {}}),
    ]
    check_golden("cleanup", render(cleanup_table(pods, datetime(2026, 11, 28, 9, 0, tzinfo=UTC))))


def test_fanout_progress_shows_the_count_and_the_latest_phases() -> None:
    progress = FanoutProgress(3)
    progress.on_phase("i-0aaa", "Pending")
    progress.on_phase("i-0bbb", "Running")
    line = render(progress)
    assert "debug pods" in line and "0/3" in line and "i-0aaa: Pending  i-0bbb: Running" in line
    progress.on_done("i-0aaa")
    line = render(progress)
    assert "1/3" in line and "i-0aaa" not in line and "i-0bbb: Running" in line
