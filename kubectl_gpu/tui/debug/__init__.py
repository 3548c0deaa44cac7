"""Debug pods from the TUI: the keys (`s` nvidia-smi, `x` shell), the jobs that run them in threads and always delete their pods, and the nvidia-smi screen."""
