"""What every module of kubectl_gpu/render keeps to: views return renderables and never write (only
render/output.py writes), and every colour comes from render/theme.py."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from kubectl_gpu.core.analyses.nvme.analysis import NvmeState
from kubectl_gpu.core.analyses.pending.verdicts import Verdict
from kubectl_gpu.core.report import Severity
from kubectl_gpu.render import drivers_view, theme

RENDER = Path(theme.__file__).resolve().parent
VIEWS = sorted(p for p in RENDER.rglob("*.py") if p.name != "output.py")
WRITERS = {"print", "print_json", "log", "write", "writelines"}
COLOURS = {"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white", "bold", "dim", "italic"}


def _calls(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.id
                if isinstance(func, ast.Name)
                else func.attr
                if isinstance(func, ast.Attribute)
                else ""
            )
            if name in WRITERS:
                found.append((node.lineno, name))
    return found


def test_the_scan_sees_the_modules() -> None:
    assert {"theme.py", "findings.py", "smi_view.py", "nodes_table.py"} <= {p.name for p in VIEWS}
    assert _calls(RENDER / "output.py"), "output.py writes: the scan must see its calls"


@pytest.mark.parametrize("path", VIEWS, ids=lambda p: p.name)
def test_views_never_print_or_write(path: Path) -> None:
    assert _calls(path) == [], f"{path.name} writes; return a renderable and let the front end print it"


@pytest.mark.parametrize("path", [p for p in VIEWS if p.name != "theme.py"], ids=lambda p: p.name)
def test_views_take_their_styles_from_the_theme(path: Path) -> None:
    styles = [
        (node.lineno, node.value)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.split()
        and set(node.value.split()) <= COLOURS
    ]
    assert styles == [], f"{path.name} names a colour: use render/theme.py"


def test_every_severity_state_and_verdict_has_its_style() -> None:
    assert set(theme.SEVERITY) == {s.value for s in Severity}
    assert set(theme.NVME_STATE) == {s.value for s in NvmeState}
    assert set(theme.PENDING_VERDICT) <= {v.value for v in Verdict}
    # a blocker is an error; "nothing found" and "bound but not started" want a look; "provisioning" waits
    unsure = {Verdict.NO_BLOCKER_FOUND, Verdict.SCHEDULED_NOT_STARTED}
    assert {theme.pending_verdict(v) for v in Verdict if v.blocking and v not in unsure} == {theme.ERROR}
    assert {theme.pending_verdict(v) for v in unsure} == {theme.WARNING}
    assert theme.pending_verdict(Verdict.PROVISIONING) == theme.INFO
    assert set(theme.COMPAT) == set(drivers_view._COMPAT_RANK)
    assert set(theme.RISK) == {"high", "medium", "low"} and set(theme.SURVIVAL) == {"yes", "no", "at-risk"}


def test_severity_of_an_smi_finding_string() -> None:
    assert theme.severity("error") == theme.severity(Severity.ERROR) == theme.ERROR
    assert theme.severity("warning") == theme.WARNING
