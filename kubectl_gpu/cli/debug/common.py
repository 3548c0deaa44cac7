"""What `smi`, `shell` and `cleanup` share: durations, the config file and the image it picks, the connection,
the target nodes, preflight checks and warnings."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kubectl_gpu.cli.options import GlobalOptions
from kubectl_gpu.core.debugpod import Accelerator, ImageChoice, Mode, resolve_image
from kubectl_gpu.core.errors import ClusterError, InvalidInput
from kubectl_gpu.core.k8s.times import TimeError, parse_duration

if TYPE_CHECKING:
    from kubectl_gpu.kube.debug_runner import Leftover
    from kubectl_gpu.kube.pod_api import PodApi
    from kubectl_gpu.kube.preflight import Targets

__all__ = [
    "NEURON_HELP",
    "NVIDIA_HELP",
    "PodsLeftBehind",
    "cleanup_command",
    "collector_script",
    "config_path",
    "connect",
    "find_targets",
    "image_chooser",
    "kubectl_flags",
    "namespace_of",
    "parse_seconds",
    "pods_left_error",
    "preflight",
    "print_warnings",
    "read_config",
]

NVIDIA_HELP = "Debug image for NVIDIA nodes (else KUBECTL_GPU_IMAGE, the config file, the default)."
NEURON_HELP = "Debug image for Neuron nodes (else KUBECTL_GPU_NEURON_IMAGE, the config file, the default)."


def parse_seconds(text: str, flag: str) -> float:
    """`90`, `90s`, `5m` -> seconds; InvalidInput naming `flag` unless positive."""
    try:
        seconds = float(text) if text.replace(".", "", 1).isdigit() else parse_duration(text).total_seconds()
    except (TimeError, ValueError):  # ValueError: isdigit() admits digits float() rejects ("²")
        raise InvalidInput(f"{flag}: not a duration: {text!r}", "use forms like 90s, 5m") from None
    except OverflowError:  # beyond timedelta's range
        seconds = float("inf")
    if seconds <= 0:
        raise InvalidInput(f"{flag} must be positive")
    if seconds > _MAX_SECONDS:  # sockets and deadlines overflow on timeouts of millennia
        raise InvalidInput(f"{flag}: {text!r} is too long", "at most 24h")
    return seconds


_MAX_SECONDS = 86400.0


def config_path(env: dict[str, str] | None = None) -> Path:
    """`$XDG_CONFIG_HOME/kubectl-gpu/config.yaml` (default `~/.config/kubectl-gpu/config.yaml`)."""
    values = os.environ if env is None else env
    base = values.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "kubectl-gpu" / "config.yaml"


def read_config(path: Path) -> dict[str, Any] | None:
    import yaml

    from kubectl_gpu.kube.yaml_input import DUPLICATE_HINT, DuplicateKeyError, safe_load

    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise InvalidInput(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InvalidInput(f"{path}: not a text file", "write YAML, e.g. image: {nvidia: REF}") from None
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


def connect(opts: GlobalOptions) -> PodApi:
    from kubectl_gpu.kube.live import LiveOptions, LiveSource
    from kubectl_gpu.kube.pod_api import PodApi

    if opts.snapshot:
        raise InvalidInput("debug pods need a live cluster; --snapshot cannot be used here")
    source = LiveSource(
        LiveOptions(
            kubeconfig=opts.kubeconfig_path(), context=opts.context, request_timeout=opts.timeout_seconds
        )
    )
    api = PodApi(source.api, request_timeout=opts.timeout_seconds, context=source.context)
    api.prove()  # a 404 from a web server must not read as "node not found" or "no debug pods"
    return api


def namespace_of(opts: GlobalOptions) -> str:
    return opts.namespace or "default"


def kubectl_flags(opts: GlobalOptions, context: str | None) -> list[str]:
    """Pin the kubeconfig and context we used, so a context switch meanwhile cannot retarget anything."""
    flags: list[str] = []
    if opts.kubeconfig:
        flags += ["--kubeconfig", opts.kubeconfig]
    if context:
        flags += ["--context", context]
    return flags


def print_warnings(lines: Sequence[str], no_color: bool) -> None:
    from kubectl_gpu.kube.secret_text import scrub
    from kubectl_gpu.render.output import make_console

    console = make_console(stderr=True, no_color=no_color)
    for line in dict.fromkeys(lines):
        console.print(
            scrub(f"warning: {line}"), style="yellow", markup=False, highlight=False, soft_wrap=True
        )


def collector_script() -> str:
    from importlib import resources

    return resources.files("kubectl_gpu.data").joinpath("collector.sh").read_text(encoding="utf-8")


def find_targets(
    api: PodApi,
    opts: GlobalOptions,
    names: Sequence[str],
    all_nodes: bool,
    chooser: Callable[[Accelerator], ImageChoice],
) -> Targets:
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.kube.preflight import resolve_targets

    return resolve_targets(
        api,
        names=names,
        selector=opts.selector,
        all_gpu=all_nodes or bool(opts.selector),
        catalog=load_catalog(),
        image_for=lambda accelerator: chooser(accelerator).image,
    )


def preflight(api: PodApi, namespace: str, mode: Mode) -> list[str]:
    from kubectl_gpu.kube.preflight import check_access, check_pod_security

    return check_pod_security(api, namespace) + check_access(api, namespace, mode)


def cleanup_command(opts: GlobalOptions, context: str | None, namespace: str, names: Sequence[str]) -> str:
    """The exact `kubectl gpu cleanup` line that deletes these pods (and no other), for copy and paste."""
    import shlex

    argv = ["kubectl", "gpu", "cleanup", *kubectl_flags(opts, context), "-n", namespace, "--yes", *names]
    return shlex.join(argv)


def pods_left_error(left: Sequence[Leftover], opts: GlobalOptions, context: str | None) -> ClusterError:
    """Debug pods that may still run on their nodes: one line naming each, and the cleanup command."""
    shown = ", ".join(f"{item.namespace}/{item.name} ({item.problem})" for item in left)
    what = "debug pod" if len(left) == 1 else f"{len(left)} debug pods:"
    commands = []
    for namespace in sorted({item.namespace for item in left}):
        names = [item.name for item in left if item.namespace == namespace]
        commands.append(cleanup_command(opts, context, namespace, names))
    return PodsLeftBehind(
        f"could not delete {what} {shown}",
        f"{'it is' if len(left) == 1 else 'they are'} still on the node; delete with: "
        + " && ".join(commands),
    )


class PodsLeftBehind(ClusterError):
    """A privileged debug pod may be left on a node: exit 3 (or 130 when interrupted), never 0."""
