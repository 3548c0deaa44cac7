"""Option values that need no pydantic: typer (0.2x) coerces every value of every parameter, given or not,
through a pydantic `TypeAdapter` built on first use, and pydantic's import and the adapters cost a plain
command ~0.05-0.1 CPU-s of its start-up (bench/HISTORY.md, "Start-up: what the floor does not pay for").
Nearly all our options are `str`, `list[str]`, `bool` or an `Enum`; for those, the value typer would return
is known without pydantic: the same `str`, a `list` of the same `str`s, the same member, or the member
typer's own choice matcher finds; a `float` option's default (`usage --idle-below`) is that float. Anything
else (another type, a value not of that shape, a choice that does not match) goes to typer's own adapter,
built then, so a wrong value reads exactly as before (tests/cli/test_coercion.py compares the two on every
parameter of the app).

This reaches into typer's internals (`_runtime_param`, `typer._coercion`): where they are not as expected
(another typer), `quicken` changes nothing and typer coerces as it always did."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["quick_value", "quicken"]

_UNKNOWN: Any = object()


def quick_value(annotation: Any, value: Any, *, case_sensitive: bool = True, ctx: Any = None) -> Any:
    """The value typer's adapter returns for `value` of a parameter annotated `annotation`, or `_UNKNOWN`
    where only the adapter can say (`value` is never None here: typer answers None itself)."""
    if annotation is str or annotation is bool or annotation is float:  # typer passes a bool's bool through
        return value if type(value) is annotation else _UNKNOWN  # a float: its default, or a value given
    if annotation == list[str]:
        if type(value) in (list, tuple) and all(type(item) is str for item in value):
            return list(value)
        return _UNKNOWN
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        if type(value) is annotation:
            return value
        if type(value) is not str:
            return _UNKNOWN
        from typer._param_types import coerce_cli_choice

        try:
            return coerce_cli_choice(value, choices=list(annotation), case_sensitive=case_sensitive, ctx=ctx)
        except ValueError:
            return _UNKNOWN  # the adapter words the error, as it always did
    return _UNKNOWN


#: The typer releases whose internals `quicken` was tested against (tests/cli/test_coercion.py); with any
#: other, typer coerces as it always did (pyproject allows typer>=0.12, whose internals differ).
TESTED_TYPER = ("0.29.",)

try:  # typer's internals, as of typer 0.29; absent or another release: `quicken` changes nothing
    import typer

    if not typer.__version__.startswith(TESTED_TYPER):
        raise ImportError(typer.__version__)
    from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
except ImportError:  # pragma: no cover - another typer
    RuntimeParam = None  # type: ignore[assignment,misc]
else:

    @dataclass(frozen=True)
    class _Quick(RuntimeParam):
        """typer's coercion of one parameter: `quick_value`, else typer's adapter (built then)."""

        descriptor: TypeDescriptor

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            case_sensitive = getattr(self.parameter_info, "case_sensitive", True)
            answer = quick_value(self.annotation, value, case_sensitive=case_sensitive, ctx=ctx)
            if answer is not _UNKNOWN:
                return answer
            return build_runtime_param(self.descriptor)._coerce_value(value, param=param, ctx=ctx)


def _quickens(param: Any) -> bool:
    descriptor = getattr(param, "type_descriptor", None)
    if descriptor is None or getattr(param, "_runtime_param", False) is not None:
        return False  # not typer's parameter, or its coercion is already built
    if (
        descriptor.file_annotation is not None
        or getattr(descriptor.parameter_info, "parser", None) is not None
    ):
        return False
    annotation = descriptor.annotation
    return (
        annotation in (str, bool, float)
        or annotation == list[str]
        or (isinstance(annotation, type) and issubclass(annotation, Enum))
    )


def quicken(params: Iterable[Any]) -> None:
    """Give each `str`, `bool`, `float`, `list[str]` and `Enum` parameter of typer's in `params`
    `quick_value`."""
    if RuntimeParam is None:
        return
    for param in params:
        if _quickens(param):
            descriptor = param.type_descriptor
            param._runtime_param = _Quick(
                parameter_info=descriptor.parameter_info,
                annotation=descriptor.annotation,
                descriptor=descriptor,
            )
