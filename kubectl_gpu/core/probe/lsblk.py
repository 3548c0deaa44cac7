"""``lsblk -J`` (any columns; ``-b`` numeric or human sizes), ``lsblk -P`` and ``findmnt -J``."""

from __future__ import annotations

import json

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .errors import ProbeParseError, snippet
from .models import BlockDevice, LsblkReport, Mount

__all__ = ["parse_findmnt_json", "parse_lsblk_json", "parse_lsblk_pairs"]

FORMAT = "lsblk JSON"
FORMAT_PAIRS = "lsblk -P"
FORMAT_FINDMNT = "findmnt JSON"

_MAX_DEPTH = 32
_DIGITS_RE = lazy_pattern(r"[0-9]{1,20}")
_PAIR_RE = lazy_pattern(r'([A-Za-z][A-Za-z0-9_:%-]*)="((?:[^"\\]|\\.)*)"')
_HEX_ESCAPE_RE = lazy_pattern(r"\\x([0-9a-fA-F]{2})")


def _load_json(text: str | bytes, fmt: str) -> object:
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not text.strip():
        raise ProbeParseError(fmt, "empty output")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProbeParseError(
            fmt, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except (RecursionError, ValueError) as exc:
        raise ProbeParseError(fmt, f"unreadable JSON ({type(exc).__name__})") from None


def _opt_str(value: object, key: str, fmt: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ProbeParseError(fmt, f"{key} is a {type(value).__name__}, not a string")
    text = str(value).strip()
    return text or None


def _size(value: object, fmt: str) -> tuple[int | None, str | None]:
    """(bytes, text): ``960197124096`` and ``"960197124096"`` are bytes; ``"7T"`` is text only."""
    if value is None:
        return None, None
    if isinstance(value, bool):
        raise ProbeParseError(fmt, "size is a boolean")
    if isinstance(value, int):
        if value < 0:
            raise ProbeParseError(fmt, f"negative size {value}")
        return value, str(value)
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None, None
        if _DIGITS_RE.fullmatch(text):
            return int(text), text
        return None, text
    raise ProbeParseError(fmt, f"size is a {type(value).__name__}")


def _mountpoints(entry: dict[str, object], fmt: str) -> tuple[str, ...]:
    found: list[str] = []
    single = entry.get("mountpoint")
    text = _opt_str(single, "mountpoint", fmt)
    if text is not None:
        found.append(text)
    many = entry.get("mountpoints")
    if many is not None:
        if not isinstance(many, list):
            raise ProbeParseError(fmt, "mountpoints is not a list")
        for item in many:
            text = _opt_str(item, "mountpoints[]", fmt)
            if text is not None and text not in found:
                found.append(text)
    return tuple(found)


def _device(entry: object, depth: int) -> BlockDevice:
    if depth > _MAX_DEPTH:
        raise ProbeParseError(FORMAT, f"device tree deeper than {_MAX_DEPTH}")
    if not isinstance(entry, dict):
        raise ProbeParseError(FORMAT, f"device entry is a {type(entry).__name__}, not an object")
    name = _opt_str(entry.get("name") or entry.get("kname") or entry.get("path"), "name", FORMAT)
    if name is None:
        raise ProbeParseError(FORMAT, "device without a name")
    size_bytes, size_text = _size(entry.get("size"), FORMAT)
    children_raw = entry.get("children", [])
    if children_raw is None:
        children_raw = []
    if not isinstance(children_raw, list):
        raise ProbeParseError(FORMAT, f"children of {snippet(name)} is not a list")
    return BlockDevice(
        name=name,
        type=_opt_str(entry.get("type"), "type", FORMAT),
        size_bytes=size_bytes,
        size_text=size_text,
        model=_opt_str(entry.get("model"), "model", FORMAT),
        mountpoints=_mountpoints(entry, FORMAT),
        fstype=_opt_str(entry.get("fstype"), "fstype", FORMAT),
        children=tuple(_device(child, depth + 1) for child in children_raw),
    )


def parse_lsblk_json(text: str | bytes) -> LsblkReport:
    """Parse ``lsblk -J [-b] [-o ...]``: the ``blockdevices`` tree, whatever the columns.

    Sizes are bytes when lsblk printed a number (``-b``; old util-linux prints it as a string), otherwise
    ``size_bytes`` is ``None`` and ``size_text`` keeps the human size (``7T``).
    """
    data = _load_json(text, FORMAT)
    if not isinstance(data, dict) or "blockdevices" not in data:
        raise ProbeParseError(FORMAT, "no blockdevices key")
    devices = data["blockdevices"]
    if not isinstance(devices, list):
        raise ProbeParseError(FORMAT, "blockdevices is not a list")
    return LsblkReport(devices=tuple(_device(entry, 0) for entry in devices))


def _unescape(value: str) -> str:
    value = _HEX_ESCAPE_RE.sub(lambda m: chr(int(m.group(1), 16)), value)
    return value.replace('\\"', '"').replace("\\\\", "\\")


def parse_lsblk_pairs(text: str | bytes) -> LsblkReport:
    """Parse ``lsblk -P`` (``KEY="value"`` lines). With a ``PKNAME`` column the tree is rebuilt; without one
    every device is top-level."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    records: list[dict[str, str]] = []
    for raw in text.split("\n"):
        line = raw.strip()
        if not line:
            continue
        pairs = _PAIR_RE.findall(line)
        if not pairs or _PAIR_RE.sub("", line).strip():
            raise ProbeParseError(FORMAT_PAIRS, f'not a KEY="value" line: {snippet(line)}')
        records.append({key.upper(): _unescape(value) for key, value in pairs})
    if not records:
        raise ProbeParseError(FORMAT_PAIRS, "empty output")
    for record in records:
        if not record.get("NAME"):
            raise ProbeParseError(FORMAT_PAIRS, "device without NAME")

    def leaf(record: dict[str, str]) -> BlockDevice:
        size_bytes, size_text = _size(record.get("SIZE"), FORMAT_PAIRS)
        mounts = [m for m in (record.get("MOUNTPOINT"), record.get("MOUNTPOINTS")) if m]
        return BlockDevice(
            name=record["NAME"],
            type=record.get("TYPE") or None,
            size_bytes=size_bytes,
            size_text=size_text,
            model=(record.get("MODEL") or "").strip() or None,
            mountpoints=tuple(dict.fromkeys(mounts)),
            fstype=record.get("FSTYPE") or None,
        )

    names = {record["NAME"] for record in records}
    children: dict[str, list[dict[str, str]]] = {}
    roots: list[dict[str, str]] = []
    for record in records:
        parent = record.get("PKNAME") or ""
        if parent and parent in names and parent != record["NAME"]:
            children.setdefault(parent, []).append(record)
        else:
            roots.append(record)

    def build(record: dict[str, str], seen: frozenset[str]) -> BlockDevice:
        name = record["NAME"]
        if name in seen or len(seen) > _MAX_DEPTH:
            raise ProbeParseError(FORMAT_PAIRS, f"PKNAME cycle at {snippet(name)}")
        base = leaf(record)
        kids = tuple(build(child, seen | {name}) for child in children.get(name, []))
        return BlockDevice(
            base.name,
            base.type,
            base.size_bytes,
            base.size_text,
            base.model,
            base.mountpoints,
            base.fstype,
            kids,
        )

    if not roots:
        raise ProbeParseError(FORMAT_PAIRS, "every device has a parent (PKNAME cycle)")
    return LsblkReport(devices=tuple(build(record, frozenset()) for record in roots))


def _mounts(entries: object, depth: int, out: list[Mount]) -> None:
    if depth > _MAX_DEPTH:
        raise ProbeParseError(FORMAT_FINDMNT, f"mount tree deeper than {_MAX_DEPTH}")
    if not isinstance(entries, list):
        raise ProbeParseError(FORMAT_FINDMNT, "filesystems is not a list")
    for entry in entries:
        if not isinstance(entry, dict):
            raise ProbeParseError(FORMAT_FINDMNT, "filesystem entry is not an object")
        target = _opt_str(entry.get("target"), "target", FORMAT_FINDMNT)
        if target is None:
            raise ProbeParseError(FORMAT_FINDMNT, "filesystem without target")
        out.append(
            Mount(
                target=target,
                source=_opt_str(entry.get("source"), "source", FORMAT_FINDMNT),
                fstype=_opt_str(entry.get("fstype"), "fstype", FORMAT_FINDMNT),
                options=_opt_str(entry.get("options"), "options", FORMAT_FINDMNT),
            )
        )
        kids = entry.get("children")
        if kids is not None:
            _mounts(kids, depth + 1, out)


def parse_findmnt_json(text: str | bytes) -> tuple[Mount, ...]:
    """Parse ``findmnt -J``: the mount tree, flattened in output order."""
    data = _load_json(text, FORMAT_FINDMNT)
    if not isinstance(data, dict) or "filesystems" not in data:
        raise ProbeParseError(FORMAT_FINDMNT, "no filesystems key")
    out: list[Mount] = []
    _mounts(data["filesystems"], 0, out)
    return tuple(out)
