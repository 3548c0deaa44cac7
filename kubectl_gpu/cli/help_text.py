"""What `--help` says beyond the options: a one-line summary per command (the root's command list) and the
examples kubectl's help opens with. Examples are written as run through kubectl (`kubectl gpu ...`), as
kubectl's own plugins document themselves; tests/cli/test_help_style.py runs each one's flags through the
parser, so an example cannot name a flag that does not exist."""

from __future__ import annotations

from kubectl_gpu.pages import pages

__all__ = ["EXAMPLES", "SHORT"]

#: command -> one line (kubectl's `Short`), for the root's list of commands: a page's is its summary.
SHORT: dict[str, str] = {
    **{page.command: page.summary for page in pages() if page.command},  # kubectl_gpu/pages
    "snapshot": "Capture what the analyses read into a bundle for --snapshot",
    "smi": "Run nvidia-smi (Neuron: neuron-ls) in a debug pod on nodes",
    "shell": "An interactive debug shell on a node",
    "cleanup": "List and delete debug pods this tool left behind",
    "completion": "Print a shell completion script (bash, zsh, fish)",
    "tui": "The terminal UI: fleet, Pending pods, findings, smi and a shell",
}

#: command ("" for the root) -> (what it does, the command line), in the order shown.
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "": (
        ("GPU nodes of the current context", "kubectl gpu nodes"),
        ("Why GPU pods are Pending, and the fix", "kubectl gpu pending"),
        ("Everything at once, on a saved cluster", "kubectl gpu diagnose --snapshot bundle.json"),
        ("The terminal UI", "kubectl gpu"),
    ),
    "nodes": (
        ("List the nodes that have or can have accelerators", "kubectl gpu nodes"),
        ("Include CPU-only nodes", "kubectl gpu nodes --all"),
        ("More columns: capacity type, zone, NodeClaim, price, idle", "kubectl gpu nodes -o wide"),
        ("Only one NodePool's nodes, as JSON", "kubectl gpu nodes -l karpenter.sh/nodepool=gpu -o json"),
        ("One node: its figures and the pods on it", "kubectl gpu nodes i-0abc"),
    ),
    "pools": (
        ("Per NodePool: requested, free, idle, Pending pods, worst finding", "kubectl gpu pools"),
        ("With the findings' counts and the worst one's message", "kubectl gpu pools -o wide"),
        ("The same figures as JSON, for a runbook", "kubectl gpu pools -o json"),
    ),
    "pending": (
        ("Every Pending pod that wants an accelerator, worst first", "kubectl gpu pending"),
        ("Every Pending pod, accelerator or not", "kubectl gpu pending --all-pending"),
        ("Pods of one namespace and label", "kubectl gpu pending -n ml -l app=trainer"),
    ),
    "explain": (
        ("One pod, target by target, with the fix as YAML", "kubectl gpu explain ml/train-0"),
        ("The same, with the namespace as a flag", "kubectl gpu explain train-0 -n ml"),
        (
            "Its answer with a NodePool change made on a copy",
            "kubectl gpu explain ml/train-0 --with pool.yaml",
        ),
    ),
    "diagnose": (
        ("Every analysis; exit 1 on any error", "kubectl gpu diagnose"),
        ("A CI gate: exit 1 on any warning, as JSON", "kubectl gpu diagnose --fail-on warning -o json"),
        ("A subset of the analyses", "kubectl gpu diagnose --only pending,nodes"),
    ),
    "simulate": (
        ("A NodePool change, on the live cluster", "kubectl gpu simulate -f nodepool.yaml"),
        (
            "A merge patch in CI, on a saved snapshot, as JSON",
            "kubectl gpu simulate --snapshot prod.json -f patch.yaml --type merge -o json",
        ),
        (
            "A JSON patch of one NodePool",
            "kubectl gpu simulate -f ops.json --type json --target nodepool/gpu",
        ),
        ("A NodePool deleted", "kubectl gpu simulate --delete nodepool/old-gpu"),
    ),
    "snapshot": (
        ("Capture the current context into a bundle", "kubectl gpu snapshot --out bundle.json"),
        (
            "Also store every accelerator node's nvidia-smi output",
            "kubectl gpu snapshot --out bundle.json --probe",
        ),
        ("One bundle per context (fleet mode)", "kubectl gpu snapshot --all-contexts --out bundles/"),
        ("Read a bundle back with any read-only command", "kubectl gpu pending --snapshot bundle.json"),
    ),
    "cost": (
        ("Requested vs idle accelerators per NodePool and namespace", "kubectl gpu cost"),
        (
            "Nodes idle for at least an hour, namespace rows of ml only",
            "kubectl gpu cost --min-idle 1h -n ml",
        ),
        ("Your prices instead of the us-east-1 list prices", "kubectl gpu cost --price-file prices.yaml"),
    ),
    "usage": (
        ("GPU utilisation, idle spend and $/1M tokens over the last minute", "kubectl gpu usage"),
        ("Over five minutes, per GPU and per pod too", "kubectl gpu usage --window 5m -o wide"),
        ("Count a GPU below 20% as idle", "kubectl gpu usage --idle-below 20"),
        ("Offline, from a bundle saved with a window", "kubectl gpu usage --snapshot bundle.json"),
    ),
    "inventory": (
        ("Every accelerator instance with its EC2 instance ID", "kubectl gpu inventory"),
        ("As CSV for a spreadsheet or a cost tool", "kubectl gpu inventory -o csv > gpu-instances.csv"),
    ),
    "smi": (
        ("Driver, CUDA, GPUs, memory, ECC, MIG and processes of a node", "kubectl gpu smi i-0abc"),
        ("Every accelerator node, as JSON", "kubectl gpu smi --all -o json"),
        ("The pod it would create, and the kubectl debug equivalent", "kubectl gpu smi i-0abc --dry-run"),
        ("The outputs stored by snapshot --probe", "kubectl gpu smi --snapshot bundle.json"),
    ),
    "shell": (
        ("An interactive shell on the node, through kubectl exec", "kubectl gpu shell i-0abc"),
        ("One command on the node; exits with its exit code", "kubectl gpu shell i-0abc -- dmesg"),
        ("The pod it would create; creates nothing", "kubectl gpu shell i-0abc --dry-run"),
    ),
    "cleanup": (
        ("List debug pods left behind", "kubectl gpu cleanup"),
        ("Delete them without asking", "kubectl gpu cleanup --yes"),
    ),
    "drivers": (
        ("Drivers per node and per AMI, and every GPU workload's CUDA check", "kubectl gpu drivers"),
        ("As a DriverReport for scripts", "kubectl gpu drivers -o json"),
    ),
    "nvme": (
        ("Local NVMe of every GPU node", "kubectl gpu nvme"),
        ("Every node, with the evidence", "kubectl gpu nvme --all -o wide"),
    ),
    "lifecycle": (
        ("Every GPU node and GPU pod", "kubectl gpu lifecycle"),
        (
            "Will this job survive eleven more days? (exit 1 if not)",
            "kubectl gpu lifecycle --pod ml/pretrain-0 --needs 11d",
        ),
    ),
    "lint": (
        ("The live cluster's NodePools and NodeClasses", "kubectl gpu lint"),
        ("Files and directories, multi-document YAML", "kubectl gpu lint -f nodepools/ -f nodeclass.yaml"),
        ("A CI gate: exit 1 on any warning", "kubectl gpu lint --fail-on warning -o json"),
    ),
    "completion": (
        ("bash: in ~/.bashrc", "source <(kubectl-gpu completion bash)"),
        ("zsh: in ~/.zshrc, after compinit", "source <(kubectl-gpu completion zsh)"),
        ("fish", "kubectl-gpu completion fish | source"),
    ),
    "tui": (
        ("The live cluster, refreshed every 10 seconds", "kubectl gpu tui --context prod --refresh 10s"),
        ("A saved cluster", "kubectl gpu tui --snapshot bundle.json"),
    ),
}
