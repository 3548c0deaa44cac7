"""kubectl_gpu.core.catalog: data files, node labels vs real clusters, driver -> CUDA, Bottlerocket."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from kubectl_gpu.core.catalog import (
    PROVIDERS,
    BottlerocketTable,
    Catalog,
    CatalogError,
    CompatLevel,
    CudaTable,
    DriverInference,
    InstanceType,
    OsImageStream,
    load_catalog,
    other_provider_key,
    parse_instance_type_name,
    parse_os_image,
    read_data_files,
    well_known_labels,
)
from kubectl_gpu.core.catalog.versions import version_key
from tests.helpers import FIXTURES as ALL_FIXTURES
from tests.helpers import REFERENCE, REPO, load_script

FIXTURES = ALL_FIXTURES / "catalog"
DATA = REPO / "kubectl_gpu" / "data"
DATA_FILES = (
    "instance_types.json",
    "labels.json",
    "cuda_driver.json",
    "bottlerocket_nvidia.json",
    "karpenter_schema.json",
)

RAW = {name: json.loads((DATA / name).read_text(encoding="utf-8")) for name in DATA_FILES}
ROWS = RAW["instance_types.json"]["instances"]
LOWER_KEBAB = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def it(catalog: Catalog, name: str) -> InstanceType:
    found = catalog.by_name(name)
    assert found is not None, name
    return found


# ============================================================================ data files


@pytest.mark.parametrize("name", DATA_FILES)
def test_every_data_file_has_a_provenance_block(name: str) -> None:
    doc = RAW[name]
    assert doc["source"] and all(isinstance(s, str) and s for s in doc["source"])
    assert isinstance(doc["retrieved"], str) and doc["retrieved"]
    assert isinstance(doc["notes"], list) and all(isinstance(n, str) for n in doc["notes"])
    for ref in doc["derived_from"]:
        assert ref["file"].endswith(".json") and re.fullmatch(r"[0-9a-f]{64}", ref["sha256"])


def test_packaged_files_are_what_load_reads() -> None:
    assert read_data_files() == {k: v for k, v in RAW.items() if k != "karpenter_schema.json"}
    from kubectl_gpu.core.catalog.schema import CrdSchema, load_nodepool_schema  # read on its own, by lint

    schema = load_nodepool_schema()
    assert schema.paths == CrdSchema.from_data(RAW["karpenter_schema.json"]).paths
    assert ".spec.template.spec.terminationGracePeriod" in schema.paths and ".spec.limits" in schema.maps


@pytest.mark.parametrize("row", ROWS, ids=[r["name"] for r in ROWS])
def test_instance_row_is_well_formed(row: dict[str, Any]) -> None:
    doc = RAW["instance_types.json"]
    t = InstanceType.from_data(row, doc["sources"])
    assert t.family == row["family"] and t.category and t.generation > 0 and t.size
    assert t.category == re.match(r"[a-z]+", t.family).group()  # type: ignore[union-attr]
    assert t.vcpu > 0 and t.memory_mib > 0
    assert t.accelerator_kind in {"gpu", "neuron"}
    assert t.accelerator_manufacturer in ({"nvidia", "amd"} if t.is_gpu else {"aws"})
    assert isinstance(t.accelerator_count, int) and t.accelerator_count >= 0
    assert row["source"] in doc["sources"] and t.source == doc["sources"][row["source"]]
    if t.exact_labels:
        assert t.arch in {"amd64", "arm64"}
        assert t.accelerator_name is not None and LOWER_KEBAB.fullmatch(t.accelerator_name)
        assert t.network_bandwidth_mbps is None or t.network_bandwidth_mbps > 0
        assert t.ebs_bandwidth_mbps is None or t.ebs_bandwidth_mbps > 0
        assert t.extended_resources is not None
    else:  # vantage-only rows say how every converted value was obtained
        assert t.arch is None and t.accelerator_name is None and t.derived
    if t.is_nvidia:
        assert t.gpu_memory_mib is not None and t.gpu_memory_mib > 0
    if t.is_neuron:
        assert t.gpu_memory_mib is None
    # Counts and extended resources agree.
    if t.accelerator_count == 0:
        assert t.accelerator_resource is None and any("fractional" in n for n in t.notes)
    else:
        assert t.accelerator_resource is not None
    ext = t.extended_resources
    if ext is not None:
        assert all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in ext.values())
        if t.accelerator_resource is not None:
            assert ext[t.accelerator_resource] == t.accelerator_count
        if t.is_neuron:
            assert ext["aws.amazon.com/neuroncore"] % ext["aws.amazon.com/neuron"] == 0
        if t.is_nvidia and t.accelerator_count:
            assert "amd.com/gpu" not in ext and "aws.amazon.com/neuron" not in ext
    # Local NVMe.
    assert t.local_nvme_total_gb >= 0
    if t.local_nvme_total_gb == 0:
        assert t.local_nvme_count == 0 and t.local_nvme_size_gb is None
    elif t.local_nvme_count is not None:
        assert (
            t.local_nvme_size_gb is not None
            and t.local_nvme_count * t.local_nvme_size_gb == t.local_nvme_total_gb
        )
    # Price, and why it is missing.
    if t.price_usd_per_hour is None:
        assert t.price_source is None and any("price" in n for n in t.notes)
    else:
        assert t.price_usd_per_hour > 0 and t.price_source and t.price_per_hour == t.price_usd_per_hour
    assert t.auto_mode_listed in {True, False, None}
    if t.allocatable_cpu_millicores is not None:
        assert 0 < t.allocatable_cpu_millicores <= t.vcpu * 1000
        assert t.allocatable_memory_mib is not None and 0 < t.allocatable_memory_mib < t.memory_mib
        assert t.allocatable_pods is not None and t.allocatable_pods > 0


def test_instance_names_are_sorted_and_unique(catalog: Catalog) -> None:
    names = [t.name for t in catalog.instance_types]
    assert len(names) == len(set(names)) == len(ROWS)
    assert [(t.family, t.vcpu, t.name) for t in catalog.instance_types] == sorted(
        (t.family, t.vcpu, t.name) for t in catalog.instance_types
    )
    assert catalog.families() == tuple(sorted({t.family for t in catalog.instance_types}))
    assert all(t.family == f for f in catalog.families() for t in catalog.by_family(f))


@pytest.mark.parametrize(
    ("name", "family", "category", "generation", "size"),
    [
        ("p6-b300.48xlarge", "p6-b300", "p", 6, "48xlarge"),
        ("p6-b200.48xlarge", "p6-b200", "p", 6, "48xlarge"),
        ("g6f.large", "g6f", "g", 6, "large"),
        ("gr6f.4xlarge", "gr6f", "gr", 6, "4xlarge"),
        ("gr6.8xlarge", "gr6", "gr", 6, "8xlarge"),
        ("trn1n.32xlarge", "trn1n", "trn", 1, "32xlarge"),
        ("trn2.48xlarge", "trn2", "trn", 2, "48xlarge"),
        ("p3dn.24xlarge", "p3dn", "p", 3, "24xlarge"),
        ("g5g.metal", "g5g", "g", 5, "metal"),
        ("inf2.xlarge", "inf2", "inf", 2, "xlarge"),
        ("u-6tb1.metal", "u-6tb1", "u", 1, "metal"),  # the regex's optional -<n>tb group
    ],
)
def test_category_and_generation_parse(
    name: str, family: str, category: str, generation: int, size: str
) -> None:
    assert parse_instance_type_name(name) == (family, category, generation, size)


@pytest.mark.parametrize("name", ["g6e", "g6e.", ".xlarge", "6g.large", "G6.large", ""])
def test_unparseable_instance_type_names(name: str) -> None:
    with pytest.raises(CatalogError):
        parse_instance_type_name(name)


def test_families_named_in_the_brief_are_catalogued(catalog: Catalog) -> None:
    for family in ("p6-b300", "g6f", "gr6", "trn1n"):
        assert catalog.by_family(family), family


def test_gpu_counts_match_the_eks_node_monitoring_agent(catalog: Catalog) -> None:
    """aws/eks-node-monitoring-agent's expected nvidiaGpuCount per instance type (real reference data)."""
    lines = (FIXTURES / "k8s-nodes/reference/eks-node-monitoring-agent__instance-info.jsonl").read_text()
    checked = 0
    for line in lines.splitlines():
        row = json.loads(line)
        t = catalog.by_name(row["instanceType"])
        if t is None:  # p6e-gb200: not in the reference catalog
            continue
        assert t.accelerator_count == row["nvidiaGpuCount"], t.name
        if t.extended_resources is not None:
            assert t.extended_resources["nvidia.com/gpu"] == row["nvidiaGpuCount"]
        checked += 1
    assert checked >= 50


