"""How to take a label key out of a pod's node selection so that the pod stays valid (issue 37, cause 7).

A required `nodeSelectorTerms` entry with no expression left matches no node (kubernetes `k8s.io/api/core/v1`
`types.go` NodeSelectorTerm: "A null or empty node selector term matches no objects"), and `nodeSelectorTerms`
itself is "Required. A list of node selector terms" (`NodeSelector`): the API rejects a required node affinity
with none.
So "remove K" says which: K from the nodeSelector, K from a term (with the term that is left), the term
itself when K was all of it, or the whole required node affinity when that was its only term. The verified
change (`verify._rekeyed`) makes the same change.
"""

from __future__ import annotations

from kubectl_gpu.core.analyses.pending.pod.shape import PodShape
from kubectl_gpu.core.scheduling.affinity import NodeSelectorTerm

__all__ = ["removal_advice"]

_REQUIRED = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"


def _term_text(term: NodeSelectorTerm) -> str:
    return "; ".join(str(r) for r in (*term.match_expressions, *term.match_fields))


def removal_advice(shape: PodShape, key: str) -> str:
    """Where `key` is in the pod's nodeSelector and required node affinity, and what removing it leaves."""
    parts: list[str] = []
    if key in shape.node_selector:
        parts.append(f"remove {key} from the pod's nodeSelector")
    affinity = shape.node_affinity
    terms = affinity.required_terms if affinity.required_error is None else ()
    with_key = [n for n, t in enumerate(terms) if any(r.key == key for r in t.match_expressions)]
    emptied = [n for n in with_key if all(r.key == key for r in terms[n].match_expressions)]
    emptied = [n for n in emptied if not terms[n].match_fields]
    if with_key and len(emptied) == len(terms):
        parts.append(
            f"remove {_REQUIRED} (its only term selects {key}: an empty term matches no node, and the API "
            "rejects a node affinity without terms)"
        )
    else:
        for n in with_key:
            if n in emptied:
                parts.append(
                    f"remove nodeSelectorTerms[{n}] ({_term_text(terms[n])}): with {key} gone it would be "
                    "empty, and an empty term matches no node"
                )
            else:
                left = NodeSelectorTerm(
                    tuple(r for r in terms[n].match_expressions if r.key != key), terms[n].match_fields
                )
                parts.append(f"remove {key} from nodeSelectorTerms[{n}], leaving {_term_text(left)}")
    if not parts:
        return f"remove {key} from the pod's node affinity"
    return "; ".join(parts)
