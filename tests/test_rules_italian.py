"""Preset ``italian`` (seed 003): docs/rules.md rule by rule, each on both sides.

Anyone opens with any tile (the log shows who); with 4 players the holder of 6-6 opens
with it (and there is no boneyard); a player who cannot play draws one tile, plays it
if it fits, else keeps it and passes; domino: the winner scores the opponents' pips;
blocked: no winner, everybody scores minus their own pips.
"""

from __future__ import annotations

import pytest
from logs import (
    BLOCK6,
    BLOCK6_LONG,
    STAIRS_DOWN,
    STAIRS_UP,
    block6_two_deal,
    deal,
    draw_deal,
    one_round,
    only_round,
    played_by,
    position,
    refused,
    run,
    stairs_down_deal,
    turns,
)


def block4_deal() -> dict:
    """Four players, no boneyard, BLOCK6 (seat 0 holds 6-6): blocked on move 10."""
    p0, p1, p2, p3 = played_by(BLOCK6, 4)
    return deal([*p0, "0-0", "0-1", "0-2", "0-3"], [*p1, "0-4", "1-1", "1-3", "1-4"],
                [*p2, "1-5", "2-2", "2-3", "2-4", "2-5"],
                [*p3, "3-3", "3-5", "4-4", "4-5", "5-5"], boneyard=[])


def sixes4_deal() -> dict:
    """Four players, no boneyard: seat 0 holds all seven 6s."""
    return deal("6-6 0-6 1-6 2-6 3-6 4-6 5-6", "0-0 0-1 0-2 0-3 0-4 0-5 1-1",
                "1-2 1-3 1-4 1-5 2-2 2-3 2-4", "2-5 3-3 3-4 3-5 4-4 4-5 5-5", boneyard=[])


def three_deal() -> dict:
    return deal("6-6 0-0 0-1 0-2 0-3 0-4 0-5", "1-1 1-2 1-3 1-4 1-5 1-6 0-6",
                "2-2 2-3 2-4 2-5 2-6 3-3 3-4")


# ---------------------------------------------------------------------- the opening


@pytest.mark.parametrize("opening", ["0 play 6-6", "0 play 0-0", "1 play 3-6", "1 play 2-1"])
def test_opening_anyone_any_tile_legal(opening: str) -> None:
    assert one_round("italian", 2, stairs_down_deal(), opening)["status"] == "unfinished"


def test_opening_tile_not_held_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "1 play 6-6"), 1, 1,
            "does not hold 6-6")


def test_opening_refusal_lists_what_the_mover_could_have_opened_with() -> None:
    msg = refused(one_round("italian", 2, stairs_down_deal(), "1 play 6-6"), 1, 1,
                  "does not hold 6-6", "legal here:")
    assert "ingaan to move" not in msg
    assert "3-6" in msg  # kfnielsen could have opened with any of his own tiles


def test_opening_with_an_end_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "1 play 3-6 left"), 1, 1, "no end")


def test_opening_tile_lies_with_its_first_written_half_left() -> None:
    assert position("italian", 2, stairs_down_deal(), "1 play 6-3").open_ends() == {
        "left": 6, "right": 3}
    assert one_round("italian", 2, stairs_down_deal(), "1 play 6-3",
                     "0 play 6-6 left")["status"] == "unfinished"
    refused(one_round("italian", 2, stairs_down_deal(), "1 play 6-3", "0 play 6-6 right"),
            1, 2, "the right end shows 3")


def test_opening_by_seat_one_then_seat_zero_moves() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "1 play 3-6", "1 play 6-5 right"),
            1, 2, "ingaan is to move")


def test_opening_three_players_turn_follows_the_opener() -> None:
    assert one_round("italian", 3, three_deal(), "2 play 3-4",
                     "0 play 4-0 right")["status"] == "unfinished"
    refused(one_round("italian", 3, three_deal(), "2 play 3-4", "1 play 3-1 left"), 1, 2,
            "ingaan is to move")


