"""Input errors found late (issue 8, item 10): each is exit 2 and one line naming the file."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "automode-gpu-demo.json"


def _one_line_error(result: Result, code: int, *needles: str) -> None:
    assert result.code == code, result.err
    assert len(result.err.splitlines()) == 1, result.err
    assert result.err.startswith("error: ") and "Traceback" not in result.err
    for needle in needles:
        assert needle in result.err


# --- smi --from-file: a file that is not nvidia-smi output ----------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        DEMO.read_text(),  # a snapshot bundle: its probes hold collector output, JSON-escaped
        json.dumps({"log": "===KUBECTL-GPU:COLLECTOR=== started\n"}),
        "grep found ===KUBECTL-GPU:COLLECTOR in the pod log\n",
    ],
    ids=["snapshot-bundle", "json-with-marker", "log-line-with-marker"],
)
def test_smi_from_file_not_smi_output_is_bad_input(cli: Cli, tmp_path: Path, text: str) -> None:
    path = tmp_path / "not-smi.txt"
    path.write_text(text)
    result = cli("smi", "--from-file", str(path))
    _one_line_error(result, 2, str(path))


# --- YAML that names a key twice ------------------------------------------------------------------------

NODE_TWICE_LABELLED = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-a
  labels:
    node.kubernetes.io/instance-type: p5.48xlarge
    karpenter.sh/nodepool: gpu
    node.kubernetes.io/instance-type: g6e.xlarge
"""


def test_snapshot_yaml_with_a_duplicate_key_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "nodes.yaml"
    path.write_text(NODE_TWICE_LABELLED)
    for command in ("nodes", "pending", "lint"):
        result = cli(command, "--snapshot", str(path))
        _one_line_error(result, 2, str(path), "'node.kubernetes.io/instance-type'", "line 8", "line 6")


def test_lint_manifest_with_a_duplicate_key_is_bad_input(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "manifest.yaml"
    path.write_text(NODE_TWICE_LABELLED)
    _one_line_error(cli("lint", "-f", str(path)), 2, str(path), "duplicate key", "line 8")
    monkeypatch.setattr("sys.stdin", io.StringIO(NODE_TWICE_LABELLED))
    _one_line_error(cli("lint", "-f", "-"), 2, "<stdin>", "duplicate key", "line 8")


def test_price_file_with_a_duplicate_type_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("prices:\n  p5.48xlarge: 55.04\n  g6e.xlarge: 1.86\n  p5.48xlarge: 98.32\n")
    result = cli("cost", "--snapshot", str(DEMO), "--price-file", str(prices))
    _one_line_error(result, 2, str(prices), "duplicate key 'p5.48xlarge' at line 4 (first at line 2)")


def test_debug_config_with_a_duplicate_key_is_bad_input(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg" / "kubectl-gpu" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_text("image:\n  nvidia: example.com/a:1\nimage:\n  nvidia: example.com/b:1\n")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    result = cli("smi", "--all", "--kubeconfig", str(tmp_path / "no-kubeconfig"))
    _one_line_error(result, 2, str(config), "duplicate key 'image' at line 3")


# --- one --snapshot directory, one cluster --------------------------------------------------------------


def test_snapshot_directory_of_two_clusters_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    """For a command that reads one cluster (`smi`), and wherever a file names no cluster; the read-only
    commands read the bundles of several clusters as a fleet instead (tests/fleet, docs/fleet.md)."""
    bundle = json.loads(DEMO.read_text())
    for name, context in (("prod.json", "prod-us-east-1"), ("staging.json", "staging-eu-west-1")):
        (tmp_path / name).write_text(json.dumps({**bundle, "context": context}))
    result = cli("smi", "--all", "--snapshot", str(tmp_path))
    _one_line_error(
        result,
        2,
        str(tmp_path / "prod.json"),
        str(tmp_path / "staging.json"),
        "'prod-us-east-1'",
        "at a time",
    )
    fleet = cli("nodes", "--snapshot", str(tmp_path), "-o", "json")
    assert fleet.code == 0 and [c["context"] for c in json.loads(fleet.out)["clusters"]] == [
        "prod-us-east-1",
        "staging-eu-west-1",
    ]
    (tmp_path / "plain.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": []}))
    _one_line_error(cli("nodes", "--snapshot", str(tmp_path)), 2, "'prod-us-east-1'", "at a time")
    (tmp_path / "staging.json").write_text(json.dumps({**bundle, "context": "prod-us-east-1"}))
    assert cli("nodes", "--snapshot", str(tmp_path)).code == 0


# --- absurd prices --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("price", "needle"),
    [
        ("1e32", "at most 10,000 USD per hour"),  # YAML 1.1 reads 1e32 (no dot) as a string
        ("1.0e+32", "at most 10,000 USD per hour"),
        ('"1e999999"', "at most 10,000 USD per hour"),
        ("99999999999999999999999999999", "at most 10,000 USD per hour"),
        ("10000.01", "at most 10,000 USD per hour"),
        ("-0.5", "zero or more"),
        (".nan", "finite"),
        ("-.inf", "finite"),
        ('"NaN"', "finite"),
        ('"Infinity"', "finite"),
    ],
)
def test_absurd_price_is_bad_input_naming_the_entry(
    cli: Cli, tmp_path: Path, price: str, needle: str
) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(f"prices:\n  p5.48xlarge: 55.04\n  g6e.xlarge: {price}\n")
    for args in (("cost",), ("cost", "-o", "json"), ("nodes", "-o", "wide"), ("inventory",)):
        result = cli(*args, "--snapshot", str(DEMO), "--price-file", str(prices))
        _one_line_error(result, 2, str(prices), "g6e.xlarge", needle)


@pytest.mark.parametrize("price", ["0", "0.0001", "10000", "142.416"])
def test_prices_in_range_are_used(cli: Cli, tmp_path: Path, price: str) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"prices": {"g6e.xlarge": float(price)}}))
    result = cli("cost", "--snapshot", str(DEMO), "--price-file", str(prices), "-o", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["pricing"]["priceFile"] == str(prices)
