"""Shell completion: the candidates, the names from the cluster, the start-up cost, and the scripts.

`kubectl_complete-gpu WORDS... PARTIAL` prints one candidate a line and `:<directive>` (kubectl's plugin
completion protocol). The command tree it reads is generated from the typer app and must not be stale; names
come from kubectl (here: the real kubectl against the test API server) or, without kubectl, the Python client;
errors print nothing. The bash, zsh and fish scripts are run by the shells themselves where installed."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer

from kubectl_gpu.cli import completion
from kubectl_gpu.cli.app import app
from kubectl_gpu.cli.completion import DIRECTIVE_DEFAULT, DIRECTIVE_NO_FILES, Parsed, complete
from kubectl_gpu.cli.completion_spec import SPEC_PATH, build_spec, render_spec
from tests.conftest import Result
from tests.helpers import pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import KUBECTL, write_kubeconfig
from tests.kube.kubelet import gpu_node

BIN = Path(sys.executable).parent
COMMANDS = sorted(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
Asked = list[tuple[str, dict[str, str]]]


def test_the_packaged_command_tree_is_the_apps() -> None:
    assert SPEC_PATH.read_text() == render_spec(build_spec()), (
        "kubectl_gpu/data/completion.json is stale: run python -m kubectl_gpu.cli.completion_spec"
    )


def _names(asked: Asked) -> completion.Names:
    def names(parsed: Parsed, kind: str) -> list[str]:
        asked.append((kind, dict(parsed.values)))
        return {"node": ["i-0aaa", "i-0bbb"], "pod": ["ml/a", "ml/b"], "pending-pod": ["ml/stuck"],
                "namespace": ["default", "ml"], "context": ["prod", "arn:aws:eks:us-east-1:1:cluster/x"]}[kind]  # fmt: skip

    return names


CASES = [
    (["pen"], ["pending"], DIRECTIVE_NO_FILES),
    ([""], COMMANDS, DIRECTIVE_NO_FILES),
    (["s"], ["shell", "simulate", "smi", "snapshot"], DIRECTIVE_NO_FILES),
    (["smi", "--st"], ["--strategy"], DIRECTIVE_NO_FILES),
    (["smi", "--strategy", ""], ["auto", "privileged-all", "request"], DIRECTIVE_NO_FILES),
    (["smi", "--strategy=re"], ["--strategy=request"], DIRECTIVE_NO_FILES),
    (["-o", "j"], ["json", "jsonpath=", "jsonpath-file="], DIRECTIVE_NO_FILES),
    # after the subcommand, -o offers what that command takes (nodes has no csv; issue 23)
    (
        ["nodes", "-o", ""],
        [
            "table",
            "wide",
            "json",
            "yaml",
            "name",
            "jsonpath=",
            "jsonpath-file=",
            "custom-columns=",
            "custom-columns-file=",
        ],
        DIRECTIVE_NO_FILES,
    ),
    (["inventory", "-o", "c"], ["custom-columns=", "custom-columns-file=", "csv"], DIRECTIVE_NO_FILES),
    (["nodes", "-o", "c"], ["custom-columns=", "custom-columns-file="], DIRECTIVE_NO_FILES),
    (["smi", "-o", ""], ["table", "wide", "json", "yaml"], DIRECTIVE_NO_FILES),
    (["--context", "prod", "nodes", "-o", "w"], ["wide"], DIRECTIVE_NO_FILES),
    (["smi", ""], ["i-0aaa", "i-0bbb"], DIRECTIVE_NO_FILES),
    (["smi", "i-0aaa", "i-0b"], ["i-0bbb"], DIRECTIVE_NO_FILES),  # smi takes many nodes
    (["shell", "i-0aaa", ""], [], DIRECTIVE_NO_FILES),  # shell takes one
    (["explain", ""], ["ml/stuck"], DIRECTIVE_NO_FILES),
    (["lifecycle", "--pod", "ml/"], ["ml/a", "ml/b"], DIRECTIVE_NO_FILES),
    (["-n", ""], ["default", "ml"], DIRECTIVE_NO_FILES),
    (["--context", "arn:"], ["arn:aws:eks:us-east-1:1:cluster/x"], DIRECTIVE_NO_FILES),
    (["diagnose", "--only", "dr"], ["drivers"], DIRECTIVE_NO_FILES),
    (["completion", ""], ["bash", "fish", "zsh"], DIRECTIVE_NO_FILES),
    (["nodes", "--snapshot", ""], [], DIRECTIVE_DEFAULT),  # the shell completes file names
    (["lint", "-f", "ex"], [], DIRECTIVE_DEFAULT),
    (["smi", "--timeout", ""], [], DIRECTIVE_NO_FILES),  # free text: nothing to offer, no file names
    (["nodes", ""], ["i-0aaa", "i-0bbb"], DIRECTIVE_NO_FILES),  # nodes NODE: one node and its pods
    (["nodes", "i-0aaa", ""], [], DIRECTIVE_NO_FILES),  # one
    (["pools", ""], [], DIRECTIVE_NO_FILES),
    (["smi", "--", "-x"], [], DIRECTIVE_NO_FILES),
    (
        ["--version", "--no"],
        ["--no-allow-missing-template-keys", "--no-color", "--no-headers", "--now"],
        DIRECTIVE_NO_FILES,
    ),
]


@pytest.mark.parametrize(
    ("args", "expected", "directive"), CASES, ids=[" ".join(c[0]) or "''" for c in CASES]
)
def test_candidates(args: list[str], expected: list[str], directive: int) -> None:
    found, got = complete(args, _names([]))
    assert (sorted(found), got) == (sorted(expected), directive)


def test_connection_flags_reach_the_lookup_wherever_they_are() -> None:
    asked: Asked = []
    complete(["--kubeconfig", "/k", "smi", "--context=c", "-n", "ml", ""], _names(asked))
    assert asked == [("node", {"--kubeconfig": "/k", "--context": "c", "--namespace": "ml"})]


@pytest.mark.parametrize("command", COMMANDS)
def test_every_option_of_every_command_is_offered(command: str) -> None:
    click_command = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    offered, _ = complete([command, "-"], _names([]))
    for param in click_command.params:
        if getattr(param, "param_type_name", "") == "option" and not param.hidden:
            assert set(param.opts) <= set(offered), (command, param.opts)


# --- names from a cluster: kubectl against the test API server, and the Python client without kubectl -----------


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Path]:
    with FakeKubeAPI() as api:
        api.add(gpu_node("i-0aaa"), gpu_node("i-0bbb"))
        api.add(
            pod("stuck", "ml", phase="Pending"), pod("running", "ml", node_name="i-0aaa", phase="Running")
        )
        api.add(pod("web", "default", node_name="i-0bbb", phase="Running"))
        api.add(
            *({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": n}} for n in ("default", "ml"))
        )
        yield write_kubeconfig(tmp_path / "kubeconfig", api.url)


def _kubectl_complete(*args: str, env: dict[str, str] | None = None) -> tuple[list[str], float]:
    started = time.monotonic()
    done = subprocess.run(
        [str(BIN / "kubectl_complete-gpu"), *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=30,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout.splitlines(), time.monotonic() - started


pytestmark_kubectl = pytest.mark.skipif(not os.path.exists(KUBECTL), reason="kubectl is not installed")


@pytestmark_kubectl
def test_names_come_from_the_current_context_through_kubectl(cluster: Path) -> None:
    k = ("--kubeconfig", str(cluster))
    assert _kubectl_complete(*k, "smi", "")[0] == ["i-0aaa", "i-0bbb", ":4"]
    assert _kubectl_complete(*k, "explain", "")[0] == ["ml/stuck", ":4"]  # explain is for Pending pods
    assert _kubectl_complete(*k, "-n", "ml", "explain", "")[0] == ["stuck", ":4"]
    assert _kubectl_complete(*k, "lifecycle", "--pod", "")[0] == [
        "default/web",
        "ml/running",
        "ml/stuck",
        ":4",
    ]
    assert _kubectl_complete(*k, "-n", "")[0] == ["default", "kube-system", "ml", ":4"]
    assert _kubectl_complete(*k, "--context", "")[0] == ["other", "test", ":4"]


@pytestmark_kubectl
def test_an_unreachable_cluster_is_silent_and_quick(cluster: Path) -> None:
    lines, _ = _kubectl_complete("--kubeconfig", str(cluster), "--context", "other", "smi", "")
    assert lines == [":4"]


def test_without_kubectl_the_python_client_answers(cluster: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(completion, "_kubectl", lambda: None)
    k = ["--kubeconfig", str(cluster)]
    assert complete([*k, "smi", ""]) == (["i-0aaa", "i-0bbb"], DIRECTIVE_NO_FILES)
    assert complete([*k, "explain", ""]) == (["ml/stuck"], DIRECTIVE_NO_FILES)
    assert complete([*k, "-n", "ml", "lifecycle", "--pod", "r"]) == (["running"], DIRECTIVE_NO_FILES)
    assert complete([*k, "--context", "o"]) == (["other"], DIRECTIVE_NO_FILES)
    assert complete([*k, "--context", "other", "smi", ""]) == ([], DIRECTIVE_NO_FILES)  # unreachable: silent
    assert complete(["--kubeconfig", "/nonexistent", "smi", ""]) == ([], DIRECTIVE_NO_FILES)


def test_a_snapshot_means_no_cluster_lookup() -> None:
    asked: Asked = []
    assert complete(["smi", "--snapshot", "x.json", ""], _names(asked))[0] == ["i-0aaa", "i-0bbb"]
    assert (
        completion.cluster_names(completion.parse(completion.load_spec(), ["--snapshot", "x", "smi"]), "node")
        == []
    )


# --- start-up -------------------------------------------------------------------------------------------------


def test_completing_imports_no_typer_no_kubernetes_no_analyses() -> None:
    code = (
        "import sys, io, contextlib\n"
        "sys.argv = ['kubectl_complete-gpu', 'pen']\n"
        "from kubectl_gpu.__main__ import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):\n"
        "    main()\n"
        "assert out.getvalue() == 'pending\\n:4\\n', out.getvalue()\n"
        "print(','.join(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    modules = set(done.stdout.strip().split(","))
    heavy = {"typer", "click", "rich", "kubernetes", "yaml", "orjson", "subprocess", "dataclasses"}
    assert not {m for m in modules if m.split(".")[0] in heavy or m == "subprocess"}, sorted(modules)
    assert not {
        m for m in modules if m.startswith(("kubectl_gpu.core", "kubectl_gpu.kube", "kubectl_gpu.render"))
    }


def test_the_installed_executables_answer_fast() -> None:
    """Fast because they import none of the heavy packages (typer, rich, the kubernetes client, the
    analyses): checked by what they import (-X importtime), not by a clock a busy machine slows."""
    heavy = ("typer", "rich", "kubernetes", "kubectl_gpu.core.analyses", "kubectl_gpu.cli.app")
    for argv in ([str(BIN / "kubectl_complete-gpu"), "pen"], [str(BIN / "kubectl-gpu"), "__complete", "pen"]):
        imported = _imports(argv)
        assert "kubectl_gpu.cli.completion" in imported, argv[0]
        assert not [m for m in imported if m.startswith(heavy)], argv[0]


def _imports(argv: list[str]) -> set[str]:
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    done = subprocess.run(argv, capture_output=True, text=True, check=True, env=env)
    assert done.stdout == "pending\n:4\n"
    return {
        line.rsplit("|", 1)[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }


# --- the scripts ----------------------------------------------------------------------------------------------


def _path_env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": f"{BIN}{os.pathsep}/usr/bin:/bin", "HOME": str(tmp_path)}


def test_completion_prints_a_script_per_shell(cli: Callable[..., Result]) -> None:
    registered = {
        "bash": "complete -F _kubectl_gpu_complete kubectl-gpu",
        "zsh": "#compdef kubectl-gpu",
        "fish": "complete -c kubectl-gpu -f -a '(_kubectl_gpu_complete)'",
    }
    for shell, line in registered.items():
        result = cli("completion", shell)
        assert result.code == 0 and line in result.out.splitlines() and "__complete" in result.out
    bad = cli("completion", "tcsh")
    assert bad.code == 2 and "unknown shell 'tcsh'" in bad.err


def test_the_scripts_are_for_the_name_the_program_runs_under() -> None:
    """krew links the executable as kubectl-<plugin name>: the script completes that name."""
    assert completion.program_name("/home/u/.krew/bin/kubectl-gpu_doctor") == "kubectl-gpu_doctor"
    assert completion.program_name("/usr/lib/python3/site-packages/kubectl_gpu/__main__.py") == "kubectl-gpu"
    bash = completion.script("bash", "kubectl-gpu_doctor")
    assert "complete -F _kubectl_gpu_doctor_complete kubectl-gpu_doctor" in bash


def _bash(tmp_path: Path, line: str) -> list[str]:
    script = tmp_path / "c.bash"
    script.write_text(
        subprocess.run(
            [str(BIN / "kubectl-gpu"), "completion", "bash"], capture_output=True, text=True, check=True
        ).stdout
    )
    probe = f'source {script}; COMP_LINE="{line}"; COMP_POINT=${{#COMP_LINE}}; _kubectl_gpu_complete; printf "%s\\n" "${{COMPREPLY[@]}}"'
    done = subprocess.run(
        ["bash", "-c", probe], capture_output=True, text=True, env=_path_env(tmp_path), check=True
    )
    return [ln for ln in done.stdout.splitlines() if ln]


def test_bash_script(tmp_path: Path) -> None:
    assert _bash(tmp_path, "kubectl-gpu pen") == ["pending"]
    assert _bash(tmp_path, "kubectl-gpu smi --strategy=re") == ["request"]  # bash completes after the '='
    assert _bash(tmp_path, "kubectl-gpu completion ") == ["bash", "zsh", "fish"]


@pytestmark_kubectl
def test_bash_script_with_arn_context_names(tmp_path: Path) -> None:
    """EKS context names are ARNs: bash completes only what follows the word's last ':'."""
    arn = "arn:aws:eks:us-east-1:111122223333:cluster/demo"
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "c", "cluster": {"server": "http://127.0.0.1:1"}}],
                "users": [{"name": "u", "user": {}}],
                "contexts": [{"name": arn, "context": {"cluster": "c", "user": "u"}}],
                "current-context": arn,
            }
        )
    )
    found = _bash(tmp_path, f"kubectl-gpu --kubeconfig {kubeconfig} --context arn:aws:eks:us-")
    assert found == ["us-east-1:111122223333:cluster/demo"]


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_script(tmp_path: Path) -> None:
    script = subprocess.run(
        [str(BIN / "kubectl-gpu"), "completion", "zsh"], capture_output=True, text=True, check=True
    ).stdout
    (tmp_path / "c.zsh").write_text(script)
    probe = (
        'compadd() { local i=${@[(i)--]}; print -l -- "${@[i+1,-1]}"; }\n_files() { print FILES; }\ncompdef() { :; }\n'
        f"source {tmp_path / 'c.zsh'}\n"
        "words=(kubectl-gpu pen); CURRENT=2; _kubectl_gpu_complete\n"
        "words=(kubectl-gpu lint -f ''); CURRENT=4; _kubectl_gpu_complete\n"
    )
    done = subprocess.run(
        ["zsh", "-f", "-c", probe], capture_output=True, text=True, env=_path_env(tmp_path), check=True
    )
    assert done.stdout.splitlines() == ["pending", "FILES"]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_script(tmp_path: Path) -> None:
    script = subprocess.run(
        [str(BIN / "kubectl-gpu"), "completion", "fish"], capture_output=True, text=True, check=True
    ).stdout
    (tmp_path / "c.fish").write_text(script)
    probe = f'source {tmp_path / "c.fish"}; complete -C"kubectl-gpu pen"; complete -C"kubectl-gpu smi --strategy "'
    done = subprocess.run(
        ["fish", "--no-config", "-c", probe],
        capture_output=True,
        text=True,
        env=_path_env(tmp_path),
        check=True,
    )
    assert done.stdout.splitlines() == ["pending", "auto", "privileged-all", "request"]
