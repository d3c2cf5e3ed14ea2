"""A fixed workload for counting instructions, which a busy machine does not disturb.

    valgrind --tool=callgrind --callgrind-out-file=cg.out python bench/instructions.py replay
    callgrind_annotate --inclusive=yes cg.out | grep CPyDef_   # per compiled function

Runs ``replay`` (the answer) or ``analyse`` (the answer and the per-move facts of the
import) over the first ``--games`` games of the replay benchmark's corpus
(``bench/replay.py --rounds 5000`` builds it), or only parses them (``none``), so that
the difference between two runs is the work itself. The ingest's own steps have modes too:
``parse`` (the recorder's parser, its limits and its duplicate-key check, on each line),
``hash`` (the content hash), ``import`` (``recorder import --workers 0`` of the games into a
new database) and ``import-twice`` (the same, then again: every game a duplicate; the
difference with ``import`` is what re-importing a known file costs). They use the public
functions only, so the same command measures an older checkout as well.

Wall-clock figures on a shared two-core machine swing by half; instruction counts repeat
to the last digit, which is how the compiled core's tuning was measured
(docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", choices=["none", "replay", "analyse", "parse", "hash", "import",
                                     "import-twice"])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5000, help="corpus of bench/replay.py")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "bench"))
    from replay import build_corpus

    _, lines = build_corpus(args.rounds, "1")
    docs = [json.loads(line) for line in lines[:args.games]]
    from recorder.analysis import analyse
    from recorder.replay import replay

    if args.work in ("parse", "hash", "import", "import-twice"):
        _ingest_step(args.work, [line.encode() if isinstance(line, str) else line
                                 for line in lines[:args.games]], docs)
    else:
        work = {"none": lambda d: None, "replay": replay, "analyse": analyse}[args.work]
        for doc in docs:
            work(doc)
    print(f"{args.work}: {len(docs)} games, {sum(len(d['rounds']) for d in docs)} rounds",
          file=sys.stderr)
    return 0


def _ingest_step(work: str, lines: list[bytes], docs: list[object]) -> None:
    """One step of the ingest path over the games (see the module doc)."""
    if work == "parse":
        from recorder.parse import iter_documents

        for line in lines:
            for _ in iter_documents(line):
                pass
    elif work == "hash":
        from recorder.ingest import content_hash

        for doc in docs:
            content_hash(doc)
    else:
        import tempfile

        from recorder import storage
        from recorder.ingest import import_paths

        with tempfile.TemporaryDirectory() as folder:
            source = Path(folder) / "games.jsonl"
            source.write_bytes(b"\n".join(lines) + b"\n")
            db = storage.connect(Path(folder) / "bench.db")
            for _ in range(2 if work == "import-twice" else 1):
                for _ in import_paths(db, [str(source)], workers=0)[1]:
                    pass
            db.close()


if __name__ == "__main__":
    raise SystemExit(main())
