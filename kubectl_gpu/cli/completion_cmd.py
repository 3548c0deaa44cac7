"""`kubectl gpu completion bash|zsh|fish`: a completion script for the executable on its own.

`kubectl gpu <TAB>` needs none: kubectl runs the `kubectl_complete-gpu` executable (installed with the
package; docs/commands/completion.md says how krew installs get it)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from kubectl_gpu.cli.completion import SHELLS, program_name, script
from kubectl_gpu.core.errors import InvalidInput

__all__ = ["register"]


def completion(
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish.", show_default=False)],
) -> None:
    """Print a shell completion script for this executable, e.g. `source <(kubectl-gpu completion bash)`.
    It completes subcommands, flags and their values, and node, pod, namespace and context names."""
    if shell not in SHELLS:
        raise InvalidInput(f"completion: unknown shell {shell!r}", "choose bash, zsh or fish")
    sys.stdout.write(script(shell, program_name(sys.argv[0])))


def register(app: typer.Typer) -> None:
    app.command("completion")(completion)
