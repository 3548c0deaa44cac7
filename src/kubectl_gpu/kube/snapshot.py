"""Snapshot source: files or directories of `kubectl get -o json|yaml` output, or our own bundle.

Accepted inputs, mixed freely:
- a `List` (what `kubectl get nodes,pods,... -A -o json` prints) or a typed list (`NodeList`),
- a single object, multi-document YAML,
- our bundle (`kind: Snapshot`, written by `kubectl gpu snapshot`), which adds capture time, context,
  notes (403s, absent CRDs at capture time) and probe outputs per node.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import yaml

from kubectl_gpu import __version__
from kubectl_gpu.core.cluster import ClusterState
from kubectl_gpu.core.parse import ModelError, kind_of, parse_object
from kubectl_gpu.core.timeutil import TimeError, parse_time
from kubectl_gpu.errors import InputError
from kubectl_gpu.kube.heap import bulk_load

__all__ = ["BUNDLE_API_VERSION", "build_bundle", "load_snapshot", "load_text", "redact", "write_bundle"]

BUNDLE_API_VERSION = "kubectl-gpu/v1"
BUNDLE_KIND = "Snapshot"
_SUFFIXES = {".json", ".yaml", ".yml"}
_YamlLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES)
            if not found:
                raise InputError(f"{path}: no .json or .yaml files in this directory")
            yield from found
        elif path.is_file():
            yield path
        elif path.exists():
            raise InputError(f"{path}: not a regular file or directory")
        else:
            raise InputError(f"{path}: no such file or directory", "check the --snapshot path")


def _documents(path: Path) -> list[Any]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _decode(data, str(path))


def _decode(data: bytes, source: str) -> list[Any]:
    """JSON (one document) or YAML (any number of documents), by the first character."""
    stripped = data.lstrip()
    if not stripped:
        raise InputError(f"{source}: no input" if source == "<stdin>" else f"{source}: file is empty")
    if stripped[:1] in (b"{", b"["):
        try:
            return [orjson.loads(data)]
        except orjson.JSONDecodeError as exc:
            raise InputError(f"{source}: not valid JSON ({exc}); is the input truncated?") from None
    try:
        return [doc for doc in yaml.load_all(data, Loader=_YamlLoader) if doc is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "malformed document"
        raise InputError(f"{source}: not valid YAML{where} ({problem}); is the input truncated?") from None
    except UnicodeDecodeError:
        raise InputError(f"{source}: not a text file (expected JSON or YAML)") from None


def _objects(doc: Any, path: str, where: str) -> Iterator[dict[str, Any]]:
    if isinstance(doc, list):
        for index, item in enumerate(doc):
            yield from _objects(item, path, f"{where}[{index}]")
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
        raise InputError(f"{path}: {where or 'document'} is not a Kubernetes object or List (no 'kind')")
    kind = doc["kind"]
    if kind == "List" or (kind.endswith("List") and "items" in doc):
        items = doc.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            raise InputError(f"{path}: {kind}.items must be a list")
        item_kind = kind[: -len("List")] if kind != "List" else None
        for index, item in enumerate(items):
            if isinstance(item, dict) and item_kind and "kind" not in item:
                # Typed lists from the API omit kind/apiVersion on items.
                item = {**item, "kind": item_kind, "apiVersion": doc.get("apiVersion", "v1")}
            yield from _objects(item, path, f"items[{index}]")
        return
    yield doc


def _bundle_meta(doc: dict[str, Any], path: str, state: ClusterState) -> list[Any]:
    version = doc.get("apiVersion")
    if version != BUNDLE_API_VERSION:
        raise InputError(
            f"{path}: snapshot bundle version {version!r} is not supported",
            f"this kubectl-gpu reads {BUNDLE_API_VERSION}; upgrade kubectl-gpu",
        )
    captured = doc.get("capturedAt")
    if captured is not None:
        try:
            state.captured_at = parse_time(str(captured))
        except TimeError as exc:
            raise InputError(f"{path}: capturedAt: {exc}") from None
    state.context = doc.get("context") or state.context
    for note in doc.get("notes") or []:
        if isinstance(note, dict) and isinstance(note.get("message"), str):
            state.note(str(note.get("code", "NOTE")), note["message"], note.get("kind"))
    state.absent.update(str(k) for k in doc.get("absent") or [])
    probes = doc.get("probes") or {}
    if not isinstance(probes, dict):
        raise InputError(f"{path}: probes must be an object keyed by node name")
    state.probes.update(probes)
    objects = doc.get("objects")
    if not isinstance(objects, list):
        raise InputError(f"{path}: snapshot bundle has no 'objects' list")
    return objects


def load_snapshot(paths: Iterable[str | os.PathLike[str]]) -> ClusterState:
    """Load and parse every object from the given files and directories into one ClusterState."""
    with bulk_load():
        files = list(_files(paths))
        state = _load((str(path), _documents(path)) for path in files)
        state.source = ", ".join(str(p) for p in files)
        return state


def load_text(text: str | bytes, source: str = "<stdin>") -> ClusterState:
    """The same, from text (e.g. `kustomize build` output piped to `kubectl gpu lint -f -`)."""
    data = text.encode() if isinstance(text, str) else text
    state = _load([(source, _decode(data, source))])
    state.source = source
    return state


def _load(documents: Iterable[tuple[str, list[Any]]]) -> ClusterState:
    state = ClusterState()
    seen: dict[tuple[str, str, str | None, str], Any] = {}
    skipped: dict[str, int] = {}
    for source, docs_of_source in documents:
        for doc in docs_of_source:
            if isinstance(doc, dict) and doc.get("kind") == BUNDLE_KIND:
                docs: Any = _bundle_meta(doc, source, state)
            else:
                docs = doc
            for obj in _objects(docs, source, ""):
                try:
                    model = parse_object(obj)
                except ModelError as exc:
                    raise InputError(f"{source}: {exc}") from None
                group, kind = kind_of(obj)
                if model is None:
                    label = f"{kind}.{group}" if group else kind
                    skipped[label] = skipped.get(label, 0) + 1
                    continue
                seen[(group, kind, model.meta.namespace, model.meta.name)] = model
    state.add(seen.values())
    if skipped:
        detail = ", ".join(f"{n} {k}" for k, n in sorted(skipped.items()))
        state.note(
            "SKIPPED", f"skipped {sum(skipped.values())} objects of kinds this tool does not read ({detail})"
        )
    return state


_REDACTED = "<redacted>"
_DROP_ANNOTATIONS = ("kubectl.kubernetes.io/last-applied-configuration",)


def _redact_containers(containers: Any) -> None:
    if not isinstance(containers, list):
        return
    for container in containers:
        if not isinstance(container, dict):
            continue
        for env in container.get("env") or []:
            if isinstance(env, dict) and "value" in env:
                env["value"] = _REDACTED
        if isinstance(container.get("args"), list):
            # Arguments carry tokens as often as env does; keep their count, not their text.
            container["args"] = [_REDACTED for _ in container["args"]]


def redact(obj: dict[str, Any]) -> dict[str, Any]:
    """Remove what a support bundle must not carry: env values, args, last-applied configuration.

    Works in place on a fresh dict from the API (the live source owns it) and returns it.
    """
    meta = obj.get("metadata")
    if isinstance(meta, dict) and isinstance(meta.get("annotations"), dict):
        for key in _DROP_ANNOTATIONS:
            meta["annotations"].pop(key, None)
    spec = obj.get("spec")
    if obj.get("kind") == "Pod" and isinstance(spec, dict):
        for key in ("containers", "initContainers", "ephemeralContainers"):
            _redact_containers(spec.get(key))
    return obj


def build_bundle(
    objects: list[dict[str, Any]],
    *,
    captured_at: datetime,
    context: str | None,
    notes: list[dict[str, Any]],
    absent: Iterable[str],
    probes: dict[str, Any] | None = None,
    redacted: bool = True,
) -> dict[str, Any]:
    return {
        "apiVersion": BUNDLE_API_VERSION,
        "kind": BUNDLE_KIND,
        "capturedAt": captured_at.isoformat().replace("+00:00", "Z"),
        "context": context,
        "tool": {"name": "kubectl-gpu", "version": __version__},
        "redacted": redacted,
        "notes": notes,
        "absent": sorted(absent),
        "probes": probes or {},
        "objects": objects,
    }


def write_bundle(bundle: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write atomically: a half-written bundle must never replace a good one."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        tmp.write_bytes(orjson.dumps(bundle, option=orjson.OPT_INDENT_2) + b"\n")
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"{target}: cannot write snapshot: {exc.strerror or exc}") from None