@pytest.mark.parametrize(
    "log",
    [
        "eks-workshop__karpenter-launched-nodeclaim-inf2-neuron.json",
        "eks-workshop__karpenter-launched-nodeclaim-trn1-neuron.json",
    ],
)
def test_neuron_capacity_and_allocatable_match_karpenter_logs(catalog: Catalog, log: str) -> None:
    record = json.loads((FIXTURES / "karpenter/logs" / log).read_text())
    t = it(catalog, record["instance-type"])
    alloc = record["allocatable"]
    assert t.is_neuron and t.accelerator_resource == "aws.amazon.com/neuron"
    assert t.extended_resources is not None
    assert t.extended_resources["aws.amazon.com/neuron"] == int(alloc["aws.amazon.com/neuron"])
    assert f"{t.allocatable_cpu_millicores}m" == alloc["cpu"]
    assert f"{t.allocatable_memory_mib}Mi" == alloc["memory"]
    assert str(t.allocatable_pods) == alloc["pods"]


def test_auto_mode_nodeclaim_capture_type_is_catalogued(catalog: Catalog) -> None:
    lines = (
        (FIXTURES / "karpenter/eks-docs__automode-kubectl-get-nodeclaims-g6e.txt").read_text().splitlines()
    )
    header, row = lines[0].split(), lines[1].split()
    t = it(catalog, row[header.index("TYPE")])
    assert t.name == "g6e.2xlarge" and t.auto_mode_listed is True and t.accelerator_name == "l40s"


# ============================================================================ labels


def _requirement_holds(
    labels: Mapping[str, str], unknown: frozenset[str], req: Mapping[str, Any]
) -> bool | None:
    """Node-affinity semantics of one requirement; None when the catalog cannot tell."""
    key, op, values = req["key"], req["operator"], [str(v) for v in req.get("values", [])]
    if key in unknown:
        return None
    value = labels.get(key)
    if op == "In":
        return value in values
    if op == "NotIn":
        return value not in values
    if op == "Exists":
        return value is not None
    if op == "DoesNotExist":
        return value is None
    if op in ("Gt", "Lt"):
        if value is None:
            return False
        return int(value) > int(values[0]) if op == "Gt" else int(value) < int(values[0])
    raise AssertionError(op)


def _nodepool_admits(
    catalog: Catalog, t: InstanceType, provider: str, nodepool: dict[str, Any]
) -> bool | None:
    """True/False/None for the instance-determined requirements of a NodePool (capacity type and the
    NodePool's own labels are NodeClaim properties and skipped)."""
    labels = catalog.labels(t, provider)  # type: ignore[arg-type]
    unknown = catalog.unknown_label_keys(t, provider)  # type: ignore[arg-type]
    results = [
        _requirement_holds(labels, unknown, req)
        for req in nodepool["spec"]["template"]["spec"]["requirements"]
        if req["key"] not in {"karpenter.sh/capacity-type", "karpenter.sh/nodepool"}
    ]
    if False in results:
        return False
    return None if None in results else True


