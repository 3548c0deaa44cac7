"""Decoding a snapshot file: JSON (one document) or YAML (any number of them, aliases checked), and whether
the tree is JSON's own (no node shared between two places: `snapshot._objects` may take it apart)."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern
from kubectl_gpu.kube.prefetched import take

__all__ = [
    "MAX_SNAPSHOT_BYTES",
    "MAX_SNAPSHOT_BYTES_ENV",
    "MAX_YAML_BYTES",
    "PartsList",
    "WholeItems",
    "check_total",
    "decode",
    "decode_any",
    "max_snapshot_bytes",
    "read_bytes",
    "read_documents",
    "read_file",
    "read_stream",
    "too_big",
]


@cache
def _yaml_loader() -> Any:
    """Safe YAML as Kubernetes reads it: an unquoted timestamp stays a string (sigs.k8s.io/yaml converts
    YAML to JSON first), so a hand-written `creationTimestamp: 2026-01-01T00:00:00Z` is not lost. Built
    on the first YAML input: PyYAML costs a JSON-only command ~15 ms to import."""
    import yaml

    from kubectl_gpu.kube.yaml_input import UniqueKeyLoader

    class YamlLoader(UniqueKeyLoader):
        pass

    YamlLoader.add_constructor("tag:yaml.org,2002:timestamp", yaml.SafeLoader.construct_yaml_str)
    return YamlLoader


# Aliases may repeat a node, not multiply a small file into a huge document ("billion laughs"): past this
# many nodes, and ten times as many as the file really holds, the input is refused.
_MAX_EXPANDED_NODES = 1_000_000


#: YAML is parsed whole, and PyYAML needs some ten times the text in memory: past this a YAML file is
#: refused before it is read (JSON, and our bundles, are read as a stream and have no such bound).
MAX_YAML_BYTES = 512 * 1024 * 1024


#: What a snapshot may weigh, all its files together (or stdin), before any of it is read into memory. A
#: cluster at Kubernetes' scalability limits (5,000 nodes, 150,000 pods) is ~1.5 GB of JSON (bench/README.md,
#: shape L: pods of ~10 KB, as `kubectl get -o json` writes them), read at 1.3-1.6 times its size in memory
#: (a bundle; other JSON more, YAML some ten times). Past a third more than that, an input is not a real
#: cluster's: it is refused (exit 2) at once, from the file's size, instead of after gigabytes of memory.
MAX_SNAPSHOT_BYTES = 2 << 30
#: Raises (or, `0`, lifts) the cap: bytes, or with a unit (`4Gi`, `3G`, `512Mi`).
MAX_SNAPSHOT_BYTES_ENV = "KUBECTL_GPU_MAX_SNAPSHOT_BYTES"

_SIZE_RE = lazy_pattern(r"\s*([0-9]+)\s*(Ki|Mi|Gi|Ti|k|K|M|G|T)?B?\s*")
_UNITS = {None: 1, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
_UNITS |= {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12}


def max_snapshot_bytes() -> int | None:
    """The cap on a snapshot's bytes (None: none): `KUBECTL_GPU_MAX_SNAPSHOT_BYTES`, else 2 GiB.
    InvalidInput (exit 2) when the variable is not a size."""
    text = os.environ.get(MAX_SNAPSHOT_BYTES_ENV)
    if text is None or not text.strip():
        return MAX_SNAPSHOT_BYTES
    match = _SIZE_RE.fullmatch(text)
    if match is None:
        raise InvalidInput(
            f"{MAX_SNAPSHOT_BYTES_ENV}: not a size: {text!r}",
            "give bytes, or a size with a unit such as 4Gi or 3G; 0 lifts the cap",
        )
    value = int(match.group(1)) * _UNITS[match.group(2)]
    return value or None


def _size(count: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= scale:
            return f"{count / scale:.1f}".removesuffix(".0") + f" {unit}"
    return f"{count} bytes"


def too_big(source: str, size: int, cap: int, *, at_least: bool = False) -> InvalidInput:
    """The one-line refusal of an input over the cap (`at_least`: read up to the cap, and there was more)."""
    over = f"over the {_size(cap)} input cap ({MAX_SNAPSHOT_BYTES_ENV})"
    return InvalidInput(
        f"{source}: {over}; read no further" if at_least else f"{source}: {_size(size)}, {over}; not read",
        "a cluster at Kubernetes' limits (5,000 nodes, 150,000 pods) is about 1.5 GB of JSON; to read a "
        f"larger input, raise the cap, e.g. {MAX_SNAPSHOT_BYTES_ENV}=4Gi (0 lifts it)",
    )


def check_total(paths: Sequence[Path]) -> None:
    """Refuse files whose sizes together are over the cap, before any is read (a file that cannot be
    stat'ed counts nothing here: its read says why)."""
    cap = max_snapshot_bytes()
    if cap is None:
        return
    total = 0
    for path in paths:
        try:
            total += path.stat().st_size
        except OSError:
            continue
    if total > cap:
        source = str(paths[0]) if len(paths) == 1 else f"{len(paths)} files ({paths[0]}, ...)"
        raise too_big(source, total, cap)


def read_stream(stream: BinaryIO, source: str = "<stdin>") -> bytes:
    """All of `stream` (stdin), counted as it is read: refused once past the cap, never read whole first."""
    return _read_counted(stream, source, max_snapshot_bytes())


def _read_counted(stream: BinaryIO, source: str, cap: int | None, head: bytes = b"") -> bytes:
    """`head` and the rest of `stream`, a chunk at a time, refused once past `cap` bytes in all."""
    if cap is None:
        return head + stream.read()
    if len(head) > cap:
        raise too_big(source, len(head), cap, at_least=True)
    chunks, seen = [head], len(head)
    while chunk := stream.read(min(1 << 20, cap + 1 - seen)):
        chunks.append(chunk)
        seen += len(chunk)
        if seen > cap:
            raise too_big(source, seen, cap, at_least=True)
    return head if len(chunks) == 1 else b"".join(chunks)


def _looks_like_yaml(head: bytes) -> bool:
    head = head.lstrip()
    return bool(head) and head[:1] not in (b"{", b"[")


def read_documents(path: Path) -> list[Any]:
    return read_file(path)[0]


def read_file(path: Path, *, parts_read: bool = False, whole_later: bool = False) -> tuple[list[Any], bool]:
    """The file's documents, and whether they are JSON (a tree no two places of which share a node);
    `parts_read` and `whole_later`: see `decode_any`. A file over the cap (`max_snapshot_bytes`) is refused
    from its size, and its bytes are counted as they are read (a file that grows, or whose size says 0)."""
    cap = max_snapshot_bytes()
    try:
        with path.open("rb") as handle:
            size = os.fstat(handle.fileno()).st_size
            if cap is not None and size > cap:
                raise too_big(str(path), size, cap)
            if size > MAX_YAML_BYTES and _looks_like_yaml(handle.read(65536)):
                raise InvalidInput(
                    f"{path}: YAML of {size / 2**30:.1f} GiB is too big to read "
                    f"(over {MAX_YAML_BYTES >> 20} MiB: YAML is parsed whole)",
                    "save it as JSON (kubectl get -o json), or capture it with kubectl gpu snapshot",
                )
            handle.seek(0)
            data = take(os.fstat(handle.fileno()))  # read ahead while the command line was parsed
            if data is None:
                data = _read_handle(handle, str(path), cap)
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    return decode_any(data, str(path), parts_read=parts_read, whole_later=whole_later)


def read_bytes(path: Path) -> bytes:
    """The file's bytes, under the same cap as a snapshot's (a saved nvidia-smi output, `smi --from-file`)."""
    try:
        with path.open("rb") as handle:
            return _read_handle(handle, str(path), max_snapshot_bytes())
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror or exc}") from None


