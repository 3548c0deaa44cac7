"""Fix verification: the change a fix asks for made on a copy of the cluster (`changes.py`) and the pod
evaluated again; `verifier.py` settles a blocked pod's `Decision` on the fix that gets furthest."""