def test_auto_mode_pod_selector_matches_g6e_labels_exactly(catalog: Catalog) -> None:
    """The AWS doc's pod selects `eks.amazonaws.com/instance-gpu-memory: "45776"` and lands on g6e."""
    pod = yaml.safe_load(
        (FIXTURES / "karpenter/eks-docs__automode-pod-nvidia-smi-gpu-memory-selector.yaml").read_text()
    )
    selector = pod["spec"]["nodeSelector"]
    labels = catalog.labels("g6e.2xlarge", "auto")
    assert {k: labels.get(k) for k in selector} == selector
    matching = {
        t.family
        for t in catalog.instance_types
        if all(catalog.labels(t, "auto").get(k) == v for k, v in selector.items())
    }
    assert matching == {"g6e"}
    # Under self-managed Karpenter the same selector cannot match: wrong label namespace.
    assert not any(
        all(catalog.labels(t, "karpenter").get(k) == v for k, v in selector.items())
        for t in catalog.instance_types
    )
    assert (
        catalog.other_provider_key("eks.amazonaws.com/instance-gpu-memory")
        == "karpenter.k8s.aws/instance-gpu-memory"
    )


def test_auto_mode_gpu_nodepool_admits_g6_and_g6e_only(catalog: Catalog) -> None:
    nodepool = yaml.safe_load(
        (FIXTURES / "karpenter/eks-docs__automode-nodepool-gpu-g6e-g6.yaml").read_text()
    )
    admitted = {t.family for t in catalog.instance_types if _nodepool_admits(catalog, t, "auto", nodepool)}
    assert admitted == {"g6", "g6e"}
    # The same requirements read by self-managed Karpenter: eks.amazonaws.com/* keys never match.
    assert not any(_nodepool_admits(catalog, t, "karpenter", nodepool) for t in catalog.instance_types)


def test_self_managed_gpu_nodepool(catalog: Catalog) -> None:
    """data-on-eks NodePool: category g, families g5/g6/g6e/g7e, listed sizes, amd64, hypervisor nitro."""
    nodepool = yaml.safe_load(
        (FIXTURES / "karpenter/data-on-eks__nodepool-gpu-g5-g6-g6e-g7e.yaml").read_text()
    )
    verdict = {t.name: _nodepool_admits(catalog, t, "karpenter", nodepool) for t in catalog.instance_types}
    # Hypervisor is a real label whose value the catalog does not hold: "cannot tell", never "no".
    assert all(
        "karpenter.k8s.aws/instance-hypervisor" in catalog.unknown_label_keys(t, "karpenter")
        for t in catalog.instance_types
    )
    assert (
        verdict["g5.2xlarge"] is None and verdict["g6e.48xlarge"] is None and verdict["g7e.2xlarge"] is None
    )
    assert verdict["g6e.16xlarge"] is False  # 16xlarge is not in the size list
    assert verdict["g5g.xlarge"] is False  # family and arch
    assert verdict["p5.48xlarge"] is False and verdict["g6f.large"] is False
    candidates = {n for n, v in verdict.items() if v is not False}
    assert {n.split(".")[0] for n in candidates} == {"g5", "g6", "g6e", "g7e"}
    assert not any(_nodepool_admits(catalog, t, "auto", nodepool) for t in catalog.instance_types)


def test_label_keys_and_formats_match_a_real_nodeclaim(catalog: Catalog) -> None:
    """`kubectl describe nodeclaim` (c5a.2xlarge, self-managed Karpenter): same keys, same value shapes."""
    text = (
        FIXTURES / "karpenter/karpenter-docs__kubectl-describe-nodeclaim__c5a-2xlarge-spot.txt"
    ).read_text()
    block = text.split("Labels:", 1)[1].split("Annotations:", 1)[0]
    real = dict(line.strip().split("=", 1) for line in block.strip().splitlines())
    instance_keys = {k for k in real if k.startswith("karpenter.k8s.aws/instance-")} | {
        "kubernetes.io/arch",
        "kubernetes.io/os",
        "node.kubernetes.io/instance-type",
    }
    t = it(catalog, "g5.2xlarge")
    ours = catalog.labels(t, "karpenter")
    unknown = catalog.unknown_label_keys(t, "karpenter")
    assert instance_keys <= set(ours) | unknown
    extra = {k.removeprefix("karpenter.k8s.aws/") for k in set(ours) - instance_keys}
    assert extra <= {
        "instance-gpu-name",
        "instance-gpu-manufacturer",
        "instance-gpu-count",
        "instance-gpu-memory",
        "instance-local-nvme",
        "instance-capability-flex",
    }
    for key in instance_keys & set(ours):
        assert re.fullmatch(r"\d+", real[key]) is not None or key in {
            "karpenter.k8s.aws/instance-category",
            "karpenter.k8s.aws/instance-family",
            "karpenter.k8s.aws/instance-size",
            "kubernetes.io/arch",
            "kubernetes.io/os",
            "node.kubernetes.io/instance-type",
        }, key
        assert bool(re.fullmatch(r"\d+", real[key])) == bool(re.fullmatch(r"\d+", ours[key])), key
    assert ours["kubernetes.io/os"] == real["kubernetes.io/os"] == "linux"
    # The category/generation rule reproduces the real labels of c5a.2xlarge too.
    family, category, generation, size = parse_instance_type_name(real["node.kubernetes.io/instance-type"])
    assert (family, category, str(generation), size) == (
        real["karpenter.k8s.aws/instance-family"],
        real["karpenter.k8s.aws/instance-category"],
        real["karpenter.k8s.aws/instance-generation"],
        real["karpenter.k8s.aws/instance-size"],
    )


