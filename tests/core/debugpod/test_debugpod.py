"""The debug pod builder and the pure reading of what a debug pod reports, table by table."""

from __future__ import annotations

import re
from typing import Any

import pytest

from kubectl_gpu.core.analyses.smi import SmiResult, findings, sees_accelerator, unseen_reason
from kubectl_gpu.core.debugpod import (
    DEBUG_POD_SELECTOR,
    PUBLIC_BASE_IMAGE,
    Accelerator,
    DebugPodSpec,
    Mode,
    Strategy,
    accelerator_of,
    attempts,
    build_debug_pod,
    is_gke_autopilot,
    is_pinned,
    kubectl_debug_command,
    node_blockers,
    node_label_value,
    parse_saved_output,
    parse_shell_probe,
    pod_name,
    pod_progress,
    resolve_image,
    shell_command,
)
from kubectl_gpu.core.k8s.parse import parse_node
from kubectl_gpu.core.probe import ProbeParseError
from tests.helpers import FIXTURES, node

PROBE = FIXTURES / "probe"
RFC1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def spec(**kw: Any) -> DebugPodSpec:
    values: dict[str, Any] = {
        "node": "i-0123456789abcdef0",
        "image": "ghcr.io/kubectl-gpu/debug-nvidia:0.1.0",
        "suffix": "x7k2p",
        "command": ("sh", "-c", "echo hi"),
    }
    values.update(kw)
    return DebugPodSpec(**values)


# --- names ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("node_name", "expected"),
    [
        ("i-0123456789abcdef0", "gpu-debug-i-0123456789abcdef0-x7k2p"),
        (
            "ip-10-0-1-23.us-west-2.compute.internal",
            "gpu-debug-ip-10-0-1-23-us-west-2-compute-internal-x7k2p",
        ),
        ("GKE_Node.Upper", "gpu-debug-gke-node-upper-x7k2p"),
        ("a" * 200, "gpu-debug-" + "a" * 47 + "-x7k2p"),
        ("...", "gpu-debug-node-x7k2p"),
        ("ab" + "-" * 60 + "cd", "gpu-debug-ab-x7k2p"),
    ],
)
def test_pod_name_is_a_valid_label_of_at_most_63(node_name: str, expected: str) -> None:
    name = pod_name(node_name, "x7k2p")
    assert name == expected
    assert len(name) <= 63 and RFC1123_LABEL.match(name)


@pytest.mark.parametrize("bad", ["", "ABCDE", "x7-k2", "abcdefghijk"])
def test_pod_name_rejects_bad_suffixes(bad: str) -> None:
    with pytest.raises(ValueError):
        pod_name("n", bad)


@pytest.mark.parametrize(
    "node_name",
    [
        "i-0123456789abcdef0",
        "ip-10-0-1-23.us-west-2.compute.internal",
        "x" * 63,
        "x" * 64,
        "a.b" * 80,
        "node-with-trailing-" + "z" * 60 + ".",
    ],
)
def test_node_label_value_is_always_valid(node_name: str) -> None:
    value = node_label_value(node_name)
    assert len(value) <= 63 and LABEL_VALUE.match(value)
    if len(node_name) <= 63 and LABEL_VALUE.match(node_name):
        assert value == node_name
    else:
        assert value != node_label_value(node_name + "2")  # shortened names stay distinct


# --- the pod ----------------------------------------------------------------------------------------------------


def test_pod_has_everything_kubectl_debug_sysadmin_has_plus_the_safety_net() -> None:
    pod = build_debug_pod(spec(namespace="ops", active_deadline_seconds=180))
    meta, podspec = pod["metadata"], pod["spec"]
    assert meta["name"] == "gpu-debug-i-0123456789abcdef0-x7k2p" and meta["namespace"] == "ops"
    assert meta["labels"] == {
        "app.kubernetes.io/managed-by": "kubectl-gpu",
        "kubectl-gpu/node": "i-0123456789abcdef0",
        "kubectl-gpu/mode": "smi",
    }
    assert DEBUG_POD_SELECTOR == "app.kubernetes.io/managed-by=kubectl-gpu"
    assert meta["annotations"]["kubectl-gpu/node"] == "i-0123456789abcdef0"
    assert podspec["nodeName"] == "i-0123456789abcdef0"
    assert podspec["tolerations"] == [{"operator": "Exists"}]
    assert podspec["hostPID"] is True
    # Not the node's network (IMDS and the node role's credentials) nor its IPC: no mode needs them.
    assert "hostNetwork" not in podspec and "hostIPC" not in podspec and "dnsPolicy" not in podspec
    assert podspec["restartPolicy"] == "Never"
    assert podspec["terminationGracePeriodSeconds"] == 0
    assert podspec["automountServiceAccountToken"] is False
    assert podspec["activeDeadlineSeconds"] == 180
    assert podspec["volumes"] == [{"name": "host-root", "hostPath": {"path": "/"}}]
    (container,) = podspec["containers"]
    assert container["name"] == "debugger"
    assert container["securityContext"] == {"privileged": True}
    assert container["volumeMounts"] == [{"name": "host-root", "mountPath": "/host", "readOnly": True}]
    assert container["resources"] == {"requests": {"cpu": "50m", "memory": "64Mi"}}
    assert container["command"] == ["sh", "-c", "echo hi"]


