#!/usr/bin/env python3
"""Build kubectl_gpu/data/node_health.json from the EKS node monitoring agent's own documentation.

Reads `k8s-nodes/reference/eks-node-monitoring-agent__node-health-issues.adoc` (a verbatim copy of
aws/eks-node-monitoring-agent docs/node-health-issues.adoc) and its line of `PROVENANCE.jsonl` from the
shared fixtures (`--shared`, default ../shared) or from a folder laid out like them (`--fixtures`, e.g. the
vendored copy in tests/fixtures/health, which the tests use), and writes every issue with its severity
(Condition: the agent sets the node condition and auto repair may act; Event: an Event only), the
condition type it belongs to, and its description. XID repair actions come from EKS-FACTS §3.4 (awsdocs
status-conditions-nvidia.csv @c88259ae) and are copied here with that source.

    python scripts/build_node_health.py [--shared ../shared | --fixtures DIR] [--check]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "kubectl_gpu" / "data" / "node_health.json"
ADOC = "k8s-nodes/reference/eks-node-monitoring-agent__node-health-issues.adoc"  # under the fixtures folder

# From EKS-FACTS.md §3.4: "NVIDIA XID repair table (status-conditions-nvidia.csv @c88259ae)".
XID_REPAIRS = {
    "source": "awsdocs/amazon-eks-user-guide status-conditions-nvidia.csv @c88259ae (via EKS-FACTS.md §3.4)",
    "actions": [
        {"xid": 48, "action": "replace (graceful)"},
        {"xid": 63, "action": "replace (graceful)"},
        {"xid": 64, "action": "replace (graceful)"},
        {"xid": 74, "action": "reboot"},
        {"xid": 79, "action": "reboot"},
        {"xid": 94, "action": "depends"},
        {"xid": 95, "action": "depends"},
        {"xid": 119, "action": "replace (graceful)"},
        {"xid": 120, "action": "replace (graceful)"},
        {"xid": 121, "action": "informational"},
        {"xid": 140, "action": "replace (forceful)"},
    ],
}


def parse(text: str) -> list[dict[str, str]]:
    issues: list[dict[str, str]] = []
    condition = None
    for block in re.split(r"\n(?=\[#node-health-)", text):
        found = re.search(r"The monitoring condition is `(\w+)`", block)
        if found:
            condition = found.group(1)
        table = re.search(r"\|===\n(.*?)\n\|===", block, re.S)
        if not table or condition is None:
            continue
        cells = [c.strip() for c in table.group(1).split("\n|") if c.strip()]
        cells = [c.lstrip("|").strip() for c in cells]
        if cells[:3] != ["Name", "Severity", "Description"]:
            raise SystemExit(f"unexpected table header in {condition}: {cells[:3]}")
        rows = cells[3:]
        for i in range(0, len(rows) - 2, 3):
            issues.append(
                {"name": rows[i], "severity": rows[i + 1], "condition": condition, "description": rows[i + 2]}
            )
    return issues


def build(fixtures: Path) -> str:
    text = (fixtures / ADOC).read_text()
    provenance = next(
        json.loads(line) for line in (fixtures / "PROVENANCE.jsonl").read_text().splitlines() if ADOC in line
    )
    data = {
        "source": f"{provenance['source']} {provenance['path']} @{provenance['commit']}",
        "license": provenance["license"],
        "notes": "Condition = terminal, the agent sets the node condition and auto repair may act; Event = "
        "Event only. [Code] in a name stands for the XID / DCGM code.",
        "issues": parse(text),
        "xidRepairs": XID_REPAIRS,
    }
    return json.dumps(data, indent=1, ensure_ascii=False) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    parser.add_argument(
        "--fixtures",
        type=Path,
        help="a folder laid out like SHARED/fixtures (default), e.g. tests/fixtures/health",
    )
    parser.add_argument("--check", action="store_true", help="exit 1 when the data file is out of date")
    args = parser.parse_args()
    text = build(args.fixtures or args.shared / "fixtures")
    if args.check:
        return 0 if OUT.read_text() == text else 1
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
