"""Read-only mode on the command line: `usage --readonly`, or `readonly: true` at the top of the config file
(`$XDG_CONFIG_HOME/kubectl-gpu/config.yaml`). In it no command creates a pod: `usage --sample`, `smi` and
`shell` refuse before reading anything, in one line, exit 2 (the request contradicts the setting), and the
TUI starts read-only as with `tui --readonly`. `--dry-run`, `--from-file` and `--snapshot` create nothing and
stay allowed."""

from __future__ import annotations

from kubectl_gpu.core.errors import InvalidInput

__all__ = ["config_readonly", "refuse_pods_when_readonly"]


def config_readonly() -> bool:
    """The config file's top-level `readonly` (false without a file or the key); bad input when not a bool."""
    from kubectl_gpu.kube.debug.setup import config_path, read_config

    path = config_path()
    config = read_config(path)
    if not isinstance(config, dict) or config.get("readonly") is None:
        return False
    value = config["readonly"]
    if not isinstance(value, bool):
        raise InvalidInput(f"{path}: readonly: expected true or false, not {value!r}", "e.g. readonly: true")
    return value


def refuse_pods_when_readonly(what: str, flag: bool = False) -> None:
    """InvalidInput (exit 2) when read-only mode is on (`flag`: the command's --readonly, else the config
    file), naming what would have created pods and where the setting comes from."""
    from kubectl_gpu.kube.debug.setup import config_path

    if flag:
        source = "--readonly"
    elif config_readonly():
        source = f"readonly: true in {config_path()}"
    else:
        return
    raise InvalidInput(
        f"{what} creates debug pods and read-only mode is on ({source})",
        f"drop {what}" if what.startswith("--") else "turn read-only off to run it",
    )
