"""`drivers` at fleet size: checks per driver (AMI, version, source), not per node pair; candidates once
per scheduling shape over groups of alike nodes, and the same candidates as the per-node rule."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from kubectl_gpu.core.accelerators.resources import PerRequests
from kubectl_gpu.core.analyses.drivers.analysis import build_driver_report
from kubectl_gpu.core.analyses.drivers.landing import LandingIndex, Shape, gpu_resources, nvidia_requested
from kubectl_gpu.core.analyses.drivers.nodes import is_nvidia_node, node_driver
from kubectl_gpu.core.analyses.drivers.workloads import LISTED
from kubectl_gpu.core.catalog import load_catalog
from kubectl_gpu.core.k8s.parse import parse_objects
from kubectl_gpu.core.k8s.state import ClusterState
from kubectl_gpu.core.scheduling.affinity import selector_matches
from kubectl_gpu.core.scheduling.requirements import RequirementError
from kubectl_gpu.core.scheduling.taints import untolerated
from tests.helpers import node, nodepool, pod

NOW = datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
GPU = {"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"}
TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
TAINT = {"key": "nvidia.com/gpu", "effect": "NoSchedule"}


def _state(*objects: dict[str, Any]) -> ClusterState:
    models, _ = parse_objects(objects)
    return ClusterState.of(models)


def _gpu_node(name: str, driver: str, **labels: str) -> dict[str, Any]:
    base = {
        "node.kubernetes.io/instance-type": "g6e.xlarge",
        "eks.amazonaws.com/instance-family": "g6e",
        "nvidia.com/cuda.driver-version.full": driver,
    }
    return node(name, labels={**base, **labels}, capacity=GPU)


def _fleet(old: int, new: int) -> list[dict[str, Any]]:
    nodes = [_gpu_node(f"i-old-{i:02d}", "535.230.02") for i in range(old)]
    return nodes + [_gpu_node(f"i-new-{i:02d}", "580.95.05") for i in range(new)]


def test_checks_are_per_driver_with_counts_and_a_bounded_list() -> None:
    state = _state(
        *_fleet(15, 15),
        pod(
            "trainer",
            node_name="i-new-00",
            requests={"nvidia.com/gpu": "1"},
            annotations={"kubectl-gpu.io/cuda": "12.8"},
        ),
    )
    report = build_driver_report(state, load_catalog(), NOW)
    (w,) = report.workloads
    assert w.runs_on == ("i-new-00",)
    # The other 29 nodes, listed up to LISTED, counted in full.
    assert w.may_land_on_total == 29 and len(w.may_land_on) == LISTED
    assert w.may_land_on == tuple(sorted(w.may_land_on)) and "i-new-00" not in w.may_land_on
    checks = {(c.relation, c.driver): c for c in w.checks}
    assert set(checks) == {
        ("runs-on", "580.95.05"),
        ("may-land-on", "535.230.02"),
        ("may-land-on", "580.95.05"),
    }
    old = checks[("may-land-on", "535.230.02")]
    assert (old.level, old.node_count, old.nodes[:2]) == ("minor-compat", 15, ("i-old-00", "i-old-01"))
    assert len(old.nodes) == LISTED and old.omitted == 5 and old.node == "i-old-00"
    new = checks[("may-land-on", "580.95.05")]
    assert (new.level, new.node_count, new.omitted) == ("full", 14, 4)
    data = old.to_dict()
    assert (data["nodeCount"], data["nodesOmitted"], data["node"], len(data["nodes"])) == (
        15,
        5,
        "i-old-00",
        10,
    )
    assert w.to_dict()["mayLandOnCount"] == 29
    # One finding names the driver group once, with its count, never one line per node.
    (minor,) = [f for f in report.findings if f.code == "CUDA_MINOR_COMPAT_ONLY"]
    assert "may land on 15 nodes (i-old-00, " in minor.message and "+5 more" in minor.message
    assert minor.message.count("i-old-") == LISTED


def test_output_grows_with_drivers_not_with_node_pairs() -> None:
    def size(n: int) -> int:
        workloads = [  # one namespace each: bare pods alike in one namespace would be one workload
            pod(
                f"w{i}",
                f"ns{i}",
                requests={"nvidia.com/gpu": "1"},
                annotations={"kubectl-gpu.io/cuda": "12.8"},
            )
            for i in range(n)
        ]
        report = build_driver_report(_state(*_fleet(n, n), *workloads), load_catalog(), NOW)
        return sum(len(w.checks) + len(w.may_land_on) for w in report.workloads)

    # Twice the nodes and twice the workloads: twice the entries (capped lists), not four times.
    small, large = size(20), size(40)
    assert large == 2 * small


def _naive(state: ClusterState, p: Any, rows: dict[str, Any]) -> set[str]:
    """The rule of MAY_LAND_ON_RULE, node by node (what the analysis did before it grouped nodes)."""
    resources = gpu_resources(p)
    out = set()
    for n in state.nodes:
        if n.name not in rows or n.unschedulable or n.name == p.node_name:
            continue
        if resources and not any(n.capacity.get(r, 0) > 0 or n.allocatable.get(r, 0) > 0 for r in resources):
            continue
        pinned = p.node_selector.get("karpenter.sh/nodepool")
        pool_name = n.labels.get("karpenter.sh/nodepool")
        if pinned is not None and pool_name != pinned:
            continue
        pool = state.nodepool_by_name.get(pool_name) if pool_name else None
        if untolerated(p.tolerations, pool.taints if pool is not None else n.taints):
            continue
        try:
            ok, _ = selector_matches(p.node_selector, p.node_affinity, n.labels, node_name=n.name)
        except RequirementError:
            ok = False
        if ok:
            out.add(n.name)
    return out


def _required(*exprs: dict[str, Any], fields: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    term: dict[str, Any] = {"matchExpressions": list(exprs)}
    if fields:
        term["matchFields"] = fields
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}


def test_grouped_candidates_equal_the_per_node_rule() -> None:
    nodes = [
        _gpu_node("a1", "535.230.02", **{"karpenter.sh/nodepool": "tainted", "zone": "a"}),
        _gpu_node("a2", "580.95.05", **{"karpenter.sh/nodepool": "tainted", "zone": "b"}),
        _gpu_node("b1", "580.95.05", **{"karpenter.sh/nodepool": "open", "zone": "a"}),
        _gpu_node(
            "b2", "570.172.08", **{"karpenter.sh/nodepool": "open", "eks.amazonaws.com/instance-family": "g5"}
        ),
        node(
            "own-taint",
            labels={"nvidia.com/cuda.driver-version.full": "580.95.05"},
            capacity=GPU,
            taints=[TAINT],
        ),
        node("cordoned", labels={"nvidia.com/gpu.present": "true"}, capacity=GPU, unschedulable=True),
        node("mig", labels={"nvidia.com/gpu.present": "true"}, capacity={"nvidia.com/mig-1g.10gb": "7"}),
    ]
    pools = [nodepool("tainted", taints=[TAINT]), nodepool("open")]
    gpu = {"nvidia.com/gpu": "1"}
    pods = [
        pod("plain", requests=gpu),
        pod("tolerating", requests=gpu, tolerations=TOLERATE),
        pod("pinned", requests=gpu, tolerations=TOLERATE, node_selector={"karpenter.sh/nodepool": "tainted"}),
        pod("zone", requests=gpu, tolerations=TOLERATE, node_selector={"zone": "a"}),
        pod("in", requests=gpu, affinity=_required({"key": "zone", "operator": "In", "values": ["a", "b"]})),
        pod(
            "notin",
            requests=gpu,
            tolerations=TOLERATE,
            affinity=_required(
                {"key": "eks.amazonaws.com/instance-family", "operator": "NotIn", "values": ["g5"]}
            ),
        ),
        pod(
            "fields",
            requests=gpu,
            tolerations=TOLERATE,
            affinity=_required(fields=[{"key": "metadata.name", "operator": "In", "values": ["a2"]}]),
        ),
        pod("bad", requests=gpu, affinity=_required({"key": "zone", "operator": "Gte", "values": ["1"]})),
        pod("mig-user", requests={"nvidia.com/mig-1g.10gb": "1"}),
        pod("on-b1", node_name="b1", requests=gpu),
    ]
    state = _state(*nodes, *pools, *pods)
    catalog = load_catalog()
    rows = {
        n.name: node_driver(n, state, catalog)
        for n in state.nodes
        if is_nvidia_node(n, catalog, state.probe(n.name))
    }
    index = LandingIndex(state, state.nodes, rows)
    seen = {}
    for p in state.pods:
        landing = index.landing(Shape.of(p))
        got = {n for key in landing.by_driver for n in landing.names(key, frozenset({p.node_name or ""}))}
        seen[p.name] = got
        assert got == _naive(state, p, rows), p.name
    assert seen["plain"] == {"b1", "b2"} and seen["pinned"] == {"a1", "a2"} and seen["fields"] == {"a2"}
    assert seen["tolerating"] == {"a1", "a2", "b1", "b2", "own-taint"} and seen["bad"] == set()
    assert seen["mig-user"] == {"mig"} and seen["on-b1"] == {"b2"}


def test_one_evaluation_per_scheduling_shape() -> None:
    replicas = [pod(f"r{i}", requests={"nvidia.com/gpu": "1"}, tolerations=TOLERATE) for i in range(3)]
    state = _state(*_fleet(2, 2), *replicas)
    rows = {n.name: node_driver(n, state, load_catalog()) for n in state.nodes}
    index = LandingIndex(state, state.nodes, rows)
    first, *others = (index.landing(Shape.of(p)) for p in state.pods)
    assert all(o is first for o in others)


def test_table_counts_every_candidate_not_only_those_listed() -> None:
    from rich.console import Console

    from kubectl_gpu.render.drivers_view import drivers_view

    workload = pod("w", node_name="i-new-00", requests={"nvidia.com/gpu": "1"})
    report = build_driver_report(_state(*_fleet(15, 15), workload), load_catalog(), NOW)
    console = Console(width=400, record=True)
    console.print(drivers_view(report, wide=False))
    assert "i-new-01,i-new-02 +27" in console.export_text()  # 29 candidates, 10 in the report, 2 shown


def test_requests_are_read_once_per_object_with_the_same_answers() -> None:
    """`gpu_resources` with `PerRequests(nvidia_requested)` (what `gpu_workloads` asks of every pod): the
    replicas of a template share one requests object, read once; a GPU requested at zero still reads the
    pod's own limits."""
    zero = pod("zero", node_name="i-new-00", requests={"cpu": "1", "nvidia.com/gpu": "0"})
    zero["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "2"}
    pods = [pod(f"r-{i}", node_name="i-new-00", requests=GPU) for i in range(5)]
    pods += [pod("cpu", requests={"cpu": "1"}), zero, pod("mig", requests={"nvidia.com/mig-1g.10gb": "1"})]
    state = _state(*_fleet(0, 1), *pods)
    reads: list[object] = []

    def counted(requests: Any) -> frozenset[str] | None:
        reads.append(requests)
        return nvidia_requested(requests)

    memo = PerRequests(counted)
    for p in state.pods:
        assert gpu_resources(p, memo) == gpu_resources(p) == gpu_resources(p, memo)
    assert len(reads) == len({id(p.requests) for p in state.pods}) < len(state.pods)
    by_name = {p.name: gpu_resources(p, memo) for p in state.pods}
    assert by_name["zero"] == {"nvidia.com/gpu"} and by_name["cpu"] == frozenset()
    assert by_name["mig"] == {"nvidia.com/mig-1g.10gb"} and by_name["r-0"] == {"nvidia.com/gpu"}
    other = dict(state.pods[0].requests)  # equal, but another object: read again
    assert memo(other) == memo(state.pods[0].requests) and reads[-1] is other
