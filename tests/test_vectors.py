"""The engine reproduces every committed deal and board vector of schemas/vectors/.

The committed files are the contract: each figure is recomputed here from the
engine's primitives and compared with the file, never with a fresh run of the
generator.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from logs import every_move

from recorder.engine import END_NAMES, Match, Move, Round, seeded_deal
from recorder.errors import IllegalMove, RulesetError
from recorder.replay import number, replay, round_answer
from recorder.rules import PRESETS, Ruleset
from recorder.shuffle import Stream, shuffle
from recorder.tiles import tile_set

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "schemas" / "vectors"
DEALS = json.loads((VECTORS / "deal-sha256-fy-1.json").read_text())["deals"]
GAMES = json.loads((VECTORS / "boards-sha256-fy-1.json").read_text())["games"]


def _rules(vector: dict[str, Any]) -> Ruleset:
    return Ruleset.from_spec({"preset": vector["preset"], "options": vector["options"]})


@pytest.mark.parametrize("vector", DEALS, ids=lambda v: f"{v['seed']}-{v['players']}p")
def test_deal_vector(vector: dict[str, Any]) -> None:
    rules = _rules(vector)
    assert vector["seed"] == f"{vector['game_seed']}/{vector['round']}"
    tiles = tile_set(rules.max_pip, rules.sets)
    dealt, stream = seeded_deal(rules, vector["players"], vector["seed"])
    assert rules.tiles_each(vector["players"]) == vector["tiles_each"]
    assert dealt.hand_names(tiles) == vector["hands"]
    assert dealt.boneyard_names(tiles) == vector["boneyard"]
    assert dealt.redeals == vector["redeals"]
    state = Round.start(rules, vector["players"], dealt, stream)
    assert state.deal.lot == vector["lot"]
    opens = vector["opens"]
    if opens["draw_for_double"]:
        assert state.phase == "draw-for-double"
    else:
        assert list(state.openers) == opens["seats"]
        tile = None if state.opening_kind < 0 else tiles.kind_name[state.opening_kind]
        assert tile == opens["tile"]


@pytest.mark.parametrize("vector", DEALS[:6], ids=lambda v: v["seed"])
def test_deal_vector_is_slices_of_the_shuffle(vector: dict[str, Any]) -> None:
    """Seat s holds order[s*h:(s+1)*h] of the shuffle; the rest is the boneyard in order."""
    rules = _rules(vector)
    tiles = tile_set(rules.max_pip, rules.sets)
    order = shuffle(tiles.canonical(), Stream(vector["seed"]))
    h = vector["tiles_each"]
    for seat, hand in enumerate(vector["hands"]):
        assert sorted(order[seat * h:(seat + 1) * h], key=tiles.canonical().index) == hand
    assert order[vector["players"] * h:] == vector["boneyard"]


def test_deal_vectors_cover_every_preset_and_player_count() -> None:
    seen = {(v["preset"], v["players"]) for v in DEALS if not v["options"]}
    for name, rules in PRESETS.items():
        for n in range(rules.min_players, rules.max_players + 1):
            assert (name, n) in seen
    assert any(v["redeals"] for v in DEALS)
    assert any(v["lot"] is not None for v in DEALS)
    assert any(v["opens"]["draw_for_double"] for v in DEALS)


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g["log"]["game_id"])
def test_board_vector(game: dict[str, Any]) -> None:
    doc = game["log"]
    rules = Ruleset.from_spec(doc["ruleset"])
    match = Match(rules, len(doc["players"]))
    assert len(game["plays"]) == len(doc["rounds"])
    for r, (rdoc, plays) in enumerate(zip(doc["rounds"], game["plays"], strict=True), 1):
        state = match.new_round(seed=f"{doc['seed']}/{r}")
        expected = iter(plays)
        for m, mdoc in enumerate(rdoc["moves"], 1):
            move = Move(mdoc["player"], mdoc["action"], mdoc.get("tile"), mdoc.get("end"),
                        mdoc.get("closed") is True)
            before = state.bonus[move.player]
            state.apply(move)
            if move.action != "play":
                continue
            want = next(expected)
            end = state.board[-1][2]
            assert want["move"] == m and want["tile"] == move.tile
            assert want.get("closed", False) == move.closed
            assert want["end"] == (None if end < 0 else END_NAMES[end])
            assert want["ends"] == state.open_ends(), (r, m)
            assert want["sum"] == state.open_end_sum(), (r, m)
            assert want["bonus"] == state.bonus[move.player] - before, (r, m)
        assert next(expected, None) is None
        assert state.result is not None
        match.finish_round(state.result)
    answer = replay(doc)
    assert answer["status"] == "finished" and "mismatches" not in answer


def test_board_vectors_cover_every_preset_and_score_bonus() -> None:
    presets = {Ruleset.from_spec(g["log"]["ruleset"]).preset for g in GAMES}
    assert presets == set(PRESETS)
    bonuses = [p["bonus"] for g in GAMES for rnd in g["plays"] for p in rnd]
    assert sum(1 for b in bonuses if b) >= 20
    assert any(p.get("closed") for g in GAMES for rnd in g["plays"] for p in rnd)


ROUND_GAMES = json.loads((VECTORS / "rounds-sha256-fy-1.json").read_text())["games"]
RESOLVED = json.loads((VECTORS / "resolve-1.json").read_text())["rulesets"]


@pytest.mark.parametrize("game", ROUND_GAMES, ids=lambda g: g["log"]["game_id"])
def test_round_vector(game: dict[str, Any]) -> None:
    doc = game["log"]
    rules = Ruleset.from_spec(doc["ruleset"])
    match = Match(rules, len(doc["players"]))
    assert len(game["rounds"]) == len(doc["rounds"])
    for r, (rdoc, want) in enumerate(zip(doc["rounds"], game["rounds"], strict=True), 1):
        state = match.new_round(seed=f"{doc['seed']}/{r}", opener=rdoc.get("opener"))
        refusals = {x["move"]: x for x in want["refusals"]}
        assert len(want["steps"]) == len(rdoc["moves"])
        for m, (mdoc, step) in enumerate(zip(rdoc["moves"], want["steps"], strict=True), 1):
            assert step["move"] == m
            assert every_move(state) == step["legal"], (r, m)
            if rules.bonus:
                scores = []
                for text in step["legal"]:
                    seat, what, *rest = text.split(" ")
                    move = Move(int(seat), what) if what in ("draw", "pass") else Move(
                        int(seat), "play", what, rest[0] if rest else None, "closed" in rest)
                    scores.append(state.score_of(move))
                assert scores == step["bonus"], (r, m)
            if m in refusals:
                tried = refusals[m]["try"]
                with pytest.raises(IllegalMove) as refused:
                    state.check(Move(tried["player"], tried["action"], tried.get("tile"),
                                     tried.get("end"), tried.get("closed") is True))
                assert refused.value.message == refusals[m]["reason"]
            state.apply(Move(mdoc["player"], mdoc["action"], mdoc.get("tile"), mdoc.get("end"),
                             mdoc.get("closed") is True))
        assert state.result is not None
        assert round_answer(state.result) == want["result"]
        match.finish_round(state.result)
        assert [number(s) for s in match.scores] == want["scores"]
    assert [number(s) for s in match.scores] == game["scores"]
    assert list(match.winners) == game["winners"] and match.over


def test_round_vectors_cover_every_preset_and_what_changes_a_round() -> None:
    docs = [g["log"] for g in ROUND_GAMES]
    assert {Ruleset.from_spec(d["ruleset"]).preset for d in docs} == set(PRESETS)
    results = [r["result"] for g in ROUND_GAMES for r in g["rounds"]]
    assert any(r["blocked"] for r in results)
    assert any(p != int(p) for r in results for p in r["points"])  # a split kept exact
    assert any(not r["winners"] for r in results)
    assert any(m.get("closed") for d in docs for r in d["rounds"] for m in r["moves"])
    options = {k for d in docs for k in d["ruleset"]["options"]}
    assert {"draw", "partnerships", "sets", "hands", "target_mode", "spinner_arms",
            "blocked_scoring", "max_pip", "tie_break", "spinner_max_arms"} <= options
    assert sum(len(r["refusals"]) for g in ROUND_GAMES for r in g["rounds"]) > 300


@pytest.mark.parametrize("vector", RESOLVED, ids=lambda v: json.dumps(v["ruleset"])[:60])
def test_resolve_vector(vector: dict[str, Any]) -> None:
    if "players" in vector:
        rules = Ruleset.from_spec(vector["ruleset"])
        if "error" in vector:
            with pytest.raises(RulesetError) as refused:
                rules.check_players(vector["players"])
            assert refused.value.message == vector["error"]["message"]
            assert refused.value.pointer == vector["error"]["pointer"]
        else:
            rules.check_players(vector["players"])
            assert rules.tiles_each(vector["players"]) == vector["tiles_each"]
            assert rules.opening_for(vector["players"]) == vector["opening"]
        return
    if "error" in vector:
        with pytest.raises(RulesetError) as refused:
            Ruleset.from_spec(vector["ruleset"])
        assert refused.value.message == vector["error"]["message"]
        assert refused.value.pointer == vector["error"]["pointer"]
    else:
        assert Ruleset.from_spec(vector["ruleset"]).to_json() == vector["rules"]
