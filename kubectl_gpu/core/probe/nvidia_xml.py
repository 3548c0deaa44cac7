"""``nvidia-smi -q -x`` (DTD ``nvsmi_device_v10`` … ``v13``, and the older files without a DOCTYPE)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .errors import ProbeParseError, snippet
from .models import (
    EccInfo,
    Gpu,
    GpuProcess,
    MigDevice,
    NvidiaSmiReport,
    RemappedRows,
    RetiredPages,
)
from .models.values import clean, error_value, integer, number, yes_no

__all__ = ["parse_nvidia_smi_xml"]

FORMAT = "nvidia-smi XML"

_ENTITY_RE = lazy_pattern(r"<!ENTITY", re.IGNORECASE)
_DEPRECATION_SUFFIX_RE = lazy_pattern(r"\s*\[[^\]]*\]\s*$")


def _to_text(data: str | bytes) -> str:
    if isinstance(data, bytes):
        data = data.decode("utf-8", errors="replace")
    return data.lstrip("\ufeff")


def _text(el: ET.Element | None, path: str) -> str | None:
    """The cleaned text at ``path`` below ``el`` (``None`` if absent or not applicable)."""
    if el is None:
        return None
    found = el.find(path)
    if found is None or found.text is None:
        return None
    return clean(found.text)


def _int(el: ET.Element | None, path: str) -> int | None:
    if el is None:
        return None
    found = el.find(path)
    return None if found is None else integer(found.text)


def _float(el: ET.Element | None, path: str) -> float | None:
    if el is None:
        return None
    found = el.find(path)
    return None if found is None else number(found.text)


def _first_float(el: ET.Element | None, *paths: str) -> float | None:
    for path in paths:
        value = _float(el, path)
        if value is not None:
            return value
    return None


def _sum(values: list[int | None]) -> int | None:
    present = [v for v in values if v is not None]
    return sum(present) if present else None


def _child(el: ET.Element, *tags: str) -> ET.Element | None:
    for tag in tags:
        found = el.find(tag)
        if found is not None:
            return found
    return None


def _version(root: ET.Element, preferred: str, legacy: str) -> str | None:
    """A version, preferring the new tag (``kmd_version``) and dropping ``[Deprecated …]`` suffixes."""
    for tag in (preferred, legacy):
        value = _text(root, tag)
        if value is None:
            continue
        value = _DEPRECATION_SUFFIX_RE.sub("", value).strip()
        if value and not value.lower().startswith("deprecated"):
            return value
    return None


def _ecc_counts(block: ET.Element | None) -> tuple[int | None, int | None]:
    """(correctable, uncorrectable) totals of a ``volatile`` / ``aggregate`` ECC block."""
    if block is None:
        return None, None
    if block.find("single_bit") is not None or block.find("double_bit") is not None:
        return _int(block, "single_bit/total"), _int(block, "double_bit/total")
    correctable = _sum([_int(block, "sram_correctable"), _int(block, "dram_correctable")])
    uncorrectable = _sum(
        [
            _int(block, "sram_uncorrectable"),
            _int(block, "sram_uncorrectable_parity"),
            _int(block, "sram_uncorrectable_secded"),
            _int(block, "dram_uncorrectable"),
        ]
    )
    return correctable, uncorrectable


def _ecc(gpu: ET.Element) -> EccInfo | None:
    mode = gpu.find("ecc_mode")
    errors = gpu.find("ecc_errors")
    if mode is None and errors is None:
        return None
    vol_c, vol_u = _ecc_counts(None if errors is None else errors.find("volatile"))
    agg_c, agg_u = _ecc_counts(None if errors is None else errors.find("aggregate"))
    return EccInfo(
        mode_current=_text(mode, "current_ecc"),
        mode_pending=_text(mode, "pending_ecc"),
        volatile_correctable=vol_c,
        volatile_uncorrectable=vol_u,
        aggregate_correctable=agg_c,
        aggregate_uncorrectable=agg_u,
    )


def _retired(gpu: ET.Element) -> RetiredPages | None:
    el = gpu.find("retired_pages")
    if el is None:
        return None
    pending_text = _text(el, "pending_retirement")
    if pending_text is None:
        pending_text = _text(el, "pending_blacklist")
    result = RetiredPages(
        single_bit_count=_int(el, "multiple_single_bit_retirement/retired_count"),
        double_bit_count=_int(el, "double_bit_retirement/retired_count"),
        pending=yes_no(pending_text),
    )
    if result == RetiredPages(None, None, None):
        return None
    return result


def _remapped(gpu: ET.Element) -> RemappedRows | None:
    el = gpu.find("remapped_rows")
    if el is None or len(el) == 0:
        return None
    result = RemappedRows(
        correctable=_int(el, "remapped_row_corr"),
        uncorrectable=_int(el, "remapped_row_unc"),
        pending=yes_no(_text(el, "remapped_row_pending")),
        failure=yes_no(_text(el, "remapped_row_failure")),
    )
    if result == RemappedRows(None, None, None, None):
        return None
    return result


def _reasons(gpu: ET.Element) -> tuple[str, ...]:
    active: list[str] = []
    for tag, prefix in (
        ("clocks_event_reasons", "clocks_event_reason_"),
        ("clocks_throttle_reasons", "clocks_throttle_reason_"),
    ):
        block = gpu.find(tag)
        if block is None:
            continue
        for child in block:
            if (child.text or "").strip().lower() == "active":
                name = child.tag.removeprefix(prefix)
                if name not in active:
                    active.append(name)
    return tuple(active)


def _processes(parent: ET.Element | None) -> tuple[GpuProcess, ...]:
    if parent is None:
        return ()
    block = parent.find("processes")
    if block is None:
        return ()
    return tuple(
        GpuProcess(
            pid=_int(info, "pid"),
            name=_text(info, "process_name"),
            used_memory_mib=_int(info, "used_memory"),
            type=_text(info, "type"),
            gpu_instance_id=_int(info, "gpu_instance_id"),
            compute_instance_id=_int(info, "compute_instance_id"),
        )
        for info in block.findall("process_info")
    )


def _mig_devices(gpu: ET.Element, gpu_processes: tuple[GpuProcess, ...]) -> tuple[MigDevice, ...]:
    block = gpu.find("mig_devices")
    if block is None:
        return ()
    out: list[MigDevice] = []
    for mig in block.findall("mig_device"):
        gi = _int(mig, "gpu_instance_id")
        ci = _int(mig, "compute_instance_id")
        procs = list(_processes(mig))
        for proc in gpu_processes:
            if (
                gi is not None
                and proc.gpu_instance_id == gi
                and proc.compute_instance_id == ci
                and proc not in procs
            ):
                procs.append(proc)
        out.append(
            MigDevice(
                index=_int(mig, "index"),
                gpu_instance_id=gi,
                compute_instance_id=ci,
                profile_name=_text(mig, "profile_name") or _text(mig, "name"),
                uuid=_text(mig, "uuid"),
                memory_total_mib=_int(mig, "fb_memory_usage/total"),
                memory_used_mib=_int(mig, "fb_memory_usage/used"),
                processes=tuple(procs),
            )
        )
    return tuple(out)


def _errors(gpu: ET.Element) -> tuple[str, ...]:
    found: list[str] = []
    for el in gpu.iter():
        err = error_value(el.text)
        if err is not None and err not in found:
            found.append(err)
    return tuple(found)


def _gpu(order: int, gpu: ET.Element) -> Gpu:
    power = _child(gpu, "gpu_power_readings", "power_readings")
    processes = _processes(gpu)
    mig_processes: list[GpuProcess] = []
    mig_devices = _mig_devices(gpu, processes)
    for mig in mig_devices:
        mig_processes.extend(p for p in mig.processes if p not in processes and p not in mig_processes)
    pci_bus_id = _text(gpu, "pci/pci_bus_id")
    if pci_bus_id is None:
        pci_bus_id = clean(gpu.get("id"))
    return Gpu(
        index=order,
        name=_text(gpu, "product_name"),
        uuid=_text(gpu, "uuid"),
        pci_bus_id=pci_bus_id,
        memory_total_mib=_int(gpu, "fb_memory_usage/total"),
        memory_used_mib=_int(gpu, "fb_memory_usage/used"),
        memory_free_mib=_int(gpu, "fb_memory_usage/free"),
        utilization_pct=_int(gpu, "utilization/gpu_util"),
        temperature_c=_int(gpu, "temperature/gpu_temp"),
        power_w=_first_float(power, "power_draw", "average_power_draw", "instant_power_draw"),
        power_limit_w=_first_float(power, "current_power_limit", "enforced_power_limit", "power_limit"),
        persistence_mode=_text(gpu, "persistence_mode"),
        compute_mode=_text(gpu, "compute_mode"),
        mig_mode=_text(gpu, "mig_mode/current_mig"),
        mig_mode_pending=_text(gpu, "mig_mode/pending_mig"),
        ecc=_ecc(gpu),
        retired_pages=_retired(gpu),
        remapped_rows=_remapped(gpu),
        mig_devices=mig_devices,
        clock_event_reasons=_reasons(gpu),
        processes=processes + tuple(mig_processes),
        minor_number=_int(gpu, "minor_number"),
        virtualization_mode=_text(gpu, "gpu_virtualization_mode/virtualization_mode"),
        errors=_errors(gpu),
    )


def _isolate_document(text: str) -> str:
    """Drop lines nvidia-smi may print around the document (``WARNING: infoROM is corrupted …``)."""
    start = -1
    for marker in ("<?xml", "<!DOCTYPE", "<nvidia_smi_log"):
        pos = text.find(marker)
        if pos >= 0 and (start < 0 or pos < start):
            start = pos
    if start < 0:
        raise ProbeParseError(FORMAT, f"no <nvidia_smi_log> document in {snippet(text)}")
    end_tag = "</nvidia_smi_log>"
    end = text.rfind(end_tag)
    if end < 0:
        raise ProbeParseError(FORMAT, "no </nvidia_smi_log> (truncated, or not nvidia-smi XML)")
    return text[start : end + len(end_tag)]


#: Characters XML 1.0 cannot hold, raw: C0 controls but tab, newline and carriage return (a process name
#: with an ESC in it makes the whole document unreadable to a strict parser).
_ILLEGAL_RE = lazy_pattern("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
#: Numeric references to those characters (``&#27;``, ``&#x1b;``): equally fatal.
_ILLEGAL_REF_RE = lazy_pattern(
    r"&#(?:x0*(?:[0-8bcef]|1[0-9a-f])|0*(?:[0-8]|1[124-9]|2[0-9]|3[01]));", re.IGNORECASE
)
#: An ``&`` that starts no reference XML knows (nvidia-smi writes process names as they are).
_BARE_AMP_RE = lazy_pattern(r"&(?!(?:amp|lt|gt|quot|apos|#[0-9]{1,7}|#x[0-9a-fA-F]{1,6});)")
#: A process name on its line, as nvidia-smi writes it: a ``<`` or ``>`` in it is the name's, not markup.
_PROCESS_NAME_RE = lazy_pattern(r"(<process_name>)([^\n]*?)(</process_name>)")


def _escape_brackets(match: re.Match[str]) -> str:
    name = match.group(2).replace("<", "&lt;").replace(">", "&gt;")
    return f"{match.group(1)}{name}{match.group(3)}"


def _repaired(document: str) -> tuple[str, str] | None:
    """The document with what makes it ill-formed replaced (illegal characters by U+FFFD, a stray ``&`` by
    ``&amp;``, a ``<`` or ``>`` in a process name by its reference), and what was done; None when none of
    that is there."""
    fixed, raw = _ILLEGAL_RE.subn("\ufffd", document)
    fixed, refs = _ILLEGAL_REF_RE.subn("&#xfffd;", fixed)
    fixed, amps = _BARE_AMP_RE.subn("&amp;", fixed)
    names = sum(1 for m in _PROCESS_NAME_RE.finditer(fixed) if "<" in m.group(2) or ">" in m.group(2))
    if names:
        fixed = _PROCESS_NAME_RE.sub(_escape_brackets, fixed)
    done = []
    if raw + refs:
        done.append(f"{raw + refs} character(s) XML cannot hold (control characters) replaced by U+FFFD")
    if amps:
        done.append(f"{amps} unescaped '&' escaped")
    if names:
        done.append(f"{names} process name(s) with '<' or '>' escaped")
    return (fixed, "XML was not well-formed, recovered: " + "; ".join(done)) if done else None


def _root(document: str) -> tuple[ET.Element, str | None]:
    """The parsed document; one that is not well-formed only for what `_repaired` mends is read leniently
    (a raw ESC in one ``<process_name>`` must not hide every GPU of the node), saying so."""
    try:
        return ET.fromstring(document), None
    except ET.ParseError as exc:
        repaired = _repaired(document)
        if repaired is None:
            raise ProbeParseError(FORMAT, f"malformed XML ({exc})") from None
        try:
            return ET.fromstring(repaired[0]), repaired[1]
        except ET.ParseError:
            raise ProbeParseError(FORMAT, f"malformed XML ({exc})") from None
    except (ValueError, RecursionError) as exc:
        raise ProbeParseError(FORMAT, f"unreadable XML ({type(exc).__name__})") from None


def parse_nvidia_smi_xml(data: str | bytes) -> NvidiaSmiReport:
    """Parse ``nvidia-smi -q -x`` output.

    GPUs are indexed in document order, which is nvidia-smi's own index order (``minor_number`` is kept
    separately; it is not always the same). Raises :class:`ProbeParseError` on anything that is not a complete,
    well-formed ``<nvidia_smi_log>`` document, and on documents declaring entities.
    """
    text = _to_text(data)
    if _ENTITY_RE.search(text):
        raise ProbeParseError(FORMAT, "entity declarations are refused")
    root, recovered = _root(_isolate_document(text))
    if root.tag != "nvidia_smi_log":
        raise ProbeParseError(FORMAT, f"root element is <{root.tag[:40]}>, not <nvidia_smi_log>")
    gpus = tuple(_gpu(order, gpu) for order, gpu in enumerate(root.findall("gpu")))
    return NvidiaSmiReport(
        driver_version=_version(root, "kmd_version", "driver_version"),
        cuda_version=_version(root, "cuda_umd_version", "cuda_version"),
        attached_gpus=_int(root, "attached_gpus"),
        gpus=gpus,
        recovered=recovered,
    )
