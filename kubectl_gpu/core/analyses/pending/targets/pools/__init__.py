"""NodePools as targets, in the order they build on each other:

* `memo.py`: `PoolMemo`, the answers pools that fit alike share;
* `fit.py`, `limits.py`, `conditions.py`: an instance type's room under the pool's DaemonSets and NodeOverlays,
  the pool's limits left, its NodeClass, readiness and capacity events, from the pool and the cluster alone;
* `facts.py`: `PoolFacts`, a pool with all that computed once, and which of its types hold a shape;
* `template.py`: a kind of pool's answer for a shape with the name left out (`Template`), and `PoolCandidate`,
  one pool's rank and its evaluation on demand;
* `instances.py`, `labels.py`, `checks.py`: the template's blockers (instance types, unknown labels, host
  ports, minValues, topology, volumes), reading a pool's facts only;
* `target.py`: `PoolTarget`, Karpenter's attempt for the pod on the pool and the pool's template for it;
* `kinds.py`, `unnamed.py`: pools sorted into kinds, so a shape is evaluated once per kind.
"""
