"""Review benchmark: the solver's speed, each technique's effect, a round's and a game's review.

    python bench/review.py [--games 3] [--json] [--pure] [--only VARIANT]

1. **Techniques** (perfect view): the first decisions of 2-player rounds, block
   (``openspiel-block``: no drawing, 7 tiles each) and drawing (``classic``: 14 tiles to
   draw from), each valued by the solver with every technique in turn: memoized minimax,
   alpha-beta alone, alpha-beta and the transposition table, move ordering besides, and
   the default (the stock in the key, the bonus so far only while the target is in
   reach, a last tile on several ends searched once, principal variation search, and for
   max^n the mirror fold where no tie decides). Positions searched and seconds,
   the same values asserted. Then the player view (the default samples) of the first
   decisions of an ``all-fives`` 2-player and a ``classic`` 4-player round, with move
   ordering alone and with the default: there the stock in the key shares the table
   across the sampled deals.
2. **Positions per second** of the default technique, perfect view.
Times are the process's CPU seconds (``time.process_time``): the machine is shared, and
the wall clock of a loaded machine measures the others' work too; the load average at
the start and the end is printed.

3. **A round's and a game's review** (player view, the default samples) by preset and
   player count: the seconds of each round of the first two rounds of ``--games``
   simulated games, and a whole game's (the mean round times the mean rounds of a
   simulated game). Each round twice, side by side: in this process (its CPU seconds),
   and with its decisions valued by one worker a core as ``recorder review`` values
   them (the wall clock, the pool's start included; the same object asserted), which
   is what the targets are checked on (2-player block round < 1 s, 2-player drawing
   round < 5 s, 4-player round < 20 s).

Which build runs is printed (compiled or pure: ``RECORDER_PURE=1``); ``--pure`` runs the
same again in the pure build, in a child process, and prints both side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import recorder  # noqa: E402
from recorder.cli_review import review_round_by  # noqa: E402
from recorder.pool import default_workers  # noqa: E402
from recorder.replay import MoveEvent, RoundStart, open_game, walk  # noqa: E402
from recorder.review import DEFAULT_SAMPLES, Settings, plan_review, review_round  # noqa: E402
from recorder.rules import Ruleset  # noqa: E402
from recorder.simulate import simulate_game  # noqa: E402
from recorder.solver import Seen, Solver, estimate  # noqa: E402

TECHNIQUES = ("minimax", "alphabeta", "table", "ordering", "full")
#: the player view's techniques compared: without and with the last three
SAMPLED = ("ordering", "full")
#: (label, ruleset, players, target seconds per round or None)
ROUNDS: list[tuple[str, Any, int, float | None]] = [
    ("openspiel-block 2p (no drawing)", "openspiel-block", 2, 1.0),
    ("classic 2p (drawing)", "classic", 2, 5.0),
    ("norwegian 2p (drawing, floor 2)", "norwegian", 2, 5.0),
    ("all-fives 2p (spinner, bonus)", "all-fives", 2, 5.0),
    ("kozel 3p", "kozel", 3, None),
    ("classic 4p", "classic", 4, 20.0),
    ("openspiel-team 4p (partners)", "openspiel-team", 4, 20.0),
]


def build() -> str:
    return "pure" if os.environ.get("RECORDER_PURE") == "1" else recorder.build_text()


def first_decisions(ruleset: Any, players: int, games: int, per_game: int) -> list[Any]:
    """(state, seat) of the first decisions of each game's first round."""
    out = []
    for g in range(games):
        doc = simulate_game(ruleset, players, f"bench-review-{g}", game_id=f"g{g}",
                            max_rounds=1)
        found = 0
        for event in walk(doc, open_game(doc)):
            if type(event) is MoveEvent and found < per_game:
                seat = event.move.player
                if len(event.state.legal_moves(seat)) > 1:
                    out.append((event.state.copy(), seat))
                    found += 1
    return out


def techniques(games: int) -> list[dict[str, Any]]:
    rows = []
    for label, ruleset, per_game in (("block 2p, 7 tiles", "openspiel-block", 2),
                                     ("classic 2p, drawing", "classic", 1)):
        rules = Ruleset.from_spec(ruleset)
        positions = first_decisions(ruleset, 2, games, per_game)
        reference = None
        for technique in TECHNIQUES:
            solver = Solver(rules, 2, technique=technique)
            values = []
            start = time.process_time()
            for state, seat in positions:
                solver.clear()
                values.append(solver.values(state, seat))
            seconds = time.process_time() - start
            if reference is None:
                reference = values
            assert values == reference, f"{technique} disagrees on {label}"
            rows.append({"positions": label, "decisions": len(positions),
                         "technique": technique, "nodes": solver.nodes,
                         "seconds": round(seconds, 3),
                         "nodes_per_second": round(solver.nodes / seconds) if seconds else 0})
    return rows


