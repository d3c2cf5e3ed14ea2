"""Preset ``kozel`` (seed 002): docs/rules.md rule by rule, each on both sides.

The holder of 0-0 opens with it, else the highest double, else the highest tile; 7
tiles each (4 players: no boneyard); draw until a tile fits; domino: the winner scores
0 and everybody else adds their own pips (penalty points); blocked ("fish"): the player
who made the last play scores 0, the others add their own pips; reaching 101 loses and
the fewest points win.
"""

from __future__ import annotations

import pytest
from logs import (
    BLOCK0,
    BLOCK6_LONG,
    STAIRS_UP,
    deal,
    draw_deal,
    no_double_deal,
    one_round,
    only_round,
    played_by,
    position,
    refused,
    run,
    stairs_up_deal,
    turns,
)


def zero_zero_deal() -> dict:
    """Seat 0 holds 6-6, seat 1 holds 0-0 (and all the other 0s)."""
    return deal("6-6 1-2 1-3 1-4 1-5 1-6 2-3", "0-0 0-1 0-2 0-3 0-4 0-5 0-6")


def double_deal() -> dict:
    """0-0 and 6-6 lie in the boneyard; seat 1 holds 5-5, seat 0 holds 4-4."""
    return deal("4-4 0-1 0-2 0-3 0-4 0-5 0-6", "5-5 1-2 1-3 1-4 1-5 1-6 4-5")


def fish_deal() -> dict:
    """Three players for BLOCK6_LONG (0-0 lies in the boneyard, so 6-6 opens).

    Seat 1 plays the last 6 on move 11; seat 2 then draws the 7 tiles of the boneyard
    and the round blocks on the last draw. Pips left: 9, 18 and 16 + 45 = 61."""
    p0, p1, p2 = played_by(BLOCK6_LONG, 3)
    return deal([*p0, "0-2", "0-3", "0-4"], [*p1, "2-2", "3-3", "4-4"],
                [*p2, "1-1", "1-3", "1-4", "2-3"])


FISH_MOVES = [*turns(BLOCK6_LONG, 3), "2 draw *7"]


def fish4_deal() -> dict:
    """Four players, no boneyard, BLOCK0: seat 1 plays the last 0 on move 10."""
    p0, p1, p2, p3 = played_by(BLOCK0, 4)
    return deal([*p0, "1-1", "1-3", "1-4", "1-5"], [*p1, "1-6", "2-2", "2-3", "2-4"],
                [*p2, "2-5", "2-6", "3-3", "3-5", "3-6"],
                [*p3, "4-4", "4-5", "4-6", "5-5", "6-6"], boneyard=[])


def zeros4_deal() -> dict:
    """Four players, no boneyard: seat 0 holds all seven 0s, nobody else has one."""
    return deal("0-0 0-1 0-2 0-3 0-4 0-5 0-6", "1-1 1-2 1-3 1-4 1-5 1-6 2-2",
                "2-3 2-4 2-5 2-6 3-3 3-4 3-5", "3-6 4-4 4-5 4-6 5-5 5-6 6-6", boneyard=[])


# ---------------------------------------------------------------------- the opening


def test_opener_holder_of_0_0_opens_before_6_6_legal() -> None:
    answer = one_round("kozel", 2, zero_zero_deal(), "1 play 0-0", "0 draw")
    assert answer["status"] == "unfinished"


def test_opener_holder_of_6_6_while_0_0_is_dealt_illegal() -> None:
    refused(one_round("kozel", 2, zero_zero_deal(), "0 play 6-6"), 1, 1,
            "not this player's turn", "kfnielsen opens with 0-0")


def test_opening_tile_other_than_0_0_illegal() -> None:
    refused(one_round("kozel", 2, zero_zero_deal(), "1 play 0-6"), 1, 1, "opens with 0-0")


def test_opener_highest_double_when_nobody_holds_0_0_legal() -> None:
    assert one_round("kozel", 2, double_deal(), "1 play 5-5")["status"] == "unfinished"


def test_opener_lower_double_when_nobody_holds_0_0_illegal() -> None:
    refused(one_round("kozel", 2, double_deal(), "0 play 4-4"), 1, 1, "kfnielsen opens with 5-5")


def test_opener_highest_tile_when_nobody_holds_a_double_legal() -> None:
    # 3-6 and 4-5 both sum 9; 3-6 has the higher half
    assert one_round("kozel", 2, no_double_deal(), "0 play 3-6")["status"] == "unfinished"


