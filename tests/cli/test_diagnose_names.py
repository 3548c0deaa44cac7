"""`diagnose --only` names the analyses as the suite keys their reports (`run_suite`): `health` holds node
health; `nodes`, its name before, still selects it (runbooks keep working)."""

from __future__ import annotations

import json
from collections.abc import Callable

from kubectl_gpu.core.analyses.diagnose import ANALYSES, RENAMED, run_suite
from tests.cli.test_bad_input import DEMO
from tests.conftest import Result

Cli = Callable[..., Result]


def test_the_health_report_is_keyed_health() -> None:
    from kubectl_gpu.core.analyses.health import HealthReport
    from kubectl_gpu.core.catalog import load_catalog
    from kubectl_gpu.kube.snapshot import load_snapshot

    state = load_snapshot([str(DEMO)])
    assert state.captured_at is not None
    suite = run_suite(state, load_catalog(), state.captured_at)
    assert isinstance(suite.reports["health"], HealthReport)
    assert "nodes" not in ANALYSES and RENAMED == {"nodes": "health"}


def test_only_health_and_its_old_name_run_the_same(cli: Cli) -> None:
    runs = [
        cli("diagnose", "--snapshot", str(DEMO), "--only", name, "-o", "json") for name in ("health", "nodes")
    ]
    documents = [json.loads(run.out) for run in runs]
    assert documents[0]["analyses"] == ["health"]
    assert documents[0] == documents[1]
    assert runs[0].code == runs[1].code == 1
