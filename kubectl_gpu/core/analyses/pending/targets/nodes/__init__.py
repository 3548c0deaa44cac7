"""Existing nodes as targets: the checks kube-scheduler makes (`checks.py`, `quarantined.py`), one node for a
shape (`target.py`), and the nodes Karpenter tries before any NodePool (`existing.py`: its state nodes,
NodeClaims in flight included)."""
