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

``import:STAGE`` runs ``recorder import``'s stages, each one with all those before it,
over the first ``--games`` lines of the import benchmark's corpus (``bench/ingest.py
--rounds 20000`` builds it): ``none`` (the lines read), ``parse`` (a worker's parse of
each line), ``identity`` (its content hash), ``analyse`` (the replay and the facts),
``rows`` (the rows, the packed moves and the compressed log), ``counters`` (the
statistics' contribution), ``wire`` (what a worker sends back, pickled) and ``write``
(the writer: unpickled, stored and committed in a new database). The difference
between two consecutive stages is what that stage costs; ``--stages`` runs every one
under callgrind (after 10 lines uncounted, so that imports, first calls and the new
database's migrations are left out) and prints the table, per round:

    python bench/instructions.py --stages [--games 100]

``review:maxn`` and ``review:bonus`` solve the player view of one decision as the review
does (the first of a simulated ``classic`` 4-player round, max^n, 24 deals at most; of an
``all-fives`` 2-player one, alpha-beta with the bonus, 3 deals): the solver's cost per
position.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WARM = 10
"""Lines each ``--stages`` run imports before callgrind counts."""
IMPORT_STAGES = ("none", "parse", "identity", "analyse", "rows", "counters", "wire", "write")


def import_corpus(games: int) -> list[bytes]:
    """The first ``games`` lines of ``bench/ingest.py``'s 20,000-round corpus."""
    sys.path.insert(0, str(ROOT / "bench"))
    from ingest import build_corpus

    path, _ = build_corpus(20_000, 1)
    with path.open("rb") as f:
        return list(itertools.islice(f, games))


def run_import(stage: str, lines: list[bytes], warm: int = 0) -> int:
    """The import's stages up to ``stage`` over ``lines``, as a worker and the writer do
    them (``recorder.ingest``); returns the rounds of the lines after the first ``warm``.

    With ``warm``, the first ``warm`` lines go through the stages first, uncounted, into
    the same database, and then callgrind is told to start counting (``callgrind_control
    -i on``; the run is started with ``--instr-atstart=no``): what is counted is the work
    a round costs, not the imports, the first calls and the new database's migrations,
    which 50 games would otherwise share.
    """
    from recorder import ingest, storage

    upto = IMPORT_STAGES.index(stage)
    with tempfile.TemporaryDirectory() as tmp:
        db = storage.connect(Path(tmp) / "bench.db") if upto >= 7 else None
        importer = ingest.Importer(db) if db is not None else None
        if warm:
            _stages(upto, lines[:warm], importer)
            subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())],
                           check=True, capture_output=True)
        rounds = _stages(upto, lines[warm:], importer)
        if db is not None:
            db.close()
    return rounds


def _stages(upto: int, lines: list[bytes], importer: Any) -> int:
    from recorder import ingest, stats, storage
    from recorder.analysis import analyse
    from recorder.parse import Limits, RawLine, parse_line

    limits = Limits()
    rounds = 0
    wired: list[bytes] = []
    # the bytes received, or the text in a checkout from before logs were kept compressed
    log_of = getattr(ingest, "log_bytes", None) or ingest.log_text
    for i, line in enumerate(lines):
        if upto < 1:
            continue
        parsed = parse_line(RawLine(i, i + 1, 0, line), limits)
        doc = parsed.doc
        rounds += len(doc["rounds"])
        if upto < 2:
            continue
        pending = ingest._Pending("bench", i, i + 1, game_id=doc.get("game_id"))
        pending.content_hash = ingest.content_hash(doc)
        pending.key = ingest.identity_key(doc)
        if upto < 3:
            continue
        answer, facts = analyse(doc)
        if upto < 4:
            continue
        pending.result = answer.get("status")
        pending.record = storage.build_record(
            doc, log=log_of(parsed), answer=answer, facts=facts,
            content_hash=pending.content_hash, source="bench")
        if upto < 5:
            continue
        pending.record.stats = stats.contribution(pending.record.game, facts)
        if upto < 6:
            continue
        wired.append(pickle.dumps([ingest._pending_to_wire(pending)],
                                  protocol=pickle.HIGHEST_PROTOCOL))
    if importer is not None:
        unwired = (ingest._pending_from_wire(item) for data in wired
                   for item in pickle.loads(data))
        for outcome in importer.store(unwired):
            assert outcome.status == "accepted", outcome
    return rounds


