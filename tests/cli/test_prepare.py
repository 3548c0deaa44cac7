"""A command's body reads nothing (`run.Command.prepare`, issue 39): bad input it can check alone is exit 2
before any read, and what needs the cluster (the price book's region, explain's pod, lifecycle's --pod) is
decided after the load, once per cluster."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.cli.test_bad_input import CLOSED_PORT_KUBECONFIG, DEMO, one_line_error
from tests.conftest import Result

Cli = Callable[..., Result]


@pytest.fixture
def unreachable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A kubeconfig whose server refuses: a command that read the cluster first would exit 3."""
    path = tmp_path / "config"
    path.write_text(json.dumps(CLOSED_PORT_KUBECONFIG))
    monkeypatch.setenv("KUBECONFIG", str(path))


@pytest.mark.parametrize("command", ["nodes", "cost", "inventory", "usage"])
@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--price-file", "/nonexistent/prices.yaml"], "--price-file"),
        (["--region", "moon-1"], "--region"),
    ],
)
def test_bad_prices_are_exit_2_before_the_cluster_is_read(
    cli: Cli, unreachable: None, command: str, flags: list[str], says: str
) -> None:
    assert says in one_line_error(cli(command, *flags))


def test_the_price_region_is_the_clusters(cli: Cli) -> None:
    """Prepared from the loaded state: the demo's nodes are in us-west-2."""
    done = cli("cost", "--snapshot", str(DEMO), "-o", "json")
    assert done.code == 0, done.err
    assert "us-west-2" in json.dumps(json.loads(done.out))


def test_explain_looks_its_pod_up_in_the_loaded_state(cli: Cli) -> None:
    line = one_line_error(cli("explain", "nosuch", "--snapshot", str(DEMO)))
    assert "pod default/nosuch not found" in line


def test_lint_reads_its_manifests_in_the_pipeline(cli: Cli, tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n")
    assert "no NodePool, NodeClass or EC2NodeClass" in one_line_error(cli("lint", "-f", str(empty)))


def test_no_command_body_reads_the_cluster() -> None:
    """`loaded=` is gone: a body returns data; the pipeline (cli/run.py) alone loads."""
    root = Path(__file__).resolve().parents[2] / "kubectl_gpu" / "cli"
    for path in root.glob("*.py"):
        text = path.read_text()
        assert "loaded=" not in text, path.name
        if path.name not in ("run.py", "watch.py", "fleet.py", "snapshot.py", "capture.py", "tui.py"):
            assert "open_source(" not in text, path.name