def test_opener_lower_tile_when_nobody_holds_a_double_illegal() -> None:
    refused(one_round("kozel", 2, no_double_deal(), "1 play 4-5"), 1, 1,
            "ingaan opens with 3-6")
    refused(one_round("kozel", 2, no_double_deal(), "0 play 0-6"), 1, 1, "opens with 3-6")


def test_opening_tile_lies_with_its_first_written_half_left() -> None:
    state = position("kozel", 2, no_double_deal(), "0 play 6-3")
    assert state.open_ends() == {"left": 6, "right": 3}
    assert one_round("kozel", 2, no_double_deal(), "0 play 6-3",
                     "1 play 6-1 left")["status"] == "unfinished"
    refused(one_round("kozel", 2, no_double_deal(), "0 play 6-3", "1 play 3-2 left"), 1, 2,
            "the left end shows 6", "legal here:", "2-3")


def test_four_players_holder_of_0_0_opens() -> None:
    assert one_round("kozel", 4, fish4_deal(), "0 play 0-0")["status"] == "unfinished"
    refused(one_round("kozel", 4, fish4_deal(), "3 play 6-6"), 1, 1, "ingaan opens with 0-0")


# ---------------------------------------------------------------------- ends, tiles, turns


def test_end_missing_when_both_ends_accept_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "1 play 0-1"), 1, 2,
            "name one")


def test_end_named_that_does_not_accept_the_tile_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "1 play 0-1 right",
                      "0 play 1-1 left"), 1, 3, "the left end shows 0")


def test_end_omitted_when_only_one_end_accepts_legal() -> None:
    assert one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "1 play 0-1 right",
                     "0 play 1-1")["status"] == "unfinished"


def test_tile_that_matches_no_open_end_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "1 play 2-3"), 1, 2,
            "no open end")


def test_tile_not_held_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "1 play 0-2 left"), 1, 2,
            "does not hold 0-2")


def test_wrong_player_turn_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "0 play 1-1 left"), 1, 2,
            "kfnielsen is to move")


# ---------------------------------------------------------------------- draw and pass


def test_pass_while_able_to_play_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "1 pass"), 1, 2,
            "may not pass")


def test_draw_while_able_to_play_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), "0 play 0-0", "1 draw"), 1, 2,
            "may not draw")


def test_draw_until_a_tile_fits_then_play_it_legal() -> None:
    answer = one_round("kozel", 2, draw_deal(), "0 play 6-6", "1 draw 0-1", "1 draw 0-2",
                       "1 draw 1-6", "1 play 6-1 left")
    assert answer["status"] == "unfinished"


def test_pass_after_a_draw_that_does_not_fit_illegal() -> None:
    refused(one_round("kozel", 2, draw_deal(), "0 play 6-6", "1 draw", "1 pass"), 1, 3,
            "legal here: draw")


def test_four_players_no_boneyard_pass_legal() -> None:
    answer = one_round("kozel", 4, zeros4_deal(), "0 play 0-0", "1 pass", "2 pass", "3 pass",
                       "0 play 0-1 left", "1 play 1-1 left")
    assert answer["status"] == "unfinished"


def test_four_players_no_boneyard_draw_illegal() -> None:
    refused(one_round("kozel", 4, zeros4_deal(), "0 play 0-0", "1 draw"), 1, 2,
            "boneyard is empty", "legal here: pass")


def test_four_players_pass_while_able_to_play_illegal() -> None:
    refused(one_round("kozel", 4, zeros4_deal(), "0 play 0-0", "1 pass", "2 pass", "3 pass",
                      "0 play 0-1 left", "1 pass"), 1, 6, "can play")


def test_four_players_hold_seven_tiles_each() -> None:
    d = deal("0-0 0-1 0-2 0-3 0-4", "1-1 1-2 1-3 1-4 1-5", "2-2 2-3 2-4 2-5 2-6",
             "3-3 3-4 3-5 3-6 4-4")
    refused(one_round("kozel", 4, d, "0 play 0-0"), 1, 0, "holds 5 tiles", "7")


# ---------------------------------------------------------------------- domino


def test_domino_winner_scores_zero_and_the_others_add_their_own_pips() -> None:
    rnd = only_round(one_round("kozel", 2, stairs_up_deal("4-6"), *turns(STAIRS_UP, 2)))
    assert rnd == {"winners": [0], "points": [0, 10], "bonus": [0, 0], "blocked": False,
                   "pips_left": [0, 10], "ended_by": 0}


