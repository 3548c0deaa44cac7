"""The JSONPath printer to the edge, byte for byte against the real kubectl on the same object (issue 41,
item 1): unions grouped by member, an index out of range an error, `=~` refused, map keys in order,
--allow-missing-template-keys, brackets by kubectl's rules (`["name"]` refused, `['a.b']` the path .a.b). kubectl prints a local object with `annotate --local -f FILE -o jsonpath=`
(no API server); we render the same template over the same document."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kubectl_gpu.core.errors import InvalidInput
from kubectl_gpu.render.jsonpath import parse_template

KUBECTL = shutil.which("kubectl")
OBJECT: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "n1",
        "labels": {"zz": "1", "aa": "2", "mm": "3", "kubernetes.io/arch": "amd64"},
        "annotations": {"x": "y"},
    },
    "spec": {"a": [{"b": []}, {"b": [1, 2]}], "m": {"z": 1}},
    "status": {
        "capacity": {"memory": "1Gi", "cpu": "4"},
        "conditions": [
            {"type": "A", "status": "True"},
            {"type": "B", "status": "False"},
            {"type": "C", "status": "True"},
        ],
    },
}
TEMPLATES = [
    "{.metadata.name}",
    "{.metadata.labels}",
    "{.status.capacity}",
    "{.status}",
    "{range .metadata.labels}{@}{end}",
    "{.status.conditions[*]['type','status']}",
    "{.status['capacity','conditions']}",
    "{.status.conditions[*].type}",
    "{.status.conditions[0,2].type}",
    "{.status.conditions[0:2].type}",
    "{.status.conditions[-1].type}",
    "{.status.conditions[1:].type}",
    '{.status.conditions[?(@.status=="True")].type}',
    '{range .status.conditions[*]}{.type}={.status}{"\\n"}{end}',
    "{.status.conditions[*]['type','nope']}",
    "{.nope}",
    "{.status.conditions[*].nope}",
    "{.spec.a[*]}",
    "{.spec.a[*].b[*]}",  # kubectl's evalArray: an empty list ends the step
    "{.spec.m['z']}",
    "{.metadata['labels']['zz']}",
    "{.metadata.labels['kubernetes.io/arch']}",  # kubectl reads ['a.b'] as the path .a.b: nothing here
    "{.metadata.labels['kubernetes\\.io/arch']}",  # an escaped dot: the key
    "{.metadata.labels['']}",
    "{.spec['m.z','m']}",  # in a union too, a quoted name is a path
    "{.metadata.labels['zz', 'kubernetes.io/arch']}",
    "{.metadata.labels['zz','kubernetes\\.io/arch']}",
    "{.status.conditions[*]['type','nope.x']}",
    "{.status.conditions[0:2:1].type}",
]
ERRORS = [
    "{.status.conditions[5].type}",
    "{.status.conditions[0,5].type}",
    "{.status.conditions[-5].type}",
    "{.status.conditions[2:9].type}",
    "{.status.conditions[9:].type}",
    '{.status.conditions[?(@.type=~"A")].type}',
    "{.status.conditions[?(@.type=='A' && @.status=='True')].type}",
    "{.spec.m[*]}",
    "{.metadata.name[*]}",
    # kubectl's brackets: a name in double quotes, or a space inside, is `invalid array index`
    '{.metadata.labels["zz"]}',
    '{.metadata["labels"]}',
    '{.metadata.labels["zz","aa"]}',
    "{.metadata.labels[ 'zz' ]}",
    "{.status.conditions[ 0 ].type}",
    '{.status.conditions[?(@["type"]=="A")].type}',
    "{.status.conditions[-].type}",
    "{.status.conditions[0:-].type}",
    "{.status.conditions[a].type}",
]

needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="the real kubectl is not on PATH")


@pytest.fixture(scope="module")
def object_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("object") / "node.json"
    path.write_text(json.dumps(OBJECT))
    return path


def _kubectl(path: Path, template: str, *flags: str) -> subprocess.CompletedProcess[str]:
    assert KUBECTL is not None
    cmd = [
        KUBECTL,
        "annotate",
        "--local",
        "--overwrite",
        "-f",
        str(path),
        "x=y",
        *flags,
        "-o",
        f"jsonpath={template}",
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


def _ours(template: str, *, allow_missing: bool = True) -> str:
    return parse_template(template).render(OBJECT, allow_missing=allow_missing)


def _first_line(stderr: str) -> str:
    """kubectl's error without its debugging dump: `error: ... Printing more information ...`."""
    line = stderr.splitlines()[0].removeprefix("error: ")
    return line.split(". Printing more information")[0]


@needs_kubectl
@pytest.mark.parametrize("template", TEMPLATES)
def test_printed_byte_for_byte_as_kubectl(object_file: Path, template: str) -> None:
    theirs = _kubectl(object_file, template)
    assert theirs.returncode == 0, theirs.stderr
    assert _ours(template) == theirs.stdout


@needs_kubectl
@pytest.mark.parametrize("template", ERRORS)
def test_refused_in_kubectl_words(object_file: Path, template: str) -> None:
    theirs = _kubectl(object_file, template)
    assert theirs.returncode != 0
    with pytest.raises(InvalidInput) as raised:
        _ours(template)
    assert raised.value.message == _first_line(theirs.stderr)


@needs_kubectl
@pytest.mark.parametrize("template", ["{.nope}", "{.status.conditions[*].nope}", "{.metadata.name}"])
def test_allow_missing_template_keys_false_as_kubectl(object_file: Path, template: str) -> None:
    theirs = _kubectl(object_file, template, "--allow-missing-template-keys=false")
    if theirs.returncode == 0:
        assert _ours(template, allow_missing=False) == theirs.stdout
        return
    with pytest.raises(InvalidInput) as raised:
        _ours(template, allow_missing=False)
    assert raised.value.message == _first_line(theirs.stderr)


def test_a_union_is_grouped_by_member() -> None:
    """kubectl's order, also without kubectl on PATH: every first member, then every second."""
    assert _ours("{.status.conditions[*]['type','status']}") == "A B C True False True"


def test_a_wildcard_over_a_map_goes_in_key_order() -> None:
    assert _ours("{.metadata.labels.*}") == "2 amd64 3 1"


def test_brackets_refused_in_kubectl_words_without_kubectl() -> None:
    """kubectl v1.32's answer, observed with `kubectl annotate --local -o jsonpath=` (the tests above hold
    it where kubectl is on PATH), also for a custom column or --sort-by (kubectl parses them alike)."""
    from kubectl_gpu.render.jsonpath import parse_expression

    with pytest.raises(InvalidInput) as raised:
        _ours('{.metadata.labels["app"]}')
    assert (
        raised.value.message == 'error parsing jsonpath {.metadata.labels["app"]}, invalid array index "app"'
    )
    with pytest.raises(InvalidInput, match='invalid array index "app"'):
        parse_expression('.metadata.labels["app"]', "custom-columns")


def test_a_quoted_name_is_kubectls_path() -> None:
    assert _ours("{.metadata.labels['kubernetes.io/arch']}") == ""
    assert _ours("{.metadata.labels['kubernetes\\.io/arch']}") == "amd64"
    assert _ours("{.metadata['labels']['zz']}") == "1"
    assert _ours("{.spec['m.z','m']}") == '1 {"z":1}'