def stages(games: int) -> None:
    """Every import stage under callgrind; the instructions each adds, per round."""
    import_corpus(games + WARM)  # built before counting
    totals: dict[str, int] = {}
    rounds = 0
    for stage in IMPORT_STAGES:
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp) / "cg.out"
            run = subprocess.run(
                ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                 f"--callgrind-out-file={out}", sys.executable, __file__,
                 f"import:{stage}", "--games", str(games), "--warm", str(WARM)],
                capture_output=True, text=True, check=True,
                env={**os.environ, "PYTHONHASHSEED": "0"})  # the same hashes every run
        found = re.search(r"Collected\s*:\s*(\d+)", run.stderr) or re.search(
            r"refs:\s*([\d,]+)", run.stderr)
        assert found, run.stderr[-2000:]
        totals[stage] = int(found.group(1).replace(",", ""))
        got = re.search(r"(\d+) rounds", run.stderr)
        rounds = max(rounds, int(got.group(1)) if got else 0)
    print(f"recorder import, stage by stage: {games} games, {rounds} rounds "
          "(instructions per round, callgrind)")
    print(f"{'stage':<10} {'per round':>10} {'running total':>14}")
    before = totals["none"]
    for stage in IMPORT_STAGES[1:]:
        print(f"{stage:<10} {(totals[stage] - before) / rounds:>10,.0f} "
              f"{(totals[stage] - totals['none']) / rounds:>14,.0f}")
        before = totals[stage]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("work", nargs="?",
                    choices=["none", "replay", "analyse", "parse", "hash", "import",
                             "import-twice", *(f"import:{s}" for s in IMPORT_STAGES),
                             *(f"review:{v}" for v in REVIEW_WORK)])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5000, help="corpus of bench/replay.py")
    ap.add_argument("--warm", type=int, default=0,
                    help="import:STAGE under callgrind: that many lines first, uncounted")
    ap.add_argument("--stages", action="store_true",
                    help="run every import stage under callgrind and print the table")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.stages:
        stages(args.games)
        return 0
    if args.work is None:
        ap.error("name a workload, or --stages")
    if args.work.startswith("review:"):
        nodes = review_work(args.work.partition(":")[2])
        print(f"{args.work}: {nodes} positions", file=sys.stderr)
        return 0
    if args.work.startswith("import:"):
        rounds = run_import(args.work.partition(":")[2],
                            import_corpus(args.games + args.warm), args.warm)
        print(f"{args.work}: {args.games} games, {rounds} rounds", file=sys.stderr)
        return 0
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


#: ``review:NAME``: (ruleset, players, samples) of the decision it solves
REVIEW_WORK = {"maxn": ("classic", 4, 24), "bonus": ("all-fives", 2, 3)}


def review_work(name: str) -> int:
    """The player view of the first decision of a simulated round (``bench/review.py``'s
    first game), as the review solves it: the solver's cost per position, by
    ``callgrind_annotate --inclusive=yes cg.out | grep CPyDef_solver___estimate``."""
    from recorder.replay import MoveEvent, RoundStart, open_game, walk
    from recorder.simulate import simulate_game
    from recorder.solver import Seen, Solver, estimate

    ruleset, players, samples = REVIEW_WORK[name]
    doc = simulate_game(ruleset, players, "bench-review-0", game_id="g0", max_rounds=1)
    game = open_game(doc)
    solver = Solver(game.rules, players)
    seen: Any = None
    for event in walk(doc, game):
        if type(event) is RoundStart:
            seen = Seen(event.state)
        elif type(event) is MoveEvent:
            seat = event.move.player
            if len(event.state.legal_moves(seat)) > 1:
                estimate(solver, event.state, seat, seen, samples=samples,
                         seed=f"review/1/{event.move_no}")
                break
            seen.record(event.state, event.move)
    return solver.nodes


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
