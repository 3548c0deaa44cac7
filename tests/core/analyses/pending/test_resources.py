"""Issue 11 round two, item 4: resources beyond accelerators.

* Daemon overhead in instance fit: kubernetes-sigs/karpenter pkg/controllers/provisioning/scheduling/scheduler.go
  `buildDaemonOverheadGroups`, `isDaemonPodCompatible` (taints tolerated, requirements compatible one term at a
  time), nodeclaim.go `filterInstanceTypesByRequirements` (pod requests + daemon overhead must fit);
  pkg/controllers/provisioning/suite_test.go "Daemonsets": "should account for daemonsets", "should not schedule
  if daemonset overhead is too large", "should ignore daemonsets without matching tolerations", "should ignore
  daemonsets when no instance types meet the daemonset requirements", "should account for daemonset hostports".
* ephemeral-storage against the NodeClass: aws/karpenter-provider-aws pkg/providers/instancetype/types.go
  `ephemeralStorage` (rootVolume block device, else the AMI family's device, else 20Gi; RAID0 instance store),
  `kubeReservedResources` (1Gi), `evictionThreshold` (10% nodefs).
* Host ports: karpenter pkg/scheduling/hostportusage.go `HostPort.Matches`, `HostPortUsage.Conflicts`,
  `GetHostPorts` (hostIP defaults to 0.0.0.0); kube-scheduler pkg/scheduler/framework/plugins/nodeports `Fits`.
* Existing node: kube-scheduler pkg/scheduler/framework/plugins/noderesources/fit.go `fitsRequest`
  ("Too many pods", "Insufficient cpu") -> INSUFFICIENT_RESOURCES when the accelerator is free.
"""

from __future__ import annotations

import pytest

from kubectl_gpu.core.analyses.pending import Verdict as V
from kubectl_gpu.core.k8s.placement import HostPort
from tests.core.analyses.pending._round_two import check, daemonset, gpu_pod, verdict
from tests.core.analyses.pending._scenarios import find, items, without


def automode(*extra: object) -> list:
    return [*items("automode-gpu"), *extra]


# --- daemon overhead ---------------------------------------------------------------------------------


def test_daemonset_overhead_counts_in_the_instance_fit() -> None:
    base = verdict(automode(gpu_pod(requests={"nvidia.com/gpu": "1", "cpu": "150"})))
    assert base.verdict is not V.NO_INSTANCE_TYPE_FITS
    diag = verdict(
        automode(
            daemonset("big-agent", requests={"cpu": "60"}),
            gpu_pod(requests={"nvidia.com/gpu": "1", "cpu": "150"}),
        )
    )
    assert diag.verdict is V.NO_INSTANCE_TYPE_FITS
    assert "for daemonsets" in diag.reason


def test_a_daemonset_that_does_not_tolerate_the_pool_taint_is_not_counted() -> None:
    ds = daemonset("big-agent", requests={"cpu": "60"}, tolerations=[])
    diag = verdict(automode(ds, gpu_pod(requests={"nvidia.com/gpu": "1", "cpu": "150"})))
    assert diag.verdict is not V.NO_INSTANCE_TYPE_FITS


def test_a_daemonset_whose_selector_the_pool_cannot_meet_is_not_counted() -> None:
    ds = daemonset("arm-agent", requests={"cpu": "60"}, nodeSelector={"kubernetes.io/arch": "arm64"})
    diag = verdict(automode(ds, gpu_pod(requests={"nvidia.com/gpu": "1", "cpu": "150"})))
    assert diag.verdict is not V.NO_INSTANCE_TYPE_FITS


# --- ephemeral-storage --------------------------------------------------------------------------------


def karpenter_with_root_volume(size: str) -> list:
    objects = without(items("karpenter-gpu"), "NodeClaim", "gpu-ljvhl")
    spec = find(objects, "EC2NodeClass", "gpu")["spec"]
    spec.pop("instanceStorePolicy", None)
    spec["blockDeviceMappings"] = [
        {"deviceName": "/dev/xvda", "rootVolume": True, "ebs": {"volumeSize": size}}
    ]
    return objects


@pytest.mark.parametrize(("request_", "fits"), [("80Gi", True), ("95Gi", False)])
def test_ephemeral_storage_against_the_root_volume(request_: str, fits: bool) -> None:
    # 100Gi root volume: allocatable 100Gi - 1Gi kube-reserved - 10% eviction threshold = 89Gi.
    pod = gpu_pod(requests={"nvidia.com/gpu": "1", "ephemeral-storage": request_})
    diag = verdict([*karpenter_with_root_volume("100Gi"), pod])
    assert (diag.verdict is V.NO_INSTANCE_TYPE_FITS) is not fits, diag.reason
    if not fits:
        assert "ephemeral-storage" in diag.reason and "EC2NodeClass gpu" in diag.reason


def test_ephemeral_storage_on_auto_mode_uses_the_nodeclass_size() -> None:
    objects = automode(gpu_pod(requests={"nvidia.com/gpu": "1", "ephemeral-storage": "100Ti"}))
    diag = verdict(objects)
    assert diag.verdict is V.NO_INSTANCE_TYPE_FITS
    assert "ephemeral-storage" in diag.reason


def test_ephemeral_storage_with_no_nodeclass_in_the_data_is_unknown() -> None:
    objects = without(
        automode(gpu_pod(requests={"nvidia.com/gpu": "1", "ephemeral-storage": "10Gi"})),
        "NodeClass",
        "default",
    )
    diag = verdict(objects)
    assert diag.verdict is V.UNVERIFIED


