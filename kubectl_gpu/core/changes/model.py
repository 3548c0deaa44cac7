"""What one change is: an object to add or replace, a patch of one, or a deletion, and where it came from."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from kubectl_gpu.core.errors import InvalidInput

__all__ = ["KINDS", "NAMESPACED", "Change", "ChangeError", "PatchType", "change_kind"]

PatchType = Literal["strategic", "merge", "json"]

#: The kinds a change may name (as `kind` is written, lower-case plural and singular accepted on the command
#: line) -> its API group. Workloads are not read from the cluster: their template becomes Pending pods.
KINDS: dict[str, str] = {
    "NodePool": "karpenter.sh",
    "NodeClass": "eks.amazonaws.com",
    "EC2NodeClass": "karpenter.k8s.aws",
    "Deployment": "apps",
    "StatefulSet": "apps",
    "Job": "batch",
    "LeaderWorkerSet": "leaderworkerset.x-k8s.io",
    "Pod": "",
}
NAMESPACED = frozenset({"Deployment", "StatefulSet", "Job", "LeaderWorkerSet", "Pod"})
_ALIASES = {alias: kind for kind in KINDS for alias in (kind.lower(), kind.lower() + "s")} | {
    "nodeclasses": "NodeClass",
    "ec2nodeclasses": "EC2NodeClass",
    "deploy": "Deployment",
    "sts": "StatefulSet",
    "po": "Pod",
    "lws": "LeaderWorkerSet",
}


class ChangeError(InvalidInput):
    """A change that cannot be made (exit 2): the file it came from, and why."""


def change_kind(text: str) -> str:
    """A kind as written (NodePool, nodepool, nodepools, sts...) -> its name in KINDS; ChangeError if unknown."""
    kind = text if text in KINDS else _ALIASES.get(text.lower())
    if kind is None:
        raise ChangeError(
            f'the server doesn\'t have a resource type "{text}" this tool can simulate',
            f"simulate changes {', '.join(KINDS)}",
        )
    return kind


class Change(msgspec.Struct, frozen=True):
    """One change. `apply`: `body` is the whole object (added, or replacing the one of its kind and name);
    `patch`: `body` is a patch of type `patch_type` for the object named; `delete`: the object goes."""

    action: Literal["apply", "patch", "delete"]
    kind: str
    name: str
    namespace: str | None = None
    body: Any = None
    patch_type: PatchType = "strategic"
    source: str = ""  # the file (and document) it came from, or the flag

    @property
    def ref(self) -> str:
        where = f"{self.namespace}/" if self.namespace else ""
        return f"{self.kind}/{where}{self.name}"

    def error(self, reason: str, hint: str | None = None) -> ChangeError:
        where = f"{self.source}: " if self.source else ""
        return ChangeError(f"{where}{self.ref}: {reason}", hint)
