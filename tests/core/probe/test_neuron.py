"""neuron-ls --json-output."""

from __future__ import annotations

import pytest

from kubectl_gpu.core.probe import ProbeParseError, parse_neuron_ls_json

from . import _fixtures as fx

TRN1 = "neuron/all-smi__neuron-ls-json-output__trn1.2xlarge__no-trailing-newline.json"
ELIDED = "neuron/neuron-sdk-docs__neuron-ls-j__trn2n.48xlarge__ELIDED.txt"


def test_every_neuron_fixture_is_used() -> None:
    assert fx.names("neuron") == sorted([TRN1.split("/")[1], ELIDED.split("/")[1]])


def test_trn1_2xlarge() -> None:
    report = parse_neuron_ls_json(fx.data(TRN1))
    (dev,) = report.devices
    assert (dev.index, dev.nc_count, dev.memory_bytes, dev.bdf) == (0, 2, 34359738368, "0000:00:1e.0")
    assert (dev.cpu_affinity, dev.numa_node, dev.connected_to, dev.neuroncore_ids) == ("0-7", -1, (), (0, 1))
    assert dev.processes == ()
    assert (report.driver_version, report.runtime_version) == (None, None)


def test_elided_doc_sample_is_rejected() -> None:
    # The documentation elides devices 1-14 with '...' and starts with a '$ neuron-ls -j' prompt line.
    with pytest.raises(ProbeParseError, match="invalid JSON"):
        parse_neuron_ls_json(fx.data(ELIDED))


def test_two_devices_with_processes() -> None:
    report = parse_neuron_ls_json(fx.data("ours/neuron/ours__neuron-ls-json__2dev-ring-with-procs.json"))
    assert [(d.index, d.connected_to, d.neuroncore_ids) for d in report.devices] == [
        (0, (1,), (0, 1)),
        (1, (0,), (2, 3)),
    ]
    assert report.devices[0].processes[0].pid == 109459
    assert report.runtime_version == "2.15.11"


def test_object_form_with_versions() -> None:
    text = '{"neuron_driver_version": "2.19.64.0", "neuron_devices": [{"neuron_device": 3, "nc_count": "4"}]}'
    report = parse_neuron_ls_json(text)
    assert (report.driver_version, report.devices[0].index, report.devices[0].nc_count) == ("2.19.64.0", 3, 4)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "{}",
        "42",
        "[1]",
        '[{"nc_count": 2}]',
        '[{"neuron_device": "zero"}]',
        '[{"neuron_device": true}]',
        '[{"neuron_device": 0, "connected_to": 3}]',
        '[{"neuron_device": 0, "neuron_processes": [7]}]',
        "[" * 50000,
        "[" + "9" * 5000 + "]",
    ],
)
def test_rejects(text: str) -> None:
    with pytest.raises(ProbeParseError) as info:
        parse_neuron_ls_json(text)
    assert str(info.value).startswith("neuron-ls JSON: ")
