"""Help, flags and names as a kubectl user expects them (issue 23, item 2).

- `--help` in kubectl's layout (cli.help_style): a golden per command in tests/golden/help/ (rewrite with
  `UPDATE_GOLDEN=1` when a change is intended), examples before the options, flags as `--flag=default:`,
  never a Python type as a metavar, no choice cut in two;
- every example's flags exist (the parser is asked);
- boolean flags take `=true`/`=false` as kubectl's do, and `--flag true` is an argument, as for kubectl;
- the program name is `kubectl gpu` when kubectl ran the plugin (through the real kubectl and a real shell);
- `snapshot -f` (the old output flag) still writes, with a warning; `--out` is the spelling.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import typer

from kubectl_gpu.cli.app import app
from kubectl_gpu.cli.bool_flags import FALSE, TRUE, normalise
from kubectl_gpu.cli.help_render import commands, rendered
from kubectl_gpu.cli.help_text import EXAMPLES, SHORT
from kubectl_gpu.cli.prog import PLUGIN, STANDALONE, program_name, via_kubectl
from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI

Cli = Callable[..., Result]
ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden" / "help"
DEMO = str(ROOT / "examples" / "automode-gpu-demo.json")
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"
KUBECTL = shutil.which("kubectl")
SCRIPT_DIR = Path(sys.executable).parent
FLAG_LINE = re.compile(r"^    (-[A-Za-z], )?--[a-z][a-z0-9-]*=('[^']*'|\[[^]]*]|true|false|-?\d+):$")


@pytest.fixture(autouse=True)
def _standalone(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("KUBECTL_PATH", "_"):
        monkeypatch.delenv(name, raising=False)


def _golden_name(command: str) -> str:
    return f"{command or 'root'}.txt"


@pytest.mark.parametrize("command", commands())
def test_help_golden(command: str) -> None:
    text = rendered([command, "--help"] if command else ["--help"])
    path = GOLDEN / _golden_name(command)
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), (
        f"help of {command!r} changed: UPDATE_GOLDEN=1 if intended"
    )


def test_a_golden_per_command_and_no_other() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.txt")) == sorted(_golden_name(c) for c in commands())


@pytest.mark.parametrize("command", commands())
def test_help_reads_like_kubectl(command: str) -> None:
    text = rendered([command, "--help"] if command else ["--help"])
    for python_ism in ("<bool>", "<str>", "<int>", "<list[", "[OPTIONS]", "╭", "│"):
        assert python_ism not in text, (command, python_ism)
    assert text.index("Examples:") < text.index("Usage:")
    if "Options:" in text:
        assert text.index("Examples:") < text.index("Options:") < text.index("Usage:")
    flags = [line for line in text.splitlines() if line.startswith("    -")]
    assert all(FLAG_LINE.match(line) for line in flags), [f for f in flags if not FLAG_LINE.match(f)]
    assert "--output=''" in text or command  # the root lists the global options
    assert f"  {STANDALONE} {command}".rstrip() in text


def test_choices_are_whole_words() -> None:
    smi = rendered(["smi", "--help"])
    assert "One of: privileged-all, request, auto." in " ".join(smi.split())
    root = rendered(["--help"])
    assert "table, wide, json, yaml, name, jsonpath=TEMPLATE, custom-columns=SPEC" in " ".join(
        root.split()
    )  # never `c`/`sv>`


def _flags(line: str) -> tuple[str, list[str]]:
    words = shlex.split(line)
    assert words[:2] == ["kubectl", "gpu"] or words[0] in ("source", "kubectl-gpu"), line
    if words[0] == "source":
        words = shlex.split(line.split("<(", 1)[1].rstrip(")"))
    words = words[1:] if words[0] == "kubectl-gpu" else words[2:]
    words = words[: words.index(">")] if ">" in words else words
    words = words[: words.index("|")] if "|" in words else words
    words = words[: words.index("--")] if "--" in words else words  # the rest is the remote command's
    command = next((w for w in words if not w.startswith("-")), "") if words else ""
    return command, [w.split("=")[0] for w in words if w.startswith("-")]


def test_every_example_names_a_real_command_and_real_flags() -> None:
    root = typer.main.get_command(app)
    global_names = {o for p in root.params for o in p.opts}
    for command, pairs in EXAMPLES.items():
        assert command == "" or command in SHORT, command
        for _, line in pairs:
            named, flags = _flags(line)
            assert named == "" or named in root.commands, (
                line
            )  # another command may be shown, e.g. reading back
            known = (
                global_names | {o for p in root.commands[named].params for o in p.opts}
                if named
                else global_names
            )
            assert set(flags) <= known, (line, set(flags) - known)
    assert set(SHORT) == set(commands()) - {""}


# --- booleans ------------------------------------------------------------------------------------------


def test_bool_flag_takes_true_and_false_as_kubectl_does(cli: Cli) -> None:
    plain = cli("nodes", "--snapshot", DEMO)
    every = cli("nodes", "--all", "--snapshot", DEMO)
    assert plain.out != every.out
    for value in sorted(TRUE):
        assert cli("nodes", f"--all={value}", "--snapshot", DEMO).out == every.out, value
    for value in sorted(FALSE):
        assert cli("nodes", f"--all={value}", "--snapshot", DEMO).out == plain.out, value
    # a global boolean flag, short form, before or after the command
    assert cli("-A=true", "pending", "--snapshot", DEMO).out == cli("-A", "pending", "--snapshot", DEMO).out
    assert cli("pending", "-A=false", "--snapshot", DEMO).out == cli("pending", "--snapshot", DEMO).out


def test_bool_flag_with_another_value_is_bad_input(cli: Cli) -> None:
    result = cli("nodes", "--all=maybe", "--snapshot", DEMO)
    assert result.code == 2
    assert result.err == 'error: invalid argument "maybe" for "--all" flag; use true or false\n'


def test_bool_flag_then_true_is_an_argument_as_for_kubectl(cli: Cli) -> None:
    # kubectl reads `--all true` as the flag and then an argument named `true`; so does this tool.
    result = cli("nvme", "--all", "true", "--snapshot", DEMO)
    assert result.code == 2 and "unexpected extra argument" in result.err and "(true)" in result.err
    # `nodes` takes a NODE: `true` is one, as `kubectl get nodes --all true` reads it
    result = cli("nodes", "--all", "true", "--snapshot", DEMO)
    assert result.code == 2 and result.err.startswith('error: nodes "true" not found')


def test_value_options_and_what_follows_dashdash_are_left_alone(cli: Cli) -> None:
    # --from-file=- is not a boolean flag (untouched); --all=true is, so smi refuses the two together.
    result = cli("smi", "--from-file=-", "--all=true")
    assert result.code == 2 and "--from-file reads no cluster" in result.err
    root = typer.main.get_command(app)
    assert normalise(["smi", "--", "--all=true"], root) == ["smi", "--", "--all=true"]
    assert normalise(["smi", "--all=1", "--raw=F", "n1"], root) == ["smi", "--all", "n1"]
    assert normalise(["--debug=true", "nodes", "--all=0"], root) == ["--debug", "nodes"]


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
def test_kubectl_itself_takes_bool_flags_so() -> None:
    """What this mirrors: kubectl parses `--all-namespaces=true` (then fails for want of a cluster) and
    refuses `--all-namespaces=maybe` as an invalid argument for the flag."""

    def kubectl_get(flag: str) -> str:
        args = [KUBECTL or "kubectl", "get", "pods", flag, "--kubeconfig", os.devnull, "--request-timeout=1s"]
        return subprocess.run(args, capture_output=True, text=True, check=False).stderr

    assert 'invalid argument "maybe" for "-A, --all-namespaces" flag' in kubectl_get("--all-namespaces=maybe")
    assert "invalid argument" not in kubectl_get("--all-namespaces=true")


# --- the program name ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, STANDALONE),
        ({"_": "/usr/local/bin/kubectl-gpu"}, STANDALONE),
        ({"_": "/usr/bin/python3"}, STANDALONE),
        ({"_": "/usr/local/bin/kubectl"}, PLUGIN),  # bash, zsh: the program the shell ran
        ({"_": "kubectl"}, PLUGIN),
        ({"KUBECTL_PATH": "/opt/k/kubectl-1.37"}, PLUGIN),  # kubectl with kubernetes#138694
        ({"KUBECTL_PATH": ""}, STANDALONE),
    ],
)
def test_program_name(environ: dict[str, str], expected: str) -> None:
    assert program_name(environ, "/usr/local/bin/kubectl-gpu") == expected
    assert program_name(environ, "/x/python3") == expected  # `python -m kubectl_gpu`: the tool's name
    assert via_kubectl(environ) is (expected == PLUGIN)


def test_krew_name_is_the_plugin_kubectl_runs() -> None:
    # krew links the executable as kubectl-gpu_doctor; kubectl runs it for `kubectl gpu-doctor`.
    link = "/home/u/.krew/bin/kubectl-gpu_doctor"
    assert program_name({"KUBECTL_PATH": "/usr/bin/kubectl"}, link) == "kubectl gpu-doctor"
    assert program_name({}, link) == "kubectl-gpu_doctor"


def test_usage_errors_name_the_program(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    assert "see 'kubectl-gpu nodes -h'" in cli("nodes", "--bogus").err
    monkeypatch.setenv("KUBECTL_PATH", "/usr/bin/kubectl")
    assert "see 'kubectl gpu nodes -h'" in cli("nodes", "--bogus").err


def _shell(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`command` typed at bash, with this venv's kubectl-gpu on PATH (bash sets `_` as it runs a program)."""
    env = {k: v for k, v in os.environ.items() if k not in ("KUBECTL_PATH", "_", "KUBECONFIG")}
    env.update(PATH=f"{SCRIPT_DIR}{os.pathsep}{os.environ.get('PATH', '')}", HOME=str(tmp_path))
    return subprocess.run(
        ["bash", "--norc", "-c", command], capture_output=True, text=True, env=env, check=False
    )


