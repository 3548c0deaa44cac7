"""kubectl's printing flags (issue 23, item 1): -o name|jsonpath=|custom-columns=, --no-headers, --sort-by,
-w; held to what the real `kubectl` prints for the same expression on the suite's API server."""

from __future__ import annotations

import difflib
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_gpu.cli.completion import complete
from kubectl_gpu.core.catalog import load_catalog
from tests.cli.test_bad_input import one_line_error
from tests.conftest import Result
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import RunKubectl

Cli = Callable[..., Result]
REPO = Path(__file__).resolve().parents[2]
DEMO = str(REPO / "examples" / "automode-gpu-demo.json")
READ_ONLY = [
    ["nodes"],
    ["nodes", "--all"],
    ["pending"],
    ["explain", "ml/batch-spot"],
    ["diagnose"],
    ["drivers"],
    ["nvme"],
    ["lifecycle"],
    ["lint"],
    ["cost"],
    ["inventory"],
]


def _gpu_node(name: str, gpus: str, instance: str = "g6e.xlarge") -> dict[str, object]:
    labels = dict(load_catalog().labels(instance, "auto"))
    return node(name, labels=labels, capacity={"cpu": "4", "memory": "32Gi", "nvidia.com/gpu": gpus})


def _cluster(api: FakeKubeAPI) -> None:
    api.add(
        _gpu_node("i-0b", "8", "p5.48xlarge"),
        _gpu_node("i-0a", "1"),
        _gpu_node("i-0c", "4", "g6e.12xlarge"),
        node("i-0cpu", labels={"eks.amazonaws.com/compute-type": "auto"}),
        pod("waiting", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}),
        pod("stuck", "default", phase="Pending", requests={"nvidia.com/gpu": "2"}),
    )


def _ours(cli: Cli, kubeconfig: Path, *args: str) -> Result:
    result = cli(*args, "--kubeconfig", str(kubeconfig))
    assert result.code in (0, 1), result.err
    return result


