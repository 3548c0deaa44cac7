"""Fleet mode writes its clusters' notes and errors through the CLI's one writer (`cli.say`):
a bundle's note, or a context's name, that holds a bidi override, an escape or a line break is shown
escaped, never sent to the terminal (issue 39; reproduced first with the hostile bundle)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.hostile import FORGED, PAYLOAD, hostile_bundle, unsafe_in

Cli = Callable[..., Result]
COMMANDS = [
    ["nodes"],
    ["nodes", "-o", "wide"],
    ["pending", "-A"],
    ["diagnose"],
    ["cost"],
    ["inventory", "-o", "csv"],
]


@pytest.fixture(scope="module")
def fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two hostile clusters in one directory: each bundle carries a FORBIDDEN note of cluster text, and one
    context name carries the payload too."""
    directory = tmp_path_factory.mktemp("hostile-fleet")
    for n, context in enumerate(("prod", f"staging {PAYLOAD}")):
        bundle = hostile_bundle()
        bundle["context"] = context
        bundle["notes"] = [{"code": "FORBIDDEN", "message": f"events are forbidden: {PAYLOAD}"}]
        (directory / f"cluster{n}.json").write_text(json.dumps(bundle))
    return directory


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_fleet_notes_and_names_reach_the_terminal_escaped(cli: Cli, fleet: Path, args: list[str]) -> None:
    result = cli(*args, "--snapshot", str(fleet))
    assert result.code in (0, 1, 4), result.err  # 4: the FORBIDDEN note (could not look)
    assert "warning: context prod: events are forbidden" in result.err
    assert unsafe_in(result.err) == []
    assert "\\u202e" in result.err and "\\x1b]52;c;" in result.err  # the text is there, inert
    if "csv" not in args:  # (CSV is data: it keeps the values, as JSON does)
        assert unsafe_in(result.out) == []


def test_the_forged_line_stays_on_its_note(cli: Cli, fleet: Path) -> None:
    err = cli("nodes", "--snapshot", str(fleet)).err
    notes = [line for line in err.splitlines() if "events are forbidden" in line]
    assert len(notes) == 2 and all(FORGED in line for line in notes)
