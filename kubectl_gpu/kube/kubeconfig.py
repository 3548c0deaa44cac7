"""The kubeconfig as kubectl reads it: client-go's loading rules (`clientcmd.ClientConfigLoadingRules.Load`).

The official Python client merges `KUBECONFIG=a:b` its own way: `current-context` comes from the *last*
file that sets it, where kubectl takes the first. The same files would then point kubectl at one cluster
and us at another, so the files are read and merged here, by kubectl's rules, and the client is handed
the merged result (`client_dict`):

- `--kubeconfig PATH`: that file alone (it must exist). Else every file of `KUBECONFIG` (split on `:`,
  duplicates dropped, empty entries and missing files skipped). Else `~/.kube/config`.
- Clusters, users and contexts are merged by name: the first file to name one wins, and its entry is
  taken whole (a later file's entry of the same name adds nothing). One file naming an entry twice is an
  error, as in kubectl.
- `current-context` (any field outside those lists): the first file to set it to a non-empty value.
- Relative paths (`certificate-authority`, `client-certificate`, `client-key`, `tokenFile`, an exec
  `command` with a `/`) are resolved against the directory of the file the entry came from.
- `--context` overrides `current-context`. What kubectl's other flags change (`--server`, `--token`, `--as`,
  `-n` over the context's `namespace`, ...) is applied in `kube.connection`.
"""

from __future__ import annotations

import base64
import binascii
import copy
import os
from collections.abc import Mapping
from typing import Any

import msgspec
import yaml

from kubectl_gpu.core.errors import ClusterError, InvalidInput

__all__ = [
    "NO_CONFIG_HINT",
    "Kubeconfig",
    "files_stamp",
    "kubeconfig_files",
    "load_kubeconfig",
]

