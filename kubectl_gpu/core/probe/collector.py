"""The collector script's output: split into sections, parse each, and combine into one :class:`ProbeResult`.

Marker lines (``<ID>`` is random per run; see ``kubectl_gpu/data/collector.sh``)::

    ===KUBECTL-GPU:COLLECTOR v1 id=<ID>===
    ===KUBECTL-GPU:BEGIN <section> rc=<exit code> id=<ID>===
    ...stdout...
    ===KUBECTL-GPU:STDERR <section> id=<ID>===
    ...stderr...
    ===KUBECTL-GPU:END <section> id=<ID>===
    ===KUBECTL-GPU:DONE id=<ID>===

The script writes one newline after stdout and after stderr so that every marker starts a line; that newline is
removed again, so a section body is the command's output byte for byte.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import msgspec

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .cgroups import parse_pid_cgroups
from .errors import ProbeParseError, snippet
from .lsblk import parse_findmnt_json, parse_lsblk_json
from .mdstat import parse_mdstat
from .models import (
    Gpu,
    ListedGpu,
    MigDevice,
    NvidiaKernelDriver,
    NvidiaSmiReport,
    OsRelease,
    ProbeIssue,
    ProbeResult,
    Section,
)
from .neuron import parse_neuron_ls_json
from .nvidia_csv import parse_query_gpu_csv
from .nvidia_errors import nvidia_smi_error
from .nvidia_list import parse_nvidia_smi_list
from .nvidia_topo import parse_nvidia_smi_topo
from .nvidia_xml import parse_nvidia_smi_xml

__all__ = [
    "COLLECTOR_VERSION",
    "MAY_BE_EMPTY",
    "OPTIONAL_SECTIONS",
    "SECTION_NAMES",
    "parse_collector_output",
    "parse_kernel_release",
    "parse_nvidia_driver_version",
    "parse_os_release",
    "split_sections",
]

COLLECTOR_VERSION = "v1"

#: The sections collector.sh emits, in order.
SECTION_NAMES: tuple[str, ...] = (
    "nvidia-smi-xml",
    "nvidia-smi-csv",
    "nvidia-smi-list",
    "nvidia-smi-topo",
    "pid-cgroups",
    "driver-version",
    "lsblk",
    "mdstat",
    "findmnt",
    "uname",
    "os-release",
    "neuron-ls",
)

#: Sections the script emits only when their tool exists.
OPTIONAL_SECTIONS = frozenset({"neuron-ls"})

#: Sections whose empty output is an answer (no GPU process), not a problem.
MAY_BE_EMPTY = frozenset({"pid-cgroups"})

_MARKER_RE = lazy_pattern(
    r"^===KUBECTL-GPU:(COLLECTOR|BEGIN|STDERR|END|DONE)((?: [^\s=]+(?:=[^\s=]*)?)*)===$"
)
_NAME_RE = lazy_pattern(r"^[a-z0-9][a-z0-9._-]*$")
_RC_RE = lazy_pattern(r"[0-9]{1,9}")


class _Marker:
    __slots__ = ("attrs", "id", "kind", "name")

    def __init__(self, kind: str, tokens: list[str]) -> None:
        self.kind = kind
        self.name: str | None = None
        self.attrs: dict[str, str] = {}
        for token in tokens:
            key, eq, value = token.partition("=")
            if eq:
                self.attrs[key] = value
            elif self.name is None:
                self.name = token
        self.id = self.attrs.get("id")


def _marker(line: str) -> _Marker | None:
    match = _MARKER_RE.match(line.rstrip("\r"))
    if match is None:
        return None
    return _Marker(match.group(1), match.group(2).split())


def _strip_one_newline(text: str) -> str:
    if text.endswith("\r\n"):
        return text[:-2]
    if text.endswith("\n"):
        return text[:-1]
    return text


class _Open:
    def __init__(self, name: str, rc: int | None) -> None:
        self.name = name
        self.rc = rc
        self.out: list[str] = []
        self.err: list[str] = []
        self.in_err = False

    def add(self, line: str) -> None:
        (self.err if self.in_err else self.out).append(line)

    def close(self, truncated: bool) -> Section:
        body = "".join(self.out)
        err = "".join(self.err)
        if not truncated:
            body = _strip_one_newline(body)
            err = _strip_one_newline(err)
        return Section(self.name, self.rc, body, err, truncated)


def _header(text: str) -> _Marker | None:
    """The ``COLLECTOR`` line, if it is the first marker line of the output."""
    for line in text.split("\n"):
        marker = _marker(line)
        if marker is not None:
            return marker if marker.kind == "COLLECTOR" else None
    return None


def _split(text: str) -> tuple[dict[str, Section], _Marker | None, bool]:
    header = _header(text)
    run_id = None if header is None else header.id
    sections: dict[str, Section] = {}
    current: _Open | None = None
    done = False

    def finish(section: Section) -> None:
        sections.setdefault(section.name, section)

    for line in _lines(text):
        marker = _marker(line.rstrip("\n"))
        if marker is not None and run_id is not None and marker.id != run_id:
            marker = None
        if marker is None or marker.kind == "COLLECTOR":
            if current is not None and marker is None:
                current.add(line)
            continue
        if marker.kind == "BEGIN":
            if current is not None:
                finish(current.close(truncated=True))
                current = None
            if marker.name is None or not _NAME_RE.match(marker.name):
                continue
            rc_text = marker.attrs.get("rc", "")
            current = _Open(marker.name, int(rc_text) if _RC_RE.fullmatch(rc_text) else None)
        elif marker.kind == "STDERR":
            if current is not None and marker.name == current.name and not current.in_err:
                current.in_err = True
        elif marker.kind == "END":
            if current is not None and marker.name == current.name:
                finish(current.close(truncated=False))
                current = None
        elif marker.kind == "DONE":
            if current is not None:
                finish(current.close(truncated=True))
                current = None
            done = True
    if current is not None:
        finish(current.close(truncated=True))
    return sections, header, done


def _lines(text: str) -> list[str]:
    parts = text.split("\n")
    out = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


def split_sections(text: str | bytes) -> dict[str, Section]:
    """Split collector output into sections by name, in output order.

    Tolerant: text outside sections is ignored; a ``BEGIN`` without its ``END`` (cut-off output, or another
    ``BEGIN`` first) gives a section flagged ``truncated``; a garbled marker line is treated as output; markers
    carrying another run's ``id`` are ignored; when a name repeats, the first section wins.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    return _split(text)[0]


