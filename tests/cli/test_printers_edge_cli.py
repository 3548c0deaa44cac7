"""kubectl's printers to the edge on the command line (issue 41, item 1), against the real kubectl on the
suite's API server: --sort-by on a field no object has, -o custom-columns-file= and jsonpath-file=,
--allow-missing-template-keys=false, `<none>` in custom columns."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import IO

import yaml

from tests.cli.test_bad_input import one_line_error
from tests.cli.test_printing_flags import _cluster, _gpu_node, _interrupt, _kubectl, _ours, _tokens, _watch
from tests.conftest import Result
from tests.helpers import pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import RunKubectl

Cli = Callable[..., Result]


def test_sort_by_a_field_no_object_has_is_kubectls_error(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    _cluster(apiserver)
    theirs = run_kubectl("get", "nodes", "--sort-by=.nope")
    # kubectl exits 1 for every error; ours is 2, bad input, as every other usage error of ours: our 1 is
    # "findings" (docs/exit-codes.md, "kubectl's exit codes").
    assert theirs.returncode == 1
    ours = cli("nodes", "--kubeconfig", str(kubeconfig), "--sort-by=.nope")
    assert ours.code == 2
    assert (
        one_line_error(ours)
        == theirs.stderr.strip()
        == ('error: couldn\'t find any field with path "{.nope}" in the list of objects')
    )


def test_custom_columns_file_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl, tmp_path: Path
) -> None:
    _cluster(apiserver)
    (tmp_path / "theirs").write_text("NAME   NOPE\n.metadata.name {.metadata.nothing}\n")
    (tmp_path / "ours").write_text("NAME   NOPE\n.name {.nothing}\n")
    theirs = _kubectl(
        run_kubectl,
        "get",
        "nodes",
        "--sort-by=.metadata.name",
        f"-o=custom-columns-file={tmp_path / 'theirs'}",
    )
    ours = _ours(
        cli, kubeconfig, "nodes", "--all", "--sort-by=.name", "-o", f"custom-columns-file={tmp_path / 'ours'}"
    )
    assert _tokens(ours.out) == _tokens(theirs)  # our tables space columns by 2, kubectl's by 3
    assert "<none>" in ours.out


def test_custom_columns_file_refused_in_kubectl_words(cli: Cli, kubeconfig: Path, tmp_path: Path) -> None:
    cases = {
        "": "invalid template, missing header line.",
        "NAME\n": "invalid template, missing spec line.",
        "NAME CPU\n.name\n": "number of headers (2) and field specifications (1) don't match",
    }
    for body, fragment in cases.items():
        (tmp_path / "spec").write_text(body)
        result = cli(
            "nodes", "--kubeconfig", str(kubeconfig), "-o", f"custom-columns-file={tmp_path / 'spec'}"
        )
        assert fragment in one_line_error(result)
    missing = tmp_path / "missing"
    line = one_line_error(
        cli("nodes", "--kubeconfig", str(kubeconfig), "-o", f"custom-columns-file={missing}")
    )
    assert line == f"error: error reading template {missing}, open {missing}: no such file or directory"


def test_jsonpath_file_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl, tmp_path: Path
) -> None:
    _cluster(apiserver)
    (tmp_path / "theirs").write_text('{range .items[*]}{.metadata.name}{"\\n"}{end}\n')
    (tmp_path / "ours").write_text('{range .nodes[*]}{.name}{"\\n"}{end}\n')
    theirs = _kubectl(
        run_kubectl, "get", "nodes", "--sort-by=.metadata.name", f"-o=jsonpath-file={tmp_path / 'theirs'}"
    )
    ours = _ours(
        cli, kubeconfig, "nodes", "--all", "--sort-by=.name", "-o", f"jsonpath-file={tmp_path / 'ours'}"
    )
    assert ours.out == theirs


def test_allow_missing_template_keys_false_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    _cluster(apiserver)
    theirs = run_kubectl(
        "get", "nodes", "--allow-missing-template-keys=false", "-o", "jsonpath={.items[*].nope}"
    )
    assert theirs.returncode != 0
    expected = theirs.stderr.splitlines()[0].replace(".items[*]", ".nodes[*]").split(". Printing more")[0]
    for flags in (["--allow-missing-template-keys=false"], ["--no-allow-missing-template-keys"]):
        result = cli("nodes", "--kubeconfig", str(kubeconfig), *flags, "-o", "jsonpath={.nodes[*].nope}")
        assert one_line_error(result) == expected
    assert _ours(cli, kubeconfig, "nodes", "-o", "jsonpath={.nodes[*].nope}").out == ""  # true by default
    assert cli("nodes", "--kubeconfig", str(kubeconfig), "--allow-missing-template-keys=maybe").code == 2


def _document(stream: IO[str], end: str) -> str:
    """One streamed document: JSON's ends with `}` at the start of a line, YAML's before the next `---`."""
    lines: list[str] = []
    while True:
        line = stream.readline()
        assert line, "the watch ended"
        if end == "---" and line == "---\n":
            return "".join(lines)
        lines.append(line)
        if end == "}" and line == "}\n":
            return "".join(lines)


def test_watch_streams_json_documents_as_kubectl(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """`kubectl get -w -o json`: each object its own document, then each object that changes."""
    _cluster(apiserver)
    with _watch(kubeconfig, "pending", "-o", "json") as proc:
        assert proc.stdout is not None
        first = [json.loads(_document(proc.stdout, "}")) for _ in range(2)]
        assert sorted(d["name"] for d in first) == ["stuck", "waiting"]
        apiserver.add(pod("late", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"}))
        assert json.loads(_document(proc.stdout, "}"))["name"] == "late"
        _interrupt(proc)


def test_watch_streams_yaml_documents_separated_as_kubectl(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """`kubectl get -w -o yaml`: each object its own document, `---` before each after the first."""
    _cluster(apiserver)
    with _watch(kubeconfig, "nodes", "-o", "yaml") as proc:
        assert proc.stdout is not None
        first = [yaml.safe_load(_document(proc.stdout, "---"))["name"] for _ in range(2)]
        assert len(set(first)) == 2 and set(first) <= {"i-0a", "i-0b", "i-0c"}
        apiserver.add(_gpu_node("i-0new", "1"))
        rest = []
        while "name: i-0new\n" not in rest:
            rest.append(proc.stdout.readline())
        third, new = "".join(rest).split("---\n")
        assert yaml.safe_load(third)["name"] in {"i-0a", "i-0b", "i-0c"} - set(first)
        assert "name: i-0new\n" in new.splitlines(keepends=True)  # its own document, after the `---`
        _interrupt(proc)


def test_show_labels_and_label_columns_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    """-L KEY: a column headed by the key's last part in capitals; --show-labels: LABELS last, `k=v` by key."""
    _cluster(apiserver)
    flags = ["-L", "eks.amazonaws.com/compute-type", "--show-labels"]
    theirs = _kubectl(run_kubectl, "get", "nodes", *flags).splitlines()
    ours = _ours(cli, kubeconfig, "nodes", "--all", *flags).out.splitlines()
    assert theirs[0].split()[-2:] == ours[0].split()[-2:] == ["COMPUTE-TYPE", "LABELS"]
    assert {line.split()[0]: line.split()[-2:] for line in theirs[1:]} == {
        line.split()[0]: line.split()[-2:] for line in ours[1:]
    }
    pods = _ours(cli, kubeconfig, "pending", "-A", "--show-labels", "-L", "nope").out.splitlines()
    assert pods[0].split()[-2:] == ["NOPE", "LABELS"]  # a key no pod has: an empty cell
    rows = [line.split() for line in pods if line.split()[:1] in (["ml"], ["default"])]
    assert [row[1] for row in rows] == ["waiting", "stuck"] or [row[1] for row in rows] == [
        "stuck",
        "waiting",
    ]
    assert all(row[-1] == "<none>" for row in rows)  # the suite's pods carry no labels


