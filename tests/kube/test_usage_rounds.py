"""`kube.usage.rounds`: the TUI's one read per endpoint per refresh, through the real `kubernetes` client
against the suite's API server, with a real exporter text (tests/fixtures/metrics, see PROVENANCE.jsonl):
one transport kept across rounds, none built when there is nothing to read, a 401 drops it."""

from __future__ import annotations

from pathlib import Path

import pytest

from kubectl_gpu.core.errors import ClusterError
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions, open_source
from kubectl_gpu.kube.transport import Transport
from kubectl_gpu.kube.usage.rounds import NO_EXPORTER, RoundReader, reader_for
from kubectl_gpu.kube.usage.window import _transport
from tests.helpers import pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.test_usage_collect import DCGM_TEXT, _exporter


@pytest.fixture
def options(kubeconfig: Path) -> SourceOptions:
    return SourceOptions(kubeconfig=str(kubeconfig), context="test", request_timeout=10.0)


class Built(list[Transport]):
    """A transport factory that counts what it built."""

    def __call__(self, options: SourceOptions, timeout_s: float) -> Transport:
        self.append(_transport(options, timeout_s))
        return self[-1]


def test_one_read_per_endpoint_per_round_on_one_transport(
    apiserver: FakeKubeAPI, options: SourceOptions
) -> None:
    apiserver.add(_exporter("nvidia-dcgm-exporter-a", "gpu-1"))
    apiserver.pod_proxy.serve("gpu-operator", "nvidia-dcgm-exporter-a", 9400, DCGM_TEXT)
    state = LiveClusterSource(options).load(["pods", "nodes"])
    built = Built()
    reader = RoundReader(options, transport=built)
    first, second = reader.read(state), reader.read(state)
    assert [s.text for s in (*first.scrapes, *second.scrapes)] == [DCGM_TEXT, DCGM_TEXT]
    assert first.looked and first.notes == () and first.endpoints == 1
    assert len(built) == 1  # kept between rounds


def test_nothing_to_read_builds_no_transport(apiserver: FakeKubeAPI, options: SourceOptions) -> None:
    apiserver.add(pod("web", node_name="cpu-1"))
    state = LiveClusterSource(options).load(["pods", "nodes"])
    built = Built()
    got = RoundReader(options, transport=built).read(state)
    assert (got.scrapes, got.notes, built) == ((), (NO_EXPORTER,), [])


def test_a_401_raises_and_the_next_round_builds_a_new_transport(
    apiserver: FakeKubeAPI, options: SourceOptions
) -> None:
    apiserver.add(_exporter("nvidia-dcgm-exporter-a", "gpu-1"))
    state = LiveClusterSource(options).load(["pods", "nodes"])
    built = Built()
    reader = RoundReader(options, transport=built)
    apiserver.require_token = "nobody-has-this-one"
    with pytest.raises(ClusterError, match="unauthorized"):
        reader.read(state)
    apiserver.require_token = None
    reader.read(state)
    assert len(built) == 2


def test_a_snapshot_has_no_reader() -> None:
    demo = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"
    assert reader_for(open_source(SourceOptions(snapshot=(str(demo),)))) is None