def _read_handle(handle: BinaryIO, source: str, cap: int | None) -> bytes:
    """The rest of an open file: refused from its size when that is over `cap`, else read as one (as much as
    its size says, and a byte more: more, and it grew, or its size says 0 as /proc's do; the rest is then
    counted as it is read)."""
    size = os.fstat(handle.fileno()).st_size
    if cap is not None and size > cap:
        raise too_big(source, size, cap)
    data = handle.read(size + 1)
    if len(data) > size:
        data = _read_counted(handle, source, cap, data)
    return data


#: The first bytes of the compressed formats a snapshot may be mistaken for: they are not decompressed (a
#: small file can inflate past any cap), and say what they are instead of "not valid YAML".
_COMPRESSED = lazy_pattern(
    rb"(?P<gzip>\x1f\x8b)|(?P<zstd>\x28\xb5\x2f\xfd)|(?P<bzip2>BZh[1-9]1AY&SY)|(?P<xz>\xfd7zXZ\x00)"
    rb"|(?P<zip>PK\x03\x04)"
)


def _compressed(data: bytes) -> str | None:
    found = _COMPRESSED.match(data)
    return found.lastgroup if found is not None else None


def decode(data: bytes, source: str) -> list[Any]:
    """JSON (one document) or YAML (any number of documents), by the first character."""
    return decode_any(data, source)[0]


