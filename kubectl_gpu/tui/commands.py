"""The `:` command line: what it accepts and what it completes (k9s style: `:nodes`, `:pending`, `:ctx prod`,
`:ns ml`). Parsing is plain data, tested without an app."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import msgspec

from kubectl_gpu.pages import aliases

__all__ = ["ALIASES", "COMMANDS", "Command", "complete", "parse"]

#: what `:NAME` opens: every view's id, and the short names k9s users type (each page's `aliases`,
#: kubectl_gpu/pages)
ALIASES: dict[str, str] = aliases()

#: every command with what it takes, for `?` and completion
COMMANDS: dict[str, str] = {
    "ctx": "NAME: switch to another kubeconfig context; alone: the Fleet, every context at once",
    "fleet": "the Fleet: every kubeconfig context at once (as :ctx alone)",
    "ns": "NAME|all: show one namespace's pods (node figures still count every pod); alone: pick one",
    "refresh": "read the cluster again (r)",
    "help": "every key (?)",
    "quit": "leave (q)",
    **{name: f"open {view}" for name, view in ALIASES.items() if name == view},
}


class Command(msgspec.Struct, frozen=True):
    kind: str  # view | ctx | ns | pick-ns | refresh | help | quit
    arg: str | None = None


def parse(text: str) -> Command:
    """`:nodes`, `:po`, `:ctx prod`, `:ns ml`, `:ns all`, `:ns` (pick), `:q`; ValueError with what is wrong."""
    words = text.strip().lstrip(":").split()
    if not words:
        raise ValueError("empty command (try :nodes, :pending, :ctx NAME, :ns NAME)")
    head, args = words[0].lower(), words[1:]
    if head in ALIASES and not args:
        return Command("view", ALIASES[head])
    if head == "fleet" and not args:
        return Command("ctx")
    if head in ("ctx", "context", "contexts"):
        if len(args) > 1:
            raise ValueError(":ctx NAME (one context name; tab completes), or :ctx alone for the fleet")
        return Command("ctx", args[0] if args else None)
    if head in ("ns", "namespace", "namespaces"):
        if len(args) > 1:
            raise ValueError(":ns NAME, :ns all for every namespace, or :ns alone to pick one")
        if not args:
            return Command("pick-ns")
        value = args[0]
        return Command("ns", None if value in ("all", "-A", "*", "0") else value)
    if head in ("q", "quit", "q!", "exit") and not args:
        return Command("quit")
    if head in ("r", "refresh", "reload") and not args:
        return Command("refresh")
    if head in ("help", "h", "?") and not args:
        return Command("help")
    raise ValueError(f"unknown command :{' '.join(words)} (? lists the commands)")


def complete(
    text: str, contexts: Callable[[], Sequence[str]], namespaces: Callable[[], Sequence[str]]
) -> str | None:
    """The completed command line for what is typed so far, or None: command names, then context and
    namespace names after `ctx ` / `ns `."""
    if not text:
        return None
    head, space, rest = text.partition(" ")
    if not space:
        names = sorted({*ALIASES, *COMMANDS})
        return next((n for n in names if n.startswith(head.lower()) and n != head), None)
    if " " in rest:
        return None
    if head in ("ctx", "context", "contexts"):
        pool: Sequence[str] = contexts()
    elif head in ("ns", "namespace"):
        pool = ["all", *namespaces()]
    else:
        return None
    match = next((name for name in pool if name.startswith(rest) and name != rest), None)
    return f"{head} {match}" if match else None
