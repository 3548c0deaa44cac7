"""A pod's node constraints, read two ways: as Karpenter provisions for them, and as kube-scheduler filters.

Karpenter (`pkg/scheduling/requirements.go newPodRequirements`, `provisioning/scheduling/preferences.go`):
* requirements = `nodeSelector` (each `k: v` as `k In [v]`) AND the matchExpressions of the *first*
  `requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms` entry only. When the pod cannot be
  scheduled, `Preferences.Relax` drops term 0 and retries with the next one (one term per round; the last term
  is never dropped), so the OR-terms are tried in order, never together. `matchFields` are ignored entirely.
* the heaviest `preferredDuringScheduling` term (first one on equal weights) is ANDed in as if required on the
  first attempt; relaxation then drops preferred terms heaviest first. It is exposed as `preferred`, never
  enforced by `strict`.
* an empty `nodeSelectorTerms` list or an empty first term adds no requirement at all.

kube-scheduler (`component-helpers/scheduling/corev1/nodeaffinity`, `NodeAffinity` filter):
* `nodeSelector` AND (any non-empty `nodeSelectorTerms` entry matches). Within a term, matchExpressions and
  matchFields are ANDed. Empty terms are skipped, so an empty list, or a list of only empty terms, matches
  *no* node (API validation rejects an empty list, so only hand-made specs hit this). A term whose
  expressions do not parse (unknown operator such as Gte/Lte, In/NotIn without values, Gt/Lt without exactly
  one integer, a value that is not a valid label value: `labels.NewRequirement`) matches nothing, NotIn
  too. `matchFields` only knows `metadata.name` (In/NotIn, one value): it is checked when the caller passes
  `node_name`, skipped (and said so) otherwise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from kubectl_gpu.core.scheduling.requirements import (
    DOES_NOT_EXIST,
    EXISTS,
    GT,
    IN,
    LT,
    NOT_IN,
    Requirement,
    RequirementError,
    Requirements,
    label_value_error,
)

__all__ = [
    "KUBE_SCHEDULER_AFFINITY_REASON",
    "NO_NODE_AFFINITY",
    "NodeAffinity",
    "NodeSelectorTerm",
    "PodSchedulingRequirements",
    "PreferredTerm",
    "expression_error",
    "node_matches",
    "pod_requirements",
    "scheduling_requirements",
    "selector_matches",
]

KUBE_SCHEDULER_AFFINITY_REASON = "node(s) didn't match Pod's node affinity/selector"
_REQUIRED_PATH = "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED_PATH = "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution"
_K8S_LABEL_OPERATORS = frozenset({IN, NOT_IN, EXISTS, DOES_NOT_EXIST, GT, LT})
_METADATA_NAME = "metadata.name"


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def _parse_exprs(value: object, where: str) -> tuple[Requirement, ...]:
    out: list[Requirement] = []
    for i, item in enumerate(_list(value)):
        if not isinstance(item, Mapping):
            raise RequirementError(f"{where}[{i}] must be an object")
        try:
            out.append(Requirement.from_dict(item))
        except RequirementError as exc:
            raise RequirementError(f"{where}[{i}]: {exc}") from None
    return tuple(out)


def expression_error(req: Requirement) -> str | None:
    """Why kube-scheduler's label-selector conversion rejects this expression, or None."""
    op = req.operator
    if op not in _K8S_LABEL_OPERATORS:
        return f"operator {op} is not a valid node selector operator for pods"
    if op in (IN, NOT_IN) and not req.values:
        return f"operator {op} needs at least one value"
    if op in (EXISTS, DOES_NOT_EXIST) and req.values:
        return f"operator {op} takes no values"
    # apimachinery labels.NewRequirement validates every value as a label value (IsValidLabelValue): one that
    # is not makes the term a parse error, which matches no node, NotIn included (LazyErrorNodeSelector).
    for value in req.values:
        why = label_value_error(value)
        if why is not None:
            return f"value {value!r} is not a valid label value: {why}"
    return None


def _render_expr(req: Requirement) -> str:
    if req.operator in (EXISTS, DOES_NOT_EXIST):
        return f"{req.key} {req.operator}"
    if req.operator in (IN, NOT_IN):
        return f"{req.key} {req.operator} [{' '.join(req.values)}]"
    return f"{req.key} {req.operator} {req.values[0]}"


def _describe_actual(labels: Mapping[str, str], key: str) -> str:
    value = labels.get(key)
    return f"node has no {key} label" if value is None else f"node has {key}={value}"


