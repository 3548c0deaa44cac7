"""Fleet mode end to end: several of the suite's API servers at once, one slow and one failing."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Result
from tests.fleet.conftest import NOW, gpu_cluster
from tests.fleet.servers import FleetServers, GatedAPI, SignallingAPI
from tests.helpers import nodepool
from tests.kube.apiserver import FakeKubeAPI

Cli = Callable[..., Result]


def _fleet(tmp_path: Path, **servers: FakeKubeAPI) -> FleetServers:
    return FleetServers(tmp_path, servers)


def _clusters(out: str) -> dict[str, dict[str, object]]:
    doc = json.loads(out)
    assert doc["apiVersion"] == "kubectl-gpu/v1" and doc["kind"] == "FleetReport"
    return {c["context"]: c for c in doc["clusters"]}


def test_nodes_of_three_clusters_one_slow_one_failing(cli: Cli, tmp_path: Path) -> None:
    with _fleet(
        tmp_path,
        alpha=gpu_cluster(FakeKubeAPI(), "i-0alpha"),
        slow=gpu_cluster(FakeKubeAPI(), "i-0slow"),
        broken=gpu_cluster(FakeKubeAPI(), "i-0broken"),
    ) as fleet:
        fleet.slow("slow", delay=3.0)
        fleet.failing("broken")
        args = ("--kubeconfig", str(fleet.kubeconfig), "--contexts", "alpha,slow,broken", "--now", NOW)
        result = cli("nodes", *args, "--request-timeout", "1s", "-o", "json")
    doc = json.loads(result.out)
    assert [c["context"] for c in doc["clusters"]] == ["alpha", "slow", "broken"]  # the order asked
    clusters = _clusters(result.out)
    alpha = clusters["alpha"]
    assert alpha["error"] is None and alpha["cluster"] == "alpha-cluster" and alpha["exitCode"] == 0
    assert [n["name"] for n in alpha["report"]["nodes"]] == ["i-0alpha"]  # type: ignore[index]
    assert alpha["report"]["kind"] == "NodeReport"  # type: ignore[index]
    for name in ("slow", "broken"):
        assert clusters[name]["report"] is None and clusters[name]["exitCode"] == 3
        assert str(clusters[name]["error"]["message"]).startswith(f"context {name}: ")  # type: ignore[index]
    assert "did not answer within 1s" in str(clusters["slow"]["error"])
    assert "nauthorized" in str(clusters["broken"]["error"])
    assert doc["summary"] == {"clusters": 3, "read": 1, "failed": 2}
    # Part of the fleet could not be read: never 0 ("clean"), and not 3 (a cluster was read).
    assert result.code == doc["exitCode"] == 4
    assert "error: context slow: " in result.err and "error: context broken: " in result.err


def test_a_slow_cluster_within_its_timeout_is_read(cli: Cli, tmp_path: Path) -> None:
    with _fleet(
        tmp_path, alpha=gpu_cluster(FakeKubeAPI(), "i-0alpha"), slow=gpu_cluster(FakeKubeAPI(), "i-0slow")
    ) as fleet:
        fleet.slow("slow", delay=0.3)
        result = cli("nodes", "--kubeconfig", str(fleet.kubeconfig), "--all-contexts", "-o", "json")
    clusters = _clusters(result.out)
    assert sorted(clusters) == ["alpha", "slow"]  # --all-contexts: every context, sorted
    assert [n["name"] for n in clusters["slow"]["report"]["nodes"]] == ["i-0slow"]  # type: ignore[index]
    assert result.code == 0, result.err


def test_clusters_are_read_at_the_same_time(cli: Cli, tmp_path: Path) -> None:
    """`gated` answers its lists only once both other clusters have been asked for theirs (else 503): read
    one after another, gated first, it would fail. No clock is read."""
    asked_a, asked_b = threading.Event(), threading.Event()
    with _fleet(
        tmp_path,
        gated=gpu_cluster(GatedAPI([asked_a, asked_b]), "i-0gated"),
        alpha=gpu_cluster(SignallingAPI(asked_a), "i-0alpha"),
        beta=gpu_cluster(SignallingAPI(asked_b), "i-0beta"),
    ) as fleet:
        result = cli(
            "nodes", "--kubeconfig", str(fleet.kubeconfig), "--contexts", "gated,alpha,beta", "-o", "json"
        )
    clusters = _clusters(result.out)
    assert all(c["error"] is None for c in clusters.values()), result.err
    assert result.code == 0


def test_table_has_a_cluster_column_and_errors_on_stderr(cli: Cli, tmp_path: Path) -> None:
    with _fleet(
        tmp_path,
        alpha=gpu_cluster(FakeKubeAPI(), "i-0alpha"),
        beta=gpu_cluster(FakeKubeAPI(), "i-0beta"),
        broken=FakeKubeAPI(),
    ) as fleet:
        fleet.failing("broken")
        result = cli("nodes", "--kubeconfig", str(fleet.kubeconfig), "--all-contexts", "--now", NOW)
    lines = result.out.splitlines()
    assert lines[0].split()[:3] == ["CLUSTER", "NAME", "INSTANCE"]
    assert [line.split()[:2] for line in lines[1:]] == [["alpha", "i-0alpha"], ["beta", "i-0beta"]]
    assert "error: context broken: " in result.err
    assert result.code == 4


def test_findings_anywhere_are_exit_1(cli: Cli, tmp_path: Path) -> None:
    with _fleet(
        tmp_path,
        alpha=gpu_cluster(FakeKubeAPI(), "i-0alpha"),
        beta=gpu_cluster(FakeKubeAPI(), "i-0beta", blocked_pod=True),
        broken=FakeKubeAPI(),
    ) as fleet:
        fleet.failing("broken")
        config = str(fleet.kubeconfig)
        pending = cli("pending", "--kubeconfig", config, "--all-contexts", "--now", NOW, "-o", "json")
        diagnose = cli("diagnose", "--kubeconfig", config, "--contexts", "alpha,beta", "--now", NOW)
    clusters = _clusters(pending.out)
    assert clusters["alpha"]["exitCode"] == 0 and clusters["beta"]["exitCode"] == 1
    assert [p["name"] for p in clusters["beta"]["report"]["pods"]] == ["train"]  # type: ignore[index]
    assert pending.code == 1  # findings outrank a cluster that could not be read
    assert diagnose.code == 1
    summaries = [line for line in diagnose.out.splitlines() if line.startswith(("alpha: ", "beta: "))]
    assert summaries == [
        "alpha: 4 findings: 0 errors, 0 warnings, 4 info",
        "beta: 5 findings: 1 error, 0 warnings, 4 info",
    ]
    assert "alpha:\nFIXES\n" in diagnose.out  # a cluster's fixes under a line naming it
    assert diagnose.out.splitlines()[0].startswith("CLUSTER ")


def test_no_cluster_read_is_exit_3(cli: Cli, tmp_path: Path) -> None:
    with FleetServers(tmp_path, {"broken": FakeKubeAPI()}, closed=["down"]) as fleet:
        fleet.failing("broken")
        result = cli("drivers", "--kubeconfig", str(fleet.kubeconfig), "--all-contexts", "-o", "yaml")
    assert result.code == 3
    assert "kind: FleetReport" in result.out and "error: context down: " in result.err


def test_unknown_context_is_bad_input_before_anything_is_read(cli: Cli, tmp_path: Path) -> None:
    api = gpu_cluster(FakeKubeAPI(), "i-0alpha")
    with _fleet(tmp_path, alpha=api) as fleet:
        result = cli("nodes", "--kubeconfig", str(fleet.kubeconfig), "--contexts", "alpha,nope")
    assert result.code == 2 and "'nope'" in result.err and result.out == ""
    assert api.requests == []


def test_fleet_options_are_usage_errors_where_they_do_not_apply(cli: Cli, tmp_path: Path) -> None:
    with _fleet(tmp_path, alpha=FakeKubeAPI()) as fleet:
        config = str(fleet.kubeconfig)
        both = cli("nodes", "--kubeconfig", config, "--contexts", "alpha", "--all-contexts")
        context = cli("nodes", "--kubeconfig", config, "--contexts", "alpha", "--context", "alpha")
        smi = cli("smi", "--all", "--kubeconfig", config, "--all-contexts")
        probe = cli("snapshot", "--kubeconfig", config, "--all-contexts", "--probe", "--out", str(tmp_path))
    for result in (both, context, smi, probe):
        assert result.code == 2 and result.err.count("\n") == 1, result.err


def test_snapshot_all_contexts_writes_one_bundle_per_cluster(cli: Cli, tmp_path: Path) -> None:
    out = tmp_path / "bundles"
    with FleetServers(
        tmp_path,
        {"alpha": gpu_cluster(FakeKubeAPI(), "i-0alpha"), "beta": gpu_cluster(FakeKubeAPI(), "i-0beta")},
        closed=["down"],
    ) as fleet:
        config = str(fleet.kubeconfig)
        snap = cli("snapshot", "--kubeconfig", config, "--all-contexts", "--out", str(out), "--now", NOW)
        live = cli("nodes", "--kubeconfig", config, "--contexts", "alpha,beta", "-o", "json", "--now", NOW)
    assert snap.code == 4  # two bundles written, one context could not be captured
    assert sorted(p.name for p in out.iterdir()) == ["alpha.json", "beta.json"]
    assert "error: context down: " in snap.err and f"wrote {out / 'alpha.json'}" in snap.err
    assert json.loads((out / "beta.json").read_text())["context"] == "beta"
    # Read back as a fleet: one cluster per bundle, never merged, the same reports as live.
    offline = cli("nodes", "--snapshot", str(out), "-o", "json")
    assert offline.code == 0, offline.err
    clusters = _clusters(offline.out)
    assert {k: v["report"] for k, v in clusters.items()} == {
        k: v["report"] for k, v in _clusters(live.out).items()
    }
    assert [n["name"] for n in clusters["alpha"]["report"]["nodes"]] == ["i-0alpha"]  # type: ignore[index]
    table = cli("nodes", "--snapshot", str(out))
    assert [line.split()[:2] for line in table.out.splitlines()[1:]] == [
        ["alpha", "i-0alpha"],
        ["beta", "i-0beta"],
    ]


def test_commands_without_a_fleet_mode_still_refuse_several_clusters(cli: Cli, tmp_path: Path) -> None:
    with FleetServers(
        tmp_path,
        {"alpha": gpu_cluster(FakeKubeAPI(), "i-0alpha"), "beta": gpu_cluster(FakeKubeAPI(), "i-0beta")},
    ) as fleet:
        cli("snapshot", "--kubeconfig", str(fleet.kubeconfig), "--all-contexts", "--out", str(tmp_path / "b"))
    result = cli("smi", "i-0alpha", "--snapshot", str(tmp_path / "b"))
    assert result.code == 2 and "snapshots of two clusters in one input" in result.err


def test_inventory_csv_has_a_cluster_column(cli: Cli, tmp_path: Path) -> None:
    with _fleet(
        tmp_path, alpha=gpu_cluster(FakeKubeAPI(), "i-0alpha"), beta=gpu_cluster(FakeKubeAPI(), "i-0beta")
    ) as fleet:
        result = cli("inventory", "--kubeconfig", str(fleet.kubeconfig), "--all-contexts", "-o", "csv")
    rows = result.out.splitlines()
    assert rows[0].startswith("cluster,instanceId,") and len(rows) == 3
    assert rows[1].startswith("alpha,i-0alpha,") and rows[2].startswith("beta,i-0beta,")


def test_lint_of_files_is_not_a_fleet(cli: Cli, tmp_path: Path) -> None:
    manifest = tmp_path / "pool.json"
    manifest.write_text(json.dumps(nodepool("gpu")))
    with _fleet(tmp_path, alpha=FakeKubeAPI(), beta=FakeKubeAPI()) as fleet:
        result = cli("lint", "-f", str(manifest), "--kubeconfig", str(fleet.kubeconfig), "--all-contexts")
    assert result.code == 2 and "lint -f checks manifests, not clusters" in result.err


def test_debug_shows_a_failed_clusters_traceback(cli: Cli, tmp_path: Path) -> None:
    with FleetServers(tmp_path, {"alpha": gpu_cluster(FakeKubeAPI(), "i-0alpha")}, closed=["down"]) as fleet:
        result = cli("nodes", "--kubeconfig", str(fleet.kubeconfig), "--all-contexts", "--debug")
    assert "Traceback (most recent call last)" in result.err and "error: context down: " in result.err
    assert result.code == 4