@pytest.mark.parametrize(
    ("accelerator", "strategy", "resource", "env", "limits"),
    [
        (
            Accelerator.NVIDIA,
            Strategy.PRIVILEGED_ALL,
            None,
            {"NVIDIA_VISIBLE_DEVICES": "all", "NVIDIA_DRIVER_CAPABILITIES": "utility"},
            None,
        ),
        (
            Accelerator.NVIDIA,
            Strategy.REQUEST,
            "nvidia.com/gpu",
            {"NVIDIA_DRIVER_CAPABILITIES": "utility"},
            {"nvidia.com/gpu": "1"},
        ),
        (
            Accelerator.NVIDIA,
            Strategy.REQUEST,
            "nvidia.com/mig-1g.10gb",
            {"NVIDIA_DRIVER_CAPABILITIES": "utility"},
            {"nvidia.com/mig-1g.10gb": "1"},
        ),
        (Accelerator.NEURON, Strategy.PRIVILEGED_ALL, None, {}, None),
        (Accelerator.NEURON, Strategy.REQUEST, "aws.amazon.com/neuron", {}, {"aws.amazon.com/neuron": "1"}),
    ],
)
def test_gpu_visibility_strategies(
    accelerator: Accelerator,
    strategy: Strategy,
    resource: str | None,
    env: dict[str, str],
    limits: dict[str, str] | None,
) -> None:
    pod = build_debug_pod(spec(accelerator=accelerator, strategy=strategy, resource=resource))
    container = pod["spec"]["containers"][0]
    assert {e["name"]: e["value"] for e in container.get("env", [])} == env
    assert container["resources"].get("limits") == limits
    assert container["securityContext"]["privileged"] is True  # both strategies: nsenter, /dev, lsblk
    assert pod["metadata"]["annotations"]["kubectl-gpu/strategy"] == strategy.value


def test_shell_pod_mounts_host_writable_and_sleeps() -> None:
    pod = build_debug_pod(spec(mode=Mode.SHELL, command=shell_command(Accelerator.NVIDIA, 3600)))
    container = pod["spec"]["containers"][0]
    assert container["volumeMounts"][0]["readOnly"] is False
    assert pod["metadata"]["labels"]["kubectl-gpu/mode"] == "shell"
    assert container["command"][:2] == ["sh", "-c"] and "sleep 3600" in container["command"][2]
    assert "nvidia-smi -L" in container["command"][2]
    assert "/dev/neuron" in shell_command(Accelerator.NEURON, 60)[2]


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"strategy": Strategy.AUTO}, "concrete strategy"),
        ({"strategy": Strategy.REQUEST}, "resource"),
        ({"command": ()}, "command"),
        ({"active_deadline_seconds": 0}, "positive"),
    ],
)
def test_builder_refuses_incomplete_specs(kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        build_debug_pod(spec(**kw))


def test_auto_tries_privileged_all_then_request() -> None:
    assert attempts(Strategy.AUTO) == (Strategy.PRIVILEGED_ALL, Strategy.REQUEST)
    assert attempts(Strategy.REQUEST) == (Strategy.REQUEST,)


def test_kubectl_debug_equivalent() -> None:
    command = kubectl_debug_command(spec(namespace="ops"), ["--context", "prod"])
    assert command.argv[:6] == (
        "kubectl",
        "--context",
        "prod",
        "debug",
        "node/i-0123456789abcdef0",
        "--namespace",
    )
    assert "--profile=sysadmin" in command.argv
    assert "--env=NVIDIA_VISIBLE_DEVICES=all" in command.argv
    assert command.argv[-4:] == ("--", "sh", "-c", "echo hi")
    assert command.custom is None and command.shell().startswith("kubectl --context prod debug")
    request = kubectl_debug_command(spec(strategy=Strategy.REQUEST, resource="nvidia.com/gpu"))
    assert request.custom == {"resources": {"limits": {"nvidia.com/gpu": "1"}}}
    assert "--custom=kubectl-gpu-custom.json" in request.argv
    assert request.shell().startswith("cat > kubectl-gpu-custom.json <<'EOF'\n")


# --- nodes ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("capacity", "itype", "expected"),
    [
        ({"nvidia.com/gpu": "8"}, "p5.48xlarge", Accelerator.NVIDIA),
        ({"aws.amazon.com/neuron": "16"}, "trn1.32xlarge", Accelerator.NEURON),
        ({"aws.amazon.com/neuroncore": "2"}, "x", Accelerator.NEURON),
        ({}, "inf2.xlarge", Accelerator.NEURON),
        ({}, "g6e.xlarge", Accelerator.NVIDIA),
    ],
)
def test_accelerator_of(capacity: dict[str, str], itype: str, expected: Accelerator) -> None:
    obj = node("n", labels={"node.kubernetes.io/instance-type": itype}, capacity={"cpu": "4", **capacity})
    assert accelerator_of(parse_node(obj)) is expected