def test_auto_mode_get_nodes_columns(catalog: Catalog) -> None:
    """`kubectl get nodes -L beta.kubernetes.io/instance-type -L kubernetes.io/arch -L kubernetes.io/os`."""
    lines = (FIXTURES / "k8s-nodes/eks-workshop__automode__kubectl-get-nodes-L.txt").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("NAME"))
    header = lines[start].split()
    rows = [
        dict(zip(header, line.split(), strict=True)) for line in lines[start + 1 :] if line.startswith("i-")
    ]
    assert rows and {r["ARCH"] for r in rows} <= {"amd64", "arm64"} and {r["OS"] for r in rows} == {"linux"}
    assert (
        catalog.normalize_label_key("beta.kubernetes.io/instance-type") == "node.kubernetes.io/instance-type"
    )
    for t in catalog.instance_types:
        labels = catalog.labels(t, "auto")
        assert labels["kubernetes.io/os"] == "linux" and labels["node.kubernetes.io/instance-type"] == t.name
        assert labels.get("kubernetes.io/arch", "amd64") in {"amd64", "arm64"}


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_label_dict_is_well_formed(catalog: Catalog, provider: str) -> None:
    table = catalog.label_table
    allowed = catalog.well_known_labels(provider) | set(table.static[provider])  # type: ignore[index,arg-type]
    other = "karpenter" if provider == "auto" else "auto"
    for t in catalog.instance_types:
        labels = catalog.labels(t, provider)  # type: ignore[arg-type]
        assert all(isinstance(k, str) and isinstance(v, str) and v for k, v in labels.items())
        assert set(labels) <= allowed, set(labels) - allowed
        assert not any(k.startswith(table.prefixes[other] + "/") for k in labels)  # type: ignore[index]
        assert not set(labels) & catalog.unknown_label_keys(t, provider)  # type: ignore[arg-type]
        p = table.prefixes[provider] + "/"  # type: ignore[index]
        assert labels[p + "instance-family"] == t.family and labels[p + "instance-generation"] == str(
            t.generation
        )
        assert labels[p + "instance-cpu"] == str(t.vcpu)
        if t.local_nvme_total_gb:
            assert labels[p + "instance-local-nvme"] == str(t.local_nvme_total_gb)
        else:
            assert p + "instance-local-nvme" not in labels
        if t.is_gpu and t.exact_labels:
            assert labels[p + "instance-gpu-name"] == t.accelerator_name
            assert labels[p + "instance-gpu-count"] == str(t.accelerator_count)
            assert labels[p + "instance-gpu-memory"] == str(t.gpu_memory_mib)
            assert labels[p + "instance-memory"] == str(t.memory_mib)
        if not t.is_gpu:
            assert not any("instance-gpu-" in k for k in labels)


def test_neuron_labels_per_provider(catalog: Catalog) -> None:
    t = it(catalog, "inf2.48xlarge")
    karpenter = catalog.labels(t, "karpenter")
    assert karpenter["karpenter.k8s.aws/instance-accelerator-name"] == "inferentia2"
    assert karpenter["karpenter.k8s.aws/instance-accelerator-manufacturer"] == "aws"
    assert karpenter["karpenter.k8s.aws/instance-accelerator-count"] == "12"
    auto = catalog.labels(t, "auto")  # UNCONFIRMED on Auto Mode: no accelerator label is claimed
    assert not any("accelerator" in k or "instance-gpu-" in k for k in auto)
    assert catalog.other_provider_key("karpenter.k8s.aws/instance-accelerator-name") is None


def test_p3_labels_come_from_the_reference_and_bandwidths_stay_unknown(catalog: Catalog) -> None:
    # the reference instance_types.json (tests/fixtures/reference) fills the p3 label values from the EC2
    # specification; it holds no bandwidths for them, so those labels are unknown (never "absent").
    t = it(catalog, "p3.8xlarge")
    labels = catalog.labels(t, "karpenter")
    unknown = catalog.unknown_label_keys(t, "karpenter")
    assert labels["karpenter.k8s.aws/instance-gpu-name"] == "v100"
    assert labels["karpenter.k8s.aws/instance-gpu-manufacturer"] == "nvidia"
    assert labels["karpenter.k8s.aws/instance-gpu-count"] == "4"
    assert labels["karpenter.k8s.aws/instance-gpu-memory"] == "16384"
    assert labels["karpenter.k8s.aws/instance-memory"] == "249856" and labels["kubernetes.io/arch"] == "amd64"
    for suffix in ("network-bandwidth", "ebs-bandwidth"):
        assert "karpenter.k8s.aws/instance-" + suffix not in labels
        assert "karpenter.k8s.aws/instance-" + suffix in unknown
    assert t.exact_labels and t.is_nvidia and not t.derived


def test_labels_are_cached_and_read_only(catalog: Catalog) -> None:
    first = catalog.labels("g6e.2xlarge", "auto")
    assert catalog.labels(it(catalog, "g6e.2xlarge"), "auto") is first
    with pytest.raises(TypeError):
        first["x"] = "y"  # type: ignore[index]


def test_bad_provider_and_unknown_type(catalog: Catalog) -> None:
    with pytest.raises(CatalogError, match="unknown provider"):
        catalog.labels("g6e.2xlarge", "eks")  # type: ignore[arg-type]
    with pytest.raises(CatalogError, match="not in the catalog"):
        catalog.labels("c6a.large", "auto")
    assert catalog.by_name("c6a.large") is None and catalog.instance_type("g5.xlarge") is not None


def test_well_known_labels() -> None:
    core = set(RAW["labels.json"]["well_known"]["karpenter"]) & set(RAW["labels.json"]["well_known"]["auto"])
    assert {
        "karpenter.sh/nodepool",
        "node.kubernetes.io/instance-type",
        "kubernetes.io/arch",
        "topology.kubernetes.io/zone",
        "karpenter.sh/capacity-type",
        "topology.k8s.aws/zone-id",
    } <= core
    auto, karpenter = well_known_labels("auto"), well_known_labels("karpenter")
    assert (
        "eks.amazonaws.com/instance-gpu-name" in auto
        and "eks.amazonaws.com/instance-gpu-name" not in karpenter
    )
    assert (
        "karpenter.k8s.aws/instance-gpu-name" in karpenter
        and "karpenter.k8s.aws/instance-gpu-name" not in auto
    )
    assert "karpenter.k8s.aws/instance-accelerator-name" in karpenter
    for labels in (auto, karpenter):
        assert "nvidia.com/gpu.product" not in labels  # GFD labels are never well-known
        assert not {"eks.amazonaws.com/nodeclass", "karpenter.k8s.aws/ec2nodeclass"} & labels


