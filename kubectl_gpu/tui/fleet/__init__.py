"""The fleet overview (`:ctx` alone): every kubeconfig context read at once (`overview`), its screen, and the keys that open it."""
