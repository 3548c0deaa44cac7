"""What checking a target gives (`evaluation.py`: `Check`, `TargetEvaluation`, the shared wording) and the
checks every kind of target shares: topology spread and pod (anti-)affinity (`topology.py`), volumes
(`volumes.py`), the fixes' words (`fixes.py`, `removal.py`) and the NodePool to propose when none offers the
accelerator (`no_pool.py`)."""