def test_four_players_holder_of_6_6_opens_with_it_legal() -> None:
    assert one_round("italian", 4, block4_deal(), "0 play 6-6")["status"] == "unfinished"


def test_four_players_other_tile_of_the_6_6_holder_illegal() -> None:
    refused(one_round("italian", 4, block4_deal(), "0 play 6-3"), 1, 1, "opens with 6-6")


def test_four_players_other_player_opens_illegal() -> None:
    refused(one_round("italian", 4, block4_deal(), "1 play 6-1"), 1, 1,
            "not this player's turn", "ingaan opens with 6-6")


# ---------------------------------------------------------------------- ends and tiles


def test_end_missing_when_both_ends_accept_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5"), 1, 2,
            "name one")


def test_tile_that_matches_no_open_end_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "0 play 6-6", "1 play 5-4"), 1, 2,
            "no open end")


def test_tile_not_held_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-2 left"),
            1, 2, "does not hold 6-2")


# ---------------------------------------------------------------------- draw one tile


def test_pass_while_able_to_play_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "0 play 6-6", "1 pass"), 1, 2,
            "can play")


def test_draw_while_able_to_play_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), "0 play 6-6", "1 draw"), 1, 2,
            "may not draw")


def test_pass_without_drawing_while_the_boneyard_has_tiles_illegal() -> None:
    refused(one_round("italian", 2, draw_deal(), "0 play 6-6", "1 pass"), 1, 2, "may draw",
            "legal here: draw")


def test_draw_one_that_does_not_fit_then_pass_legal() -> None:
    answer = one_round("italian", 2, draw_deal(), "0 play 6-6", "1 draw 0-1", "1 pass",
                       "0 play 6-0 left", "1 play 0-1 left")
    assert answer["status"] == "unfinished"


def test_draw_a_second_tile_in_one_turn_illegal() -> None:
    refused(one_round("italian", 2, draw_deal(), "0 play 6-6", "1 draw", "1 draw"), 1, 3,
            "one tile", "legal here: pass")


def test_drawn_tile_that_fits_then_pass_illegal() -> None:
    refused(one_round("italian", 2, draw_deal(top="1-6 0-1"), "0 play 6-6", "1 draw",
                      "1 pass"), 1, 3, "can play", "legal here: 1-6 left, 1-6 right")


def test_drawn_tile_that_fits_is_played_legal() -> None:
    answer = one_round("italian", 2, draw_deal(top="1-6 0-1"), "0 play 6-6", "1 draw 1-6",
                       "1 play 6-1 right")
    assert answer["status"] == "unfinished"


def test_four_players_no_boneyard_pass_legal() -> None:
    answer = one_round("italian", 4, sixes4_deal(), "0 play 6-6", "1 pass", "2 pass",
                       "3 pass", "0 play 6-5 left", "1 play 5-0 left")
    assert answer["status"] == "unfinished"


def test_four_players_no_boneyard_draw_illegal() -> None:
    refused(one_round("italian", 4, sixes4_deal(), "0 play 6-6", "1 draw"), 1, 2,
            "boneyard is empty")


# ---------------------------------------------------------------------- domino


def test_domino_scores_the_opponents_pips() -> None:
    rnd = only_round(one_round("italian", 2, stairs_down_deal("3-6"), *turns(STAIRS_DOWN, 2)))
    assert rnd == {"winners": [0], "points": [9, 0], "bonus": [0, 0], "blocked": False,
                   "pips_left": [0, 9], "ended_by": 0}


def test_domino_three_players_scores_both_opponents_pips() -> None:
    p0, p1, p2 = played_by(STAIRS_UP, 3)
    d = deal([*p0, "2-4", "0-5"], [*p1, "6-2", "3-5", "3-6"], [*p2, "0-3", "4-1", "1-6"])
    specs = [*turns(STAIRS_UP, 3), "1 play 6-2 right", "2 play 0-3 left", "0 play 2-4 right",
             "1 play 3-5 left", "2 play 4-1 right", "0 play 5-0 left"]
    rnd = only_round(one_round("italian", 3, d, *specs))
    assert (rnd["winners"], rnd["points"], rnd["pips_left"]) == ([0], [16, 0, 0], [0, 9, 7])


