"""The read-only commands answered without typer (cli.direct) answer as typer's path does.

* every spelling `cli.direct` reads is one typer declares, for the same field or parameter, with the same
  arity (a flag, a value, a repeatable value, FailOn's choices), and the positional argument is typer's;
* a command line it does not take (another option, a value that starts with `-`, `-o=json`, a flag written
  `=false`, an option written twice, `--`, a positional) is left to typer: `parse` gives None;
* on the command lines it takes, the `GlobalOptions` the command receives are the same by both paths, and so
  are the output, the messages and the exit code, errors included (on the demo snapshot, a `kubectl get`
  List and a missing file);
* `python -m kubectl_gpu` answers such a line without importing typer, and still answers the others
  through typer.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.cli import direct, fleet_entry
from tests.helpers import FIXTURES

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "automode-gpu-demo.json"
NOW = "2026-12-06T00:00:00Z"


def _typer_params(command: str) -> dict[str, Any]:
    import typer

    from kubectl_gpu.cli.app import app

    group = typer.main.get_command(app)
    return {p.name: p for p in group.commands[command].params}  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", sorted(direct.COMMANDS))
def test_every_spelling_is_typers_for_the_same_field(command: str) -> None:
    from kubectl_gpu.cli.option_declarations import PatchTypeOption
    from kubectl_gpu.cli.simulate import FailOnOption
    from kubectl_gpu.core.report import FailOn

    choices = {direct.PATCH_TYPE: PatchTypeOption, direct.SIMULATE_FAIL_ON: FailOnOption}

    params = _typer_params(command)
    for spelling, field in direct.VALUE_OPTIONS.items():
        param = params[field]
        assert spelling in param.opts, (spelling, field)
        assert not getattr(param, "is_flag", False)
        assert param.multiple == (field == "snapshot"), field
    for spelling, field in direct.FLAG_OPTIONS.items():
        assert spelling in params[field].opts
        assert params[field].is_flag
    spec = direct.COMMANDS[command]
    for spelling, (name, kind) in spec.options.items():
        param = params[name]
        assert spelling in param.opts, (command, spelling)
        assert bool(getattr(param, "is_flag", False)) == (kind == direct.FLAG), (command, spelling)
        assert param.multiple == (kind == direct.TEXTS), (command, spelling)
        assert (param.type_descriptor.annotation is FailOn) == (kind == direct.FAIL_ON), (command, spelling)
        assert (param.type_descriptor.annotation is float) == (kind == direct.NUMBER), (command, spelling)
        for choice, enum in choices.items():
            assert (param.type_descriptor.annotation is enum) == (kind == choice), (command, spelling)
            if kind == choice:
                assert tuple(enum) == direct.CHOICES[choice]
    arguments = [p for p in params.values() if p.param_type_name == "argument"]
    assert [p.name for p in arguments] == ([spec.argument] if spec.argument else []), command
    assert all(p.required == spec.required for p in arguments), command
    assert all((p.nargs == -1) == spec.many for p in arguments), command


def test_each_command_is_the_function_typer_runs_with_printing_and_its_csv() -> None:
    import typer

    from kubectl_gpu.cli.app import app

    group = typer.main.get_command(app)
    for name, spec in direct.COMMANDS.items():
        callback = group.commands[name].callback  # type: ignore[attr-defined]
        assert callback.__name__ == spec.function
        assert callback.__module__ == f"kubectl_gpu.cli.{spec.module}"
        formats = getattr(callback, "output_formats", ())
        assert ("name" in formats) == spec.printing, name  # registered with printing=True, or not (tui)
        assert ("csv" in formats) == spec.csv, name


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["smi", "--concurrency", "4"],
        ["smi", "node-1", "--strategy", "auto"],
        ["smi", "--raw", "--raw"],
        ["smi", "--from-file", "-"],
        ["smi", "node-1", "--", "node-2"],
        ["shell", "node-1"],
        ["cleanup"],
        ["--snapshot", "f.json", "nodes"],
        ["nodes", "node-1", "node-2"],
        ["drivers", "node-1"],
        ["explain"],
        ["pending", "-A=false"],
        ["pending", "--all-namespaces=true"],
        ["nodes", "--all=true"],
        ["nodes", "-o=json"],
        ["nodes", "-o"],
        ["nodes", "-o", "-A"],
        ["nodes", "--snapshot", "-"],
        ["nodes", "-n", "a", "-n", "b"],
        ["nodes", "-A", "-A"],
        ["nodes", "--all", "--all"],
        ["nodes", "--region", "a", "--region", "b"],
        ["nodes", "--", "-A"],
        ["nodes", "--debug"],
        ["nodes", "-h"],
        ["nodes", "-w", "--watch"],
        ["pending", "-w", "-w"],
        ["pending", "-wA"],
        ["nodes", "-Ao", "json"],
        ["nodes", "--outputs", "json"],
        ["nodes", "--sort-by", ".name"],
        ["diagnose", "--fail-on", "fatal"],
        ["diagnose", "--fail-on", "ERROR"],
        ["lint", "-f", "-"],
        ["explain", "pod", "--with", "fix.yaml", "--type", "Merge"],
        ["explain", "pod", "--with", "fix.yaml", "--type", "merge", "--type", "json"],
        ["explain", "pod", "--target", "nodepool/a", "--target", "nodepool/b"],
        ["usage", "--idle-below", "ten"],
        ["usage", "--idle-below", "-5"],
        ["usage", "--window", "1m", "--window", "2m"],
        ["usage", "--sample", "--sample"],
        ["usage", "node-1"],
        ["simulate", "--fail-on", "warning"],
        ["simulate", "--type", "Merge", "-f", "fix.yaml"],
        ["simulate", "-f", "-"],
        ["simulate", "--target", "a", "--target", "b"],
        ["tui", "--readonly", "--readonly"],
        ["tui", "--refresh", "10s", "--refresh", "20s"],
        ["tui", "-l", "app=x"],
        ["tui", "--all-contexts"],
        ["tui", "node-1"],
    ],
)
def test_other_command_lines_are_left_to_typer(argv: list[str]) -> None:
    assert direct.parse(argv) is None


def test_the_forms_it_reads() -> None:
    from kubectl_gpu.core.report import FailOn

    parsed = direct.parse(
        ["pending", "-A", "--snapshot", "a", "--snapshot=b", "-ojson", "--namespace=ml", "--now", NOW]
    )
    assert parsed == (
        "pending",
        {"all_namespaces": True, "output": "json", "namespace": "ml", "now": NOW, "snapshot": ("a", "b")},
        {},
    )
    assert direct.parse(["nodes", "-n", ""]) == ("nodes", {"namespace": ""}, {})  # typer's: an empty value
    assert direct.parse(["nodes", "n1", "--all", "--region=r"]) == (
        "nodes",
        {},
        {"node": "n1", "include_all": True, "region": "r"},
    )
    assert direct.parse(["diagnose", "--only", "a", "--fail-on=warning", "--only=b,c"]) == (
        "diagnose",
        {},
        {"only": ["a", "b,c"], "fail_on": FailOn.warning},
    )
    assert direct.parse(["pending", "-w", "-A"]) == ("pending", {"all_namespaces": True}, {"watch": True})
    assert direct.parse(["smi", "a", "--all", "b", "--timeout=90s"]) == (
        "smi",
        {},
        {"nodes": ["a", "b"], "all_nodes": True, "timeout": "90s"},
    )
    assert direct.parse(["nodes", "--watch", "--all"]) == ("nodes", {}, {"watch": True, "include_all": True})


ARGVS = [
    ["nodes", "--snapshot", "{demo}", "--now", NOW],
    ["nodes", "--snapshot={demo}", "-o", "json", "--now", NOW],
    ["pending", "-A", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["pending", "-n", "ml", "--snapshot", "{demo}", "--now", NOW],
    ["pending", "--all-namespaces", "--snapshot", "{list}", "-ojson", "--now", NOW, "--no-color"],
    ["diagnose", "--snapshot", "{demo}", "-o", "yaml", "--now", NOW],
    ["drivers", "--snapshot", "{demo}", "-o", "wide", "--now", NOW],
    ["lint", "--snapshot", "{demo}", "--now", NOW],
    ["lifecycle", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["nvme", "--snapshot", "{demo}", "--now", NOW],
    ["cost", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["inventory", "--snapshot", "{demo}", "-o", "csv", "--now", NOW],
    ["nodes", "--snapshot", "{demo}", "-o", "name"],
    ["nodes", "--snapshot", "{demo}", "-o", "jsonpath={.nodes[*].name}"],
    ["nodes", "--snapshot", "{demo}", "--snapshot", "{list}", "-o", "json", "--now", NOW],
    # errors: the same line and exit code
    ["drivers", "--snapshot", "{demo}", "-o", "csv"],
    ["nodes", "--snapshot", "{demo}", "-o", "toml"],
    ["nodes", "--snapshot", "{demo}", "-o", "jsonpath="],
    ["pending", "-n", "", "--snapshot", "{demo}"],
    ["pending", "-n", "Not_A_Name", "--snapshot", "{demo}"],
    ["nodes", "--snapshot", "{demo}", "--now", "yesterday"],
    ["nodes", "--snapshot", "{missing}"],
    ["nodes", "--snapshot", "{demo}", "--kubeconfig", "{missing}", "--context", "prod"],
    ["nodes", "--snapshot", "{demo}", "--request-timeout", "soon"],
    ["nodes", "-w", "--snapshot", "{demo}"],
    ["pending", "--watch", "-o", "json", "--snapshot", "{demo}"],
    ["pending", "-w", "-o", "jsonpath={.pods}", "--kubeconfig", "{missing}"],
    ["nodes", "i-0694472d1a7d32946", "-w", "--kubeconfig", "{missing}"],
    # the commands' own options and argument
    ["nodes", "--all", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["nodes", "i-0694472d1a7d32946", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["nodes", "no-such-node", "--snapshot", "{demo}"],
    ["nodes", "--snapshot", "{demo}", "--region", "us-west-2", "--now", NOW],
    ["nodes", "--snapshot", "{demo}", "--price-file", "{missing}"],
    ["pending", "--all-pending", "-A", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["pending", "--by-workload", "-A", "--snapshot", "{list}", "--now", NOW],
    ["explain", "default/chat-api-7d9f8c6b5d-x2k4p", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["explain", "chat-api-7d9f8c6b5d-x2k4p", "-n", "default", "--snapshot", "{demo}", "--now", NOW],
    ["explain", "pretrain-8x-h100-0", "--snapshot", "{demo}", "-n", "ml"],
    ["explain", "nobody", "--snapshot", "{demo}"],
    ["pools", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["pools", "--snapshot", "{demo}", "-o", "wide", "--now", NOW],
    ["diagnose", "--fail-on", "warning", "--only", "pending", "--only", "drivers,lint", "--snapshot", "{demo}"],
    ["diagnose", "--only", "bogus", "--snapshot", "{demo}"],
    ["lint", "--fail-on=warning", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["lifecycle", "--all", "--needs", "11d", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["lifecycle", "--pod", "ml/pretrain-8x-h100-0", "--snapshot", "{demo}", "--now", NOW],
    ["lifecycle", "--needs", "soon", "--snapshot", "{demo}"],
    ["nvme", "--all", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["cost", "--min-idle", "1h", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["cost", "--min-idle", "bogus", "--snapshot", "{demo}"],
    ["inventory", "--all", "--snapshot", "{demo}", "-o", "csv", "--now", NOW],
    ["lint", "-f", "{pool}", "-o", "json", "--now", NOW],
    ["lint", "--filename={pool}", "--filename", "{demo}", "--fail-on", "warning", "--now", NOW],
    ["lint", "-f{pool}", "--snapshot", "{demo}"],
    ["lint", "-f", "{missing}"],
    ["lint", "-f", "{list}", "-A", "--now", NOW],
    ["explain", "ml/pretrain-8x-h100-1", "--snapshot", "{demo}", "--with", "{pool}", "-o", "json", "--now", NOW],
    ["explain", "ml/pretrain-8x-h100-1", "--delete", "nodepool/gpu-training", "--snapshot", "{demo}", "--now", NOW],
    ["explain", "ml/pretrain-8x-h100-1", "--snapshot", "{demo}", "--delete", "nodepool/nope"],
    [
        "explain",
        "ml/pretrain-8x-h100-1",
        "--snapshot",
        "{demo}",
        "--with",
        "{limits}",
        "--type=merge",
        "--target",
        "nodepool/gpu-training",
        "-o",
        "json",
        "--now",
        NOW,
    ],
    ["explain", "ml/pretrain-8x-h100-1", "--snapshot", "{demo}", "--with", "{limits}", "--type", "json"],
    ["explain", "ml/pretrain-8x-h100-1", "--snapshot", "{demo}", "--type", "strategic"],
    ["explain", "ml/pretrain-8x-h100-1", "--snapshot", "{demo}", "--target", "nodepool/gpu-training"],
    ["explain", "ml/pretrain-8x-h100-1", "--snapshot", "{demo}", "--with", "{missing}"],
    # smi: a snapshot's probes, a saved output, and what it refuses before it reads a cluster
    ["smi", "--snapshot", "{demo}", "-o", "json"],
    ["smi", "i-0694472d1a7d32946", "--snapshot", "{demo}", "--raw"],
    ["smi", "i-0694472d1a7d32946", "i-0fb95c97fae96da58", "--snapshot", "{demo}", "-o", "wide"],
    ["smi", "i-0694472d1a7d32946", "no-such-node", "--snapshot", "{demo}"],
    ["smi", "--snapshot", "{demo}", "--timeout", "soon"],
    ["smi", "--from-file", "{smi}", "-o", "yaml"],
    ["smi", "--from-file", "{missing}"],
    ["smi", "--from-file", "{smi}", "--all"],
    ["smi", "--dry-run", "--all", "--image", "nvcr.io/nvidia/cuda:12.4.1-base", "--kubeconfig", "{missing}"],
    ["smi", "--snapshot", "{demo}", "-o", "name"],
    # usage: a snapshot's saved window, its options, and what it refuses
    ["usage", "--snapshot", "{demo}", "-o", "json", "--now", NOW],
    ["usage", "--snapshot", "{demo}", "--idle-below", "50", "--region=us-west-2", "--now", NOW],
    ["usage", "--snapshot", "{demo}", "--idle-below=1e1", "-o", "wide", "--now", NOW],
    ["usage", "--snapshot", "{demo}", "--idle-below=-5"],
    ["usage", "--snapshot", "{demo}", "--idle-below", "nan"],
    ["usage", "--snapshot", "{demo}", "--window", "2h"],
    ["usage", "--snapshot", "{demo}", "--sample", "--readonly", "-o", "json", "--now", NOW],
    ["usage", "--snapshot", "{list}", "--exporter-namespace", "gpu-operator", "--exporter-namespace=a,b"],
    ["usage", "--snapshot", "{demo}", "--price-file", "{missing}"],
    ["usage", "--snapshot", "{demo}", "--snapshot", "{list}", "-o", "json", "--now", NOW],
    ["usage", "--snapshot", "{demo}", "-o", "csv"],
    # simulate: a change on a copy of the snapshot, and what it refuses
    ["simulate", "--snapshot", "{demo}", "--delete", "nodepool/gpu-training", "-o", "json", "--now", NOW],
    ["simulate", "--snapshot", "{demo}", "-f", "{pool}", "--fail-on", "any", "--now", NOW],
    ["simulate", "--snapshot", "{demo}", "-f{limits}", "--type=merge", "--target", "nodepool/gpu-training"],
    ["simulate", "--snapshot", "{demo}", "--filename", "{limits}", "--type", "json", "--now", NOW],
    ["simulate", "--snapshot", "{demo}", "--delete", "nodepool/nope", "--fail-on=none"],
    ["simulate", "--snapshot", "{demo}"],
    ["simulate", "--snapshot", "{demo}", "-f", "{missing}"],
    ["simulate", "--snapshot", "{demo}", "--delete", "nodepool/gpu-training", "-o", "name"],
    # the TUI: what it refuses before it starts (the same line and exit code)
    ["tui", "--snapshot", "{demo}", "-o", "json"],
    ["tui", "--snapshot", "{demo}", "-o", "name"],
    ["tui", "--snapshot", "{demo}", "-o", "csv"],
    ["tui", "--snapshot", "{demo}", "--refresh", "0.5s"],
    ["tui", "--snapshot", "{demo}", "--refresh", "soon"],
    ["tui", "--snapshot", "{demo}", "-n", ""],
    ["tui", "--snapshot", "{demo}", "--now", "yesterday"],
]


@pytest.fixture
def inputs(tmp_path: Path) -> dict[str, str]:
    """The demo bundle, its objects as one `kubectl get -o json` List, a NodePool manifest (the EKS docs'
    GPU pool, as `lint -f` and `explain --with` read one) and a path to nothing."""
    listed = tmp_path / "list.json"
    objects = json.loads(DEMO.read_text())["objects"]
    listed.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}, indent=4))
    pool = tmp_path / "pool.yaml"
    pool.write_text((FIXTURES / "karpenter" / "eks-docs__automode-nodepool-gpu-g6e-g6.yaml").read_text())
    limits = tmp_path / "limits.yaml"  # a merge patch of a NodePool's limits
    limits.write_text("spec:\n  limits:\n    nvidia.com/gpu: '32'\n")
    return {
        "demo": str(DEMO),
        "list": str(listed),
        "pool": str(pool),
        "limits": str(limits),
        "smi": str(FIXTURES / "probe" / "nvidia-smi" / "xml" / "telegraf__tesla-t4__515.105.01.xml"),
        "missing": str(tmp_path / "missing.json"),
    }


def _filled(template: list[str], inputs: dict[str, str]) -> list[str]:
    """The argv with `{demo}`, `{list}` and `{missing}` replaced by the paths."""
    argv = []
    for word in template:
        for name, path in inputs.items():
            word = word.replace("{" + name + "}", path)
        argv.append(word)
    return argv


def _run(path: str, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[Any, str, str]:
    if path == "direct":
        with pytest.raises(SystemExit) as info:
            direct.answer(argv)
    else:
        from kubectl_gpu.cli.app import main

        with pytest.raises(SystemExit) as info:
            main(argv)
    code = info.value.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("template", ARGVS, ids=lambda argv: " ".join(argv[:3]))
def test_both_paths_answer_alike(
    template: list[str], inputs: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = _filled(template, inputs)
    assert direct.parse(argv) is not None, argv
    by_typer = _run("typer", argv, capsys)
    by_direct = _run("direct", argv, capsys)
    assert by_direct == by_typer


@pytest.mark.parametrize("template", ARGVS, ids=lambda argv: " ".join(argv[:3]))
def test_both_paths_give_the_command_the_same_options(
    template: list[str], inputs: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = _filled(template, inputs)
    received: dict[str, Any] = {}

    def record(call: Any, opts: Any, command: str) -> int:
        received[command, len(received)] = opts
        return 0

    monkeypatch.setattr(fleet_entry, "dispatch", record)
    results = []
    for path in ("typer", "direct"):
        received.clear()
        with contextlib.redirect_stderr(io.StringIO()), contextlib.suppress(SystemExit):
            if path == "direct":
                direct.answer(argv)
            else:
                from kubectl_gpu.cli.app import main

                main(argv)
        results.append(dict(received))
    assert results[0] == results[1]


def _imported(argv: list[str]) -> tuple[int, set[str]]:
    """Run `python -m kubectl_gpu ARGV` in a fresh interpreter: its exit code and the modules it imported."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kubectl_gpu", *argv],
        capture_output=True,
        text=True,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    modules = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    return done.returncode, modules


