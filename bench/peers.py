"""Peer figures for the replay benchmark, measured on this machine in the same run.

A replay rate on its own says little: it moves with the machine and the Python build. So the
benchmark sets it beside two peers measured in the same process:

* the parse-only rate: the JSON library alone on the very bytes the replay reads (a replay
  cannot be faster than parsing its input, so this is the ceiling);
* the random-playout rate of third-party domino engines from PyPI (``dominoes``, and
  OpenSpiel's ``python_block_dominoes``): how fast an engine that only generates legal moves and
  applies them plays a round, with no log to check.

Run ``python bench/peers.py`` for the peer figures alone (see ``--help``). Each rate is the best
of ``repeat`` timed slices, as the replay figure is, so one noisy slice does not decide.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import random
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

OUT_DIR = Path(__file__).resolve().parent / "out"


def _version(dist: str) -> str:
    """The installed version of a distribution, so every figure names what it measured."""
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "?"


def _count_rounds_moves(docs: Iterable[dict[str, Any]]) -> tuple[int, int]:
    """Rounds and logged moves (plays, draws, passes) of domino-log/1 documents."""
    rounds = moves = 0
    for doc in docs:
        for rnd in doc.get("rounds") or ():
            rounds += 1
            moves += len(rnd.get("moves") or ())
    return rounds, moves


def _best_time(run: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` calls: the least disturbed run is the fairest figure."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - t0)
    return best


def json_parse_rate(docs_bytes: list[bytes], repeat: int = 3) -> dict[str, Any]:
    """Parse-only rates of ``docs_bytes`` (one JSON document each), the replay's ceiling.

    Returns ``{"docs", "rounds", "moves", "bytes", "parsers": {name: figures}}`` with, for
    ``json`` (stdlib ``json.loads``, the parser the replay uses) and ``orjson`` when importable,
    ``seconds`` (best of ``repeat``), ``docs_per_s``, ``rounds_per_s``, ``moves_per_s`` and
    ``mb_per_s``.
    """
    parsed = [json.loads(b) for b in docs_bytes]
    rounds, moves = _count_rounds_moves(parsed)
    del parsed
    nbytes = sum(len(b) for b in docs_bytes)
    loaders: dict[str, tuple[Callable[[bytes], Any], str]] = {
        "json": (json.loads, f"stdlib json (Python {sys.version.split()[0]})"),
    }
    try:
        import orjson

        loaders["orjson"] = (orjson.loads, f"orjson {_version('orjson')}")
    except ImportError:
        print("peers: orjson is not importable; skipping the orjson parse figure", file=sys.stderr)

    parsers: dict[str, dict[str, Any]] = {}
    for name, (loads, label) in loaders.items():

        def run(loads: Callable[[bytes], Any] = loads) -> None:
            for b in docs_bytes:
                loads(b)

        secs = _best_time(run, repeat)
        parsers[name] = {
            "label": label,
            "seconds": secs,
            "docs_per_s": len(docs_bytes) / secs,
            "rounds_per_s": rounds / secs,
            "moves_per_s": moves / secs,
            "mb_per_s": nbytes / secs / 1e6,
        }
    return {
        "docs": len(docs_bytes),
        "rounds": rounds,
        "moves": moves,
        "bytes": nbytes,
        "parsers": parsers,
    }


def _timed_slices(
    play_round: Callable[[], tuple[int, int]], seconds: float, repeat: int
) -> dict[str, Any]:
    """Play rounds for ``seconds`` split into ``repeat`` slices; report the best slice.

    ``play_round`` plays one complete round and returns (moves, passes) as counted for it.
    The clock is read once per round, which costs far less than a round.
    """
    slice_s = seconds / repeat
    best: dict[str, Any] | None = None
    total_rounds = 0
    for _ in range(repeat):
        rounds = moves = passes = 0
        t0 = time.perf_counter()
        now = t0
        while now - t0 < slice_s:
            m, p = play_round()
            rounds += 1
            moves += m
            passes += p
            now = time.perf_counter()
        elapsed = now - t0
        total_rounds += rounds
        fig = {
            "rounds": rounds,
            "moves": moves,
            "passes": passes,
            "seconds": elapsed,
            "rounds_per_s": rounds / elapsed,
            "moves_per_s": moves / elapsed,
            "moves_per_round": moves / rounds,
        }
        if best is None or fig["rounds_per_s"] > best["rounds_per_s"]:
            best = fig
    assert best is not None
    best["rounds_total"] = total_rounds
    return best


def dominoes_playout_rate(
    seconds: float = 3.0, repeat: int = 3, seed: int = 1
) -> dict[str, Any] | None:
    """Random-playout rate of the PyPI ``dominoes`` engine; None when it is not installed.

    Its rules (``dominoes.Game``): 4 players, double-six, all 28 tiles dealt (7 each, no
    boneyard, so no draws), the holder of 6-6 opens with it, two-end line (no spinner), a
    player who cannot play passes (the engine logs the pass), the round ends on domino or when
    stuck. A round is ``Game.new(starting_domino=6-6)`` played with uniformly random legal moves
    until ``game.result`` is set. Moves = ``len(game.moves)``: plays (the opening 6-6 included)
    plus logged passes, the same way our logs count them.
    """
    try:
        import dominoes
    except ImportError:
        print(
            "peers: package 'dominoes' is not installed (pip install dominoes); skipping",
            file=sys.stderr,
        )
        return None

    rng = random.Random(seed)
    random.seed(seed)  # Game.new shuffles with the global random module
    opening = dominoes.Domino(6, 6)
    new_game = dominoes.Game.new
    choice = rng.choice

    def play_round() -> tuple[int, int]:
        game = new_game(starting_domino=opening)
        while game.result is None:
            game.make_move(*choice(game.valid_moves))
        moves = game.moves
        return len(moves), moves.count(None)

    fig = _timed_slices(play_round, seconds, repeat)
    fig["engine"] = f"dominoes {_version('dominoes')}"
    fig["rules"] = "4 players, 7 tiles each, no boneyard, 6-6 opens, passes logged"
    return fig


def openspiel_playout_rate(
    seconds: float = 3.0,
    repeat: int = 3,
    seed: int = 1,
    game_name: str = "python_block_dominoes",
) -> dict[str, Any] | None:
    """Random-playout rate of OpenSpiel's pure-Python block dominoes; None when missing.

    Its rules (``open_spiel/python/games/block_dominoes.py``): 2 players, double-six, 7 tiles
    each, the other 14 never drawn, player 0 opens with any tile, two-end line, a player who
    cannot play is skipped with no action (no pass in the history), the round ends on domino or
    when both are blocked. A round is ``game.new_initial_state()`` played to ``is_terminal()``:
    the 14 deal actions are chance outcomes drawn uniformly, the plays are uniformly random
    legal actions. Moves = plays only (deal actions are not counted; passes do not exist).
    ``game_name="python_team_dominoes"`` gives the 4-player partnership variant.
    """
    try:
        import pyspiel
        from open_spiel.python.games import (  # noqa: F401  (registers the Python games)
            block_dominoes,
            team_dominoes,
        )
    except ImportError:
        print(
            "peers: package 'open-spiel' is not installed (pip install open-spiel); skipping",
            file=sys.stderr,
        )
        return None

    game = pyspiel.load_game(game_name)
    rng = random.Random(seed)
    choice = rng.choice

    def play_round() -> tuple[int, int]:
        state = game.new_initial_state()
        plays = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                plays += 1
        return plays, 0

    fig = _timed_slices(play_round, seconds, repeat)
    fig["engine"] = f"open-spiel {_version('open_spiel')} {game_name}"
    if game_name == "python_block_dominoes":
        fig["rules"] = "2 players, 7 tiles each, no drawing, passes implicit (not counted)"
    else:
        fig["rules"] = "4 players, 7 tiles each, no boneyard, passes implicit (not counted)"
    return fig


def _default_corpus() -> Path | None:
    """The newest corpus that bench/replay.py cached, if any."""
    found = sorted(OUT_DIR.glob("corpus-*.jsonl"), key=lambda p: p.stat().st_mtime)
    return found[-1] if found else None


def read_jsonl(path: Path) -> list[bytes]:
    """The non-empty lines of a JSON Lines file, as bytes (what json.loads gets per game)."""
    return [line for line in path.read_bytes().split(b"\n") if line.strip()]


def main(argv: list[str] | None = None) -> int:
    """Print the peer figures; parse-only needs a corpus (``--corpus`` or bench/out/)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, help="JSON Lines file (default: newest bench/out/)")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per playout peer")
    ap.add_argument("--repeat", type=int, default=3, help="timed slices; the best is kept")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)

    out: dict[str, Any] = {}
    corpus = args.corpus or _default_corpus()
    if corpus is None:
        print(
            "peers: no corpus (run bench/replay.py once, or pass --corpus); no parse figure",
            file=sys.stderr,
        )
    else:
        out["corpus"] = str(corpus)
        out["parse"] = json_parse_rate(read_jsonl(corpus), args.repeat)
    out["dominoes"] = dominoes_playout_rate(args.seconds, args.repeat, args.seed)
    out["openspiel"] = openspiel_playout_rate(args.seconds, args.repeat, args.seed)

    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    if "parse" in out:
        p = out["parse"]
        print(f"corpus {corpus}: {p['docs']} docs, {p['rounds']} rounds, {p['moves']} moves")
        for fig in p["parsers"].values():
            print(
                f"  parse-only {fig['label']:<42} {fig['rounds_per_s']:>12,.0f} rounds/s "
                f"{fig['moves_per_s']:>14,.0f} moves/s {fig['mb_per_s']:>8.1f} MB/s"
            )
    for key in ("dominoes", "openspiel"):
        fig = out[key]
        if fig is not None:
            print(
                f"  playout {fig['engine']:<45} {fig['rounds_per_s']:>12,.0f} rounds/s "
                f"{fig['moves_per_s']:>14,.0f} moves/s ({fig['moves_per_round']:.1f} "
                f"moves/round; {fig['rules']})"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
