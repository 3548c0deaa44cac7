"""`kubectl gpu diagnose` on the demo bundle: every analysis, worst first, and --fail-on."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_gpu.core.report import Severity
from tests.conftest import Result

Cli = Callable[..., Result]
DEMO = str(Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json")


def test_json_is_worst_first_with_stable_codes(cli: Cli) -> None:
    result = cli("diagnose", "--snapshot", DEMO, "-o", "json")
    assert result.code == 1, result.err
    report = json.loads(result.out)
    assert report["kind"] == "DiagnoseReport"
    ranks = [Severity(f["severity"]).rank for f in report["findings"]]
    assert ranks == sorted(ranks, reverse=True)
    codes = {f["code"] for f in report["findings"]}
    assert {"ACCELERATED_HARDWARE_NOT_READY", "MISSING_TOLERATION", "PROVISIONING"} <= codes
    assert report["summary"]["error"] == sum(1 for f in report["findings"] if f["severity"] == "error")
    for finding in report["findings"]:
        assert set(finding) == {"code", "severity", "object", "message", "fix", "source"}


def test_fail_on_threshold(cli: Cli) -> None:
    # The demo's node findings include errors: exit 1 at either threshold.
    assert cli("diagnose", "--snapshot", DEMO, "--only", "nodes", "--fail-on", "error").code == 1
    assert cli("diagnose", "--snapshot", DEMO, "--only", "nodes", "--fail-on", "warning").code == 1
    # Its NVMe findings are warnings at worst: only --fail-on warning fails.
    assert cli("diagnose", "--snapshot", DEMO, "--only", "nvme", "--fail-on", "error").code == 0
    assert cli("diagnose", "--snapshot", DEMO, "--only", "nvme", "--fail-on", "warning").code == 1


@pytest.mark.parametrize("output", [(), ("-o", "json")], ids=["table", "json"])
def test_fail_on_decides_whether_a_warning_fails(
    cli: Cli, warning_only_snapshot: str, output: tuple[str, ...]
) -> None:
    snapshot = warning_only_snapshot
    report = json.loads(cli("diagnose", "--snapshot", snapshot, "-o", "json").out)
    assert "LINT_GPU_POOL_NO_TAINT" in {f["code"] for f in report["findings"]}
    assert max(Severity(f["severity"]).rank for f in report["findings"]) == Severity.WARNING.rank
    warning = cli("diagnose", "--snapshot", snapshot, "--fail-on", "warning", *output)
    assert warning.code == 1, warning.err
    error = cli("diagnose", "--snapshot", snapshot, "--fail-on", "error", *output)
    assert error.code == 0, error.err
    assert cli("diagnose", "--snapshot", snapshot, *output).code == 0  # the default is error


def test_clean_cluster_exits_zero(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text('{"apiVersion": "v1", "kind": "List", "items": []}')
    result = cli("diagnose", "--snapshot", str(empty))
    assert result.code == 0 and "No findings" in result.out


def test_bad_flags_are_usage_errors(cli: Cli) -> None:
    assert cli("diagnose", "--snapshot", DEMO, "--fail-on", "info").code == 2
    bad = cli("diagnose", "--snapshot", DEMO, "--only", "bogus")
    assert bad.code == 2 and "unknown analysis bogus" in bad.err
