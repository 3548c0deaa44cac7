"""`kubectl gpu tui`: the terminal UI, a second front end over the same analyses as the CLI.

One refresh reads the cluster (or the snapshot) once, runs every analysis once and builds every view's
rows, all in a worker thread (`data`); the widgets only show what it built. Debug pods (`s`, `x`) go
through the same runner as `kubectl gpu smi` / `shell` (`actions`). Layout: `app` (the App, its keys and
screens), `views/` (one widget per view), `widgets/` (header, table, bar, command line), `screens/`
(detail, explain, help, smi). It never imports `kubectl_gpu.cli`: the CLI launches it
(`kubectl_gpu.cli.tui`) with a `TuiConfig`.
"""
