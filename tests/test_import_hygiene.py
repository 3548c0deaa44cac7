"""Layering promises checked in a fresh interpreter: the core and `--help` stay light."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import pod

HEAVY = ("kubernetes", "textual")


def _loaded_after(code: str, env: dict[str, str] | None = None) -> set[str]:
    probe = f"import sys\n{code}\nprint(','.join(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env=env,
        stdin=subprocess.DEVNULL,
    )
    return set(done.stdout.strip().splitlines()[-1].split(","))


def test_core_imports_no_kubernetes_or_textual() -> None:
    modules = _loaded_after(
        "import kubectl_gpu.core, kubectl_gpu.core.k8s.parse, kubectl_gpu.core.accelerators.nodes, kubectl_gpu.core.catalog"
    )
    assert not {m for m in modules if m.split(".")[0] in HEAVY}


def test_help_imports_no_kubernetes_or_textual() -> None:
    code = (
        "import contextlib, io\n"
        "from kubectl_gpu.cli.app import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['--help'])\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main(['nodes', '--help'])\n"
    )
    modules = _loaded_after(code)
    assert "kubectl_gpu.cli.app" in modules
    assert not {m for m in modules if m.split(".")[0] in HEAVY}


def test_console_script_help_exits_zero() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", "--help"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert "nodes" in result.stdout


# What `--help` must not import (issue 13: help and completion pay only for typer and the option
# definitions): the analyses and the models they read, the renderers, the TUI, the Kubernetes client.
HELP_MUST_NOT_LOAD = (
    "kubectl_gpu.core.analyses",
    "kubectl_gpu.core.k8s.state",
    "kubectl_gpu.core.k8s.models",
    "kubectl_gpu.core.probe",
    "kubectl_gpu.core.catalog",
    "kubectl_gpu.core.debugpod.spec",
    "kubectl_gpu.cli.run",
    "kubectl_gpu.cli.fleet",
    "kubectl_gpu.cli.capture",
    "kubectl_gpu.render",
    "kubectl_gpu.tui",
    "kubectl_gpu.kube.live",
    "kubectl_gpu.kube.source",
    "kubernetes",
    "textual",
    "yaml",
)


def _loaded_by_entry_point(argv: list[str], **env: str) -> set[str]:
    """The modules the console script's `main` has loaded once it exits for `argv` (stdout discarded), with
    no variable of the machine's that rich reads for width and colour, plus `env`."""
    code = (
        "import atexit, contextlib, io, sys\n"
        "atexit.register(lambda: None)\n"  # so that __main__._exit_now exits normally and this probe prints
        f"sys.argv = ['kubectl-gpu', *{argv!r}]\n"
        "from kubectl_gpu.__main__ import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        "    main()"
    )
    rich_env = ("COLUMNS", "TERMINAL_WIDTH", "TYPER_USE_RICH", "NO_COLOR", "FORCE_COLOR", "GITHUB_ACTIONS")
    return _loaded_after(code, {**{k: v for k, v in os.environ.items() if k not in rich_env}, **env})


def _heavy(modules: set[str]) -> set[str]:
    return {m for m in modules if any(m == h or m.startswith(h + ".") for h in HELP_MUST_NOT_LOAD)}


HELP_ARGVS = (["--help"], ["nodes", "--help"], ["smi", "--help"], ["pending", "-h"], ["tui", "--help"])


def test_help_of_every_command_imports_no_typer_no_rich() -> None:
    """The pre-rendered help (cli.help_fast): not even typer, rich or click, nor the app."""
    for argv in HELP_ARGVS:
        modules = _loaded_by_entry_point(argv)
        assert "kubectl_gpu.cli.help_fast" in modules, argv
        assert not {m for m in modules if m.split(".")[0] in ("typer", "rich", "click", "pydantic")}, argv
        assert "kubectl_gpu.cli.app" not in modules and not _heavy(modules), argv


def test_help_typer_renders_imports_only_the_options() -> None:
    """Where typer renders the help itself (any argv with --help but the four pre-rendered shapes): typer
    and the option definitions, nothing else."""
    for argv in (["nodes", "--all", "--help"], ["smi", "--raw", "--help"], ["-n", "ml", "--help"]):
        modules = _loaded_by_entry_point(argv, COLUMNS="60")
        assert "kubectl_gpu.cli.app" in modules, argv
        assert not _heavy(modules), (argv, sorted(_heavy(modules)))
    modules = _loaded_by_entry_point(["--debug", "nodes", "--help"])
    assert "kubectl_gpu.cli.app" in modules and not _heavy(modules), sorted(_heavy(modules))


def test_version_imports_no_typer() -> None:
    modules = _loaded_by_entry_point(["--version"])
    assert not {m for m in modules if m.split(".")[0] in ("typer", "rich", "kubernetes")}
    out = subprocess.run(
        [sys.executable, "-m", "kubectl_gpu", "--version"], capture_output=True, text=True, check=True
    ).stdout
    assert out.startswith("kubectl-gpu ")


