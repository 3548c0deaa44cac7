"""GPU processes to pods: the cgroup gives the pod UID, the node's pods give it a name; else a reason."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.analyses.smi import SmiResult
from kubectl_gpu.core.k8s.parse import parse_pod
from kubectl_gpu.core.probe import parse_collector_output, parse_saved_output
from kubectl_gpu.core.probe.attribution import (
    ATTRIBUTION_NOTE,
    ProcessPod,
    Unattributed,
    attribute,
    attribute_processes,
    attribution_notes,
    cgroups_problem,
    pod_names_by_uid,
    process_pids,
)
from tests.helpers import FIXTURES, pod

PROBE = FIXTURES / "probe"
L4_XML = "nvidia-smi/xml/datarhei-core__2x-nvidia-l4__555.42.06__v12__ffmpeg-procs.xml"
L4_CGROUPS = "ours/cgroup/ours__pid-cgroups__v2-systemd-containerd__matches-l4-xml.txt"
A = "4f1e25a0-7c3b-4d2e-9a61-0b8c5d7e9f12"  # PID 10131
B = "8d2c4a61-3b7e-4f0a-9e15-6c2d8b0a4f37"  # PID 13597; PID 16870 runs in system.slice


def _pod(name: str, namespace: str, uid: str, **kw: Any) -> dict[str, Any]:
    obj = pod(name, namespace, node_name="i-0aaa", **kw)
    obj["metadata"]["uid"] = uid
    return obj


def output(blocks: list[tuple[str, int, str]]) -> str:
    """Collector output with these (section, rc, body) blocks."""
    parts = ["===KUBECTL-GPU:COLLECTOR v1 id=t1===\n"]
    for name, rc, body in blocks:
        parts.append(
            f"===KUBECTL-GPU:BEGIN {name} rc={rc} id=t1===\n{body}\n===KUBECTL-GPU:END {name} id=t1===\n"
        )
    return "".join(parts) + "===KUBECTL-GPU:DONE id=t1===\n"


def l4_probe(cgroups: tuple[int, str] | None = (0, (PROBE / L4_CGROUPS).read_text())) -> Any:
    blocks = [("nvidia-smi-xml", 0, (PROBE / L4_XML).read_text())]
    if cgroups is not None:
        blocks.append(("pid-cgroups", cgroups[0], cgroups[1]))
    return parse_collector_output(output(blocks))


def test_pod_names_by_uid_with_a_mirror_pod() -> None:
    static_hash = "a8a820fbada81c53d65a0c50e0f2a499"
    pods = [
        parse_pod(_pod("train-0", "ml", A)),
        parse_pod(_pod("serve-7f9c", "inference", B.upper())),
        parse_pod(
            _pod(
                "dcgm-i-0aaa",
                "kube-system",
                "0e4f1b6a-2c3d-4e5f-8a9b-0c1d2e3f4a5b",
                annotations={"kubernetes.io/config.mirror": static_hash},
            )
        ),
    ]
    assert pod_names_by_uid(pods) == {
        A: "ml/train-0",
        B: "inference/serve-7f9c",  # UIDs compare in lower case
        "0e4f1b6a-2c3d-4e5f-8a9b-0c1d2e3f4a5b": "kube-system/dcgm-i-0aaa",
        static_hash: "kube-system/dcgm-i-0aaa",  # the static pod's cgroup carries the hash
    }
    assert pod_names_by_uid([]) == {}


PID_PODS = {10: A, 11: B}
PODS = {A: "ml/train-0"}


@pytest.mark.parametrize(
    ("pid", "pods", "problem", "expected"),
    [
        (10, PODS, None, ProcessPod(10, A, "ml/train-0")),
        (11, PODS, None, ProcessPod(11, B, None, Unattributed.POD_NOT_LISTED)),
        (12, PODS, None, ProcessPod(12, None, None, Unattributed.NOT_IN_POD)),
        (12, PODS, "no section", ProcessPod(12, None, None, Unattributed.NO_SECTION)),
        (10, PODS, "partly failed", ProcessPod(10, A, "ml/train-0")),  # what was read still counts
        (10, None, None, ProcessPod(10, A, None, Unattributed.NO_POD_LIST)),
        (None, PODS, None, ProcessPod(None, None, None, Unattributed.NO_PID)),
    ],
)
def test_attribute(
    pid: int | None, pods: dict[str, str] | None, problem: str | None, expected: ProcessPod
) -> None:
    assert attribute(pid, PID_PODS, pods, section_problem=problem) == expected


def test_process_pids_cover_gpus_mig_devices_and_neuron_once() -> None:
    xml = (PROBE / "ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml").read_text()
    mig = parse_saved_output(xml)
    assert process_pids(mig) == (21180, 21198, 21181)  # MIG processes are also the GPU's: once each
    neuron = (PROBE / "ours/neuron/ours__neuron-ls-json__2dev-ring-with-procs.json").read_text()
    assert process_pids(parse_collector_output(output([("neuron-ls", 0, neuron)]))) == (109459,)


def test_cgroups_problem() -> None:
    assert cgroups_problem(l4_probe()) is None
    assert cgroups_problem(l4_probe((0, ""))) is None  # no GPU process is an answer
    missing = cgroups_problem(l4_probe(None))
    assert missing is not None and "has no pid-cgroups section" in missing
    failed = cgroups_problem(l4_probe((127, "")))
    assert failed is not None and failed.startswith(
        "the collector's pid-cgroups section failed (exit code 127"
    )
    garbled = cgroups_problem(l4_probe((0, "No devices were found")))
    assert garbled is not None and "pid-cgroups: line 1" in garbled


def test_every_reason_gets_its_note() -> None:
    processes = [
        ProcessPod(1, A, "ml/train-0"),
        ProcessPod(2, None, None, Unattributed.NOT_IN_POD),
        ProcessPod(3, None, None, Unattributed.NOT_IN_POD),
        ProcessPod(4, B, None, Unattributed.POD_NOT_LISTED),
        ProcessPod(None, why=Unattributed.NO_PID),
    ]
    notes = attribution_notes(processes)
    assert notes == (
        "process pods are null for processes without a PID (the tool reported none)",
        "process pods are null for PIDs 2, 3: not in a pod's cgroup (a process of the node itself, or one "
        "that exited before its cgroup was read)",
        f"process pods are null for PID 4: pod UID {B} is not in the node's pod list (deleted since, or a "
        "static pod without its mirror pod)",
    )
    assert attribution_notes([ProcessPod(1, A, "ml/train-0")]) == ()
    assert attribution_notes([]) == ()


def test_node_wide_reasons_name_no_pids_unless_partial() -> None:
    no_list = [ProcessPod(i, A, None, Unattributed.NO_POD_LIST) for i in (1, 2)]
    assert attribution_notes(no_list, pods_problem="the node's pods could not be listed (403 Forbidden)") == (
        "process pods are null: the node's pods could not be listed (403 Forbidden)",
    )
    partial = [ProcessPod(1, A, "ml/train-0"), ProcessPod(2, None, None, Unattributed.NO_SECTION)]
    assert attribution_notes(partial, section_problem="the section failed") == (
        "process pods are null for PID 2: the section failed",
    )
    many = [ProcessPod(i, why=Unattributed.NOT_IN_POD) for i in range(1, 12)]
    assert "PIDs 1, 2, 3, 4, 5, 6, 7, 8 and 3 more:" in attribution_notes(many)[0]
    assert all(n.startswith(ATTRIBUTION_NOTE) for n in attribution_notes(many))


def test_smi_result_attributes_gpu_processes() -> None:
    pods = pod_names_by_uid([parse_pod(_pod("train-0", "ml", A))])
    result = SmiResult("i-0aaa", "privileged-all", l4_probe(), pods=pods)
    assert result.process_pods() == {10131: "ml/train-0"}
    assert result.attribution() == attribute_processes(l4_probe(), pods)
    data = result.to_dict()
    procs = [(p["pid"], p["pod"]) for g in data["gpus"] for p in g["processes"]]  # type: ignore[union-attr, index]
    assert procs == [(10131, "ml/train-0"), (13597, None), (16870, None)]
    assert data["notes"] == [
        "process pods are null for PID 16870: not in a pod's cgroup (a process of the node itself, or one "
        "that exited before its cgroup was read)",
        f"process pods are null for PID 13597: pod UID {B} is not in the node's pod list (deleted since, or "
        "a static pod without its mirror pod)",
    ]


def test_smi_result_attributes_mig_and_neuron_processes() -> None:
    xml = (PROBE / "ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml").read_text()
    cgroups = (
        PROBE / "ours/cgroup/ours__pid-cgroups__v1-cgroupfs-containerd__matches-h100-mig-xml.txt"
    ).read_text()
    neuron = (PROBE / "ours/neuron/ours__neuron-ls-json__2dev-ring-with-procs.json").read_text()
    neuron_pod = "6c0e9b2d-4f17-4a3e-8d51-b9a2e7f0c384"
    cgroups += f"pid 109459\n0::/kubepods.slice/kubepods-pod{neuron_pod.replace('-', '_')}.slice/cri-containerd-9f.scope\n"
    probe = parse_collector_output(
        output([("nvidia-smi-xml", 0, xml), ("pid-cgroups", 0, cgroups), ("neuron-ls", 0, neuron)])
    )
    pods = pod_names_by_uid(
        parse_pod(_pod(name, "ml", uid))
        for name, uid in [
            ("memhog-a", "c3a9e0d4-52f1-4b86-8d07-1e6f2a9b5c48"),
            ("burn", "1b7f3e92-0c5a-4e1d-b6f8-93d2a4c7e015"),
            ("memhog-b", "e6d04b1f-8a27-4c39-95be-2f0d7c1a8e63"),
            ("trainium", neuron_pod),
        ]
    )
    data = SmiResult("i-0aaa", "privileged-all", probe, pods=pods).to_dict()
    gpu = data["gpus"][0]  # type: ignore[index]
    assert [(p["pid"], p["pod"]) for p in gpu["processes"]] == [  # type: ignore[index]
        (21180, "ml/memhog-a"),
        (21198, "ml/burn"),
        (21181, "ml/memhog-b"),
    ]
    migs = {m["gpuInstanceId"]: [(p["pid"], p["pod"]) for p in m["processes"]] for m in gpu["migDevices"]}  # type: ignore[index]
    assert migs == {2: [(21180, "ml/memhog-a"), (21198, "ml/burn")], 9: [(21181, "ml/memhog-b")]}
    (neuron_proc,) = data["neuronDevices"][0]["processes"]  # type: ignore[index]
    assert neuron_proc == {
        "pid": 109459,
        "command": "python3 -m torch_neuronx.distributed....",
        "pod": "ml/trainium",
    }
    assert data["notes"] == []


def test_smi_result_without_a_pod_list_or_section_says_why() -> None:
    no_list = SmiResult(None, None, l4_probe(), pods_unknown="--from-file reads no cluster").to_dict()
    assert all(p["pod"] is None for g in no_list["gpus"] for p in g["processes"])  # type: ignore[union-attr, index]
    assert no_list["notes"] == [
        "process pods are null for PID 16870: not in a pod's cgroup (a process of the node itself, or one "
        "that exited before its cgroup was read)",
        "process pods are null for PIDs 10131, 13597: --from-file reads no cluster",
    ]
    old = SmiResult("i-0aaa", "privileged-all", l4_probe(None), pods={A: "ml/train-0"}).to_dict()
    assert old["notes"] == [
        "process pods are null: the collector output has no pid-cgroups section (saved by an older "
        "kubectl-gpu, or plain nvidia-smi output), so host PIDs cannot be matched to pods"
    ]
    idle = SmiResult("i-0aaa", "privileged-all", parse_collector_output(output([("pid-cgroups", 0, "")])))
    assert idle.all_notes() == ()  # no process, nothing to explain
