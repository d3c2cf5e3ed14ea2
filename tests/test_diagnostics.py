"""Diagnostics that point at the cause: each test is a log that makes one logger's mistake.

- a wrong bonus reading: the claimed scores part from the engine's at some round;
- a game that stops early: a warning, and a failure with ``validate --strict``;
- a deal that differs from the recorder's: the refusal says so and names the
  ``recorder deal`` command that shows the recorder's deal.
"""

from __future__ import annotations

import copy
import json
import re
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
    assert ("diag-1: ok (unfinished, 1 round); warning: the log stops after round 1, and "
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


# ---------------------------------------------------------------------------------------
# Claims that differ fail loudly; refusals name a cause that lies earlier in the round.


def _kozel_scored_the_normal_way() -> dict[str, Any]:
    """A kozel game whose frontend claims each domino as if the winner took the others'
    pips (opponents-pips), where kozel gives each other player their own pips."""
    doc = simulate_game("kozel", 3, "diag-kozel", game_id="diag-kozel")
    for rdoc in doc["rounds"]:
        result = rdoc["result"]
        if not result["blocked"]:
            w = result["ended_by"]
            left = result["pips_left"]
            result["points"] = [sum(left) if p == w else 0 for p in range(3)]
    return doc


def test_validate_strict_fails_a_mis_scored_game_and_names_the_first_figure(
        tmp_path: Path) -> None:
    doc = _kozel_scored_the_normal_way()
    answer = replay(doc)
    assert answer["status"] == "finished"
    first = answer["mismatches"][0]
    assert first["field"] == "points"
    ids = [p["id"] for p in doc["players"]]
    figures = ", ".join(str(x) for x in first["claimed"])
    engine = ", ".join(str(x) for x in first["computed"])
    named = f"round {first['round']}'s claimed points {figures}; the engine's {engine}"
    more = len(answer["mismatches"]) - 1
    assert more > 1
    plain = run("validate", doc=doc, tmp=tmp_path)
    assert plain.exit_code == 0
    assert (f"diag-kozel: ok (finished, {len(doc['rounds'])} rounds); warning: {named} "
            f"(and {more} more claimed figures differ) (--strict refuses claims that differ)"
            ) in plain.output
    strict = run("validate", "--strict", doc=doc, tmp=tmp_path)
    assert strict.exit_code == 1
    assert f"diag-kozel: claims differ: {named} (and {more} more" in strict.output
    assert "1 whose claims differ" in strict.output
    assert ids[0] in strict.output  # the scores part says who, by player id


def test_one_differing_claim_is_one_figure(game: dict[str, Any], tmp_path: Path) -> None:
    bad = copy.deepcopy(game)
    computed = replay(game)["rounds"][0]["winners"]
    assert len(computed) == 1
    bad["rounds"][1]["result"]["pips_left"] = [0, 99]
    bad["rounds"][0]["result"]["winners"] = [1 - computed[0]]
    out = run("validate", "--strict", doc=bad, tmp=tmp_path)
    assert out.exit_code == 1
    ids = [p["id"] for p in bad["players"]]
    assert (f"claims differ: round 1's claimed winners {ids[1 - computed[0]]}; the engine's "
            f"{ids[computed[0]]} (and 1 more claimed figure differs)") in out.output
    replayed = run("replay", doc=bad, tmp=tmp_path).output
    assert "note: round 2's claimed pips left 0, 99; the engine's" in replayed


def _every_end_named(doc: dict[str, Any]) -> dict[str, Any]:
    """The game as a frontend writes it that names the end of every play."""
    from recorder.engine import END_NAMES
    from recorder.replay import open_game, walk

    named = copy.deepcopy(doc)
    for event in walk(doc, open_game(doc)):
        if event.__class__.__name__ == "MoveEvent" and event.move.action == "play" \
                and event.state.phase == "play":
            end = END_NAMES[event.state.check(event.move)[2]]
            named["rounds"][event.round - 1]["moves"][event.move_no - 1]["end"] = end
    return named


def _end_swapped(doc: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The frontend's table put one tile on the other end that took it than its log says."""
    doc = _every_end_named(doc)
    for m, move in enumerate(doc["rounds"][0]["moves"]):
        if move["action"] != "play" or move.get("end") not in ("left", "right"):
            continue
        bad = copy.deepcopy(doc)
        bad["rounds"][0]["moves"][m]["end"] = "right" if move["end"] == "left" else "left"
        answer = replay(bad)
        if answer["status"] == "invalid" and " end shows " in answer["error"]["message"] \
                and answer["error"]["move"] > m + 1:
            return bad, m + 1
    raise AssertionError("no swap makes a later move fail")


def test_a_wrong_end_far_back_lists_every_end_and_points_at_recorder_replay() -> None:
    doc = simulate_game("classic", 2, "diag-ends", game_id="diag-ends")
    bad, swapped = _end_swapped(doc)
    error = replay(bad)["error"]
    message = error["message"]
    assert error["move"] > swapped
    assert re.search(r": the (left|right) end shows \d \(ends: left \d, right \d\); legal here",
                     message), message
    assert message.endswith("(an earlier move may have gone to another end: `recorder replay` "
                            "shows the ends after every move)")


def test_an_italian_round_opened_the_other_way_round_says_so() -> None:
    for i in range(40):
        doc = simulate_game("italian", 2, f"diag-italian-{i}", game_id="diag-italian")
        first = doc["rounds"][0]["moves"][0]
        a, b = first["tile"].split("-")
        if a == b:
            continue
        bad = copy.deepcopy(doc)
        bad["rounds"][0]["moves"][0]["tile"] = f"{b}-{a}"  # as the frontend wrote it
        error = replay(bad).get("error")
        if error and error["round"] == 1:
            break
    else:
        raise AssertionError("no italian game fails when its first tile is turned")
    assert error["move"] > 1
    assert error["message"].endswith(
        f"(this round opened {b}-{a}, so {b} lies on the left and {a} on the right; read as "
        f"{a}-{b}, the round replays to its end: the first tile lies with its first written "
        "half on the left)"), error["message"]


def test_a_tied_opening_names_the_holders_and_the_lot_not_the_deal() -> None:
    from recorder.deal import deal_of
    from recorder.rules import Ruleset

    spec = {"preset": "spilop", "options": {"sets": 2}}
    rules = Ruleset.from_spec(spec)
    seed = next(f"diag-lot-{i}" for i in range(500)
                if deal_of(rules, 4, f"diag-lot-{i}/1")["lot"] is not None)
    doc = simulate_game(spec, 4, seed, game_id=seed, max_rounds=1)
    dealt = deal_of(rules, 4, f"{seed}/1")
    tile, lot = dealt["opens"]["tile"], dealt["lot"]
    tied = [s for s, hand in enumerate(dealt["hands"]) if tile in hand]
    other = next(s for s in tied if s != lot)
    bad = copy.deepcopy(doc)
    bad["rounds"][0]["moves"] = [{"player": other, "action": "play", "tile": tile}]
    message = replay(bad)["error"]["message"]
    ids = [p["id"] for p in doc["players"]]
    holders = " and ".join(ids[s] for s in tied) if len(tied) == 2 else None
    assert f"not this player's turn: {ids[lot]} opens with {tile} (" in message
    if holders:
        assert f"({holders} hold {tile}; the lot names {ids[lot]})" in message
    assert "a lot drawn from the round's stream right after the deal chooses the opener" \
        in message
    assert "deal may differ" not in message


def _bonus_with_empty_arms(doc: dict[str, Any]) -> dict[str, Any]:
    """What a frontend claims that adds the spinner's open arms to the sum, tile or not."""
    from recorder.engine import Move
    from recorder.replay import open_game, walk

    bad = copy.deepcopy(doc)
    game = open_game(doc)
    claimed: list[list[int]] = []
    pending = None
    for event in walk(doc, game):
        if pending is not None:
            state = event.state
            total = state.open_end_sum() + sum(
                state.value[e] for e in (2, 3) if state.value[e] >= 0 and not state.covered[e])
            if total > 0 and total % 5 == 0:
                claimed[-1][pending] += total
            pending = None
        if event.__class__.__name__ == "RoundStart":
            claimed.append([0] * len(doc["players"]))
        elif event.__class__.__name__ == "MoveEvent" and event.move.action == "play":
            pending = event.move.player
        if event.__class__.__name__ == "RoundEnd" and pending is not None:
            pending = None
    assert isinstance(Move, type)
    for rdoc, bonus in zip(bad["rounds"], claimed, strict=True):
        rdoc["result"]["bonus"] = bonus
    del bad["result"]
    return bad


def test_a_bonus_that_counts_empty_spinner_arms_is_named_as_the_bonus(
        tmp_path: Path) -> None:
    doc = simulate_game(BONUS, 3, "diag-arms", game_id="diag-arms")
    bad = _bonus_with_empty_arms(doc)
    answer = replay(bad)
    first = next(m for m in answer["mismatches"] if m["field"] == "bonus")
    out = run("validate", "--strict", doc=bad, tmp=tmp_path)
    assert out.exit_code == 1
    assert f"round {first['round']}'s claimed bonus " in out.output
    assert ("the claimed bonus is what the sum gives when the spinner's arms that hold no "
            "tile count too; an arm counts nothing until a tile lies on it") in out.output
