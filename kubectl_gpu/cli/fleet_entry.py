"""`cli.fleet.dispatch` for `with_global_options(..., fleet=fleet_face(COMMAND))`, imported when a command
runs: the fleet machinery imports the pipeline (`cli.run`) and the models, which `--help` must not pay for.
Which commands have a fleet face is their page's to say (`Page.fleet`, kubectl_gpu/pages)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kubectl_gpu.cli.fleet import Call
    from kubectl_gpu.cli.global_options import GlobalOptions
    from kubectl_gpu.cli.options import Dispatch

__all__ = ["dispatch", "fleet_face"]


def dispatch(call: Call, opts: GlobalOptions, command: str) -> int:
    """See `cli.fleet.dispatch`."""
    from kubectl_gpu.cli.fleet import dispatch as run

    return run(call, opts, command)


def fleet_face(command: str) -> Dispatch | None:
    """`dispatch` for a command whose page runs once per cluster under --contexts (`Page.fleet`), else None:
    the command works on one cluster and refuses those options."""
    from kubectl_gpu.pages import by_command

    return dispatch if by_command(command).fleet else None
