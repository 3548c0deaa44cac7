"""What the live source asks the API server (issue 13): kinds and event lists at once, discovery once.

Concurrency is shown without timing: the server holds the first request of each kind at a barrier that
only opens when all of them are in flight together, so a client that lists one kind after another breaks
it (after a timeout) and the test fails.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from kubectl_gpu.kube.kinds import EVENT_COMPONENTS, EVENT_REASONS
from kubectl_gpu.kube.live import LiveOptions, LiveSource
from tests.helpers import node, pod
from tests.kube.apiserver import FakeKubeAPI
from tests.kube.wire import Response

CRDS = ("nodepools.karpenter.sh", "nodeclaims.karpenter.sh", "nodeclasses.eks.amazonaws.com")


def _source(kubeconfig: Path) -> LiveSource:
    return LiveSource(LiveOptions(kubeconfig=str(kubeconfig)))


def _hold_together(
    monkeypatch: pytest.MonkeyPatch,
    apiserver: FakeKubeAPI,
    wanted: Callable[[str, dict[str, str]], str | None],
) -> tuple[Callable[[int], threading.Barrier], set[str]]:
    """Requests for which `wanted(path, query)` names a key wait, the first per key, until as many keys as
    the barrier's parties are in flight at once. Returns `arm(parties) -> barrier` and the keys seen."""
    keys: set[str] = set()
    lock = threading.Lock()
    barrier: threading.Barrier | None = None
    handle = apiserver.handle

    def held(method: str, path: str, query: dict[str, str], headers: dict[str, str], body: bytes) -> Response:
        key = wanted(path, query)
        if key is not None and barrier is not None:
            with lock:  # the first request of each of the first `parties` keys waits
                first = key not in keys and len(keys) < barrier.parties
                keys.add(key)
            if first:
                with contextlib.suppress(threading.BrokenBarrierError):
                    barrier.wait(timeout=10)
        return handle(method, path, query, headers, body)

    monkeypatch.setattr(apiserver, "handle", held)

    def arm(parties: int) -> threading.Barrier:
        nonlocal barrier
        barrier = threading.Barrier(parties)
        return barrier

    return arm, keys


