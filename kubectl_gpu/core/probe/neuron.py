"""``neuron-ls --json-output`` (``neuron-ls -j``). The table form is not parsed."""

from __future__ import annotations

import json

from .errors import ProbeParseError
from .models import NeuronDevice, NeuronLs, NeuronProcess

__all__ = ["parse_neuron_ls_json"]

FORMAT = "neuron-ls JSON"

_DEVICE_LIST_KEYS = ("neuron_devices", "devices")
_DRIVER_KEYS = ("neuron_driver_version", "driver_version")
_RUNTIME_KEYS = ("neuron_runtime_version", "runtime_version")


def _int(value: object, key: str) -> int | None:
    """An int from a JSON int or a numeric string (``"numa_node": "-1"``); ``None`` stays ``None``."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ProbeParseError(FORMAT, f"{key} is a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return int(text)
        except ValueError:
            raise ProbeParseError(FORMAT, f"{key} is not a number") from None
    raise ProbeParseError(FORMAT, f"{key} is a {type(value).__name__}")


def _str(value: object, key: str) -> str | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ProbeParseError(FORMAT, f"{key} is a {type(value).__name__}")
    text = str(value).strip()
    return text or None


def _int_list(value: object, key: str) -> tuple[int, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ProbeParseError(FORMAT, f"{key} is not a list")
    out: list[int] = []
    for item in value:
        number = _int(item, key)
        if number is not None:
            out.append(number)
    return tuple(out)


def _process(entry: object) -> NeuronProcess:
    if not isinstance(entry, dict):
        raise ProbeParseError(FORMAT, "neuron_processes entry is not an object")
    return NeuronProcess(
        pid=_int(entry.get("pid"), "pid"),
        command=_str(entry.get("command"), "command"),
        runtime_version=_str(entry.get("neuron_runtime_version"), "neuron_runtime_version"),
    )


def _device(entry: object) -> NeuronDevice:
    if not isinstance(entry, dict):
        raise ProbeParseError(FORMAT, "device entry is not an object")
    index = _int(entry.get("neuron_device"), "neuron_device")
    if index is None:
        raise ProbeParseError(FORMAT, "device without neuron_device index")
    processes = entry.get("neuron_processes")
    if processes is None:
        processes = []
    if not isinstance(processes, list):
        raise ProbeParseError(FORMAT, "neuron_processes is not a list")
    return NeuronDevice(
        index=index,
        nc_count=_int(entry.get("nc_count"), "nc_count"),
        memory_bytes=_int(entry.get("memory_size"), "memory_size"),
        bdf=_str(entry.get("bdf"), "bdf"),
        connected_to=_int_list(entry.get("connected_to"), "connected_to"),
        cpu_affinity=_str(entry.get("cpu_affinity"), "cpu_affinity"),
        numa_node=_int(entry.get("numa_node"), "numa_node"),
        logical_neuroncore_config=_int(entry.get("logical_neuroncore_config"), "logical_neuroncore_config"),
        neuroncore_ids=_int_list(entry.get("neuroncore_ids"), "neuroncore_ids"),
        processes=tuple(_process(p) for p in processes),
    )


def _first(data: dict[str, object], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = _str(data.get(key), key)
        if value is not None:
            return value
    return None


def parse_neuron_ls_json(text: str | bytes) -> NeuronLs:
    """Parse ``neuron-ls --json-output``: a list of device objects (or an object holding one under
    ``neuron_devices`` / ``devices`` with optional driver / runtime versions)."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", errors="replace")
    if not text.strip():
        raise ProbeParseError(FORMAT, "empty output")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProbeParseError(
            FORMAT, f"invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}"
        ) from None
    except (RecursionError, ValueError) as exc:
        raise ProbeParseError(FORMAT, f"unreadable JSON ({type(exc).__name__})") from None
    driver: str | None = None
    runtime: str | None = None
    if isinstance(data, dict):
        driver = _first(data, _DRIVER_KEYS)
        runtime = _first(data, _RUNTIME_KEYS)
        found = next((data[key] for key in _DEVICE_LIST_KEYS if key in data), None)
        if found is None:
            raise ProbeParseError(FORMAT, "object without a device list")
        data = found
    if not isinstance(data, list):
        raise ProbeParseError(FORMAT, f"top level is a {type(data).__name__}, not a device list")
    devices = tuple(_device(entry) for entry in data)
    if runtime is None:
        runtime = next((p.runtime_version for d in devices for p in d.processes if p.runtime_version), None)
    return NeuronLs(devices=devices, driver_version=driver, runtime_version=runtime)
