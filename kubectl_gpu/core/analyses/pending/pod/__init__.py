"""The pod, before any target is judged: its shape (`shape.py`: what the checks read of it), the keys that
group pods of one shape or one workload (`shapes.py`), the verdicts the pod decides alone (`gates.py`: gated,
another scheduler, a selector Karpenter ignores) and its own scheduling events (`evidence.py`)."""
