"""House rules of other engines (OpenSpiel, ``dominoes``, all-fives-domino): each option
on both sides, legal and illegal, and the contradictions that are refused.

The positions are small on purpose: ``hand_size: 2`` with four players gives a domino
or a blocked round within a few moves, so every figure below is counted by hand.
"""

from __future__ import annotations

from typing import Any

import pytest
from logs import deal, log, one_round, only_round, position, refused, run

from recorder.errors import RulesetError
from recorder.replay import replay
from recorder.rules import PRESETS, Ruleset


def opts(preset: str, **options: object) -> dict[str, Any]:
    return {"preset": preset, "options": options}


# four players, two tiles each, no drawing, seat 0 opens with any tile
TEAM = {"partnerships": True, "draw": "none", "opening": "seat", "hand_size": 2}


def team(**extra: object) -> dict[str, Any]:
    return opts("classic", **TEAM, **extra)


# seat 0 goes out on move 5; left: seat 1 0-0 (0), seat 2 4-4 3-4 (15), seat 3 1-1 (2)
DOMINO_DEAL = deal("6-6 6-5", "6-0 0-0", "4-4 3-4", "0-1 1-1")
DOMINO_MOVES = ["0 play 6-6", "1 play 6-0 left", "2 pass", "3 play 0-1 left",
                "0 play 6-5 right"]
# blocked after move 4 (ends 5 and 1, nobody holds either): teams 2-2 + 4-4 = 12 and
# 3-3 + 2-4 = 12 tie; with 3-4 instead of 2-4 team 1 holds 13
TIED_DEAL = deal("6-6 2-2", "6-0 3-3", "6-1 4-4", "0-5 2-4")
LOWER_DEAL = deal("6-6 2-2", "6-0 3-3", "6-1 4-4", "0-5 3-4")
BLOCK_MOVES = ["0 play 6-6", "1 play 6-0 left", "2 play 6-1 right", "3 play 0-5 left"]


# ---------------------------------------------------------------------- hands


def test_hands_one_ends_the_game_after_round_one_whatever_the_score() -> None:
    answer = one_round(team(hands=1), 4, LOWER_DEAL, *BLOCK_MOVES)
    assert (answer["status"], answer["scores"], answer["winners"]) == (
        "finished", [13, 0, 13, 0], [0, 2])
    # without it the same round leaves the game unfinished, far from the target
    assert one_round(team(), 4, LOWER_DEAL, *BLOCK_MOVES)["status"] == "unfinished"


def test_hands_one_a_tied_round_has_no_winner() -> None:
    answer = one_round(team(hands=1, blocked_scoring="difference"), 4, TIED_DEAL,
                       *BLOCK_MOVES)
    assert (answer["status"], answer["scores"], answer["winners"]) == (
        "finished", [0, 0, 0, 0], [])


def test_hands_two_and_no_round_after_the_last() -> None:
    rounds = [{"deal": LOWER_DEAL, "moves": BLOCK_MOVES}] * 2
    answer = run(team(hands=2), 4, rounds)
    assert (answer["status"], answer["scores"]) == ("finished", [26, 0, 26, 0])
    refused(run(team(hands=2), 4, rounds * 2), 3, 0, "the game ended after round 2")


def test_hands_with_a_target_refused() -> None:
    refused(run(team(hands=1, target=50), 4, []), 0, 0, "target", "hands")


# ---------------------------------------------------------------------- opening: seat


def test_opening_seat_zero_opens_with_any_tile() -> None:
    state = position(team(), 4, LOWER_DEAL, "0 play 2-2")
    assert state.open_ends() == {"left": 2, "right": 2}


def test_opening_seat_another_seat_may_not_open() -> None:
    refused(one_round(team(), 4, LOWER_DEAL, "1 play 3-3"), 1, 1,
            "not this player's turn: ingaan opens;")


def test_opening_seat_the_round_names_the_opener() -> None:
    rounds = [{"deal": LOWER_DEAL, "opener": 2, "moves": ["2 play 4-4"]}]
    assert run(team(), 4, rounds)["status"] == "unfinished"
    rounds = [{"deal": LOWER_DEAL, "opener": 2, "moves": ["0 play 6-6"]}]
    refused(run(team(), 4, rounds), 1, 1, "svendbent opens;")


def test_opening_seat_works_with_a_seeded_deal() -> None:
    answer = run("openspiel-block", 2, [{"seed": "s", "opener": 1, "moves": []}])
    assert answer["status"] == "unfinished"
    seated = Ruleset.from_spec("openspiel-block")
    assert seated.opening_for(2) == "seat"