def _kubectl(run_kubectl: RunKubectl, *args: str) -> str:
    done = run_kubectl(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


# --- the same expression, by kubectl and by us ----------------------------------------------------------------------


def test_jsonpath_names_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    _cluster(apiserver)
    theirs = _kubectl(run_kubectl, "get", "nodes", "-o", "jsonpath={.items[*].metadata.name}")
    ours = _ours(cli, kubeconfig, "nodes", "--all", "-o", "jsonpath={.nodes[*].name}").out
    assert sorted(ours.split(" ")) == sorted(theirs.split(" ")) == ["i-0a", "i-0b", "i-0c", "i-0cpu"]
    assert not ours.endswith("\n") and not theirs.endswith("\n")  # kubectl adds no newline either


def test_jsonpath_range_literals_and_filters_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    _cluster(apiserver)
    theirs = _kubectl(
        run_kubectl, "get", "nodes", "-o",
        'jsonpath={range .items[?(@.metadata.name=="i-0b")]}{.metadata.name}{"\\t"}'
        "{.metadata.labels.eks\\.amazonaws\\.com/compute-type}{\"\\n\"}{end}",
    )  # fmt: skip
    ours = _ours(
        cli, kubeconfig, "nodes", "-o",
        'jsonpath={range .nodes[?(@.name=="i-0b")]}{.name}{"\\t"}{.computeType}{"\\n"}{end}',
    ).out  # fmt: skip
    assert ours == theirs == "i-0b\tauto\n"


def test_a_bad_jsonpath_is_refused_as_kubectl_refuses_it(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    theirs = run_kubectl("get", "nodes", "-o", "jsonpath={.items[}")
    assert theirs.returncode != 0 and "error parsing jsonpath {.items[}" in theirs.stderr
    apiserver.requests.clear()
    line = one_line_error(cli("nodes", "--kubeconfig", str(kubeconfig), "-o", "jsonpath={.nodes[}"))
    assert line.startswith("error: error parsing jsonpath {.nodes[}, ")
    assert apiserver.requests == []  # refused before anything is read


def test_name_as_kubectl(cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl) -> None:
    _cluster(apiserver)
    theirs = _kubectl(run_kubectl, "get", "nodes", "-o", "name")
    assert sorted(_ours(cli, kubeconfig, "nodes", "--all", "-o", "name").out.splitlines()) == sorted(
        theirs.splitlines()
    )
    pods = _kubectl(run_kubectl, "get", "pods", "-A", "--field-selector=status.phase=Pending", "-o", "name")
    ours = _ours(cli, kubeconfig, "pending", "-A", "-o", "name").out
    assert sorted(ours.splitlines()) == sorted(pods.splitlines()) == ["pod/stuck", "pod/waiting"]


def test_custom_columns_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    _cluster(apiserver)
    theirs = _kubectl(
        run_kubectl, "get", "nodes", "--sort-by=.metadata.name",
        "-o", "custom-columns=NAME:.metadata.name,NOPE:.metadata.nothing",
    )  # fmt: skip
    ours = _ours(
        cli, kubeconfig, "nodes", "--all", "--sort-by=.name", "-o", "custom-columns=NAME:.name,NOPE:.nothing"
    ).out
    assert _tokens(ours) == _tokens(theirs)  # the same cells; our tables space columns by 2, kubectl's by 3
    assert "<none>" in ours
    bare = _kubectl(run_kubectl, "get", "nodes", "--no-headers", "--sort-by=.metadata.name",
                    "-o", "custom-columns=NAME:{.metadata.name}")  # fmt: skip
    assert _ours(cli, kubeconfig, "nodes", "--all", "--no-headers", "--sort-by={.name}",
                 "-o", "custom-columns=NAME:{.name}").out == bare  # fmt: skip


def test_sort_by_text_in_natural_order_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    """Names with numbers in them sort as kubectl sorts text: as text (i-10 before i-9)."""
    for name in ("i-0fb95c97fae96da58", "i-04b975f2935588ecc", "i-10", "i-9", "i-06cc6be1805fdf179"):
        apiserver.add(_gpu_node(name, "1"))
    theirs = _kubectl(run_kubectl, "get", "nodes", "--sort-by=.metadata.name", "-o", "name")
    ours = _ours(cli, kubeconfig, "nodes", "--sort-by=.name", "-o", "name").out
    assert ours == theirs


def test_sort_by_numbers_and_quantities_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    """8 after 4 after 1: by value, not as text ("8" > "16" would be text's order)."""
    _cluster(apiserver)
    apiserver.add(_gpu_node("i-0d", "16", "p5.48xlarge"))
    theirs = _kubectl(
        run_kubectl, "get", "nodes", "-l", "eks.amazonaws.com/instance-gpu-count",
        "--sort-by=.status.capacity.nvidia\\.com/gpu", "-o", "name",
    )  # fmt: skip
    ours = _ours(cli, kubeconfig, "nodes", "--sort-by=.accelerator.capacity", "-o", "name").out
    assert ours == theirs
    assert ours.splitlines() == ["node/i-0a", "node/i-0c", "node/i-0b", "node/i-0d"]
    table = _ours(cli, kubeconfig, "nodes", "--sort-by=.accelerator.capacity").out.splitlines()
    assert [line.split()[0] for line in table] == ["NAME", "i-0a", "i-0c", "i-0b", "i-0d"]
    text = _ours(cli, kubeconfig, "nodes", "--sort-by=.name", "-o", "json").out
    assert [n["name"] for n in json.loads(text)["nodes"]] == ["i-0a", "i-0b", "i-0c", "i-0d"]


# --- on the demo bundle, every read-only command -------------------------------------------------------------------


def _tokens(text: str) -> list[list[str]]:
    """Lines as words: a column narrows when its header is gone (kubectl's do too)."""
    return [line.split() for line in text.splitlines()]


@pytest.mark.parametrize("command", READ_ONLY, ids=" ".join)
def test_no_headers_drops_exactly_the_header_lines(cli: Cli, command: list[str]) -> None:
    shown = cli(*command, "--snapshot", DEMO)
    bare = cli(*command, "--snapshot", DEMO, "--no-headers")
    assert bare.code == shown.code
    diff = list(
        difflib.ndiff([" ".join(t) for t in _tokens(shown.out)], [" ".join(t) for t in _tokens(bare.out)])
    )
    added = [d for d in diff if d.startswith("+ ")]
    dropped = [d[2:] for d in diff if d.startswith("- ")]
    assert added == []
    kept = {" ".join(t) for t in _tokens(bare.out)}
    headers = [
        " ".join(t) for t in _tokens(shown.out) if _HEADER.fullmatch(" ".join(t)) and " ".join(t) not in kept
    ]
    assert dropped == headers and (dropped or command == ["lint"]), (
        dropped
    )  # every header line, and nothing else (titles stay)


_HEADER = re.compile(r"[A-Z][A-Z0-9 /$()._*-]*")


@pytest.mark.parametrize("command", READ_ONLY, ids=" ".join)
def test_name_and_jsonpath_on_every_read_only_command(cli: Cli, command: list[str]) -> None:
    names = cli(*command, "--snapshot", DEMO, "-o", "name")
    assert names.code in (0, 1) and names.out, names.err
    assert all(re.fullmatch(r"[a-z0-9.]+/[^/\s]+", line) for line in names.out.splitlines()), names.out
    document = json.loads(cli(*command, "--snapshot", DEMO, "-o", "json").out)
    kind = cli(*command, "--snapshot", DEMO, "-o", "jsonpath={.kind}")
    assert kind.out == document["kind"]


@pytest.mark.parametrize(
    ("command", "path", "column"),
    [
        (["nodes"], ".nodePool", 3),
        (["pending"], ".namespace", 0),
        (["diagnose"], ".code", 1),
        (["lint"], ".code", 1),
        (["inventory"], ".zone", 2),
    ],
)
def test_sort_by_orders_the_table_rows(cli: Cli, command: list[str], path: str, column: int) -> None:
    table = cli(*command, "--snapshot", DEMO, "--sort-by", path, "--no-headers").out.split("\n\n")[0]
    rows = _tokens(table)  # the table; its FIXES and the summary follow a blank line
    values = [r[column] for r in rows if len(r) > column and not r[0].startswith(("fix:", "*"))]
    assert values == sorted(values) and len(set(values)) > 1


def test_cost_keeps_its_total_row_last(cli: Cli) -> None:
    rows = _tokens(cli("cost", "--snapshot", DEMO, "--sort-by=.pricePerHour").out)
    assert [r[0] for r in rows[:4]] == ["NODEPOOL", "gpu-inference", "gpu-training", "TOTAL"]
    reverse = _tokens(cli("cost", "--snapshot", DEMO, "--sort-by=.idle").out)
    assert [r[0] for r in reverse[:4]] == ["NODEPOOL", "gpu-training", "gpu-inference", "TOTAL"]


def test_fleet_mode_names_every_cluster_and_adds_cluster_to_custom_columns(cli: Cli, tmp_path: Path) -> None:
    demo = json.loads(Path(DEMO).read_text())
    for context in ("prod", "staging"):
        (tmp_path / f"{context}.json").write_text(json.dumps({**demo, "context": context}))
    names = cli("nodes", "--snapshot", str(tmp_path), "-o", "name").out.splitlines()
    assert len(names) == 8 and names[:4] == names[4:]
    table = cli("nodes", "--snapshot", str(tmp_path), "-o", "custom-columns=N:.name", "--sort-by=.name")
    assert table.out.splitlines()[0].split() == ["CLUSTER", "N"] and "staging" in table.out
    kinds = cli("nodes", "--snapshot", str(tmp_path), "-o", "jsonpath={.clusters[*].context}")
    assert kinds.out == "prod staging"
    by_size = "--sort-by=.accelerator.allocatable"
    sized = cli("nodes", "--snapshot", str(tmp_path), by_size, "-o", "json").out
    for cluster in json.loads(sized)["clusters"]:
        allocatable = [n["accelerator"]["allocatable"] for n in cluster["report"]["nodes"]]
        assert allocatable == sorted(allocatable) and allocatable != [3, 1, 1, 8]  # the demo's own order
    rows = _tokens(cli("nodes", "--snapshot", str(tmp_path), by_size, "--no-headers").out)
    assert [r[0] for r in rows] == ["prod"] * 4 + ["staging"] * 4 and rows[3][1] == "i-0fb95c97fae96da58"


# --- what is refused, with one line and exit 2 ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["nodes", "-o", "jsonpath={.nodes[}"], "error parsing jsonpath {.nodes[}"),
        (["nodes", "-o", "jsonpath={.nodes"], "unclosed action"),
        (["nodes", "-o", "jsonpath={end}"], "not in range"),
        (["nodes", "-o", "jsonpath"], "no template given"),
        (["nodes", "-o", "custom-columns=NAME"], "expected <header>:<json-path-expr>"),
        (["nodes", "-o", "custom-columns=A:{.x}}"], "unexpected path string"),
        (["nodes", "-o", "name=x"], "takes no template"),
        (["nodes", "--sort-by", "{.a"], "unexpected path string"),
        (["nodes", "-o", "csv"], "-o csv is not supported by nodes"),
        (["smi", "i-0", "-o", "name"], "-o name: not supported by smi"),
        (["cleanup", "--no-headers"], "--no-headers: not supported by cleanup"),
        (["explain", "ml/batch-spot", "--sort-by", ".name"], "--sort-by: this view has no table of pods"),
        (["nodes", "-w"], "nodes -w: a --snapshot does not change"),
        (["pending", "-w", "-o", "json"], "a --snapshot does not change"),
    ],
)
def test_bad_printing_flags_are_one_line(cli: Cli, args: list[str], fragment: str) -> None:
    assert fragment in one_line_error(cli(*args, "--snapshot", DEMO))


