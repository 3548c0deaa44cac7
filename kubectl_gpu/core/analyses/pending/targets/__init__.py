"""The candidate targets of a pod shape, each evaluated the way its provisioner or scheduler would:
existing nodes (`nodes/`) and NodePools (`pools/`)."""
