"""``/proc/mdstat``, in the format of the kernel's ``md_seq_show`` / ``status_resync``.

::

    Personalities : [raid1] [raid6] [raid5] [raid4]
    md0 : active raid5 sdd1[3] sdc1[1] sdb1[0]
          2093056 blocks super 1.2 level 5, 512k chunk, algorithm 2 [3/2] [UU_]
          [=====>...............]  recovery = 27.4% (287744/1046528) finish=0.0min speed=143872K/sec
          bitmap: 0/1 pages [0KB], 65536KB chunk

    unused devices: <none>
"""

from __future__ import annotations

import re

from kubectl_gpu.core.lazy_pattern import lazy_pattern

from .errors import ProbeParseError, snippet
from .models import MdArray, MdMember, MdStat, MdSync

__all__ = ["parse_mdstat"]

FORMAT = "mdstat"

_ARRAY_RE = lazy_pattern(r"^(\S+)\s*:\s*(active|inactive)(?:\s+(.*))?$")
_MEMBER_RE = lazy_pattern(r"^(.+?)\[(\d{1,20})\]((?:\([A-Z]\))*)$")
_RO_RE = lazy_pattern(r"^\((read-only|auto-read-only)\)$")
_BLOCKS_RE = lazy_pattern(r"^(\d{1,20}) blocks\b(.*)$")
_SUPER_RE = lazy_pattern(r"\bsuper (\S+)")
_HEALTH_RE = lazy_pattern(r"\[(\d{1,20})/(\d{1,20})\]\s*\[([U_]*)\]")
_CHUNK_RE = lazy_pattern(r"\b(\d{1,20})[kK] chunks?\b")
_SYNC_RE = lazy_pattern(
    r"^(?:\[[=>.]*\]\s*)?(resync|recovery|reshape|check|repair)\s*=\s*(\d{1,20}(?:\.\d{1,20})?)%"
    r"(?:\s*\((\d{1,20})/(\d{1,20})\))?(?:\s+finish=(\d{1,20}(?:\.\d{1,20})?)min)?(?:\s+speed=(\d{1,20})K/sec)?\s*$"
)
_WAIT_RE = lazy_pattern(r"^(resync|recovery|reshape|check)\s*=\s*(PENDING|DELAYED|REMOTE)$")
_BITMAP_RE = lazy_pattern(r"^bitmap:\s*(.+)$")
_PERSONALITY_RE = lazy_pattern(r"\[([^\]]+)\]")


