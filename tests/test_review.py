"""The review of a whole log (recorder/review.py): its shape, its figures, its limits.

The values themselves are checked against an independent search in tests/test_solver.py;
here the review is checked to say of a log what docs/review.md says it does: one
decision per move with more than one legal move, the played and the best move among
the choices, the loss and the class, each seat's accuracy, the same object for the same
log and settings however it is computed.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from recorder.engine import Move
from recorder.replay import MoveEvent, open_game, walk
from recorder.review import (
    CLASSES,
    Settings,
    classify,
    decision_work,
    finish_round,
    plan_review,
    review_game,
    review_round,
)
from recorder.rules import Ruleset
from recorder.simulate import simulate_game

SMALL_BLOCK = {"preset": "openspiel-block", "options": {"hand_size": 4, "hands": 3}}
SMALL_DRAW = {"preset": "classic", "options": {"hand_size": 3, "stock_floor": 20,
                                                "target": 15}}


def small_game(ruleset: dict[str, Any], players: int, seed: str) -> dict[str, Any]:
    return simulate_game(ruleset, players, seed, game_id=seed, max_rounds=3)


def legal_counts(doc: dict[str, Any]) -> list[tuple[int, int, int, Move]]:
    """(round, move number, legal moves, move) of every logged move, from the engine."""
    out = []
    for event in walk(doc, open_game(doc)):
        if type(event) is MoveEvent:
            out.append((event.round, event.move_no,
                        len(event.state.legal_moves(event.move.player)), event.move))
    return out


@pytest.mark.parametrize("view", ["perfect", "player"])
def test_a_review_has_the_documented_shape_and_one_decision_per_choice(view: str) -> None:
    doc = small_game(SMALL_BLOCK, 2, "review-shape")
    review = review_game(doc, Settings(view=view, samples=4))
    json.dumps(review)  # JSON-ready as it is
    assert review["game_id"] == doc["game_id"]
    assert review["view"] == view and review["status"] == "finished"
    assert review["error"] is None
    assert [r["round"] for r in review["rounds"]] == list(range(1, len(doc["rounds"]) + 1))
    expected = [(r, m, n, mv) for r, m, n, mv in legal_counts(doc) if n > 1]
    got = [(r["round"], d) for r in review["rounds"] for d in r["decisions"]]
    assert [(r, d["move"]) for r, d in got] == [(r, m) for r, m, _, _ in expected]
    assert expected, "the game has decisions to review"
    for (_, d), (_, _, n, mv) in zip(got, expected, strict=True):
        assert d["player"] == mv.player
        assert len(d["choices"]) == n
        assert set(d["choices"][0]) >= {"action", "tile", "end", "value", "se"}
        played = d["choices"][d["played"]]
        assert (played["action"], played["tile"]) == (mv.action, mv.tile)
        if mv.end is not None:
            assert played["end"] == mv.end
        values = [c["value"] for c in d["choices"]]
        assert d["best"] == values.index(max(values))
        assert d["loss"] == pytest.approx(values[d["best"]] - values[d["played"]], abs=1e-3)
        assert d["loss"] >= 0
        assert d["class"] == classify(d["loss"])
        if view == "perfect":
            assert all(c["se"] == 0 for c in d["choices"])
            assert d["samples"] == 1
        else:
            assert 1 <= d["samples"] <= 4
    for p in review["players"]:
        mine = [d for _, d in got if d["player"] == p["seat"]]
        assert p["decisions"] == len(mine)
        assert p["mean_loss"] == pytest.approx(sum(d["loss"] for d in mine) / len(mine),
                                               abs=1e-3)
        assert p["best_share"] == pytest.approx(
            sum(d["class"] == "best" for d in mine) / len(mine), abs=1e-3)
        assert sum(p["classes"].values()) == p["decisions"]


def test_the_perfect_view_values_a_won_position_by_its_points() -> None:
    """At the last decision of a block round, where the rest is forced, the best move's
    value is the round's margin the engine scores when the mover plays it."""
    doc = small_game(SMALL_BLOCK, 2, "review-margin")
    review = review_game(doc, Settings(view="perfect"))
    rules = Ruleset.from_spec(SMALL_BLOCK)
    checked = 0
    for event in walk(doc, open_game(doc)):
        if type(event) is not MoveEvent:
            continue
        state = event.state
        legal = state.legal_moves(event.move.player)
        if len(legal) < 2:
            continue
        decision = next(d for d in review["rounds"][event.round - 1]["decisions"]
                        if d["move"] == event.move_no)
        for i, option in enumerate(legal):
            after = state.copy()
            after.apply(option)
            while not after.over:  # is the rest forced? then the value is its margin
                rest = after.legal_moves(after.turn)
                if len(rest) != 1:
                    break
                after.apply(rest[0])
            if not after.over:
                continue
            assert after.result is not None
            pts = after.result.points
            me = event.move.player
            margin = pts[me] - pts[1 - me]
            sign = -1 if rules.target_mode == "reach-loses" else 1
            assert decision["choices"][i]["value"] == pytest.approx(float(margin) * sign)
            checked += 1
    assert checked, "some choice ends the round by force"


def test_the_same_log_and_settings_give_the_same_review_round_by_round() -> None:
    doc = small_game(SMALL_DRAW, 2, "review-seeded")
    settings = Settings(view="player", samples=3, seed="s")
    whole = review_game(doc, settings)
    assert review_game(copy.deepcopy(doc), settings) == whole
    plan = plan_review(doc)
    apart = [review_round(doc, r, settings, skip=plan.before[r - 1])
             for r in range(len(plan.before), 0, -1)][::-1]
    assert apart == whole["rounds"]
    other = review_game(doc, Settings(view="player", samples=3, seed="another"))
    assert other["seed"] == "another"
    assert [len(r["decisions"]) for r in other["rounds"]] == \
        [len(r["decisions"]) for r in whole["rounds"]]


