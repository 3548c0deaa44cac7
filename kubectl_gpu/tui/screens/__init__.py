"""Screens pushed over the main one: a detail (YAML, events, a finding), `explain`, the keys, `smi`."""
