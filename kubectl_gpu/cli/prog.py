"""The program name usage lines and errors say: `kubectl gpu` when kubectl ran this plugin, else `kubectl-gpu`.

kubectl (v1.12 to v1.32 at least) runs a plugin by exec'ing it with its own environment, unchanged, and tells
it nothing (kubectl-style plugins before v1.12 got KUBECTL_PLUGINS_CALLER; that went with the old mechanism).
kubectl builds merged after kubernetes/kubernetes#138694 (April 2026) set KUBECTL_PATH to their own path. For
the others, the shell's `_` variable: bash, zsh and ksh set it to the path of the program they run, so under
`kubectl gpu ...` typed at a shell it names kubectl, under `kubectl-gpu ...` this executable (checked with
kubectl v1.32: the only difference between the two environments). A caller that is not such a shell
(a script's subprocess) leaves `_` stale or unset: then the name is `kubectl-gpu`, which also runs.

This module imports only the standard library's os and sys.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

__all__ = ["PLUGIN", "STANDALONE", "program_name", "via_kubectl"]

PLUGIN = "kubectl gpu"
STANDALONE = "kubectl-gpu"


def via_kubectl(environ: Mapping[str, str] | None = None) -> bool:
    """Whether kubectl ran this process (KUBECTL_PATH, or the shell's `_` naming a kubectl)."""
    env = os.environ if environ is None else environ
    if env.get("KUBECTL_PATH"):
        return True
    ran = os.path.basename(env.get("_", ""))
    return ran in ("kubectl", "kubectl.exe")


def program_name(environ: Mapping[str, str] | None = None, argv0: str | None = None) -> str:
    """`kubectl gpu` / `kubectl-gpu`; under another executable name kubectl maps to a plugin (krew links
    `kubectl-gpu_doctor`, run as `kubectl gpu-doctor`: kubectl turns `-` in a command into `_` in the
    file name), that name."""
    base = os.path.basename(sys.argv[0] if argv0 is None else argv0)
    executable = base if base.startswith("kubectl-") and " " not in base else STANDALONE
    if not via_kubectl(environ):
        return executable
    return "kubectl " + executable.removeprefix("kubectl-").replace("_", "-")
