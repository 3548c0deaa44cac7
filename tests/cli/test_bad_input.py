"""Bad input on the command line: one line on stderr, a documented exit code, never a traceback.

Each test pins a problem found by feeding the CLI garbage (flags, snapshots, bundles, YAML, kubeconfigs).
"""

from __future__ import annotations

import copy
import io
import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.conftest import Result
from tests.helpers import as_list, node, pod
from tests.kube.conftest import write_kubeconfig

Cli = Callable[..., Result]

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "examples" / "automode-gpu-demo.json"
CLOSED_PORT_KUBECONFIG = {
    "apiVersion": "v1",
    "kind": "Config",
    "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}],
    "users": [{"name": "u", "user": {"token": "t"}}],
    "contexts": [{"name": "ctx", "context": {"cluster": "c", "user": "u"}}],
    "current-context": "ctx",
}


def one_line_error(result: Result, code: int = 2) -> str:
    """The result failed with `code` and said why in one `error:` line, without a traceback."""
    assert result.code == code, (result.code, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1, result.err
    assert lines[0].startswith("error: "), result.err
    assert "Traceback" not in result.err and "internal error" not in result.err
    return lines[0]


def bundle(tmp_path: Path, name: str = "bundle.json", **changes: Any) -> Path:
    data = json.loads(DEMO.read_text())
    data.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


@pytest.fixture
def closed_port(tmp_path: Path) -> Path:
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps(CLOSED_PORT_KUBECONFIG))
    return path


# --- usage errors -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        # (`--bogus` is close enough to `--user` for click to suggest it)
        (["nodes", "--frobnicate"], "No such option: --frobnicate; see 'kubectl-gpu nodes -h'"),
        (["-o", "bogus", "nodes"], "-o bogus: unknown output format"),
        (["explain"], "Missing argument 'pod'"),
        (["bogus"], "No such command 'bogus'"),
        (["drivers", "extra"], "unexpected extra argument"),  # (nodes takes NODE)
        (["smi", "--all", "--concurrency", "0"], "--concurrency"),
    ],
)
def test_usage_errors_are_one_line(cli: Cli, args: list[str], fragment: str) -> None:
    line = one_line_error(cli(*args))
    assert fragment in line
    assert "Value error" not in line  # typer's prefix says nothing


# --- global options -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "now",
    [
        "9999-12-31T23:59:59Z",  # analyses add expiry periods: OverflowError
        "9999-12-31T23:59:59-12:00",  # the offset alone overflows
        "0001-01-01T00:00:00+14:00",
        "0001-01-01T00:00:00Z",
    ],
)
@pytest.mark.parametrize("command", ["nodes", "lifecycle", "diagnose"])
def test_now_out_of_range(cli: Cli, command: str, now: str) -> None:
    assert "out of range" in one_line_error(cli(command, "--snapshot", str(DEMO), "--now", now))


def test_now_empty_is_an_error_not_unset(cli: Cli) -> None:
    assert "--now" in one_line_error(cli("nodes", "--snapshot", str(DEMO), "--now", ""))


def test_now_at_the_edges_of_the_range(cli: Cli) -> None:
    for now in ("1970-01-01T00:00:00Z", "2999-12-31T23:59:59Z"):
        assert cli("lifecycle", "--snapshot", str(DEMO), "--now", now).code == 0


@pytest.mark.parametrize("value", ["²", "1.5", "-5", "abc", "1d"])  # kubectl refuses each
def test_request_timeout_odd_values(cli: Cli, closed_port: Path, value: str) -> None:
    line = one_line_error(cli("nodes", "--kubeconfig", str(closed_port), "--request-timeout", value))
    assert "--request-timeout" in line


def test_malformed_selector_fails_before_connecting(cli: Cli, closed_port: Path) -> None:
    for command in (["nodes"], ["cleanup"], ["smi", "--all"], ["snapshot", "--out", "x.json"]):
        line = one_line_error(cli(*command, "--kubeconfig", str(closed_port), "-l", "a>1"))
        assert "-l/--selector" in line