def test_watch_refuses_a_format_it_cannot_print_by_rows(cli: Cli, kubeconfig: Path) -> None:
    line = one_line_error(cli("pending", "-w", "-o", "jsonpath={.pods}", "--kubeconfig", str(kubeconfig)))
    assert "-o jsonpath is not printed row by row" in line


def test_completion_offers_exactly_what_each_command_takes(cli: Cli, tmp_path: Path) -> None:
    import typer

    from kubectl_gpu.cli.app import app

    for name, command in typer.main.get_command(app).commands.items():  # type: ignore[attr-defined]
        formats = getattr(command.callback, "output_formats", None)
        if formats is not None and not command.hidden:
            assert complete([name, "-o", ""])[0] == list(formats), name
    assert "csv" not in complete(["nodes", "-o", ""])[0]
    (tmp_path / "template").write_text("{.kind}")
    (tmp_path / "columns").write_text("N\n.name\n")
    given = {"jsonpath=": "{.kind}", "custom-columns=": "N:.name"}
    given |= {"jsonpath-file=": str(tmp_path / "template"), "custom-columns-file=": str(tmp_path / "columns")}
    for offered in complete(["nodes", "-o", ""])[0]:
        spec = offered + given.get(offered, "")
        assert cli("nodes", "--snapshot", DEMO, "-o", spec).code == 0, offered


