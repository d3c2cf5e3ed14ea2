"""Write the deal and board test vectors of this folder from the replay engine.

    python schemas/vectors/generate.py          # rewrites deal-*.json and boards-*.json

The vectors are the contract: once committed they do not change, and
``tests/test_vectors.py`` holds the engine (and ``clients/js`` holds the
JavaScript library) to the committed files, never to a fresh run of this script.
Run it only to add vectors, and read the diff: a changed line of an existing
vector is a changed contract. ``shuffle-sha256-fy-1.json`` is not written here:
it is the published shuffle contract, kept by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from recorder.deal import deal_of  # noqa: E402
from recorder.engine import END_NAMES, Move  # noqa: E402
from recorder.replay import MoveEvent, RoundEnd, RoundStart, open_game, walk  # noqa: E402
from recorder.rules import PRESETS, Ruleset  # noqa: E402
from recorder.simulate import simulate_game  # noqa: E402

ALGORITHM = "sha256-fy-1"


# ---------------------------------------------------------------------- deals
def _deal(preset: str, options: dict[str, Any], players: int, game_seed: str,
          round_no: int, why: str) -> dict[str, Any]:
    rules = Ruleset.from_spec({"preset": preset, "options": options})
    dealt = deal_of(rules, players, f"{game_seed}/{round_no}")
    return {"why": why, "preset": preset, "options": options, "players": players,
            "game_seed": game_seed, "round": round_no,
            **{k: v for k, v in dealt.items() if k not in ("preset", "players")}}


def _first(preset: str, options: dict[str, Any], players: int, prefix: str,
           test: Any) -> str:
    """The first game seed ``prefix-i`` whose round 1 deal passes ``test``."""
    rules = Ruleset.from_spec({"preset": preset, "options": options})
    for i in range(20000):
        seed = f"{prefix}-{i}"
        if test(deal_of(rules, players, f"{seed}/1")):
            return seed
    raise SystemExit(f"no seed for {prefix} in 20000 tries")


#: the presets of the first vectors, in their order; later presets are appended after
#: the special cases, so that adding vectors never moves the published ones
FIRST = ("spilop", "classic", "kozel", "italian", "norwegian")


def _per_player_count(preset: str) -> list[dict[str, Any]]:
    rules = PRESETS[preset]
    return [_deal(preset, {}, n, f"vector-{preset}", r, f"{preset}, {n} players, round {r}")
            for n in range(rules.min_players, rules.max_players + 1) for r in (1, 2)]


def deals() -> list[dict[str, Any]]:
    out = []
    for preset in FIRST:
        out += _per_player_count(preset)
    out.append(_deal("spilop", {"sets": 2}, 4, "vector-two-sets", 1,
                     "two sets: the canonical order twice; 7 tiles each with 4 players"))
    lot = _first("spilop", {"sets": 2}, 3, "vector-lot", lambda d: d["lot"] is not None)
    out.append(_deal("spilop", {"sets": 2}, 3, lot, 1,
                     "two sets, several players hold the highest double: a lot right "
                     "after the deal"))
    redeal = _first("classic", {}, 2, "vector-redeal", lambda d: d["redeals"] > 0)
    out.append(_deal("classic", {}, 2, redeal, 1,
                     "classic, nobody holds a double: shuffle the canonical order again "
                     "with the same stream"))
    redeal3 = _first("classic", {}, 3, "vector-redeal", lambda d: d["redeals"] > 0)
    out.append(_deal("classic", {}, 3, redeal3, 1, "classic, 3 players, a redeal"))
    drawing = _first("spilop", {}, 2, "vector-no-double",
                     lambda d: d["opens"]["draw_for_double"])
    out.append(_deal("spilop", {}, 2, drawing, 1,
                     "spilop, nobody holds a double: the players draw in turn from seat 0"))
    out.append(_deal("kozel", {"max_pip": 9}, 4, "vector-double-nine", 1,
                     "double-nine: 55 tiles in canonical order"))
    zero = _first("kozel", {}, 3, "vector-zero", lambda d: d["opens"]["tile"] == "0-0")
    out.append(_deal("kozel", {}, 3, zero, 1, "kozel: the holder of 0-0 opens with it"))
    out.append(_deal("classic", {"hand_size": 6}, 3, "vector-hand-size", 1,
                     "hand_size changes the slices"))
    for preset in PRESETS:
        if preset not in FIRST:
            out += _per_player_count(preset)
    everyone = _first("all-fives", {}, 2, "vector-everyone-draws",
                      lambda d: d["opens"]["draw_for_double"])
    out.append(_deal("all-fives", {}, 2, everyone, 1,
                     "no_double everyone-draws-for-double, nobody holds a double: each player "
                     "draws one tile a turn, from seat 0, until someone holds a double"))
    ordered = _first("all-fives", {}, 2, "vector-double-order",
                     lambda d: d["opens"]["tile"] not in (None, "6-6", "5-5"))
    out.append(_deal("all-fives", {}, 2, ordered, 1,
                     "double_order [5, 1, 2, 3, 4, 6, 0]: the first double of that order "
                     "that a hand holds opens"))
    return out


# ---------------------------------------------------------------------- boards
GAMES: list[tuple[str, dict[str, Any], int, str]] = [
    ("spilop", {"bonus": True, "target": 60}, 2, "vector-board-spilop-1"),
    ("spilop", {"bonus": True, "target": 60}, 3, "vector-board-spilop-2"),
    ("spilop", {"bonus": True, "target": 60, "spinner_arms": "after-sides"}, 2,
     "vector-board-spilop-3"),
    ("spilop", {"bonus": True, "target": 60, "sets": 2}, 4, "vector-board-spilop-4"),
    ("classic", {"bonus": True, "target": 60}, 2, "vector-board-classic-1"),
    ("classic", {"bonus": True, "target": 60}, 3, "vector-board-classic-2"),
    ("kozel", {"bonus": True, "target": 60}, 2, "vector-board-kozel-1"),
    ("kozel", {"bonus": True, "target": 60}, 4, "vector-board-kozel-2"),
    ("italian", {"bonus": True, "target": 60}, 2, "vector-board-italian-1"),
    ("italian", {"bonus": True, "target": 60, "bonus_multiple": 3}, 3,
     "vector-board-italian-2"),
    ("norwegian", {"bonus": True, "target": 60}, 2, "vector-board-norwegian-1"),
    ("norwegian", {"bonus": True, "target": 60}, 2, "vector-board-norwegian-2"),
    ("openspiel-block", {"bonus": True}, 2, "vector-board-openspiel-block-1"),
    ("openspiel-team", {"bonus": True}, 4, "vector-board-openspiel-team-1"),
    ("dominoes-partners", {"bonus": True, "target": 60}, 4, "vector-board-dominoes-partners-1"),
    ("all-fives", {"target": 60}, 2, "vector-board-all-fives-1"),
    ("all-fives", {"target": 60}, 2, "vector-board-all-fives-2"),
    ("all-fives", {"target": 60, "spinner_max_arms": 4}, 2, "vector-board-all-fives-3"),
]


def board_steps(doc: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """Per round, per play: where the tile went, the open ends, the sum, the bonus scored."""
    game = open_game(doc)
    rounds: list[list[dict[str, Any]]] = []
    pending: tuple[int, Move, int] | None = None

    def close(state: Any) -> None:
        nonlocal pending
        if pending is None:
            return
        m, move, before = pending
        pending = None
        if move.action != "play":
            return
        end = state.board[-1][2]
        rounds[-1].append({
            "move": m, "tile": move.tile, "end": None if end < 0 else END_NAMES[end],
            **({"closed": True} if getattr(move, "closed", False) else {}),
            "ends": state.open_ends(), "sum": state.open_end_sum(),
            "bonus": state.bonus[move.player] - before,
        })

    for event in walk(doc, game):
        close(event.state)
        if type(event) is RoundStart:
            rounds.append([])
        elif type(event) is MoveEvent:
            pending = (event.move_no, event.move, event.state.bonus[event.move.player])
        elif type(event) is RoundEnd:
            pass
    return rounds


def boards() -> list[dict[str, Any]]:
    out = []
    for preset, options, players, seed in GAMES:
        spec = {"preset": preset, "options": options}
        doc = simulate_game(spec, players, seed, game_id=seed, frontend="vectors")
        out.append({"log": doc, "plays": board_steps(doc)})
    return out


def write(name: str, about: str, key: str, items: list[dict[str, Any]]) -> None:
    lines = ["{", f' "algorithm": "{ALGORITHM}",', f" \"about\": {json.dumps(about)},",
             f' "{key}": [']
    lines.append(",\n".join("  " + json.dumps(item, ensure_ascii=False) for item in items))
    lines += [" ]", "}", ""]
    (HERE / name).write_text("\n".join(lines), encoding="utf-8")


def main() -> None:
    write("deal-sha256-fy-1.json",
          "The deals the recorder makes from round seeds: hands, boneyard, redeals, lot and "
          "who opens, per preset and player count. Fields are explained in README.md here.",
          "deals", deals())
    write("boards-sha256-fy-1.json",
          "Whole games with, for every play, the end it went to, the open ends after it, the "
          "open-end sum and the bonus it scored. Fields are explained in README.md here.",
          "games", boards())


if __name__ == "__main__":
    main()