def test_missing_kubeconfig_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    missing = str(tmp_path / "nope")
    for command in (["nodes"], ["cleanup"], ["shell", "n", "--dry-run"], ["snapshot", "--out", "x.json"]):
        assert "no such file" in one_line_error(cli(*command, "--kubeconfig", missing))
    # It only matters for a live cluster.
    assert cli("nodes", "--kubeconfig", missing, "--snapshot", str(DEMO)).code == 0


def test_garbage_kubeconfig_is_one_line(cli: Cli, tmp_path: Path) -> None:
    """The YAML error of a broken kubeconfig spans three lines; it must reach the user as one."""
    path = tmp_path / "kubeconfig"
    path.write_text("garbage: [")
    result = cli("nodes", "--kubeconfig", str(path))
    assert result.code in (2, 3)
    assert len(result.err.strip().splitlines()) == 1, result.err


# --- command options ----------------------------------------------------------------------------------


@pytest.mark.parametrize("needs", ["3000000d", "99999999999d", "36501d"])
def test_lifecycle_needs_too_long(cli: Cli, needs: str) -> None:
    line = one_line_error(cli("lifecycle", "--snapshot", str(DEMO), "--needs", needs))
    assert "--needs" in line and "too long" in line


@pytest.mark.parametrize("ref", ["", "/", "ml/", "/x", "a/b/c"])
def test_malformed_pod_references(cli: Cli, ref: str) -> None:
    assert "not a pod name" in one_line_error(cli("lifecycle", "--snapshot", str(DEMO), "--pod", ref))
    assert "not a pod name" in one_line_error(cli("explain", ref, "--snapshot", str(DEMO)))


def test_cost_min_idle_overflow(cli: Cli) -> None:
    assert "--min-idle" in one_line_error(cli("cost", "--snapshot", str(DEMO), "--min-idle", "99999999999d"))


@pytest.mark.parametrize("value", ["99999999999h", "25h", "²"])
def test_debug_pod_timeout_odd_values(cli: Cli, closed_port: Path, value: str) -> None:
    for command in (["smi", "n"], ["shell", "n", "--dry-run"]):
        line = one_line_error(cli(*command, "--kubeconfig", str(closed_port), "--timeout", value))
        assert "--timeout" in line


@pytest.mark.parametrize("source", [["--snapshot", str(DEMO)], ["--from-file", "-"]])
def test_smi_refuses_a_bad_timeout_offline_too(cli: Cli, source: list[str]) -> None:
    """`--timeout` is checked before the snapshot or the saved output is read, as it is live."""
    line = one_line_error(cli("smi", "i-0aaa", *source, "--timeout", "soon"))
    assert "--timeout: not a duration" in line


def test_binary_debug_config_file(
    cli: Cli, closed_port: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "xdg" / "kubectl-gpu" / "config.yaml"
    config.parent.mkdir(parents=True)
    config.write_bytes(b"\xf4\x90\x80\x80\xff binary")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert "not a text file" in one_line_error(cli("smi", "--all", "--kubeconfig", str(closed_port)))


def test_diagnose_only_takes_comma_lists(cli: Cli) -> None:
    result = cli("diagnose", "--snapshot", str(DEMO), "--only", "lint,cost", "-o", "json")
    assert result.code in (0, 1)
    assert json.loads(result.out)["analyses"] == ["lint", "cost"]
    assert "analysis bogus;" in one_line_error(
        cli("diagnose", "--snapshot", str(DEMO), "--only", "lint, bogus")
    )
    assert "analysis '';" in one_line_error(cli("diagnose", "--snapshot", str(DEMO), "--only", "lint,"))


# --- snapshots ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        ({"notes": 5}, "notes and absent must be lists"),
        ({"absent": 5}, "notes and absent must be lists"),
        ({"context": [1]}, "context must be a string"),
        ({"capturedAt": "9999-12-31T23:59:59-12:00"}, "out of range"),
        ({"capturedAt": "9999-12-31T23:59:59Z"}, "out of range"),
    ],
)
def test_bundle_metadata_of_the_wrong_type(
    cli: Cli, tmp_path: Path, changes: dict[str, Any], fragment: str
) -> None:
    path = bundle(tmp_path, **changes)
    assert fragment in one_line_error(cli("nodes", "--snapshot", str(path)))