def test_gke_autopilot_and_node_blockers() -> None:
    autopilot = parse_node(node("gk3-prod-pool-1-abcd", labels={"cloud.google.com/gke-nodepool": "pool-1"}))
    assert is_gke_autopilot(autopilot)
    assert not is_gke_autopilot(
        parse_node(node("gke-prod-pool-1-abcd", labels={"cloud.google.com/gke-nodepool": "p"}))
    )
    not_ready = parse_node(
        node("n1", conditions=[{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}])
    )
    errors, warnings = node_blockers(not_ready)
    assert errors == ["node n1 is NotReady (KubeletNotReady): its kubelet would not start the debug pod"]
    errors, warnings = node_blockers(parse_node(node("n2", unschedulable=True)))
    assert errors == [] and "cordoned" in warnings[0]


# --- images -----------------------------------------------------------------------------------------------------

ENV = {"KUBECTL_GPU_IMAGE": "env/nvidia:1", "KUBECTL_GPU_NEURON_IMAGE": "env/neuron:1"}
CONFIG = {"image": {"nvidia": "cfg/nvidia:1", "neuron": "cfg/neuron:1"}}


@pytest.mark.parametrize(
    ("accelerator", "flag", "env", "config", "expected"),
    [
        (Accelerator.NVIDIA, "flag/x:1", ENV, CONFIG, ("flag/x:1", "--image")),
        (Accelerator.NEURON, "flag/n:1", ENV, CONFIG, ("flag/n:1", "--neuron-image")),
        (Accelerator.NVIDIA, None, ENV, CONFIG, ("env/nvidia:1", "env KUBECTL_GPU_IMAGE")),
        (Accelerator.NEURON, None, ENV, CONFIG, ("env/neuron:1", "env KUBECTL_GPU_NEURON_IMAGE")),
        (Accelerator.NVIDIA, None, {}, CONFIG, ("cfg/nvidia:1", "config c.yaml")),
        (Accelerator.NEURON, None, {}, CONFIG, ("cfg/neuron:1", "config c.yaml")),
        (Accelerator.NVIDIA, None, {}, {"image": "cfg/short:1"}, ("cfg/short:1", "config c.yaml")),
        (
            Accelerator.NEURON,
            None,
            {},
            {"image": "cfg/short:1"},
            (PUBLIC_BASE_IMAGE, "default"),
        ),
        (Accelerator.NVIDIA, None, {}, None, (PUBLIC_BASE_IMAGE, "default")),
    ],
)
def test_image_lookup_order(
    accelerator: Accelerator,
    flag: str | None,
    env: dict[str, str],
    config: dict[str, Any] | None,
    expected: tuple[str, str],
) -> None:
    choice = resolve_image(accelerator, flag=flag, env=env, config=config, config_path="c.yaml")
    assert (choice.image, choice.source) == expected


def test_image_config_of_the_wrong_shape() -> None:
    with pytest.raises(ValueError, match="image must be"):
        resolve_image(Accelerator.NVIDIA, flag=None, env={}, config={"image": 3}, config_path="c.yaml")


