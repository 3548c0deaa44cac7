"""Every message form of the shared `karpenter_messages.json` reference parses to the expected codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kubectl_gpu.core.evidence import Code, parse_event_message

from ._cases import CASES, Case

REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "karpenter_messages.json"


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_reference_form(case: Case) -> None:
    parsed = parse_event_message(case.reason, case.message, case.component)
    assert parsed.codes == case.codes
    assert parsed.message == case.message
    first = parsed.parts[0]
    for name, expected in case.attrs.items():
        assert getattr(first, name) == expected, name
    assert first.render()
    if Code.UNPARSED not in parsed.codes:
        assert parsed.parsed
        assert Code.OTHER not in parsed.codes


def test_cases_cover_every_reference_form() -> None:
    if not REFERENCE.is_file():
        pytest.skip(f"shared reference not present at {REFERENCE}")
    entries = json.loads(REFERENCE.read_text(encoding="utf-8"))["messages"]
    reference = {(entry["string"], entry.get("event", {}).get("reason")) for entry in entries}
    covered = {(case.form, case.event_reason) for case in CASES}
    assert reference - covered == set()
    assert covered - reference == set()


def test_reference_examples_are_used_verbatim() -> None:
    if not REFERENCE.is_file():
        pytest.skip(f"shared reference not present at {REFERENCE}")
    entries = json.loads(REFERENCE.read_text(encoding="utf-8"))["messages"]
    messages = "\n".join(case.message for case in CASES)
    # the InsufficientCapacityError example ends with an editor's note in parentheses: keep the AWS text only
    examples = [entry["example"].split(" (AWS ICE text")[0] for entry in entries if "example" in entry]
    assert len(examples) == 4
    for example in examples:
        assert example in messages
