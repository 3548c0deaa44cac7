"""A table cell holds at most a sentence (issue 41, point 6): `first_sentence` and where it applies (the
CLI's tables show a `brief` column's first sentence; the row's object, JSON and explain keep it whole)."""

from __future__ import annotations

import pytest

from kubectl_gpu.render.draw import rich_table
from kubectl_gpu.render.model import Cell, Column, Row, Table
from kubectl_gpu.render.sentence import first_sentence

CASES = {
    "one sentence": ("pod does not tolerate nvidia.com/gpu:NoSchedule", None),
    "two": ("A critical GPU error occurred. Reboot the node.", "A critical GPU error occurred."),
    "a number": ("needs CUDA 13.0.2 and 1.5 GiB. Then more.", "needs CUDA 13.0.2 and 1.5 GiB."),
    "a PCI address": ("GPU 0000:3E:00.0: GPU is lost.  Reboot the system", "GPU 0000:3E:00.0: GPU is lost."),
    "e.g.": (
        "create a NodePool, e.g. Karpenter's default. Or not.",
        "create a NodePool, e.g. Karpenter's default.",
    ),
    "i.e. capitalised": (
        "the AMI, i.e. Bottlerocket, is old. Replace it.",
        "the AMI, i.e. Bottlerocket, is old.",
    ),
    "lower case after a stop": ("version 1. then the rest", None),
    "inside brackets": ("Ready=False (XID79: A GPU error occurred. Reboot.): review logs", None),
    "inside quotes": ('said "it failed. Retry" then. More here.', 'said "it failed. Retry" then.'),
    "a question": ("Is the driver current? Probably not.", "Is the driver current?"),
    "an initial": ("J. Smith wrote it. Done.", "J. Smith wrote it."),
    "a paragraph": ("first paragraph without a stop\n\nsecond one", "first paragraph without a stop"),
    "spaces around": ("  padded.  ", "padded."),
    "empty": ("", None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_first_sentence(name: str) -> None:
    text, expected = CASES[name]
    assert first_sentence(text) == (text.strip() if expected is None else expected)


def test_a_brief_column_shows_the_first_sentence_and_the_cell_keeps_the_whole_text() -> None:
    whole = "NvidiaXID79Error: A critical GPU error occurred. EKS node repair action for XID 79: reboot."
    columns = (Column("code", "CODE"), Column("message", "MESSAGE", wrap=True, brief=True))
    row = Row("r", (Cell("NODE_HEALTH_EVENT. Not a sentence end here."), Cell(whole)))
    table = Table("t", columns, (row,))
    drawn = rich_table(table)
    assert [str(c) for c in drawn.columns[1].cells] == ["NvidiaXID79Error: A critical GPU error occurred."]
    assert [str(c) for c in drawn.columns[0].cells] == ["NODE_HEALTH_EVENT. Not a sentence end here."]
    assert table.cell(row, "message").text == whole  # the model keeps it whole (JSON, explain, detail)