class NodeSelectorTerm(msgspec.Struct, frozen=True):
    """One `nodeSelectorTerms` entry: matchExpressions AND matchFields."""

    match_expressions: tuple[Requirement, ...] = ()
    match_fields: tuple[Requirement, ...] = ()

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], where: str = "nodeSelectorTerm") -> NodeSelectorTerm:
        return cls(
            match_expressions=_parse_exprs(d.get("matchExpressions"), f"{where}.matchExpressions"),
            match_fields=_parse_exprs(d.get("matchFields"), f"{where}.matchFields"),
        )

    @property
    def is_empty(self) -> bool:
        return not self.match_expressions and not self.match_fields

    @property
    def pinned_node_names(self) -> tuple[str, ...]:
        """Node names this term pins to through `matchFields metadata.name In [...]`."""
        return tuple(
            v for f in self.match_fields if f.key == _METADATA_NAME and f.operator == IN for v in f.values
        )

    def requirements(self) -> Requirements:
        """The Karpenter view of this term: its matchExpressions (matchFields ignored)."""
        return Requirements.of(*self.match_expressions)

    def mismatch(self, node_labels: Mapping[str, str], node_name: str | None = None) -> str | None:
        """Why kube-scheduler would say this term does not match the node, or None when it matches."""
        if self.is_empty:
            return "empty term (matches no node)"
        for req in self.match_expressions:
            err = expression_error(req)
            if err is not None:
                return f"invalid expression {_render_expr(req)}: {err}"
        for req in self.match_fields:
            if req.operator not in (IN, NOT_IN) or len(req.values) != 1:
                return f"invalid matchFields {_render_expr(req)}: needs In/NotIn with exactly one value"
        for req in self.match_expressions:
            if not req.matches(node_labels):
                return f"{_render_expr(req)} not satisfied ({_describe_actual(node_labels, req.key)})"
        if node_name is not None:
            fields = {_METADATA_NAME: node_name}
            for req in self.match_fields:
                actual = fields.get(req.key, "")
                ok = (actual == req.values[0]) if req.operator == IN else (actual != req.values[0])
                if not ok:
                    return f"matchFields {_render_expr(req)} not satisfied (node name is {node_name})"
        return None

    def matches(self, node_labels: Mapping[str, str], node_name: str | None = None) -> bool:
        return self.mismatch(node_labels, node_name) is None


class PreferredTerm(msgspec.Struct, frozen=True):
    weight: int
    preference: NodeSelectorTerm


class PodSchedulingRequirements(msgspec.Struct, frozen=True):
    """A pod's node constraints.

    `strict` is what Karpenter holds the pod to for good on this attempt (Karpenter's
    `NewStrictPodRequirements`): nodeSelector AND the first required term. `preferred` is the heaviest
    preferred term that Karpenter's first attempt also ANDs in (`with_preferences`), until relaxed.
    `required_terms` keeps every OR-term so a report can name the ones Karpenter will only try later.
    """

    node_selector: Mapping[str, str]
    strict: Requirements
    preferred: Requirements | None
    preferred_weight: int | None
    required_terms: tuple[NodeSelectorTerm, ...]
    has_required_affinity: bool
    preferred_terms: tuple[PreferredTerm, ...]
    notes: tuple[str, ...]

    @property
    def with_preferences(self) -> Requirements:
        """Karpenter's `NewPodRequirements` (first, unrelaxed attempt): strict AND heaviest preferred term."""
        return self.strict if self.preferred is None else self.strict.intersection(self.preferred)

    def for_term(self, index: int) -> Requirements:
        """nodeSelector AND required term `index`: what Karpenter enforces after relaxing terms 0..index-1."""
        base = Requirements.from_node_selector(self.node_selector)
        return base.intersection(self.required_terms[index].requirements())

    def alternatives(self) -> tuple[Requirements, ...]:
        """One requirement set per required OR-term, in the order Karpenter tries them (just `strict` when
        the pod has at most one term)."""
        if len(self.required_terms) <= 1:
            return (self.strict,)
        return tuple(self.for_term(i) for i in range(len(self.required_terms)))

    def relaxations(self) -> tuple[Requirements, ...]:
        """The node requirements of each attempt, in the order Karpenter makes them: `Preferences.Relax`
        (preferences.go) removes the required OR-terms one at a time first, and only then the preferred terms,
        heaviest first; `NewPodRequirements` ANDs the heaviest preferred term left into the term in use. So:
        every term with every preferred term kept, then the last term as the preferred terms go, and last the
        last term alone: what Karpenter's error is about when no attempt fits (`trySchedule`)."""
        terms = self.alternatives()
        ordered = sorted(self.preferred_terms, key=lambda t: -t.weight)  # SliceStable: ties keep their order
        try:
            preferred = [t.preference.requirements() for t in ordered]
        except RequirementError:
            preferred = []  # kube-scheduler and Karpenter skip what does not parse; so does the relaxation

        def attempt(base: Requirements, heaviest: int) -> Requirements:
            return base.intersection(preferred[heaviest]) if heaviest < len(preferred) else base

        states = [attempt(t, 0) for t in terms]
        states += [attempt(terms[-1], j) for j in range(1, len(preferred) + 1)]
        return tuple(states)


