#!/usr/bin/env python3
"""Benchmark (a model): how long `smi --all` takes on N nodes when each pod is done after T seconds,
against the ideal, for the polling schedule in use and the one before (0.1 s x 1.6^k, at most 2 s).

    python bench/smi_fanout.py [--nodes 200] [--concurrency 8] [--seconds 1,1.5,3,10,30] [--rtt-ms 20]

What changed is only when a pod is looked at, so the model is the schedule itself
(`kube.debug.runner.settings.poll_times`, the function the runner calls): `--concurrency` workers take
the nodes in turn; a pod costs a create, polls until one that comes after it is done, then a log read and
a delete, each request one round trip (`--rtt-ms`). The ideal sees each pod the moment it is done.

The model leaves out the request budget the runner's requests wait for: `bench/smi_live.py` runs the real
`smi --all` against the suite's API server and compares it with the same ideal (`fan_out`).
"""

from __future__ import annotations

import argparse
import bisect
import heapq
import json
import math

from kubectl_gpu.kube.debug.runner.settings import RunnerSettings, poll_times


def old_times(horizon: float) -> list[float]:
    times, delay = [0.0], 0.1
    while times[-1] < horizon:
        times.append(times[-1] + delay)
        delay = min(delay * 1.6, 2.0)
    return times


def seen_after(schedule: list[float], done: float, rtt: float) -> float:
    """Seconds from the start of waiting until the poll that finds the pod done has returned (a poll
    looks at the pod half a round trip after it is sent)."""
    index = bisect.bisect_left(schedule, max(0.0, done - rtt / 2))
    at = schedule[index]
    return at + rtt  # this poll's own round trip


def fan_out(nodes: int, concurrency: int, per_pod: float) -> float:
    """Wall time for `nodes` pods of `per_pod` seconds each on `concurrency` workers."""
    workers = [0.0] * min(concurrency, nodes)
    heapq.heapify(workers)
    for _ in range(nodes):
        heapq.heappush(workers, heapq.heappop(workers) + per_pod)
    return max(workers)


def model(nodes: int, concurrency: int, seconds: float, rtt: float) -> dict[str, object]:
    horizon = seconds + 10
    overhead = 3 * rtt  # create, log, delete
    ideal = fan_out(nodes, concurrency, overhead + seconds)
    now = fan_out(
        nodes, concurrency, overhead + seen_after(poll_times(RunnerSettings(), horizon), seconds, rtt)
    )
    before = fan_out(nodes, concurrency, overhead + seen_after(old_times(horizon), seconds, rtt))
    return {
        "pod_s": seconds,
        "ideal_s": round(ideal, 2),
        "before_s": round(before, 2),
        "before_x": round(before / ideal, 2),
        "now_s": round(now, 2),
        "now_x": round(now / ideal, 2),
        "polls_per_pod_now": bisect.bisect_left(poll_times(RunnerSettings(), horizon), seconds) + 1,
        "polls_per_pod_before": bisect.bisect_left(old_times(horizon), seconds) + 1,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", default="1,1.5,3,10,30")
    parser.add_argument("--rtt-ms", type=float, default=20.0)
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    rows = [
        model(args.nodes, args.concurrency, float(s), args.rtt_ms / 1000)
        for s in args.seconds.split(",")
        if not math.isnan(float(s))
    ]
    if not args.markdown:
        print(json.dumps(rows, indent=2))
        return
    print(
        "| pod done after | ideal | before (0.1 x 1.6^k) | now (a fifth of the wait) | polls a pod, before / now |"
    )
    print("|---:|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['pod_s']} s | {r['ideal_s']} s | {r['before_s']} s ({r['before_x']}x) | "
            f"{r['now_s']} s ({r['now_x']}x) | {r['polls_per_pod_before']} / {r['polls_per_pod_now']} |"
        )


if __name__ == "__main__":
    main()
