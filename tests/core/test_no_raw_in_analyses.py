"""The analyses read models, never the objects they were parsed from: a field an analysis needs is added to
the model and read by the parser (where its errors name the field), so it cannot drift between commands."""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

import kubectl_gpu
from kubectl_gpu.core.k8s import models

CORE = Path(kubectl_gpu.__file__).parent / "core"
READERS = ("analyses", "fleet", "karpenter")  # the packages that consume models
# What reading a Kubernetes object dict looks like: obj.raw, obj["spec"], obj.get("status").
OBJECT_KEYS = frozenset({"spec", "status", "metadata"})


def _offences(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "raw":
            found.append((node.lineno, ".raw"))
        elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
            if node.slice.value in OBJECT_KEYS:
                found.append((node.lineno, f"[{node.slice.value!r}]"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in OBJECT_KEYS
        ):
            found.append((node.lineno, f".get({node.args[0].value!r})"))
    return found


def _modules() -> list[Path]:
    return sorted(p for package in READERS for p in (CORE / package).rglob("*.py"))


def test_the_scan_sees_every_way_of_reading_an_object() -> None:
    code = "a = pod.raw\nb = obj['spec']\nc = obj.get('status', {})\nd = row.spec\ne = d.get('nodes')\n"
    assert _offences(ast.parse(code)) == [(1, ".raw"), (2, "['spec']"), (3, ".get('status')")]


@pytest.mark.parametrize("path", _modules(), ids=lambda p: str(p.relative_to(CORE)))
def test_module_reads_no_object_dict(path: Path) -> None:
    found = _offences(ast.parse(path.read_text(), str(path)))
    assert not found, "\n".join(f"{path}:{line}: reads {what}" for line, what in found)


def test_scan_covers_the_analyses() -> None:
    names = {p.relative_to(CORE).parts[:2] for p in _modules()}
    assert ("analyses", "drivers") in names and ("analyses", "cost") in names


def _field_names(model: type) -> tuple[str, ...]:
    """A model's fields: a msgspec Struct's, or a dataclass's (the few models that stay dataclasses)."""
    struct_fields: tuple[str, ...] | None = getattr(model, "__struct_fields__", None)
    if struct_fields is not None:
        return struct_fields
    return tuple(f.name for f in dataclasses.fields(model))


@pytest.mark.parametrize(
    "model",
    [
        models.Node,
        models.Pod,
        models.Event,
        models.NodePool,
        models.NodeClaim,
        models.NodeClass,
        models.ResourceSlice,
    ],
    ids=lambda m: m.__name__,
)
def test_models_keep_no_raw_object(model: type) -> None:
    names = set(_field_names(model)) | set(dir(model))
    assert not names & {"raw", "spec", "status"}
