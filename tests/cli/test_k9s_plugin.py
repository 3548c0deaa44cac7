"""contrib/k9s/plugins.yaml: valid for k9s, and what k9s would run is what the CLI accepts.

The checks mirror k9s's own (derailed/k9s at 24cf4628, internal/config/json/schemas/plugins.json and
internal/config/plugin.go): a top-level `plugins` map; per plugin the required shortCut, description, scopes
and command and no unknown key; args strings. k9s substitutes $NAME, $NAMESPACE, $CONTEXT in the args as text
(internal/view/env.go, reimplemented below), then runs `command args...`; the test runs exactly that with a
recording `kubectl` on PATH, and then the recorded command through the real CLI."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from tests.conftest import Result
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.conftest import write_kubeconfig
from tests.kube.kubelet import gpu_node

ROOT = Path(__file__).resolve().parents[2]
PLUGINS = ROOT / "contrib" / "k9s" / "plugins.yaml"
DEMO = ROOT / "examples" / "automode-gpu-demo.json"
KEYS = {"shortCut", "override", "description", "confirm", "dangerous", "scopes", "command", "background",
        "overwriteOutput", "args", "inputs", "pipes"}  # fmt: skip
REQUIRED = {"shortCut", "description", "scopes", "command"}
# Keys the k9s views bind themselves (internal/view: ui.KeyShift*/tcell.KeyCtrl* in use at 24cf4628).
TAKEN = {"Shift-A", "Shift-C", "Shift-F", "Shift-J", "Shift-K", "Shift-L", "Shift-N", "Shift-O", "Shift-P",
         "Shift-R", "Shift-S", "Shift-U", "Shift-V", "Ctrl-A", "Ctrl-B", "Ctrl-C", "Ctrl-D", "Ctrl-E", "Ctrl-G",
         "Ctrl-K", "Ctrl-L", "Ctrl-R", "Ctrl-S", "Ctrl-W", "Ctrl-Z"}  # fmt: skip
ENV_RX = re.compile(r"(\$(!?)([\w\-]+))|(\$\{(!?)([\w\-%/: ]+)})")  # k9s internal/view/env.go envRX


def plugins() -> dict[str, dict[str, object]]:
    doc = yaml.safe_load(PLUGINS.read_text())
    assert set(doc) == {"plugins"}
    return doc["plugins"]  # type: ignore[no-any-return]


def k9s_substitute(arg: str, env: dict[str, str]) -> str:
    """k9s's Env.Substitute: longest match first, unknown keys left as they are."""
    matches = sorted(ENV_RX.finditer(arg), key=lambda m: len(m.group(0)), reverse=True)
    for m in matches:
        key = m.group(3) if m.group(1) else m.group(6)
        if key.upper() in env:
            arg = arg.replace(m.group(0), env[key.upper()])
    return arg


def test_the_file_passes_k9s_schema() -> None:
    found = plugins()
    assert set(found) == {"kubectl-gpu-smi", "kubectl-gpu-explain"}
    for name, plugin in found.items():
        assert REQUIRED <= set(plugin) <= KEYS, name
        assert isinstance(plugin["shortCut"], str) and plugin["shortCut"] not in TAKEN, name
        assert isinstance(plugin["scopes"], list) and all(isinstance(s, str) for s in plugin["scopes"])
        assert all(isinstance(a, str) for a in plugin["args"])  # type: ignore[attr-defined]
        assert plugin["command"] == "sh" and plugin["background"] is False  # output shown, in less
    assert found["kubectl-gpu-smi"]["scopes"] == ["nodes"] and found["kubectl-gpu-smi"]["dangerous"] is True
    # It creates a privileged pod: k9s asks before running it (`confirm`, a boolean in k9s' schema).
    assert found["kubectl-gpu-smi"]["confirm"] is True
    assert "confirm" not in found["kubectl-gpu-explain"]  # read-only: no question
    assert (
        found["kubectl-gpu-explain"]["scopes"] == ["pods"] and "dangerous" not in found["kubectl-gpu-explain"]
    )


def _run_as_k9s(plugin: str, env: dict[str, str], tmp_path: Path, *, pip_install: bool) -> list[str]:
    """Run the plugin as k9s would, with a `kubectl` that records its arguments and a `less` that is cat."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    record = tmp_path / "argv"
    (bin_dir / "kubectl").write_text(f'#!/bin/sh\nfor a in "$@"; do printf "%s\\n" "$a"; done > {record}\n')
    (bin_dir / "less").write_text("#!/bin/sh\ncat\n")
    if pip_install:
        (bin_dir / "kubectl-gpu").write_text("#!/bin/sh\n")
    else:
        (bin_dir / "kubectl-gpu").unlink(missing_ok=True)
    for f in bin_dir.iterdir():
        f.chmod(0o755)
    spec = plugins()[plugin]
    args = [k9s_substitute(a, env) for a in spec["args"]]  # type: ignore[attr-defined]
    subprocess.run([str(spec["command"]), *args], env={"PATH": f"{bin_dir}:/usr/bin:/bin"}, check=True)
    return record.read_text().splitlines()


K9S_ENV = {
    "NAME": "i-0aaa",
    "NAMESPACE": "ml",
    "CONTEXT": "arn:aws:eks:us-west-2:111122223333:cluster/demo-prod",
}


@pytest.mark.parametrize(("pip_install", "plugin_name"), [(True, "gpu"), (False, "gpu-doctor")])
def test_what_k9s_runs(tmp_path: Path, pip_install: bool, plugin_name: str) -> None:
    ctx = K9S_ENV["CONTEXT"]
    smi = _run_as_k9s("kubectl-gpu-smi", K9S_ENV, tmp_path, pip_install=pip_install)
    assert smi == [plugin_name, "smi", "i-0aaa", "--context", ctx]
    explain = _run_as_k9s(
        "kubectl-gpu-explain", {**K9S_ENV, "NAME": "batch-spot"}, tmp_path, pip_install=pip_install
    )
    assert explain == [plugin_name, "explain", "ml/batch-spot", "--context", ctx]


def test_the_cli_runs_what_k9s_runs(cli: Callable[..., Result], tmp_path: Path) -> None:
    explain = _run_as_k9s(
        "kubectl-gpu-explain", {**K9S_ENV, "NAME": "batch-spot"}, tmp_path, pip_install=True
    )
    result = cli(*explain[1:], "--snapshot", str(DEMO))  # the demo bundle is of that very context
    assert result.code == 1 and "Verdict: REQUIREMENT_CONFLICT" in result.out, result.err
    with FakeKubeAPI() as api:
        api.add(gpu_node("i-0aaa"))
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", api.url)
        smi = _run_as_k9s("kubectl-gpu-smi", {**K9S_ENV, "CONTEXT": "test"}, tmp_path, pip_install=True)
        dry = cli(*smi[1:], "--kubeconfig", str(kubeconfig), "--dry-run")
        assert dry.code == 0 and "nodeName: i-0aaa" in dry.out, dry.err
