"""Where DCGM exporters are believed whatever owns them (`core.usage.trust`): `--exporter-namespace NS`
(repeatable, or comma-separated), else the config file's

    usage:
      exporterNamespaces: [gpu-operator]

(`$XDG_CONFIG_HOME/kubectl-gpu/config.yaml`, default `~/.config/kubectl-gpu/config.yaml`). The flag replaces
the file's list, as every flag does. A name that is no namespace name, or a `usage` key that is not a
mapping of `exporterNamespaces`, is bad input (exit 2) naming the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.core.lazy_pattern import lazy_pattern

__all__ = ["CONFIG_KEY", "exporter_namespaces", "namespaces_from_config"]

CONFIG_KEY = "exporterNamespaces"
_NAMESPACE = lazy_pattern(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")  # a DNS-1123 label, as Kubernetes names them
_EXAMPLE = "e.g. usage: {exporterNamespaces: [gpu-operator]}"


def _checked(names: Sequence[object], where: str) -> tuple[str, ...]:
    out = []
    for name in names:
        if not isinstance(name, str) or len(name) > 63 or not _NAMESPACE.fullmatch(name):
            raise InvalidInput(f"{where}: {name!r} is not a namespace name", _EXAMPLE)
        out.append(name)
    return tuple(sorted(set(out)))


def namespaces_from_config(config: dict[str, Any] | None, where: str) -> tuple[str, ...]:
    """The config file's `usage.exporterNamespaces` (`config`: the file's mapping, None without one)."""
    usage = None if config is None else config.get("usage")
    if usage is None:
        return ()
    if not isinstance(usage, dict):
        raise InvalidInput(f"{where}: usage: expected a mapping", _EXAMPLE)
    unknown = sorted(str(k) for k in usage if k != CONFIG_KEY)
    if unknown:
        raise InvalidInput(
            f"{where}: usage: unknown key(s) {', '.join(unknown)} (known: {CONFIG_KEY})", _EXAMPLE
        )
    names = usage.get(CONFIG_KEY)
    if names is None:
        return ()
    if not isinstance(names, list):
        raise InvalidInput(f"{where}: usage.{CONFIG_KEY}: expected a list of namespaces", _EXAMPLE)
    return _checked(names, f"{where}: usage.{CONFIG_KEY}")


def exporter_namespaces(flag: Sequence[str] | None = None) -> tuple[str, ...]:
    """`--exporter-namespace` (its values, each possibly comma-separated), else the config file's list."""
    if flag:
        return _checked(
            [n.strip() for item in flag for n in item.split(",") if n.strip()], "--exporter-namespace"
        )
    from kubectl_gpu.kube.debug.setup import config_path, read_config

    path = config_path()
    return namespaces_from_config(read_config(path), str(path))