def decode_any(
    data: bytes, source: str, *, parts_read: bool = False, whole_later: bool = False
) -> tuple[list[Any], bool]:
    """`_decode`, and whether the input was JSON: a YAML alias makes two places share one node, so only a
    JSON tree may be taken apart as it is read (`_objects`' `release`). `parts_read`: a large JSON List of
    the kinds we know may come back with only the fields the parsers read (a `PartsList`); `whole_later`:
    it then also reads each item whole on request (`PartsList.whole`), for a caller that shows objects."""
    stripped = data.lstrip()
    if not stripped:
        raise InvalidInput(f"{source}: no input" if source == "<stdin>" else f"{source}: file is empty")
    if (compression := _compressed(data)) is not None:
        raise InvalidInput(
            f"{source}: {compression}-compressed; snapshots are read uncompressed",
            "decompress it first (e.g. gunzip -k FILE.gz); compressed input is not read, so it cannot inflate "
            "past the size cap",
        )
    if stripped[:1] in (b"{", b"["):
        if parts_read and len(data) >= PARTS_READ_FROM and (found := _parts_read(data)) is not None:
            found.whole = WholeItems(data) if whole_later else None
            return [found], True
        try:
            return [orjson.loads(data)], True
        except orjson.JSONDecodeError as exc:
            if "depth" in str(exc):  # orjson stops at 1024 levels; no Kubernetes object nests that deep
                raise InvalidInput(f"{source}: JSON nested too deeply ({exc})") from None
            raise InvalidInput(f"{source}: not valid JSON ({exc}); is the input truncated?") from None
    import yaml

    from kubectl_gpu.kube.yaml_input import DUPLICATE_HINT, DuplicateKeyError

    try:
        docs = [doc for doc in yaml.load_all(data, Loader=_yaml_loader()) if doc is not None]
    except DuplicateKeyError as exc:
        raise InvalidInput(f"{source}: {exc.detail}", DUPLICATE_HINT) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "malformed document"
        if "depth" in problem:  # libyaml's nesting limit: not a truncation
            raise InvalidInput(f"{source}: YAML nested too deeply{where} ({problem})") from None
        raise InvalidInput(f"{source}: not valid YAML{where} ({problem}); is the input truncated?") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{source}: not a text file (expected JSON or YAML)") from None
    if not docs:  # only comments or `---`: as good as empty (a failed `kubectl get > file` often is)
        raise InvalidInput(f"{source}: no YAML document in it")
    if _may_alias(data):  # anchors and aliases: only then can nodes be shared
        _check_aliases(docs, source)
    return docs, False


#: Below this size a JSON file is parsed whole: what `_parts_read` saves (about a third of the parse) is
#: then less than importing its decoder (~20 ms).
PARTS_READ_FROM = 8 << 20


@cache
def _list_decoder() -> Any:
    import msgspec

    from kubectl_gpu.core.k8s.parse.fields import LIST

    return msgspec.json.Decoder(LIST)


