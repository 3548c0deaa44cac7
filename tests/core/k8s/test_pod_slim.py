"""A pod keeps only the parts of its containers and statuses that its details are read from (issue 13):
every detail a pod answers is the one the whole object gives, on every pod the tests hold, and the parts
nobody reads are not kept (so a loaded fleet does not hold them in memory)."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from kubectl_gpu.core.k8s.models import DaemonSet, Pod
from kubectl_gpu.core.k8s.parse import ModelError, parse_object, pods, pods_fast
from tests.helpers import FIXTURES, REPO, SCENARIOS, pod

SOURCES = [REPO / "examples" / "automode-gpu-demo.json", FIXTURES, SCENARIOS]


def _documents(path: Path) -> list[Any]:
    if path.suffix == ".json":
        try:
            return [orjson.loads(path.read_bytes())]
        except orjson.JSONDecodeError:  # the garbled probe fixtures
            return []
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _walk(value: Any) -> Iterator[dict[str, Any]]:
    """Every Pod and DaemonSet in `value`, and every workload's pod template as a pod."""
    if isinstance(value, list):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, dict):
        if value.get("kind") in ("Pod", "DaemonSet"):
            yield value
        template = value.get("template")
        if isinstance(template, dict) and isinstance(template.get("spec"), dict):
            yield {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": "template"},
                "spec": template["spec"],
            }
        for item in value.values():
            yield from _walk(item)


def _real_pods() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for source in SOURCES:
        files = [source] if source.is_file() else sorted(source.rglob("*"))
        for path in files:
            if path.suffix in (".json", ".yaml", ".yml"):
                found.extend(_walk(_documents(path)))
    return found


def _edge_pods() -> list[dict[str, Any]]:
    """Details read leniently: what does not parse must read as it did from the whole object."""
    sidecar = pod("sidecar", requests={"cpu": "1"}, init_requests=[{"cpu": "2"}, {"cpu": "1"}])
    sidecar["spec"]["initContainers"][1]["restartPolicy"] = "Always"
    sidecar["spec"]["initContainers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "1"}
    broken_limits = pod("broken-limits")
    broken_limits["spec"]["containers"][0]["resources"]["limits"] = {"cpu": "lots"}
    none_container = pod("none-container")
    none_container["spec"]["containers"].append(None)
    statuses: list[Any] = [
        {
            "name": "a",
            "state": {"waiting": {"reason": "CrashLoopBackOff", "message": "m"}},
            "restartCount": 7,
        },
        {"name": "b", "ready": True, "state": {"terminated": {"finishedAt": "2026-11-28T08:00:00Z"}}},
        "junk",
        {"state": {}},
    ]
    out = [sidecar, broken_limits, none_container, pod("statuses", container_statuses=statuses)]
    for key, value in (("containerStatuses", {"a": 1}), ("initContainerStatuses", [{"state": "x"}])):
        odd = pod(f"odd-{key}", container_statuses=statuses)
        odd["status"][key] = value
        out.append(odd)
    env = pod("env", env=[{"name": "A"}, {"name": "B", "valueFrom": {}}, {"value": "x"}, "junk"])  # type: ignore[list-item]
    env["spec"]["containers"][0]["env"].append({"name": "A", "value": "second"})
    out.append(env)
    return out


def _pod_of(obj: dict[str, Any]) -> Pod | str | None:
    """The pod (a DaemonSet's pod), or the error of one that does not parse (the scenarios hold some)."""
    try:
        model = parse_object(obj)
    except ModelError as exc:
        return str(exc)
    return model.pod if isinstance(model, DaemonSet) else model if isinstance(model, Pod) else None


def _details(p: Pod) -> tuple[Any, ...]:
    return p.limits, p.containers, p.container_statuses


def test_the_tests_hold_real_pods_of_every_kind() -> None:
    objects = _real_pods()
    assert len(objects) > 150
    assert any(o.get("status", {}).get("containerStatuses") for o in objects)
    assert any(o.get("kind") == "DaemonSet" for o in objects)


@pytest.mark.parametrize("source", ["real", "edge"])
def test_slim_details_answer_as_the_whole_object(monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    objects = _real_pods() if source == "real" else _edge_pods()
    slim = [_pod_of(o) for o in objects]
    monkeypatch.setattr(pods, "slim", lambda items, keys: items)
    monkeypatch.setattr(pods, "slim_status", lambda status: status)
    monkeypatch.setattr(pods_fast, "fast_pod", lambda obj: None)  # the checked path, with nothing cut
    whole = [_pod_of(o) for o in objects]
    assert slim == whole and sum(isinstance(p, Pod) for p in slim) > len(slim) // 2
    for a, b in zip(slim, whole, strict=True):
        if isinstance(a, Pod) and isinstance(b, Pod):
            assert _details(a) == _details(b)


def _reachable(root: object) -> set[int]:
    seen: set[int] = set()
    stack = [root]
    while stack:
        item = stack.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        stack.extend(gc.get_referents(item))
    return seen


def test_a_pod_does_not_keep_what_nobody_reads() -> None:
    obj = pod("p", requests={"cpu": "1"}, container_statuses=[{"name": "main", "state": {"running": {}}}])
    obj["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    obj["status"]["podIPs"] = [{"ip": "10.0.0.1"}]
    obj["status"]["containerStatuses"][0]["volumeMounts"] = [{"name": "token"}]
    obj["spec"]["containers"][0]["volumeMounts"] = [{"name": "data"}]
    obj["spec"]["containers"][0]["livenessProbe"] = {"httpGet": {"path": "/"}}
    dropped = [
        obj,
        obj["spec"],
        obj["status"],
        obj["spec"]["containers"],
        obj["spec"]["containers"][0],
        obj["status"]["containerStatuses"],
        obj["status"]["containerStatuses"][0],
        obj["status"]["conditions"],
        obj["status"]["podIPs"],
        obj["status"]["containerStatuses"][0]["volumeMounts"],
        obj["spec"]["containers"][0]["volumeMounts"],
        obj["spec"]["containers"][0]["livenessProbe"],
    ]
    parsed = parse_object(obj)
    assert isinstance(parsed, Pod)
    kept = _reachable(parsed)
    assert [d for d in dropped if id(d) in kept] == []
    # What the details read is still there, and answers.
    assert parsed.containers[0].resource_names == {"cpu"}
    assert parsed.container_statuses[0].state == "running"


def test_statuses_are_cut_as_slim_cuts_them() -> None:
    """`slim_status` cuts an entry with all four keys its own (faster) way: the same entries, in the same
    key order, as `slim` gives; and `slim`'s own answer for the rest (keys missing, a dict subclass that
    would make up a missing key, entries that are not objects)."""
    from collections import defaultdict

    whole = {"name": "c", "ready": True, "restartCount": 2, "state": {"running": {}}, "image": "i"}
    entries: list[Any] = [
        whole,
        {"image": "i", "state": {}, "restartCount": 0, "ready": False, "name": "d"},
        {"name": "e", "ready": True},
        defaultdict(dict, {"name": "f", "ready": True, "restartCount": 1}),
        "text",
        None,
        [whole],
    ]
    cut = pods.slim_status({"containerStatuses": entries})["containerStatuses"]
    expected = pods.slim(entries, ("name", "ready", "restartCount", "state"))
    assert cut == expected
    assert [list(e) for e in cut if isinstance(e, dict)] == [list(e) for e in expected if isinstance(e, dict)]
    assert type(cut[3]) is dict and "state" not in cut[3]
