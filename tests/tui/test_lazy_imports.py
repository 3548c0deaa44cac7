"""The TUI's start-up imports only what its first screen (the Overview) needs (issue 18: the first screen at
most 1.2x `diagnose`): pages, the nvidia-smi page, the fleet overview, YAML highlighting and the
Kubernetes client are imported on first use. Checked in a fresh interpreter, so nothing another test
imported counts."""

from __future__ import annotations

import json
import subprocess
import sys

#: Imported on first use, never by `import kubectl_gpu.tui.app` (each was, before: ~0.3 s of CPU in all).
LAZY = (
    "kubernetes",  # the API client: live only (`kube.pod_logs` imports `kube.transport` when it reads)
    "urllib3",
    "pygments",  # rich.syntax: the first fix or YAML shown
    "rich.syntax",
    "kubectl_gpu.kube.transport",
    "kubectl_gpu.kube.fleet",
    "kubectl_gpu.kube.debug.shell",
    "kubectl_gpu.render.output",  # `y`: the object's YAML as `-o yaml` writes it
    "kubectl_gpu.render.smi_view",
    "kubectl_gpu.render.node_pods_view",
    "kubectl_gpu.tui.debug.smi_screen",
    "kubectl_gpu.tui.fleet.overview",
    "kubectl_gpu.tui.fleet.screen",
    "kubectl_gpu.tui.objects",
    "kubectl_gpu.tui.help",
    "kubectl_gpu.tui.screens.confirm",
    "kubectl_gpu.tui.screens.detail",
    "kubectl_gpu.tui.screens.explain",
    "kubectl_gpu.tui.screens.node_pods",
    "kubectl_gpu.tui.screens.pod",
)

PROBE = """
import importlib, json, sys
import kubectl_gpu.tui.app
loaded = [name for name in NAMES if name in sys.modules]
for name in NAMES:  # each name is real: importable, then loaded (a typo would make the check pass)
    importlib.import_module(name)
print(json.dumps({"loaded": loaded, "missing": [n for n in NAMES if n not in sys.modules]}))
"""


def test_start_up_imports_only_the_first_screens_modules() -> None:
    done = subprocess.run(
        [sys.executable, "-c", f"NAMES = {LAZY!r}\n{PROBE}"],
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["missing"] == []
    assert result["loaded"] == [], "imported at start-up; import them where they are first used"