# --- -w against the suite's API server ------------------------------------------------------------------------------


def _watch(kubeconfig: Path, *args: str) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "KUBECONFIG"} | {"COLUMNS": "200"}
    cmd = [sys.executable, "-m", "kubectl_gpu", *args, "-w", "--kubeconfig", str(kubeconfig)]
    return subprocess.Popen(
        cmd, cwd=REPO, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )  # fmt: skip


def _interrupt(proc: subprocess.Popen[str]) -> None:
    """Ctrl-C: exit 130, `interrupted` on stderr, no traceback."""
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and err.strip().splitlines()[-1] == "interrupted"


def test_watch_prints_changed_rows_and_ctrl_c_is_130(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _cluster(apiserver)
    with _watch(kubeconfig, "nodes") as proc:
        assert proc.stdout is not None
        first = [proc.stdout.readline() for _ in range(4)]  # the header and three GPU nodes
        assert first[0].split()[0] == "NAME" and sorted(line.split()[0] for line in first[1:]) == [
            "i-0a", "i-0b", "i-0c",
        ]  # fmt: skip
        apiserver.add(_gpu_node("i-0new", "1"))  # a new node: one row, no header
        changed = proc.stdout.readline()
        assert changed.split()[0] == "i-0new", changed
        cordoned = _gpu_node("i-0a", "1")
        cordoned["spec"] = {"unschedulable": True}
        apiserver.add(cordoned)  # a changed node: its row again, with its new health
        again = proc.stdout.readline()
        assert again.split()[0] == "i-0a" and "Cordoned" in again, again
        _interrupt(proc)


def test_pending_watch_names_a_new_pending_pod(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _cluster(apiserver)
    with _watch(kubeconfig, "pending", "-o", "name") as proc:
        assert proc.stdout is not None
        assert sorted(proc.stdout.readline().strip() for _ in range(2)) == ["pod/stuck", "pod/waiting"]
        apiserver.add(pod("late", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}))
        assert proc.stdout.readline().strip() == "pod/late"
        _interrupt(proc)


def test_cluster_text_reaches_no_terminal_raw(cli: Cli, tmp_path: Path) -> None:
    """An OS image that carries an OSC 52 clipboard write: jsonpath, name and custom-columns show it escaped."""
    from tests.helpers import write_snapshot

    hostile = _gpu_node("i-0evil\x1b]52;c;Zm9v\x07", "1")
    hostile["status"]["nodeInfo"] = {"osImage": "Bottlerocket\x1b[2J\u202e"}  # type: ignore[index]
    snapshot = str(write_snapshot(tmp_path / "s.json", hostile))
    for output in ("jsonpath={.nodes[*].osImage} {.nodes[*].name}", "name", "custom-columns=OS:.osImage"):
        result = cli("nodes", "--snapshot", snapshot, "-o", output)
        assert result.code == 0, result.err
        assert "\x1b" not in result.out and "\u202e" not in result.out and "\x07" not in result.out, output
        assert "\\x1b" in result.out, output