# --- pod status -------------------------------------------------------------------------------------------------


def _pod(phase: str, state: dict[str, Any] | None = None, **status: Any) -> dict[str, Any]:
    statuses = [{"name": "debugger", "state": state}] if state is not None else []
    return {
        "spec": {"containers": [{"name": "debugger", "image": "reg/img:1"}]},
        "status": {"phase": phase, "containerStatuses": statuses, **status},
    }


@pytest.mark.parametrize(
    ("pod", "state", "failure", "reason", "exit_code"),
    [
        (_pod("Pending"), "pending", None, None, None),
        (_pod("Pending", {"waiting": {"reason": "ContainerCreating"}}), "pending", None, "ContainerCreating", None),
        (_pod("Pending", {"waiting": {"reason": "ErrImagePull", "message": "x"}}), "failed", "image-pull", "ErrImagePull", None),
        (_pod("Pending", {"waiting": {"reason": "ImagePullBackOff"}}), "failed", "image-pull", "ImagePullBackOff", None),
        (_pod("Pending", {"waiting": {"reason": "CreateContainerConfigError"}}), "failed", "container", "CreateContainerConfigError", None),
        (_pod("Running", {"running": {}}), "running", None, None, None),
        (_pod("Succeeded", {"terminated": {"exitCode": 0, "reason": "Completed"}}), "terminated", None, "Completed", 0),
        (_pod("Failed", {"terminated": {"exitCode": 127, "reason": "Error"}}), "terminated", None, "Error", 127),
        (_pod("Succeeded"), "terminated", None, "Completed", 0),
        (_pod("Failed", reason="Evicted", message="low on memory"), "failed", "evicted", "Evicted", None),
        (_pod("Failed", reason="DeadlineExceeded"), "failed", "deadline", "DeadlineExceeded", None),
        (_pod("Failed", reason="OutOfcpu"), "failed", "rejected", "OutOfcpu", None),
        (
            _pod("Pending", conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]),
            "pending",
            None,
            "Unschedulable",
            None,
        ),
    ],
)  # fmt: skip
def test_pod_progress(
    pod: dict[str, Any], state: str, failure: str | None, reason: str | None, exit_code: int | None
) -> None:
    progress = pod_progress(pod)
    assert (progress.state, progress.failure, progress.reason, progress.exit_code) == (
        state,
        failure,
        reason,
        exit_code,
    )
    assert progress.image == "reg/img:1"
    assert progress.done == (state in ("terminated", "failed"))


def test_progress_describes_itself() -> None:
    assert pod_progress(_pod("Pending", {"waiting": {"reason": "ContainerCreating"}})).describe() == (
        "Pending (ContainerCreating)"
    )
    assert pod_progress(_pod("Running", {"running": {}})).describe() == "Running"


# --- what the container saw -------------------------------------------------------------------------------------


def test_saved_outputs_by_their_look() -> None:
    xml = parse_saved_output((PROBE / "nvidia-smi/xml/telegraf__tesla-t4__515.105.01.xml").read_text())
    assert xml.gpu_source == "nvidia-smi-xml" and xml.driver_version == "515.105.01"
    csv = parse_saved_output(
        (PROBE / "nvidia-smi/csv/gpuexporter__l40s__595.80__query-gpu__load.csv").read_text()
    )
    assert csv.gpu_source == "nvidia-smi-csv" and csv.gpus[0].name == "NVIDIA L40S"
    with pytest.raises(ProbeParseError):
        parse_saved_output((PROBE / "ours/garbled/ours__nvidia-smi-q-x__mismatched-tag.xml").read_text())


def test_findings_from_the_synthetic_faulty_h100() -> None:
    text = (PROBE / "ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml").read_text()
    found = [(f.code, f.severity, f.gpu) for f in findings(parse_saved_output(text))]
    assert found == [
        ("ECC_UNCORRECTABLE", "error", 0),
        ("ROW_REMAP_PENDING", "error", 0),
        ("CLOCK_SLOWDOWN", "warning", 0),
        ("MIG_CHANGE_PENDING", "warning", 0),
        ("GPU_ERROR", "error", 1),
        ("GPU_ERROR", "error", 1),
    ]


@pytest.mark.parametrize("name", sorted(p.name for p in (PROBE / "nvidia-smi/xml").glob("*.xml")))
def test_real_fixtures_have_no_error_findings(name: str) -> None:
    result = parse_saved_output((PROBE / "nvidia-smi/xml" / name).read_text())
    assert sees_accelerator(result, Accelerator.NVIDIA)
    assert not [f for f in findings(result) if f.severity == "error"]


