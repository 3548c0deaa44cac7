"""`kubectl gpu smi`, `shell` and `cleanup` end to end against the fake API server and simulated kubelet.

Every test ends with zero pods labelled app.kubernetes.io/managed-by=kubectl-gpu on the server (autouse).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from kubectl_gpu.core.debugpod import PUBLIC_BASE_IMAGE
from tests.conftest import Result
from tests.core.probe.test_nvidia_xml import EXPECTED as XML_EXPECTED
from tests.helpers import pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import KUBECTL, write_kubeconfig
from tests.kube.kubelet import (
    L4_CGROUPS,
    L4_POD_UIDS,
    PROBE_FIXTURES,
    SimulatedKubelet,
    by_strategy,
    debug_pods,
    gpu_node,
    gpu_output,
    no_gpu_output,
    wait_for,
)
from tests.kube.wire import status_body

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]


@dataclass
class Cluster:
    api: FakeKubeAPI
    kubelet: SimulatedKubelet
    kubeconfig: Path

    def args(self, *args: str) -> tuple[str, ...]:
        return (*args, "--kubeconfig", str(self.kubeconfig))


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for var in ("KUBECTL_GPU_IMAGE", "KUBECTL_GPU_NEURON_IMAGE", "KUBECTL_GPU_KUBECTL"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.02) as kubelet:
        api.add(gpu_node("i-0aaa"))
        yield Cluster(api, kubelet, write_kubeconfig(tmp_path / "kubeconfig", api.url))
        assert wait_for(lambda: not debug_pods(api), timeout=3.0), debug_pods(api)


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


# --- smi on a live cluster --------------------------------------------------------------------------------------


def test_smi_one_node_table(cli: Cli, cluster: Cluster) -> None:
    result = cli(*cluster.args("smi", "i-0aaa"))
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].split() == ["NODE", "DRIVER", "CUDA", "GPUS", "STRATEGY", "STATUS"]
    assert lines[1].split() == ["i-0aaa", "555.42.06", "12.5", "2", "privileged-all", "ok"]
    assert "NVIDIA L4" in result.out and "ffmpeg" in result.out
    assert "note: process pods are null" in result.err


def test_smi_json_contract(cli: Cli, cluster: Cluster) -> None:
    result = cli(*cluster.args("smi", "i-0aaa", "-o", "json"))
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    assert (doc["apiVersion"], doc["kind"]) == ("kubectl-gpu/v1", "SmiReport")
    (node,) = doc["results"]
    assert {"node", "strategy", "driverVersion", "cudaVersion", "gpus", "error"} <= set(node)
    assert (node["node"], node["strategy"], node["driverVersion"], node["cudaVersion"], node["error"]) == (
        "i-0aaa",
        "privileged-all",
        "555.42.06",
        "12.5",
        None,
    )
    gpu = node["gpus"][0]
    contract = {"index", "name", "uuid", "memoryTotalMiB", "memoryUsedMiB", "utilizationPct", "temperatureC"}
    assert contract | {"powerW", "migMode", "processes"} <= set(gpu)
    assert (gpu["name"], gpu["memoryTotalMiB"], gpu["temperatureC"]) == ("NVIDIA L4", 23034, 45)
    assert {"pid", "name", "usedMemoryMiB", "pod"} <= set(gpu["processes"][0])


def _pod_on(name: str, namespace: str, uid: str, node: str = "i-0aaa") -> dict[str, Any]:
    obj = pod(name, namespace, node_name=node, requests={"nvidia.com/gpu": "1"})
    obj["metadata"]["uid"] = uid
    return obj


def _process_pods(result: dict[str, Any]) -> list[tuple[int, str, str | None]]:
    return [(p["pid"], p["name"], p["pod"]) for g in result["gpus"] for p in g["processes"]]


def test_smi_names_the_pods_of_gpu_processes(cli: Cli, cluster: Cluster) -> None:
    cluster.api.add(_pod_on("train-0", "ml", L4_POD_UIDS[0]))
    cluster.kubelet.outputs["i-0aaa"] = gpu_output(pid_cgroups=L4_CGROUPS)
    result = cli(*cluster.args("smi", "i-0aaa", "-o", "json"))
    assert result.code == 0, result.err
    (node,) = json.loads(result.out)["results"]
    assert _process_pods(node) == [
        (10131, "ffmpeg", "ml/train-0"),
        (13597, "ffmpeg", None),
        (16870, "ffmpeg", None),
    ]
    assert node["notes"] == [
        "process pods are null for PID 16870: not in a pod's cgroup (a process of the node itself, or one "
        "that exited before its cgroup was read)",
        f"process pods are null for PID 13597: pod UID {L4_POD_UIDS[1]} is not in the node's pod list "
        "(deleted since, or a static pod without its mirror pod)",
    ]
    assert node["issues"] == [{"section": "nvidia-smi-csv", "kind": "empty", "message": "the command printed nothing"},
                              {"section": "nvidia-smi-list", "kind": "empty", "message": "the command printed nothing"}]  # fmt: skip
    table = cli(*cluster.args("smi", "i-0aaa"))
    assert table.code == 0, table.err
    rows = [line.split() for line in table.out.splitlines() if line.split()[:1] == ["i-0aaa"]]
    assert ["i-0aaa", "0", "10131", "ffmpeg", "389", "ml/train-0"] in rows
    assert ["i-0aaa", "1", "16870", "ffmpeg", "549", "-"] in rows
    assert "note: process pods are null for PID 16870: not in a pod's cgroup" in table.err


def test_smi_pod_list_forbidden_leaves_pods_null(cli: Cli, cluster: Cluster) -> None:
    cluster.api.add(_pod_on("train-0", "ml", L4_POD_UIDS[0]))
    cluster.kubelet.outputs["i-0aaa"] = gpu_output(pid_cgroups=L4_CGROUPS)
    message = 'pods is forbidden: User "dev" cannot list resource "pods" in API group "" at the cluster scope'
    cluster.api.fault(path=r"^/api/v1/pods$", status=403, body=status_body(403, message))
    result = cli(*cluster.args("smi", "i-0aaa", "-o", "json"))
    assert result.code == 0, result.err
    (node,) = json.loads(result.out)["results"]
    assert node["error"] is None and all(pod is None for _, _, pod in _process_pods(node))
    assert (
        f"process pods are null for PIDs 10131, 13597: the node's pods could not be listed (403 Forbidden: "
        f"{message}); it needs RBAC 'list' on pods"
    ) in node["notes"]


def test_smi_all_fifty_nodes_with_partial_failure(cli: Cli, cluster: Cluster) -> None:
    names = [f"i-{i:03d}" for i in range(49)]
    cluster.api.add(*(gpu_node(n) for n in names))
    cluster.kubelet.faults["i-017"] = "image-pull"
    result = cli(*cluster.args("smi", "--all", "--concurrency", "8", "-o", "json"))
    assert result.code == 3
    doc = json.loads(result.out)
    assert len(doc["results"]) == 50
    failed = [r for r in doc["results"] if r["error"]]
    assert [r["node"] for r in failed] == ["i-017"]
    assert f"cannot pull image {PUBLIC_BASE_IMAGE} (" in failed[0]["error"]
    assert all(len(r["gpus"]) == 2 for r in doc["results"] if not r["error"])
    assert result.err.splitlines()[-1].startswith("error: node i-017: cannot pull image")
    assert len(cluster.kubelet.started) == 50


@pytest.mark.parametrize(
    ("setup", "extra", "expected"),
    [
        ("image-pull", (), f"error: node i-0aaa: cannot pull image {PUBLIC_BASE_IMAGE} ("),
        ("never-starts", ("--timeout", "0.5s"), "error: node i-0aaa: the debug pod did not start within 0.5s"),
        ("node-gone", (), "error: node i-0aaa no longer exists; its debug pod went with it"),
        ("evicted", (), "error: node i-0aaa: the debug pod was evicted (Evicted:"),
        ("admission", (), 'rejected by admission: admission webhook "deny-privileged.example.com" denied the request'),
        ("slow-logs", ("--timeout", "1s"), "error: node i-0aaa: reading the debug pod's log took longer than"),
        ("no-gpu", (), "error: node i-0aaa: the container saw no GPU with privileged-all (exit code 6: No devices were found), and no nvidia.com/gpu is free"),
    ],
)  # fmt: skip
def test_smi_faults_give_exit_3_and_one_line(
    cli: Cli, cluster: Cluster, setup: str, extra: tuple[str, ...], expected: str
) -> None:
    if setup == "admission":
        cluster.kubelet.reject_admission("privileged pods are not allowed")
    elif setup == "slow-logs":
        cluster.kubelet.slow_logs("i-0aaa", 3.0)
    elif setup == "no-gpu":
        cluster.api.add(pod("busy", node_name="i-0aaa", requests={"nvidia.com/gpu": "2"}))
        cluster.kubelet.outputs["i-0aaa"] = no_gpu_output()
    else:
        cluster.kubelet.faults["i-0aaa"] = setup
    result = cli(*cluster.args("smi", "i-0aaa", *extra))
    assert result.code == 3
    assert expected in _one_line(result.err)
    assert result.out.splitlines()[1].split()[-1] == "error"


def test_smi_auto_reports_the_fallback(cli: Cli, cluster: Cluster) -> None:
    cluster.kubelet.outputs["i-0aaa"] = by_strategy(privileged=no_gpu_output(), request=gpu_output())
    result = cli(*cluster.args("smi", "i-0aaa", "-o", "json"))
    assert result.code == 0, result.err
    (node,) = json.loads(result.out)["results"]
    assert node["strategy"] == "request"
    assert node["notes"][0].startswith("auto: privileged-all saw no GPU (exit code 6: No devices were found)")


def test_smi_findings_exit_1(cli: Cli, cluster: Cluster) -> None:
    cluster.kubelet.outputs["i-0aaa"] = gpu_output(
        "ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml"
    )
    result = cli(*cluster.args("smi", "i-0aaa"))
    assert result.code == 1, result.err
    assert (
        "error: i-0aaa: GPU 0: 3 uncorrectable ECC errors since the driver loaded [ECC_UNCORRECTABLE]"
        in result.out
    )
    assert "findings" in result.out.splitlines()[1]


def test_smi_raw_is_verbatim(cli: Cli, cluster: Cluster) -> None:
    result = cli(*cluster.args("smi", "i-0aaa", "--raw"))
    assert result.code == 0 and result.out == gpu_output()


def test_smi_preflight_pod_security_and_rbac(cli: Cli, cluster: Cluster) -> None:
    cluster.api.add(
        {
            "apiVersion": "v1",
            "kind": "Namespace",
            "metadata": {"name": "apps", "labels": {"pod-security.kubernetes.io/enforce": "restricted"}},
        }
    )
    result = cli(*cluster.args("smi", "i-0aaa", "-n", "apps"))
    assert result.code == 3
    assert _one_line(result.err).startswith("error: namespace apps enforces Pod Security level 'restricted'")
    cluster.api.ssar_allowed = {("create", "pods"): False}
    result = cli(*cluster.args("smi", "i-0aaa"))
    assert result.code == 3
    assert _one_line(result.err) == (
        'error: missing RBAC in namespace default: create pods; a Role in default needs {apiGroups: [""], '
        "resources: [pods], verbs: [create]} (the Role in deploy/rbac/debug.yaml has every rule; README 'Debug "
        "pods', docs/rbac.md) or pick a namespace with -n"
    )
    assert cluster.kubelet.started == []


def test_smi_usage_errors(cli: Cli, cluster: Cluster) -> None:
    assert cli(*cluster.args("smi")).code == 2
    both = cli(*cluster.args("smi", "i-0aaa", "--all"))
    assert both.code == 2 and "not both" in both.err
    assert cli(*cluster.args("smi", "i-0aaa", "--timeout", "soon")).code == 2
    missing = cli(*cluster.args("smi", "i-0zzz", "-o", "json"))
    assert missing.code == 3 and json.loads(missing.out)["results"][0]["error"] == "node i-0zzz not found"


def test_smi_selector_picks_accelerator_nodes(cli: Cli, cluster: Cluster) -> None:
    cluster.api.add(gpu_node("i-0bbb", labels={"team": "ml"}), gpu_node("i-0ccc", labels={"team": "web"}))
    result = cli(*cluster.args("smi", "-l", "team=ml", "-o", "json"))
    assert result.code == 0, result.err
    assert [r["node"] for r in json.loads(result.out)["results"]] == ["i-0bbb"]


def test_image_lookup_flag_env_config(
    cli: Cli, cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def image() -> str:
        result = cli(*cluster.args("smi", "i-0aaa", "--dry-run"))
        assert result.code == 0, result.err
        manifest = next(d for d in yaml.safe_load_all(result.out.split("# The closest")[0]) if d)
        return str(manifest["spec"]["containers"][0]["image"])

    assert image() == PUBLIC_BASE_IMAGE
    config = tmp_path / "xdg" / "kubectl-gpu" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("image:\n  nvidia: registry.internal/debug-nvidia:7\n")
    assert image() == "registry.internal/debug-nvidia:7"
    monkeypatch.setenv("KUBECTL_GPU_IMAGE", "env.example/debug:8")
    assert image() == "env.example/debug:8"
    result = cli(*cluster.args("smi", "i-0aaa", "--dry-run", "--image", "flag.example/debug:9"))
    assert "image: flag.example/debug:9" in result.out and "image from --image" in result.out
    config.write_text("image: [1, 2]\n")
    monkeypatch.delenv("KUBECTL_GPU_IMAGE")
    bad = cli(*cluster.args("smi", "i-0aaa", "--dry-run"))
    assert bad.code == 2 and "image must be a string or a mapping" in bad.err


# --- --from-file and --snapshot ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(XML_EXPECTED))
def test_from_file_every_real_xml(cli: Cli, name: str) -> None:
    expected = XML_EXPECTED[name]
    result = cli("smi", "--from-file", str(PROBE_FIXTURES / "nvidia-smi/xml" / name), "-o", "json")
    assert result.code == 0, result.err
    (entry,) = json.loads(result.out)["results"]
    assert entry["node"] is None and entry["strategy"] is None and entry["error"] is None
    assert (entry["driverVersion"], entry["cudaVersion"]) == (expected.driver, expected.cuda)
    got = tuple((g["name"], g["memoryTotalMiB"], len(g["processes"])) for g in entry["gpus"])
    assert got == expected.gpus


def test_from_file_table_and_csv(cli: Cli) -> None:
    table = cli(
        "smi", "--from-file", str(PROBE_FIXTURES / "nvidia-smi/xml/telegraf__tesla-t4__515.105.01.xml")
    )
    assert table.code == 0 and table.out.splitlines()[1].split() == [
        "-",
        "515.105.01",
        "11.7",
        "1",
        "-",
        "ok",
    ]
    assert "Tesla T4" in table.out
    csv = cli("smi", "--from-file", str(PROBE_FIXTURES / "nvidia-smi/csv/gpuexporter__h200__590.48.01__query-gpu__load.csv"), "-o", "json")  # fmt: skip
    assert csv.code == 0, csv.err
    assert "H200" in json.loads(csv.out)["results"][0]["gpus"][0]["name"]


def test_from_file_collector_output_and_stdin(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    saved = tmp_path / "node.txt"
    saved.write_text(gpu_output())
    assert cli("smi", "--from-file", str(saved)).code == 0
    saved.write_text(no_gpu_output())
    none = cli("smi", "--from-file", str(saved))
    assert none.code == 3 and "no device in this output (exit code 6: No devices were found)" in _one_line(
        none.err
    )
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(gpu_output()))
    assert cli("smi", "--from-file", "-", "-o", "json").code == 0


@pytest.mark.parametrize("kind", ["truncated", "mismatched"])
def test_from_file_bad_xml_is_exit_2_and_one_line(cli: Cli, tmp_path: Path, kind: str) -> None:
    if kind == "truncated":
        text = (PROBE_FIXTURES / "nvidia-smi/xml/telegraf__rtx-3090__525.147.05__v12.xml").read_text()
        path = tmp_path / "truncated.xml"
        path.write_text(text[: len(text) // 2])
        expected = "no </nvidia_smi_log> (truncated, or not nvidia-smi XML)"
    else:
        path = PROBE_FIXTURES / "ours/garbled/ours__nvidia-smi-q-x__mismatched-tag.xml"
        expected = "malformed XML"
    result = cli("smi", "--from-file", str(path))
    assert result.code == 2 and result.out == ""
    line = _one_line(result.err)
    assert line.startswith(f"error: {path}: nvidia-smi XML: ") and expected in line


def test_snapshot_probe_round_trip(cli: Cli, cluster: Cluster, tmp_path: Path) -> None:
    cluster.api.add(gpu_node("i-0bbb"))
    cluster.kubelet.faults["i-0bbb"] = "image-pull"
    bundle = tmp_path / "bundle.json"
    result = cli(*cluster.args("snapshot", "--out", str(bundle), "--probe"))
    assert result.code == 0, result.err
    assert "warning: --probe: node i-0bbb: cannot pull image" in result.err
    probes = orjson.loads(bundle.read_bytes())["probes"]
    assert sorted(probes) == ["i-0aaa", "i-0bbb"]
    assert probes["i-0aaa"]["output"] == gpu_output() and probes["i-0aaa"]["strategy"] == "privileged-all"
    shown = cli("smi", "--snapshot", str(bundle), "-o", "json")
    assert shown.code == 3
    results = {r["node"]: r for r in json.loads(shown.out)["results"]}
    assert results["i-0aaa"]["driverVersion"] == "555.42.06" and results["i-0aaa"]["error"] is None
    assert "cannot pull image" in results["i-0bbb"]["error"]
    one = cli("smi", "i-0aaa", "--snapshot", str(bundle), "--raw")
    assert one.code == 0 and one.out == gpu_output()


def test_snapshot_names_the_pods_from_the_bundle(cli: Cli, cluster: Cluster, tmp_path: Path) -> None:
    cluster.api.add(
        _pod_on("train-0", "ml", L4_POD_UIDS[0]), _pod_on("serve-0", "web", L4_POD_UIDS[1], "i-0bbb")
    )
    cluster.kubelet.outputs["i-0aaa"] = gpu_output(pid_cgroups=L4_CGROUPS)
    bundle = tmp_path / "bundle.json"
    assert cli(*cluster.args("snapshot", "--out", str(bundle), "--probe")).code == 0
    shown = cli("smi", "--snapshot", str(bundle), "-o", "json")
    assert shown.code == 0, shown.err
    (node,) = json.loads(shown.out)["results"]
    # only the pods of the probed node count: serve-0 on i-0bbb shares no node with PID 13597
    assert [pod for _, _, pod in _process_pods(node)] == ["ml/train-0", None, None]
    assert any(f"pod UID {L4_POD_UIDS[1]} is not in the node's pod list" in n for n in node["notes"])


def test_snapshot_without_a_pod_list_says_why(cli: Cli, tmp_path: Path) -> None:
    forbidden = "forbidden to list pods cluster-wide: workloads unknown (needs RBAC verb 'list' on pods)"
    bundle = tmp_path / "b.json"
    bundle.write_text(
        json.dumps(
            {
                "apiVersion": "kubectl-gpu/v1",
                "kind": "Snapshot",
                "notes": [{"code": "FORBIDDEN", "message": forbidden, "kind": "pods"}],
                "probes": {
                    "i-0aaa": {"output": gpu_output(pid_cgroups=L4_CGROUPS), "strategy": "privileged-all"}
                },
                "objects": [gpu_node("i-0aaa")],
            }
        )
    )
    result = cli("smi", "--snapshot", str(bundle), "-o", "json")
    assert result.code == 0, result.err
    (node,) = json.loads(result.out)["results"]
    assert [pod for _, _, pod in _process_pods(node)] == [None, None, None]
    assert (
        f"process pods are null for PIDs 10131, 13597: the snapshot holds no pod list ({forbidden})"
        in node["notes"]
    )


def test_from_file_has_no_pod_list(cli: Cli, tmp_path: Path) -> None:
    saved = tmp_path / "node.txt"
    saved.write_text(gpu_output(pid_cgroups=L4_CGROUPS))
    result = cli("smi", "--from-file", str(saved), "-o", "json")
    assert result.code == 0, result.err
    (entry,) = json.loads(result.out)["results"]
    assert [pod for _, _, pod in _process_pods(entry)] == [None, None, None]
    assert (
        "process pods are null for PIDs 10131, 13597: --from-file reads no cluster, so there is no pod list to "
        "name their pod UIDs by"
    ) in entry["notes"]
    plain = cli(
        "smi", "--from-file", str(PROBE_FIXTURES / "nvidia-smi/xml/telegraf__tesla-t4__515.105.01.xml")
    )
    assert "note: process pods are null: the collector output has no pid-cgroups section" in plain.err


def test_snapshot_without_probes(cli: Cli, tmp_path: Path) -> None:
    bundle = tmp_path / "b.json"
    bundle.write_text(json.dumps({"apiVersion": "kubectl-gpu/v1", "kind": "Snapshot", "objects": []}))
    result = cli("smi", "--snapshot", str(bundle))
    assert result.code == 2 and "holds no probe results" in result.err


# --- --dry-run and kubectl debug --------------------------------------------------------------------------------


def _kubectl_env(tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {k: v for k, v in os.environ.items() if not k.startswith("KUBE")} | {"HOME": str(home)}


SECURITY_FIELDS = ("nodeName", "hostPID", "tolerations", "restartPolicy")


@pytest.mark.parametrize("strategy", ["privileged-all", "request"])
def test_dry_run_matches_what_kubectl_debug_creates(
    cli: Cli, cluster: Cluster, tmp_path: Path, strategy: str
) -> None:
    result = cli(*cluster.args("smi", "i-0aaa", "--dry-run", "--strategy", strategy))
    assert result.code == 0, result.err
    assert debug_pods(cluster.api) == [] and cluster.kubelet.started == []
    yaml_part, command_part = result.out.split("# The closest `kubectl debug` (kubectl >= 1.30):\n")
    ours = next(d for d in yaml.safe_load_all(yaml_part) if d)
    command = "\n".join(line for line in command_part.splitlines() if not line.startswith("#   - "))
    assert command.startswith(
        "kubectl --kubeconfig" if strategy != "request" else "cat > kubectl-gpu-custom.json"
    )
    run = subprocess.run(
        ["bash", "-c", command.replace("kubectl --kubeconfig", f"{KUBECTL} --kubeconfig")],
        cwd=tmp_path, env=_kubectl_env(tmp_path), capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    (theirs,) = [p for p in cluster.api.objects("pods") if p["metadata"]["name"].startswith("node-debugger-")]
    cluster.api.remove("pods", theirs["metadata"]["name"])
    for key in SECURITY_FIELDS:
        assert theirs["spec"][key] == ours["spec"][key], key
    # The one privilege of --profile=sysadmin we leave out, and say so in the command's notes.
    assert theirs["spec"]["hostNetwork"] and theirs["spec"]["hostIPC"]
    assert not ours["spec"].get("hostNetwork") and not ours["spec"].get("hostIPC")
    assert "#   - --profile=sysadmin also shares the node's network and IPC namespaces" in command_part
    assert (
        theirs["spec"]["volumes"]
        == ours["spec"]["volumes"]
        == [{"name": "host-root", "hostPath": {"path": "/"}}]
    )
    (mine,), (kubectls,) = ours["spec"]["containers"], theirs["spec"]["containers"]
    for key in ("name", "image", "imagePullPolicy", "command", "securityContext"):
        assert kubectls[key] == mine[key], key

    def env(container: dict[str, Any]) -> dict[str, str]:  # kubectl orders --env by a Go map: any order
        return {e["name"]: e["value"] for e in container.get("env", [])}

    assert env(kubectls) == env(mine)
    if strategy == "privileged-all":
        assert env(mine) == {"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "utility"}
    assert [(m["name"], m["mountPath"]) for m in kubectls["volumeMounts"]] == [("host-root", "/host")]
    assert [(m["name"], m["mountPath"]) for m in mine["volumeMounts"]] == [("host-root", "/host")]
    if strategy == "request":
        assert mine["resources"]["limits"] == {"nvidia.com/gpu": "1"}
        assert json.loads((tmp_path / "kubectl-gpu-custom.json").read_text()) == {
            "resources": {"limits": {"nvidia.com/gpu": "1"}}
        }


# --- interrupted runs (a real process, a real signal) -----------------------------------------------------------

PHASES = {
    "create": (dict(method="POST", path=r"/pods$", delay=1.0, times=1), lambda r: r.method == "POST" and r.path.endswith("/pods")),
    "wait": (None, lambda r: r.method == "GET" and "/pods/gpu-debug-" in r.path and not r.path.endswith("/log")),
    "logs": (dict(path=r"/log$", delay=1.0, times=1), lambda r: r.path.endswith("/log")),
    "delete": (dict(method="DELETE", path=r"/pods/", delay=1.0, times=1), lambda r: r.method == "DELETE"),
}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize(
    ("phase", "sig"),
    [("create", signal.SIGINT), ("wait", signal.SIGINT), ("logs", signal.SIGINT), ("delete", signal.SIGINT), ("wait", signal.SIGTERM)],
    ids=["create-SIGINT", "wait-SIGINT", "logs-SIGINT", "delete-SIGINT", "wait-SIGTERM"],
)  # fmt: skip
def test_signal_at_each_phase_exits_130_and_leaves_no_pod(
    cluster: Cluster, tmp_path: Path, phase: str, sig: signal.Signals
) -> None:
    fault, reached = PHASES[phase]
    if fault:
        cluster.api.fault(**fault)
    if phase == "wait":
        cluster.kubelet.faults["i-0aaa"] = "never-starts"
    env = {k: v for k, v in os.environ.items() if not k.startswith("KUBE")} | {
        "XDG_CONFIG_HOME": str(tmp_path)
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", *cluster.args("smi", "i-0aaa")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=REPO,
    )  # fmt: skip
    try:
        assert wait_for(lambda: any(reached(r) for r in list(cluster.api.requests)), timeout=20), (
            "phase not reached"
        )
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=60)  # deletion may retry; generous on a loaded machine
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert err.splitlines()[-2:] == ["interrupted: deleting debug pods...", "interrupted: debug pods deleted"]
    assert debug_pods(cluster.api) == []


# --- shell ------------------------------------------------------------------------------------------------------

FAKE_KUBECTL = """\
import json, sys, urllib.request
args = sys.argv[1:]
pod = args[args.index("-n") + 2]
ns = args[args.index("-n") + 1]
server = json.load(open(args[args.index("--kubeconfig") + 1]))["clusters"][0]["cluster"]["server"]
live = json.load(urllib.request.urlopen(f"{server}/api/v1/namespaces/{ns}/pods/{pod}"))
json.dump({"argv": args, "phase": live["status"]["phase"]}, open(sys.argv[0] + ".json", "w"))
sys.exit(7)
"""


def test_shell_hands_over_to_kubectl_exec_and_deletes_the_pod(
    cli: Cli, cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "kubectl"
    fake.write_text(f"#!{sys.executable}\n{FAKE_KUBECTL}")
    fake.chmod(0o755)
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", str(fake))
    result = cli(*cluster.args("shell", "i-0aaa"))
    assert result.code == 7, result.err  # the shell's status, like ssh
    seen = json.loads((tmp_path / "kubectl.json").read_text())
    assert seen["phase"] == "Running"
    argv = seen["argv"]
    assert argv[:4] == ["--kubeconfig", str(cluster.kubeconfig), "--context", "test"]
    assert argv[4:7] == ["exec", "-i", "-n"] and argv[8].startswith("gpu-debug-i-0aaa-")
    assert argv[9:] == [
        "-c",
        "debugger",
        "--",
        "sh",
        "-c",
        "command -v bash >/dev/null 2>&1 && exec bash || exec sh",
    ]
    assert "kubectl-gpu: shell on node i-0aaa" in result.err and "chroot /host" in result.err
    assert "journalctl -u kubelet" in result.err
    assert debug_pods(cluster.api) == []


def test_shell_with_the_real_kubectl(
    cli: Cli, cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real kubectl accepts our exec command line; the fake server cannot stream, so exec fails."""
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("KUBECTL_GPU_KUBECTL", KUBECTL)
    result = cli(*cluster.args("shell", "i-0aaa"))
    assert result.code not in (0, 2, 3, 130), result.err
    exec_requests = [r for r in cluster.api.requests if r.path.endswith("/exec")]
    assert exec_requests and exec_requests[0].query["container"] == "debugger"
    assert debug_pods(cluster.api) == []