@pytest.mark.parametrize(
    ("key", "other"),
    [
        ("karpenter.k8s.aws/instance-gpu-name", "eks.amazonaws.com/instance-gpu-name"),
        ("eks.amazonaws.com/instance-family", "karpenter.k8s.aws/instance-family"),
        ("karpenter.k8s.aws/instance-local-nvme", "eks.amazonaws.com/instance-local-nvme"),
        ("eks.amazonaws.com/nodeclass", "karpenter.k8s.aws/ec2nodeclass"),
        ("topology.ebs.csi.eks.amazonaws.com/zone", "topology.ebs.csi.aws.com/zone"),
        ("karpenter.sh/capacity-type", None),  # shared by both
        ("topology.k8s.aws/zone-id", None),
        ("nvidia.com/gpu.product", None),
        ("karpenter.k8s.aws/instance-tenancy", None),  # no confirmed Auto Mode counterpart
    ],
)
def test_other_provider_key(key: str, other: str | None) -> None:
    assert other_provider_key(key) == other
    if other is not None:
        assert other_provider_key(other) == key


def test_provider_of_label_keys(catalog: Catalog) -> None:
    table = catalog.label_table
    assert table.provider_of("eks.amazonaws.com/compute-type") == "auto"
    assert table.provider_of("karpenter.k8s.aws/instance-gpu-count") == "karpenter"
    assert table.provider_of("karpenter.sh/nodepool") is None and table.provider_of("example.com/x") is None


# ============================================================================ driver -> CUDA


def test_cuda_rows_are_monotonic(catalog: Catalog) -> None:
    rows = catalog.cuda.rows
    assert len(rows) == len(RAW["cuda_driver.json"]["rows"]) > 50
    drivers = [version_key(r.min_linux_driver) for r in rows]
    assert None not in drivers
    assert drivers == sorted(drivers, reverse=True)  # type: ignore[type-var]
    majors = [f.cuda_major for f in catalog.cuda.families]
    assert majors == [13, 12, 11]
    fams = {f.cuda_major: f for f in catalog.cuda.families}
    assert (
        fams[12].driver_max_exclusive == fams[13].driver_min
        and fams[11].driver_max_exclusive == fams[12].driver_min
    )


@pytest.mark.parametrize(
    ("driver", "cuda", "row"),
    [
        ("570.124.06", "12.8", "12.8.1"),  # 124 > 26 numerically, though "124" < "26" as text
        ("570.124.05", "12.8", "12.8"),
        ("570.26", "12.8", "12.8"),  # exact boundary
        ("570.26.0", "12.8", "12.8"),  # missing components count as zero
        ("570.25.99", "12.6", "12.6.3"),
        ("535.230.02", "12.2", "12.2.2"),  # Auto Mode doc capture: "CUDA Version: 12.2"
        ("535.54.03", "12.2", "12.2"),
        ("535.54.02", "12.1", "12.1.1"),
        ("530.30.02", "12.1", "12.1.1"),  # two rows share a driver: the higher CUDA wins
        ("580.65.06", "13.0", "13.0"),
        ("580.95.05", "13.0", "13.0.2"),
        ("590.44.01", "13.1", "13.1"),
        ("595.45.04", "13.2", "13.2"),
        ("450.36.06", "11.0", "11.0.1-rc"),
        ("410.48", "10.0", "10.0"),  # the oldest row, exactly
        (" 470.82.01 ", "11.4", "11.4.4"),
    ],
)
def test_max_cuda_edges(catalog: Catalog, driver: str, cuda: str, row: str) -> None:
    ceiling = catalog.cuda.max_cuda(driver)
    assert ceiling is not None and (ceiling.cuda, ceiling.row.cuda) == (cuda, row)
    assert catalog.max_cuda(driver) == cuda


def compare_versions(a: str, b: str) -> int:
    """-1, 0 or 1 as `a` is lower than, equal to or higher than `b` (the tests' order on driver numbers)."""
    ka, kb = version_key(a), version_key(b)
    assert ka is not None and kb is not None, (a, b)
    return (ka > kb) - (ka < kb)


def test_driver_comparison_is_numeric() -> None:
    assert compare_versions("570.124.06", "570.26") == 1
    assert compare_versions("570.26", "570.26.0") == 0
    assert compare_versions("535.54.03", "535.104.05") == -1
    assert version_key("580") == version_key("580.0.0") == (580,)


@pytest.mark.parametrize("driver", ["410.47.99", "400", "0.1", "0"])
def test_drivers_below_the_oldest_row(catalog: Catalog, driver: str) -> None:
    assert catalog.cuda.max_cuda(driver) is None and catalog.max_cuda(driver) is None
    result = catalog.cuda.satisfies(driver, "10.0")
    assert result.level is CompatLevel.NO and result.ceiling is None and "older than every" in result.reason


@pytest.mark.parametrize(
    "driver", ["", "abc", "570.", ".570", "570..1", "570.1a", "v570.124", "570-124", "5 70"]
)
def test_malformed_drivers_raise_one_line_errors(catalog: Catalog, driver: str) -> None:
    with pytest.raises(CatalogError) as info:
        catalog.cuda.max_cuda(driver)
    assert isinstance(info.value, ValueError) and "\n" not in str(info.value) and "driver" in str(info.value)
    with pytest.raises(CatalogError):
        catalog.cuda.satisfies(driver, "12.0")
    assert catalog.max_cuda(driver) is None  # the display helper does not raise


@pytest.mark.parametrize("needed", ["", "12.x", "twelve", "12..1"])
def test_malformed_required_cuda(catalog: Catalog, needed: str) -> None:
    with pytest.raises(CatalogError, match="required CUDA"):
        catalog.cuda.satisfies("570.124.06", needed)


@pytest.mark.parametrize(
    ("driver", "major"),
    [
        ("535.230.02", 12),
        ("525", 12),
        ("579.99.99", 12),
        ("580", 13),
        ("610.57.04", 13),
        ("524.99", 11),
        ("450", 11),
        ("449.99", None),
        ("440.33", None),
    ],
)
def test_minor_version_compatibility_family(catalog: Catalog, driver: str, major: int | None) -> None:
    family = catalog.cuda.minor_compat_family(driver)
    assert (family.cuda_major if family else None) == major
    ceiling = catalog.cuda.max_cuda(driver)
    assert ceiling is not None and ceiling.minor_compat == family


