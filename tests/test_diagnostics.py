"""Diagnostics that point at the cause: each test is a log that makes one logger's mistake.

- a wrong bonus reading: the claimed scores part from the engine's at some round;
- a game that stops early: a warning, and a failure with ``validate --strict``;
- a deal that differs from the recorder's: the refusal says so and names the
  ``recorder deal`` command that shows the recorder's deal.
"""

from __future__ import annotations

import copy
import json
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from recorder.cli import main
from recorder.replay import replay
from recorder.simulate import simulate_game

BONUS = {"preset": "spilop", "options": {"bonus": True}}


@pytest.fixture(scope="module")
def game() -> dict[str, Any]:
    """A finished two-round spilop game with bonus: 30+15 in round 1, 85+10 in round 2."""
    doc = simulate_game(BONUS, 2, "diag-1", game_id="diag-1")
    assert [r["result"]["bonus"] for r in doc["rounds"]] == [[30, 15], [85, 10]]
    return doc


def run(*args: str, doc: dict[str, Any] | None = None, tmp: Path | None = None) -> Any:
    if doc is not None and tmp is not None:
        path = tmp / "game.json"
        path.write_text(json.dumps(doc))
        args = (*args, str(path))
    return CliRunner().invoke(main, list(args))


def without_bonus(doc: dict[str, Any]) -> dict[str, Any]:
    """What a logger that never scores the bonus claims: bonus 0, and scores to match."""
    bad = copy.deepcopy(doc)
    totals = [0, 0]
    for rdoc in bad["rounds"]:
        rdoc["result"]["bonus"] = [0, 0]
        totals = [t + p for t, p in zip(totals, rdoc["result"]["points"], strict=True)]
    bad["result"] = {"scores": totals, "winners": []}
    return bad


def test_wrong_bonus_reading_says_where_the_scores_part(game: dict[str, Any],
                                                        tmp_path: Path) -> None:
    bad = without_bonus(game)
    answer = replay(bad)
    assert answer["status"] == "finished"
    assert answer["scores_differ"] == {"round": 1, "claimed": [0, 2], "computed": [30, 17],
                                       "by": [-30, -15]}
    assert {m["field"] for m in answer["mismatches"]} == {"bonus", "scores", "winners"}
    out = run("validate", doc=bad, tmp=tmp_path).output
    assert "the claimed scores first differ from the engine's after round 1: ingaan -30, " \
        "brygger -15 (claimed minus computed)" in out
    transcript = run("replay", doc=bad, tmp=tmp_path).output
    assert "note: the claimed scores first differ from the engine's after round 1" in transcript


def test_a_round_after_the_engines_end_says_why_the_game_ended(game: dict[str, Any]) -> None:
    """The logger, short of bonus, plays on: the refusal gives scores and where they part."""
    bad = without_bonus(game)
    del bad["result"]
    bad["rounds"][0]["result"]["bonus"] = [30, 15]  # round 1 claimed right, round 2 wrong
    bad["rounds"].append({"moves": []})
    message = replay(bad)["error"]["message"]
    assert message.startswith("round 3: the game ended after round 2; no round may follow")
    assert "the engine's scores after round 2 are 117, 27; target 100, reaching it wins" \
        in message
    assert "the claimed scores first differ from the engine's after round 2: ingaan -85, " \
        "brygger -10" in message


def test_a_round_after_the_end_without_claims_asks_for_them(game: dict[str, Any]) -> None:
    bad = copy.deepcopy(game)
    for rdoc in bad["rounds"]:
        del rdoc["result"]
    del bad["result"]
    bad["rounds"].append({"moves": []})
    message = replay(bad)["error"]["message"]
    assert "claim each round's result (points, bonus) to see where" in message


def test_final_scores_only_differ(game: dict[str, Any]) -> None:
    bad = copy.deepcopy(game)
    bad["result"]["scores"] = [110, 27]
    answer = replay(bad)
    assert answer["scores_differ"] == {"round": 0, "claimed": [110, 27],
                                       "computed": [117, 27], "by": [-7, 0]}


