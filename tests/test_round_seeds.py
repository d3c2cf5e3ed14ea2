"""Which seed deals a round: its own, else ``"<game seed>/<n>"`` with n the round's number.

docs/format.md: round n without its own ``seed`` or ``deal`` is shuffled from
``"<game seed>/<n>"``, whatever the rounds before it were dealt from. A game whose
round 1 brings its own deal or seed and whose round 2 has neither must deal round 2
from ``"<seed>/2"``, not from ``"<seed>/1"`` (the first round dealt from the game
seed): the expected hands are worked out here from the contract's shuffle and dealing
rule (``tests/logs.py``), not by the engine.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from logs import accepted, canonical, dealt, norm, shuffled

from recorder.frames import build_frames
from recorder.replay import replay
from recorder.simulate import simulate_game

PRESET, PLAYERS, EACH = "spilop", 2, 7  # no redeal: one shuffle gives the deal
SEED = "round-seeds"


def contract_deal(seed: str) -> dict[str, Any]:
    """The explicit deal ``seed`` gives under the contract: hands, then the boneyard."""
    order, _ = shuffled(seed)
    hands, boneyard = dealt(order, PLAYERS, EACH)
    return {"hands": hands, "boneyard": boneyard}


@pytest.fixture(scope="module")
def game() -> dict[str, Any]:
    """A simulated game of three rounds or more, every round dealt from the game seed."""
    doc = simulate_game(PRESET, PLAYERS, SEED, game_id="seeds")
    assert len(doc["rounds"]) >= 3 and all(
        "seed" not in r and "deal" not in r for r in doc["rounds"])
    assert accepted(replay(doc))["status"] == "finished"
    return doc


def hands_dealt(doc: dict[str, Any], round_no: int) -> list[set[str]]:
    """The hands the replay's first frame of round ``round_no`` shows."""
    frames = build_frames(doc)
    assert frames["error"] is None, frames["error"]
    first = frames["rounds"][round_no - 1]["frames"][0]
    return [{norm(t) for t in hand} for hand in first["hands"]]


def as_sets(deal: dict[str, Any]) -> list[set[str]]:
    return [{norm(t) for t in hand} for hand in deal["hands"]]


def test_the_contract_deals_differ_from_round_to_round() -> None:
    """The test below can tell the rounds apart: "<seed>/1" and "<seed>/2" deal differently."""
    one, two = contract_deal(f"{SEED}/1"), contract_deal(f"{SEED}/2")
    assert as_sets(one) != as_sets(two)
    assert len(one["boneyard"]) == len(canonical()) - PLAYERS * EACH


@pytest.mark.parametrize("own", ["deal", "seed"])
def test_round_two_is_dealt_from_its_number_after_a_round_with_its_own(
        game: dict[str, Any], own: str) -> None:
    doc = copy.deepcopy(game)
    # round 1 brings the same tiles as the game seed gives it, written out in the log
    if own == "deal":
        doc["rounds"][0]["deal"] = contract_deal(f"{SEED}/1")
    else:
        doc["rounds"][0]["seed"] = f"{SEED}/1"
    assert hands_dealt(doc, 1) == as_sets(contract_deal(f"{SEED}/1"))
    # round 2 has neither: it is dealt from "<seed>/2", as in the game it came from
    assert hands_dealt(doc, 2) == as_sets(contract_deal(f"{SEED}/2"))
    assert hands_dealt(doc, 3) == as_sets(contract_deal(f"{SEED}/3"))
    answer = replay(doc)
    assert answer["status"] == "finished", answer.get("error")
    assert answer == {**replay(game), "game_id": answer["game_id"]}


def test_round_one_with_another_seed_leaves_round_two_on_the_game_seed(
        game: dict[str, Any]) -> None:
    """Round 1 dealt from a seed of its own (another game's round): round 2 still deals
    from "<seed>/2" and its logged moves stay legal."""
    other = simulate_game(PRESET, PLAYERS, "another-game", game_id="other")
    doc = copy.deepcopy(game)
    doc["rounds"][0] = {**copy.deepcopy(other["rounds"][0]), "seed": "another-game/1"}
    doc["rounds"] = doc["rounds"][:2]
    doc.pop("result")
    answer = accepted(replay(doc))
    assert hands_dealt(doc, 1) == as_sets(contract_deal("another-game/1"))
    assert hands_dealt(doc, 2) == as_sets(contract_deal(f"{SEED}/2"))
    assert answer["rounds"][1] == replay(game)["rounds"][1]
