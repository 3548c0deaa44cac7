"""docs/architecture.md stays true: its package table names every subpackage, and it names every import
contract `lint-imports` enforces (issue 18: the page counted four contracts when there were five)."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = (ROOT / "docs" / "architecture.md").read_text()


def _table_cells() -> str:
    """The first column of the page's package table."""
    start = PAGE.index("## The packages")
    rows = [line for line in PAGE[start:].splitlines() if line.startswith("| `")]
    return " ".join(row.split("|")[1] for row in rows)


def _packages() -> list[str]:
    """Every subpackage two levels deep at most (`core/k8s`; deeper ones belong to their parent)."""
    found = set()
    for init in (ROOT / "kubectl_gpu").rglob("__init__.py"):
        parts = init.parent.relative_to(ROOT / "kubectl_gpu").parts
        if (0 < len(parts) <= 2 and parts[:2] != ("core", "analyses")) or parts == ("core", "analyses"):
            found.add("/".join(parts))
    return sorted(found)


def test_the_package_table_names_every_subpackage() -> None:
    cells = _table_cells()
    missing = []
    for package in _packages():
        if package == "core/analyses":
            named = "`core/analyses/<name>/`" in cells
        else:
            named = (
                re.search(rf"`{re.escape(package)}(/|\.py|`)", cells) is not None or f"`{package}/" in cells
            )
        if not named and package.count("/") == 0:
            named = f"`{package}/`" in cells or f"`{package}/" in cells
        if not named:
            missing.append(package)
    assert not missing, f"docs/architecture.md's package table does not name {missing}"


def test_every_import_contract_is_named() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = [c["name"] for c in config["tool"]["importlinter"]["contracts"]]
    assert contracts
    missing = [name for name in contracts if name not in PAGE]
    assert not missing, f"docs/architecture.md does not name the contracts {missing}"
    words = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
    assert f"{words[len(contracts)]} contracts" in PAGE
