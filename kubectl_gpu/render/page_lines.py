"""The TUI's own lines that carry cluster text but are not a report's view: a page's title, the YAML, events
and log pages' lines, the header's context and namespace, a debug job's outcome, the usage view's notes.
Each is made safe here, at the render boundary (`render.safe`, and `render.messages` for a message that
may hold a credential), so that kubectl_gpu/tui draws clean text and calls no cleaner
(tests/tui/test_no_cleaner.py). A `Line` is (text, theme style name)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from kubectl_gpu.core.report import ObjectRef
from kubectl_gpu.render import theme
from kubectl_gpu.render.messages import shown
from kubectl_gpu.render.safe import safe_block, safe_line

__all__ = [
    "Line",
    "cluster_names",
    "debug_job_lines",
    "events_title",
    "header_context",
    "header_files",
    "header_namespace",
    "left_pod_lines",
    "message_line",
    "namespace_missing",
    "no_events",
    "no_longer_pending",
    "not_in_refresh",
    "page_lines",
    "page_text",
    "page_title",
    "pod_gone",
    "scope_note",
    "usage_summary_lines",
]

Line = tuple[str, str]


def page_title(what: str, subject: ObjectRef | str = "") -> str:
    """A page's title: our words, then the object it is about (a cluster name: one line, made safe)."""
    return safe_line(f"{what} {subject}".rstrip())


def page_text(text: str) -> str:
    """Cluster text a page shows whole (a YAML, a log, a fix) and `c` copies: line breaks kept, every
    other control shown escaped."""
    return safe_block(text)


def page_lines(text: str) -> list[str]:
    """`page_text`, line by line."""
    return page_text(text).split("\n")


def no_longer_pending(key: str) -> str:
    return safe_line(f"{key}: no longer Pending (scheduled, deleted, or out of the scope read)")


def message_line(text: str) -> str:
    """A message of the tool's about the cluster (a job's error, a read that failed) on one line: no
    credential, no control (`render.messages.shown`)."""
    return shown(text)


def not_in_refresh(ref: ObjectRef) -> str:
    return safe_line(f"{ref} is not in this refresh's data (a kind the tool does not read, or not readable)")


def no_events(ref: ObjectRef, *, unreadable: bool) -> str:
    return safe_line(f"{ref}: {'events could not be read' if unreadable else 'no events recorded for it'}")


def events_title(ref: ObjectRef, count: int) -> str:
    return safe_line(f"{count} event(s) for {ref}")


def pod_gone(ref: ObjectRef, gone: str) -> str:
    return safe_line(f"{ref}: {gone}")


def scope_note(missing: str) -> str:
    """A view title's note when the namespace in scope does not exist."""
    return safe_line(f"ns {missing}: not found")


def namespace_missing(missing: str) -> str:
    """An empty view's sentence when the namespace in scope does not exist (never `0` as if all were fine)."""
    return safe_line(f'Namespace "{missing}" not found: no pod to show (:ns all shows every namespace).')


def cluster_names(names: Iterable[str]) -> list[str]:
    """Names from the cluster (nodes, images, a namespace) for a one-line list."""
    return [safe_line(name) for name in names]


def header_context(context: str | None) -> str | None:
    """The kubeconfig's or the bundle's context name, as the header shows it."""
    return safe_line(context) if context else context


def header_namespace(namespace: str | None) -> str:
    return safe_line(f"ns {namespace or 'all'}")


def header_files(files: Sequence[str]) -> str:
    """The snapshot's file names, as the header shows them."""
    return safe_line(", ".join(files))


def debug_job_lines(warnings: Iterable[str], error: str | None) -> list[Line]:
    """A debug job's warnings (each once) and its error, as `kubectl gpu smi` writes them on stderr."""
    lines = [(f"warning: {shown(w)}", theme.WARNING) for w in dict.fromkeys(warnings)]
    if error:
        lines.append((f"error: {shown(error)}", theme.ERROR))
    return lines


def left_pod_lines(pods: Iterable[str]) -> list[Line]:
    """The debug pods a job could not delete."""
    return [(f"could not delete debug pod {shown(p)}; run kubectl gpu cleanup", theme.ERROR) for p in pods]


def usage_summary_lines(could_not_look: Iterable[str], notes: Iterable[str]) -> list[Line]:
    """The usage view's summary, most telling first: what could not be looked at, then the notes."""
    lines = [(f"could not look: {shown(line)}", theme.ERROR) for line in could_not_look]
    lines += [(shown(note), theme.INFO if note.startswith("sampling") else theme.WARNING) for note in notes]
    return lines
