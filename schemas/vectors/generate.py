"""Write the deal and board test vectors of this folder from the replay engine.

    python schemas/vectors/generate.py    # rewrites deal-*.json, boards-*.json, rounds-*.json

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
from recorder.errors import IllegalMove, RulesetError  # noqa: E402
from recorder.replay import (  # noqa: E402
    MoveEvent,
    RoundEnd,
    RoundStart,
    number,
    open_game,
    replay,
    round_answer,
    walk,
)
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


# ---------------------------------------------------------------------- rounds
#: whole games for the round vectors: every preset, and the options that change how a
#: round goes (draw rules, stock floor, spinner arms, closed doubles, partnerships, the
#: target and its mode, each blocked scoring, pips deciding, a pot, a fixed number of
#: hands, two sets and their lot); (preset, options, players, seed prefix, bots, test)
ROUND_GAMES: list[tuple[str, dict[str, Any], int, str, list[str] | None, Any]] = [
    ("spilop", {"bonus": True, "target": 60}, 3, "vector-round-spilop-1", None, None),
    ("spilop", {"bonus": True, "target": 60, "sets": 2}, 4, "vector-round-spilop-2", None,
     "lot"),
    ("spilop", {"bonus": True, "target": 40, "spinner_arms": "after-sides"}, 2,
     "vector-round-spilop-3", None, None),
    ("spilop", {"target": 60}, 2, "vector-round-spilop-4", None, "draw-for-double"),
    ("spilop", {"hands": 3, "target_mode": "reach-loses"}, 3,
     "vector-round-spilop-5", ["blocker"] * 3, None),
    ("classic", {"target": 60}, 2, "vector-round-classic-1", None, None),
    ("classic", {"target": 50, "draw": "none", "hand_size": 7}, 3, "vector-round-classic-2",
     ["blocker"] * 3, "split"),
    ("classic", {"partnerships": True, "draw": "none", "target": 60}, 4,
     "vector-round-classic-3", None, "blocked"),
    ("classic", {"max_pip": 9, "hand_size": 9, "opening": "highest-tile", "target": 80}, 3,
     "vector-round-classic-4", None, None),
    ("classic", {"target": 50, "draw": "one"}, 3, "vector-round-classic-7", ["blocker"] * 3,
     "blocked"),
    ("classic", {"sets": 2, "tie_break": "any", "hand_size": 7, "target": 60}, 4,
     "vector-round-classic-5", None, None),
    ("classic", {"blocked_scoring": "lowest-takes-all", "draw": "none", "target": 60}, 3,
     "vector-round-classic-6", ["blocker"] * 3, "blocked"),
    ("kozel", {"target": 40}, 3, "vector-round-kozel-1", ["blocker"] * 3, "blocked"),
    ("kozel", {"partnerships": True, "target": 60}, 4, "vector-round-kozel-2", None, None),
    ("italian", {"target": 40}, 2, "vector-round-italian-1", ["blocker"] * 2, "blocked"),
    ("italian", {"target": 40, "bonus": True}, 4, "vector-round-italian-2", None, None),
    ("norwegian", {"target": 40}, 2, "vector-round-norwegian-1", ["blocker"] * 2,
     "blocked"),
    ("openspiel-block", {}, 2, "vector-round-openspiel-block-1", None, None),
    ("openspiel-team", {}, 4, "vector-round-openspiel-team-1", None, None),
    ("dominoes-partners", {"target": 60}, 4, "vector-round-dominoes-partners-1",
     ["blocker"] * 4, "blocked"),
    ("all-fives", {"target": 61}, 2, "vector-round-all-fives-1", None, "closed"),
    ("all-fives", {"target": 61, "spinner_max_arms": 4}, 2, "vector-round-all-fives-2",
     None, None),
    ("all-fives", {"target": 61}, 2, "vector-round-all-fives-3", None, "pot"),
    ("all-fives", {"target": 40}, 2, "vector-round-all-fives-4", None, "everyone-draws"),
]


def _every_move(state: Any) -> list[str]:
    """Every legal move now, each play with the end it goes to: "1 6-4 right"."""
    if state.over:
        return []
    seats = state.openers if state.phase == "opening" else (state.turn,)
    out = []
    for seat in seats:
        for move in state.legal_moves(seat):
            if move.action != "play":
                out.append(f"{seat} {move.action}")
                continue
            end = move.end
            if end is None and state.phase != "opening":
                end = END_NAMES[state.check(move)[2]]
            out.append(f"{seat} {move.tile}" + (f" {end}" if end else "")
                       + (" closed" if move.closed else ""))
    return out


def _as_move(text: str) -> Move:
    seat, what, *rest = text.split(" ")
    if what in ("draw", "pass"):
        return Move(int(seat), what)
    end = rest[0] if rest else None
    return Move(int(seat), "play", what, end, "closed" in rest)


def _tries(state: Any, rng: Any) -> list[Move]:
    """Moves a buggy frontend might send now: another seat, another tile, end, action."""
    seat = state.turn
    others = [s for s in range(state.players) if s != seat]
    tiles = state.tiles
    held = tiles.mask_names(state.hands[seat])
    absent = [t for t in tiles.kind_name if t not in held]
    tries = [Move(rng.choice(others), "pass"), Move(seat, "pass"), Move(seat, "draw")]
    if held:
        tile = rng.choice(held)
        tries += [Move(seat, "play", tile), Move(seat, "play", tile, rng.choice(END_NAMES)),
                  Move(seat, "play", tile, None, True), Move(rng.choice(others), "play", tile)]
    if absent:
        tries.append(Move(seat, "play", rng.choice(absent)))
    if state.boneyard_left():
        tries.append(Move(seat, "draw", rng.choice(tiles.kind_name)))
    return tries


def _round_steps(doc: dict[str, Any], seed: str) -> list[dict[str, Any]]:
    import random

    rng = random.Random(seed)
    game = open_game(doc)
    rounds: list[dict[str, Any]] = []
    for event in walk(doc, game):
        state = event.state
        if type(event) is RoundStart:
            rounds.append({"steps": [], "refusals": []})
        elif type(event) is MoveEvent:
            legal = _every_move(state)
            step: dict[str, Any] = {"move": event.move_no, "legal": legal}
            if state.rules.bonus:
                step["bonus"] = [state.score_of(_as_move(m)) for m in legal]
            rounds[-1]["steps"].append(step)
            if rng.random() < 0.25:
                tries = _tries(state, rng)
                rng.shuffle(tries)
                for move in tries:
                    try:
                        state.check(move)
                    except IllegalMove as exc:
                        rounds[-1]["refusals"].append(
                            {"move": event.move_no, "try": move.to_json(),
                             "reason": exc.message})
                        break
        elif type(event) is RoundEnd:
            rounds[-1]["result"] = round_answer(event.result)
            rounds[-1]["scores"] = [number(s) for s in game.match.scores]
    return rounds


def _shows(kind: Any, doc: dict[str, Any]) -> bool:
    """Whether a game shows what its vector is there for."""
    answers = replay(doc)
    results = answers["rounds"]
    moves = [m for r in doc["rounds"] for m in r["moves"]]
    if kind is None:
        return True
    if kind == "blocked":
        return any(r["blocked"] for r in results)
    if kind == "split":
        return any(r["blocked"] and any(p != int(p) for p in r["points"]) for r in results)
    if kind == "closed":
        return any(m.get("closed") for m in moves)
    if kind == "pot":
        return any(not r["winners"] for r in results[:-1])
    if kind in ("lot", "draw-for-double", "everyone-draws"):
        rules = Ruleset.from_spec(doc["ruleset"])
        for r in range(1, len(doc["rounds"]) + 1):
            dealt = deal_of(rules, len(doc["players"]), f"{doc['seed']}/{r}")
            if kind == "lot" and dealt["lot"] is not None:
                return True
            if kind != "lot" and dealt["opens"]["draw_for_double"]:
                return True
        return False
    raise AssertionError(kind)


def rounds() -> list[dict[str, Any]]:
    out = []
    for preset, options, players, prefix, bots, kind in ROUND_GAMES:
        spec = {"preset": preset, "options": options}
        for i in range(1, 400):
            seed = f"{prefix}-{i}" if i > 1 else prefix
            doc = simulate_game(spec, players, seed, bots, game_id=seed, frontend="vectors",
                                max_rounds=12)
            if replay(doc)["status"] == "finished" and _shows(kind, doc):
                break
        else:
            raise SystemExit(f"no game for {prefix} shows {kind}")
        answer = replay(doc)
        out.append({"log": doc, "rounds": _round_steps(doc, seed),
                    "scores": answer["scores"], "winners": answer["winners"]})
    return out


# ---------------------------------------------------------------------- rulesets
#: a log's ruleset field, and what the recorder resolves it to or why it refuses it:
#: every preset, every option, each contradiction and check of recorder/rules.py
RULESETS: list[Any] = [
    *PRESETS,
    {"preset": "spilop", "options": {"sets": 2}},
    {"preset": "spilop", "options": {"sets": 2, "hand_size": 6}},
    {"preset": "spilop", "options": {"bonus": True, "bonus_multiple": 3, "target": 150}},
    {"preset": "spilop", "options": {"spinner_arms": "after-sides", "bonus": None}},
    {"preset": "classic", "options": {"draw": "one", "target": 50}},
    {"preset": "classic", "options": {"hand_size": {"2": 7, "3": 6, "default": 5}}},
    {"preset": "classic", "options": {"opening": {"default": "free", "4": "highest-double"}}},
    {"preset": "classic", "options": {"partnerships": True, "draw": "none"}},
    {"preset": "classic", "options": {"max_pip": 9, "hand_size": 9}},
    {"preset": "classic", "options": {"max_pip": 12}},
    {"preset": "classic", "options": {"sets": 2, "tie_break": "any"}},
    {"preset": "classic", "options": {"stock_floor": 2, "no_double": "highest-tile"}},
    {"preset": "classic", "options": {"domino_scoring": "all-pips",
                                      "blocked_scoring": "lowest-takes-all"}},
    {"preset": "classic", "options": {"hands": 3, "target_mode": "reach-loses"}},
    {"preset": "classic", "options": {"double_order": [5, 1, 2, 3, 4, 6, 0]}},
    {"preset": "kozel", "options": {"partnerships": True}},
    {"preset": "kozel", "options": {"target": 50, "target_mode": "reach-wins"}},
    {"preset": "italian", "options": {"opening": "highest-tile", "draw": "until-playable"}},
    {"preset": "norwegian", "options": {"blocked_scoring": "fish"}},
    {"preset": "openspiel-block", "options": {"hands": 5}},
    {"preset": "openspiel-team", "options": {"opening": "seat"}},
    {"preset": "dominoes-partners", "options": {"target": 100}},
    {"preset": "all-fives", "options": {"target": 61, "spinner_max_arms": 4}},
    {"preset": "all-fives", "options": {"tie_pot": False, "closed_doubles": False}},
    {"preset": "spilop", "options": None},
    {"preset": "spilop"},
    # refused: the shape of the field
    5, None, ["spilop"], {"options": {}}, {"preset": "spilop", "rules": {}},
    {"preset": "spilop", "options": [1]}, "spillop", "Classic", {"preset": "kosel"},
    # refused: unknown options, with the closest name
    {"preset": "spilop", "options": {"bonnus": True}},
    {"preset": "spilop", "options": {"stockFloor": 2}},
    {"preset": "classic", "options": {"target-mode": "reach-loses"}},
    {"preset": "classic", "options": {"xyz": 1}},
    # refused: values
    {"preset": "spilop", "options": {"bonus": "yes"}},
    {"preset": "spilop", "options": {"bonus": 1}},
    {"preset": "spilop", "options": {"target": 0}},
    {"preset": "spilop", "options": {"target": 12.5}},
    {"preset": "spilop", "options": {"target": True}},
    {"preset": "spilop", "options": {"target": "100"}},
    {"preset": "spilop", "options": {"draw": "two"}},
    {"preset": "spilop", "options": {"sets": 3}},
    {"preset": "spilop", "options": {"max_pip": 7}},
    {"preset": "spilop", "options": {"max_pip": 13}},
    {"preset": "spilop", "options": {"hand_size": {"two": 7}}},
    {"preset": "spilop", "options": {"hand_size": {"9": 7}}},
    {"preset": "spilop", "options": {"hand_size": {"2": 0}}},
    {"preset": "spilop", "options": {"opening": {"2": "lowest"}}},
    {"preset": "spilop", "options": {"double_order": []}},
    {"preset": "spilop", "options": {"double_order": [6, 6, 5, 4, 3, 2, 1]}},
    {"preset": "spilop", "options": {"double_order": [6, 5, 4]}},
    {"preset": "spilop", "options": {"target": "a long string that is longer than forty "
                                               "characters"}},
    # refused: contradictions
    {"preset": "spilop", "options": {"opening": "free"}},
    {"preset": "spilop", "options": {"no_double": "highest-tile"}},
    {"preset": "classic", "options": {"spinner": True}},
    {"preset": "classic", "options": {"spinner_arms": "after-sides"}},
    {"preset": "classic", "options": {"bonus_multiple": 3}},
    {"preset": "classic", "options": {"spinner_max_arms": 3}},
    {"preset": "classic", "options": {"closed_doubles": True}},
    {"preset": "classic", "options": {"tie_pot": True}},
    {"preset": "classic", "options": {"target_check": "play", "target_mode": "reach-loses"}},
    {"preset": "classic", "options": {"target_check": "play", "hands": 2}},
    {"preset": "classic", "options": {"hands": 2, "target": 50}},
    {"preset": "classic", "options": {"pips_decide": True, "blocked_scoring": "fish"}},
    {"preset": "classic", "options": {"pips_decide": True, "domino_scoring": "penalty"}},
    {"preset": "norwegian", "options": {"partnerships": True}},
    {"preset": "kozel", "options": {"double_order": [6, 5, 4, 3, 2, 1, 0]}},
    {"preset": "classic", "options": {"double_order": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
                                      "max_pip": 9, "opening": "highest-tile"}},
]

#: player counts checked against a ruleset: (ruleset, players)
PLAYER_COUNTS: list[tuple[Any, int]] = [
    ("spilop", 1), ("spilop", 5), ("norwegian", 3), ("openspiel-team", 2),
    ({"preset": "kozel", "options": {"partnerships": True}}, 3),
    ({"preset": "classic", "options": {"hand_size": 10}}, 3),
    ({"preset": "classic", "options": {"hand_size": {"2": 7}}}, 3),
    ({"preset": "spilop", "options": {"sets": 2}}, 4),
]


def rulesets() -> list[dict[str, Any]]:
    out = []
    for spec in RULESETS:
        try:
            rules = Ruleset.from_spec(spec)
        except RulesetError as exc:
            out.append({"ruleset": spec, "error": {"message": exc.message,
                                                   "pointer": exc.pointer}})
        else:
            out.append({"ruleset": spec, "rules": rules.to_json()})
    for spec, players in PLAYER_COUNTS:
        rules = Ruleset.from_spec(spec)
        try:
            rules.check_players(players)
        except RulesetError as exc:
            out.append({"ruleset": spec, "players": players,
                        "error": {"message": exc.message, "pointer": exc.pointer}})
        else:
            out.append({"ruleset": spec, "players": players,
                        "tiles_each": rules.tiles_each(players),
                        "opening": rules.opening_for(players)})
    return out


def write(name: str, about: str, key: str, items: list[dict[str, Any]],
          algorithm: bool = True) -> None:
    lines = ["{", *([f' "algorithm": "{ALGORITHM}",'] if algorithm else []),
             f" \"about\": {json.dumps(about)},", f' "{key}": [']
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
    write("resolve-1.json",
          "A log's ruleset field and what the recorder resolves it to (every rule, as "
          "`recorder rules PRESET --json` prints it), or why it refuses it (the message and "
          "JSON pointer); then player counts checked against a ruleset. Fields are explained "
          "in README.md here.",
          "rulesets", rulesets(), algorithm=False)
    write("rounds-sha256-fy-1.json",
          "Whole games with, before every move, every legal move (each play with the end it "
          "goes to) and the bonus each play would score, some refused moves with the "
          "engine's reason, and every round's result and the running scores. Fields are "
          "explained in README.md here.",
          "games", rounds())


if __name__ == "__main__":
    main()
