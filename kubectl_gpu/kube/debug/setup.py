"""What every front end needs before a debug pod exists: the config file and the image it picks, the
collector script, the connection, the target nodes and the preflight checks.

Shared by the CLI (`kubectl gpu smi`, `shell`, `snapshot --probe`) and the TUI (`s`, `x`), so both create
exactly the same pods through the same runner (`kube.debug.runner`).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kubectl_gpu.core.debugpod import Accelerator, ImageChoice, Mode, resolve_image
from kubectl_gpu.core.errors import InvalidInput

if TYPE_CHECKING:
    from kubectl_gpu.kube.connection import Connection, ConnectionFlags
    from kubectl_gpu.kube.debug.pod_api import PodApi
    from kubectl_gpu.kube.debug.preflight import Targets

__all__ = [
    "collector_script",
    "config_path",
    "connect",
    "find_targets",
    "image_chooser",
    "open_pod_api",
    "preflight",
    "read_config",
]


def config_path(env: dict[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/kubectl-gpu/config.yaml` (default `~/.config/kubectl-gpu/config.yaml`)."""
    values = os.environ if env is None else env
    base = values.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kubectl-gpu" / "config.yaml"


def read_config(path: Path) -> dict[str, Any] | None:
    """The config file's mapping; None when there is none (most runs: then no YAML parser is imported)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: not a text file", "write YAML, e.g. image: {nvidia: REF}") from None
    import yaml

    from kubectl_gpu.kube.yaml_input import DUPLICATE_HINT, DuplicateKeyError, safe_load

    try:
        data = safe_load(text)
    except DuplicateKeyError as exc:
        raise InvalidInput(f"{path}: {exc.detail}", DUPLICATE_HINT) from None
    except yaml.YAMLError:
        raise InvalidInput(f"{path}: not valid YAML") from None
    if data is None:
        return None
    if not isinstance(data, dict):
        raise InvalidInput(f"{path}: expected a mapping (e.g. image: {{nvidia: REF, neuron: REF}})")
    return data


def image_chooser(image: str | None, neuron_image: str | None) -> Callable[[Accelerator], ImageChoice]:
    """flag > environment > config file > the default tag of this version."""
    path = config_path()
    config = read_config(path)
    env = dict(os.environ)

    def choose(accelerator: Accelerator) -> ImageChoice:
        flag = image if accelerator is Accelerator.NVIDIA else neuron_image
        try:
            return resolve_image(accelerator, flag=flag, env=env, config=config, config_path=str(path))
        except ValueError as exc:
            raise InvalidInput(str(exc)) from None

    return choose


def collector_script() -> str:
    from kubectl_gpu.core.data_files import data_file

    return data_file("collector.sh").decode("utf-8")


def connect(
    kubeconfig: str | None,
    context: str | None,
    request_timeout: float | None,
    flags: ConnectionFlags | None = None,
) -> PodApi:
    """The pod API of a kubeconfig context (the live cluster; debug pods need one), with kubectl's `flags`
    over the kubeconfig."""
    from kubectl_gpu.kube.connection import resolve

    return open_pod_api(resolve(kubeconfig, context, request_timeout, flags))


def open_pod_api(connection: Connection) -> PodApi:
    """The pod API of a resolved connection (`kube.connection`): its server, identity, TLS and timeout;
    the debug pods go to its `namespace`."""
    from kubectl_gpu.kube.debug.pod_api import PodApi
    from kubectl_gpu.kube.live import LiveOptions, LiveSource

    timeout = connection.request_timeout
    source = LiveSource(LiveOptions(request_timeout=timeout, connection=connection))
    api = PodApi(source.api, request_timeout=timeout, context=source.context)
    api.prove()  # a 404 from a web server must not read as "node not found" or "no debug pods"
    return api


def find_targets(
    api: PodApi,
    names: Sequence[str],
    *,
    selector: str | None,
    all_nodes: bool,
    chooser: Callable[[Accelerator], ImageChoice],
) -> Targets:
    """The named nodes (or every accelerator node, with `all_nodes` or a selector), ready or not and why."""
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.kube.debug.preflight import resolve_targets

    return resolve_targets(
        api,
        names=names,
        selector=selector,
        all_gpu=all_nodes or bool(selector),
        catalog=load_catalog(),
        image_for=lambda accelerator: chooser(accelerator).image,
    )


def preflight(api: PodApi, namespace: str, mode: Mode) -> list[str]:
    """Pod Security and RBAC checks for `mode` in `namespace`: warnings; raises what would fail anyway."""
    from kubectl_gpu.kube.debug.preflight import check_access, check_pod_security

    return check_pod_security(api, namespace) + check_access(api, namespace, mode)