def test_an_opener_outside_the_seats_refused() -> None:
    rounds = [{"deal": LOWER_DEAL, "opener": 4, "moves": []}]
    refused(run(team(), 4, rounds), 1, 0, "opener is seat 4")


def test_an_opener_under_rules_that_choose_the_opener_refused() -> None:
    rounds = [{"deal": LOWER_DEAL, "opener": 1, "moves": []}]
    refused(run(opts("classic", partnerships=True, hand_size=2), 4, rounds), 1, 0,
            "names an opener", "highest-double")


def test_an_opener_that_is_not_a_seat_number_refused_by_the_schema() -> None:
    rounds = [{"deal": LOWER_DEAL, "opener": "north", "moves": []}]
    answer = run(team(), 4, rounds)
    assert answer["error"]["code"] == "log/schema"


def test_opening_seat_contradicts_a_spinner() -> None:
    with pytest.raises(RulesetError, match="spinner needs a double"):
        Ruleset.from_spec(team(spinner=True))


# ---------------------------------------------------------------------- scoring


def test_domino_all_pips_the_partners_pips_count_too() -> None:
    rnd = only_round(one_round(team(domino_scoring="all-pips"), 4, DOMINO_DEAL,
                               *DOMINO_MOVES))
    assert (rnd["winners"], rnd["points"], rnd["pips_left"]) == (
        [0, 2], [17, 0, 17, 0], [0, 0, 15, 2])
    rnd = only_round(one_round(team(), 4, DOMINO_DEAL, *DOMINO_MOVES))
    assert rnd["points"] == [2, 0, 2, 0]  # opponents-pips: the partner's 15 do not count


def test_blocked_lowest_takes_all_scores_both_teams() -> None:
    rnd = only_round(one_round(team(blocked_scoring="lowest-takes-all"), 4, LOWER_DEAL,
                               *BLOCK_MOVES))
    assert (rnd["winners"], rnd["points"], rnd["blocked"]) == ([0, 2], [25, 0, 25, 0], True)
    rnd = only_round(one_round(team(), 4, LOWER_DEAL, *BLOCK_MOVES))
    assert rnd["points"] == [13, 0, 13, 0]  # lowest-wins: only the other team's pips


def test_blocked_lowest_takes_all_equal_teams_nobody_scores() -> None:
    rnd = only_round(one_round(team(blocked_scoring="lowest-takes-all"), 4, TIED_DEAL,
                               *BLOCK_MOVES))
    assert (rnd["winners"], rnd["points"]) == ([], [0, 0, 0, 0])


def test_pips_decide_a_domino_can_lose() -> None:
    # seat 0 went out, but its partner holds 15 pips against the other team's 2
    rnd = only_round(one_round(team(pips_decide=True), 4, DOMINO_DEAL, *DOMINO_MOVES))
    assert (rnd["winners"], rnd["points"], rnd["blocked"], rnd["ended_by"]) == (
        [1, 3], [0, 15, 0, 15], False, 0)


def test_pips_decide_a_tie_has_no_winner() -> None:
    rnd = only_round(one_round(team(pips_decide=True), 4, TIED_DEAL, *BLOCK_MOVES))
    assert (rnd["winners"], rnd["points"]) == ([], [0, 0, 0, 0])


@pytest.mark.parametrize(("kept", "winners", "points"), [
    ("0-0", [], [0, 0]),  # 0 pips each: the player who went out does not win
    ("0-2", [0], [2, 0]),
])
def test_pips_decide_two_players_a_domino_against_nothing_ties(
        kept: str, winners: list[int], points: list[int]) -> None:
    rules = opts("classic", draw="none", opening="seat", hand_size=3, pips_decide=True)
    d = deal("6-6 6-5 5-4", f"6-1 1-0 {kept}")
    moves = ["0 play 6-6", "1 play 6-1 left", "0 play 6-5 right", "1 play 1-0 left",
             "0 play 5-4 right"]
    rnd = only_round(one_round(rules, 2, d, *moves))
    assert (rnd["winners"], rnd["points"], rnd["blocked"]) == (winners, points, False)


@pytest.mark.parametrize("other", ["domino_scoring", "blocked_scoring"])
def test_pips_decide_with_another_scoring_refused(other: str) -> None:
    value = "penalty" if other == "domino_scoring" else "fish"
    refused(run(team(pips_decide=True, **{other: value}), 4, []), 0, 0, other, "pips_decide")


# ---------------------------------------------------------------------- tie pot