def test_label_flags_only_where_rows_are_nodes_or_pods(cli: Cli, kubeconfig: Path) -> None:
    line = one_line_error(cli("diagnose", "--kubeconfig", str(kubeconfig), "--show-labels"))
    assert "--show-labels: the rows of this command are not nodes or pods" in line
    assert "not supported by cleanup" in one_line_error(
        cli("cleanup", "--kubeconfig", str(kubeconfig), "-L", "a")
    )


def test_field_selector_as_kubectl(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    _cluster(apiserver)
    cordoned = _gpu_node("i-0d", "1")
    cordoned["spec"] = {"unschedulable": True}
    apiserver.add(cordoned)
    for selector in (
        "metadata.name=i-0a",
        "spec.unschedulable=true",
        "metadata.name!=i-0a,spec.unschedulable==false",
    ):
        theirs = _kubectl(run_kubectl, "get", "nodes", f"--field-selector={selector}", "-o", "name")
        ours = _ours(cli, kubeconfig, "nodes", "--all", f"--field-selector={selector}", "-o", "name").out
        assert sorted(ours.splitlines()) == sorted(theirs.splitlines()), selector
    selector = "metadata.namespace=ml,status.phase=Pending"
    theirs = _kubectl(run_kubectl, "get", "pods", "-A", f"--field-selector={selector}", "-o", "name")
    ours = _ours(cli, kubeconfig, "pending", "-A", f"--field-selector={selector}", "-o", "name").out
    assert ours == theirs == "pod/waiting\n"


def test_field_selector_on_the_pod_fields_kubectl_users_reach_for(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, run_kubectl: RunKubectl
) -> None:
    """spec.restartPolicy, spec.serviceAccountName and status.podIP, live, as kubectl gets them; the server's
    own set and values are held in tests/core/k8s/test_field_selectors.py (cited from kubernetes)."""
    _cluster(apiserver)
    job = pod("job-0", "ml", phase="Pending", requests={"nvidia.com/gpu": "1"})
    job["spec"] |= {"restartPolicy": "Never", "serviceAccountName": "trainer"}
    job["status"] |= {"podIP": "10.0.0.7", "podIPs": [{"ip": "10.0.0.7"}]}
    apiserver.add(job)
    for selector in (
        "spec.restartPolicy=Never",
        "spec.restartPolicy!=Never",
        "spec.serviceAccountName=trainer",
        "status.podIP=10.0.0.7",
    ):
        theirs = _kubectl(run_kubectl, "get", "pods", "-A", f"--field-selector={selector}", "-o", "name")
        ours = _ours(cli, kubeconfig, "pending", "-A", f"--field-selector={selector}", "-o", "name").out
        assert sorted(ours.splitlines()) == sorted(theirs.splitlines()), selector


def test_field_selector_on_a_snapshot(cli: Cli) -> None:
    demo = str(Path(__file__).parents[2] / "examples" / "automode-gpu-demo.json")
    every = cli("pending", "-A", "--snapshot", demo, "-o", "name")
    selected = cli(
        "pending",
        "-A",
        "--snapshot",
        demo,
        "--field-selector",
        "spec.hostNetwork=false,spec.serviceAccountName=default,status.podIPs=",
        "-o",
        "name",
    )
    assert selected.out == every.out and "pod/notebook-gpu" in every.out
    ip = cli(
        "pending", "-A", "--snapshot", demo, "--field-selector", "status.podIP=10.0.96.120", "-o", "name"
    )
    assert ip.out == "pod/vllm-l40s-1\n"
    refused = cli("pending", "-A", "--snapshot", demo, "--field-selector", "status.hostIP=10.0.0.1")
    assert one_line_error(refused).startswith(
        "error: --field-selector: field label not supported: status.hostIP"
    )


def test_field_selector_refused_before_anything_is_read(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.requests.clear()
    line = one_line_error(cli("nodes", "--kubeconfig", str(kubeconfig), "--field-selector", "spec.nope=1"))
    assert line.startswith("error: --field-selector: field label not supported: spec.nope")
    line = one_line_error(cli("pending", "--kubeconfig", str(kubeconfig), "--field-selector", "status.phase"))
    assert "can't understand 'status.phase'" in line
    assert apiserver.requests == []


def test_watch_keeps_the_label_columns(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    _cluster(apiserver)
    with _watch(kubeconfig, "nodes", "-L", "team") as proc:
        assert proc.stdout is not None
        first = [proc.stdout.readline() for _ in range(4)]  # the header and three GPU nodes
        assert first[0].split()[-1] == "TEAM"
        new = _gpu_node("i-0new", "1")
        new["metadata"]["labels"]["team"] = "vision"  # type: ignore[index]
        apiserver.add(new)
        changed = proc.stdout.readline().split()
        assert changed[0] == "i-0new" and changed[-1] == "vision", changed
        _interrupt(proc)
