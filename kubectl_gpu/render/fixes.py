"""A finding's fix as lines that paste: YAML stays YAML, a command stays a command, and the words around
them become `#` comments, which both YAML and a shell skip.

The analyses write a fix as text for people (`create a NodePool that can launch it, e.g.:` and then the
NodePool; `kubectl uncordon NODE`; `wait: capacity is on its way`), and JSON keeps that text as it is. People
read it as a block they can copy whole into a manifest or a shell: a line is left as it is only when it is
YAML (the rest of the fix parses as a mapping or list of plain values) or a command (a known program, words a
shell splits, no English in its arguments); any other line is prose and is commented out. Nothing is cut,
nothing is joined: the fix's own lines are kept.
"""

from __future__ import annotations

import functools
import shlex

from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["COMMANDS", "is_command", "is_yaml", "pasteable"]

#: The programs a fix line may start with to be shown as a command.
COMMANDS = frozenset({"kubectl", "kubectl-gpu", "aws", "eksctl", "helm"})
# Words a command's arguments never are, a sentence's always has: "kubectl gpu smi NODE for the current state".
_PROSE_WORDS = frozenset(
    {"a", "an", "and", "for", "if", "in", "is", "of", "on", "or", "the", "then", "to", "with"}
)
_SHELL_PUNCTUATION = frozenset({";", "&&", "||", "|"})
_QUOTED = lazy_pattern(r"`([^`]+)`")
_PLACEHOLDER = lazy_pattern(r"\b[A-Z]{3,}\b")  # NODE, NAME: the reader fills it in


def is_command(line: str) -> bool:
    """One shell command line (or a few joined by `;`, `&&`, `|`) of a known program, that a shell splits
    into words as written: no parentheses, no unbalanced quotes, no sentence words as arguments."""
    try:
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        tokens = list(lexer)
        shlex.split(line, comments=True)
    except ValueError:
        return False
    if not tokens or tokens[0] not in COMMANDS:
        return False
    for token in tokens:
        if token in _SHELL_PUNCTUATION:
            continue
        if set(token) <= set("();&|<>") or token.lower() in _PROSE_WORDS:
            return False
    return True


#: The most values `_plain` looks at: a fix is a few dozen; aliases in cluster text (`*a` of `&a [*b, *b]`)
#: could make a small text a huge tree, which is not a manifest anyone pastes.
_MOST_VALUES = 10_000


def _plain(loaded: object) -> bool:
    """A value of a manifest: keys and strings without spaces (a sentence has them), at any depth."""
    stack, seen = [loaded], 0
    while stack:
        value = stack.pop()
        seen += 1
        if seen > _MOST_VALUES:
            return False
        if isinstance(value, dict):
            stack += [*value.keys(), *value.values()]
        elif isinstance(value, list):
            stack += value
        elif isinstance(value, str) and " " in value.strip():
            return False
    return True


def is_yaml(text: str) -> bool:
    """A YAML mapping or list whose keys and values are plain (`tolerations:` and its items, a NodePool);
    `wait: capacity is on its way` parses as YAML too, but it is a sentence."""
    import yaml  # ~20 ms to import: a command that shows no fix block does without it

    try:
        loaded = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (yaml.YAMLError, RecursionError):
        return False
    return isinstance(loaded, dict | list) and bool(loaded) and _plain(loaded)


def _prose(line: str) -> list[str]:
    """A line of prose as a comment, then each command it quotes in backticks that runs as written (not
    `kubectl delete nodeclaim NAME`, whose NAME the reader has to fill in)."""
    if not line.strip() or line.lstrip().startswith("#"):
        return [line]
    quoted = [q.strip() for q in _QUOTED.findall(line)]
    return [f"# {line}", *(q for q in quoted if is_command(q) and not _PLACEHOLDER.search(q))]


@functools.lru_cache(maxsize=4096)
def pasteable(fix: str) -> tuple[str, ...]:
    """The fix's lines, each left as it is (YAML, a command, a comment) or made a `#` comment (prose),
    followed by the commands it quotes."""
    lines = fix.strip("\n").splitlines()
    out: list[str] = []
    for index, line in enumerate(lines):
        if not line.startswith((" ", "\t")) and is_yaml("\n".join(lines[index:])):
            return (*out, *lines[index:])
        out.extend([line] if is_command(line.strip()) else _prose(line))
    return tuple(out)
