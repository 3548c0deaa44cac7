"""Models are msgspec Structs (docs/architecture.md, "Models are msgspec.Structs"): a dataclass costs ~1 ms
to create on Python 3.11, and a command imports a few hundred models. A class under `kubectl_gpu/` stays a
dataclass only for what a Struct cannot do; this test names each such reason and fails on a dataclass that
has none."""

from __future__ import annotations

import ast
from pathlib import Path

import kubectl_gpu

PACKAGE = Path(kubectl_gpu.__file__).parent
#: `field(...)` keywords a Struct field has no equivalent of.
STRUCTLESS_FIELD_OPTIONS = {"compare", "hash", "init"}
#: Methods a Struct does not let a class define as a dataclass does (a frozen Struct's fields cannot be
#: set with `object.__setattr__`, which a frozen dataclass's `__post_init__` uses).
STRUCTLESS_METHODS = {"__post_init__", "__eq__", "__hash__"}


def _is_dataclass_decorator(node: ast.expr) -> bool:
    target = node.func if isinstance(node, ast.Call) else node
    return (isinstance(target, ast.Name) and target.id == "dataclass") or (
        isinstance(target, ast.Attribute) and target.attr == "dataclass"
    )


def _why_a_dataclass(cls: ast.ClassDef, dataclass_names: set[str]) -> str | None:
    """What this class needs that a Struct lacks; None when nothing."""
    for item in cls.body:
        if isinstance(item, ast.FunctionDef) and item.name in STRUCTLESS_METHODS:
            return f"defines {item.name}"
        if (
            isinstance(item, ast.AnnAssign)
            and isinstance(item.value, ast.Call)
            and isinstance(item.value.func, ast.Name)
            and item.value.func.id == "field"
            and (options := {k.arg for k in item.value.keywords} & STRUCTLESS_FIELD_OPTIONS)
        ):
            return f"a field with {sorted(options)}"
    for base in cls.bases:
        name = base.id if isinstance(base, ast.Name) else ast.unparse(base)
        if name in dataclass_names:
            return f"subclasses the dataclass {name}"
        if name not in {"Generic", "msgspec.Struct"}:
            return f"subclasses the plain class {name}"
    return None


def _dataclasses() -> list[tuple[str, ast.ClassDef]]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and any(map(_is_dataclass_decorator, node.decorator_list)):
                found.append((str(path.relative_to(PACKAGE)), node))
    return found


def test_every_dataclass_needs_what_a_struct_cannot_do() -> None:
    classes = _dataclasses()
    names = {cls.name for _, cls in classes}
    without_reason = [f"{where}:{cls.name}" for where, cls in classes if _why_a_dataclass(cls, names) is None]
    assert not without_reason, f"make these msgspec Structs (docs/architecture.md): {without_reason}"


def test_the_check_finds_a_dataclass_without_a_reason() -> None:
    plain = ast.parse("@dataclass(frozen=True, slots=True)\nclass Taint:\n    key: str\n").body[0]
    kept = ast.parse("@dataclass(frozen=True)\nclass Pod:\n    d: int = field(compare=False)\n").body[0]
    assert isinstance(plain, ast.ClassDef) and isinstance(kept, ast.ClassDef)
    assert _why_a_dataclass(plain, set()) is None
    assert _why_a_dataclass(kept, set()) == "a field with ['compare']"


def test_the_models_a_command_reads_most_are_structs() -> None:
    from kubectl_gpu.core.k8s import models

    for model in (models.Node, models.Meta, models.NodePool, models.NodeClaim, models.Event):
        assert hasattr(model, "__struct_fields__"), model.__name__