@pytest.mark.parametrize(
    ("driver", "needed", "level"),
    [
        ("535.230.02", "12.2", CompatLevel.FULL),
        ("535.230.02", "12.0", CompatLevel.FULL),
        ("535.230.02", "11.8", CompatLevel.FULL),  # older toolkits run on newer drivers
        ("535.230.02", "12.8", CompatLevel.MINOR_COMPAT),  # 525+ runs any 12.x, with limitations
        ("535.230.02", "13.0", CompatLevel.NO),
        ("570.26", "12.8.1", CompatLevel.MINOR_COMPAT),
        ("570.124.06", "12.8.1", CompatLevel.FULL),
        ("575.57.08", "13.0", CompatLevel.NO),
        ("580.65.06", "12.8", CompatLevel.FULL),
        ("580.65.06", "13.2", CompatLevel.MINOR_COMPAT),
        ("520.61.05", "12.0", CompatLevel.NO),
        ("450.51.06", "11.8", CompatLevel.MINOR_COMPAT),
        ("610.57.04", "13.3", CompatLevel.MINOR_COMPAT),  # past the table, same major
        ("610.57.04", "14.0", CompatLevel.UNKNOWN),  # past the table: cannot tell
        ("400.1", "10.0", CompatLevel.NO),
    ],
)
def test_satisfies(catalog: Catalog, driver: str, needed: str, level: CompatLevel) -> None:
    result = catalog.cuda.satisfies(driver, needed)
    assert result.level is level, result.reason
    assert "\n" not in result.reason and result.driver == driver and result.cuda_needed == needed
    if level is CompatLevel.MINOR_COMPAT:
        assert result.caveat is not None and "limitations" in result.caveat
    if level is CompatLevel.FULL:
        assert result.caveat is None


def test_satisfies_explains(catalog: Catalog) -> None:
    no = catalog.cuda.satisfies("575.57.08", "13.0")
    assert "580.65.06" in no.reason and no.caveat is not None and "cuda-compat" in no.caveat
    old = catalog.cuda.satisfies("450.51.06", "11.8")
    assert old.caveat is not None and "450.80.02" in old.caveat  # the 11.x footnote travels with it


_SMI_LINE = re.compile(r"(?:Driver|KMD) Version: *([0-9.]+) +CUDA (?:UMD )?Version: *([0-9.]+)")
_SMI_XML = re.compile(
    r"<driver_version>([^<]+)</driver_version>\s*(?:<[^>]+>[^<]*</[^>]+>\s*)*?<cuda_version>([^<]+)</cuda_version>"
)
_SMI_FILES = sorted(
    p.relative_to(FIXTURES).as_posix() for p in (FIXTURES / "nvidia-smi").rglob("*") if p.is_file()
)


@pytest.mark.parametrize("path", _SMI_FILES)
def test_max_cuda_agrees_with_real_nvidia_smi(catalog: Catalog, path: str) -> None:
    """nvidia-smi prints the driver's own CUDA ceiling; the table must reproduce it."""
    text = (FIXTURES / path).read_text(encoding="utf-8", errors="replace")
    pairs = set(_SMI_LINE.findall(text)) | set(_SMI_XML.findall(text))
    assert pairs, path
    for driver, printed in pairs:
        ceiling = catalog.cuda.max_cuda(driver)
        assert ceiling is not None, driver
        if ceiling.open_ended and compare_versions(printed, ceiling.cuda) > 0:
            continue  # a driver newer than the table's edition (610.57.04 prints 13.3; the table ends at 13.2)
        assert ceiling.cuda == printed, (path, driver)


def test_open_ended_ceiling(catalog: Catalog) -> None:
    newest = catalog.cuda.max_cuda("610.57.04")
    assert newest is not None and newest.open_ended and newest.cuda == "13.2"
    older = catalog.cuda.max_cuda("590.48.01")
    assert older is not None and not older.open_ended


_DRIVERS = st.lists(st.integers(min_value=0, max_value=999), min_size=1, max_size=3).map(
    lambda parts: ".".join(map(str, parts))
)


@given(a=_DRIVERS, b=_DRIVERS)
def test_max_cuda_is_monotonic_in_the_driver(a: str, b: str) -> None:
    table = load_catalog().cuda
    if compare_versions(a, b) > 0:
        a, b = b, a

    def rank(driver: str) -> tuple[int, ...]:
        ceiling = table.max_cuda(driver)
        return (-1,) if ceiling is None else version_key(ceiling.row.cuda.split("-")[0]) or ()

    assert rank(a) <= rank(b)


@given(driver=_DRIVERS)
def test_max_cuda_matches_a_brute_force_scan(driver: str) -> None:
    table = load_catalog().cuda
    key = version_key(driver)
    eligible = [r for r in table.rows if version_key(r.min_linux_driver) <= key]  # type: ignore[operator]
    ceiling = table.max_cuda(driver)
    if not eligible:
        assert ceiling is None
    else:
        best = max(eligible, key=lambda r: version_key(r.cuda.split("-")[0]) or ())
        assert ceiling is not None and ceiling.row.cuda == best.cuda


def test_cuda_table_from_plain_dicts() -> None:
    table = CudaTable.from_data(
        {
            "rows": [
                {"cuda": "2.0", "label": "two", "min_linux_driver": "20.1"},
                {"cuda": "1.0", "label": "one", "min_linux_driver": "10.5"},
            ]
        }
    )
    assert table.max_cuda("20.0") is not None and table.max_cuda("20.0").cuda == "1.0"  # type: ignore[union-attr]
    assert table.max_cuda("20.1").open_ended  # type: ignore[union-attr]
    assert table.max_cuda("10.4") is None
    assert table.satisfies("10.5", "2.0").level is CompatLevel.NO  # no minor-compat families given