def test_kinds_are_listed_at_once(
    apiserver: FakeKubeAPI, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apiserver.install_crds(*CRDS)
    apiserver.add(node("n1"), pod("p", "ml"))
    lists = {
        "/api/v1/nodes",
        "/api/v1/pods",
        "/apis/karpenter.sh/v1/nodepools",
        "/apis/karpenter.sh/v1/nodeclaims",
    }
    arm, keys = _hold_together(monkeypatch, apiserver, lambda path, _: path if path in lists else None)
    barrier = arm(len(lists))
    state, _ = _source(kubeconfig).load(["nodes", "pods", "nodepools", "nodeclaims"])
    assert not barrier.broken, "the kinds were not all in flight at once"
    assert keys == lists
    assert [n.name for n in state.nodes] == ["n1"] and len(state.pods) == 1


def test_event_lists_are_read_at_once(
    apiserver: FakeKubeAPI, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    apiserver.add(node("n1"))
    arm, keys = _hold_together(
        monkeypatch,
        apiserver,
        lambda path, query: query.get("fieldSelector") if path == "/api/v1/events" else None,
    )
    barrier = arm(4)
    _source(kubeconfig).load(["events"])
    assert not barrier.broken, "the field-selected event lists were read one after another"
    assert len(keys) == len(EVENT_REASONS) + len(EVENT_COMPONENTS)


def test_api_groups_are_discovered_once_and_absent_crds_cost_no_request(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.add(node("n1"))
    state, _ = _source(kubeconfig).load()
    paths = [r.path for r in apiserver.requests]
    assert paths.count("/apis") == 1
    # No CRD installed: none of their paths is asked; the built-in group kinds once each, at one version.
    assert sorted(p for p in paths if p.startswith("/apis/")) == [
        "/apis/apps/v1/daemonsets",
        "/apis/policy/v1/poddisruptionbudgets",
        "/apis/resource.k8s.io/v1/resourceslices",
        "/apis/storage.k8s.io/v1/storageclasses",
    ]
    assert {"nodepools", "nodeclaims", "nodeclasses", "ec2nodeclasses"} <= state.absent


def _groups(**served: list[str]) -> dict[str, object]:
    return {
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [
            {
                "name": name.replace("_", "."),
                "versions": [{"groupVersion": f"{name}/{v}", "version": v} for v in vs],
            }
            for name, vs in served.items()
        ],
    }


def test_a_group_the_server_does_not_serve_is_absent_without_probing(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    """A cluster without DRA: ResourceSlice is absent without a 404 for each of its three versions."""
    apiserver.install_crds(*CRDS)
    apiserver.fault(path=r"^/apis$", status=200, body=_groups(karpenter_sh=["v1"]))
    apiserver.add(node("n1"))
    state, _ = _source(kubeconfig).load(["resourceslices", "nodepools", "nodeclasses"])
    paths = [r.path for r in apiserver.requests if r.path.startswith("/apis/")]
    assert paths == ["/apis/karpenter.sh/v1/nodepools"]
    assert {"resourceslices", "nodeclasses"} <= state.absent and "nodepools" not in state.absent


def test_only_the_served_version_is_listed(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.fault(path=r"^/apis$", status=200, body=_groups(resource_k8s_io=["v1beta2", "v1"]))
    apiserver.add(node("n1"))
    state, _ = _source(kubeconfig).load(["resourceslices"])
    assert [r.path for r in apiserver.requests if "resourceslices" in r.path] == [
        "/apis/resource.k8s.io/v1/resourceslices"
    ]
    assert "resourceslices" not in state.absent


def test_every_read_discovers_again(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """A source kept open (the TUI) sees a CRD installed between two reads."""
    apiserver.add(node("n1"))
    source = _source(kubeconfig)
    first, _ = source.load(["nodepools"])
    assert "nodepools" in first.absent
    apiserver.install_crds(*CRDS)
    second, _ = source.load(["nodepools"])
    assert "nodepools" not in second.absent
    assert [r.path for r in apiserver.requests].count("/apis") == 3  # first read, the check, second read


def test_without_group_discovery_each_kind_is_tried(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """/apis forbidden (an API server's Status): the lists are tried as before, a 404 meaning absent."""
    apiserver.fault(path=r"^/apis$", status=403)
    apiserver.install_crds("nodepools.karpenter.sh")
    apiserver.add(node("n1"))
    state, _ = _source(kubeconfig).load(["nodepools", "nodeclasses"])
    assert "nodepools" not in state.absent and "nodeclasses" in state.absent
    assert [r.path for r in apiserver.requests].count("/apis/eks.amazonaws.com/v1/nodeclasses") == 1
    assert not state.notes


# --- reading again: the same state when nothing changed ------------------------------------------------


def _lists(apiserver: FakeKubeAPI) -> list[str]:
    """The list requests (not watches, not discovery) the server got so far."""
    return [
        r.path
        for r in apiserver.requests
        if r.query.get("watch") is None and r.path not in ("/version", "/api", "/apis")
    ]


def test_a_second_read_of_an_unchanged_cluster_lists_nothing(
    apiserver: FakeKubeAPI, kubeconfig: Path
) -> None:
    apiserver.install_crds(*CRDS)
    apiserver.add(node("n1"), pod("p", "ml"))
    source = _source(kubeconfig)
    first, _ = source.load()
    listed = len(_lists(apiserver))
    second, _ = source.load()
    assert second is first
    assert len(_lists(apiserver)) == listed  # no list again
    watches = [r for r in apiserver.requests if r.query.get("watch") == "1"]
    events = [r for r in watches if r.path == "/api/v1/events"]
    assert len(events) == len(EVENT_REASONS) + len(EVENT_COMPONENTS)  # one watch per list, selectors kept
    assert {r.query.get("fieldSelector") for r in events} == {f"reason={x}" for x in EVENT_REASONS} | {
        f"reportingComponent={c}" for c in EVENT_COMPONENTS
    }
    assert all(r.query.get("resourceVersion") and r.query.get("timeoutSeconds") == "1" for r in watches)


def test_a_change_to_a_listed_object_reads_again(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"), pod("p", "ml"))
    source = _source(kubeconfig)
    first, _ = source.load(["nodes", "pods"])
    apiserver.update_status("pods", "p", {"phase": "Running"}, "ml")
    second, _ = source.load(["nodes", "pods"])
    assert second is not first
    assert [p.phase for p in second.pods] == ["Running"]
    third, _ = source.load(["nodes", "pods"])
    assert third is second  # and unchanged since


def test_an_object_of_a_kind_not_read_changes_nothing(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    source = _source(kubeconfig)
    first, _ = source.load(["nodes"])
    apiserver.add(pod("p", "ml"))  # the cluster's revision moves; the nodes do not
    assert source.load(["nodes"])[0] is first
    assert source.load(["nodes", "pods"])[0] is not first  # other kinds: a read of its own


def test_an_expired_resource_version_reads_again(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    source = _source(kubeconfig)
    first, _ = source.load(["nodes"])
    apiserver.add(pod("p", "ml"))  # the revision moves on (no node changed)...
    apiserver.compact()  # ...and is compacted: the watch from the nodes' list gets a 410 ERROR event
    second, _ = source.load(["nodes"])
    assert second is not first and [n.name for n in second.nodes] == ["n1"]


def test_a_read_with_a_note_is_read_again_at_the_recheck(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    """A forbidden kind may become readable: a read that could not see everything is read again, but only
    every RECHECK_SECONDS (issue 36: not on every loop); in between its lists are watched like any other."""
    from kubectl_gpu.kube.pacing import RECHECK_SECONDS, ReadPacer

    now = [0.0]
    apiserver.install_crds(*CRDS)
    apiserver.add(node("n1"))
    apiserver.fault(path=r"/apis/karpenter\.sh/v1/nodeclaims", status=403)
    source = _source(kubeconfig)
    source.pacer = ReadPacer(clock=lambda: now[0])
    first, _ = source.load(["nodes", "nodeclaims"])
    assert [n.code for n in first.notes] == ["FORBIDDEN"]
    apiserver.clear_faults()
    now[0] += 5
    assert source.load(["nodes", "nodeclaims"])[0] is first
    now[0] += RECHECK_SECONDS
    second, _ = source.load(["nodes", "nodeclaims"])
    assert second is not first and not second.notes


def test_a_forbidden_watch_turns_to_polling_with_a_note(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    from kubectl_gpu.kube.pacing import POLL_SECONDS, ReadPacer

    now = [0.0]
    apiserver.add(node("n1"))
    source = _source(kubeconfig)
    source.pacer = ReadPacer(clock=lambda: now[0])
    first, _ = source.load(["nodes"])
    apiserver.fault(path=r"^/api/v1/nodes$", status=403, times=1)  # the watch: no `watch` verb
    second, _ = source.load(["nodes"])
    assert [n.code for n in second.notes] == ["POLLING"] and second.nodes == first.nodes
    assert source.wait() == POLL_SECONDS
    now[0] += POLL_SECONDS
    apiserver.add(node("n2"))
    third, _ = source.load(["nodes"])
    assert sorted(n.name for n in third.nodes) == ["n1", "n2"] and [n.code for n in third.notes] == ["POLLING"]


def test_kinds_may_be_any_iterable(apiserver: FakeKubeAPI, kubeconfig: Path) -> None:
    apiserver.add(node("n1"))
    state, _ = _source(kubeconfig).load(iter(["nodes"]))
    assert [n.name for n in state.nodes] == ["n1"]


def test_an_expired_continue_token_lists_again_from_the_start(
    apiserver: FakeKubeAPI, kubeconfig: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 21 item 7: a 410 on a `continue` token (compacted while we paged) re-lists once from the first
    page, as client-go's pager does; a second one is the cluster error it is."""
    from kubectl_gpu.core.errors import ClusterError
    from kubectl_gpu.kube import live

    monkeypatch.setitem(live.PAGE_SIZES, "nodes", 2)
    apiserver.add(*(node(f"n{i}") for i in range(5)))
    apiserver.expire_continue_tokens = 1
    state, _ = LiveSource(LiveOptions(kubeconfig=str(kubeconfig))).load(["nodes"])
    assert sorted(n.name for n in state.nodes) == [f"n{i}" for i in range(5)]  # each once, none twice
    firsts = [r for r in apiserver.requests if r.path == "/api/v1/nodes" and "continue" not in r.query]
    assert len(firsts) == 2  # the list, and the list again after the 410
    apiserver.expire_continue_tokens = 2
    with pytest.raises(ClusterError, match=r"410|Expired|too old"):
        LiveSource(LiveOptions(kubeconfig=str(kubeconfig))).load(["nodes"])
