"""Fixtures of the CLI tests: the fake API server's, and small snapshot files."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.helpers import node, nodepool, write_snapshot

# The API server fixtures, for end-to-end tests against a live (test) cluster.
from tests.kube.conftest import apiserver, kubeconfig, run_kubectl  # noqa: F401


@pytest.fixture
def warning_only_snapshot(tmp_path: Path) -> str:
    """A snapshot of a CPU node and an Auto Mode GPU NodePool without a taint: LINT_GPU_POOL_NO_TAINT (a
    warning) is the worst finding of every analysis, so `--fail-on` alone decides the exit code."""
    gpu_pool = nodepool(
        "gpu",
        requirements=[{"key": "eks.amazonaws.com/instance-family", "operator": "In", "values": ["g6e"]}],
    )
    return str(write_snapshot(tmp_path / "warning-only.json", node("i-0cpu"), gpu_pool))