# Three players: STAIRS_UP then six more plays; seat 0 plays its 7th tile on move 19.
LONG3_MOVES = [*turns(STAIRS_UP, 3), "1 play 6-2 right", "2 play 0-3 left",
               "0 play 2-4 right", "1 play 3-5 left", "2 play 4-1 right", "0 play 5-0 left"]


def long3_deal() -> dict:
    p0, p1, p2 = played_by(STAIRS_UP, 3)
    return deal([*p0, "2-4", "0-5"], [*p1, "6-2", "3-5", "3-6"], [*p2, "0-3", "4-1", "1-6"])


def test_domino_three_players_each_loser_adds_own_pips() -> None:
    rnd = only_round(one_round("kozel", 3, long3_deal(), *LONG3_MOVES))
    assert rnd == {"winners": [0], "points": [0, 9, 7], "bonus": [0, 0, 0], "blocked": False,
                   "pips_left": [0, 9, 7], "ended_by": 0}


def test_move_after_domino_illegal() -> None:
    refused(one_round("kozel", 2, stairs_up_deal(), *turns(STAIRS_UP, 2), "1 pass"), 1, 14,
            "already over")


# ---------------------------------------------------------------------- fish


def test_fish_last_player_to_play_scores_zero_and_others_add_their_pips() -> None:
    rnd = only_round(one_round("kozel", 3, fish_deal(), *FISH_MOVES))
    # seat 1 set the fish on move 11, though seat 0 holds fewer pips (9 < 18)
    assert rnd == {"winners": [1], "points": [9, 0, 61], "bonus": [0, 0, 0],
                   "blocked": True, "pips_left": [9, 18, 61], "ended_by": 2}


def test_fish_draws_after_the_last_play_do_not_change_who_set_it() -> None:
    rnd = only_round(one_round("kozel", 3, fish_deal(), *FISH_MOVES))
    assert rnd["ended_by"] == 2
    assert rnd["winners"] == [1]


def test_fish_round_ends_on_the_last_draw_no_pass_after_it() -> None:
    refused(one_round("kozel", 3, fish_deal(), *FISH_MOVES, "0 pass"), 1, 19, "already over")


def test_fish_before_the_boneyard_is_drawn_is_no_fish() -> None:
    refused(one_round("kozel", 3, fish_deal(), *turns(BLOCK6_LONG, 3), "2 pass"), 1, 12,
            "may draw")


def test_fish_four_players_ends_on_the_last_play() -> None:
    rnd = only_round(one_round("kozel", 4, fish4_deal(), *turns(BLOCK0, 4)))
    assert rnd == {"winners": [1], "points": [17, 0, 38, 49], "bonus": [0, 0, 0, 0],
                   "blocked": True, "pips_left": [17, 22, 38, 49], "ended_by": 1}
    refused(one_round("kozel", 4, fish4_deal(), *turns(BLOCK0, 4), "2 pass"), 1, 11,
            "already over")


# ---------------------------------------------------------------------- the game


def fish_round() -> dict:
    return {"deal": fish_deal(), "moves": FISH_MOVES}


def test_game_below_101_goes_on() -> None:
    answer = run("kozel", 3, [fish_round()])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("unfinished",
                                                                     [9, 0, 61], [])


def test_game_reaching_101_loses_and_the_fewest_points_win() -> None:
    answer = run("kozel", 3, [fish_round(), fish_round()])
    assert answer["status"] == "finished"
    assert answer["scores"] == [18, 0, 122]
    assert answer["winners"] == [1]


def test_game_round_after_the_end_refused() -> None:
    refused(run("kozel", 3, [fish_round()] * 3), 3, 0, "ended after round 2")


@pytest.mark.parametrize("target", [5, 61])
def test_game_several_reach_the_target_fewest_points_win(target: int) -> None:
    rules = {"preset": "kozel", "options": {"target": target}}
    answer = run(rules, 3, [fish_round()])
    assert answer["status"] == "finished"
    assert answer["winners"] == [1]


def test_game_target_is_a_threshold_not_a_goal() -> None:
    rules = {"preset": "kozel", "options": {"target": 62}}
    answer = run(rules, 3, [fish_round()])
    assert answer["status"] == "unfinished"