@pytest.mark.parametrize("view", ["perfect", "player"])
def test_each_decision_valued_alone_in_any_order_gives_the_round(view: str) -> None:
    """Each decision is searched by a solver of its own: valued apart, last first, and
    joined, a round is the round reviewed whole; by two worker processes too."""
    from recorder.cli_review import review_round_by

    ruleset = {"preset": "classic", "options": {"hand_size": 4, "stock_floor": 16,
                                                "target": 20}}
    doc = small_game(ruleset, 3, "review-apart")
    settings = Settings(view=view, samples=3, seed="apart")
    plan = plan_review(doc)
    assert sum(map(len, plan.moves)) > 3  # decisions in more than one round
    assert [len(m) for m in plan.moves] == \
        [len(r["decisions"]) for r in review_game(doc, settings)["rounds"]]
    for r, moves in enumerate(plan.moves, 1):
        whole = review_round(doc, r, settings, skip=plan.before[r - 1])
        works = [decision_work(doc, r, move_no, settings, index=plan.before[r - 1] + i)
                 for i, move_no in reversed(list(enumerate(moves)))][::-1]
        assert finish_round(r, works, settings) == whole
        assert [d["move"] for d in whole["decisions"]] == moves
    last = len(plan.moves)
    assert review_round_by(doc, plan, last, settings, 2) == \
        review_round(doc, last, settings, skip=plan.before[last - 1])
    with pytest.raises(ValueError, match="not a decision"):
        decision_work(doc, 1, 10_000, settings)


def test_an_unfinished_game_is_reviewed_up_to_its_last_move() -> None:
    doc = small_game(SMALL_BLOCK, 2, "review-unfinished")
    doc.pop("result", None)
    last = doc["rounds"][-1]
    last.pop("result", None)
    keep = len(last["moves"]) // 2
    last["moves"] = last["moves"][:keep]
    review = review_game(doc, Settings(view="perfect"))
    assert review["status"] == "unfinished"
    assert len(review["rounds"]) == len(doc["rounds"])
    assert all(d["move"] <= keep for d in review["rounds"][-1]["decisions"])


def test_a_refused_log_gets_the_reason_and_no_rounds() -> None:
    doc = small_game(SMALL_BLOCK, 2, "review-refused")
    doc["rounds"][0]["moves"][1]["tile"] = doc["rounds"][0]["moves"][0]["tile"]
    review = review_game(doc, Settings(view="perfect"))
    assert review["status"] == "invalid"
    assert review["rounds"] == [] and review["players"] == []
    assert review["error"]["round"] == 1 and review["error"]["message"]
    garbage = review_game({"format": "domino-log/1"})
    assert garbage["status"] == "invalid" and garbage["game_id"] is None


def test_decisions_past_the_limit_are_listed_unvalued() -> None:
    doc = small_game(SMALL_BLOCK, 2, "review-limit")
    review = review_game(doc, Settings(view="perfect", max_decisions=2))
    decisions = [d for r in review["rounds"] for d in r["decisions"]]
    assert len(decisions) > 2
    assert all(d["class"] is not None and d["unvalued"] is None for d in decisions[:2])
    assert all(d["class"] is None and d["loss"] is None and d["best"] is None
               and d["unvalued"] == "decisions"
               and all(c["value"] is None for c in d["choices"]) for d in decisions[2:])
    assert sum(p["decisions"] for p in review["players"]) == 2


def test_settings_refuse_what_they_cannot_do() -> None:
    with pytest.raises(ValueError, match="player or perfect"):
        Settings(view="oracle")
    with pytest.raises(ValueError, match="samples"):
        Settings(samples=0)


def test_classes_cover_every_loss_in_order() -> None:
    assert classify(0.0) == "best"
    assert classify(1e-12) == "best"
    names = [name for name, _ in CLASSES]
    assert [classify(x) for x in (0, 1, 3, 7, 50)] == names


@pytest.mark.parametrize(("ruleset", "players"), [(SMALL_BLOCK, 2), (SMALL_DRAW, 3)],
                         ids=["block", "draw-3p"])
def test_the_review_bot_plays_what_the_review_calls_best(ruleset: dict[str, Any],
                                                        players: int) -> None:
    """A game where seat 0 is the review bot: replayed, it is legal; reviewed with the
    bot's seed and samples, every decision of seat 0 is its best move."""
    from recorder.replay import replay
    from recorder.review import BOT_POSITIONS, BOT_SAMPLES

    bots = ["review"] + ["random"] * (players - 1)
    doc = simulate_game(ruleset, players, "bot-game", bots, game_id="bot-game", max_rounds=2)
    assert replay(doc)["status"] in ("finished", "unfinished")
    assert simulate_game(ruleset, players, "bot-game", bots, game_id="bot-game",
                         max_rounds=2) == doc
    review = review_game(doc, Settings(view="player", samples=BOT_SAMPLES, seed="bot-game",
                                       positions=BOT_POSITIONS))
    mine = [d for r in review["rounds"] for d in r["decisions"] if d["player"] == 0]
    assert mine
    assert all(d["played"] == d["best"] for d in mine), \
        [(d["move"], d["played"], d["best"]) for d in mine]


def test_an_unknown_bot_is_refused_with_the_list() -> None:
    with pytest.raises(ValueError, match="review"):
        simulate_game(SMALL_BLOCK, 2, "x", ["review", "oracle"])
