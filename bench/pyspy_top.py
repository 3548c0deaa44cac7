#!/usr/bin/env python3
"""The top frames of a py-spy profile: what bench/README.md shows for a row over its goal.

    py-spy record -r 200 -f raw -o prof.txt -- python -m kubectl_gpu diagnose --snapshot F -o json
    python bench/pyspy_top.py prof.txt [--top 15] [--match kubectl_gpu]

`-f raw` writes collapsed stacks (`frame;frame;... count`). Printed: the share of samples in which each
function is on the stack (inclusive) and on top of it (self), functions named `name (module)`.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

_FRAME = re.compile(r"^(?P<name>.+?) \((?P<file>[^()]*?)(?::\d+)?\)$")


def frame_name(frame: str) -> str:
    m = _FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    path = m["file"]
    mod = path.split("site-packages/")[-1].split("kubectl_gpu/", 1)[-1] if "/" in path else path
    return f"{m['name']} ({mod.removesuffix('.py')})"


def summarise(text: str) -> tuple[int, Counter[str], Counter[str]]:
    total = 0
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    for line in text.splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [frame_name(f) for f in stack.split(";")]
        for f in set(frames):
            inclusive[f] += n
        own[frames[-1]] += n
    return total, inclusive, own


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--match", default="", help="only frames whose text contains this")
    args = parser.parse_args(argv)
    total, inclusive, own = summarise(args.profile.read_text())
    print(f"{total} samples")
    for title, counts in (("inclusive", inclusive), ("self", own)):
        print(f"\n{title}:")
        shown = [(f, n) for f, n in counts.most_common() if args.match in f][: args.top]
        for f, n in shown:
            print(f"{100 * n / max(total, 1):5.1f}%  {f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
