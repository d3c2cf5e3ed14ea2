"""Properties over random presets, options and seeds.

- simulate -> JSON -> replay agrees with the simulator's own result;
- the engine's fast lane (plain validation) and its checked path (the walk every
  other consumer uses) give the same answer, on valid and on mutated logs;
- changing any single move of a valid log gives a refusal or another legal
  game, never a crash.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any
from unittest.mock import patch

from hypothesis import given, settings
from hypothesis import strategies as st

from recorder.analysis import analyse
from recorder.engine import Move, Round
from recorder.errors import RecorderError
from recorder.replay import MoveEvent, RoundEnd, open_game, replay, round_answer, walk
from recorder.simulate import BOTS, simulate_game

SPECS: list[tuple[Any, tuple[int, ...]]] = [
    ("spilop", (2, 3, 4)),
    ({"preset": "spilop", "options": {"bonus": True}}, (2, 3, 4)),
    ({"preset": "spilop", "options": {"sets": 2, "bonus": True}}, (2, 3, 4)),
    ("classic", (2, 3, 4)),
    ({"preset": "classic", "options": {"draw": "one"}}, (2, 3, 4)),
    ("kozel", (2, 3, 4)),
    ("italian", (2, 3, 4)),
    ("norwegian", (2,)),
    ({"preset": "classic", "options": {"partnerships": True}}, (4,)),
    ({"preset": "kozel", "options": {"partnerships": True, "target": 60}}, (4,)),
    ({"preset": "spilop", "options": {"max_pip": 9, "bonus": True, "target": 200}}, (2, 3, 4)),
    ({"preset": "classic", "options": {"draw": "none", "target": 50}}, (2, 3)),
    ({"preset": "spilop", "options": {"spinner_arms": "after-sides", "bonus": True}}, (2, 3)),
    ({"preset": "norwegian", "options": {"stock_floor": 0, "max_pip": 12,
                                          "hand_size": 12}}, (2,)),
    ("openspiel-block", (2,)),
    ("openspiel-team", (4,)),
    ("dominoes-partners", (4,)),
    ({"preset": "all-fives", "options": {"target": 61}}, (2,)),  # closed doubles, tie pot
]


@st.composite
def games(draw: st.DrawFn) -> dict[str, Any]:
    spec, counts = draw(st.sampled_from(SPECS))
    players = draw(st.sampled_from(counts))
    seed = draw(st.text(min_size=0, max_size=12))
    bots = draw(st.lists(st.sampled_from(sorted(BOTS)), min_size=players, max_size=players))
    explicit = draw(st.booleans())
    return simulate_game(spec, players, seed, bots, explicit_deal=explicit, max_rounds=6)


def _checked_apply(self: Round, seat: Any, action: Any, tile: Any, end: Any) -> None:
    self.apply(Move(seat, action, tile, end))


def slow_answer(doc: Any) -> dict[str, Any]:
    """The answer computed through the checked path only (``check`` then apply)."""
    rounds = []
    try:
        game = open_game(doc)
        with patch.object(Round, "apply_fast", _checked_apply):
            for event in walk(doc, game, moves=True):
                if type(event) is RoundEnd:
                    rounds.append(round_answer(event.result))
    except RecorderError as exc:
        return {"status": "invalid", "error": exc.to_dict(), "rounds": rounds}
    return {"status": "finished" if game.match.over else "unfinished", "rounds": rounds}


def same_verdict(doc: Any) -> dict[str, Any]:
    fast = replay(doc)
    slow = slow_answer(doc)
    assert fast["status"] == slow["status"]
    if fast["status"] == "invalid":
        assert fast["error"] == slow["error"]
    else:
        assert fast["rounds"] == slow["rounds"]
    return fast


@settings(max_examples=60)
@given(games())
def test_simulated_games_replay_to_the_simulators_result(doc: dict[str, Any]) -> None:
    answer = same_verdict(json.loads(json.dumps(doc)))
    assert answer["status"] in ("finished", "unfinished")
    assert "mismatches" not in answer
    assert answer["rounds"] == [r["result"] for r in doc["rounds"]]
    assert answer["scores"] == doc["result"]["scores"]
    assert answer["winners"] == doc["result"]["winners"]


@dataclass
class Mutation:
    doc: dict[str, Any]
    kind: str
    round: int  # 1-based, as errors count
    move: int
    rounds_before: list[dict[str, Any]]


TILE_TEXTS = [f"{a}-{b}" for a in range(8) for b in range(8)] + ["6/6", "", "x", "13-1"]


@st.composite
def mutations(draw: st.DrawFn) -> Mutation:
    """A valid game with one move changed; and where, and the rounds before the change."""
    doc = draw(games())
    doc.pop("result", None)
    before = []
    for rdoc in doc["rounds"]:
        before.append(rdoc.pop("result"))
    r = draw(st.integers(0, len(doc["rounds"]) - 1))
    moves = doc["rounds"][r]["moves"]
    m = draw(st.integers(0, len(moves) - 1))
    kind = draw(st.sampled_from(
        ["tile", "end", "action", "player", "delete", "duplicate", "swap", "drop-tile"]))
    move = moves[m]
    if kind == "tile":
        move["tile"] = draw(st.sampled_from(TILE_TEXTS))
    elif kind == "end":
        move["end"] = draw(st.sampled_from(["left", "right", "up", "down"]))
    elif kind == "action":
        move["action"] = draw(st.sampled_from(["play", "draw", "pass"]))
        if move["action"] == "pass":
            move.pop("tile", None)
            move.pop("end", None)
        elif move["action"] == "draw":
            move.pop("end", None)
        elif "tile" not in move:
            move["tile"] = draw(st.sampled_from(TILE_TEXTS[:49]))
    elif kind == "player":
        move["player"] = draw(st.integers(0, len(doc["players"])))
    elif kind == "delete":
        del moves[m]
    elif kind == "duplicate":
        moves.insert(m, copy.deepcopy(move))
    elif kind == "swap" and m + 1 < len(moves):
        moves[m], moves[m + 1] = moves[m + 1], moves[m]
    elif kind == "drop-tile":
        move.pop("tile", None)
    return Mutation(doc, kind, r + 1, m + 1, before[:r])


@settings(max_examples=150)
@given(mutations())
def test_a_changed_move_is_refused_or_another_legal_game(case: Mutation) -> None:
    answer = same_verdict(case.doc)
    # the rounds before the changed one are the game's own, whatever became of the rest
    # (a log that breaks the schema is refused as a whole, before any round is played)
    if answer.get("error", {}).get("code") != "log/schema":
        assert answer.get("rounds", [])[: len(case.rounds_before)] == case.rounds_before
    if answer["status"] == "invalid":
        error = answer["error"]
        # nothing before the change can be wrong: the error is at it or after it
        assert (error["round"], error["move"] or 10**9) >= (case.round, case.move), error
        assert error["pointer"].startswith(f"/rounds/{error['round'] - 1}"), error
        assert len(error["message"]) > 20
    else:
        assert answer["status"] in ("finished", "unfinished")
        assert len(answer["rounds"]) >= len(case.rounds_before)


@settings(max_examples=25)
@given(st.sampled_from(SPECS), st.text(max_size=12), st.booleans())
def test_same_seed_same_game(spec: tuple[Any, tuple[int, ...]], seed: str,
                             explicit: bool) -> None:
    ruleset, counts = spec
    first = simulate_game(ruleset, counts[-1], seed, explicit_deal=explicit, max_rounds=5)
    again = simulate_game(ruleset, counts[-1], seed, explicit_deal=explicit, max_rounds=5)
    assert first == again
    assert replay(json.loads(json.dumps(first))) == replay(first)


@settings(max_examples=40)
@given(games())
def test_cheap_counts_agree_with_the_listed_moves(doc: dict[str, Any]) -> None:
    for event in walk(doc):
        if type(event) is MoveEvent:
            state, seat = event.state, event.move.player
            legal = state.legal_moves(seat)
            assert state.options(seat) == (
                len(legal), max((state.score_of(m) for m in legal), default=0))


@given(games())
def test_the_end_terms_add_up_to_the_open_end_sum(doc: dict[str, Any]) -> None:
    """What the replay page shows of the sum, term by term, is the engine's sum, at every
    position of every variant (spinners, closed doubles, shut sides, partnerships)."""
    for event in walk(doc):
        if type(event) in (MoveEvent, RoundEnd):
            state = event.state
            terms = state.end_terms()
            assert sum(points for _, _, points, _ in terms) == state.open_end_sum()
            assert all(points == sum(halves) for _, halves, points, _ in terms)


@settings(max_examples=80)
@given(mutations())
def test_analyse_answers_like_replay(case: Mutation) -> None:
    doc = case.doc
    answer, facts = analyse(doc)
    assert answer == replay(doc)
    assert (facts is None) == (answer["status"] == "invalid")
    if facts is not None:
        assert len(facts.rounds) == len(answer["rounds"])
        assert sum(1 for m in facts.moves if m.action == "play") == sum(
            p.plays for p in facts.players)
