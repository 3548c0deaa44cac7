"""Decoding a snapshot file: JSON (one document) or YAML (any number of them, aliases checked), and whether
the tree is JSON's own (no node shared between two places: `snapshot._objects` may take it apart)."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import orjson

from kubectl_gpu.core.errors import InvalidInput

__all__ = [
    "MAX_YAML_BYTES",
    "PartsList",
    "WholeItems",
    "decode",
    "decode_any",
    "read_documents",
    "read_file",
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


def _looks_like_yaml(path: Path) -> bool:
    with path.open("rb") as handle:
        head = handle.read(65536).lstrip()
    return bool(head) and head[:1] not in (b"{", b"[")


def read_documents(path: Path) -> list[Any]:
    return read_file(path)[0]


def read_file(path: Path, *, parts_read: bool = False, whole_later: bool = False) -> tuple[list[Any], bool]:
    """The file's documents, and whether they are JSON (a tree no two places of which share a node);
    `parts_read` and `whole_later`: see `decode_any`."""
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES and _looks_like_yaml(path):
            raise InvalidInput(
                f"{path}: YAML of {size / 2**30:.1f} GiB is too big to read "
                f"(over {MAX_YAML_BYTES >> 20} MiB: YAML is parsed whole)",
                "save it as JSON (kubectl get -o json), or capture it with kubectl gpu snapshot",
            )
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    return decode_any(data, str(path), parts_read=parts_read, whole_later=whole_later)


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
    if b"&" in data and b"*" in data:  # anchors and aliases: only then can nodes be shared
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

    from kubectl_gpu.core.k8s.parse.fields import as_dict

    try:
        found = _list_decoder().decode(data)
    except (msgspec.DecodeError, msgspec.ValidationError, RecursionError):
        return None
    if found.kind != "List" or found.items is None:
        return None
    return PartsList(kind="List", items=[as_dict(item) for item in found.items])


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
