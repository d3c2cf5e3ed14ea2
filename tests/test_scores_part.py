"""Where a log's claimed scores part from the engine's: exact figures and exact words.

Written against survivors of mutation testing (docs/testing.md): the tests before these
checked that a note was there, not what it said, so a wrong sign, a wrong round or a
claim read from the wrong field went unnoticed.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from conftest import make_game

from recorder.replay import _signed, _text, part_text, replay, scores_part


@pytest.fixture(scope="module")
def game() -> dict[str, Any]:
    """A finished classic game of several rounds, each claiming its own true result."""
    doc = make_game(6, ruleset="classic", players=2)
    assert len(doc["rounds"]) >= 3
    return doc


def rounds_of(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return replay(doc)["rounds"]


def test_true_claims_part_nowhere(game: dict[str, Any]) -> None:
    answer = replay(game)
    assert scores_part(game, answer["rounds"], answer["scores"]) is None
    assert "scores_differ" not in answer


def test_a_wrong_point_in_round_two_parts_there_by_its_amount(game: dict[str, Any]) -> None:
    doc = copy.deepcopy(game)
    rounds = rounds_of(doc)
    points = list(rounds[1]["points"])
    points[0] += 3
    doc["rounds"][1]["result"]["points"] = points
    part = scores_part(doc, rounds)
    computed = [sum(r["points"][p] + r["bonus"][p] for r in rounds[:2]) for p in range(2)]
    assert part == {"round": 2, "claimed": [computed[0] + 3, computed[1]],
                    "computed": computed, "by": [3, 0]}
    ids = [p["id"] for p in doc["players"]]
    assert part_text(part, ids) == (
        "the claimed scores first differ from the engine's after round 2: "
        f"{ids[0]} +3 (claimed minus computed)")


def test_a_wrong_bonus_counts_too_and_a_negative_difference_is_signed(
        game: dict[str, Any]) -> None:
    doc = copy.deepcopy(game)
    rounds = rounds_of(doc)
    bonus = list(rounds[0]["bonus"])
    bonus[1] -= 2.5
    doc["rounds"][0]["result"]["bonus"] = bonus
    part = scores_part(doc, rounds)
    assert part is not None and part["round"] == 1 and part["by"] == [0, -2.5]
    assert part_text(part, ["a", "b"]).endswith("after round 1: b -2.50 (claimed minus computed)")


@pytest.mark.parametrize("claim", [None, "12", [1], [1, "2"], [True, False], {"a": 1}])
def test_claims_that_are_not_a_list_of_numbers_per_player_are_not_used(
        game: dict[str, Any], claim: Any) -> None:
    doc = copy.deepcopy(game)
    doc["rounds"][0]["result"]["points"] = claim  # the schema refuses most: read anyway
    assert scores_part(doc, rounds_of(game)) is None


def test_rounds_without_a_claim_take_the_engines_figures(game: dict[str, Any]) -> None:
    doc = copy.deepcopy(game)
    rounds = rounds_of(doc)
    for rnd in doc["rounds"][:2]:
        del rnd["result"]
    doc["rounds"][2]["result"]["points"] = [p + 1 for p in rounds[2]["points"]]
    part = scores_part(doc, rounds)
    assert part is not None and part["round"] == 3 and part["by"] == [1, 1]


def test_only_the_final_scores_differ(game: dict[str, Any]) -> None:
    doc = copy.deepcopy(game)
    answer = replay(doc)
    doc["result"]["scores"] = [answer["scores"][0], answer["scores"][1] - 7]
    part = scores_part(doc, answer["rounds"], answer["scores"])
    assert part == {"round": 0, "claimed": doc["result"]["scores"],
                    "computed": answer["scores"], "by": [0, -7]}
    assert part_text(part, ["a", "b"]) == (
        "the claimed final scores differ from the engine's: b -7 (claimed minus computed)")
    assert scores_part(doc, answer["rounds"]) is None  # without the final scores: no part
    doc["result"]["scores"] = [answer["scores"][0]]  # not one per player: not compared
    assert scores_part(doc, answer["rounds"], answer["scores"]) is None


def test_numbers_in_words() -> None:
    assert (_text(3), _text(3.0), _text(2.5), _text(-1.25)) == ("3", "3", "2.50", "-1.25")
    assert (_signed(2), _signed(0), _signed(-2)) == ("+2", "0", "-2")


def test_a_log_that_plays_on_after_the_end_says_where_the_claims_part(
        game: dict[str, Any]) -> None:
    doc = copy.deepcopy(game)
    extra = copy.deepcopy(doc["rounds"][-1])
    doc["rounds"].append(extra)
    rounds = rounds_of(game)
    doc["rounds"][0]["result"]["points"] = [p + 4 for p in rounds[0]["points"]]
    answer = replay(doc)
    message = answer["error"]["message"]
    n = len(game["rounds"])
    scores = ", ".join(_text(s) for s in replay(game)["scores"])
    assert message.startswith(f"round {n + 1}: the game ended after round {n}")
    assert f"(the engine's scores after round {n} are {scores}; target 100, reaching it " \
        "wins; the claimed scores first differ from the engine's after round 1: " in message
    for rnd in doc["rounds"]:
        del rnd["result"]
    message = replay(doc)["error"]["message"]
    assert message.endswith("reaching it wins; claim each round's result (points, bonus) to "
                            "see where the frontend's scores part from the engine's)")
