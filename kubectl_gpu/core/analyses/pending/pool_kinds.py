"""NodePools sorted into kinds once per analysis, so that a pod shape is evaluated once per kind.

A kind is the pools with the same requirements but for their name, the same instance-type fit (pool_groups.py)
and the same taints. Its *stand-in* is one of them renamed `POOL` (requirements included), so the stand-in's
template (pool_template.py) is every member's in its words. Pools of a kind with as much limit left share the
limits answer too. What can still tell two members apart is their name, and only for a shape that reads it:
* a shape that selects `karpenter.sh/nodepool`: a member is answered by the stand-in's template when each of
  the pod's NodePool requirements admits its name exactly when it admits `POOL` (the pools the pod does not
  name); the others (the pools it names) get their own;
* a shape whose volumes, topology spread or pod (anti-)affinity may read the name (`pool_specific`): every
  member gets its own.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from kubectl_gpu.core.analyses.pending.pool_groups import NODEPOOL, names_pools, reads_pool_name
from kubectl_gpu.core.analyses.pending.pool_target import PoolTarget
from kubectl_gpu.core.analyses.pending.pool_template import POOL, LimitAnswer, PoolCandidate, Template
from kubectl_gpu.core.analyses.pending.shape import PodShape

__all__ = ["PoolKinds"]


class _Kind:
    def __init__(self, members: list[PoolTarget]) -> None:
        self.members = members
        self.stand_in = members[0].stand_in()
        by_limit: dict[Hashable, list[PoolTarget]] = {}
        for member in members:
            key = (bool(member.pool.limits), member.remaining_key)
            by_limit.setdefault(key, []).append(member)
        self.limit_groups = list(by_limit.values())


def _admission(shape: PodShape, name: str) -> tuple[bool | None, ...]:
    """Whether each of the pod's required terms admits a pool by this name (None: it says nothing)."""
    assert shape.requirements is not None
    out: list[bool | None] = []
    for alternative in shape.requirements.alternatives():
        req = alternative.get(NODEPOOL)
        out.append(None if req is None else req.has(name))
    return tuple(out)


class PoolKinds:
    """Every NodePool of an analysis, by kind."""

    def __init__(self, targets: Sequence[PoolTarget]) -> None:
        kinds: dict[Hashable, list[PoolTarget]] = {}
        for t in targets:
            key = (t.requirement_group, t.requirement_error, t.group, t.pool.taints)
            kinds.setdefault(key, []).append(t)
        self.kinds = [_Kind(members) for members in kinds.values()]

    def __len__(self) -> int:
        return len(self.kinds)

    def candidates(self, shape: PodShape) -> list[PoolCandidate]:
        if not self.kinds:
            return []
        first = self.kinds[0].stand_in
        if first.memo.get(shape, "reads pool name", lambda: reads_pool_name(shape, first.state, first.memo)):
            return [t.candidate(shape) for kind in self.kinds for t in kind.members]
        named = names_pools(shape)
        admitted = _admission(shape, POOL) if named else ()
        out: list[PoolCandidate] = []
        for number, kind in enumerate(self.kinds):
            template: Template | None = None
            for group in kind.limit_groups:
                limit: LimitAnswer | None = None
                for member in group:
                    if named and _admission(shape, member.pool.name) != admitted:
                        out.append(member.candidate(shape))  # a pool the pod names: on its own
                        continue
                    if template is None:
                        template = kind.stand_in.template(shape, ("kind", number))
                    if limit is None:
                        limit = member.limit_answer(shape, template.fitting)
                    out.append(PoolCandidate(member, template, limit))
        return out