def _spec_of(pod_or_spec: Mapping[str, Any]) -> Mapping[str, Any]:
    """Accept a whole Pod (it has `spec`) or a PodSpec (which never has a `spec` field)."""
    spec = pod_or_spec.get("spec")
    return spec if isinstance(spec, Mapping) else pod_or_spec


def _node_selector(spec: Mapping[str, Any]) -> dict[str, str]:
    raw = _dict(spec.get("nodeSelector"))
    out: dict[str, str] = {}
    for k, v in raw.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise RequirementError(f"spec.nodeSelector[{k!r}] must map a string to a string")
        out[k] = v
    return out


def _required_terms(spec: Mapping[str, Any]) -> tuple[bool, tuple[NodeSelectorTerm, ...]]:
    node_affinity = _dict(_dict(spec.get("affinity")).get("nodeAffinity"))
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, Mapping):
        return False, ()
    terms = tuple(
        NodeSelectorTerm.from_dict(_dict(t), f"{_REQUIRED_PATH}.nodeSelectorTerms[{i}]")
        for i, t in enumerate(_list(required.get("nodeSelectorTerms")))
    )
    return True, terms


def _preferred_terms(spec: Mapping[str, Any]) -> tuple[PreferredTerm, ...]:
    node_affinity = _dict(_dict(spec.get("affinity")).get("nodeAffinity"))
    out: list[PreferredTerm] = []
    for i, item in enumerate(_list(node_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"))):
        d = _dict(item)
        weight = d.get("weight", 0)
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise RequirementError(f"{_PREFERRED_PATH}[{i}].weight must be an integer")
        preference = NodeSelectorTerm.from_dict(_dict(d.get("preference")), f"{_PREFERRED_PATH}[{i}]")
        out.append(PreferredTerm(weight, preference))
    return tuple(out)


class NodeAffinity(msgspec.Struct, frozen=True):
    """A pod's `spec.affinity.nodeAffinity`, read once (when the pod is parsed) and hashable.

    A part that does not parse (an unknown operator, a non-integer weight) is kept as its error message and
    raised as `RequirementError` by `required()` / `preferred()`, where the old per-call parse raised it:
    the API server rejects such a pod, so it only comes from a hand-made file, and the analyses then report
    it on that one pod instead of refusing the whole snapshot. The required and preferred parts fail
    separately, as kube-scheduler's filter reads only the required terms.
    """

    has_required: bool = False
    required_terms: tuple[NodeSelectorTerm, ...] = ()
    preferred_terms: tuple[PreferredTerm, ...] = ()
    required_error: str | None = None
    preferred_error: str | None = None

    @classmethod
    def from_spec(cls, spec: Mapping[str, Any]) -> NodeAffinity:
        """From a PodSpec; never raises (see the class docstring)."""
        affinity = spec.get("affinity")
        if not affinity or not _dict(_dict(affinity).get("nodeAffinity")):
            return NO_NODE_AFFINITY
        has_required, required_error = False, None
        terms: tuple[NodeSelectorTerm, ...] = ()
        try:
            has_required, terms = _required_terms(spec)
        except RequirementError as exc:
            has_required, required_error = True, str(exc)
        preferred: tuple[PreferredTerm, ...] = ()
        preferred_error = None
        try:
            preferred = _preferred_terms(spec)
        except RequirementError as exc:
            preferred_error = str(exc)
        return cls(has_required, terms, preferred, required_error, preferred_error)

    def required(self) -> tuple[bool, tuple[NodeSelectorTerm, ...]]:
        """(whether `requiredDuringScheduling...` is present, its terms); raises when it did not parse."""
        if self.required_error is not None:
            raise RequirementError(self.required_error)
        return self.has_required, self.required_terms

    def preferred(self) -> tuple[PreferredTerm, ...]:
        """The `preferredDuringScheduling...` terms; raises when they did not parse."""
        if self.preferred_error is not None:
            raise RequirementError(self.preferred_error)
        return self.preferred_terms


NO_NODE_AFFINITY = NodeAffinity()


def pod_requirements(pod_or_spec: Mapping[str, Any]) -> PodSchedulingRequirements:
    """`scheduling_requirements` of a Pod or PodSpec dict.

    Raises `RequirementError` (a `ValueError`) naming the field when an expression cannot be parsed.
    """
    spec = _spec_of(pod_or_spec)
    node_selector = _node_selector(spec)
    return scheduling_requirements(node_selector, NodeAffinity.from_spec(spec))


def scheduling_requirements(
    node_selector: Mapping[str, str], affinity: NodeAffinity
) -> PodSchedulingRequirements:
    """Build a pod's scheduling requirements the way Karpenter does (see the module docstring).

    Raises `RequirementError` when the pod's node affinity did not parse (`NodeAffinity`).
    """
    has_required, terms = affinity.required()
    preferred_terms = affinity.preferred()
    notes: list[str] = []

    strict = Requirements.from_node_selector(node_selector)
    if terms:
        strict = strict.intersection(terms[0].requirements())
        if terms[0].is_empty:
            notes.append(
                "nodeSelectorTerms[0] is empty: Karpenter adds no requirement for it, "
                "while kube-scheduler skips empty terms (they match no node)"
            )
    elif has_required:
        notes.append(
            "requiredDuringSchedulingIgnoredDuringExecution has no nodeSelectorTerms: kube-scheduler matches "
            "no node; Karpenter adds no requirement"
        )
    if len(terms) > 1:
        notes.append(
            f"required node affinity has {len(terms)} OR-terms: Karpenter tries them in order, each on every "
            f"NodePool, and provisions for the first that fits (Preferences.Relax); when none does, its error is "
            f"about the last"
        )
    for i, term in enumerate(terms):
        if term.match_fields:
            pinned = term.pinned_node_names
            detail = f" (pins the pod to node {', '.join(pinned)})" if pinned else ""
            notes.append(
                f"nodeSelectorTerms[{i}] uses matchFields{detail}: Karpenter ignores matchFields, so a new "
                f"node can never satisfy it; kube-scheduler enforces it"
            )

    preferred: Requirements | None = None
    preferred_weight: int | None = None
    if preferred_terms:
        heaviest = preferred_terms[0]
        for candidate in preferred_terms[1:]:
            if candidate.weight > heaviest.weight:
                heaviest = candidate
        preferred = heaviest.preference.requirements()
        preferred_weight = heaviest.weight
        notes.append(
            f"preferred node affinity: Karpenter first treats the heaviest term (weight {preferred_weight}) "
            f"as required, then relaxes preferred terms heaviest first"
        )

    return PodSchedulingRequirements(
        node_selector=node_selector,
        strict=strict,
        preferred=preferred,
        preferred_weight=preferred_weight,
        required_terms=terms,
        has_required_affinity=has_required,
        preferred_terms=preferred_terms,
        notes=tuple(notes),
    )


def node_matches(
    pod_or_spec: Mapping[str, Any], node_labels: Mapping[str, str], *, node_name: str | None = None
) -> tuple[bool, str]:
    """`selector_matches` of a Pod or PodSpec dict."""
    spec = _spec_of(pod_or_spec)
    node_selector = _node_selector(spec)
    return selector_matches(node_selector, NodeAffinity.from_spec(spec), node_labels, node_name=node_name)


def selector_matches(
    node_selector: Mapping[str, str],
    affinity: NodeAffinity,
    node_labels: Mapping[str, str],
    *,
    node_name: str | None = None,
) -> tuple[bool, str]:
    """kube-scheduler's `NodeAffinity` filter for an existing node: `(True, "")` or `(False, reason)`.

    nodeSelector entries must match exactly; then, when required node affinity is present, at least one
    non-empty term must match. Label keys are compared verbatim (no Karpenter key normalisation).
    `matchFields` (`metadata.name`) are only checked when `node_name` is given. Raises `RequirementError`
    when the selector matched and the required node affinity did not parse.
    """
    for key, want in node_selector.items():
        have = node_labels.get(key)
        if have != want:
            return False, f"nodeSelector {key}={want} not satisfied ({_describe_actual(node_labels, key)})"
    has_required, terms = affinity.required()
    if not has_required:
        return True, ""
    usable = [(i, t) for i, t in enumerate(terms) if not t.is_empty]
    if not usable:
        return False, "required node affinity has no non-empty nodeSelectorTerms, so it matches no node"
    reasons: list[str] = []
    for i, term in usable:
        why = term.mismatch(node_labels, node_name)
        if why is None:
            return True, ""
        reasons.append(f"term {i}: {why}" if len(usable) > 1 else why)
    return False, "required node affinity not satisfied: " + "; ".join(reasons)
