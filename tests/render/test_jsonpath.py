"""The JSONPath template layer (render/jsonpath.py) and the sort order of --sort-by (render/printers.py)."""

from __future__ import annotations

from typing import Any

import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.render.jsonpath import parse_expression, parse_template
from kubectl_gpu.render.printers import Listing, name_lines, parse_columns, sort_document

DOC: dict[str, Any] = {
    "kind": "NodeReport",
    "nodes": [
        {
            "name": "b",
            "gpus": [0, 1],
            "labels": {"kubernetes.io/arch": "arm64"},
            "ready": True,
            "mem": "16Gi",
        },
        {"name": "a", "gpus": [], "labels": {}, "ready": False, "mem": "512Mi"},
        {"name": "c", "gpus": [0], "labels": {"kubernetes.io/arch": "amd64"}, "ready": True},
    ],
}


@pytest.mark.parametrize(
    ("template", "printed"),
    [
        ("{.nodes[*].name}", "b a c"),
        ("{.kind}", "NodeReport"),
        ("kind={.kind}.", "kind=NodeReport."),
        ('{range .nodes[*]}{.name}{"\\t"}{.ready}{"\\n"}{end}', "b\ttrue\na\tfalse\nc\ttrue\n"),
        ("{range .nodes[*]}{range .gpus[*]}{@}{end};{end}", "01;;0;"),
        ("{range .nodes[*]}{.name}/{$.kind} {end}", "b/NodeReport a/NodeReport c/NodeReport "),
        ("{.nodes[?(@.ready==false)].name}", "a"),
        ('{.nodes[?(@.name=="c")].labels.kubernetes\\.io/arch}', "amd64"),
        ("{.nodes[0].labels}", '{"kubernetes.io/arch":"arm64"}'),
        ("{.nodes[-1:].name}", "c"),
        ("{.nodes[*].missing}", ""),
        ("{ .kind }", "NodeReport"),
        ("{'{'}{.kind}{'}'}", "{NodeReport}"),
    ],
)
def test_kubectl_template_forms(template: str, printed: str) -> None:
    assert parse_template(template).render(DOC) == printed


@pytest.mark.parametrize(
    ("template", "reason"),
    [
        ("{.nodes[}", "error parsing jsonpath {.nodes[}, "),
        ("{.nodes", "unclosed action"),
        ("{end}", "not in range, nothing to end"),
        ("{range .nodes[*]}{.name}", "unclosed range"),
        ('{"\\q"}', "bad string literal"),
    ],
)
def test_malformed_templates_say_why(template: str, reason: str) -> None:
    with pytest.raises(InvalidInput, match=reason.replace("[", r"\[").replace("{", r"\{")):
        parse_template(template)


def test_relaxed_expressions_and_columns() -> None:
    for text in (".name", "name", "{.name}", "{name}"):
        assert parse_expression(text, "--sort-by").values(DOC["nodes"][0]) == ["b"]
    columns = parse_columns('NAME:.name,GPUS:{.gpus[*]},F:.nodes[?(@.x=="a,b")]')
    assert [header for header, _ in columns] == ["NAME", "GPUS", "F"]
    with pytest.raises(InvalidInput, match="expected <header>:<json-path-expr>"):
        parse_columns("NAME")


def test_sort_order_absent_first_then_quantities_by_value_then_text() -> None:
    listing = Listing("nodes", "nodes", (("Node", "name"),))
    by_mem = sort_document(DOC, listing, parse_expression(".mem", "--sort-by"))
    assert [n["name"] for n in by_mem["nodes"]] == ["c", "a", "b"]  # none, 512Mi, 16Gi
    mixed = {"nodes": [{"name": n, "v": v} for n, v in (("x", "b"), ("y", 10), ("z", "9"), ("w", "a"))]}
    ordered = sort_document(mixed, listing, parse_expression(".v", "--sort-by"))
    assert [n["v"] for n in ordered["nodes"]] == ["9", 10, "a", "b"]
    ties = {"nodes": [{"name": n, "v": 1} for n in "qpr"]}
    assert [n["name"] for n in sort_document(ties, listing, parse_expression(".v", "s"))["nodes"]] == list(
        "qpr"
    )


def test_names_as_kubectl_prints_them() -> None:
    findings = {"findings": [{"object": {"kind": k, "name": n}} for k, n in
                             (("Pod", "p"), ("NodePool", "gpu"), ("Pod", "p"), ("Deployment", "d"))]}  # fmt: skip
    assert name_lines(findings["findings"], Listing("findings", "findings")) == (
        "pod/p\nnodepool.karpenter.sh/gpu\ndeployment.apps/d\n"
    )
