"""What a change's objects say, read from their manifests in one place: the analyses read models, never the
objects they were parsed from (tests/core/test_no_raw_in_analyses.py), and what a change does is, in part,
a difference between two manifests (a NodeClass's spec, an AMI alias), so the reading of the manifest is
done here, beside the engine that made it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["ami_aliases", "manifest_name", "node_class_group", "spec_changes"]


def _spec(obj: Mapping[str, Any] | None) -> Mapping[str, Any]:
    spec = (obj or {}).get("spec")
    return spec if isinstance(spec, Mapping) else {}


def manifest_name(manifest: Mapping[str, Any]) -> str:
    """The object's `metadata.name` ("" when it has none)."""
    metadata = manifest.get("metadata")
    return str(metadata.get("name") or "") if isinstance(metadata, Mapping) else ""


def node_class_group(pool: Mapping[str, Any]) -> str | None:
    """The API group of a NodePool manifest's `spec.template.spec.nodeClassRef` (`eks.amazonaws.com`: Auto
    Mode's NodeClass)."""
    template = _spec(pool).get("template")
    spec = _spec(template if isinstance(template, Mapping) else None)
    ref = spec.get("nodeClassRef")
    group = ref.get("group") if isinstance(ref, Mapping) else None
    return str(group) if group else None


def spec_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The top-level `spec` fields whose value differs between two manifests of one object, sorted."""
    old, new = _spec(before), _spec(after)
    return sorted(key for key in set(old) | set(new) if old.get(key) != new.get(key))


def ami_aliases(node_class: Mapping[str, Any] | None) -> tuple[str, ...]:
    """An EC2NodeClass's `spec.amiSelectorTerms[].alias` values (`bottlerocket@v1.34.0`), in order."""
    terms = _spec(node_class).get("amiSelectorTerms") or ()
    return tuple(str(t["alias"]) for t in terms if isinstance(t, Mapping) and t.get("alias"))