@pytest.mark.skipif(KUBECTL is None, reason="kubectl is not installed")
@pytest.mark.skipif(
    not (SCRIPT_DIR / "kubectl-gpu").exists(), reason="kubectl-gpu console script not installed"
)
def test_through_kubectl_the_program_is_kubectl_gpu(tmp_path: Path) -> None:
    through = _shell("kubectl gpu nodes --bogus", tmp_path)
    assert through.returncode == 2 and "see 'kubectl gpu nodes -h'" in through.stderr, through.stderr
    helped = _shell("kubectl gpu smi --help", tmp_path)
    assert "\n  kubectl gpu smi [NODES...] [options]\n" in helped.stdout
    direct = _shell("kubectl-gpu nodes --bogus", tmp_path)
    assert direct.returncode == 2 and "see 'kubectl-gpu nodes -h'" in direct.stderr, direct.stderr


# --- snapshot: --out, and -f deprecated ----------------------------------------------------------------


def test_snapshot_f_still_writes_with_a_warning(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, tmp_path: Path
) -> None:
    new, old = tmp_path / "new.json", tmp_path / "old.json"
    written = cli("snapshot", "--kubeconfig", str(kubeconfig), "--out", str(new))
    assert written.code == 0 and "deprecated" not in written.err
    deprecated = cli("snapshot", "--kubeconfig", str(kubeconfig), "-f", str(old))
    assert deprecated.code == 0, deprecated.err
    assert deprecated.err.startswith(f"warning: snapshot -f is deprecated (-f means an input file, as in lint -f "
                                     f"and kubectl -f): use --out {old}\n")  # fmt: skip
    assert json.loads(old.read_text())["kind"] == json.loads(new.read_text())["kind"]


def test_snapshot_f_and_out_together_is_bad_input(cli: Cli, tmp_path: Path) -> None:
    result = cli("snapshot", "-f", str(tmp_path / "a.json"), "--out", str(tmp_path / "b.json"))
    assert result.code == 2 and result.err == (
        "error: snapshot: -f and --out both given; use --out FILE (-f is deprecated)\n"
    )


def test_snapshot_help_shows_out_not_f() -> None:
    text = rendered(["snapshot", "--help"])
    assert "    --out='':" in text and not re.search(r"^    -f\b", text, re.M) and "-f," not in text