def test_unfinished_game_warns_and_strict_fails(game: dict[str, Any], tmp_path: Path) -> None:
    short = copy.deepcopy(game)
    short["rounds"] = short["rounds"][:1]
    del short["result"]
    plain = run("validate", doc=short, tmp=tmp_path)
    assert plain.exit_code == 0
    assert ("diag-1: ok (unfinished, 1 rounds); warning: the log stops after round 1, and "
            "nobody has reached the target 100 (highest score 30)") in plain.output
    strict = run("validate", "--strict", doc=short, tmp=tmp_path)
    assert strict.exit_code == 1
    assert "diag-1: unfinished: the log stops after round 1" in strict.output
    cut = copy.deepcopy(short)
    cut["rounds"].append({"moves": cut["rounds"][0]["moves"][:0]})
    out = run("validate", "--strict", doc=cut, tmp=tmp_path)
    assert out.exit_code == 1
    assert "round 2 is cut off before its end" in out.output
    finished = run("validate", "--strict", doc=game, tmp=tmp_path)
    assert finished.exit_code == 0 and "warning" not in finished.output


def _deal_command(message: str) -> list[str]:
    command = message.split("`")[1]
    assert command.startswith("recorder deal ")
    return shlex.split(command)[2:]


def test_a_deal_that_differs_is_named_at_the_first_move(game: dict[str, Any]) -> None:
    """The frontend shuffled differently: its opener is not the recorder's."""
    bad = copy.deepcopy(game)
    bad["seed"] = "diag-2"  # the recorder now deals other hands than the log's
    message = replay(bad)["error"]["message"]
    assert message.startswith("round 1, move 1 (")
    assert ("(the frontend's deal may differ from the recorder's: compare it with "
            "`recorder deal diag-2 --preset spilop -o bonus=true --players 2 --round 1`)"
            ) in message
    shown = CliRunner().invoke(main, ["deal", *_deal_command(message), "--json"])
    assert shown.exit_code == 0, shown.output
    deal = json.loads(shown.output)
    assert deal["seed"] == "diag-2/1"
    assert sum(len(h) for h in deal["hands"]) + len(deal["boneyard"]) == 28


def test_out_of_turn_first_move_of_a_seeded_round(game: dict[str, Any]) -> None:
    bad = copy.deepcopy(game)
    first = bad["rounds"][0]["moves"][0]
    first["player"] = 1 - first["player"]
    message = replay(bad)["error"]["message"]
    assert "not this player's turn" in message
    assert "the frontend's deal may differ" in message


def test_a_round_with_its_own_seed_names_that_seed(game: dict[str, Any]) -> None:
    bad = copy.deepcopy(game)
    bad["rounds"][1]["seed"] = "its own seed"
    message = replay(bad)["error"]["message"]
    assert message.startswith("round 2, move 1")
    assert ("`recorder deal 'its own seed' --preset spilop -o bonus=true --players 2`"
            in message)


def test_a_drawn_tile_that_is_not_the_recorders_names_the_deal(game: dict[str, Any]) -> None:
    bad = copy.deepcopy(game)
    moves = bad["rounds"][0]["moves"]
    draw = next(m for m in moves if m["action"] == "draw")
    draw["tile"] = "0-0" if draw["tile"] != "0-0" else "1-1"
    message = replay(bad)["error"]["message"]
    assert "the next tile of the boneyard is" in message
    assert "the frontend's deal may differ" in message


def test_no_deal_hint_for_a_mistake_later_in_the_round(game: dict[str, Any]) -> None:
    """A wrong end or an out-of-turn move mid-round is the logger's, not the deal's."""
    bad = copy.deepcopy(game)
    bad["rounds"][0]["moves"][3]["player"] = 1 - bad["rounds"][0]["moves"][3]["player"]
    message = replay(bad)["error"]["message"]
    assert "not this player's turn" in message
    assert "deal may differ" not in message


def test_no_deal_hint_for_an_explicit_deal() -> None:
    doc = simulate_game(BONUS, 2, "diag-3", game_id="diag-3", explicit_deal=True,
                        max_rounds=1)
    first = doc["rounds"][0]["moves"][0]
    first["player"] = 1 - first["player"]
    message = replay(doc)["error"]["message"]
    assert "not this player's turn" in message
    assert "deal may differ" not in message