NO_CONFIG_HINT = "set KUBECONFIG or --kubeconfig, or analyse a saved cluster with --snapshot"
#: The lists merged by name: (top-level key, the key of each entry's body).
_LISTS = (("clusters", "cluster"), ("users", "user"), ("contexts", "context"))
_CLUSTER_PATHS = ("certificate-authority",)
_USER_PATHS = ("client-certificate", "client-key", "tokenFile")
_Loader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class Kubeconfig(msgspec.Struct, frozen=True, dict=True):
    """The merged configuration: every entry by name, with the file it came from already applied."""

    files: tuple[str, ...] = ()  # the files read, in precedence order
    clusters: Mapping[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    users: Mapping[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    contexts: Mapping[str, dict[str, Any]] = msgspec.field(default_factory=dict)
    current_context: str | None = None

    @property
    def context_names(self) -> tuple[str, ...]:
        return tuple(sorted(self.contexts))

    def choose(self, override: str | None, *, server_given: bool = False) -> str:
        """The context kubectl would use: `--context`, else `current-context`; bad input when unknown.
        With `-s/--server` and neither, no context ("") is no error: kubectl connects to the server alone."""
        name = override or self.current_context
        if not name and server_given:
            return ""
        if not name:
            if not self.files:
                raise ClusterError("cannot load kubeconfig: no kubeconfig file found", NO_CONFIG_HINT)
            raise InvalidInput(
                "the kubeconfig sets no current-context",
                "pass --context NAME, or set one: kubectl config use-context NAME",
            )
        if name not in self.contexts:
            known = ", ".join(self.context_names) or "none"
            raise InvalidInput(f"context {name!r} not found in kubeconfig", f"known contexts: {known}")
        return name

    def namespace(self, context: str | None) -> str:
        """The namespace of `context` (the context's own `namespace`, else `default`), as kubectl's."""
        body = self.contexts.get(context or "") or {}
        value = body.get("namespace")
        return value if isinstance(value, str) and value else "default"

    def cluster_of(self, context: str) -> str | None:
        value = (self.contexts.get(context) or {}).get("cluster")
        return value if isinstance(value, str) else None

    def client_dict(self) -> dict[str, Any]:
        """The merged configuration as one kubeconfig document, for the official client."""
        document: dict[str, Any] = {"apiVersion": "v1", "kind": "Config"}
        for key, body in _LISTS:
            entries: Mapping[str, dict[str, Any]] = getattr(self, key)
            document[key] = [{"name": name, body: copy.deepcopy(value)} for name, value in entries.items()]
        if self.current_context:
            document["current-context"] = self.current_context
        return document


def kubeconfig_files(explicit: str | None, env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The files kubectl would read, in precedence order (some may not exist)."""
    if explicit:
        return (explicit,)
    values = os.environ if env is None else env
    listed = values.get("KUBECONFIG") or ""
    if listed:
        return tuple(dict.fromkeys(p for p in listed.split(os.pathsep) if p))
    return (os.path.join(os.path.expanduser("~"), ".kube", "config"),)


def files_stamp(explicit: str | None) -> tuple[tuple[str, int, int], ...]:
    """(path, modification time, size) of each file kubectl would read ((path, 0, -1): none there): what
    a connection resolved from them is kept by (`cli.options`), so that a changed file is read again."""
    stamp = []
    for path in kubeconfig_files(explicit):
        try:
            info = os.stat(path)
        except (OSError, ValueError):
            stamp.append((path, 0, -1))
        else:
            stamp.append((path, info.st_mtime_ns, info.st_size))
    return tuple(stamp)


def load_kubeconfig(explicit: str | None, env: Mapping[str, str] | None = None) -> Kubeconfig:
    """Read and merge the kubeconfig files as kubectl does (see the module's docstring)."""
    merged: dict[str, dict[str, dict[str, Any]]] = {key: {} for key, _ in _LISTS}
    current: str | None = None
    read: list[str] = []
    for path in kubeconfig_files(explicit, env):
        document = _read(path, must_exist=bool(explicit))
        if document is None:
            continue
        read.append(path)
        base = os.path.dirname(os.path.abspath(path))
        for key, body in _LISTS:
            for name, value in _entries(document, key, body, path).items():
                if name not in merged[key]:  # an entry a file before named is never read (kubectl's rule)
                    _check_data(key, name, value, path)
                    merged[key][name] = _resolved(key, value, base)
        chosen = document.get("current-context")
        if current is None and isinstance(chosen, str) and chosen:
            current = chosen
    return Kubeconfig(tuple(read), merged["clusters"], merged["users"], merged["contexts"], current)


def _read(path: str, *, must_exist: bool) -> dict[str, Any] | None:
    """One file's document ({} when empty); None when a file of KUBECONFIG is missing, as kubectl skips it."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        if must_exist:
            raise InvalidInput(f"--kubeconfig {path}: no such file") from None
        return None
    except IsADirectoryError:
        raise InvalidInput(f"cannot read kubeconfig {path}: is a directory") from None
    except OSError as exc:
        raise InvalidInput(f"cannot read kubeconfig {path}: {exc.strerror or exc}") from None
    try:
        document = yaml.load(data, Loader=_Loader) if data.strip() else {}
    except yaml.YAMLError as exc:  # never the snippet yaml quotes: it may be a line with a token
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise InvalidInput(f"malformed kubeconfig{where} of {path}: {problem}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise InvalidInput(f"malformed kubeconfig {path}: {type(exc).__name__}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise InvalidInput(f"malformed kubeconfig {path}: not a mapping", "a kubeconfig is a Config object")
    return document


def _entries(document: dict[str, Any], key: str, body: str, path: str) -> dict[str, dict[str, Any]]:
    """The named entries of one list of one file; kubectl refuses a name given twice."""
    listed = document.get(key)
    if listed is None:
        return {}
    if not isinstance(listed, list):
        raise InvalidInput(f"malformed kubeconfig {path}: {key} is not a list")
    entries: dict[str, dict[str, Any]] = {}
    for item in listed:
        name = item.get("name") if isinstance(item, dict) else None
        if not isinstance(name, str):
            raise InvalidInput(f"malformed kubeconfig {path}: an entry of {key} has no name")
        value = item.get(body)
        if value is not None and not isinstance(value, dict):
            raise InvalidInput(f"malformed kubeconfig {path}: {key} {name!r}: {body} is not a mapping")
        if name in entries:
            raise InvalidInput(f"malformed kubeconfig {path}: duplicate name {name!r} in {key}")
        entries[name] = value or {}
    return entries


#: The inline credentials and CAs: base64 of PEM, as kubectl reads them.
_DATA_FIELDS = {
    "clusters": ("certificate-authority-data",),
    "users": ("client-certificate-data", "client-key-data"),
}


def _check_data(key: str, name: str, value: dict[str, Any], path: str) -> None:
    """Bad input naming the field when inline data is not base64 of PEM (kubectl refuses it too); the
    client would fail later with an internal error or an SSL one."""
    for field_name in _DATA_FIELDS.get(key, ()):
        data = value.get(field_name)
        if data is None:
            continue
        where = f"malformed kubeconfig {path}: {key[:-1]} {name!r}: {field_name}"
        try:
            decoded = base64.b64decode("".join(str(data).split()), validate=True)
        except (binascii.Error, ValueError):
            raise InvalidInput(
                f"{where} is not base64", "write it with base64 -w0, or use the file field"
            ) from None
        if b"-----BEGIN" not in decoded:
            raise InvalidInput(f"{where} holds no PEM data", "it must be the base64 of a PEM file")


def _resolved(key: str, value: dict[str, Any], base: str) -> dict[str, Any]:
    """The entry with its relative file paths made absolute against `base` (its file's directory)."""
    value = copy.deepcopy(value)
    fields = _CLUSTER_PATHS if key == "clusters" else _USER_PATHS if key == "users" else ()
    for name in fields:
        value[name] = _absolute(value.get(name), base)
    exec_config = value.get("exec") if key == "users" else None
    if isinstance(exec_config, dict):
        command = exec_config.get("command")
        if isinstance(command, str) and os.sep in command:  # a bare name is looked up on PATH
            exec_config["command"] = _absolute(command, base)
    return {k: v for k, v in value.items() if v is not None or k not in fields}


def _absolute(path: Any, base: str) -> Any:
    if isinstance(path, str) and path and not os.path.isabs(path):
        return os.path.join(base, path)
    return path