def sampled(decisions: int) -> list[dict[str, Any]]:
    """The player view (the default samples, as a review seeds them) of the first
    decisions of a round, by technique: the same values asserted."""
    rows = []
    for label, ruleset, players in (("all-fives 2p", "all-fives", 2),
                                    ("classic 4p", "classic", 4)):
        doc = simulate_game(ruleset, players, "bench-review-0", game_id="g0", max_rounds=1)
        reference = None
        for technique in SAMPLED:
            game = open_game(doc)
            solver = Solver(game.rules, players, technique=technique)
            seen: Seen | None = None
            found: list[Any] = []
            start = time.process_time()
            for event in walk(doc, game):
                if type(event) is RoundStart:
                    seen = Seen(event.state)
                elif type(event) is MoveEvent and seen is not None:
                    seat = event.move.player
                    if len(event.state.legal_moves(seat)) > 1 and len(found) < decisions:
                        est = estimate(solver, event.state, seat, seen,
                                       samples=DEFAULT_SAMPLES,
                                       seed=f"review/1/{event.move_no}")
                        found.append(None if est is None else (est.values, est.samples))
                    seen.record(event.state, event.move)
            seconds = time.process_time() - start
            if reference is None:
                reference = found
            assert found == reference, f"{technique} disagrees on {label}"
            rows.append({"positions": label, "decisions": len(found), "technique": technique,
                         "nodes": solver.nodes, "seconds": round(seconds, 3)})
            print("  " + json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def rounds_per_game(ruleset: Any, players: int, games: int = 5) -> float:
    """The mean number of rounds of a whole simulated game (cheap: no review)."""
    return statistics.mean(
        len(simulate_game(ruleset, players, f"bench-length-{g}", game_id="x")["rounds"])
        for g in range(games))


def reviews(games: int, samples: int, which: list[tuple[str, Any, int, float | None]],
            ) -> list[dict[str, Any]]:
    rows = []
    settings = Settings(view="player", samples=samples)
    workers = default_workers()
    for label, ruleset, players, target in which:
        print(f"  reviewing {label} ...", file=sys.stderr, flush=True)
        round_seconds: list[float] = []
        wall_seconds: list[float] = []
        decisions = 0
        samples_used: list[int] = []
        for g in range(games):
            doc = simulate_game(ruleset, players, f"bench-review-{g}", game_id=f"g{g}",
                                max_rounds=2)
            plan = plan_review(doc)
            for r in range(1, len(plan.before) + 1):
                start = time.process_time()
                out = review_round(doc, r, settings, skip=plan.before[r - 1])
                round_seconds.append(time.process_time() - start)
                decisions += len(out["decisions"])
                samples_used += [d["samples"] for d in out["decisions"]]
                start = time.perf_counter()
                by = review_round_by(doc, plan, r, settings, workers)
                wall_seconds.append(time.perf_counter() - start)
                assert by == out, f"{label}: round {r} by {workers} workers differs"
        length = rounds_per_game(ruleset, players)
        mean = statistics.mean(round_seconds)
        wall = statistics.mean(wall_seconds)
        rows.append({
            "variant": label, "players": players, "rounds": len(round_seconds),
            "decisions": decisions,
            "mean_samples": round(statistics.mean(samples_used), 1) if samples_used else 0,
            "round_mean_s": round(mean, 3),
            "round_max_s": round(max(round_seconds), 3),
            "rounds_per_game": round(length, 1),
            "game_s": round(mean * length, 2),
            "workers": workers,
            "wall_mean_s": round(wall, 3),
            "wall_max_s": round(max(wall_seconds), 3),
            "target_s": target,
            "meets_one_core": None if target is None else max(round_seconds) < target,
            "meets": None if target is None else max(wall_seconds) < target,
        })
        print("  " + json.dumps(rows[-1]), file=sys.stderr, flush=True)
    return rows


def measure(games: int, samples: int, quick: bool, only: list[str] | None = None,
            ) -> dict[str, Any]:
    print(f"build {build()}: techniques ...", file=sys.stderr, flush=True)
    tech = techniques(games)
    for row in tech:
        print("  " + json.dumps(row), file=sys.stderr, flush=True)
    full = [r for r in tech if r["technique"] == "full"]
    rate = sum(r["nodes"] for r in full) / sum(r["seconds"] for r in full)
    print("  player view, by technique ...", file=sys.stderr, flush=True)
    view = [] if quick else sampled(3)
    return {"build": build(), "techniques": tech, "positions_per_second": round(rate),
            "sampled": view,
            "reviews": reviews(games, samples, ROUNDS[:1] if quick else
                               [r for r in ROUNDS if not only
                                or any(r[0].startswith(x) for x in only)]),
            "samples": samples}


def show(result: dict[str, Any]) -> None:
    """The figures of one build as tables."""
    print(f"== build: {result['build']}")
    print("techniques (perfect view, first decisions of each game's first round):")
    print(f"  {'positions':22} {'technique':10} {'decisions':>9} {'nodes':>10} {'seconds':>8} "
          f"{'nodes/s':>9}")
    for r in result["techniques"]:
        print(f"  {r['positions']:22} {r['technique']:10} {r['decisions']:9} {r['nodes']:10} "
              f"{r['seconds']:8.3f} {r['nodes_per_second']:9}")
    print(f"positions per second (full technique): {result['positions_per_second']}")
    if result.get("sampled"):
        print("techniques (player view, up to the default samples, first decisions of a round):")
        for r in result["sampled"]:
            print(f"  {r['positions']:22} {r['technique']:10} {r['decisions']:9} "
                  f"{r['nodes']:10} {r['seconds']:8.3f}")
    print(f"review of a round, player view, up to {result['samples']} samples a decision:")
    print(f"  {'':34} {'':6} {'':6} {'':7} {'one process, CPU s':>23} "
          f"{'workers, wall s':>23}")
    print(f"  {'variant':34} {'rounds':>6} {'decis.':>6} {'samples':>7} {'mean s':>7} "
          f"{'max s':>7} {'game s':>7} {'workers':>7} {'mean s':>7} {'max s':>7} "
          f"{'target (wall)':>13}")
    for r in result["reviews"]:
        target = "-" if r["target_s"] is None else \
            f"<{r['target_s']:g} {'ok' if r['meets'] else 'MISS'}"
        print(f"  {r['variant']:34} {r['rounds']:6} {r['decisions']:6} {r['mean_samples']:7} "
              f"{r['round_mean_s']:7.3f} {r['round_max_s']:7.3f} "
              f"{r['game_s']:7.2f} {r['workers']:7} {r['wall_mean_s']:7.3f} "
              f"{r['wall_max_s']:7.3f} {target:>13}")
    print("  (game s: the mean round times the mean rounds of a whole game: "
          + ", ".join(f"{r['rounds_per_game']:g}" for r in result["reviews"]) + "; "
          "workers: the round's decisions valued side by side, as `recorder review` "
          "values them, the same object asserted)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--samples", type=int, default=DEFAULT_SAMPLES)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--quick", action="store_true",
                        help="review the 2-player block rounds only")
    parser.add_argument("--only", action="append", default=[], metavar="VARIANT",
                        help='review only the variants whose label starts so, e.g. '
                             '"classic 4p" (repeatable)')
    parser.add_argument("--pure", action="store_true",
                        help="also run the pure build (a child process) and print both")
    args = parser.parse_args()
    load = os.getloadavg()
    results = [measure(args.games, args.samples, args.quick, args.only)]
    if args.pure:
        child = subprocess.run(
            [sys.executable, __file__, "--games", str(args.games), "--samples",
             str(args.samples), "--json", "--quick"], env={**os.environ, "RECORDER_PURE": "1"},
            capture_output=True, text=True, check=True)
        results.append(json.loads(child.stdout))
    if args.json:
        print(json.dumps(results[0] if len(results) == 1 else results))
        return
    print(f"load average at the start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, "
          f"{os.cpu_count()} cores")
    for result in results:
        show(result)
    if len(results) == 2:
        c, p = results
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")
        print(f"compiled / pure, positions per second: "
              f"{c['positions_per_second'] / max(1, p['positions_per_second']):.1f}x")


if __name__ == "__main__":
    main()