def test_tie_pot_goes_to_the_next_rounds_winner() -> None:
    rounds = [{"deal": TIED_DEAL, "moves": BLOCK_MOVES},
              {"deal": LOWER_DEAL, "moves": BLOCK_MOVES}]
    answer = run(team(pips_decide=True, tie_pot=True), 4, rounds)
    assert [r["points"] for r in answer["rounds"]] == [[0, 0, 0, 0], [37, 0, 37, 0]]
    assert answer["scores"] == [37, 0, 37, 0]
    without = run(team(pips_decide=True), 4, rounds)
    assert without["scores"] == [13, 0, 13, 0]


def test_tie_pot_needs_pips_decide() -> None:
    refused(run(team(tie_pot=True), 4, []), 0, 0, "tie_pot needs pips_decide")


# ---------------------------------------------------------------------- double order

ORDER_DEAL = deal("6-6 0-1 0-2 0-3 0-4 0-5 0-6", "5-5 1-2 1-3 1-4 1-5 1-6 2-3")


def test_double_order_five_five_before_six_six() -> None:
    assert position("all-fives", 2, ORDER_DEAL, "1 play 5-5").open_ends() == {
        "left": 5, "right": 5}
    refused(one_round("all-fives", 2, ORDER_DEAL, "0 play 6-6"), 1, 1,
            "kfnielsen opens with 5-5")
    # the highest double first, without the option
    assert position("spilop", 2, ORDER_DEAL, "0 play 6-6").open_ends()["left"] == 6


def test_double_order_given_as_an_option() -> None:
    rules = opts("classic", double_order=[0, 1, 2, 3, 4, 5, 6])
    d = deal("6-6 0-0 0-2 0-3 0-4 0-5 0-6", "5-5 1-2 1-3 1-4 1-5 1-6 2-3")
    assert position(rules, 2, d, "0 play 0-0").open_ends() == {"left": 0, "right": 0}


@pytest.mark.parametrize(("order", "words"), [
    ([5, 1, 2, 3, 4, 6], "every pip value from 0 to 6 once"),
    ([5, 1, 2, 3, 4, 6, 0, 0], "each once"),
    ([5, 1, 2, 3, 4, 6, 7], "every pip value"),
    ("5,1,2", "a list of pip values"),
    ([], "a list of pip values"),
    ([5, 1, 2, 3, 4, 6, True], "whole number"),
])
def test_double_order_bad_values_refused(order: object, words: str) -> None:
    refused(run(opts("classic", double_order=order), 2, []), 0, 0, "double_order", words)


def test_double_order_contradicts_another_opening() -> None:
    refused(run(opts("classic", double_order=[6, 5, 4, 3, 2, 1, 0], opening="free"), 2, []),
            0, 0, "double_order", "free")


# ---------------------------------------------------------------------- everyone draws

# nobody holds a double; the boneyard starts 3-3, 1-1
NO_DOUBLE = deal("0-1 0-2 0-3 0-4 0-5 0-6 1-2", "1-3 1-4 1-5 1-6 2-3 2-4 2-5",
                 top="3-3 1-1")


def test_everyone_draws_before_the_double_is_looked_for() -> None:
    # seat 0 drew 3-3 first, but seat 1 draws too, and 1-1 comes before 3-3 in the order
    state = position("all-fives", 2, NO_DOUBLE, "0 draw 3-3", "1 draw 1-1", "1 play 1-1")
    assert state.open_ends() == {"left": 1, "right": 1}
    refused(one_round("all-fives", 2, NO_DOUBLE, "0 draw 3-3", "0 play 3-3"), 1, 2,
            "kfnielsen is to move", "draw")
    refused(one_round("all-fives", 2, NO_DOUBLE, "0 draw 3-3", "1 draw 1-1", "0 play 3-3"),
            1, 3, "kfnielsen opens with 1-1")


def test_draw_for_double_the_first_double_drawn_opens_at_once() -> None:
    rules = opts("classic", no_double="draw-for-double")
    assert position(rules, 2, NO_DOUBLE, "0 draw 3-3", "0 play 3-3").open_ends() == {
        "left": 3, "right": 3}


def test_everyone_draws_again_while_nobody_holds_a_double() -> None:
    d = deal("0-1 0-2 0-3 0-4 0-5 0-6 1-2", "1-3 1-4 1-5 1-6 2-3 2-4 2-5",
             top="2-6 3-4 4-4")
    state = position("all-fives", 2, d, "0 draw 2-6", "1 draw 3-4", "0 draw 4-4",
                     "1 draw")
    assert state.legal_moves() and state.legal_moves()[0].tile == "4-4"


