#!/usr/bin/env python3
"""Build the package data catalogs (kubectl_gpu/data/*.json) from the research reference files.

Usage (also writes karpenter_schema.json, the NodePool CRD field paths lint checks against):
    python scripts/build_catalogs.py [REFERENCE_DIR] [--out DIR] [--check]

REFERENCE_DIR defaults to ``../shared/reference`` next to the repository root; the byte-for-byte copy
vendored in ``tests/fixtures/reference`` works the same (its PROVENANCE.jsonl and NOTICE are ignored), so
``python scripts/build_catalogs.py tests/fixtures/reference --check`` needs nothing outside the checkout,
and is what the test suite runs. The output is
deterministic: running the script twice on the same reference gives byte-identical files, and
``--check`` exits 1 when the committed data differs from what the reference would produce.

Only the fields the code uses are kept. Every file gets a top-level provenance block
(``source`` / ``retrieved`` / ``notes`` / ``derived_from``) copied from the reference; nothing is
invented. Where a value is converted (units) or read from a secondary field, the row says so in
``derived``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_REFERENCE = REPO_ROOT.parent / "shared" / "reference"
DEFAULT_OUT = REPO_ROOT / "kubectl_gpu" / "data"

Json = dict[str, Any]


class BuildError(Exception):
    """The reference has a shape this script does not know how to trim without guessing."""


# --------------------------------------------------------------------------- helpers


def _load(ref: Path, name: str) -> Json:
    data = json.loads((ref / name).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise BuildError(f"{name}: top level is not an object")
    return data


def _sha256(ref: Path, name: str) -> str:
    return hashlib.sha256((ref / name).read_bytes()).hexdigest()


def _retrieved(ref: Path) -> str:
    first = (ref / "EKS-FACTS.md").read_text(encoding="utf-8").splitlines()[0]
    m = re.search(r"\(gathered ([^)]*)\)", first)
    if not m:
        raise BuildError("EKS-FACTS.md: first line has no '(gathered ...)' date")
    return f"gathered {m.group(1)} (EKS-FACTS.md header)"


def _derived_from(ref: Path, *names: str) -> list[Json]:
    return [{"file": n, "sha256": _sha256(ref, n)} for n in names]


def _source_key(value: str, keys: dict[str, str]) -> str:
    for key, text in keys.items():
        if text == value:
            return key
    raise BuildError(f"unknown source string: {value[:80]!r}")


def dump(doc: Json) -> str:
    """Pretty JSON with one line per table row (lists of objects), stable across runs."""
    lines = ["{"]
    items = list(doc.items())
    for i, (key, value) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if isinstance(value, list) and value and all(isinstance(x, dict) for x in value):
            lines.append(f" {json.dumps(key)}: [")
            for j, row in enumerate(value):
                sep = "," if j < len(value) - 1 else ""
                lines.append("  " + json.dumps(row, ensure_ascii=False) + sep)
            lines.append(" ]" + comma)
        else:
            body = json.dumps(value, ensure_ascii=False, indent=1).replace("\n", "\n ")
            lines.append(f" {json.dumps(key)}: {body}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- instance types

_QUANTITY = re.compile(r"^(\d+)(m|Mi)?$")


def _quantity(value: str, unit: str | None) -> int:
    m = _QUANTITY.match(value)
    if not m or m.group(2) != unit:
        raise BuildError(f"unexpected quantity {value!r} (wanted unit {unit!r})")
    return int(m.group(1))


def _gib_to_mib(gib: float) -> int:
    mib = gib * 1024
    if mib != int(mib):
        raise BuildError(f"{gib} GiB is not a whole number of MiB")
    return int(mib)


def build_instance_types(ref: Path, retrieved: str) -> Json:
    src = _load(ref, "instance_types.json")
    generated_from: list[str] = src["generated_from"]
    specs_keys = {"karpenter-doc": generated_from[0], "vantage": generated_from[2]}
    price_keys = {"karpenter-pricing": generated_from[1]}
    auto_mode_meaning: dict[str, str] = {}
    rows: list[Json] = []
    for r in src["instances"]:
        name = r["instance_type"]
        derived: list[str] = []
        spec_key = _source_key(r["source_specs"], specs_keys)
        # Rows outside Karpenter's generated doc are exact when the reference gives their label values.
        exact = spec_key == "karpenter-doc" or "gpu_name_label" in r or "accelerator_name_label" in r

        if "memory_mib" in r:
            memory_mib = r["memory_mib"]
        else:
            memory_mib = _gib_to_mib(r["memory_gib"])
            derived.append(f"memory_mib = memory_gib {r['memory_gib']} x 1024 (vantage)")

        kind = r.get("accelerator_kind")
        if kind == "gpu":
            acc_name = r["gpu_name_label"]
            acc_maker = r["gpu_manufacturer_label"]
            acc_count = r["gpu_count_label"]
            gpu_mem = r["gpu_memory_mib_per_gpu_label"]
        elif kind == "neuron":
            acc_name = r["accelerator_name_label"]
            acc_maker = r["accelerator_manufacturer_label"]
            acc_count = r["accelerator_count_label"]
            gpu_mem = None
        elif kind is None and str(r.get("gpu_model_vantage", "")).startswith("NVIDIA "):
            # Vantage-only rows (p3.*): the Karpenter label values are unknown; keep what the
            # vantage record states, converted, and say so.
            kind, acc_name, acc_maker = "gpu", None, "nvidia"
            acc_count = r["gpu_count_vantage"]
            gpu_mem = _gib_to_mib(r["gpu_memory_gib_per_gpu_vantage"])
            derived.append(
                f"accelerator_kind/accelerator_manufacturer from gpu_model_vantage {r['gpu_model_vantage']!r}"
            )
            derived.append(f"accelerator_count = gpu_count_vantage {acc_count}")
            derived.append(
                f"gpu_memory_mib = gpu_memory_gib_per_gpu_vantage {r['gpu_memory_gib_per_gpu_vantage']}"
                " x 1024 (vantage; the EC2 label value is not in the sources)"
            )
        else:
            raise BuildError(f"{name}: cannot tell the accelerator kind")

        layout = r.get("local_nvme_layout")
        total_gb = r["local_nvme_total_gb"]
        if layout is not None:
            nvme_count, nvme_size = layout["count"], layout["size_gb_each"]
            if nvme_size != int(nvme_size) or nvme_count * nvme_size != total_gb:
                raise BuildError(f"{name}: NVMe layout does not add up")
            nvme_size = int(nvme_size)
        elif total_gb == 0:
            nvme_count, nvme_size = 0, None
        else:
            nvme_count, nvme_size = None, None

        alloc = r.get("karpenter_doc_allocatable_al2023")
        allocatable = None
        if alloc is not None:
            allocatable = {
                "cpu_millicores": _quantity(alloc["cpu"], "m"),
                "memory_mib": _quantity(alloc["memory"], "Mi"),
                "pods": _quantity(alloc["pods"], None),
            }

        listed = r["eks_auto_mode_family_listed"]
        meaning_key = json.dumps(listed)
        note = r["eks_auto_mode_note"]
        if auto_mode_meaning.setdefault(meaning_key, note) != note:
            raise BuildError(f"{name}: eks_auto_mode_note differs for the same listing value")

        price_source = r.get("price_source")
        rows.append(
            {
                "name": name,
                "family": r["family"],
                "vcpu": r["vcpu"],
                "memory_mib": memory_mib,
                "arch": r.get("arch"),
                "accelerator_kind": kind,
                "accelerator_name": acc_name,
                "accelerator_manufacturer": acc_maker,
                "accelerator_count": acc_count,
                "gpu_memory_mib": gpu_mem,
                "local_nvme_total_gb": total_gb,
                "local_nvme_count": nvme_count,
                "local_nvme_size_gb": nvme_size,
                "network_bandwidth_mbps": r.get("network_bandwidth_mbps_label"),
                "ebs_bandwidth_mbps": r.get("ebs_bandwidth_mbps_label"),
                "extended_resources": r.get("extended_resources_capacity"),
                "allocatable_al2023": allocatable,
                "price_usd_per_hour": r["on_demand_usd_per_hour_us_east_1"],
                "price_source": None if price_source is None else _source_key(price_source, price_keys),
                "auto_mode_listed": listed,
                "exact_labels": exact,
                "source": spec_key,
                "derived": derived,
                "notes": r.get("notes", []),
            }
        )
    rows.sort(key=lambda row: (row["family"], row["vcpu"], row["name"]))
    resources = _accelerator_resources(rows)
    for i, row in enumerate(rows):
        res = resources[row["accelerator_manufacturer"]]
        ext = row["extended_resources"]
        # None on fractional-GPU types, whose capacity lists no accelerator resource.
        value = res if ext is None or res in ext else None
        items = list(row.items())
        at = [k for k, _ in items].index("extended_resources") + 1
        rows[i] = dict([*items[:at], ("accelerator_resource", value), *items[at:]])
    notes = [f"{k}: {v}" for k, v in src["units"].items()]
    notes.append(
        "exact_labels=false rows come only from vantage-derived data: Karpenter/EKS label values "
        "(instance-memory, instance-gpu-*, arch, bandwidths) are not known for them; a null bandwidth "
        "is unknown, not absent"
    )
    notes.append(
        "accelerator_resource: the extended resource whose capacity equals the accelerator count on every "
        "row of that manufacturer (extended_resources_capacity): "
        + ", ".join(f"{m} -> {r}" for m, r in sorted(resources.items()))
    )
    return {
        "source": generated_from,
        "retrieved": retrieved,
        "notes": notes,
        "derived_from": _derived_from(ref, "instance_types.json"),
        "sources": {**specs_keys, **price_keys},
        "auto_mode_listed_meaning": auto_mode_meaning,
        "instances": rows,
    }


def _accelerator_resources(rows: list[Json]) -> dict[str, str]:
    """Manufacturer -> the one extended resource that counts its accelerators in every row."""
    out: dict[str, str] = {}
    for maker in sorted({row["accelerator_manufacturer"] for row in rows}):
        candidates: set[str] | None = None
        for row in rows:
            ext = row["extended_resources"]
            if row["accelerator_manufacturer"] != maker or ext is None or row["accelerator_count"] == 0:
                continue
            keys = {k for k, v in ext.items() if v == row["accelerator_count"]}
            candidates = keys if candidates is None else candidates & keys
        if candidates is None or len(candidates) != 1:
            raise BuildError(f"no single accelerator resource for manufacturer {maker!r}: {candidates}")
        out[maker] = candidates.pop()
    return out


# --------------------------------------------------------------------------- CUDA

_BOUND = re.compile(r"^(>=|<) (\d+(?:\.\d+)*)$")


def _bound(text: str, op: str) -> str | None:
    if text == "N/A":
        return None
    m = _BOUND.match(text)
    if not m or m.group(1) != op:
        raise BuildError(f"minor-version compatibility bound {text!r} not understood")
    return m.group(2)


def build_cuda(ref: Path, retrieved: str) -> Json:
    src = _load(ref, "cuda_driver.json")
    table = src["table"]
    sources = sorted({r["source"] for r in table})
    if len(sources) != 1:
        raise BuildError("cuda_driver.json rows have more than one source; keep them per row")
    mvc = src["minor_version_compatibility"]
    fwd = src["forward_compatibility"]
    families = []
    for row in mvc["rows"]:
        m = re.match(r"^(\d+)\.x$", row["ctk"])
        if not m:
            raise BuildError(f"minor-version compatibility row {row['ctk']!r} not understood")
        major = int(m.group(1))
        families.append(
            {
                "cuda_major": major,
                "driver_min": _bound(row["driver_min"], ">="),
                "driver_max_exclusive": _bound(row["driver_max"], "<"),
                "as_printed": f"CUDA {row['ctk']}: driver {row['driver_min']}, max {row['driver_max']}",
                "footnote": mvc["footnote_11x"] if major == 11 else None,
            }
        )
    return {
        "source": [sources[0], mvc["source"], fwd["source"]],
        "retrieved": retrieved,
        "notes": [src["how_to_compute_max_cuda"], mvc["older_doc_wording"]],
        "derived_from": _derived_from(ref, "cuda_driver.json"),
        "rows": [
            {"cuda": r["cuda"], "label": r["nvidia_label"], "min_linux_driver": r["min_linux_driver"]}
            for r in table
        ],
        "minor_version_compatibility": {"limitations": mvc["limitations"], "families": families},
        "forward_compatibility": {"facts": fwd["facts"], "bottlerocket_note": fwd["bottlerocket_note"]},
    }


# --------------------------------------------------------------------------- Bottlerocket


def build_bottlerocket(ref: Path, retrieved: str) -> Json:
    src = _load(ref, "bottlerocket_nvidia.json")
    releases = src["releases"]
    sources = sorted({r["source"] for r in releases})
    if len(sources) != 1:
        raise BuildError("bottlerocket_nvidia.json rows have more than one source; keep them per row")
    date_kinds: dict[str, str] = {}
    for text in sorted({r["date_kind"] for r in releases}):
        if text.startswith("Bottlerocket CHANGELOG release date"):
            date_kinds["changelog"] = text
        elif text.startswith("UNCONFIRMED release date"):
            date_kinds["website-data"] = text
        else:
            raise BuildError(f"unknown date_kind {text!r}")
    auto_caveats = [c for c in src["caveats"] if "EKS Auto Mode" in c]
    if len(auto_caveats) != 1:
        raise BuildError("expected exactly one EKS Auto Mode caveat")
    rows = []
    for r in releases:
        row: Json = {
            "version": r["bottlerocket_version"],
            "variants": r["k8s_variants"],
            "kernel": r["kernel"],
            "kmod_package": r["nvidia_kmod_package"],
            "drivers": r["nvidia_driver_version"],
            "date": r["date"],
            "date_kind": _source_key(r["date_kind"], date_kinds),
            "website_data_added": r["website_data_added"],
            "kernel_kit_version": r["kernel_kit_version"],
        }
        if r.get("note"):
            row["note"] = r["note"]
        rows.append(row)
    return {
        "source": sources,
        "retrieved": retrieved,
        "notes": [src["description"], *src["caveats"]],
        "derived_from": _derived_from(ref, "bottlerocket_nvidia.json"),
        "auto_mode_caveat": auto_caveats[0],
        "date_kinds": date_kinds,
        "releases": rows,
    }


# --------------------------------------------------------------------------- labels

_KEY = re.compile(r"^([a-z0-9.-]+/[a-z0-9.-]+)(?: (.*))?$")


def _keys(text: str) -> list[str]:
    """Label keys named in an automode_labels.json cell, e.g. 'k/capacity-reservation-id (+ -type)'."""
    if text.startswith("(") or text.startswith("UNCONFIRMED"):
        return []
    m = _KEY.match(text)
    if not m:
        raise BuildError(f"label cell {text!r} not understood")
    key, rest = m.group(1), m.group(2)
    keys = [key]
    if rest is None:
        return keys
    if (more := re.fullmatch(r"\(\+ (-[a-z-]+(?:, -[a-z-]+)*)\)", rest)) is not None:
        stem = key.rsplit("-", 1)[0]
        keys += [stem + s.strip() for s in more.group(1).split(",")]
    elif (alt := re.fullmatch(r"/ ([a-z0-9-]+)", rest)) is not None:
        keys.append(key.split("/", 1)[0] + "/" + alt.group(1))
    elif not re.fullmatch(r"\([^)]*\)", rest):  # a parenthesised comment only
        raise BuildError(f"label cell {text!r} not understood")
    return keys


def build_labels(ref: Path, retrieved: str) -> Json:
    src = _load(ref, "automode_labels.json")
    crd = _load(ref, "karpenter_crd_fields.json")
    rows: list[Json] = []
    static_auto: dict[str, str] = {}
    for r in src["labels"]:
        auto_cell: str = r["auto_mode_label"]
        auto_keys = _keys(auto_cell)
        if len(auto_keys) > 1:
            raise BuildError(f"{r['concept']}: several Auto Mode keys")
        karpenter_keys = _keys(r["self_managed_karpenter_label"])
        auto_key = auto_keys[0] if auto_keys else None
        if auto_key is not None and not karpenter_keys and r["example"]:
            # Auto-Mode-only labels with one fixed value on every node (compute-type=auto,
            # app.kubernetes.io/managed-by=eks).
            static_auto[auto_key] = r["example"]
        rows.append(
            {
                "concept": r["concept"],
                "auto": auto_key,
                "karpenter": karpenter_keys,
                "auto_unconfirmed": auto_cell.startswith("UNCONFIRMED"),
                "value_and_unit": r["value_and_unit"],
                "source": r["source"],
            }
        )
    prefixes = {}
    for row in rows:
        if row["concept"] == "instance-category":
            prefixes = {"auto": row["auto"].split("/")[0], "karpenter": row["karpenter"][0].split("/")[0]}
    if not prefixes:
        raise BuildError("no instance-category row to take the label prefixes from")
    zone_id = [row for row in rows if row["concept"] == "zone-id"]
    core: list[str] = crd["well_known_labels_core"]
    well_known: dict[str, list[str]] = {}
    for provider in ("auto", "karpenter"):
        keys = set(core)
        for row in rows:
            if row["concept"] == "nodeclass":
                continue
            cands = [row["auto"]] if provider == "auto" else row["karpenter"]
            keys.update(k for k in cands if k is not None and k.startswith(prefixes[provider] + "/"))
        keys.update(row[provider] if provider == "auto" else row[provider][0] for row in zone_id)
        well_known[provider] = sorted(keys)
    sources = sorted({row["source"] for row in rows})
    return {
        "source": [*sources, crd["source"]],
        "retrieved": retrieved,
        "notes": [
            *src["notes"],
            "well_known: Karpenter core well_known_labels_core (karpenter_crd_fields.json) + every "
            "provider-prefixed key in the table except the NodeClass key + topology.k8s.aws/zone-id "
            "(EKS-FACTS 1.3: the cloud provider adds its own). For Auto Mode the set is UNCONFIRMED "
            "(controller source not public).",
            "static_node_labels: Auto-Mode-only labels with a fixed value (example column); "
            "kubernetes.io/os=linux is on every node of both providers (automode_labels.json notes; "
            "Karpenter NodeClaim fixture) - the catalog covers Linux instance types only.",
        ],
        "derived_from": _derived_from(ref, "automode_labels.json", "karpenter_crd_fields.json"),
        "prefixes": prefixes,
        "static_node_labels": {
            "auto": {"kubernetes.io/os": "linux", **dict(sorted(static_auto.items()))},
            "karpenter": {"kubernetes.io/os": "linux"},
        },
        "well_known": well_known,
        "normalized_aliases": crd["normalized_labels"],
        "labels": rows,
    }


# --------------------------------------------------------------------------- Karpenter CRD schema


def build_karpenter_schema(ref: Path, retrieved: str) -> Json:
    """The karpenter.sh/v1 NodePool field paths of the CRD (`karpenter_crd_fields.json`), for lint's
    unknown and misplaced field check: the path, its type and whether it is a map (`{*}`: any key)."""
    crd = _load(ref, "karpenter_crd_fields.json")
    fields: list[Json] = []
    for row in crd["nodepool_fields"]:
        path = row["path"]
        if not isinstance(path, str) or not path.startswith("."):
            raise BuildError(f"nodepool_fields: path {path!r} does not start with '.'")
        fields.append({"path": path, "type": row.get("type")})
    return {
        "source": [crd["source"]],
        "retrieved": retrieved,
        "notes": [
            "nodepool_fields: every path of the karpenter.sh/v1 NodePool CRD schema, as the reference lists "
            "them ('[]' a list item, '{*}' any key of a map); .metadata (ObjectMeta) is not part of it.",
        ],
        "derived_from": _derived_from(ref, "karpenter_crd_fields.json"),
        "nodepool_fields": fields,
    }


# --------------------------------------------------------------------------- main

BUILDERS = {
    "instance_types.json": build_instance_types,
    "cuda_driver.json": build_cuda,
    "bottlerocket_nvidia.json": build_bottlerocket,
    "labels.json": build_labels,
    "karpenter_schema.json": build_karpenter_schema,
}


def render(ref: Path) -> dict[str, str]:
    """File name -> exact text of every data file."""
    retrieved = _retrieved(ref)
    return {name: dump(build(ref, retrieved)) for name, build in BUILDERS.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference", nargs="?", type=Path, default=DEFAULT_REFERENCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--check", action="store_true", help="exit 1 if the data files would change")
    args = parser.parse_args(argv)
    try:
        files = render(args.reference)
    except (BuildError, KeyError, OSError, ValueError) as exc:
        print(f"build_catalogs: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    stale = []
    for name, text in files.items():
        path = args.out / name
        data = text.encode("utf-8")
        if path.exists() and path.read_bytes() == data:
            continue
        stale.append(name)
        if not args.check:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    if args.check and stale:
        print("build_catalogs: out of date: " + ", ".join(stale), file=sys.stderr)
        return 1
    verb = "would update" if args.check else "updated"
    print(f"build_catalogs: {verb} {len(stale)} of {len(files)} files in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
