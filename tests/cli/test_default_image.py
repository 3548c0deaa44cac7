"""The default debug image works on first use, and an image that cannot be pulled is one clear line.

Against the test API server with the simulated kubelet (tests/kube/kubelet.py): the pod `kubectl gpu smi`
creates without --image names the public image documented in docs/debug-pods.md; with the kubelet's
"image-pull" fault (ErrImagePull, then ImagePullBackOff) the run ends within seconds, names the image, why
and the three ways to choose another, and leaves no pod behind."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.debugpod import DEFAULT_IMAGES, PUBLIC_BASE_IMAGE, Accelerator
from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import SimulatedKubelet, debug_pods, gpu_node, wait_for

Cli = Callable[..., Result]
DOC = Path(__file__).resolve().parents[2] / "docs" / "debug-pods.md"


@pytest.fixture(autouse=True)
def isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for var in ("KUBECTL_GPU_IMAGE", "KUBECTL_GPU_NEURON_IMAGE"):
        monkeypatch.delenv(var, raising=False)


class Cluster:
    def __init__(self, api: FakeKubeAPI, kubelet: SimulatedKubelet, kubeconfig: Path) -> None:
        self.api, self.kubelet, self.kubeconfig = api, kubelet, kubeconfig
        self.created: list[dict[str, Any]] = []
        api.on_create.append(lambda resource, obj: self.created.append(obj) if resource == "pods" else None)

    def args(self, *args: str) -> tuple[str, ...]:
        return (*args, "--kubeconfig", str(self.kubeconfig))


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    # A kubelet step every 0.3 s: ErrImagePull is reported 0.6 s after the create, as a fast registry answers.
    with FakeKubeAPI() as api, SimulatedKubelet(api, delay=0.3) as kubelet:
        api.add(gpu_node("i-0aaa"))
        yield Cluster(api, kubelet, write_kubeconfig(tmp_path / "kubeconfig", api.url))
        assert wait_for(lambda: not debug_pods(api), timeout=3.0), debug_pods(api)


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_the_pod_built_with_the_default_image_names_the_documented_public_image(
    cli: Cli, cluster: Cluster
) -> None:
    result = cli(*cluster.args("smi", "i-0aaa", "-o", "json"))
    assert result.code == 0, result.err
    (pod,) = cluster.created
    (container,) = pod["spec"]["containers"]
    assert container["image"] == PUBLIC_BASE_IMAGE == DEFAULT_IMAGES[Accelerator.NVIDIA]
    assert container["command"][:2] == [
        "sh",
        "-c",
    ]  # the collector travels as text: any image with sh runs it
    assert container["imagePullPolicy"] == "IfNotPresent"
    (node,) = json.loads(result.out)["results"]
    assert node["image"] == PUBLIC_BASE_IMAGE and node["error"] is None  # the result says which image ran


def test_the_default_image_is_public_pinned_and_documented_with_its_source() -> None:
    registry_and_tag, _, digest = PUBLIC_BASE_IMAGE.partition("@")
    assert registry_and_tag == "public.ecr.aws/docker/library/debian:bookworm-20260918-slim"
    assert re.fullmatch(r"sha256:[0-9a-f]{64}", digest)
    doc = DOC.read_text()
    assert PUBLIC_BASE_IMAGE in doc
    # where the digest comes from, exactly enough to look it up again
    assert "docker-library/repo-info" in doc and "repos/debian/remote/bookworm-20260918-slim.md" in doc
    assert "43a0ed1e9fb9a76535ddf0c2040fb9223eac2b15" in doc
    for reason in ("glibc", "musl", "util-linux", "nsenter", "Bottlerocket", "AL2023", "arm64", "opt-in"):
        assert reason in doc, reason


def test_an_image_pull_failure_is_one_line_within_seconds_and_the_pod_is_deleted(
    cli: Cli, cluster: Cluster
) -> None:
    cluster.kubelet.faults["i-0aaa"] = "image-pull"
    result = cli(*cluster.args("smi", "i-0aaa"))  # its --timeout is 120 s: waiting it out says "timed out"
    assert result.code == 3
    line = _one_line(result.err)
    assert line.startswith(f"error: node i-0aaa: cannot pull image {PUBLIC_BASE_IMAGE} (")
    assert (
        "): the registry has no such image or tag; check the name and tag; this is kubectl-gpu's default image"
        in line
    )
    assert (
        "--image REF, the environment KUBECTL_GPU_IMAGE=REF or image.nvidia: REF in ~/.config/kubectl-gpu/config.yaml"
        in line
    )
    assert wait_for(lambda: not debug_pods(cluster.api), timeout=60), debug_pods(cluster.api)
    (pod,) = cluster.created
    assert cluster.api.get("pods", pod["metadata"]["name"], pod["metadata"]["namespace"]) is None


def test_the_documented_example_is_what_the_cli_prints(cli: Cli, cluster: Cluster) -> None:
    (example,) = [
        ln for ln in DOC.read_text().splitlines() if ln.startswith("error: node i-0aaa: cannot pull image")
    ]
    image = example.split("cannot pull image ", 1)[1].split(" ", 1)[0]
    cluster.kubelet.faults["i-0aaa"] = "image-pull"
    result = cli(*cluster.args("smi", "i-0aaa", "--image", image))
    assert result.code == 3
    line = _one_line(result.err)
    if "(ErrImagePull:" in line:
        assert line == example
    else:  # the poll landed after the kubelet's next step: the back-off message repeats the same pull error
        assert "(ImagePullBackOff: Back-off pulling image" in line
        assert line.split("): ", 1)[1] == example.split("): ", 1)[1]
