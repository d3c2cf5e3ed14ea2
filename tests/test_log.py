"""The log builder (recorder.log): documents that replay, and refusals where the mistake is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recorder.engine import Match
from recorder.log import GameLog, LogError
from recorder.replay import number, replay
from recorder.rules import find
from recorder.simulate import simulate_game

ROOT = Path(__file__).resolve().parent.parent


def test_a_game_recorded_move_by_move_replays() -> None:
    """Play with the engine, record through the builder: the document is valid."""
    rules = find("classic")
    match = Match(rules, 2)
    log = GameLog("classic", ["ann", {"id": "bo", "name": "Bo"}], seed="builder-1",
                  game_id="builder-1", frontend={"name": "tests", "version": "1"})
    while not match.over and len(log.rounds) < 30:
        state = match.new_round(seed=f"builder-1/{len(log.rounds) + 1}")
        log.start_round()
        while not state.over:
            move = state.legal_moves(state.turn)[0]
            state.apply(move)
            if move.action == "play":
                log.play(move.player, move.tile or "", move.end, ms=1200)
            elif move.action == "draw":
                log.draw(move.player)
            else:
                log.pass_(move.player)
        assert state.result is not None
        match.finish_round(state.result)
        log.end_round()
    log.finish({"scores": [number(s) for s in match.scores], "winners": list(match.winners)})
    doc = json.loads(log.dumps())
    answer = replay(doc)
    assert answer["status"] == "finished", answer
    assert "mismatches" not in answer
    assert list(doc) == ["format", "game_id", "frontend", "ruleset", "players", "seed",
                         "rounds", "result"]
    assert doc["players"] == [{"id": "ann"}, {"id": "bo", "name": "Bo"}]


@pytest.mark.parametrize("name", ["classic-2p.jsonl", "spilop-bonus-3p.jsonl",
                                  "classic-explicit-deal-3p.jsonl"])
def test_simulate_through_the_builder_writes_the_sample_games_byte_for_byte(name: str) -> None:
    line = (ROOT / "sample_games" / name).read_text().splitlines()[0]
    doc = json.loads(line)
    again = simulate_game(doc["ruleset"], len(doc["players"]), doc["seed"],
                          game_id=doc["game_id"], started_at=doc.get("started_at"),
                          explicit_deal="deal" in doc["rounds"][0])
    assert json.dumps(again, ensure_ascii=False) == line


def test_explicit_deal_and_round_seed() -> None:
    log = GameLog("italian", ["a", "b"])
    log.start_round(seed="own-seed")
    log.end_round()
    hands = [["0-0"] * 7, ["0-1"] * 7]
    log.start_round(deal={"hands": hands, "boneyard": []})
    assert log.to_dict()["rounds"] == [{"seed": "own-seed", "moves": []},
                                      {"deal": {"hands": hands, "boneyard": []}, "moves": []}]


@pytest.mark.parametrize(("call", "message"), [
    (lambda g: g.play(0, "6-6"), "no round is open to record a move in; call start_round first"),
    (lambda g: (g.start_round(), g.play(2, "6-6")), "player is a seat from 0 to 1, not 2"),
    (lambda g: (g.start_round(), g.play(True, "6-6")), "player is a seat from 0 to 1, not True"),
    (lambda g: (g.start_round(), g.play(0, "6:6")), "'6:6' is not a tile"),
    (lambda g: (g.start_round(), g.play(0, "6-6", "top")), "'top' is not an end"),
    (lambda g: (g.start_round(), g.draw(0, ms=-1)), "ms is a whole number of milliseconds"),
    (lambda g: (g.start_round(), g.start_round()), "round 1 is still open; end it first"),
    (lambda g: (g.finish(), g.start_round()), "the game is finished; no round may follow"),
    (lambda g: g.start_round(seed="x", deal={"hands": []}), "a seed or a deal, not both"),
])
def test_the_builder_refuses_what_no_recorder_accepts(call: object, message: str) -> None:
    log = GameLog("spilop", ["a", "b"], seed="s")
    with pytest.raises(LogError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(log)  # type: ignore[operator]


def test_a_round_needs_a_seed_somewhere() -> None:
    with pytest.raises(LogError, match="the game has no seed"):
        GameLog("spilop", ["a", "b"]).start_round()
    with pytest.raises(LogError, match="unique"):
        GameLog("spilop", ["a", "a"])


def test_closed_doubles_and_named_openers_are_written() -> None:
    doc = simulate_game("all-fives", 2, "closed-2", game_id="closed-2")
    closed = [m for r in doc["rounds"] for m in r["moves"] if m.get("closed")]
    assert closed and list(closed[0])[-2:] == ["closed", "ms"]
    assert replay(doc)["status"] == "finished"
    log = GameLog("openspiel-block", ["a", "b"], seed="s")
    log.start_round(opener=1)
    assert log.to_dict()["rounds"][0] == {"opener": 1, "moves": []}
    with pytest.raises(LogError, match="opener is a seat from 0 to 1, not 2"):
        log.end_round()
        log.start_round(opener=2)


@pytest.mark.parametrize("bots", [["blocker", "blocker"], ["bonus", "blocker"],
                                  ["blocker", "heavy"]])
def test_simulated_explicit_deals_track_the_scores_rules_need_mid_round(bots: list[str]) -> None:
    """all-fives ends the game at the play that reaches the target: the simulator must
    deal explicit rounds through the match, which knows the scores, as the replay does."""
    doc = simulate_game({"preset": "all-fives", "options": {"target": 61}}, 2, "000000000",
                        bots, explicit_deal=True, max_rounds=12)
    answer = replay(doc)
    assert answer["status"] == "finished", answer.get("error")
    assert "mismatches" not in answer
