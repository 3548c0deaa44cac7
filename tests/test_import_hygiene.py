"""Layering promises checked in a fresh interpreter: the core and `--help` stay light."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("kubernetes", "textual")


def _loaded_after(code: str) -> set[str]:
    probe = f"import sys\n{code}\nprint(','.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    return set(out.strip().splitlines()[-1].split(","))


def test_core_imports_no_kubernetes_or_textual() -> None:
    modules = _loaded_after(
        "import kubectl_gpu.core, kubectl_gpu.core.k8s.parse, kubectl_gpu.core.fleet.nodes, kubectl_gpu.core.catalog"
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