def test_domino_that_also_blocks_the_board_is_a_domino() -> None:
    # six tiles each (house rule): seat 0 plays the last 6 as its last tile on move 11;
    # nobody could play after it, but a domino ends the round first
    p0, p1 = played_by(BLOCK6_LONG, 2)
    d = deal(p0, [*p1, "4-4"])
    rnd = only_round(one_round({"preset": "italian", "options": {"hand_size": 6}}, 2, d,
                               *turns(BLOCK6_LONG, 2)))
    assert rnd == {"winners": [0], "points": [8, 0], "bonus": [0, 0], "blocked": False,
                   "pips_left": [0, 8], "ended_by": 0}


def test_move_after_domino_illegal() -> None:
    refused(one_round("italian", 2, stairs_down_deal(), *turns(STAIRS_DOWN, 2), "1 draw"),
            1, 14, "already over")


# ---------------------------------------------------------------------- blocked


def test_blocked_four_players_no_winner_minus_own_pips() -> None:
    rnd = only_round(one_round("italian", 4, block4_deal(), *turns(BLOCK6, 4)))
    assert rnd == {"winners": [], "points": [-6, -15, -28, -41], "bonus": [0, 0, 0, 0],
                   "blocked": True, "pips_left": [6, 15, 28, 41], "ended_by": 1}


def test_blocked_four_players_nothing_after_the_blocking_play() -> None:
    refused(one_round("italian", 4, block4_deal(), *turns(BLOCK6, 4), "2 pass"), 1, 11,
            "already over")


TWO_BLOCK = [*turns(BLOCK6, 2), *["0 draw", "0 pass", "1 draw", "1 pass"] * 6, "0 draw",
             "0 pass", "1 draw"]


def test_blocked_two_players_ends_on_the_last_draw() -> None:
    rnd = only_round(one_round("italian", 2, block6_two_deal(), *TWO_BLOCK))
    # seat 0: 4-4 5-5 and seven draws (36 pips) = 54; seat 1: 0-0 0-1 and seven (35) = 36
    assert rnd == {"winners": [], "points": [-54, -36], "bonus": [0, 0], "blocked": True,
                   "pips_left": [54, 36], "ended_by": 1}


def test_blocked_two_players_no_pass_after_the_last_draw_illegal() -> None:
    refused(one_round("italian", 2, block6_two_deal(), *TWO_BLOCK, "1 pass"), 1, 38,
            "already over")


# ---------------------------------------------------------------------- the game


def test_game_negative_scores_carry_over_and_do_not_end_it() -> None:
    answer = run("italian", 4, [{"deal": block4_deal(), "moves": turns(BLOCK6, 4)}] * 2)
    assert answer["status"] == "unfinished"
    assert answer["scores"] == [-12, -30, -56, -82]
    assert answer["winners"] == []


def test_game_reaching_the_target_wins() -> None:
    rules = {"preset": "italian", "options": {"target": 15}}
    rnd = {"deal": stairs_down_deal("3-6"), "moves": turns(STAIRS_DOWN, 2)}
    assert run(rules, 2, [rnd])["status"] == "unfinished"
    answer = run(rules, 2, [rnd, rnd])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("finished", [18, 0],
                                                                     [0])
    refused(run(rules, 2, [rnd, rnd, rnd]), 3, 0, "the game ended after round 2")


def test_game_default_target_is_100() -> None:
    rnd = {"deal": stairs_down_deal("4-6"), "moves": turns(STAIRS_DOWN, 2)}  # 10 a round
    assert run("italian", 2, [rnd] * 9)["status"] == "unfinished"  # 90
    answer = run("italian", 2, [rnd] * 10)  # exactly 100 reaches the target
    assert (answer["status"], answer["scores"], answer["winners"]) == ("finished", [100, 0],
                                                                     [0])
