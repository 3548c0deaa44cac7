"""Untrusted text is made safe once, where reports become views (render/: the view model's constructors,
render/safe.py, render/messages.py for a message, render/page_lines.py for the TUI's own page lines); the
TUI draws the clean text it is given and calls no cleaner (issue 39, item 3). This test reads kubectl_gpu/tui
and fails on an import of the cleaner (`render.safe`, or `shown`/`shown_block`/`scrub`) or a call of it."""

from __future__ import annotations

import ast
from pathlib import Path

TUI = Path(__file__).resolve().parents[2] / "kubectl_gpu" / "tui"
CLEANERS = {"safe_line", "safe_block", "shown", "shown_block", "scrub"}
CLEANER_MODULES = {"kubectl_gpu.render.safe", "kubectl_gpu.kube.secret_text"}

#: files another change is moving to clean text right now (their text is to arrive clean from render/);
#: remove an entry once its file is clean: nothing may be added here
NOT_YET: dict[str, str] = {}


def cleaner_uses(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module in CLEANER_MODULES:
                found.append(f"line {node.lineno}: from {node.module} import ...")
            names = {*CLEANERS, *(m.rsplit(".", 1)[1] for m in CLEANER_MODULES)}
            found += [f"line {node.lineno}: imports {a.name}" for a in node.names if a.name in names]
        elif isinstance(node, ast.Import):
            found += [f"line {node.lineno}: import {a.name}" for a in node.names if a.name in CLEANER_MODULES]
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                name = node.func.attr if node.func.value.id in ("safe", "messages", "secret_text") else None
            if name in CLEANERS:
                found.append(f"line {node.lineno}: calls {name}")
    return found


def test_the_tui_calls_no_cleaner() -> None:
    offenders = {}
    for path in sorted(TUI.rglob("*.py")):
        uses = cleaner_uses(path.read_text())
        if uses:
            offenders[path.relative_to(TUI).as_posix()] = uses
    unexpected = {name: uses for name, uses in offenders.items() if name not in NOT_YET}
    assert unexpected == {}, "make the text clean in render/ (the view model, render/page_lines.py)"


def test_the_check_sees_each_way_of_calling_the_cleaner() -> None:
    source = (
        "from kubectl_gpu.render.safe import safe_line\n"
        "from kubectl_gpu.render.messages import shown\n"
        "from kubectl_gpu.render import safe\n"
        "import kubectl_gpu.kube.secret_text\n"
        "safe.safe_block(x)\n"
        "column.shown(cell)\n"  # a view-model column's own method: not the cleaner
    )
    assert cleaner_uses(source) == [
        "line 1: from kubectl_gpu.render.safe import ...",
        "line 1: imports safe_line",
        "line 2: imports shown",
        "line 3: imports safe",
        "line 4: import kubectl_gpu.kube.secret_text",
        "line 5: calls safe_block",
    ]
