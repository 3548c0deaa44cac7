"""Regular expressions compiled on first use, not at import.

`re.compile` runs Python's own regex compiler: ~0.2-0.5 ms a pattern, and the package's modules hold some
170 module-level patterns, most of which a given command never uses (the Karpenter and lifecycle message patterns when a
snapshot has no such events, the credential patterns when nothing is scrubbed): 20-30 ms of `diagnose`'s
start-up (bench/HISTORY.md). `lazy_pattern` stands for the compiled pattern; its first method call compiles
it and keeps the compiled pattern's methods on the object, so every later call is the compiled one's own.
Use it only through the pattern's methods (`.match`, `.search`, `.sub`, ...) and `.pattern`, `.flags`:
`re.sub(PATTERN, ...)` and `isinstance(x, re.Pattern)` want a real one.
"""

from __future__ import annotations

import re
from typing import Any, AnyStr, cast

__all__ = ["lazy_pattern"]

# What a later call finds on the object itself, not through `__getattr__`.
_METHODS = ("match", "search", "fullmatch", "finditer", "findall", "sub", "subn", "split", "scanner")


class _LazyPattern:
    def __init__(self, pattern: str | bytes, flags: int) -> None:
        self.pattern = pattern
        self._flags = flags

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # copy and pickle look up their hooks: not a use
            raise AttributeError(name)
        compiled = re.compile(self.pattern, self._flags)
        for method in _METHODS:
            setattr(self, method, getattr(compiled, method))
        self.flags, self.groupindex, self.groups = compiled.flags, compiled.groupindex, compiled.groups
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazy_pattern({self.pattern!r}, {self._flags!r})"


def lazy_pattern(pattern: AnyStr, flags: int = 0) -> re.Pattern[AnyStr]:
    """`re.compile(pattern, flags)`, compiled when first used."""
    return cast("re.Pattern[AnyStr]", _LazyPattern(pattern, flags))