def test_debugpod_names_load_lazily_and_all_resolve() -> None:
    modules = _loaded_after("from kubectl_gpu.core.debugpod import Strategy")
    assert "kubectl_gpu.core.debugpod.spec" not in modules and "kubectl_gpu.core.probe" not in modules
    import kubectl_gpu.core.debugpod as debugpod

    assert all(getattr(debugpod, name) is not None for name in debugpod.__all__)


def test_a_json_snapshot_without_probes_loads_no_probe_parser_and_no_yaml(tmp_path: Path) -> None:
    """Issue 22: the probe parsers (~80 ms) and PyYAML (~15 ms) are imported where a snapshot needs them."""
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod("p")]}))
    code = (
        "from kubectl_gpu.kube.snapshot import load_snapshot\n"
        f"state = load_snapshot([{str(listing)!r}])\n"
        "assert len(state.pods) == 1 and state.probe('i-0') is None\n"
    )
    modules = _loaded_after(code)
    assert "kubectl_gpu.kube.snapshot" in modules
    assert not {m for m in modules if m.startswith("kubectl_gpu.core.probe") or m.split(".")[0] == "yaml"}
    yaml_file = tmp_path / "list.yaml"
    yaml_file.write_text("apiVersion: v1\nkind: List\nitems: []\n")
    assert "yaml" in _loaded_after(f"{code.splitlines()[0]}\nload_snapshot([{str(yaml_file)!r}])")


def test_analyses_import_no_probe_parsers() -> None:
    """`diagnose` reads `ProbeResult` and friends, not the parsers (`core.probe` loads a name on first
    use): a snapshot without probes never imports them; one with probes imports them to read them."""
    modules = _loaded_after("import kubectl_gpu.core.analyses.diagnose")
    parsers = {
        f"kubectl_gpu.core.probe.{name}"
        for name in ("collector", "lsblk", "mdstat", "neuron", "nvidia_csv", "nvidia_xml", "saved")
    }
    assert "kubectl_gpu.core.probe.models" in modules
    assert not parsers & modules
    after = _loaded_after("from kubectl_gpu.core.probe import parse_saved_output, ProbeResult")
    assert {"kubectl_gpu.core.probe.saved", "kubectl_gpu.core.probe.collector"} <= after


def test_jsonpath_and_yaml_are_imported_only_by_the_output_that_needs_them() -> None:
    """python-jsonpath costs ~70 ms to import and PyYAML ~20 ms (issue 22, start-up): `-o json` of a JSON
    bundle does without either, and without our JSONPath reader and the view model (~8 ms, issue 38)."""
    demo = str(Path(__file__).resolve().parent.parent / "examples" / "automode-gpu-demo.json")
    plain = _loaded_by_entry_point(["nodes", "--snapshot", demo, "-o", "json"])
    assert "kubectl_gpu.render.printers" in plain and "kubectl_gpu.render.documents" in plain
    assert "jsonpath" not in plain and "yaml" not in plain
    assert not {"kubectl_gpu.render.jsonpath", "kubectl_gpu.render.model"} & plain
    assert "jsonpath" in _loaded_by_entry_point(["nodes", "--snapshot", demo, "-o", "jsonpath={.apiVersion}"])
    assert "yaml" in _loaded_by_entry_point(["nodes", "--snapshot", demo, "-o", "yaml"])


READ_ONLY_JSON = (
    ["nodes"],
    ["pending", "-A"],
    ["explain", "ml/batch-spot"],
    ["drivers"],
    ["nvme"],
    ["lifecycle"],
    ["lint"],
    ["cost"],
    ["diagnose"],
    ["inventory"],
    ["usage"],
)


@pytest.mark.parametrize("argv", READ_ONLY_JSON, ids=lambda argv: argv[0])
def test_a_json_answer_imports_no_console_and_a_table_draws_its_view(argv: list[str]) -> None:
    """rich is ~25 ms of a command's start-up (issue 22): `-o json` writes through render/documents.py and
    imports neither rich nor the command's view, which a table still draws."""
    demo = str(Path(__file__).resolve().parent.parent / "examples" / "automode-gpu-demo.json")
    plain = _loaded_by_entry_point([*argv, "--snapshot", demo, "-o", "json"])
    assert "kubectl_gpu.render.documents" in plain
    assert not {m for m in plain if m.split(".")[0] == "rich" or m.endswith(("_view", "nodes_table"))}
    # Every option's default is read without pydantic (cli/coercion.py: ~15 ms of its plugin loader alone).
    # The package's data files are read through its loader (core/data_files.py): importlib.resources' readers
    # import zipfile, tempfile and shutil, ~6 ms of start-up; only where the demo's disruption budget schedule
    # is read (croniter: dateutil's time zones import them) or DCGM metrics are (prometheus_client's package
    # imports http.server) may they be loaded.
    assert "pydantic" not in {m.split(".")[0] for m in plain}, argv
    if not {"croniter", "prometheus_client"} & plain:
        assert not {"importlib.resources", "zipfile", "tempfile"} & plain, argv
    table = _loaded_by_entry_point([*argv, "--snapshot", demo])
    assert "rich.table" in table and {m for m in table if m.endswith(("_view", "nodes_table"))}