def test_smi_result_json_keys_and_attribution_note() -> None:
    text = (PROBE / "nvidia-smi/xml/telegraf__tesla-t4__515.105.01.xml").read_text()
    result = SmiResult("i-0abc", "privileged-all", parse_saved_output(text))
    data = result.to_dict()
    assert list(data)[:6] == ["node", "strategy", "driverVersion", "cudaVersion", "gpus", "error"]
    gpu = data["gpus"][0]  # type: ignore[index]
    for key in ("index", "name", "uuid", "memoryTotalMiB", "memoryUsedMiB", "utilizationPct", "temperatureC"):
        assert key in gpu  # type: ignore[operator]
    assert {"pid", "name", "usedMemoryMiB", "pod"} <= set(gpu["processes"][0])  # type: ignore[index]
    assert gpu["processes"][0]["pod"] is None  # type: ignore[index]
    assert any("cgroup" in n for n in data["notes"])  # type: ignore[union-attr]
    failed = SmiResult("i-0abc", None, None, error="boom").to_dict()
    assert (failed["gpus"], failed["error"], failed["driverVersion"]) == ([], "boom", None)


def test_unseen_reason_quotes_nvidia_smi() -> None:
    from tests.kube.kubelet import no_gpu_output

    result = parse_saved_output(no_gpu_output())
    assert not sees_accelerator(result, Accelerator.NVIDIA)
    assert unseen_reason(result, Accelerator.NVIDIA) == "exit code 6: No devices were found"


@pytest.mark.parametrize(
    ("log", "accelerator", "ready", "devices"),
    [
        ("", Accelerator.NVIDIA, False, 0),
        (
            "GPU 0: NVIDIA L40S (UUID: GPU-1)\n===KUBECTL-GPU:SHELL-READY rc=0===\n",
            Accelerator.NVIDIA,
            True,
            1,
        ),
        ("No devices were found\n===KUBECTL-GPU:SHELL-READY rc=6===\n", Accelerator.NVIDIA, True, 0),
        ("/dev/neuron0\n/dev/neuron1\n===KUBECTL-GPU:SHELL-READY rc=0===\n", Accelerator.NEURON, True, 2),
        (
            "ls: /dev/neuron[0-9]*: No such file\n===KUBECTL-GPU:SHELL-READY rc=1===\n",
            Accelerator.NEURON,
            True,
            0,
        ),
    ],
)
def test_shell_probe(log: str, accelerator: Accelerator, ready: bool, devices: int) -> None:
    probe = parse_shell_probe(log, accelerator)
    assert (probe.ready, probe.devices) == (ready, devices)


# --- images pinned by digest (issue 12, item 7) -----------------------------------------------------------------

DIGEST = "sha256:" + "0123456789abcdef" * 4


@pytest.mark.parametrize("source", ["flag", "env", "config"])
def test_an_image_pinned_by_digest_is_taken_as_it_is(source: str) -> None:
    ref = f"registry.example.com/debug-nvidia:0.1.0@{DIGEST}"
    kw: dict[str, Any] = {"flag": None, "env": {}, "config": None}
    kw |= (
        {"flag": ref}
        if source == "flag"
        else {"env": {"KUBECTL_GPU_IMAGE": ref}}
        if source == "env"
        else {"config": {"image": ref}}
    )
    choice = resolve_image(Accelerator.NVIDIA, config_path="c.yaml", **kw)
    assert choice.image == ref and is_pinned(choice.image)
    pod = build_debug_pod(spec(image=choice.image))
    assert pod["spec"]["containers"][0]["image"] == ref
    assert f"--image={ref}" in kubectl_debug_command(spec(image=ref)).argv


@pytest.mark.parametrize(
    "ref",
    ["reg/x:1@sha256:abc", "reg/x@md5:" + "0" * 32, "reg/x@", "reg/x:1 --privileged", ""],
)
def test_a_malformed_reference_is_refused(ref: str) -> None:
    with pytest.raises(ValueError, match="--image"):
        resolve_image(Accelerator.NVIDIA, flag=ref or " ", env={}, config=None)


def test_every_default_image_is_pinned_by_digest() -> None:
    for accelerator in Accelerator:
        choice = resolve_image(accelerator, flag=None, env={}, config=None)
        assert choice.source == "default" and is_pinned(choice.image), choice