# --------------------------------------------------------------------------------------------------------------
# Small formats of the collector
# --------------------------------------------------------------------------------------------------------------

_NVRM_RE = lazy_pattern(
    r"NVRM version:\s+NVIDIA UNIX\s+(?:(?!Open\b)(?P<arch1>[\w-]+)\s+)?(?P<open>Open\s+)?Kernel Module"
    r"(?:\s+for\s+(?P<arch2>[\w-]+))?\s+(?P<version>\d+(?:\.\d+)+)\b"
)
_GCC_RE = lazy_pattern(r"^GCC version:\s*(?:gcc version\s+)?(\S+)", re.MULTILINE)


def parse_nvidia_driver_version(text: str | bytes) -> NvidiaKernelDriver:
    """Parse ``/proc/driver/nvidia/version``: the driver version from the ``NVRM version:`` line."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    match = _NVRM_RE.search(text)
    if match is None:
        raise ProbeParseError("nvidia driver version", f"no 'NVRM version' line in {snippet(text)}")
    gcc = _GCC_RE.search(text)
    return NvidiaKernelDriver(
        version=match.group("version"),
        open_kernel_module=match.group("open") is not None,
        arch=match.group("arch2") or match.group("arch1"),
        gcc_version=gcc.group(1) if gcc else None,
    )


_RELEASE_RE = lazy_pattern(r"^[0-9][^\s]{0,200}$")


def parse_kernel_release(text: str | bytes) -> str:
    """``uname -r`` output: one token starting with a digit (``6.1.119-129.201.amzn2023.x86_64``)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    release = text.strip()
    if not _RELEASE_RE.match(release):
        raise ProbeParseError("uname -r", f"not a kernel release: {snippet(release)}")
    return release


_OS_LINE_RE = lazy_pattern(r"^([A-Za-z_][A-Za-z0-9_]*)=(.*)$")


