"""`kubectl gpu nvme`: is each GPU node's local NVMe used for kubelet/containerd storage, and why not."""

from __future__ import annotations

from typing import Annotated

import typer

from kubectl_gpu.cli.common import emit_data, load_state, print_notes
from kubectl_gpu.cli.options import GlobalOptions, OutputFormat, with_global_options
from kubectl_gpu.core.errors import ExitCode

__all__ = ["register"]

_KINDS = ["nodes", "pods", "nodepools", "nodeclaims", "nodeclasses", "ec2nodeclasses", "resourceslices"]


def nvme(
    ctx: typer.Context,
    include_all: Annotated[bool, typer.Option("--all", help="Include CPU-only nodes.")] = False,
    *,
    opts: GlobalOptions,
) -> int:
    """Local NVMe per GPU node: instance store (catalog and instance-local-nvme label), the NodeClass's
    ephemeralStorage.size or instanceStorePolicy, the node's ephemeral-storage capacity, and the state
    (ACTIVE, DEGRADED, LIKELY_ACTIVE, NOT_USED, NO_NVME, UNKNOWN). Exit code 1 when a RAID is degraded."""
    from kubectl_gpu.core.analyses.nvme.analysis import build_nvme_report
    from kubectl_gpu.core.catalog import load_catalog

    loaded = load_state(opts, _KINDS, selector_on="nodes")
    report = build_nvme_report(loaded.state, load_catalog(), loaded.now, include_all=include_all)
    code = ExitCode.FINDINGS if report.has_errors else ExitCode.OK
    if emit_data(report.to_dict, opts.format, loaded.state.notes):
        return code
    from kubectl_gpu.render.nvme_view import nvme_view
    from kubectl_gpu.render.output import make_console, print_table

    print_notes(loaded.state.notes, no_color=opts.no_color)
    console = make_console(no_color=opts.no_color)
    if not report.rows:
        where = "" if include_all else " with accelerators (use --all to list every node)"
        console.print(f"No nodes{where}.", markup=False)
        return code
    print_table(console, nvme_view(report, wide=opts.format is OutputFormat.wide))
    return code


def register(app: typer.Typer) -> None:
    app.command("nvme")(with_global_options(nvme))
