"""Load the scenario snapshots of tests/scenarios/pending/, change them the way a test needs, analyse them.

Every scenario is a `kind: List` of objects evaluated at NOW. Tests get a fresh deep copy of the objects, so
they can add a toleration, drop a NodeClaim or move an event in time and rerun the analysis.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from kubectl_gpu.core.analyses.pending import PendingReport, PodDiagnosis, analyse_pending
from kubectl_gpu.core.analyses.pending.ranking import TargetEvaluation
from kubectl_gpu.core.catalog import Catalog, load_catalog
from kubectl_gpu.core.k8s.models import Pod
from kubectl_gpu.core.k8s.parse import parse_object
from kubectl_gpu.core.k8s.state import ClusterState
from tests.helpers import SCENARIOS as ALL_SCENARIOS

Obj = dict[str, Any]

SCENARIOS = ALL_SCENARIOS / "pending"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
NOW_TEXT = "2026-11-29T12:00:00Z"
NAMES = ("automode-gpu", "automode-capacity", "karpenter-gpu", "no-karpenter")


def path_of(name: str) -> Path:
    return SCENARIOS / f"ours__{name}.yaml"


@cache
def _items(name: str) -> tuple[Obj, ...]:
    doc = yaml.safe_load(path_of(name).read_text())
    assert doc["kind"] == "List", name
    return tuple(doc["items"])


def items(name: str) -> list[Obj]:
    """A private, mutable copy of a scenario's objects."""
    return copy.deepcopy(list(_items(name)))


@cache
def catalog() -> Catalog:
    return load_catalog()


def state_of(objects: Iterable[Obj]) -> ClusterState:
    state = ClusterState.of(parse_object(o) for o in objects)
    return state


def analyse(
    objects: str | Iterable[Obj],
    *,
    now: datetime = NOW,
    all_pending: bool = False,
    only: Iterable[str] | None = None,
) -> PendingReport:
    """Analyse a scenario (by name) or a list of objects. `only`: pod keys `ns/name` to pass as `pods=`."""
    state = state_of(items(objects) if isinstance(objects, str) else objects)
    pods: list[Pod] | None = None
    if only is not None:
        wanted = list(only)
        pods = [p for key in wanted for p in state.pods if f"{p.namespace}/{p.name}" == key]
        assert len(pods) == len(wanted), f"not all of {wanted} are in the data"
    return analyse_pending(state, catalog(), now, all_pending=all_pending, pods=pods)


def diagnosis(report: PendingReport, key: str) -> PodDiagnosis:
    found = [p for p in report.pods if p.key == key]
    assert len(found) == 1, f"{key} not in the report: {[p.key for p in report.pods]}"
    return found[0]


def evaluation(diag: PodDiagnosis, target: str) -> TargetEvaluation:
    found = [e for e in diag.evaluations if e.target.name == target]
    assert len(found) == 1, f"no target {target} for {diag.key}"
    return found[0]


def codes_by_target(diag: PodDiagnosis) -> dict[str, list[str]]:
    """Target name -> its blocker codes, in table order."""
    return {e.target.name: [str(b.code) for b in e.blockers] for e in diag.evaluations}


def find(objects: list[Obj], kind: str, name: str, namespace: str | None = None) -> Obj:
    found = [
        o
        for o in objects
        if o.get("kind") == kind
        and o["metadata"]["name"] == name
        and (namespace is None or o["metadata"].get("namespace") == namespace)
    ]
    assert len(found) == 1, f"{kind} {namespace}/{name}: {len(found)} matches"
    return found[0]


def pod_obj(objects: list[Obj], key: str) -> Obj:
    namespace, _, name = key.partition("/")
    return find(objects, "Pod", name, namespace)


def drop(objects: list[Obj], predicate: Callable[[Obj], bool]) -> list[Obj]:
    return [o for o in objects if not predicate(o)]


def without(objects: list[Obj], kind: str, *names: str) -> list[Obj]:
    return drop(objects, lambda o: o.get("kind") == kind and o["metadata"]["name"] in names)


def events_of(objects: list[Obj], key: str) -> list[Obj]:
    """The core/v1 and events.k8s.io/v1 Events about pod `ns/name`."""
    namespace, _, name = key.partition("/")
    out = []
    for o in objects:
        if o.get("kind") != "Event":
            continue
        inv = o.get("involvedObject") or o.get("regarding") or {}
        if inv.get("kind") == "Pod" and inv.get("name") == name and inv.get("namespace") == namespace:
            out.append(o)
    return out


def event(
    key: str,
    reason: str,
    message: str,
    last_seen: str,
    *,
    component: str,
    kind: str = "Pod",
    uid: str | None = None,
    count: int = 1,
) -> Obj:
    """A core/v1 Event about a pod (`ns/name`) or, with `kind`, about a cluster-scoped object (`name`)."""
    namespace, _, name = key.rpartition("/")
    involved: Obj = {"kind": kind, "name": name}
    if namespace:
        involved["namespace"] = namespace
    if uid:
        involved["uid"] = uid
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {
            "name": f"{name}.{_digest(reason, message, last_seen)}",
            "namespace": namespace or "default",
        },
        "involvedObject": involved,
        "type": "Normal" if reason == "Nominated" else "Warning",
        "reason": reason,
        "message": message,
        "source": {"component": component},
        "count": count,
        "lastTimestamp": last_seen,
    }


def _digest(*parts: str) -> str:
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:10]
