"""The review of every sample game, whole: positions and CPU seconds per round, by file.

    python bench/review_samples.py [--view perfect|player] [--samples N] [--workers 2]
                                   [--positions N] [--round-positions N] [FILE...]

Every game of ``sample_games/`` (or the FILEs), every round, reviewed with the given
settings (the review's defaults unless told), one round a job over ``--workers``
processes. Per file: games, rounds, decisions, decisions left unvalued (and why), the
positions the largest round and the largest decision searched, and the CPU seconds of
the rounds (``time.process_time`` in the workers: the machine is shared, and the wall
clock of a loaded machine counts the others' work too). The wall clock of the whole run
and the load average at its start and end are printed beside them.

What it is for: choosing the limits (``recorder.review.ROUND_POSITIONS``: no sample round
may reach it with the default settings) and the settings of the test that reviews every
sample game within the suite's time budget (tests/test_review_samples.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from multiprocessing import Pool
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import recorder  # noqa: E402
from recorder.parse import iter_path  # noqa: E402
from recorder.review import (  # noqa: E402
    DECISION_POSITIONS,
    DEFAULT_SAMPLES,
    MAX_DECISIONS,
    ROUND_POSITIONS,
    Settings,
    plan_review,
    round_work,
)

_settings = Settings()


def _start(settings: Settings) -> None:
    global _settings
    _settings = settings


def _job(item: tuple[str, Any, int, int]) -> dict[str, Any]:
    name, doc, round_no, skip = item
    started = time.process_time()
    review, nodes = round_work(doc, round_no, _settings, skip=skip)
    return {
        "file": name,
        "round": round_no,
        "positions": nodes,
        "cpu": time.process_time() - started,
        "decisions": len(review["decisions"]),
        "unvalued": [d["unvalued"] for d in review["decisions"] if d["class"] is None],
    }


def jobs(
    paths: list[Path], most: int = 0
) -> tuple[list[tuple[str, Any, int, int]], dict[str, int]]:
    """One job a round of every game the engine reads; and the games of each file."""
    out = []
    games: dict[str, int] = {}
    for path in paths:
        for item in iter_path(str(path)):
            if item.error is not None:
                continue
            games[path.name] = games.get(path.name, 0) + 1
            plan = plan_review(item.doc)
            for r, skip in enumerate(plan.before[:most] if most else plan.before, 1):
                out.append((path.name, item.doc, r, skip))
    return out, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--view", choices=("player", "perfect"), default="player")
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--positions", type=int, default=DECISION_POSITIONS)
    parser.add_argument("--round-positions", type=int, default=ROUND_POSITIONS)
    parser.add_argument("--decisions", type=int, default=MAX_DECISIONS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument(
        "--rounds",
        type=int,
        default=0,
        help="only the first N rounds of each game (0: every round)",
    )
    parser.add_argument(
        "--json", action="store_true", help="one JSON line per round too, as each is done"
    )
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()
    settings = Settings(
        view=args.view,
        samples=args.samples,
        positions=args.positions,
        round_positions=args.round_positions,
        max_decisions=args.decisions,
    )
    paths = args.files or sorted((ROOT / "sample_games").glob("*.json*"))
    load = os.getloadavg()
    wall = time.monotonic()
    todo, games = jobs(paths, args.rounds)
    # the files in turn, a round of each, so that a run stopped early has measured all
    order = sorted(range(len(todo)), key=lambda i: (todo[i][2], todo[i][0]))
    rows = []
    with Pool(args.workers, initializer=_start, initargs=(settings,)) as pool:
        for row in pool.imap_unordered(_job, [todo[i] for i in order], chunksize=1):
            rows.append(row)
            if args.json:
                print(json.dumps(row), flush=True)
    wall = time.monotonic() - wall
    print(f"{recorder.build_text()}; {settings}")
    print(
        f"load average at the start {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
        f"at the end {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    print(
        "| file | games | rounds | decisions | unvalued | largest round (positions) "
        "| CPU s (sum / largest round) |"
    )
    print("|---|---|---|---|---|---|---|")
    by: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by.setdefault(row["file"], []).append(row)
    for name in sorted(by):
        rs = by[name]
        unvalued = [w for r in rs for w in r["unvalued"]]
        why = ", ".join(f"{unvalued.count(w)} {w}" for w in sorted(set(unvalued)))
        print(
            f"| {name} | {games[name]} | {len(rs)} | {sum(r['decisions'] for r in rs)} "
            f"| {len(unvalued)}{f' ({why})' if why else ''} "
            f"| {max(r['positions'] for r in rs):,} "
            f"| {sum(r['cpu'] for r in rs):.1f} / {max(r['cpu'] for r in rs):.1f} |"
        )
    print(
        f"all: {len(rows)} rounds, {sum(r['decisions'] for r in rows)} decisions, "
        f"largest round {max(r['positions'] for r in rows):,} positions, "
        f"CPU {sum(r['cpu'] for r in rows):.1f} s, wall {wall:.1f} s "
        f"with {args.workers} workers"
    )


if __name__ == "__main__":
    main()
