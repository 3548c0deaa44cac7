"""Shell completion: `kubectl_complete-gpu` (what kubectl runs for `kubectl gpu <TAB>`), the hidden
`kubectl-gpu __complete` the scripts of `kubectl-gpu completion bash|zsh|fish` call (`completion_cmd`,
`completion_scripts`), and the candidates themselves.

Protocol (kubectl's `plugin_completion.go`): the arguments typed so far, the last one being the word to
complete (possibly empty); one candidate a line, then `:<directive>` (Cobra's ShellCompDirective: 0 lets the
shell complete file names, 4 means no file names).

It must start fast: this module imports neither typer nor the commands nor the analyses. The command tree
comes from `kubectl_gpu/data/completion.json` (written by `completion_spec` from the app); node, pod, namespace
and context names come from `kubectl` with a short timeout (the Python client when there is no kubectl), and
nothing at all is printed on an error.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "DIRECTIVE_DEFAULT",
    "DIRECTIVE_NO_FILES",
    "SHELLS",
    "complete",
    "kubectl_complete",
    "program_name",
    "run",
    "script",
]

DIRECTIVE_DEFAULT = 0  # the shell may complete file names
DIRECTIVE_NO_FILES = 4  # cobra.ShellCompDirectiveNoFileComp
#: Seconds for one lookup of names in the cluster: a TAB must not hang on an unreachable API server.
NAMES_TIMEOUT = 2.0
SHELLS = ("bash", "zsh", "fish")

Spec = dict[str, Any]
Kind = str | list[str] | None
Names = Callable[["Parsed", str], list[str]]


def load_spec() -> Spec:
    """The command tree (package data; read by path: importlib.resources alone costs a TAB 10 ms)."""
    path = os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "completion.json"
    )
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except OSError:  # packaged some other way (a zip): ask the import system
        from importlib import resources

        text = resources.files("kubectl_gpu.data").joinpath("completion.json").read_text(encoding="utf-8")
    spec: Spec = json.loads(text)
    return spec


class Parsed:
    """The words before the one being completed: the subcommand, option values, positional arguments.
    (A plain class: importing dataclasses would cost every TAB a few milliseconds.)"""

    def __init__(self) -> None:
        self.command: str | None = None
        self.values: dict[str, str] = {}  # long option name -> value
        self.positionals: list[str] = []
        self.pending: str | None = None  # an option whose value is the word being completed

    def value(self, *names: str) -> str | None:
        return next((self.values[n] for n in names if n in self.values), None)


def _options(spec: Spec, command: str | None) -> dict[str, Kind]:
    own = spec["commands"][command]["options"] if command else spec["root"]
    return {**spec["global"], **own}


def _canonical(options: dict[str, Kind], name: str) -> str:
    """`-n` -> `--namespace`: values are kept under the long name the lookups ask for."""
    aliases = {"-n": "--namespace", "-A": "--all-namespaces", "-l": "--selector", "-o": "--output"}
    return aliases.get(name, name) if name in options else name


def parse(spec: Spec, words: Sequence[str]) -> Parsed:
    parsed = Parsed()
    rest = iter(words)
    for word in rest:
        if word == "--":
            parsed.positionals.extend(rest)
            break
        if word.startswith("-") and word != "-":
            options = _options(spec, parsed.command)
            name, eq, value = word.partition("=")
            kind = options.get(name)
            if name not in options or kind is None:
                continue  # a flag, or something we do not know: it takes no value we could find
            if eq:
                parsed.values[_canonical(options, name)] = value
                continue
            following = next(rest, None)
            if following is None:
                parsed.pending = name
                break
            parsed.values[_canonical(options, name)] = following
        elif parsed.command is None and word in spec["commands"]:
            parsed.command = word
        else:
            parsed.positionals.append(word)
    return parsed


def _argument_kind(spec: Spec, parsed: Parsed) -> Kind:
    if parsed.command is None:
        return None
    arguments = spec["commands"][parsed.command]["arguments"]
    index = len(parsed.positionals)
    if index < len(arguments):
        return arguments[index]["kind"]  # type: ignore[no-any-return]
    if arguments and arguments[-1]["many"]:
        return arguments[-1]["kind"]  # type: ignore[no-any-return]
    return None


def complete(args: Sequence[str], names: Names | None = None) -> tuple[list[str], int]:
    """Candidates for the last of `args` (the words after the plugin name) and the directive."""
    spec = load_spec()
    words, partial = list(args[:-1]), (args[-1] if args else "")
    parsed = parse(spec, words)
    lookup = names or cluster_names
    if parsed.pending is not None:
        return _values(_options(spec, parsed.command)[parsed.pending], parsed, partial, lookup)
    if partial.startswith("-"):
        options = _options(spec, parsed.command)
        name, eq, value = partial.partition("=")
        if eq and options.get(name) is not None:
            found, directive = _values(options[name], parsed, value, lookup)
            return [f"{name}={v}" for v in found], directive
        return sorted(o for o in options if o.startswith(partial)), DIRECTIVE_NO_FILES
    if parsed.command is None:
        return sorted(c for c in spec["commands"] if c.startswith(partial)), DIRECTIVE_NO_FILES
    kind = _argument_kind(spec, parsed)
    if kind is None:
        return [], DIRECTIVE_NO_FILES
    return _values(kind, parsed, partial, lookup)


def _values(kind: Kind, parsed: Parsed, partial: str, lookup: Names) -> tuple[list[str], int]:
    if isinstance(kind, list):
        return [c for c in kind if c.startswith(partial)], DIRECTIVE_NO_FILES
    if kind == "file":
        return [], DIRECTIVE_DEFAULT
    if kind in (None, "value"):
        return [], DIRECTIVE_NO_FILES
    return sorted(n for n in lookup(parsed, kind) if n.startswith(partial)), DIRECTIVE_NO_FILES


# --- names from the cluster ---------------------------------------------------------------------------------------


def _kubectl() -> str | None:
    import shutil

    for candidate in (os.environ.get("KUBECTL_GPU_KUBECTL"), os.environ.get("KUBECTL_PATH")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return shutil.which("kubectl")


def _kubectl_lines(kubectl: str, parsed: Parsed, args: Sequence[str]) -> list[str]:
    import subprocess

    argv = [kubectl]
    for option in ("--kubeconfig", "--context"):
        if parsed.value(option):
            argv.append(f"{option}={parsed.value(option)}")
    argv += [f"--request-timeout={NAMES_TIMEOUT:g}s", *args]
    try:
        done = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=NAMES_TIMEOUT + 1,
            stdin=subprocess.DEVNULL,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return []
    return done.stdout.split() if done.returncode == 0 else []


def _pod_query(parsed: Parsed, kind: str) -> tuple[list[str], bool]:
    """kubectl arguments for the pods to offer, and whether they come as namespace/name."""
    namespace = parsed.value("--namespace")
    columns = "-o=custom-columns=NS:.metadata.namespace,NAME:.metadata.name"
    pending = ["--field-selector=status.phase=Pending"] if kind == "pending-pod" else []
    if namespace:
        return ["get", "pods", f"--namespace={namespace}", "-o=name", *pending], False
    return ["get", "pods", "--all-namespaces", "--no-headers", columns, *pending], True


def _with_kubectl(kubectl: str, parsed: Parsed, kind: str) -> list[str]:
    if kind == "context":
        return _kubectl_lines(kubectl, parsed, ["config", "get-contexts", "-o=name"])
    if kind in ("node", "namespace"):
        names = _kubectl_lines(kubectl, parsed, ["get", f"{kind}s", "-o=name"])
        return [n.split("/", 1)[1] for n in names if "/" in n]
    args, qualified = _pod_query(parsed, kind)
    words = _kubectl_lines(kubectl, parsed, args)
    if qualified:
        return [f"{ns}/{name}" for ns, name in zip(words[::2], words[1::2], strict=False)]
    return [n.split("/", 1)[1] for n in words if "/" in n]


def _with_client(parsed: Parsed, kind: str) -> list[str]:
    """The same names through the Python client, for a machine without kubectl (slower: it imports it)."""
    from kubernetes import config

    kubeconfig = parsed.value("--kubeconfig")
    if kind == "context":
        contexts, _ = config.list_kube_config_contexts(config_file=kubeconfig)  # type: ignore[no-untyped-call]
        return [str(c["name"]) for c in contexts or []]
    from kubectl_gpu.kube.debug.pod_api import PodApi
    from kubectl_gpu.kube.live import LiveOptions, LiveSource

    options = LiveOptions(
        kubeconfig=kubeconfig, context=parsed.value("--context"), request_timeout=NAMES_TIMEOUT
    )
    source = LiveSource(options)
    api = PodApi(source.api, request_timeout=NAMES_TIMEOUT, context=source.context)
    if kind == "node":
        objects = api.list_nodes()
    elif kind == "namespace":
        objects = api.json("GET", "/api/v1/namespaces").get("items") or []
    else:
        namespace = parsed.value("--namespace")
        objects = api.list_pods(namespace, fields="status.phase=Pending" if kind == "pending-pod" else None)
        if not namespace:
            return [f"{o['metadata']['namespace']}/{o['metadata']['name']}" for o in objects]
    return [str(o["metadata"]["name"]) for o in objects]


def cluster_names(parsed: Parsed, kind: str) -> list[str]:
    """Names of `kind` (node, namespace, context, pod, pending-pod) in the current context; [] on any error."""
    if parsed.value("--snapshot") and kind != "context":
        return []  # reading a snapshot: the live cluster is not the one in question
    kubectl = _kubectl()
    try:
        return _with_kubectl(kubectl, parsed, kind) if kubectl else _with_client(parsed, kind)
    except Exception:  # completion is silent: a TAB never prints a traceback
        return []


# --- entry points ---------------------------------------------------------------------------------------------


def run(args: Sequence[str]) -> int:
    """Print the candidates for `args`, one a line, then `:<directive>`."""
    try:
        candidates, directive = complete(args)
    except Exception:
        candidates, directive = [], DIRECTIVE_DEFAULT
    sys.stdout.write("".join(f"{c}\n" for c in candidates) + f":{directive}\n")
    return 0


def kubectl_complete() -> None:
    """The `kubectl_complete-gpu` executable: kubectl passes the words after `kubectl gpu`."""
    sys.exit(run(sys.argv[1:]))


def program_name(argv0: str) -> str:
    """The name the scripts complete and call: the executable's own (`kubectl-gpu`, krew's link) if it
    looks like a kubectl plugin, else `kubectl-gpu` (e.g. under `python -m kubectl_gpu`)."""
    base = os.path.basename(argv0)
    return base if base.startswith("kubectl-") and " " not in base else "kubectl-gpu"


def script(shell: str, prog: str) -> str:
    """The completion script of `shell` for the executable `prog`."""
    from kubectl_gpu.cli.completion_scripts import SCRIPTS

    function = "_" + "".join(ch if ch.isalnum() else "_" for ch in prog) + "_complete"
    return SCRIPTS[shell].replace("@PROG@", prog).replace("@FUNC@", function)