# ============================================================================ Bottlerocket


def test_bottlerocket_rows_are_well_formed(catalog: Catalog) -> None:
    table = catalog.bottlerocket
    assert len(table.releases) == len(RAW["bottlerocket_nvidia.json"]["releases"]) > 100
    for r in table.releases:
        assert version_key(r.version) is not None and re.fullmatch(r"\d+\.\d+", r.kernel)
        assert r.variants and all(re.fullmatch(r"aws-k8s-\d+\.\d+-nvidia(?:-fips)?", v) for v in r.variants)
        assert r.drivers and all(version_key(d) for d in r.drivers) and r.kernel in r.kmod_package
        assert r.date is None or re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}", r.date)
        assert r.date_kind.startswith("UNCONFIRMED") == (r.date is None)
        for d in r.drivers:  # every shipped driver has a CUDA ceiling
            assert catalog.cuda.max_cuda(d) is not None
    versions = table.versions()
    assert list(versions) == sorted(versions, key=version_key)  # type: ignore[arg-type]
    for v in versions:  # a variant is listed at most once per release
        variants = [x for r in table.rows_for(v) for x in r.variants]
        assert len(variants) == len(set(variants)), v


def test_drivers_per_release_and_variant(catalog: Catalog) -> None:
    table = catalog.bottlerocket

    def drivers(version: str, variant: str) -> tuple[str, ...]:
        release = table.release_for(version, variant)
        return tuple(release.drivers) if release else ()

    assert sorted({d for r in table.rows_for("1.47.0") for d in r.drivers}) == ["570.172.08", "580.65.06"]
    assert drivers("1.47.0", "aws-k8s-1.34-nvidia") == ("580.65.06",)
    assert drivers("1.47.0", "aws-k8s-1.33-nvidia") == ("570.172.08",)
    assert {d for r in table.rows_for("1.31.0") for d in r.drivers} == {"535.230.02"}
    assert catalog.max_cuda("535.230.02") == "12.2"
    assert table.rows_for("1.99.0") == () and drivers("1.47.0", "aws-k8s-1.23-nvidia") == ()


@pytest.mark.parametrize(
    ("os_image", "stream", "inference", "drivers"),
    [
        ("Bottlerocket OS 1.19.2 (aws-k8s-1.29-nvidia)", "upstream", "inferred", ("535.161.07",)),
        ("Bottlerocket OS 1.15.1 (aws-k8s-1.23-nvidia)", "upstream", "inferred", ("470.161.03",)),
        ("Bottlerocket OS 1.57.0 (aws-k8s-1.34-nvidia-fips)", "upstream", "inferred", ("580.126.09",)),
        ("  Bottlerocket OS 1.38.0 (aws-k8s-1.27-nvidia)\n", "upstream", "inferred", ("535.247.01",)),
        ("Bottlerocket OS 1.19.2 (aws-k8s-1.29)", "upstream", "no-nvidia-driver", ()),
        ("Bottlerocket OS 1.99.0 (aws-k8s-1.35-nvidia)", "upstream", "unknown-release", ()),
        ("Bottlerocket OS 1.30.0 (aws-k8s-1.23-nvidia)", "upstream", "unknown-variant", ()),
        ("Bottlerocket (EKS Auto, Nvidia) 2026.4.23 (aws-k8s-1.34-nvidia)", "eks-auto", "not-mappable", ()),
        (
            "Bottlerocket (EKS Auto, Standard) 2025.12.5 (aws-k8s-1.34-standard)",
            "eks-auto",
            "not-mappable",
            (),
        ),
        ("Bottlerocket (EKS Auto) 2025.3.14 (aws-k8s-1.30)", "eks-auto", "not-mappable", ()),
        ("Amazon Linux 2023.6.20250107", "unrecognised", "unrecognised", ()),
        ("Bottlerocket OS 1.19 (aws-k8s-1.29-nvidia)", "unrecognised", "unrecognised", ()),
        ("", "unrecognised", "unrecognised", ()),
    ],
)
def test_parse_os_image(os_image: str, stream: str, inference: str, drivers: tuple[str, ...]) -> None:
    info = parse_os_image(os_image)
    assert (info.stream.value, info.inference.value, info.drivers) == (stream, inference, drivers)
    assert info.inferred is (info.inference is DriverInference.INFERRED)
    assert info.reason and "\n" not in info.reason and info.os_image == os_image


def test_parse_os_image_details() -> None:
    auto = parse_os_image("Bottlerocket (EKS Auto, Nvidia) 2026.4.23 (aws-k8s-1.34-nvidia)")
    assert auto.stream is OsImageStream.EKS_AUTO and not auto.inferred and auto.release is None
    assert (auto.version, auto.flavour, auto.k8s_version, auto.nvidia_variant) == (
        "2026.4.23",
        "Nvidia",
        "1.34",
        True,
    )
    assert "no public mapping" in auto.reason
    up = parse_os_image("Bottlerocket OS 1.47.0 (aws-k8s-1.34-nvidia)")
    assert (
        up.inferred
        and up.release is not None
        and up.release.kernel == "6.12"
        and up.drivers == ("580.65.06",)
    )
    assert "not read from the node" in up.reason and up.flavour is None


def test_bottlerocket_table_from_plain_dicts() -> None:
    table = BottlerocketTable.from_data(
        {
            "releases": [
                {
                    "version": "1.2.3",
                    "variants": ["aws-k8s-1.30-nvidia"],
                    "kernel": "6.1",
                    "kmod_package": "kmod-6.1-nvidia",
                    "drivers": ["535.1"],
                    "date": None,
                    "date_kind": "UNCONFIRMED",
                    "website_data_added": None,
                    "kernel_kit_version": None,
                }
            ]
        }
    )
    assert parse_os_image("Bottlerocket OS 1.2.3 (aws-k8s-1.30-nvidia)", table).drivers == ("535.1",)
    assert (
        parse_os_image("Bottlerocket OS 1.19.2 (aws-k8s-1.29-nvidia)", table).inference
        is DriverInference.UNKNOWN_RELEASE
    )