# --- host ports ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mine", "theirs", "conflict"),
    [
        (HostPort("0.0.0.0", 9400, "TCP"), HostPort("0.0.0.0", 9400, "TCP"), True),
        (HostPort("10.0.0.1", 9400, "TCP"), HostPort("0.0.0.0", 9400, "TCP"), True),
        (HostPort("10.0.0.1", 9400, "TCP"), HostPort("10.0.0.2", 9400, "TCP"), False),
        (HostPort("0.0.0.0", 9400, "UDP"), HostPort("0.0.0.0", 9400, "TCP"), False),
        (HostPort("0.0.0.0", 9401, "TCP"), HostPort("0.0.0.0", 9400, "TCP"), False),
        (HostPort("::", 9400, "TCP"), HostPort("10.0.0.2", 9400, "TCP"), True),
    ],
)
def test_host_port_matches(mine: HostPort, theirs: HostPort, conflict: bool) -> None:
    assert mine.conflicts(theirs) is conflict


def test_a_daemonset_host_port_blocks_the_pool() -> None:
    exporter = daemonset("dcgm-exporter", ports=[{"containerPort": 9400, "hostPort": 9400}])
    pod = gpu_pod(ports=[{"containerPort": 9400, "hostPort": 9400}])
    diag = verdict(automode(exporter, pod))
    assert diag.verdict is V.HOST_PORT_CONFLICT
    assert "kube-system/dcgm-exporter" in diag.reason


def test_another_protocol_does_not_conflict() -> None:
    exporter = daemonset("dcgm-exporter", ports=[{"containerPort": 9400, "hostPort": 9400}])
    pod = gpu_pod(ports=[{"containerPort": 9400, "hostPort": 9400, "protocol": "UDP"}])
    diag = verdict(automode(exporter, pod))
    assert diag.verdict is not V.HOST_PORT_CONFLICT
    assert check(diag, "gpu", "host ports").ok is True


def test_a_host_port_used_on_the_node_blocks_it() -> None:
    objects = items("no-karpenter")
    web = gpu_pod(
        "web",
        requests={"cpu": "100m"},
        ports=[{"containerPort": 80, "hostPort": 8080}],
        node="ip-10-0-3-17.ec2.internal",
        phase="Running",
    )
    t4 = find(objects, "Pod", "t4-inference")
    t4["spec"]["containers"][0]["ports"] = [{"containerPort": 8080, "hostPort": 8080}]
    diag = verdict([*objects, web], "t4-inference", "serving")
    assert diag.verdict is V.HOST_PORT_CONFLICT
    assert "t/web" in diag.reason


# --- existing node: cpu, memory, pods --------------------------------------------------------------------


def test_free_accelerator_but_not_enough_cpu_is_insufficient_resources() -> None:
    objects = items("no-karpenter")
    t4 = find(objects, "Pod", "t4-inference")
    t4["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "8"
    diag = verdict(objects, "t4-inference", "serving")
    assert diag.verdict is V.INSUFFICIENT_RESOURCES
    assert "cpu" in diag.reason and "8 wanted" in diag.reason


def test_a_full_pod_count_is_insufficient_resources() -> None:
    objects = items("no-karpenter")
    node = find(objects, "Node", "ip-10-0-3-17.ec2.internal")
    bound = sum(
        1
        for o in objects
        if o["kind"] == "Pod"
        and o["spec"].get("nodeName") == node["metadata"]["name"]
        and o["status"].get("phase") not in ("Succeeded", "Failed")
    )
    node["status"]["allocatable"]["pods"] = str(bound)
    diag = verdict(objects, "t4-inference", "serving")
    assert diag.verdict is V.INSUFFICIENT_RESOURCES
    assert "pods:" in diag.reason


def test_enough_cpu_passes_the_resources_check() -> None:
    diag = verdict(items("no-karpenter"), "t4-inference", "serving")
    assert check(diag, "ip-10-0-3-17.ec2.internal", "resources").ok is True


def test_daemonset_cpu_counts_even_when_the_pod_requests_none() -> None:
    # filterInstanceTypesByRequirements fits pod requests merged with the daemon overhead, every resource of both.
    diag = verdict(automode(daemonset("huge-agent", requests={"cpu": "500"}), gpu_pod()))
    assert diag.verdict is V.NO_INSTANCE_TYPE_FITS
    assert "cpu" in diag.reason


@pytest.mark.parametrize("kind", ["daemonsets", "nodeoverlays"])
def test_forbidden_daemonsets_or_overlays_leave_the_fit_unknown(kind: str) -> None:
    import dataclasses

    from kubectl_gpu.core.analyses.pending import analyse_pending
    from kubectl_gpu.core.k8s.state import Note
    from tests.core.analyses.pending._scenarios import NOW, catalog, diagnosis, state_of

    state = state_of(automode(gpu_pod()))
    clean = diagnosis(
        analyse_pending(state, catalog(), NOW, pods=[p for p in state.pods if p.name == "p"]), "t/p"
    )
    assert clean.verdict is V.NO_BLOCKER_FOUND
    state = dataclasses.replace(state, notes=(Note("FORBIDDEN", f"forbidden to list {kind}", kind),))
    diag = diagnosis(
        analyse_pending(state, catalog(), NOW, pods=[p for p in state.pods if p.name == "p"]), "t/p"
    )
    assert diag.verdict is V.UNVERIFIED
    assert f"forbidden to list {kind}" in diag.notes
