"""Property tests: every parser returns a result or raises ProbeParseError, whatever it is fed.

Inputs: arbitrary text and bytes, and real fixtures cut at random points or with random bytes flipped.
``parse_collector_output`` must never raise at all.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kubectl_gpu.core.probe import (
    ProbeParseError,
    parse_collector_output,
    parse_compute_apps_csv,
    parse_findmnt_json,
    parse_kernel_release,
    parse_lsblk_json,
    parse_lsblk_pairs,
    parse_mdstat,
    parse_neuron_ls_json,
    parse_nvidia_driver_version,
    parse_nvidia_smi_list,
    parse_nvidia_smi_topo,
    parse_nvidia_smi_xml,
    parse_os_release,
    parse_pid_cgroups,
    parse_query_gpu_csv,
    split_sections,
)

from . import _fixtures as fx

Parser = Callable[[str | bytes], object]

#: parser -> the fixtures its mutations start from
CORPUS: dict[str, tuple[Parser, list[str]]] = {
    "xml": (
        parse_nvidia_smi_xml,
        [f"nvidia-smi/xml/{n}" for n in fx.names("nvidia-smi/xml")]
        + ["ours/xml/ours__nvidia-smi-q-x__h100-mig-procs-errors-kmd__SYNTHETIC.xml"],
    ),
    "csv": (
        parse_query_gpu_csv,
        [f"nvidia-smi/csv/{n}" for n in fx.names("nvidia-smi/csv", "*query-gpu*")]
        + [f"ours/csv/{n}" for n in fx.names("ours/csv")],
    ),
    "compute-apps": (
        parse_compute_apps_csv,
        [f"nvidia-smi/csv/{n}" for n in fx.names("nvidia-smi/csv", "*compute*")],
    ),
    "list": (parse_nvidia_smi_list, [f"nvidia-smi/list/{n}" for n in fx.names("nvidia-smi/list")]),
    "topo": (
        parse_nvidia_smi_topo,
        [f"nvidia-smi/topo/{n}" for n in fx.names("nvidia-smi/topo")]
        + ["ours/topo/ours__topo-m__8x-a100-nv12-4-nic__p4d-like.txt"],
    ),
    "lsblk": (
        parse_lsblk_json,
        [f"storage/{n}" for n in fx.names("storage", "*.json")]
        + [f"ours/lsblk/{n}" for n in fx.names("ours/lsblk")],
    ),
    "lsblk-pairs": (parse_lsblk_pairs, ["storage/gpud__lsblk-P__2x-nvme-xfs.txt"]),
    "findmnt": (parse_findmnt_json, ["ours/findmnt/ours__findmnt-J__md127-mounted.json"]),
    "mdstat": (parse_mdstat, [f"ours/mdstat/{n}" for n in fx.names("ours/mdstat")]),
    "neuron": (
        parse_neuron_ls_json,
        [f"neuron/{n}" for n in fx.names("neuron")] + [f"ours/neuron/{n}" for n in fx.names("ours/neuron")],
    ),
    "driver-version": (
        parse_nvidia_driver_version,
        [f"ours/driver-version/{n}" for n in fx.names("ours/driver-version")],
    ),
    "os-release": (parse_os_release, [f"ours/os-release/{n}" for n in fx.names("ours/os-release")]),
    "pid-cgroups": (parse_pid_cgroups, [f"ours/cgroup/{n}" for n in fx.names("ours/cgroup")]),
    "uname": (parse_kernel_release, []),
}

FUZZ = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
MUTATE = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _survives(parser: Parser, data: str | bytes) -> None:
    try:
        parser(data)
    except ProbeParseError as exc:
        assert "\n" not in str(exc)
        assert len(str(exc)) < 400


@pytest.mark.parametrize("kind", sorted(CORPUS))
@FUZZ
@given(text=st.text(max_size=400))
def test_arbitrary_text(kind: str, text: str) -> None:
    _survives(CORPUS[kind][0], text)


@pytest.mark.parametrize("kind", sorted(CORPUS))
@FUZZ
@given(data=st.binary(max_size=400))
def test_arbitrary_bytes(kind: str, data: bytes) -> None:
    _survives(CORPUS[kind][0], data)


@st.composite
def mutated(draw: st.DrawFn, sources: list[str]) -> bytes:
    original = fx.data(draw(st.sampled_from(sources)))
    data = bytearray(original[: draw(st.integers(0, len(original)))] if draw(st.booleans()) else original)
    for _ in range(draw(st.integers(0, 6))):
        if not data:
            break
        data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    return bytes(data)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(k for k, (_, sources) in CORPUS.items() if sources))
@MUTATE
@given(data=st.data())
def test_mutated_real_fixtures(kind: str, data: st.DataObject) -> None:
    parser, sources = CORPUS[kind]
    blob = data.draw(mutated(sources))
    _survives(parser, blob)
    _survives(parser, blob.decode("utf-8", errors="replace"))


SECTION_BODIES = [
    ("nvidia-smi-xml", "nvidia-smi/xml/datarhei-core__2x-nvidia-l4__555.42.06__v12__ffmpeg-procs.xml"),
    ("nvidia-smi-csv", "ours/csv/ours__query-gpu__collector-fields__header-units.csv"),
    ("nvidia-smi-list", "nvidia-smi/list/cloud-native-docs__h100-mig-mixed__L.txt"),
    ("nvidia-smi-topo", "ours/topo/ours__topo-m__8x-a100-nv12-4-nic__p4d-like.txt"),
    ("pid-cgroups", "ours/cgroup/ours__pid-cgroups__v2-systemd-containerd__matches-l4-xml.txt"),
    ("driver-version", "ours/driver-version/ours__proc-driver-nvidia-version__proprietary-535.txt"),
    ("lsblk", "storage/gpud__lsblk-J__8x-nvme-7T-md0-raid0.json"),
    ("mdstat", "ours/mdstat/ours__mdstat__raid5-recovery.txt"),
    ("findmnt", "ours/findmnt/ours__findmnt-J__md127-mounted.json"),
    ("os-release", "ours/os-release/ours__os-release__al2023.txt"),
    ("neuron-ls", "neuron/all-smi__neuron-ls-json-output__trn1.2xlarge__no-trailing-newline.json"),
]


def _sample_output() -> bytes:
    parts = ["===KUBECTL-GPU:COLLECTOR v1 id=abc123===\n"]
    for name, rel in SECTION_BODIES:
        parts.append(f"===KUBECTL-GPU:BEGIN {name} rc=0 id=abc123===\n{fx.text(rel)}\n")
        parts.append(f"===KUBECTL-GPU:END {name} id=abc123===\n")
    parts.append("===KUBECTL-GPU:BEGIN uname rc=0 id=abc123===\n6.1.119-129.201.amzn2023.x86_64\n\n")
    parts.append("===KUBECTL-GPU:END uname id=abc123===\n")
    parts.append("===KUBECTL-GPU:DONE id=abc123===\n")
    return "".join(parts).encode()


SAMPLE = _sample_output()


@FUZZ
@given(text=st.text(max_size=600))
def test_collector_never_raises_on_text(text: str) -> None:
    split_sections(text)
    parse_collector_output(text)


@MUTATE
@given(data=st.data())
def test_collector_never_raises_on_mutated_output(data: st.DataObject) -> None:
    blob = bytearray(SAMPLE[: data.draw(st.integers(0, len(SAMPLE)))])
    for _ in range(data.draw(st.integers(0, 8))):
        if blob:
            blob[data.draw(st.integers(0, len(blob) - 1))] = data.draw(st.integers(0, 255))
    result = parse_collector_output(bytes(blob))
    assert all(
        i.kind in {"missing", "truncated", "failed", "empty", "parse", "recovered", "nvidia-smi-error"}
        for i in result.issues
    )


def test_unmutated_sample_is_clean() -> None:
    result = parse_collector_output(SAMPLE)
    assert result.issues == ()
    assert len(result.gpus) == 2
    assert sorted(result.pid_pods) == [10131, 13597]
