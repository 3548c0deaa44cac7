"""One findings layout in every command (issue 23, item 3), as the commands print it when piped.

Per command, on the demo bundle: the output is whole (no `…` or `...` cut), each fix is a block that pastes
(YAML that `yaml.safe_load` reads, or shell commands that `shlex.split` reads, around `#` comments), every
command that shows findings ends with the one summary line, and every JSON report that has an evaluation
time calls it `evaluatedAt`. The piped text is kept as golden files (tests/render/golden/piped/), so a
change to the layout shows in a diff.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kubectl_gpu.core.report import Finding, ObjectRef, Severity
from kubectl_gpu.render.findings import FIX_INDENT, summary_line
from kubectl_gpu.render.fixes import COMMANDS, is_command, is_yaml, pasteable
from tests.conftest import Result
from tests.render.helpers import GOLDEN, UPDATE

ROOT = Path(__file__).resolve().parents[2]
DEMO = "examples/automode-gpu-demo.json"
LINT_INPUT = "tests/fixtures/karpenter/eks-docs__automode-nodepool-gpu-g6e-g6.yaml"
Cli = Callable[..., Result]

# name -> argv: every command that shows findings or fixes, plain and wide.
COMMANDS_SHOWN: dict[str, list[str]] = {
    "pending": ["pending"],
    "pending-wide": ["pending", "-o", "wide"],
    "pending-all": ["pending", "--all-pending"],
    "explain-toleration": ["explain", "default/chat-api-7d9f8c6b5d-x2k4p"],
    "explain-nodepool": ["explain", "inference/neuron-bert"],
    "diagnose": ["diagnose"],
    "diagnose-wide": ["diagnose", "-o", "wide"],
    "lint": ["lint"],
    "lifecycle": ["lifecycle"],
    "cost": ["cost"],
    "drivers": ["drivers"],
    "nvme": ["nvme"],
}
# The commands whose output lists findings (and so ends with the summary line).
WITH_FINDINGS = ("diagnose", "diagnose-wide", "lint", "lifecycle", "cost", "drivers", "nvme")
SUMMARY = re.compile(r"^(\d+) findings?: (\d+) errors?, (\d+) warnings?, (\d+) info(;|$)")


def _run(cli: Cli, monkeypatch: pytest.MonkeyPatch, name: str) -> Result:
    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("NO_COLOR", "1")
    return cli(*COMMANDS_SHOWN[name], "--snapshot", DEMO)


def _fix_blocks(text: str) -> list[list[str]]:
    """Every fix block of a command's output: the lines indented FIX_INDENT under a finding's head (the
    table form's FIXES, the block form's `fix:`, explain's `Fix:`), dedented."""
    blocks: list[list[str]] = []
    current: list[str] | None = None
    for line in text.splitlines():
        if line.startswith(FIX_INDENT) and current is not None:
            current.append(line[len(FIX_INDENT) :])
            continue
        if current:
            blocks.append(current)
        heading = line.strip() in ("FIXES", "fix:", "Fix:")
        in_fixes = current is not None and bool(line.strip()) and not line.startswith(" ")
        current = [] if heading or in_fixes else None
    if current:
        blocks.append(current)
    return blocks


def _pastes(block: list[str]) -> bool:
    """YAML that loads, or shell commands that split, around `#` comments."""
    code = [line for line in block if line.strip() and not line.lstrip().startswith("#")]
    if not code:
        return True
    if all(line.split()[0] in COMMANDS for line in code):
        return all(shlex.split(line, comments=True) for line in code)
    loaded = yaml.safe_load("\n".join(block))
    return isinstance(loaded, dict | list)


@pytest.mark.parametrize("name", sorted(COMMANDS_SHOWN))
def test_piped_output_is_whole_and_its_fixes_paste(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    result = _run(cli, monkeypatch, name)
    assert "…" not in result.out, f"{name}: a cell is cut"
    assert not re.search(r"\w\.\.\.(\s|$)", result.out), f"{name}: a cell is cut with ..."
    blocks = _fix_blocks(result.out)
    assert blocks, f"{name}: no fix block found"
    for block in blocks:
        assert _pastes(block), f"{name}: this fix block does not paste:\n" + "\n".join(block)
    path = GOLDEN / "piped" / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(exist_ok=True)
        path.write_text(result.out, encoding="utf-8")
        return
    assert result.out == path.read_text(encoding="utf-8"), (
        f"{path.name} differs (UPDATE_GOLDEN=1 rewrites it)"
    )


def test_the_demo_fixes_are_shown_as_yaml_and_commands(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """Not every fix reads as a comment: the toleration, the NodePool and the commands paste as themselves."""
    blocks = _fix_blocks(_run(cli, monkeypatch, "diagnose").out)
    code = {line for block in blocks for line in block if not line.startswith("#")}
    assert "tolerations:" in code and "kind: NodePool" in code
    assert "kubectl uncordon i-06cc6be1805fdf179" in code
    assert "kubectl gpu snapshot --probe" in code  # quoted in the prose, shown as a line of its own


def test_one_summary_line_in_every_command(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same words in every command that lists findings, its counts those of its JSON findings, and none
    of the old styles (`finding(s)`, `1 errors`, `0 error`)."""
    for name in WITH_FINDINGS:
        result = _run(cli, monkeypatch, name)
        lines = [line for line in result.out.splitlines() if SUMMARY.match(line)]
        assert len(lines) == 1, f"{name}: {len(lines)} summary lines"
        found = SUMMARY.match(lines[0])
        assert found is not None
        argv = [a for a in COMMANDS_SHOWN[name] if a not in ("-o", "wide")]
        document = json.loads(cli(*argv, "--snapshot", DEMO, "-o", "json").out)
        findings = document["findings"]
        expected = [
            len(findings),
            *(sum(f["severity"] == s for f in findings) for s in ("error", "warning", "info")),
        ]
        assert [int(n) for n in found.groups()[:4]] == expected, name
        assert lines[0].startswith(summary_line([_finding(f) for f in findings]))
        assert "finding(s)" not in result.out and not re.search(
            r"\b1 (errors|warnings|findings)\b", result.out
        )
        assert not re.search(r"\b(0|[2-9]\d*) (error|warning|finding)\b", result.out), name


def _finding(data: dict[str, object]) -> Finding:
    return Finding(str(data["code"]), Severity(data["severity"]), ObjectRef("Node", "x"), "m")


def test_summary_line_plurals() -> None:
    def of(*severities: Severity) -> list[Finding]:
        return [Finding("X", s, ObjectRef("Node", "n"), "m") for s in severities]

    assert summary_line(of(Severity.ERROR)) == "1 finding: 1 error, 0 warnings, 0 info"
    assert summary_line(of(Severity.WARNING, Severity.WARNING, Severity.INFO)) == (
        "3 findings: 0 errors, 2 warnings, 1 info"
    )


JSON_COMMANDS = {
    "nodes": ["nodes"],
    "pending": ["pending"],
    "explain": ["explain", "default/chat-api-7d9f8c6b5d-x2k4p"],
    "drivers": ["drivers"],
    "nvme": ["nvme"],
    "lifecycle": ["lifecycle"],
    "lint": ["lint"],
    "cost": ["cost"],
    "inventory": ["inventory"],
    "diagnose": ["diagnose"],
    "smi": ["smi", "--all"],
}
# The documents that depend on the instant they were evaluated at (docs/json-contract.md's table).
EVALUATED = {"pending", "explain", "lifecycle", "cost", "diagnose"}


@pytest.mark.parametrize("name", sorted(JSON_COMMANDS))
def test_one_time_key_in_every_json_report(cli: Cli, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """`evaluatedAt` wherever a report has an evaluation time; `now` only where it is kept for the
    deprecation period (lifecycle, cost), with the same value."""
    monkeypatch.chdir(ROOT)
    document = json.loads(cli(*JSON_COMMANDS[name], "--snapshot", DEMO, "-o", "json").out)
    times = {key for key in document if key in ("evaluatedAt", "now", "evaluated", "time", "at")}
    if name in EVALUATED:
        assert document.get("evaluatedAt") == "2026-11-28T09:00:00Z", name
    if name in ("lifecycle", "cost"):
        assert times == {"evaluatedAt", "now"} and document["now"] == document["evaluatedAt"]
    else:
        assert times <= {"evaluatedAt"}, name
    contract = (ROOT / "docs" / "json-contract.md").read_text()
    assert ("`evaluatedAt`" in contract.split(f"| `{name}` |")[1].split("\n")[0]) is (name in EVALUATED)


@pytest.mark.parametrize(
    ("fix", "expected"),
    [
        ("kubectl uncordon i-0abc", ("kubectl uncordon i-0abc",)),
        ("wait: capacity is on its way", ("# wait: capacity is on its way",)),
        (
            "create one, e.g.:\nkind: NodePool\nmetadata:\n  name: x",
            ("# create one, e.g.:", "kind: NodePool", "metadata:", "  name: x"),
        ),
        (
            "kubectl gpu smi i-0abc for the current state; kubectl gpu shell i-0abc for dmesg",
            ("# kubectl gpu smi i-0abc for the current state; kubectl gpu shell i-0abc for dmesg",),
        ),
        ("kubectl gpu smi NODE (look for XID)", ("# kubectl gpu smi NODE (look for XID)",)),
        (
            "run `kubectl gpu snapshot --probe`, or",
            ("# run `kubectl gpu snapshot --probe`, or", "kubectl gpu snapshot --probe"),
        ),
        ("replace it (`kubectl delete nodeclaim NAME`)", ("# replace it (`kubectl delete nodeclaim NAME`)",)),
        (
            'tolerations:\n- key: "a"\n  operator: "Exists"',
            ("tolerations:", '- key: "a"', '  operator: "Exists"'),
        ),
        ('key: "unbalanced', ('# key: "unbalanced',)),
    ],
)
def test_a_fix_is_shown_as_it_pastes(fix: str, expected: tuple[str, ...]) -> None:
    assert pasteable(fix) == expected


def test_what_counts_as_yaml_and_as_a_command() -> None:
    assert is_yaml("disruption: {consolidationPolicy: WhenEmpty}  # or a budget")
    assert not is_yaml("plan for it: checkpoint long jobs")
    assert not is_yaml("kubectl uncordon x")
    assert is_command("kubectl get events --field-selector reportingComponent=x")
    assert not is_command("kubectl get 'unbalanced")
    assert not is_command("rm -rf /")  # not a program a fix names


def test_a_fix_of_hostile_yaml_is_prose_quickly() -> None:
    """Aliases that expand to a huge tree (cluster text may hold `&` and `*`) and deep nesting are not a
    manifest: commented out, without walking the tree."""
    laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n" for i in range(8)
    )
    assert not is_yaml(laughs)
    assert not is_yaml("k: " + "[" * 5000 + "]" * 5000)
    assert pasteable("key: " + "[" * 5000)[0].startswith("# key: [[[")
