#!/usr/bin/env python3
"""Fingerprint the engine's behaviour on every preset and option, to prove a change kept it.

For each entry of :data:`COMBOS` it simulates ``--games`` games (the simulator plays
through the engine, so its logs depend on every legal-move list), replays each one
as ``recorder replay --json`` does, and hashes the simulated JSON Lines and the
answers together; ``sample_games/*`` are replayed (answers and transcripts) and
hashed the same way. ``--write`` stores the digests, ``--check`` compares with the
stored ones and exits 1 on any difference, naming the entries that changed.

    python scripts/engine_fingerprint.py --games 100 --write   # before a change
    python scripts/engine_fingerprint.py --games 100 --check   # after it: identical?
    python scripts/engine_fingerprint.py --games 260 --compare # compiled == pure build?

``--compare`` computes the digests in this process (the compiled engine, when it is
built) and in a child run with ``RECORDER_PURE=1`` (the ``.py`` sources), and exits 1
unless every digest is the same: the two builds simulate and answer byte for byte alike.

The stored file keeps one set of digests per game count, so a quick test
(``tests/test_engine_fingerprint.py``, a few games each) and the full run share it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
STORE = ROOT / "tests" / "data" / "engine-fingerprint.json"

#: (preset, players, options, explicit deal): every preset, every option value
COMBOS: list[tuple[str, int, dict[str, Any], bool]] = [
    ("spilop", 2, {}, False),
    ("spilop", 3, {}, False),
    ("spilop", 4, {}, False),
    ("spilop", 3, {"bonus": True}, False),
    ("spilop", 4, {"bonus": True, "partnerships": True}, False),
    ("spilop", 4, {"sets": 2}, False),
    ("spilop", 3, {"sets": 2, "tie_break": "any", "bonus": True}, False),
    ("spilop", 2, {"spinner_arms": "after-sides", "bonus": True}, False),
    ("spilop", 2, {"max_pip": 9, "bonus": True, "bonus_multiple": 3}, False),
    ("spilop", 3, {"no_double": "redeal"}, True),
    ("spilop", 2, {"opening": "double-zero-first"}, False),
    ("classic", 2, {}, False),
    ("classic", 3, {}, True),
    ("classic", 4, {"partnerships": True}, False),
    ("classic", 2, {"draw": "one"}, False),
    ("classic", 3, {"draw": "none"}, False),
    ("classic", 2, {"no_double": "draw-for-double"}, True),
    ("classic", 2, {"no_double": "highest-tile"}, False),
    ("classic", 2, {"opening": "highest-tile"}, False),
    ("classic", 3, {"opening": "free"}, False),
    ("classic", 2, {"blocked_scoring": "fish"}, False),
    ("classic", 2, {"blocked_scoring": "negative", "target": 50}, False),
    ("classic", 3, {"blocked_scoring": "difference", "draw": "none"}, False),
    ("classic", 2, {"domino_scoring": "penalty", "target_mode": "reach-loses"}, False),
    ("classic", 2, {"max_pip": 12, "hand_size": 12}, False),
    ("classic", 3, {"stock_floor": 3, "bonus": True}, False),
    ("kozel", 2, {}, False),
    ("kozel", 3, {}, False),
    ("kozel", 4, {}, False),
    ("kozel", 4, {"partnerships": True}, True),
    ("kozel", 2, {"sets": 2, "hand_size": 9}, False),
    ("italian", 2, {}, False),
    ("italian", 3, {}, False),
    ("italian", 4, {}, False),
    ("italian", 2, {"bonus": True, "spinner": False}, False),
    ("italian", 4, {"partnerships": True, "draw": "until-playable"}, False),
    ("norwegian", 2, {}, False),
    ("norwegian", 2, {"stock_floor": 0, "blocked_scoring": "lowest-wins"}, True),
    ("norwegian", 2, {"draw": "one", "target": 60}, False),
]


def _digest_combo(preset: str, players: int, options: dict[str, Any], explicit: bool,
                  games: int) -> str:
    from recorder.replay import replay
    from recorder.simulate import simulate_game

    spec: str | dict[str, Any] = {"preset": preset, "options": options} if options else preset
    h = hashlib.sha256()
    for i in range(1, games + 1):
        seed = f"fp-{preset}-{players}-{i}"
        doc = simulate_game(spec, players, seed, game_id=seed, explicit_deal=explicit,
                            max_rounds=60)
        line = json.dumps(doc, ensure_ascii=False)
        h.update(line.encode())
        h.update(json.dumps(replay(json.loads(line)), ensure_ascii=False).encode())
    return h.hexdigest()


def _digest_samples() -> dict[str, str]:
    from recorder.cli import transcript
    from recorder.parse import iter_path
    from recorder.replay import invalid_answer, replay

    out = {}
    for path in sorted((ROOT / "sample_games").iterdir()):
        h = hashlib.sha256()
        for item in iter_path(str(path)):
            answer = replay(item.doc) if item.error is None else invalid_answer(
                item.doc, item.error)
            h.update(json.dumps(answer, ensure_ascii=False).encode())
            h.update(transcript(item.doc, answer, path.name).encode())
        out[f"sample_games/{path.name}"] = h.hexdigest()
    return out


def fingerprint(games: int, *, samples: bool = True) -> dict[str, str]:
    """Digest of every combo (and of the sample games) with ``games`` games each."""
    out: dict[str, str] = {}
    for preset, players, options, explicit in COMBOS:
        key = f"{preset} {players}p {json.dumps(options, sort_keys=True)}" + (
            " explicit" if explicit else "")
        out[key] = _digest_combo(preset, players, options, explicit, games)
    if samples:
        out.update(_digest_samples())
    return out


def compare(games: int) -> int:
    """This process's build against the pure-Python one, on the same games."""
    import os
    import subprocess
    import time

    import recorder

    started = time.perf_counter()
    here = fingerprint(games)
    mine = time.perf_counter() - started
    env = {**os.environ, "RECORDER_PURE": "1"}
    started = time.perf_counter()
    child = subprocess.run([sys.executable, __file__, "--games", str(games), "--print"],
                           env=env, capture_output=True, text=True, check=True)
    theirs = time.perf_counter() - started
    pure = json.loads(child.stdout)
    differ = sorted(k for k in here.keys() | pure.keys() if here.get(k) != pure.get(k))
    for k in differ:
        print(f"differs: {k}")
    print(f"{recorder.build_text()} ({mine:.1f} s) against the pure-Python engine "
          f"({theirs:.1f} s): {len(here) - len(differ)} of {len(here)} digests identical, "
          f"{len(COMBOS) * games} simulated games of {len(COMBOS)} presets and options "
          "plus sample_games")
    return 1 if differ else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true", help="store the digests")
    mode.add_argument("--check", action="store_true", help="compare with the stored digests")
    mode.add_argument("--compare", action="store_true",
                      help="compare this build's digests with the pure-Python engine's")
    mode.add_argument("--print", action="store_true", help="print the digests as JSON")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    if args.compare:
        return compare(args.games)
    got = fingerprint(args.games)
    if args.print:
        print(json.dumps(got, sort_keys=True))
        return 0
    stored = json.loads(STORE.read_text()) if STORE.exists() else {}
    key = str(args.games)
    if args.write:
        stored[key] = got
        STORE.parent.mkdir(parents=True, exist_ok=True)
        STORE.write_text(json.dumps(stored, indent=1, sort_keys=True) + "\n")
        print(f"stored {len(got)} digests for {args.games} games each ({len(COMBOS)} combos "
              f"= {len(COMBOS) * args.games} games, plus sample_games)")
        return 0
    want = stored.get(key)
    if want is None:
        print(f"no stored digests for --games {args.games}", file=sys.stderr)
        return 2
    changed = sorted(k for k in want if want[k] != got.get(k))  # new samples: not yet stored
    for k in changed:
        print(f"changed: {k}")
    print(f"{len(want) - len(changed)} of {len(want)} identical "
          f"({len(COMBOS) * args.games} simulated games)")
    return 1 if changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