def test_empty_path_never_reads_the_working_directory(cli: Cli) -> None:
    assert "empty path" in one_line_error(cli("nodes", "--snapshot", ""))
    assert "empty path" in one_line_error(cli("lint", "-f", ""))


def test_lint_missing_file_hint_does_not_name_snapshot(cli: Cli, tmp_path: Path) -> None:
    line = one_line_error(cli("lint", "-f", str(tmp_path / "nope.yaml")))
    assert "--snapshot" not in line


@pytest.mark.parametrize("text", ["# only a comment\n", "---\n---\n"])
def test_yaml_without_documents(cli: Cli, tmp_path: Path, text: str) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text(text)
    assert "no YAML document" in one_line_error(cli("nodes", "--snapshot", str(path)))


def _alias_bomb(levels: int, fan: int, leaf: str) -> str:
    lines = [f"  a0: &a0 {leaf}"]
    for level in range(1, levels + 1):
        lines.append(f"  a{level}: &a{level} [" + ", ".join([f"*a{level - 1}"] * fan) + "]")
    return "x:\n" + "\n".join(lines) + f"\nkind: List\napiVersion: v1\nitems: *a{levels}\n"


POD = (
    "{apiVersion: v1, kind: Pod, metadata: {name: p, namespace: d}, status: {phase: Pending}, "
    'spec: {containers: [{name: c, resources: {requests: {nvidia.com/gpu: "1"}}}]}}'
)