def test_shell_dry_run_and_errors(cli: Cli, cluster: Cluster) -> None:
    dry = cli(*cluster.args("shell", "i-0aaa", "--dry-run"))
    assert dry.code == 0 and "kubectl-gpu/mode: shell" in dry.out and "readOnly: false" in dry.out
    cluster.kubelet.faults["i-0aaa"] = "image-pull"
    failed = cli(*cluster.args("shell", "i-0aaa", "--image", "nope.example/x:1"))
    assert failed.code == 3 and "cannot pull image nope.example/x:1" in _one_line(failed.err)
    missing = cli(*cluster.args("shell", "i-0zzz"))
    assert missing.code == 3 and _one_line(missing.err) == "error: node i-0zzz not found"


# --- cleanup ----------------------------------------------------------------------------------------------------


def _leftover(name: str, namespace: str, node: str = "i-0aaa") -> dict[str, Any]:
    """A debug pod as this tool makes it (the full shape cleanup checks), left behind on `node`: finished
    (a live one is kept: tests/cli/test_cleanup_in_use.py)."""
    from kubectl_gpu.core.debugpod import DebugPodSpec, build_debug_pod

    suffix = name.rsplit("-", 1)[1]
    obj = build_debug_pod(DebugPodSpec(node, "reg.example/debug:1", suffix, ("sh",), namespace))
    assert obj["metadata"]["name"] == name
    obj["status"] = {"phase": "Succeeded"}
    return obj


