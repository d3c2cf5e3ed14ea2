"""A fixed workload for counting instructions, which a busy machine does not disturb.

    valgrind --tool=callgrind --callgrind-out-file=cg.out python bench/instructions.py replay
    callgrind_annotate --inclusive=yes cg.out | grep CPyDef_   # per compiled function

Runs ``replay`` (the answer) or ``analyse`` (the answer and the per-move facts of the
import) over the first ``--games`` games of the replay benchmark's corpus
(``bench/replay.py --rounds 5000`` builds it), or only parses them (``none``), so that
the difference between two runs is the work itself. Wall-clock figures on a shared
two-core machine swing by half; instruction counts repeat to the last digit, which is
how the compiled core's tuning was measured (docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", choices=["none", "replay", "analyse"])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5000, help="corpus of bench/replay.py")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    from replay import build_corpus

    _, lines = build_corpus(args.rounds, "1")
    docs = [json.loads(line) for line in lines[:args.games]]
    from recorder.analysis import analyse
    from recorder.replay import replay

    work = {"none": lambda d: None, "replay": replay, "analyse": analyse}[args.work]
    for doc in docs:
        work(doc)
    print(f"{args.work}: {len(docs)} games, {sum(len(d['rounds']) for d in docs)} rounds",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