@pytest.mark.parametrize("levels", [6, 9])
def test_billion_laughs_is_refused_quickly(
    cli: Cli, tmp_path: Path, levels: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """9 levels of 9 aliases name 387 million pods in 1 KB: refused before any is parsed (counted: not one
    object reaches the parser)."""
    from kubectl_gpu.kube import snapshot

    parsed: list[object] = []
    real = snapshot.kind_of  # every object passes here on its way to its kind's parser
    monkeypatch.setattr(snapshot, "kind_of", lambda obj: parsed.append(obj) or real(obj))
    path = tmp_path / "bomb.yaml"
    path.write_text(_alias_bomb(levels, 10 if levels == 6 else 9, POD))
    line = one_line_error(cli("pending", "--snapshot", str(path)))
    assert "YAML aliases expand" in line
    assert parsed == []


def test_modest_aliases_are_fine(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "anchors.yaml"
    path.write_text(_alias_bomb(2, 3, POD))  # 9 references to one pod: a small, legitimate use
    assert cli("pending", "--snapshot", str(path)).code == 1


def test_lint_stdin_alias_bomb(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(_alias_bomb(9, 9, '"x"')))
    assert "YAML aliases expand" in one_line_error(cli("lint", "-f", "-"))


@pytest.mark.parametrize(
    "text",
    [
        "apiVersion: v1\nkind: List\nitems: &x\n- *x\n",  # a list that contains itself
        "&a\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nextra: *a\n",
    ],
)
def test_self_referencing_yaml(cli: Cli, tmp_path: Path, text: str) -> None:
    path = tmp_path / "loop.yaml"
    path.write_text(text)
    assert "refers to a node that contains it" in one_line_error(cli("nodes", "--snapshot", str(path)))


def test_lint_binary_stdin(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Binary on a real stdin decodes to surrogates; read bytes, so that it is bad input, not a crash."""
    stdin = io.TextIOWrapper(io.BytesIO(bytes(range(256)) * 4), encoding="utf-8", errors="surrogateescape")
    monkeypatch.setattr("sys.stdin", stdin)
    one_line_error(cli("lint", "-f", "-"))


def test_unquoted_yaml_timestamp_is_read(cli: Cli, tmp_path: Path) -> None:
    """`creationTimestamp: 2026-01-01T00:00:00Z` unquoted is a YAML timestamp; Kubernetes reads a string."""
    path = tmp_path / "node.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n, creationTimestamp: 2026-01-01T00:00:00Z}\n"
    )
    result = cli("nodes", "--all", "--snapshot", str(path), "-o", "json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["nodes"][0]["createdAt"] == "2026-01-01T00:00:00Z"


@pytest.mark.parametrize(
    "quantity",
    [".nan", ".inf", "-.inf", str(10**40), '"-8"', '"1e29"', '"100Ei"'],
)
@pytest.mark.parametrize("command", [["nodes", "-o", "json"], ["cost", "-o", "json"], ["diagnose"]])
def test_absurd_quantities(cli: Cli, tmp_path: Path, quantity: str, command: list[str]) -> None:
    path = tmp_path / "node.yaml"
    path.write_text(
        "apiVersion: v1\nkind: Node\n"
        "metadata: {name: n, labels: {node.kubernetes.io/instance-type: g6e.xlarge}}\n"
        f"status: {{capacity: {{nvidia.com/gpu: {quantity}}}, allocatable: {{nvidia.com/gpu: {quantity}}}}}\n"
    )
    line = one_line_error(cli(*command, "--snapshot", str(path)))
    assert "nvidia.com/gpu" in line


def test_negative_pod_request(cli: Cli, tmp_path: Path) -> None:
    """A negative request would create free GPUs out of nothing (0/-3/3); the API server refuses it."""
    path = tmp_path / "cluster.json"
    objects = [pod("p", "ml", node_name="n", requests={"nvidia.com/gpu": "-3"})]
    path.write_bytes(orjson.dumps(as_list(*objects)))
    assert "out of range" in one_line_error(cli("nodes", "--snapshot", str(path)))


def test_largest_real_quantity_is_accepted(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "cluster.json"
    capacity = {"cpu": "96", "memory": "9223372036854775807", "nvidia.com/gpu": "8"}
    path.write_bytes(orjson.dumps(as_list(node("n", capacity=capacity))))
    for command in (["nodes", "--all", "-o", "json"], ["cost", "-o", "json"], ["diagnose", "-o", "json"]):
        assert cli(*command, "--snapshot", str(path)).code in (0, 1)


def test_metadata_name_of_the_wrong_type(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "node.yaml"
    path.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: 12345}\n")
    assert "metadata.name must be a string" in one_line_error(cli("nodes", "--snapshot", str(path)))


@pytest.mark.parametrize(
    "stamp", ["9999-12-31T23:59:59-12:00", "9999-12-31T23:59:59Z", "0001-01-01T00:00:00+14:00"]
)
def test_timestamps_at_the_ends_of_time(cli: Cli, tmp_path: Path, stamp: str) -> None:
    """Out-of-range timestamps read as absent (like malformed ones) instead of overflowing the analyses."""
    data = json.loads(DEMO.read_text())
    for obj in data["objects"]:
        obj["metadata"]["creationTimestamp"] = stamp
        if obj["kind"] == "Pod":
            obj.setdefault("status", {})["startTime"] = stamp
        if obj["kind"] == "Event":
            obj["lastTimestamp"] = obj["firstTimestamp"] = stamp
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(data))
    for command in ("nodes", "pending", "lifecycle", "diagnose", "cost", "inventory"):
        result = cli(command, "--snapshot", str(path), "-o", "json")
        assert result.code in (0, 1), (command, result.err)


# --- smi --snapshot with hand-edited probes -----------------------------------------------------------


def _probe_bundle(tmp_path: Path, entry: Any) -> Path:
    data = json.loads(DEMO.read_text())
    name = sorted(data["probes"])[0]
    data["probes"] = {name: entry}
    path = tmp_path / "probes.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    "entry",
    [
        {"output": "garbage\n"},
        {"output": "ok", "strategy": [1]},
        {"output": 5, "error": {"a": 1}, "image": 5},
    ],
)
@pytest.mark.parametrize("fmt", ["table", "json"])
def test_smi_snapshot_with_broken_probe(cli: Cli, tmp_path: Path, entry: Any, fmt: str) -> None:
    result = cli("smi", "--snapshot", str(_probe_bundle(tmp_path, copy.deepcopy(entry))), "-o", fmt)
    assert result.code == 3, result.err  # a per-node error, as for a node whose probe failed
    assert "internal error" not in result.err and "Traceback" not in result.err


def test_smi_snapshot_unknown_node_is_not_found(cli: Cli) -> None:
    # Not in the bundle at all: not found, bad input (exit 2), as kubectl's NotFound.
    line = one_line_error(cli("smi", "i-0nosuch", "--snapshot", str(DEMO)))
    assert 'node "i-0nosuch" not found in the snapshot' in line


def test_smi_snapshot_node_not_probed_says_which(cli: Cli) -> None:
    # In the bundle, but `snapshot --probe` did not probe it: data missing, not a node failing: exit 4
    # ("could not look"), with what is missing and how to get it.
    data = json.loads(DEMO.read_text())
    unprobed = next(
        o["metadata"]["name"]
        for o in data["objects"]
        if o["kind"] == "Node" and o["metadata"]["name"] not in data["probes"]
    )
    result = cli("smi", unprobed, "--snapshot", str(DEMO))
    assert result.code == 4, result.err
    assert f"node {unprobed}: the snapshot holds no nvidia-smi output for it (not probed" in result.err
    assert f"`kubectl gpu smi {unprobed}` on the cluster reads it now" in result.err
    assert "not probed" in result.out.splitlines()[1]


def test_kubeconfig_without_current_context_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    path = write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:1")  # the suite's helper, then
    config = json.loads(path.read_text())  # without its current-context
    del config["current-context"]
    path.write_text(json.dumps(config))
    line = one_line_error(cli("nodes", "--kubeconfig", str(path)))
    assert "sets no current-context" in line
    assert "--context NAME" in line and "kubectl config use-context" in line


def test_smi_snapshot_without_pods_says_so(cli: Cli, tmp_path: Path) -> None:
    data = json.loads(DEMO.read_text())
    data["objects"] = [o for o in data["objects"] if o["kind"] != "Pod"]
    path = tmp_path / "no-pods.json"
    path.write_text(json.dumps(data))
    result = cli("smi", "--snapshot", str(path))
    assert "the snapshot holds no pods" in result.err
    assert "deleted since" not in result.err


# --- broken pipes (subprocess: a real pipe) -----------------------------------------------------------


def _closed_reader(args: list[str]) -> tuple[int, str]:
    """Run with stdout a pipe whose reader is already gone, as `kubectl gpu ... | head` ends."""
    read, write = os.pipe()
    os.close(read)
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "KUBECONFIG")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "kubectl_gpu", *args], stdout=write, stderr=subprocess.PIPE, env=env, cwd=REPO
    )
    os.close(write)
    _, err = proc.communicate(timeout=120)
    return proc.returncode, err.decode()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "verdict"),
    [
        (["nodes", "-o", "wide"], 0),  # the table, then rich's footnote
        (["nodes", "-o", "json"], 0),
        (["pending"], 1),  # findings: a reader that left early never makes them read as clean
        (["diagnose"], 1),
        (["diagnose", "-o", "json"], 1),
        (["inventory", "-o", "csv"], 0),
        (["--version"], 0),
    ],
)
def test_broken_pipe_is_quiet_and_keeps_the_verdict(args: list[str], verdict: int) -> None:
    """Issue 41, item 5: `set -o pipefail; kubectl gpu diagnose | head` never reads as clean when there are
    findings; the exit code is the command's whether or not its output was read."""
    code, err = _closed_reader([*args, "--snapshot", str(DEMO)] if args[0] != "--version" else args)
    assert code == verdict, err
    assert "Traceback" not in err and "BrokenPipe" not in err and "Exception ignored" not in err


@pytest.mark.slow
def test_pipefail_with_head_reads_findings_as_findings() -> None:
    """As a user types it, through a real shell's pipe."""
    script = f"set -o pipefail; {sys.executable} -m kubectl_gpu diagnose --snapshot {DEMO} | head -1"
    proc = subprocess.run(
        ["bash", "-c", script], capture_output=True, text=True, cwd=REPO, timeout=120, check=False
    )
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stdout.splitlines()) == 1


@pytest.mark.slow
def test_broken_pipe_on_a_rich_message(tmp_path: Path) -> None:
    """`No nodes with accelerators.` goes through rich, whose own broken-pipe handler exits 1."""
    path = tmp_path / "empty.json"
    path.write_bytes(orjson.dumps(as_list(node("cpu-only"))))
    code, err = _closed_reader(["nodes", "--snapshot", str(path)])
    assert code == 0, err
    assert err == ""


# --- terminal control characters in cluster data ------------------------------------------------------


def test_control_characters_in_cluster_data_never_reach_the_output(cli: Cli, tmp_path: Path) -> None:
    """Anyone who may create an Event can put ESC sequences in its message; tables must not pass them on."""
    evil = "\x1b[31mRED\x1b[0m\x07\r\x08\x9b"
    data = json.loads(DEMO.read_text())
    for obj in data["objects"]:
        if obj["kind"] == "Event":
            obj["message"] = f"evil {evil} message"
        if obj["kind"] == "Node":
            obj["status"]["nodeInfo"]["osImage"] = f"OS {evil}"
            for condition in obj["status"].get("conditions", []):
                condition["message"] = f"condition {evil}"
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(data))
    for command in (
        ["nodes", "-o", "wide"],
        ["diagnose"],
        ["drivers", "-o", "wide"],
        ["lifecycle", "-o", "wide"],
    ):
        result = cli(*command, "--snapshot", str(path))
        assert result.code in (0, 1), result.err
        for char in "\x1b\x07\r\x08\x9b":
            assert char not in result.out + result.err, (command, repr(char))
    # the text stays, inert: each control shown as an escape (render.safe)
    assert "evil \\x1b[31mRED\\x1b[0m\\x07\\r" in cli("diagnose", "-o", "wide", "--snapshot", str(path)).out


def test_snapshot_out_is_checked_before_the_capture(cli: Cli, closed_port: Path, tmp_path: Path) -> None:
    kubeconfig = ["--kubeconfig", str(closed_port)]
    assert "is a directory" in one_line_error(cli("snapshot", "--out", str(tmp_path), *kubeconfig))
    missing = tmp_path / "nope" / "bundle.json"
    assert "no such directory" in one_line_error(cli("snapshot", "--out", str(missing), *kubeconfig))
    assert "--now" in one_line_error(
        cli("snapshot", "--out", str(tmp_path / "b.json"), "--now", "x", *kubeconfig)
    )


def test_deep_json_is_not_called_truncated(cli: Cli, tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 5000 + "]" * 5000)
    line = one_line_error(cli("nodes", "--snapshot", str(path)))
    assert "nested too deeply" in line and "truncated" not in line
    path = tmp_path / "deep.yaml"
    path.write_text("- " * 5000 + "x\n")
    line = one_line_error(cli("nodes", "--snapshot", str(path)))
    assert "nested too deeply" in line and "truncated" not in line


def test_empty_namespace_is_not_all_namespaces(cli: Cli, closed_port: Path) -> None:
    """`-n ""` read as "no namespace" meant every namespace: `cleanup -n "" --yes` deleted everywhere."""
    assert "-n/--namespace" in one_line_error(
        cli("cleanup", "-n", "", "--yes", "--kubeconfig", str(closed_port))
    )
    assert "-n/--namespace" in one_line_error(cli("-n", "", "pending", "--snapshot", str(DEMO)))


@pytest.mark.parametrize("count", ["garbage", ["x"], {"a": "b"}, "1e29", -1, True])
def test_restart_count_of_the_wrong_type(cli: Cli, tmp_path: Path, count: Any) -> None:
    statuses = [
        {"name": "main", "ready": False, "restartCount": count, "state": {"waiting": {"reason": "X"}}}
    ]
    objects = [
        node("n", capacity={"cpu": "8", "memory": "32Gi", "nvidia.com/gpu": "1"}),
        pod(
            "p",
            "ml",
            node_name="n",
            phase="Pending",
            requests={"nvidia.com/gpu": "1"},
            container_statuses=statuses,
        ),
    ]
    path = tmp_path / "cluster.json"
    path.write_bytes(orjson.dumps(as_list(*objects)))
    for command in ("pending", "diagnose"):
        result = cli(command, "--snapshot", str(path), "-o", "json")
        assert result.code in (0, 1), result.err


def test_debug_keeps_the_exit_code(cli: Cli, tmp_path: Path) -> None:
    """--debug adds the traceback; it must not turn a usage error into exit 1 (uncaught exception)."""
    result = cli("nodes", "--snapshot", str(tmp_path / "nope.json"), "--debug")
    assert result.code == 2
    assert "Traceback" in result.err and result.err.strip().splitlines()[-1].startswith("error: ")


@pytest.mark.parametrize("stamp", ["9999-12-31T23:59:59-12:00", "9999-12-31T23:59:59Z"])
def test_condition_transition_time_at_the_end_of_time(cli: Cli, tmp_path: Path, stamp: str) -> None:
    data = json.loads(DEMO.read_text())
    for obj in data["objects"]:
        for condition in (obj.get("status") or {}).get("conditions") or []:
            condition["lastTransitionTime"] = stamp
    path = tmp_path / "bundle.json"
    path.write_text(json.dumps(data))
    for command in ("lifecycle", "diagnose", "inventory", "nodes"):
        result = cli(command, "--snapshot", str(path), "-o", "json")
        assert result.code in (0, 1), (command, result.err)


_STOPPED_READER_CHILD = """
import os, sys
from kubectl_gpu.__main__ import _exit_now
sys.stdout.write("x" * 10000)  # fits in the pipe's buffer: no write ever fails with EPIPE
sys.stdout.flush()
os.read(int(sys.argv[1]), 1)  # until the parent has read 10 bytes and closed its end (or not)
_exit_now(1)  # what main() does with the exit code of a command that found something
"""


@pytest.mark.parametrize("reader_stops", [True, False], ids=["reader-stops", "reader-reads-on"])
def test_a_reader_that_stops_after_some_bytes_keeps_the_findings_code(reader_stops: bool) -> None:
    """`| head -c 10` after the output was written (it fit in the pipe): the findings exit code stands
    whether the reader stopped or read on (issue 41, item 5). Ordered by a gate pipe, not by time."""
    out_r, out_w = os.pipe()
    gate_r, gate_w = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-c", _STOPPED_READER_CHILD, str(gate_r)], stdout=out_w, stderr=subprocess.PIPE,
        cwd=REPO, pass_fds=(gate_r,),
    )  # fmt: skip
    os.close(out_w)
    os.close(gate_r)
    try:
        assert os.read(out_r, 10) == b"x" * 10
        if reader_stops:
            os.close(out_r)
        os.write(gate_w, b"g")
        _, err = proc.communicate(timeout=120)
    finally:
        os.close(gate_w)
        if not reader_stops:
            os.close(out_r)
    assert proc.returncode == 1, err
    assert b"Traceback" not in err and b"Exception ignored" not in err