# ---------------------------------------------------------------------- closed doubles

CLOSE_DEAL = deal("5-5 5-4 1-1 0-0 0-2 0-3 0-6", "5-1 4-4 5-6 6-6 2-2 1-6 1-4")
CLOSE_LINE = ["0 play 5-5", "1 play 5-1 left", "0 play 5-4 right", "1 play 4-4 right closed",
              "0 play 1-1 left closed", "1 play 5-6 up"]


def test_closed_doubles_end_their_arm_and_count_both_halves() -> None:
    state = position("all-fives", 2, CLOSE_DEAL, *CLOSE_LINE[:4])
    # left 1, right closed on 4-4 (8): 9, no bonus
    assert (state.open_ends(), state.open_end_sum()) == ({"left": 1, "up": 5, "down": 5}, 9)
    assert state.shut == [False, True, False, False] and state.closed_tiles == [3]
    assert state.board[3] == (4, 4, 1)  # the board keeps its meaning
    state = position("all-fives", 2, CLOSE_DEAL, *CLOSE_LINE[:5])
    assert (state.open_ends(), state.open_end_sum()) == ({"up": 5, "down": 5}, 10)
    # bonus: 10 (5-5), 5 (5-4 right: 1 + 4), 10 (1-1 closed: 2 + 8)
    assert state.bonus == [25, 0]


def test_closed_doubles_the_closed_end_takes_nothing() -> None:
    refused(one_round("all-fives", 2, CLOSE_DEAL, *CLOSE_LINE[:4], "0 play 1-1 left",
                      "1 play 1-4 right"), 1, 6, "the right end is closed")


def test_closed_doubles_only_once_the_spinner_has_two_arms() -> None:
    refused(one_round("all-fives", 2, CLOSE_DEAL, "0 play 5-5", "1 play 5-1 left",
                      "0 play 1-1 left closed"), 1, 3, "two arms")


def test_closed_doubles_only_a_double() -> None:
    refused(one_round("all-fives", 2, CLOSE_DEAL, "0 play 5-5", "1 play 5-1 left",
                      "0 play 5-4 right closed"), 1, 3, "only a double")


def test_closed_doubles_listed_among_the_legal_moves() -> None:
    state = position("all-fives", 2, CLOSE_DEAL, *CLOSE_LINE[:3])
    shorts = [m.short() for m in state.legal_moves()]
    assert "4-4 closed" in shorts and "4-4" in shorts
    assert state.options(1)[0] == len(shorts)


def test_closed_without_the_rule_refused() -> None:
    refused(one_round(opts("all-fives", closed_doubles=False), 2, CLOSE_DEAL,
                      "0 play 5-5 closed"), 1, 1, "no closed doubles")


def test_closed_on_a_draw_refused() -> None:
    d = deal("5-5 0-1 0-2 0-3 0-4 0-6 1-2", "5-1 1-3 1-4 1-6 2-3 2-4 2-6", top="3-3")
    refused(one_round("all-fives", 2, d, "0 play 5-5", "1 play 5-1 left",
                      {"player": 0, "action": "draw", "closed": True}), 1, 3,
            "only a play may be closed")


def test_closed_must_be_true_or_false() -> None:
    answer = one_round("all-fives", 2, CLOSE_DEAL,
                       {"player": 0, "action": "play", "tile": "5-5", "closed": "yes"})
    assert answer["error"]["code"] == "log/schema"


def test_closed_doubles_need_a_spinner() -> None:
    refused(run(opts("classic", closed_doubles=True), 2, []), 0, 0, "closed_doubles",
            "spinner")


# ---------------------------------------------------------------------- three-arm spinner


def test_spinner_max_arms_three_closes_the_last_side() -> None:
    state = position("all-fives", 2, CLOSE_DEAL, *CLOSE_LINE)
    assert state.open_ends() == {"up": 6}
    assert state.shut == [True, True, False, True]
    refused(one_round("all-fives", 2, CLOSE_DEAL, *CLOSE_LINE, "0 play 0-6 down"), 1, 7,
            "the down end is closed")


def test_spinner_with_four_arms_keeps_the_last_side() -> None:
    rules = opts("all-fives", spinner_max_arms=4)
    state = position(rules, 2, CLOSE_DEAL, *CLOSE_LINE)
    assert state.open_ends() == {"up": 6, "down": 5}


def test_spinner_max_arms_needs_a_spinner() -> None:
    refused(run(opts("classic", spinner_max_arms=3), 2, []), 0, 0, "spinner_max_arms")
    refused(run(opts("spilop", spinner_max_arms=2), 2, []), 0, 0, "from 3 to 4")


