"""-o as kubectl reads it: a format, `jsonpath=TEMPLATE`, `custom-columns=SPEC`, or either read from a file
(`jsonpath-file=PATH`, `custom-columns-file=PATH`: kubectl's forms, its words when the file is wrong)."""

from __future__ import annotations

from enum import StrEnum

from kubectl_gpu.core.errors import InvalidInput

__all__ = ["BASIC_FORMATS", "PRINTERS", "OutputFormat", "output_format"]


class OutputFormat(StrEnum):
    table = "table"
    wide = "wide"
    json = "json"
    yaml = "yaml"
    csv = "csv"  # only commands registered with `with_global_options(..., csv=True)` accept it
    # kubectl's printers (cli.printing): the read-only commands, registered with `printing=True`
    name = "name"
    jsonpath = "jsonpath"  # -o jsonpath=TEMPLATE
    custom_columns = "custom-columns"  # -o custom-columns=HEADER:.path,...


#: -o values every command takes; `printing=True` adds PRINTERS, `csv=True` csv.
BASIC_FORMATS = ("table", "wide", "json", "yaml")
PRINTERS = ("name", "jsonpath=", "jsonpath-file=", "custom-columns=", "custom-columns-file=")

_FROM_FILE = {"jsonpath-file": OutputFormat.jsonpath, "custom-columns-file": OutputFormat.custom_columns}
_CUSTOM_FILE_FORMAT = (
    "Expected format is one line of space separated headers, one line of space separated column specs."
)


def output_format(text: str) -> tuple[OutputFormat, str | None]:
    """The format and what follows its `=` (the template or spec; a file's read in its place)."""
    name, eq, spec = text.partition("=")
    if name in _FROM_FILE:
        if not spec:
            raise InvalidInput(f"-o {name}: no file given", f"write -o {name}=PATH")
        fmt = _FROM_FILE[name]
        body = _read(spec)
        return fmt, (body if fmt is OutputFormat.jsonpath else _columns_from_file(body))
    try:
        fmt = OutputFormat(name)
    except ValueError:
        allowed = ", ".join((*BASIC_FORMATS, *PRINTERS, "csv"))
        raise InvalidInput(f"-o {text}: unknown output format", f"use one of {allowed}") from None
    templated = fmt in (OutputFormat.jsonpath, OutputFormat.custom_columns)
    if templated and not spec:
        raise InvalidInput(f"-o {name}: no template given", f"write -o {name}=...")
    if eq and not templated:
        raise InvalidInput(f"-o {text}: {name} takes no template")
    return fmt, spec if templated else None


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InvalidInput(f"error reading template {path}, open {path}: {reason.lower()}") from None


def _columns_from_file(body: str) -> str:
    """kubectl's custom-columns file (one line of headers, one of specs, split at whitespace) as a spec."""
    lines = body.splitlines()
    if not lines:
        raise InvalidInput(f"invalid template, missing header line. {_CUSTOM_FILE_FORMAT}")
    if len(lines) < 2:
        raise InvalidInput(f"invalid template, missing spec line. {_CUSTOM_FILE_FORMAT}")
    headers, specs = lines[0].split(), lines[1].split()
    if len(headers) != len(specs):
        raise InvalidInput(
            f"number of headers ({len(headers)}) and field specifications ({len(specs)}) don't match"
        )
    return ",".join(f"{header}:{spec}" for header, spec in zip(headers, specs, strict=True))