@cache
def _raw_items_decoder() -> Any:
    """A List's items as the bytes of each (found, not parsed)."""
    import msgspec

    items = msgspec.defstruct("RawItems", [("items", list[msgspec.Raw])])
    return msgspec.json.Decoder(items)


class WholeItems:
    """The items of a List read to their parts, each read whole on request from the input's bytes (held as
    long as this is): the first request finds where every item lies (a sixth of a parse), each then parses
    just its own bytes."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._items: list[Any] | None = None

    def item(self, index: int) -> dict[str, Any]:
        if self._items is None:
            self._items = _raw_items_decoder().decode(self._data).items
        found: dict[str, Any] = orjson.loads(memoryview(self._items[index]))
        return found


class PartsList(dict[str, Any]):
    """A `kind: List` whose items hold only the fields the parsers read; `whole`, where the caller asked
    for it, reads the i-th item whole."""

    whole: WholeItems | None = None


def _parts_read(data: bytes) -> PartsList | None:
    """A `kind: List` of the kinds `core/k8s/parse/fields.py` knows, decoded to the fields the parsers read
    (the rest is skipped by the decoder, never built); None for anything else, which is then parsed whole as
    before, so its answer or its error is the one it always was. Invalid JSON is None here too."""
    import msgspec

    from kubectl_gpu.core.k8s.parse.fields import as_dicts

    try:
        found = _list_decoder().decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if found.kind != "List" or found.items is None:
        return None
    return PartsList(kind="List", items=as_dicts(found.items))


# Where an anchor (`&a`) or an alias (`*a`) can stand: at a line's start (after its indentation), after white
# space (`key: &a`, `- *a`, `!!str &a`), after a flow indicator (`[&a`, `{k: *a`, `,*a`), after a UTF-8 BOM;
# `:` too, though only a flow mapping's JSON key may be followed by one (`{"k":&a v}`). Elsewhere (`a&b`,
# `https://h/?a=1&b=2`, `*/5 * * * *` inside quotes aside) the character is text: such matches only cost a walk.
_ANCHOR = lazy_pattern(rb"(?:^|[\s\[{,:]|\xef\xbb\xbf)&", re.M)
_ALIAS = lazy_pattern(rb"(?:^|[\s\[{,:]|\xef\xbb\xbf)\*", re.M)


def _may_alias(data: bytes) -> bool:
    """Whether the YAML text may hold an alias (and the anchor it names): kubectl's printer writes none, while
    `&` and `*` are common in the text of annotations, URLs and schedules. UTF-16 or UTF-32 text (PyYAML reads
    them too) is not searched: it is taken to hold one."""
    if b"&" not in data or b"*" not in data:
        return False
    if b"\x00" in data[:4] or data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    return _ANCHOR.search(data) is not None and _ALIAS.search(data) is not None


def _check_aliases(docs: list[Any], source: str) -> None:
    """Refuse YAML whose aliases loop or expand into far more nodes than the file holds."""
    sizes: dict[int, int] = {}  # id -> nodes in the expanded subtree, for every distinct dict and list
    expanded = 0
    for doc in docs:
        if not isinstance(doc, (dict, list)):
            expanded += 1
            continue
        on_path: set[int] = set()
        stack: list[tuple[Any, bool]] = [(doc, False)]
        while stack:
            node, done = stack.pop()
            key = id(node)
            values = node.values() if isinstance(node, dict) else node
            children = [c for c in values if isinstance(c, (dict, list))]
            if done:
                on_path.discard(key)
                sizes[key] = 1 + len(node) - len(children) + sum(sizes[id(c)] for c in children)
                continue
            if key in sizes:
                continue
            if key in on_path:
                raise InvalidInput(f"{source}: a YAML alias refers to a node that contains it")
            on_path.add(key)
            stack.append((node, True))
            stack.extend((c, False) for c in children)
        expanded += sizes[id(doc)]
    if expanded > max(_MAX_EXPANDED_NODES, 10 * len(sizes)):
        raise InvalidInput(
            f"{source}: YAML aliases expand to over {_MAX_EXPANDED_NODES:,} nodes",
            "refusing what looks like an alias bomb; expand the aliases if the file is genuine",
        )
