"""Fixtures for the TUI: the demo bundle as a snapshot config, and the same cluster served live by the
suite's API server (with the simulated kubelet for debug pods), and Pilot helpers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from kubectl_gpu.kube.source import SourceOptions
from kubectl_gpu.tui.app import GpuApp
from kubectl_gpu.tui.config import TuiConfig
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import CLOSED_PORT_SERVER
from tests.kube.kubelet import SimulatedKubelet, debug_pods, wait_for

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "automode-gpu-demo.json"
DEMO_NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
CRDS = (
    "nodepools.karpenter.sh",
    "nodeclaims.karpenter.sh",
    "nodeclasses.eks.amazonaws.com",
    "ec2nodeclasses.karpenter.k8s.aws",
)
#: the demo's first GPU node (XID 79, the stored probe fails) and the pod Pending for a missing toleration
BROKEN_NODE = "i-04b975f2935588ecc"
CHAT_API = "default/chat-api-7d9f8c6b5d-x2k4p"


def demo_config(**kw: Any) -> TuiConfig:
    return TuiConfig(SourceOptions(snapshot=(str(DEMO),)), refresh=None, **kw)


def demo_app(**kw: Any) -> GpuApp:
    return GpuApp(demo_config(**kw), clock=lambda: DEMO_NOW)


async def settle(pilot: Pilot[Any], *keys: str) -> None:
    """Press `keys` one by one, then wait for every worker (refreshes, debug jobs) and the screen."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    for key in keys:
        await pilot.press(key)
        await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def demo_objects() -> list[dict[str, Any]]:
    return list(json.loads(DEMO.read_text())["objects"])


def write_two_cluster_kubeconfig(path: Path, test: str, prod: str) -> Path:
    """Contexts `test` (`test` server), `prod` (`prod` server) and `other` (nothing listens), current `test`."""
    servers = {"test": test, "prod": prod, "other": CLOSED_PORT_SERVER}
    config = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": n, "cluster": {"server": s}} for n, s in servers.items()],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": n, "context": {"cluster": n, "user": "u"}} for n in servers],
        "current-context": "test",
    }
    path.write_text(json.dumps(config))
    return path


@dataclass
class Live:
    api: FakeKubeAPI
    prod: FakeKubeAPI
    kubelet: SimulatedKubelet
    kubeconfig: Path

    def config(self, *, timeout: float = 5.0, **kw: Any) -> TuiConfig:
        source = SourceOptions(kubeconfig=str(self.kubeconfig), context="test", request_timeout=timeout)
        return TuiConfig(source, now=DEMO_NOW, refresh=None, **kw)

    def app(self, **kw: Any) -> GpuApp:
        """The app on the test cluster; `s` and `x` do not ask first unless `confirm=True` (the question is
        tested on its own: tests/tui/test_pilot_safety.py)."""
        kw.setdefault("confirm", False)
        return GpuApp(self.config(**kw), clock=lambda: DEMO_NOW)


@pytest.fixture(autouse=True)
def _isolated_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for var in ("KUBECTL_GPU_IMAGE", "KUBECTL_GPU_NEURON_IMAGE", "KUBECTL_GPU_KUBECTL", "COLORFGBG"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    """The demo cluster on the test API server (context `test`), a one-node cluster on another (`prod`);
    every test ends with no debug pod on either."""
    with FakeKubeAPI() as api, FakeKubeAPI() as prod, SimulatedKubelet(api, delay=0.02) as kubelet:
        for server in (api, prod):
            server.install_crds(*CRDS)
        api.add(*demo_objects())
        prod.add(*(o for o in demo_objects() if o["kind"] == "Node" and o["metadata"]["name"] == BROKEN_NODE))
        kubeconfig = write_two_cluster_kubeconfig(tmp_path / "kubeconfig", api.url, prod.url)
        yield Live(api, prod, kubelet, kubeconfig)
        assert wait_for(lambda: not debug_pods(api), timeout=5.0), debug_pods(api)
