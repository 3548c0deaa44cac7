"""A table cell holds its message's first sentence (issue 41, item 6); when one was cut, a note on stderr
says where the whole text is (the table's own lines on stdout stay the table's)."""

from __future__ import annotations

from collections.abc import Callable

from kubectl_gpu.cli.run import SHORTENED
from tests.conftest import Result
from tests.tui.conftest import DEMO

Cli = Callable[..., Result]


def test_a_cut_message_is_said_on_stderr(cli: Cli) -> None:
    result = cli("diagnose", "--snapshot", str(DEMO), "--no-color")
    assert result.code == 1
    assert result.err.splitlines()[-1] == SHORTENED
    assert SHORTENED not in result.out


def test_no_note_where_nothing_was_cut(cli: Cli) -> None:
    for args in (("nodes",), ("diagnose", "-o", "yaml")):
        result = cli(*args, "--snapshot", str(DEMO), "--no-color")
        assert SHORTENED not in result.err