def parse_os_release(text: str | bytes) -> OsRelease:
    """Parse ``/etc/os-release`` (``KEY=value`` lines, values optionally quoted; comments skipped)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    fields: list[tuple[str, str]] = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        match = _OS_LINE_RE.match(line)
        if match is None:
            raise ProbeParseError("os-release", f"not a KEY=value line: {snippet(line)}")
        value = match.group(2).strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        value = re.sub(r"\\([\\$\"'`])", r"\1", value)
        fields.append((match.group(1), value))
    if not fields:
        raise ProbeParseError("os-release", "no KEY=value lines")
    return OsRelease(fields=tuple(fields))


# --------------------------------------------------------------------------------------------------------------
# Combining the sections
# --------------------------------------------------------------------------------------------------------------

T = TypeVar("T")


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


class _Run:
    def __init__(self, sections: dict[str, Section]) -> None:
        self.sections = sections
        self.issues: list[ProbeIssue] = []

    def parse(self, name: str, parser: Callable[[str], T]) -> T | None:
        section = self.sections.get(name)
        if section is None:
            return None
        if not section.body.strip():
            if section.rc == 0 and name not in MAY_BE_EMPTY:
                self.issues.append(ProbeIssue(name, "empty", "the command printed nothing"))
            return None
        try:
            return parser(section.body)
        except ProbeParseError as exc:
            self.issues.append(ProbeIssue(name, "parse", str(exc)))
            return None


def _fill(primary: Gpu, secondary: Gpu) -> Gpu:
    """``primary`` with its ``None`` scalar fields taken from ``secondary``."""
    changes: dict[str, object] = {}
    for name in Gpu.__struct_fields__:
        if getattr(primary, name) is None and getattr(secondary, name) is not None:
            changes[name] = getattr(secondary, name)
    return msgspec.structs.replace(primary, **changes) if changes else primary


def _merge_csv(xml_gpus: tuple[Gpu, ...], csv_gpus: tuple[Gpu, ...]) -> tuple[Gpu, ...]:
    by_uuid = {g.uuid: g for g in csv_gpus if g.uuid}
    by_index = {g.index: g for g in csv_gpus}
    out: list[Gpu] = []
    for gpu in xml_gpus:
        match = by_uuid.get(gpu.uuid) if gpu.uuid else None
        if match is None and gpu.uuid is None:
            match = by_index.get(gpu.index)
        out.append(gpu if match is None else _fill(gpu, match))
    return tuple(out)


def _listed_migs(entry: ListedGpu) -> tuple[MigDevice, ...]:
    return tuple(
        MigDevice(
            index=m.index,
            gpu_instance_id=m.gpu_instance_id,
            compute_instance_id=m.compute_instance_id,
            profile_name=m.profile,
            uuid=m.uuid,
        )
        for m in entry.mig_devices
    )


def _merge_list(gpus: tuple[Gpu, ...], listed: tuple[ListedGpu, ...]) -> tuple[Gpu, ...]:
    """Add MIG profile names and UUIDs from ``nvidia-smi -L`` (matched by GPU UUID or index, then MIG index);
    a GPU without MIG devices of its own (CSV has none) gets the listed ones."""
    by_uuid = {g.uuid: g for g in listed if g.uuid}
    by_index = {g.index: g for g in listed}
    out: list[Gpu] = []
    for gpu in gpus:
        entry = by_uuid.get(gpu.uuid) if gpu.uuid else None
        if entry is None:
            # By index only when the UUIDs cannot disagree.
            candidate = by_index.get(gpu.index)
            if candidate is not None and (gpu.uuid is None or candidate.uuid is None):
                entry = candidate
        if entry is None:
            out.append(gpu)
            continue
        if not entry.mig_devices:  # `-L` lists every MIG device under its GPU: none listed is none
            out.append(msgspec.structs.replace(gpu, mig_devices_known=True))
            continue
        if not gpu.mig_devices:
            out.append(msgspec.structs.replace(gpu, mig_devices=_listed_migs(entry), mig_devices_known=True))
            continue
        migs = {m.index: m for m in entry.mig_devices}
        merged: list[MigDevice] = []
        for mig in gpu.mig_devices:
            line = migs.get(mig.index) if mig.index is not None else None
            if line is None:
                merged.append(mig)
                continue
            merged.append(
                msgspec.structs.replace(
                    mig,
                    profile_name=mig.profile_name or line.profile,
                    uuid=mig.uuid or line.uuid,
                )
            )
        out.append(msgspec.structs.replace(gpu, mig_devices=tuple(merged), mig_devices_known=True))
    return tuple(out)


def _from_list(listed: tuple[ListedGpu, ...]) -> tuple[Gpu, ...]:
    return tuple(
        Gpu(index=g.index, name=g.name, uuid=g.uuid, mig_devices=_listed_migs(g), processes_known=False)
        for g in listed
    )


def _section_issues(section: Section) -> list[ProbeIssue]:
    """A section cut short or failed; a failure quotes nvidia-smi's own error text whole (a version
    mismatch's second line names the version to install), else the first line it printed."""
    issues = []
    if section.truncated:
        issues.append(ProbeIssue(section.name, "truncated", "section has no END marker"))
    if section.rc is None and not section.truncated:
        issues.append(ProbeIssue(section.name, "failed", "exit code missing or garbled"))
    elif section.rc is not None and section.rc != 0:
        detail = (
            nvidia_smi_error(section.stderr or "")
            or nvidia_smi_error(section.body)
            or _first_line(section.stderr)
            or _first_line(section.body)
            or "no message"
        )
        issues.append(ProbeIssue(section.name, "failed", f"exit code {section.rc}: {detail}"))
    return issues