def test_a_plain_command_line_imports_no_typer() -> None:
    code, modules = _imported(["pending", "-A", "--snapshot", str(DEMO), "-o", "json", "--now", NOW])
    assert code == 1  # the demo's Pending pods are blocked
    assert "kubectl_gpu.core.analyses.pending" in modules
    assert not {m for m in modules if m.split(".")[0] in ("typer", "click")}


def test_smi_of_a_snapshot_is_read_without_typer() -> None:
    code, modules = _imported(["smi", "--snapshot", str(DEMO), "-o", "json"])
    assert code == 1  # the demo's probes hold a GPU health finding
    assert "kubectl_gpu.render.smi_view" in modules  # (a module importlib loads is not listed by -X importtime)
    assert not {m for m in modules if m.split(".")[0] in ("typer", "click")}


@pytest.mark.parametrize(
    ("argv", "module", "absent"),
    [
        # no config file: its YAML parser is not imported either (kube.debug.setup.read_config)
        (["usage", "--snapshot", str(DEMO), "-o", "json"], "kubectl_gpu.core.analyses.usage", ("yaml",)),
        (
            ["simulate", "--snapshot", str(DEMO), "--delete", "nodepool/gpu-training", "-o", "json"],
            "kubectl_gpu.core.analyses.simulate",
            (),
        ),
    ],
)
def test_usage_and_simulate_of_a_snapshot_are_read_without_typer(
    argv: list[str], module: str, absent: tuple[str, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    code, modules = _imported([*argv, "--now", NOW])
    assert code in (0, 1)
    assert module in modules
    assert not {m for m in modules if m.split(".")[0] in ("typer", "click", *absent)}


def test_a_watch_is_read_without_typer() -> None:
    code, modules = _imported(["nodes", "-w", "--snapshot", str(DEMO)])
    assert code == 2  # a snapshot does not change: refused by the watch itself, not by the parser
    assert "kubectl_gpu.cli.watch" in modules
    assert not {m for m in modules if m.split(".")[0] in ("typer", "click")}


def test_any_other_command_line_is_typers() -> None:
    code, modules = _imported(["pending", "--all-pending=true", "--snapshot", str(DEMO), "-o", "json", "--now", NOW])
    assert code == 1
    assert "typer" in modules
    assert "kubectl_gpu.cli.app" in modules


TUI_ARGVS = [
    ["tui", "--snapshot", "{demo}"],
    ["tui", "--snapshot", "{demo}", "--readonly", "--refresh", "10s", "--theme", "nord", "--now", NOW],
    ["tui", "--refresh=off", "-n", "ml", "--snapshot={demo}", "--no-color"],
    ["tui", "-A", "--snapshot", "{demo}", "--snapshot", "{list}", "--refresh", "1m"],
]


@pytest.mark.parametrize("template", TUI_ARGVS, ids=lambda argv: " ".join(argv[1:4]))
def test_both_paths_start_the_tui_with_the_same_config(
    template: list[str], inputs: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from kubectl_gpu.cli import tui

    argv = _filled(template, inputs)
    assert direct.parse(argv) is not None, argv
    started: list[Any] = []
    monkeypatch.setattr(tui, "launch", lambda config: started.append(config) or 7)
    codes = []
    for path in ("typer", "direct"):
        with pytest.raises(SystemExit) as info:
            if path == "direct":
                direct.answer(argv)
            else:
                from kubectl_gpu.cli.app import main

                main(argv)
        codes.append(info.value.code)
    assert codes == [7, 7]  # the app's return code is the exit code
    assert len(started) == 2
    assert started[0] == started[1]


@pytest.mark.parametrize("terminal", [True, False])
def test_kubectl_gpu_alone_is_the_tui_on_a_terminal_by_both_paths(
    terminal: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from kubectl_gpu.cli import tui

    started: list[Any] = []
    monkeypatch.setattr(tui, "stdio_is_terminal", lambda: terminal)
    monkeypatch.setattr(tui, "launch", lambda config: started.append(config) or 0)
    from kubectl_gpu.cli.app import main

    with pytest.raises(SystemExit) as by_typer:
        main([])
    help_text = capsys.readouterr().out
    if not terminal:  # off a terminal, typer prints the help: left to it
        assert direct.answer([]) is None
        assert (by_typer.value.code, started) == (0, [])
        assert "Usage" in help_text
        return
    with pytest.raises(SystemExit) as by_direct:
        direct.answer([])
    assert by_direct.value.code == by_typer.value.code == 0
    assert len(started) == 2
    assert started[0] == started[1]


def test_a_plain_tui_command_line_imports_no_typer() -> None:
    code, modules = _imported(["tui", "--snapshot", str(DEMO), "--refresh", "0.5s"])
    assert code == 2  # refused before the app starts: the refresh is read last
    assert "kubectl_gpu.tui.config" in modules  # its settings were read: `tui_config` ran
    assert not {m for m in modules if m.split(".")[0] in ("typer", "click", "textual")}


def test_the_tui_starts_without_typer() -> None:
    """Everything `kubectl gpu tui` runs before the app (the app itself replaced) imports no typer."""
    argv = ["kubectl-gpu", "tui", "--snapshot", str(DEMO), "--refresh", "10s", "--readonly", "--now", NOW]
    script = (
        "import atexit, sys\n"
        "atexit.register(lambda: print(sorted({m.split('.')[0] for m in sys.modules} & {'typer', 'click'})))\n"
        "from kubectl_gpu.cli import tui\n"
        "tui.launch = lambda config: print(config.readonly, config.refresh) or 0\n"
        f"sys.argv = {argv!r}\n"
        "from kubectl_gpu.__main__ import main\n"
        "main()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL
    )
    assert (done.returncode, done.stdout.split("\n")) == (0, ["True 10.0", "[]", ""]), done.stderr
