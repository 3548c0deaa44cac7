"""`cli.fleet.dispatch` for `with_global_options(..., fleet=dispatch)`, imported when a command runs: the
fleet machinery imports the pipeline (`cli.run`) and the models, which `--help` must not pay for."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kubectl_gpu.cli.fleet import Call
    from kubectl_gpu.cli.options import GlobalOptions

__all__ = ["dispatch"]


def dispatch(call: Call, opts: GlobalOptions, command: str) -> int:
    """See `cli.fleet.dispatch`."""
    from kubectl_gpu.cli.fleet import dispatch as run

    return run(call, opts, command)
