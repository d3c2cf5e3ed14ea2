#!/usr/bin/env python3
"""What recording an engine's games costs, next to what the engine takes to play them.

For each engine (``pip install -e '.[engines]'``) it plays ``--games`` seeded games
with the engine itself, converts them with ``recorder.adapters`` and replays the
converted documents from their JSON, timing the three apart, and prints games/s and
rounds/s for each with the ratio of the recorder's time (convert + replay) to the
engine's own playing time (CPU time of this process, steadier than the wall clock on a
shared machine):

    python bench/engines.py --games 300
    python bench/engines.py --games 300 --json

Every replayed game is checked: finished, no claimed figure differs.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from recorder.replay import replay


def _openspiel(name: str) -> tuple[Callable[[str], Any], Callable[[Any], dict[str, Any]]]:
    from recorder.adapters import openspiel

    return (lambda seed: openspiel.play(name, seed)), openspiel.state_to_log


def _dominoes() -> tuple[Callable[[str], Any], Callable[[Any], dict[str, Any]]]:
    from recorder.adapters import dominoes_game

    return dominoes_game.play_game, dominoes_game.game_to_log


def _all_fives() -> tuple[Callable[[str], Any], Callable[[Any], dict[str, Any]]]:
    from recorder.adapters import all_fives

    return (lambda seed: all_fives.play(seed, target=61)), (
        lambda played: all_fives.game_to_log(*played))


ENGINES: dict[str, Callable[[], tuple[Callable[[str], Any], Callable[[Any], dict[str, Any]]]]] = {
    "openspiel block": lambda: _openspiel("python_block_dominoes"),
    "openspiel team": lambda: _openspiel("python_team_dominoes"),
    "dominoes (one hand)": _dominoes,
    "all-fives (to 61)": _all_fives,
}


def measure(name: str, games: int) -> dict[str, Any]:
    play, convert = ENGINES[name]()
    t0 = time.process_time()
    played = [play(f"bench-{i}") for i in range(games)]
    t1 = time.process_time()
    lines = [json.dumps(convert(p)) for p in played]
    t2 = time.process_time()
    answers = [replay(json.loads(line)) for line in lines]
    t3 = time.process_time()
    for a in answers:
        assert a["status"] == "finished" and "mismatches" not in a, a
    rounds = sum(len(a["rounds"]) for a in answers)
    return {"engine": name, "games": games, "rounds": rounds,
            "play_s": t1 - t0, "convert_s": t2 - t1, "replay_s": t3 - t2}


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    rows = [measure(name, args.games) for name in ENGINES]
    if args.json:
        print(json.dumps(rows, indent=1))
        return 0
    print(f"{'engine':22} {'games':>6} {'rounds':>7} {'play g/s':>9} {'convert g/s':>12} "
          f"{'replay r/s':>11} {'recorder/engine':>16}")
    for r in rows:
        ratio = (r["convert_s"] + r["replay_s"]) / r["play_s"]
        print(f"{r['engine']:22} {r['games']:6} {r['rounds']:7} "
              f"{r['games'] / r['play_s']:9.0f} {r['games'] / r['convert_s']:12.0f} "
              f"{r['rounds'] / r['replay_s']:11.0f} {ratio:15.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
