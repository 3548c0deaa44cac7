"""Snapshot source: files or directories of `kubectl get -o json|yaml` output, or our own bundle.

Accepted inputs, mixed freely:
- a `List` (what `kubectl get nodes,pods,... -A -o json` prints) or a typed list (`NodeList`),
- a single object, multi-document YAML,
- our bundle (`kind: Snapshot`, written by `kubectl gpu snapshot`), which adds capture time, context,
  notes (403s, absent CRDs at capture time) and probe outputs per node.

A bundle as `write_bundle` lays it out is parsed one run of objects at a time as it is read
(`kube/bundle_stream.py`), so neither the file nor its parsed tree is ever in memory whole; every other
input is read whole, and so is a bundle a part of which does not read that way: from the start, so that
its answer or its error is the one the whole-file read gives.

Inputs far past any real cluster are refused before they are read: all the files together (a directory's
too) over `snapshot_decode.MAX_SNAPSHOT_BYTES` (2 GiB; `KUBECTL_GPU_MAX_SNAPSHOT_BYTES` raises it), from
their sizes, and every read counts its bytes against the same cap (a file that grows meanwhile, stdin).
Compressed files are not read (nothing inflates past the cap).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from kubectl_gpu import __version__
from kubectl_gpu.core.clusters import SeveralClusters
from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.k8s.parse import KEPT_KINDS, KINDS, Model, ModelError, kind_of
from kubectl_gpu.core.k8s.parse.fields import UnreadText
from kubectl_gpu.core.k8s.state import ClusterState, DuplicateObject, StateBuilder
from kubectl_gpu.core.k8s.times import TimeError, parse_time
from kubectl_gpu.core.usage.bundle import scrapes_from_dict, scrapes_to_dict
from kubectl_gpu.kube.bundle_stream import BundleStream, NotStreamable, bundle_head, open_bundle
from kubectl_gpu.kube.heap import bulk_load, retain_input
from kubectl_gpu.kube.kinds import KindsRead, kinds_read
from kubectl_gpu.kube.redaction import redact
from kubectl_gpu.kube.snapshot_decode import (
    PartsList,
    check_total,
    decode_any,
    max_snapshot_bytes,
    read_documents,
    read_file,
    too_big,
)

if TYPE_CHECKING:
    from kubectl_gpu.core.usage.scrape import ScrapeSet

__all__ = [
    "BUNDLE_API_VERSION",
    "BUNDLE_MODE",
    "build_bundle",
    "cluster_groups",
    "load_snapshot",
    "load_text",
    "redact",
    "write_bundle",
]

BUNDLE_API_VERSION = "kubectl-gpu/v1"
BUNDLE_KIND = "Snapshot"
_SUFFIXES = {".json", ".yaml", ".yml"}
_EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
_LATEST = datetime(3000, 1, 1, tzinfo=UTC)


def _files(paths: Iterable[str | os.PathLike[str]]) -> Iterator[Path]:
    for raw in paths:
        if not str(raw):  # Path("") is ".": never read the working directory by accident
            raise InvalidInput("empty path given", "name a file or directory")
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix.lower() in _SUFFIXES)
            if not found:
                raise InvalidInput(f"{path}: no .json or .yaml files in this directory")
            yield from found
        elif path.is_file():
            yield path
        elif path.exists():
            raise InvalidInput(f"{path}: not a regular file or directory")
        else:
            raise InvalidInput(f"{path}: no such file or directory", "check the path")


def _objects(doc: Any, path: str, where: str, release: bool = False) -> Iterator[dict[str, Any]]:
    """The objects of a document. `release`: the tree is the caller's own and let go once read, so each
    entry of a list is dropped from it once the caller is done with it (when it asks for the next): it is
    freed while it is still in the CPU's caches, not in a walk over the whole tree once every model is
    built (on a 100 MB List that walk is a fifth of the load)."""
    if isinstance(doc, (list, BundleStream)):
        for index, item in enumerate(doc):
            if type(item) is dict and _plain_object(item):
                yield item  # the usual entry: what the nested call below would yield, without it
            else:
                yield from _objects(item, path, f"{where}[{index}]", release)
            if release and type(doc) is list:
                doc[index] = None
        return
    if not isinstance(doc, dict) or not isinstance(doc.get("kind"), str):
        raise InvalidInput(f"{path}: {where or 'document'} is not a Kubernetes object or List (no 'kind')")
    kind = doc["kind"]
    if kind == "List" or (kind.endswith("List") and "items" in doc):
        items = doc.get("items")
        if items is None:
            return
        if not isinstance(items, list):
            raise InvalidInput(f"{path}: {kind}.items must be a list")
        item_kind = kind[: -len("List")] if kind != "List" else None
        for index, item in enumerate(items):
            if type(item) is dict:
                if item_kind and "kind" not in item:
                    # Typed lists from the API omit kind/apiVersion on items.
                    item = {**item, "kind": item_kind, "apiVersion": doc.get("apiVersion", "v1")}
                kind = item.get("kind")  # `_plain_object`, inline: a List holds ~20 objects a node
                if type(kind) is str and not kind.endswith("List"):
                    yield item
                else:
                    yield from _objects(item, path, f"items[{index}]", release)
            else:
                yield from _objects(item, path, f"items[{index}]", release)
            if release:
                items[index] = None
        return
    yield doc


def _plain_object(item: dict[str, Any]) -> bool:
    """An object that is neither a List nor anything `_objects` would refuse: it is yielded as it is."""
    kind = item.get("kind")
    return type(kind) is str and not kind.endswith("List")


def _bundle_meta(
    doc: dict[str, Any], path: str, state: StateBuilder, meta: dict[str, Any]
) -> list[Any] | BundleStream:
    version = doc.get("apiVersion")
    if version != BUNDLE_API_VERSION:
        raise InvalidInput(
            f"{path}: snapshot bundle version {version!r} is not supported",
            f"this kubectl-gpu reads {BUNDLE_API_VERSION}; upgrade kubectl-gpu",
        )
    captured = doc.get("capturedAt")
    if captured is not None:
        try:
            meta["captured_at"] = parse_time(str(captured))
        except TimeError as exc:
            raise InvalidInput(f"{path}: capturedAt: {exc}") from None
        except OverflowError:  # an offset past year 9999
            meta["captured_at"] = datetime.max.replace(tzinfo=UTC)
        if not _EARLIEST <= meta["captured_at"] < _LATEST:
            # The analyses add expiry periods to it: keep far from datetime's limits.
            raise InvalidInput(f"{path}: capturedAt {captured!r} is out of range (1970 to 2999)")
    context = doc.get("context")
    if context is not None and not isinstance(context, str):
        raise InvalidInput(f"{path}: context must be a string, got {type(context).__name__}")
    meta["context"] = context or meta.get("context")
    notes = doc.get("notes") or []
    absent = doc.get("absent") or []
    if not isinstance(notes, list) or not isinstance(absent, list):
        raise InvalidInput(f"{path}: notes and absent must be lists")
    for note in notes:
        if isinstance(note, dict) and isinstance(note.get("message"), str):
            kind = note.get("kind")
            state.note(
                str(note.get("code", "NOTE")), note["message"], kind if isinstance(kind, str) else None
            )
    state.absent.update(str(k) for k in absent)
    listed = doc.get("listed")
    if listed is not None:
        if not isinstance(listed, list):
            raise InvalidInput(f"{path}: listed must be a list of kinds")
        state.listed = (state.listed or set()) | {str(k) for k in listed}
    probes = doc.get("probes") or {}
    if not isinstance(probes, dict):
        raise InvalidInput(f"{path}: probes must be an object keyed by node name")
    state.probes.update(probes)
    usage = doc.get("usage")
    if usage is not None:
        state.add_scrapes(scrapes_from_dict(usage, f"{path}: usage"))
    objects = doc.get("objects")
    if not isinstance(objects, (list, BundleStream)):
        raise InvalidInput(f"{path}: snapshot bundle has no 'objects' list")
    return objects


def load_snapshot(
    paths: Iterable[str | os.PathLike[str]],
    *,
    keep_manifests: bool = False,
    kinds: Iterable[str] | None = None,
) -> ClusterState:
    """Load and parse every object from the given files and directories into one ClusterState.

    `kinds`: the resources the command reads (names of `kube.kinds.ALL_KINDS`, as the live source lists
    them; None: all): objects of the other kinds this tool reads are passed over unparsed, as a live run
    never lists them (`events` on a dump of 50,000 is a fifth of `nodes`' load). `keep_manifests`: also keep
    each object as read (`ClusterState.manifest`), for a YAML view. Bundles of several clusters are refused
    (`SeveralClusters`, exit 2), with each cluster's files where every file is one cluster's bundle: the
    commands that have a fleet mode then read each apart."""
    reads = None if kinds is None else kinds_read(kinds)
    with bulk_load():
        files = list(_files(paths))
        check_total(files)  # far past any real cluster: refused from the sizes, before a byte is read
        names = ", ".join(str(p) for p in files)
        whole: set[Path] = set()  # files to read whole: a part of them did not read one object at a time
        while True:
            reading = _Reading(files, whole, whole_later=keep_manifests)
            try:
                return _load(reading.documents(), names, keep_manifests=keep_manifests, reads=reads)
            except SeveralClusters as exc:
                raise SeveralClusters(exc.message, exc.hint, _cluster_files(files)) from None
            except (InvalidInput, NotStreamable):
                if reading.streaming is None:  # from a file read whole: the answer as it always was
                    raise
                # Read that file whole, from the start (the error, if any, is then exactly as before).
                whole.add(reading.streaming)
            except UnreadText:
                # A List read to its parts holds a number orjson refuses: read whole, it says so as before.
                if reading.parts is None:  # only such a List holds parts as text
                    raise
                whole.add(reading.parts)


#: (source, its documents, held until exit, let go of as read): what `_load` reads.
_Documents = tuple[str, list[Any], bool, bool]


class _Reading:
    """The documents of each file, with our bundles read one object at a time (`kube/bundle_stream.py`);
    `streaming` is the bundle being read that way, until its last object has been handed out, and `parts` the
    large List read to its parts (`snapshot_decode.PartsList`)."""

    def __init__(self, files: list[Path], whole: set[Path], *, whole_later: bool) -> None:
        self.files, self.whole, self.whole_later = files, whole, whole_later
        self.streaming: Path | None = None
        self.parts: Path | None = None

    def documents(self) -> Iterator[_Documents]:
        """(file, its documents, whether they are held until exit: see `heap.retain_input`, whether they
        are ours to let go of as they are read: see `_objects`)."""
        for path in self.files:
            stream = None if path in self.whole else open_bundle(path)
            if stream is None:
                parts_read = path not in self.whole
                documents, json = read_file(path, parts_read=parts_read, whole_later=self.whole_later)
                # A one-shot command frees a tree read whole at exit, not now (kube/heap.py). A List read to
                # its parts is let go of as it is read instead: its items are small, and their parts kept as
                # text (`msgspec.Raw`) hold the file's bytes, which would stay until exit with them.
                parts = len(documents) == 1 and type(documents[0]) is PartsList
                kept = not parts and retain_input(documents)
                self.parts = path if parts else None
                yield str(path), documents, kept, json and not kept
                self.parts = None
                continue
            self.streaming = path
            yield str(path), [{**stream.head, "objects": stream}], False, False
            stream.close()
            self.streaming = None


def _cluster_files(files: list[Path]) -> list[tuple[str, tuple[str, ...]]]:
    """(context, files) per cluster, sorted by context, when each file is bundles of one context; else []
    (a file that names no context, such as `kubectl get -o json` output, belongs to no cluster). Of a
    bundle in `write_bundle`'s layout only the head is read."""
    groups: dict[str, list[str]] = {}
    for path in files:
        head = bundle_head(path)
        contexts = {
            doc.get("context")
            for doc in ([head] if head is not None else read_documents(path))
            if isinstance(doc, dict) and doc.get("kind") == BUNDLE_KIND
        }
        if len(contexts) != 1:
            return []
        (context,) = contexts
        if not isinstance(context, str) or not context:
            return []
        groups.setdefault(context, []).append(str(path))
    return [(context, tuple(group)) for context, group in sorted(groups.items())]


def cluster_groups(paths: Iterable[str | os.PathLike[str]]) -> list[tuple[str, tuple[str, ...]]]:
    """(context, files) per cluster, read from the bundles' heads alone, before anything is parsed: fleet
    mode reads each cluster's files once. [] unless every file is a bundle in `write_bundle`'s layout that
    names its context (anything else is left to `load_snapshot`, which refuses two clusters itself)."""
    names = [str(p) for p in paths]
    if "-" in names:  # stdin is one input
        return []
    try:
        files = list(_files(names))
        if len(files) < 2 or any(bundle_head(path) is None for path in files):
            return []
    except (InvalidInput, OSError):  # the load says what is wrong, in its own words
        return []
    return _cluster_files(files)


def load_text(text: str | bytes, source: str = "<stdin>") -> ClusterState:
    """The same, from text (e.g. `kustomize build` output piped to `kubectl gpu lint -f -`; read it with
    `snapshot_decode.read_stream`, which refuses input over the size cap as it reads)."""
    data = text.encode() if isinstance(text, str) else text
    cap = max_snapshot_bytes()
    if cap is not None and len(data) > cap:  # read already, but not parsed (more than its size again)
        raise too_big(source, len(data), cap)
    documents, json = decode_any(data, source)
    return _load([(source, documents, False, json)], source)


def _one_cluster(origin: tuple[str, str] | None, context: Any, source: str) -> tuple[str, str] | None:
    """The (context, file) of the first bundle that names its context; InvalidInput when `source` names
    another. Only our bundles say where they are from: `kubectl get -o json` output conflicts with none."""
    if not isinstance(context, str) or not context:
        return origin
    if origin is None:
        return context, source
    if origin[0] != context:
        raise SeveralClusters(
            f"snapshots of two clusters in one input: {origin[1]} (context {origin[0]!r}) "
            f"and {source} (context {context!r})",
            "pass one cluster's files (or one bundle) at a time",
        )
    return origin


_Resolved = tuple[str, str, "Callable[[dict[str, Any]], Model] | None"]


def _kind_and_parser(
    obj: dict[str, Any], parsers: dict[tuple[str, str], Any], resolved: dict[tuple[str, str], _Resolved]
) -> _Resolved:
    """(group, kind, parser or None) of `obj`, once per distinct (apiVersion, kind) text of a file: its
    thousands of objects are of a dozen kinds."""
    api_version, kind = obj.get("apiVersion"), obj.get("kind")
    if type(api_version) is not str or type(kind) is not str:
        group, kind_text = kind_of(obj)
        return group, kind_text, parsers.get((group, kind_text))
    found = resolved.get((api_version, kind))
    if found is None:
        group, kind_text = kind_of(obj)
        found = resolved[api_version, kind] = (group, kind_text, parsers.get((group, kind_text)))
    return found


def _load(
    documents: Iterable[_Documents],
    source_name: str,
    *,
    keep_manifests: bool = False,
    reads: KindsRead | None = None,
) -> ClusterState:
    """The state of the documents' objects; `reads`: only these kinds are parsed (`load_snapshot`), the
    other kinds of `KINDS` passed over without a note (those of no parser are noted as skipped), and only
    these are said to be listed whole (`ClusterState.listed`: a bundle's list of them is not what was read)."""
    state = StateBuilder(keep_manifests=keep_manifests)
    meta: dict[str, Any] = {}
    seen: dict[tuple[str, str, str | None, str], tuple[Model, str]] = {}  # the last definition, its source
    where: dict[tuple[str, str, str | None, str], list[str]] = {}  # the sources of each defined again
    skipped: dict[str, int] = {}
    origin: tuple[str, str] | None = None
    for source, docs_of_source, kept, release in documents:
        parsers = KEPT_KINDS if kept else KINDS  # what is held anyway need not be cut down to what is read
        if reads is not None:
            parsers = {key: parser for key, parser in parsers.items() if key in reads.keys}
        resolved: dict[tuple[str, str], _Resolved] = {}
        for doc in docs_of_source:
            if isinstance(doc, dict) and doc.get("kind") == BUNDLE_KIND:
                docs: Any = _bundle_meta(doc, source, state, meta)
                origin = _one_cluster(origin, doc.get("context"), source)
            else:
                docs = doc
            whole = docs.whole if type(docs) is PartsList else None  # its items are read in order
            for index, obj in enumerate(_objects(docs, source, "", release)):
                group, kind, parser = _kind_and_parser(obj, parsers, resolved)
                if parser is None:
                    if (group, kind) not in KINDS:  # else read by other commands: not this one's to note
                        label = f"{kind}.{group}" if group else kind
                        skipped[label] = skipped.get(label, 0) + 1
                    continue
                try:
                    model = parser(obj)
                except ModelError as exc:
                    raise InvalidInput(f"{source}: {exc}") from None
                key = (group, kind, model.meta.namespace, model.meta.name)
                before = seen.get(key)
                seen[key] = (model, source)
                if before is not None:
                    where.setdefault(key, [before[1]]).append(source)
                if keep_manifests:
                    state.keep(model, obj, None if whole is None else partial(whole.item, index))
    state.add(model for model, _ in seen.values())
    if reads is not None and state.listed is not None:
        state.listed &= reads.names
    if where:  # in the order the objects first appear
        state.duplicates.extend(
            DuplicateObject(k[1], k[2], k[3], tuple(where[k])) for k in seen if k in where
        )
    if skipped:
        detail = ", ".join(f"{n} {k}" for k, n in sorted(skipped.items()))
        state.note(
            "SKIPPED", f"skipped {sum(skipped.values())} objects of kinds this tool does not read ({detail})"
        )
    return state.build(source=source_name, **meta)


def build_bundle(
    objects: list[dict[str, Any]],
    *,
    captured_at: datetime,
    context: str | None,
    notes: list[dict[str, Any]],
    absent: Iterable[str],
    listed: Iterable[str] | None = None,
    probes: dict[str, Any] | None = None,
    redacted: bool = True,
    usage: ScrapeSet | None = None,
) -> dict[str, Any]:
    """The bundle `write_bundle` writes; `usage` (a window of `/metrics` samples) is stored under its own key,
    left out when None. `objects` stays the last key (`bundle_stream` reads the head before it)."""
    bundle: dict[str, Any] = {
        "apiVersion": BUNDLE_API_VERSION,
        "kind": BUNDLE_KIND,
        "capturedAt": captured_at.isoformat().replace("+00:00", "Z"),
        "context": context,
        "tool": {"name": "kubectl-gpu", "version": __version__},
        "redacted": redacted,
        "notes": notes,
        "absent": sorted(absent),
        "probes": probes or {},
    }
    if listed is not None:  # the kinds listed whole: none of one is none there (ClusterState.listed)
        bundle["listed"] = sorted(listed)
    if usage is not None:
        bundle["usage"] = scrapes_to_dict(usage)
    bundle["objects"] = objects
    return bundle


#: A new bundle is readable by its owner only: even redacted, it maps the cluster (names, images, labels).
BUNDLE_MODE = 0o600


def bundle_bytes(bundle: dict[str, Any]) -> bytes:
    """The bundle as written: indent-2 JSON (the layout `bundle_stream` reads a run at a time)."""
    return orjson.dumps(bundle, option=orjson.OPT_INDENT_2) + b"\n"


def write_bundle(bundle: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write atomically: a half-written bundle must never replace a good one. A new file is 0600; one
    that replaces a bundle keeps that file's mode (as its owner chose it). The temporary file has the
    final mode from its creation, so the data is never readable by others, not even for a moment."""
    target = Path(path)
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    try:
        # A symlink is replaced by the bundle (as `mv` would): the new file is ours, 0600, whatever the
        # mode of the file the link pointed at.
        mode = BUNDLE_MODE if target.is_symlink() else stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        mode = BUNDLE_MODE
    except OSError as exc:
        raise InvalidInput(f"{target}: cannot write snapshot: {exc.strerror or exc}") from None
    try:
        tmp.unlink(missing_ok=True)  # a leftover of a crashed run with our pid
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        try:
            os.fchmod(fd, mode)  # os.open applies the umask; the mode is ours to say
            with os.fdopen(fd, "wb", closefd=False) as out:
                out.write(bundle_bytes(bundle))
        finally:
            os.close(fd)
        tmp.replace(target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InvalidInput(f"{target}: cannot write snapshot: {exc.strerror or exc}") from None
