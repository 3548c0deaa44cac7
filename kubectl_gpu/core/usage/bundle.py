"""A `ScrapeSet` as the snapshot bundle stores it (its `usage` key), and back. Pure.

Layout (the texts are kept raw, as read, so `usage` re-runs offline on them):

    "usage": {"windowSeconds": 300, "looked": true, "notes": ["..."],
              "scrapes": [{"source": "dcgm", "namespace": "gpu-operator", "pod": "nvidia-dcgm-exporter-abcde",
                           "node": "i-0...", "port": 9400, "path": "/metrics", "server": null,
                           "takenAt": "2026-...Z", "text": "...", "error": null, "forbidden": false}],
              "exporterNamespaces": ["gpu-operator"]}

`exporterNamespaces` (the namespaces whose exporters the reader was told to believe) is written only when
some were named.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast, get_args

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.times import TimeError, parse_time
from kubectl_gpu.core.usage.scrape import Scrape, ScrapeSet, SourceKind

__all__ = ["merge_scrapes", "scrape_from_dict", "scrape_to_dict", "scrapes_from_dict", "scrapes_to_dict"]

_SOURCES = frozenset(get_args(SourceKind))


def _time_text(scrape: Scrape) -> str:
    return scrape.taken_at.isoformat().replace("+00:00", "Z")


def scrape_to_dict(scrape: Scrape) -> dict[str, Any]:
    return {
        "source": scrape.source,
        "namespace": scrape.namespace,
        "pod": scrape.pod,
        "node": scrape.node,
        "port": scrape.port,
        "path": scrape.path,
        "server": scrape.server,
        "takenAt": _time_text(scrape),
        "text": scrape.text,
        "error": scrape.error,
        "forbidden": scrape.forbidden,
    }


def scrapes_to_dict(scrapes: ScrapeSet) -> dict[str, Any]:
    """The bundle's `usage` value."""
    out: dict[str, Any] = {
        "windowSeconds": scrapes.window_s,
        "looked": scrapes.looked,
        "notes": list(scrapes.notes),
        "scrapes": [scrape_to_dict(s) for s in scrapes.scrapes],
    }
    if scrapes.exporter_namespaces:
        out["exporterNamespaces"] = list(scrapes.exporter_namespaces)
    return out


def _optional_str(obj: Mapping[str, Any], key: str, where: str) -> str | None:
    value = obj.get(key)
    if value is not None and not isinstance(value, str):
        raise InvalidInput(f"{where}: {key} must be a string or null, got {type(value).__name__}")
    return value


def _required_str(obj: Mapping[str, Any], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{where}: {key} must be a non-empty string")
    return value


def scrape_from_dict(obj: object, where: str) -> Scrape:
    """One entry of `usage.scrapes`; InvalidInput (one line naming `where`) when its shape is wrong."""
    if not isinstance(obj, dict):
        raise InvalidInput(f"{where}: must be an object, got {type(obj).__name__}")
    source = obj.get("source")
    if source not in _SOURCES:
        raise InvalidInput(f"{where}: source must be one of {', '.join(sorted(_SOURCES))}, got {source!r}")
    port = obj.get("port")
    if port is not None and (type(port) is not int or not 0 < port < 65536):
        raise InvalidInput(f"{where}: port must be an integer from 1 to 65535 or null, got {port!r}")
    forbidden = obj.get("forbidden", False)
    if not isinstance(forbidden, bool):
        raise InvalidInput(f"{where}: forbidden must be true or false")
    try:
        taken_at = parse_time(_required_str(obj, "takenAt", where))
    except TimeError as exc:
        raise InvalidInput(f"{where}: takenAt: {exc.message}") from None
    return Scrape(
        source=cast(SourceKind, source),
        namespace=_required_str(obj, "namespace", where),
        pod=_required_str(obj, "pod", where),
        taken_at=taken_at,
        node=_optional_str(obj, "node", where),
        port=port,
        path=_optional_str(obj, "path", where) or "/metrics",
        server=_optional_str(obj, "server", where),
        text=_optional_str(obj, "text", where),
        error=_optional_str(obj, "error", where),
        forbidden=forbidden,
    )


def scrapes_from_dict(obj: object, where: str) -> ScrapeSet:
    """The bundle's `usage` value as a ScrapeSet; `where` names it in errors (e.g. "bundle.json: usage")."""
    if not isinstance(obj, dict):
        raise InvalidInput(f"{where}: must be an object, got {type(obj).__name__}")
    window = obj.get("windowSeconds")
    if isinstance(window, bool) or not isinstance(window, int | float) or not 0 <= window < 10**7:
        raise InvalidInput(f"{where}: windowSeconds must be a number of seconds, got {window!r}")
    looked = obj.get("looked", True)
    if not isinstance(looked, bool):
        raise InvalidInput(f"{where}: looked must be true or false")
    notes = obj.get("notes")
    notes = [] if notes is None else notes
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise InvalidInput(f"{where}: notes must be a list of strings")
    scrapes = obj.get("scrapes")
    scrapes = [] if scrapes is None else scrapes
    if not isinstance(scrapes, list):
        raise InvalidInput(f"{where}: scrapes must be a list")
    namespaces = obj.get("exporterNamespaces")
    namespaces = [] if namespaces is None else namespaces
    if not isinstance(namespaces, list) or not all(isinstance(n, str) and n for n in namespaces):
        raise InvalidInput(f"{where}: exporterNamespaces must be a list of namespace names")
    return ScrapeSet(
        window_s=float(window),
        scrapes=tuple(scrape_from_dict(s, f"{where}.scrapes[{i}]") for i, s in enumerate(scrapes)),
        looked=looked,
        notes=tuple(notes),
        exporter_namespaces=tuple(namespaces),
    )


def merge_scrapes(first: ScrapeSet, second: ScrapeSet) -> ScrapeSet:
    """Two bundles' usage windows read as one input: every scrape, the longer window, every note; `looked`
    only when both looked."""
    notes = tuple(dict.fromkeys((*first.notes, *second.notes)))
    return ScrapeSet(
        window_s=max(first.window_s, second.window_s),
        scrapes=(*first.scrapes, *second.scrapes),
        looked=first.looked and second.looked,
        notes=notes,
        exporter_namespaces=tuple(dict.fromkeys((*first.exporter_namespaces, *second.exporter_namespaces))),
    )
