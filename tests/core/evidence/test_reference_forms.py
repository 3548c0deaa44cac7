"""Every message form of the `karpenter_messages.json` reference (vendored in tests/fixtures/reference)
parses to the expected codes."""

from __future__ import annotations

import json

import pytest

from kubectl_gpu.core.evidence import Code, parse_event_message
from tests.helpers import REFERENCE as REFERENCE_DIR

from ._cases import CASES, Case

REFERENCE = REFERENCE_DIR / "karpenter_messages.json"


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
    entries = json.loads(REFERENCE.read_text(encoding="utf-8"))["messages"]
    reference = {(entry["string"], entry.get("event", {}).get("reason")) for entry in entries}
    covered = {(case.form, case.event_reason) for case in CASES}
    assert reference - covered == set()
    assert covered - reference == set()


def test_reference_examples_are_used_verbatim() -> None:
    entries = json.loads(REFERENCE.read_text(encoding="utf-8"))["messages"]
    messages = "\n".join(case.message for case in CASES)
    # the InsufficientCapacityError example ends with an editor's note in parentheses: keep the AWS text only
    examples = [entry["example"].split(" (AWS ICE text")[0] for entry in entries if "example" in entry]
    assert len(examples) == 4
    for example in examples:
        assert example in messages