def test_cleanup(cli: Cli, cluster: Cluster) -> None:
    cluster.api.add(
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ops"}},
        _leftover("gpu-debug-i-0aaa-bcdfg", "default"),
        _leftover("gpu-debug-i-0aaa-hjklm", "ops"),
        pod("someone-elses", "default"),
    )
    listed = cli(*cluster.args("cleanup"))
    assert listed.code == 1 and "not deleting 2 debug pods without --yes" in listed.err
    assert "gpu-debug-i-0aaa-bcdfg" in listed.out and "gpu-debug-i-0aaa-hjklm" in listed.out
    assert len(debug_pods(cluster.api)) == 2
    scoped = cli(*cluster.args("cleanup", "-n", "ops", "--yes", "-o", "json"))
    assert scoped.code == 0 and json.loads(scoped.out)["deleted"] == ["ops/gpu-debug-i-0aaa-hjklm"]
    done = cli(*cluster.args("cleanup", "--yes"))
    assert done.code == 0 and "deleted default/gpu-debug-i-0aaa-bcdfg" in done.out
    assert cli(*cluster.args("cleanup")).out == "No debug pods left behind.\n"
    assert [p["metadata"]["name"] for p in cluster.api.objects("pods")] == ["someone-elses"]


def test_smi_help_stays_light() -> None:
    code = textwrap.dedent(
        """
        import contextlib, io, sys
        from kubectl_gpu.cli.app import main
        for args in (["smi", "--help"], ["shell", "--help"], ["cleanup", "--help"]):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
                main(args)
        print(sorted(m for m in sys.modules if m.split(".")[0] in ("kubernetes", "textual")))
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_an_image_pinned_by_digest_goes_to_the_pod_and_a_bad_digest_is_exit_2(
    cli: Cli, cluster: Cluster
) -> None:
    pinned = "registry.example.com/debug-nvidia:0.1.0@sha256:" + "ab" * 32
    result = cli(*cluster.args("smi", "i-0aaa", "--dry-run", "--image", pinned))
    assert result.code == 0, result.err
    pod = next(d for d in yaml.safe_load_all(result.out.split("# The closest")[0]) if d)
    assert pod["spec"]["containers"][0]["image"] == pinned
    bad = cli(*cluster.args("smi", "i-0aaa", "--dry-run", "--image", "registry.example.com/x@sha256:12"))
    assert bad.code == 2 and "is not sha256:<64 hex digits>" in bad.err, bad.err