class _Builder:
    def __init__(self, name: str, active: bool, rest: str) -> None:
        self.name = name
        self.active = active
        self.read_only: str | None = None
        self.level: str | None = None
        self.members: list[MdMember] = []
        self.blocks: int | None = None
        self.super_version: str | None = None
        self.chunk_kib: int | None = None
        self.raid_disks: int | None = None
        self.working: int | None = None
        self.status: str | None = None
        self.sync: MdSync | None = None
        self.waiting: str | None = None
        self.bitmap: str | None = None
        for token in rest.split():
            ro = _RO_RE.match(token)
            member = _MEMBER_RE.match(token)
            if ro is not None:
                self.read_only = ro.group(1)
            elif member is not None:
                flags = member.group(3)
                self.members.append(
                    MdMember(
                        name=member.group(1),
                        slot=int(member.group(2)),
                        faulty="(F)" in flags,
                        spare="(S)" in flags,
                        write_mostly="(W)" in flags,
                        replacement="(R)" in flags,
                        journal="(J)" in flags,
                    )
                )
            elif (
                self.level is None
                and not self.members
                and active
                and re.fullmatch(r"[a-z][a-z0-9_-]*", token)
            ):
                self.level = token
            else:
                raise ProbeParseError(FORMAT, f"unexpected token {snippet(token)} in {snippet(name)} line")

    def detail(self, line: str) -> None:
        blocks = _BLOCKS_RE.match(line)
        if blocks is not None:
            self.blocks = int(blocks.group(1))
            rest = blocks.group(2)
            sup = _SUPER_RE.search(rest)
            self.super_version = sup.group(1) if sup else None
            health = _HEALTH_RE.search(rest)
            if health is not None:
                self.raid_disks = int(health.group(1))
                self.working = int(health.group(2))
                self.status = health.group(3)
            chunk = _CHUNK_RE.search(rest)
            self.chunk_kib = int(chunk.group(1)) if chunk else None
            return
        sync = _SYNC_RE.match(line)
        if sync is not None:
            self.sync = MdSync(
                action=sync.group(1),
                percent=float(sync.group(2)),
                done_blocks=int(sync.group(3)) if sync.group(3) else None,
                total_blocks=int(sync.group(4)) if sync.group(4) else None,
                finish_minutes=float(sync.group(5)) if sync.group(5) else None,
                speed_kib_per_sec=int(sync.group(6)) if sync.group(6) else None,
            )
            return
        wait = _WAIT_RE.match(line)
        if wait is not None:
            self.waiting = wait.group(2)
            return
        bitmap = _BITMAP_RE.match(line)
        if bitmap is not None:
            self.bitmap = bitmap.group(1)
            return
        raise ProbeParseError(FORMAT, f"unrecognised line {snippet(line)} in {snippet(self.name)}")

    def build(self) -> MdArray:
        if self.blocks is None and self.members:
            raise ProbeParseError(FORMAT, f"array {snippet(self.name)} has no blocks line (truncated?)")
        if self.active and self.level is None:
            raise ProbeParseError(FORMAT, f"active array {snippet(self.name)} has no RAID level")
        return MdArray(
            name=self.name,
            active=self.active,
            level=self.level,
            members=tuple(self.members),
            blocks=self.blocks,
            super_version=self.super_version,
            chunk_kib=self.chunk_kib,
            read_only=self.read_only,
            raid_disks=self.raid_disks,
            working_disks=self.working,
            member_status=self.status,
            sync=self.sync,
            sync_waiting=self.waiting,
            bitmap=self.bitmap,
        )


def parse_mdstat(text: str | bytes) -> MdStat:
    """Parse ``/proc/mdstat``. The ``Personalities`` first line and the ``unused devices`` last line are
    required (the kernel always prints both), so a cut-off file raises :class:`ProbeParseError`."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    personalities: tuple[str, ...] | None = None
    unused: tuple[str, ...] | None = None
    arrays: list[MdArray] = []
    current: _Builder | None = None
    for raw in text.replace("\r", "").split("\n"):
        if not raw.strip():
            continue
        if unused is not None:
            raise ProbeParseError(FORMAT, f"text after 'unused devices': {snippet(raw)}")
        if raw[0] in " \t":
            if current is None:
                raise ProbeParseError(FORMAT, f"indented line outside an array: {snippet(raw)}")
            current.detail(raw.strip())
            continue
        line = raw.strip()
        if line.startswith("Personalities"):
            if personalities is not None or arrays or current is not None:
                raise ProbeParseError(FORMAT, "Personalities line is not first")
            personalities = tuple(_PERSONALITY_RE.findall(line.partition(":")[2]))
            continue
        if personalities is None:
            raise ProbeParseError(FORMAT, f"does not start with 'Personalities': {snippet(line)}")
        if line.startswith("read_ahead"):
            continue
        if line.startswith("unused devices:"):
            if current is not None:
                arrays.append(current.build())
                current = None
            rest = line.partition(":")[2].strip()
            unused = () if rest in {"", "<none>"} else tuple(rest.split())
            continue
        match = _ARRAY_RE.match(line)
        if match is None:
            raise ProbeParseError(FORMAT, f"unrecognised line {snippet(line)}")
        if current is not None:
            arrays.append(current.build())
        current = _Builder(match.group(1), match.group(2) == "active", match.group(3) or "")
    if personalities is None:
        raise ProbeParseError(FORMAT, "no 'Personalities' line")
    if unused is None:
        raise ProbeParseError(FORMAT, "no 'unused devices' line (truncated?)")
    names = [a.name for a in arrays]
    if len(set(names)) != len(names):
        raise ProbeParseError(FORMAT, "the same array is listed twice")
    return MdStat(personalities=personalities, arrays=tuple(arrays), unused_devices=unused)