# ============================================================================ catalog from dicts


def _tiny_labels() -> dict[str, Any]:
    return {
        "prefixes": {"auto": "eks.amazonaws.com", "karpenter": "karpenter.k8s.aws"},
        "static_node_labels": {
            "auto": {"kubernetes.io/os": "linux"},
            "karpenter": {"kubernetes.io/os": "linux"},
        },
        "well_known": {"auto": [], "karpenter": []},
        "normalized_aliases": {},
        "labels": [
            {
                "concept": "instance-family",
                "auto": "eks.amazonaws.com/instance-family",
                "karpenter": ["karpenter.k8s.aws/instance-family"],
                "auto_unconfirmed": False,
                "value_and_unit": "family",
                "source": "test",
            },
        ],
    }


def _tiny_row(**overrides: Any) -> dict[str, Any]:
    row = {
        "name": "g9x.xlarge",
        "family": "g9x",
        "vcpu": 4,
        "memory_mib": 16384,
        "arch": "amd64",
        "accelerator_kind": "gpu",
        "accelerator_name": "z1",
        "accelerator_manufacturer": "nvidia",
        "accelerator_count": 1,
        "gpu_memory_mib": 1024,
        "local_nvme_total_gb": 0,
        "local_nvme_count": 0,
        "local_nvme_size_gb": None,
        "network_bandwidth_mbps": 1,
        "ebs_bandwidth_mbps": 1,
        "extended_resources": {"nvidia.com/gpu": 1},
        "accelerator_resource": "nvidia.com/gpu",
        "allocatable_al2023": None,
        "price_usd_per_hour": None,
        "price_source": None,
        "auto_mode_listed": None,
        "exact_labels": True,
        "source": "test",
    }
    row.update(overrides)
    return row


def test_catalog_from_plain_dicts() -> None:
    cat = Catalog.from_data(instance_types={"instances": [_tiny_row()]}, labels=_tiny_labels())
    t = it(cat, "g9x.xlarge")
    assert (t.category, t.generation, t.size) == ("g", 9, "xlarge")
    assert dict(cat.labels(t, "karpenter")) == {
        "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "g9x.xlarge",
        "kubernetes.io/arch": "amd64",
        "karpenter.k8s.aws/instance-family": "g9x",
    }
    assert cat.cuda.max_cuda("999.1") is None and cat.bottlerocket.rows_for("1.0.0") == ()


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"family": "g8"}, "does not match"),
        ({"vcpu": True}, "'vcpu' should be an integer"),
        ({"vcpu": "4"}, "'vcpu' should be an integer"),
        ({"extended_resources": {"nvidia.com/gpu": "1"}}, "should be an object of integers"),
        ({"name": "nodot"}, "does not parse"),
    ],
)
def test_malformed_rows_raise(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(CatalogError, match=message):
        Catalog.from_data(instance_types={"instances": [_tiny_row(**overrides)]}, labels=_tiny_labels())


def test_missing_field_and_duplicates() -> None:
    row = _tiny_row()
    del row["vcpu"]
    with pytest.raises(CatalogError, match="missing field 'vcpu'"):
        Catalog.from_data(instance_types={"instances": [row]}, labels=_tiny_labels())
    with pytest.raises(CatalogError, match="listed twice"):
        Catalog.from_data(instance_types={"instances": [_tiny_row(), _tiny_row()]}, labels=_tiny_labels())


def test_load_catalog_is_cached_with_provenance() -> None:
    cat = load_catalog()
    assert load_catalog() is cat
    assert set(cat.provenance) == set(DATA_FILES) - {"karpenter_schema.json"}  # the schema: lint's own
    for name, prov in cat.provenance.items():
        assert prov.file == name and prov.source and prov.retrieved
        assert set(prov.reference_sha256) == {d["file"] for d in RAW[name]["derived_from"]}


# ============================================================================ build script


def _build_script() -> ModuleType:
    return load_script(REPO / "scripts" / "build_catalogs.py", "build_catalogs")


def test_build_script_regenerates_the_data_byte_for_byte(tmp_path: Path) -> None:
    script = _build_script()
    assert script.main([str(REFERENCE), "--out", str(tmp_path)]) == 0
    for name in DATA_FILES:
        assert (tmp_path / name).read_bytes() == (DATA / name).read_bytes(), name
    assert script.main([str(REFERENCE), "--check"]) == 0


def test_data_records_the_reference_it_came_from() -> None:
    for name in DATA_FILES:
        for ref in RAW[name]["derived_from"]:
            digest = hashlib.sha256((REFERENCE / ref["file"]).read_bytes()).hexdigest()
            assert digest == ref["sha256"], f"{name} is stale: rerun scripts/build_catalogs.py"


def test_vendored_reference_is_what_the_data_was_built_from() -> None:
    # tests/fixtures/reference is a byte copy of shared/reference: every file has one provenance line whose
    # sha256 is the file's, and every file a data catalog names in `derived_from` is there with that sha256.
    provenance = {
        entry["file"]: entry
        for entry in map(
            json.loads, (REFERENCE / "PROVENANCE.jsonl").read_text(encoding="utf-8").splitlines()
        )
    }
    on_disk = {p.name for p in REFERENCE.iterdir()} - {"PROVENANCE.jsonl", "NOTICE"}
    assert set(provenance) == on_disk
    for name, entry in provenance.items():
        data = (REFERENCE / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"], name
        assert entry["copied_from"] == f"shared/reference/{name}", name
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", entry["vendored"]), name
    derived = {(ref["file"], ref["sha256"]) for name in DATA_FILES for ref in RAW[name]["derived_from"]}
    assert derived <= {(name, entry["sha256"]) for name, entry in provenance.items()}


def test_build_script_check_reports_drift(tmp_path: Path) -> None:
    script = _build_script()
    (tmp_path / "labels.json").write_text("{}\n")
    assert script.main([str(REFERENCE), "--out", str(tmp_path), "--check"]) == 1
    assert script.main([str(tmp_path / "missing")]) == 2
