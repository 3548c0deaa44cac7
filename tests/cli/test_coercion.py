"""cli.coercion: an option's value read without pydantic is the value typer's own adapter returns, for
every parameter of the app, and a value it cannot vouch for goes to the adapter (same error, same words)."""

from __future__ import annotations

import enum
from typing import Any

import pytest
import typer
from typer._coercion import build_runtime_param

from kubectl_gpu.cli.app import app
from kubectl_gpu.cli.coercion import _UNKNOWN, quick_value, quicken


class _Sub(str):
    pass


def _params() -> list[Any]:
    root = typer.main.get_command(app)
    out: list[Any] = []
    stack = [root]
    while stack:
        command = stack.pop()
        ctx = typer.Context(command)
        out.extend(command.get_params(ctx))  # with the help option, as a run reads them
        stack.extend(getattr(command, "commands", {}).values())
    return out


def _samples(annotation: Any) -> list[Any]:
    texts = ["", "x", " padded ", "ÉtÉ", "\udcff", "a\x00b", "x" * 10_000, "-", "None", "true"]
    values: list[Any] = [*texts, _Sub("sub"), 3, 2.5, True, b"bytes", ["a"], ("a", "b"), (), [], ("a", 1)]
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        for member in annotation:
            values += [member, str(member.value), str(member.value).upper(), member.name]
    return values


def _same(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return a is b or a == b


def test_a_quick_answer_is_the_adapters_answer_for_every_parameter() -> None:
    checked = 0
    annotations = set()
    for param in _params():
        descriptor = param.type_descriptor
        case_sensitive = descriptor.parameter_info.case_sensitive
        full = build_runtime_param(descriptor)
        for value in _samples(descriptor.annotation):
            quick = quick_value(descriptor.annotation, value, case_sensitive=case_sensitive)
            if quick is _UNKNOWN:
                continue
            expected = full._coerce_value(value, param=param, ctx=None)
            assert _same(quick, expected), (param.name, descriptor.annotation, value, quick, expected)
            checked += 1
            annotations.add(repr(descriptor.annotation))
    assert checked > 1000
    assert {"<class 'str'>", "<class 'bool'>", "<class 'float'>", "list[str]"} <= annotations
    assert any("enum" in a for a in annotations)


def test_a_value_it_cannot_vouch_for_is_left_to_the_adapter() -> None:
    assert quick_value(str, _Sub("x")) is _UNKNOWN
    assert quick_value(str, 3) is _UNKNOWN
    assert quick_value(list[str], ("a", 1)) is _UNKNOWN
    assert quick_value(bool, "true") is _UNKNOWN
    assert quick_value(int, 3) is _UNKNOWN
    assert quick_value(float, "2.5") is _UNKNOWN and quick_value(float, 3) is _UNKNOWN  # pydantic reads them
    Colour = enum.Enum("Colour", {"red": "red"})
    assert quick_value(Colour, "blue") is _UNKNOWN  # the adapter words the error


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["lint", "--fail-on", "bogus"],
            "Invalid value for '--fail-on': 'bogus' is not one of 'warning', 'error'",
        ),
        (["lint", "--fail-on", "WARNING"], "'WARNING' is not one of"),
    ],
)
def test_a_wrong_choice_reads_as_typer_words_it(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from kubectl_gpu.cli.app import main

    with pytest.raises(SystemExit) as exited:
        main([*argv, "--snapshot", "examples/automode-gpu-demo.json"])
    assert exited.value.code == 2
    assert message in capsys.readouterr().err


def test_quicken_leaves_a_built_coercion_and_foreign_parameters_alone() -> None:
    param = next(p for p in _params() if p.type_descriptor.annotation is str)
    built = build_runtime_param(param.type_descriptor)
    param._runtime_param = built
    quicken([param, object()])
    assert param._runtime_param is built
