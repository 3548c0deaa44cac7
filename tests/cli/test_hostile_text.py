"""Cluster text is made safe at one boundary (render.safe, through the view model) for every command, piped
and on a terminal: no escape sequence, no bidi control, no forged line, no markup read, whatever an Event,
an annotation, an image name, a condition, an OS image, a probe or the context name holds (issue 18)."""

from __future__ import annotations

import json
import os
import select
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Result
from tests.hostile import SHOWN, hostile_bundle, unsafe_in, write_hostile_bundle
from tests.hostile.terminal import spawn_on_pty
from tests.kube.apiserver import FakeKubeAPI
from tests.tui.conftest import CRDS

Cli = Callable[..., Result]

COMMANDS = [
    ["nodes"],
    ["nodes", "-o", "wide", "--all"],
    ["pending", "-o", "wide", "-A"],
    ["explain", "ml/batch-spot"],
    ["explain", "default/chat-api-7d9f8c6b5d-x2k4p"],
    ["drivers", "-o", "wide"],
    ["nvme", "-o", "wide"],
    ["lifecycle", "-o", "wide"],
    ["lint", "-o", "wide"],
    ["cost", "-o", "wide"],
    ["inventory", "-o", "wide"],
    ["diagnose"],
    ["diagnose", "-o", "wide"],
    ["smi", "--all"],
    ["smi", "--all", "-o", "wide"],
]


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_hostile_bundle(tmp_path_factory.mktemp("hostile") / "hostile.json")


@pytest.mark.parametrize("args", COMMANDS, ids=[" ".join(a) for a in COMMANDS])
def test_piped_output_holds_no_escape_bidi_or_forged_line(cli: Cli, hostile: Path, args: list[str]) -> None:
    result = cli(*args, "--snapshot", str(hostile))
    assert result.code in (0, 1), result.err
    assert unsafe_in(result.out + result.err) == []


def test_the_hostile_text_is_shown_escaped_and_markup_stays_text(cli: Cli, hostile: Path) -> None:
    shown = "".join(cli(*args, "--snapshot", str(hostile)).out for args in COMMANDS)
    for marker in SHOWN:
        assert marker in shown, marker


def test_json_keeps_the_exact_values(cli: Cli, hostile: Path) -> None:
    """JSON and YAML come from the reports, not the view model: a runbook sees what the cluster holds."""
    data = json.loads(cli("nodes", "-o", "json", "--snapshot", str(hostile)).out)
    assert any("\x1b]52;c;" in (row.get("osImage") or "") for row in data["nodes"])


def _on_a_terminal(args: list[str]) -> tuple[int, str]:
    """Run kubectl-gpu on a pseudo-terminal 200x50 (colour on); its exit code and every byte it wrote."""
    proc, leader = spawn_on_pty(args)
    chunks = []
    while True:
        ready, _, _ = select.select([leader], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower side closed: the process is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.parametrize(
    "args",
    [["nodes", "-o", "wide"], ["explain", "ml/batch-spot"], ["lifecycle", "-o", "wide"], ["diagnose"]],
    ids=["nodes", "explain", "lifecycle", "diagnose"],
)
def test_on_a_terminal_only_our_own_colours_are_escapes(hostile: Path, args: list[str]) -> None:
    code, raw = _on_a_terminal([*args, "--snapshot", str(hostile)])
    assert code in (0, 1), raw[-2000:]
    assert "\x1b]" not in raw  # no OSC at all: no clipboard write, no link, no title
    assert "\x1b[2J" not in raw and "\x1b[H" not in raw
    for char in ("\x9b", "\x9d", "\x07", "\u202e", "\u2066"):
        assert char not in raw, repr(char)
    lines = raw.replace("\r\n", "\n").split("\n")
    assert not [line for line in lines if line.lstrip().startswith("FORGED")]
    if args[0] != "diagnose":  # (diagnose cuts messages before the payload)
        assert "\\x1b]52" in raw  # the text is there, inert


LIVE_COMMANDS = [
    ["nodes", "-o", "wide"],
    ["explain", "ml/batch-spot"],
    ["lifecycle", "-o", "wide"],
    ["diagnose", "-o", "wide"],
]


@pytest.mark.parametrize("args", LIVE_COMMANDS, ids=[" ".join(a) for a in LIVE_COMMANDS])
def test_the_same_objects_served_live_are_made_safe_too(
    cli: Cli, apiserver: FakeKubeAPI, kubeconfig: Path, args: list[str]
) -> None:
    """The boundary is the view model, whatever the source: the hostile objects from the suite's API server."""
    apiserver.install_crds(*CRDS)
    apiserver.add(*hostile_bundle()["objects"])
    result = cli(*args, "--kubeconfig", str(kubeconfig))
    assert result.code in (0, 1), result.err
    assert unsafe_in(result.out + result.err) == []
    if args[0] in ("nodes", "explain"):  # (the others quote events by age: live, these are old)
        assert "\\x1b]52;c;" in result.out