def parse_collector_output(text: str | bytes) -> ProbeResult:
    """Parse the whole output of ``collector.sh``. Never raises on bad sections: each problem becomes a
    :class:`ProbeIssue` (missing / truncated / failed / empty / parse) and the rest is still parsed.

    GPU facts come from the XML section, completed from the CSV section (matched by UUID); without XML, from
    CSV; without either, from ``nvidia-smi -L``. MIG profile names and UUIDs come from ``-L``. ``pid_pods``
    (GPU process PID -> pod UID) comes from ``pid-cgroups``.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    sections, header, done = _split(text)
    run = _Run(sections)
    if header is None:
        run.issues.append(ProbeIssue("collector", "missing", "no ===KUBECTL-GPU:COLLECTOR=== line"))
    elif not done:
        run.issues.append(ProbeIssue("collector", "truncated", "no ===KUBECTL-GPU:DONE=== line"))
    for name in SECTION_NAMES:
        if name not in sections and name not in OPTIONAL_SECTIONS:
            run.issues.append(ProbeIssue(name, "missing", "section not in the output"))
    for section in sections.values():
        run.issues.extend(_section_issues(section))

    xml = run.parse("nvidia-smi-xml", parse_nvidia_smi_xml)
    if xml is not None and xml.recovered:
        run.issues.append(ProbeIssue("nvidia-smi-xml", "recovered", xml.recovered))
    csv = run.parse("nvidia-smi-csv", parse_query_gpu_csv)
    listed = run.parse("nvidia-smi-list", parse_nvidia_smi_list)
    kernel = run.parse("driver-version", parse_nvidia_driver_version)

    report: NvidiaSmiReport | None = xml or csv
    gpus: tuple[Gpu, ...] = ()
    source: str | None = None
    if xml is not None:
        gpus, source = xml.gpus, "nvidia-smi-xml"
        if csv is not None:
            gpus = _merge_csv(gpus, csv.gpus)
    elif csv is not None:
        gpus, source = csv.gpus, "nvidia-smi-csv"
    elif listed is not None:
        gpus, source = _from_list(listed), "nvidia-smi-list"
    if listed is not None and source != "nvidia-smi-list":
        gpus = _merge_list(gpus, listed)
    pid_pods = run.parse("pid-cgroups", parse_pid_cgroups)

    driver = None
    for candidate in (xml, csv):
        if candidate is not None and candidate.driver_version:
            driver = candidate.driver_version
            break
    if driver is None and kernel is not None:
        driver = kernel.version

    return ProbeResult(
        driver_version=driver,
        cuda_version=None if report is None else report.cuda_version,
        gpus=gpus,
        attached_gpus=None if report is None else report.attached_gpus,
        gpu_source=source,
        collector_version=None if header is None else header.name,
        complete=done,
        gpu_list=listed or (),
        topology=run.parse("nvidia-smi-topo", parse_nvidia_smi_topo),
        kernel_driver=kernel,
        block_devices=run.parse("lsblk", parse_lsblk_json),
        mdstat=run.parse("mdstat", parse_mdstat),
        mounts=run.parse("findmnt", parse_findmnt_json),
        kernel_release=run.parse("uname", parse_kernel_release),
        os_release=run.parse("os-release", parse_os_release),
        neuron=run.parse("neuron-ls", parse_neuron_ls_json),
        pid_pods=pid_pods or {},
        sections=tuple(sections.values()),
        issues=tuple(run.issues),
    )
