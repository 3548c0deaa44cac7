"""The node label values an instance type implies, per label concept, and the concepts it lacks."""

from __future__ import annotations

from typing import Final

from kubectl_gpu.core.catalog.instance_types import InstanceType

__all__ = ["concept_values"]


# Label value formats (strings, exactly as on nodes; automode_labels.json "value_and_unit"):
#   instance-cpu = vCPUs; instance-memory = MiB; instance-gpu-memory = MiB *per GPU* (EC2 SizeInMiB,
#   e.g. L40S "45776", not the marketing 48 GB); instance-local-nvme = *total* instance store in GB
#   (decimal, Karpenter code; the EKS doc's "GiB" is contradicted by the code) and absent without
#   NVMe; instance-{network,ebs}-bandwidth = Mbps; instance-generation = integer string.
# UNCONFIRMED choices:
#   - Neuron on Auto Mode: the reference has no confirmed eks.amazonaws.com/instance-accelerator-*
#     keys, so provider "auto" gets no accelerator labels (self-managed gets
#     karpenter.k8s.aws/instance-accelerator-{name,manufacturer,count}).
#   - instance-capability-flex: emitted for both providers from the reference's rule ("true if the
#     family contains -flex"); the 2024 self-managed NodeClaim fixture predates the label.
#   - GPU labels on fractional g6f/gr6f carry gpu-count "0" as in the Karpenter doc; whether Auto
#     Mode supports those families at all is UNCONFIRMED (auto_mode_listed None).
# Label concepts whose value depends on the instance's accelerator (automode_labels.json concepts).
_GPU_CONCEPTS: Final = (
    "instance-gpu-name",
    "instance-gpu-manufacturer",
    "instance-gpu-count",
    "instance-gpu-memory",
)
_NEURON_CONCEPTS: Final = ("accelerator-name", "accelerator-manufacturer", "accelerator-count")


def concept_values(it: InstanceType) -> tuple[dict[str, str], frozenset[str]]:
    """(concept -> label value, concepts known to be absent) for an instance type.

    Concepts in neither are unknown: the label exists on real nodes but the sources hold no value
    (cpu manufacturer, clock speed, hypervisor, encryption in transit; most labels of p3.*).
    Value formats follow automode_labels.json / karpenter-provider-aws computeRequirements().
    """
    values = {
        "instance-category": it.category,
        "instance-family": it.family,
        "instance-generation": str(it.generation),
        "instance-size": it.size,
        "instance-cpu": str(it.vcpu),
        # automode_labels.json: "true if family contains '-flex'"
        "instance-capability-flex": "true" if "-flex" in it.family else "false",
    }
    absent: set[str] = set()
    if it.local_nvme_total_gb > 0:
        values["instance-local-nvme"] = str(it.local_nvme_total_gb)
    else:
        absent.add("instance-local-nvme")
    if it.exact_labels:
        values["instance-memory"] = str(it.memory_mib)
        for concept, mbps in (
            ("instance-network-bandwidth", it.network_bandwidth_mbps),
            ("instance-ebs-bandwidth", it.ebs_bandwidth_mbps),
        ):
            if mbps is not None:  # unknown otherwise (p3: the sources hold no bandwidth)
                values[concept] = str(mbps)
    if it.is_gpu:
        absent.update(_NEURON_CONCEPTS)
        if it.exact_labels and it.accelerator_name is not None:
            # Karpenter sets GPU labels when the instance has exactly one GPU type; fractional types
            # (g6f, gr6f) carry them with gpu-count 0.
            values["instance-gpu-name"] = it.accelerator_name
            values["instance-gpu-manufacturer"] = it.accelerator_manufacturer
            values["instance-gpu-count"] = str(it.accelerator_count)
            if it.gpu_memory_mib is not None:
                values["instance-gpu-memory"] = str(it.gpu_memory_mib)
    elif it.is_neuron:
        absent.update(_GPU_CONCEPTS)
        if it.exact_labels and it.accelerator_name is not None:
            values["accelerator-name"] = it.accelerator_name
            values["accelerator-manufacturer"] = it.accelerator_manufacturer
            values["accelerator-count"] = str(it.accelerator_count)
    return values, frozenset(absent)
