"""The changes `kubectl gpu simulate` reads: `-f FILE|DIR` (YAML or JSON, several documents, a List's
items; a directory's .yaml/.yml/.json files, sorted), `--delete KIND/[NAMESPACE/]NAME`, read whole before
anything is simulated: a file that does not parse is exit 2 naming it and the reason."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import yaml

from kubectl_gpu.core.changes import NAMESPACED_KINDS, Change, ChangeError, PatchType, change_kind
from kubectl_gpu.kube.yaml_input import UniqueKeyLoader

__all__ = ["read_changes"]

_SUFFIXES = (".yaml", ".yml", ".json")


def _files(paths: Iterable[str]) -> Iterator[Path]:
    for text in paths:
        path = Path(text)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.suffix in _SUFFIXES and p.is_file())
            if not found:
                raise ChangeError(f"{text}: no .yaml, .yml or .json file in the directory")
            yield from found
        elif path.is_file() or text == "-":
            yield path
        else:
            raise ChangeError(f'error: the path "{text}" does not exist')


def _documents(path: Path) -> list[tuple[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8") if str(path) != "-" else __import__("sys").stdin.read()
        docs = [d for d in yaml.load_all(text, Loader=UniqueKeyLoader) if d is not None]
    except (OSError, UnicodeDecodeError) as exc:
        raise ChangeError(f"{path}: cannot read it: {exc}") from None
    except yaml.YAMLError as exc:
        raise ChangeError(f"{path}: does not parse: {' '.join(str(exc).split())}") from None
    out: list[tuple[str, Any]] = []
    for index, doc in enumerate(docs):
        where = f"{path}" if len(docs) == 1 else f"{path} (document {index + 1})"
        if (
            isinstance(doc, dict)
            and str(doc.get("kind", "")).endswith("List")
            and isinstance(doc.get("items"), list)
        ):
            out += [(f"{where} item {i + 1}", item) for i, item in enumerate(doc["items"])]
        else:
            out.append((where, doc))
    return out


def _target(text: str, namespace: str, where: str) -> tuple[str, str | None, str]:
    parts = text.split("/")
    if len(parts) not in (2, 3) or not all(parts):
        raise ChangeError(f"{where}: {text!r} is not KIND/NAME or KIND/NAMESPACE/NAME")
    kind = change_kind(parts[0])
    name = parts[-1]
    ns = (parts[1] if len(parts) == 3 else namespace) if kind in NAMESPACED_KINDS else None
    return kind, ns, name


def _from_document(
    where: str, doc: Any, patch_type: PatchType | None, target: str | None, namespace: str
) -> Change:
    if patch_type == "json":
        if target is None:
            raise ChangeError(f"{where}: a json patch names no object", "name it with --target KIND/NAME")
        kind, ns, name = _target(target, namespace, "--target")
        return Change("patch", kind, name, ns, doc, "json", where)
    if not isinstance(doc, dict):
        raise ChangeError(f"{where}: not an object (a mapping with apiVersion, kind and metadata.name)")
    meta: dict[str, Any] = doc["metadata"] if isinstance(doc.get("metadata"), dict) else {}
    if target is not None:
        kind, ns, name = _target(target, namespace, "--target")
    else:
        if not doc.get("kind") or not meta.get("name"):
            raise ChangeError(f"{where}: Object 'Kind' or metadata.name is missing")
        kind = change_kind(str(doc["kind"]))
        name = str(meta["name"])
        ns = (meta.get("namespace") or namespace) if kind in NAMESPACED_KINDS else None
    if patch_type is None:
        if "apiVersion" not in doc:
            raise ChangeError(
                f"{where}: Object 'apiVersion' is missing", "a patch needs --type strategic|merge|json"
            )
        return Change("apply", kind, name, ns, doc, "strategic", where)
    return Change("patch", kind, name, ns, doc, patch_type, where)


def read_changes(
    files: Sequence[str],
    deletes: Sequence[str] = (),
    *,
    patch_type: PatchType | None = None,
    target: str | None = None,
    namespace: str | None = None,
) -> list[Change]:
    """Every change the flags name, in order: the files' documents, then the deletions."""
    ns = namespace or "default"
    changes = [
        _from_document(where, doc, patch_type, target, ns)
        for path in _files(files)
        for where, doc in _documents(path)
    ]
    for text in deletes:
        kind, kns, name = _target(text, ns, "--delete")
        changes.append(Change("delete", kind, name, kns, source=f"--delete {text}"))
    if not changes:
        raise ChangeError("no change to simulate", "give -f FILE (or a directory) or --delete KIND/NAME")
    return changes
