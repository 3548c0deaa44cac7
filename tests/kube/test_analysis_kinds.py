"""Every analysis declares the kinds it reads (`KINDS`), and live it needs no other.

The demo bundle's objects are served by the suite's API server; each analysis runs on a live source that
lists only its declared kinds and must give exactly the answer it gives when every kind is read. The
requests prove that no other kind was listed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.analyses import cost, diagnose, drivers, health, lifecycle, lint, nodes, nvme, pending
from kubectl_gpu.core.catalog import Catalog, load_catalog
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.kube.kinds import ALL_KINDS
from kubectl_gpu.kube.source import LiveClusterSource, SourceOptions
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.resources import CRD_NAMES

DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"
Analyse = Callable[[ClusterState, Catalog, datetime], Any]

CASES: dict[str, tuple[frozenset[str], Analyse]] = {
    "nodes": (nodes.KINDS, nodes.analyse),
    "health": (health.KINDS, health.analyse),
    "pending": (pending.KINDS, pending.analyse),
    "drivers": (drivers.KINDS, drivers.analyse),
    "nvme": (nvme.KINDS, nvme.analyse),
    "lifecycle": (lifecycle.KINDS, lifecycle.analyse),
    "lint": (lint.KINDS, lint.analyse),
    "cost": (cost.KINDS, cost.analyse),
    "inventory": (cost.INVENTORY_KINDS, cost.analyse_inventory),
    "diagnose": (diagnose.KINDS, diagnose.analyse),
}


@pytest.fixture(scope="module")
def served() -> tuple[list[dict[str, Any]], datetime]:
    bundle = json.loads(DEMO.read_text())
    from kubectl_gpu.core.k8s.times import parse_time

    return bundle["objects"], parse_time(bundle["capturedAt"])


def _source(apiserver: FakeKubeAPI, kubeconfig: Path) -> LiveClusterSource:
    return LiveClusterSource(SourceOptions(kubeconfig=str(kubeconfig)))


def _kind_of_path(path: str) -> str | None:
    for spec in ALL_KINDS:
        if any(
            path.startswith(spec.path(v).rsplit("/", 1)[0]) and path.endswith("/" + spec.name)
            for v in spec.versions
        ):
            return spec.name
    return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_analysis_needs_only_its_declared_kinds(
    name: str,
    served: tuple[list[dict[str, Any]], datetime],
    apiserver: FakeKubeAPI,
    kubeconfig: Path,
) -> None:
    objects, now = served
    apiserver.install_crds(*CRD_NAMES)
    apiserver.add(*objects)
    kinds, analyse = CASES[name]
    catalog = load_catalog()
    everything = analyse(_source(apiserver, kubeconfig).load(None), catalog, now).to_dict()
    apiserver.requests.clear()
    state = _source(apiserver, kubeconfig).load(kinds)
    declared = analyse(state, catalog, now).to_dict()
    assert declared == everything
    listed = {_kind_of_path(r.path) for r in apiserver.requests} - {None}
    # Every declared kind the server serves (per /apis) is listed, and nothing else; one it does not serve
    # (here the v1alpha5 Karpenter kinds) is absent without a request.
    assert listed == set(kinds) - state.absent
    assert state.absent <= {"provisioners", "machines"}
    # Not vacuous: the demo gives every analysis something to say.
    assert any(v for k, v in everything.items() if k not in ("apiVersion", "kind"))