# ---------------------------------------------------------------------- target_check


def test_target_check_play_ends_the_game_mid_round() -> None:
    rules = opts("all-fives", target=10)
    answer = one_round(rules, 2, CLOSE_DEAL, "0 play 5-5")
    assert (answer["status"], answer["scores"], answer["winners"]) == ("finished", [10, 0], [0])
    assert answer["rounds"][0]["points"] == [0, 0] and answer["rounds"][0]["bonus"] == [10, 0]
    refused(one_round(rules, 2, CLOSE_DEAL, "0 play 5-5", "1 play 5-1 left"), 1, 2,
            "already over")


def test_the_transcript_says_the_target_ended_the_round(tmp_path: Any) -> None:
    import json

    from click.testing import CliRunner

    from recorder.cli import main

    path = tmp_path / "game.json"
    path.write_text(json.dumps(log(opts("all-fives", target=10), 2,
                                   [{"deal": CLOSE_DEAL, "moves": ["0 play 5-5"]}])))
    out = CliRunner().invoke(main, ["replay", str(path)]).output
    assert "= target reached by ingaan; winners ingaan; points 0 0; scores 10 0" in out


def test_target_check_round_waits_for_the_end_of_the_round() -> None:
    answer = one_round(opts("all-fives", target=10, target_check="round"), 2, CLOSE_DEAL,
                       "0 play 5-5", "1 play 5-1 left")
    assert answer["status"] == "unfinished"


def test_target_check_play_contradicts_reach_loses_and_hands() -> None:
    refused(run(opts("all-fives", target_mode="reach-loses"), 2, []), 0, 0, "reach-wins")
    refused(run(opts("classic", target_check="play", hands=1), 2, []), 0, 0, "hands")


# ---------------------------------------------------------------------- presets


@pytest.mark.parametrize("preset", ["openspiel-block", "openspiel-team", "dominoes-partners",
                                    "all-fives"])
def test_engine_presets_play_whole_games(preset: str) -> None:
    from recorder.simulate import simulate_game

    players = PRESETS[preset].min_players
    for i in range(5):
        doc = simulate_game(preset, players, f"{preset}-{i}")
        answer = replay(doc)
        assert answer["status"] == "finished" and "mismatches" not in answer


def test_simulated_explicit_deals_stop_where_the_target_is_reached() -> None:
    from recorder.simulate import simulate_game

    for i in range(6):
        doc = simulate_game({"preset": "all-fives", "options": {"target": 61}}, 2, f"x-{i}",
                            explicit_deal=True)
        answer = replay(doc)
        assert answer["status"] == "finished" and "mismatches" not in answer


def test_engine_presets_describe_their_house_rules_and_others_do_not() -> None:
    assert Ruleset.from_spec("all-fives").describe()["double_order"] == [5, 1, 2, 3, 4, 6, 0]
    assert "pips_decide" not in Ruleset.from_spec("classic").describe()
    assert Ruleset.from_spec("openspiel-block").describe()["hands"] == 1


def test_recorder_rules_lists_every_preset_and_shows_an_engines_rules() -> None:
    from click.testing import CliRunner

    from recorder.cli import main

    listed = CliRunner().invoke(main, ["rules"]).output.splitlines()[-1]
    for preset in ("spilop", "norwegian", "openspiel-block", "openspiel-team",
                   "dominoes-partners", "all-fives"):
        assert preset in listed
    shown = CliRunner().invoke(main, ["rules", "dominoes-partners"]).output
    assert "blocked_scoring  lowest-takes-all" in shown and "target           200" in shown


@pytest.mark.parametrize("value", [-1, 1.5, True, "x", None, 0, 7, 8, 100, 1.0, [], {}, False])
def test_the_schemas_fast_lane_agrees_on_opener_and_closed(value: object) -> None:
    import copy

    from recorder.schema import _fast_valid
    from recorder.schema_errors import VALIDATOR

    doc = log("all-fives", 2, [{"deal": CLOSE_DEAL, "moves": CLOSE_LINE}])
    for where in ("opener", "closed", "closed without ms"):
        changed = copy.deepcopy(doc)
        if where == "opener":
            changed["rounds"][0]["opener"] = value
        else:
            move = changed["rounds"][0]["moves"][1]
            if where == "closed":
                move["ms"] = 1200
            move["closed"] = value
        assert _fast_valid(changed) == (not list(VALIDATOR.iter_errors(changed))), where
