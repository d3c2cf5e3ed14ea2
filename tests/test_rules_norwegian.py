"""Preset ``norwegian`` (seed 004): docs/rules.md rule by rule, each on both sides.

Two players, 7 tiles each; the highest double opens with it, else the highest tile;
draw until a tile fits, but no drawing while the stock holds 2 tiles or fewer (then
pass); domino: the winner scores the opponent's pips; blocked: the lower pips left win
the difference of the two totals, equal totals score nothing.
"""

from __future__ import annotations

import pytest
from logs import (
    STAIRS_DOWN,
    all_sixes_deal,
    deal,
    draw_deal,
    no_double_deal,
    one_round,
    only_round,
    pips,
    refused,
    run,
    stairs_down_deal,
    turns,
)

# A blocked round that needs both players to draw: seat 1 holds no 6 and draws 6-1,
# 6-5 and 0-6 one at a time as each fits; once every 6 is down (both ends show 6) seat 0
# draws nine tiles, the stock is down to 2 and nobody can play: blocked on move 22.
BLOCK_MOVES = [
    "0 play 6-6", "1 draw 6-1", "1 play 6-1 left", "0 play 6-3 right", "1 play 1-2 left",
    "0 play 2-6 left", "1 play 3-4 right", "0 play 4-6 right", "1 draw 6-5",
    "1 play 6-5 left", "0 play 5-0 left", "1 draw 0-6", "1 play 0-6 left", "0 draw *9",
]


def block_deal(p1_extra: str = "5-5 4-5 3-5 4-4 2-5",
               junk: str = "0-3 0-4 1-1 1-4 1-5 2-2 2-3 2-4 3-3",
               last_two: str = "0-2 1-3") -> dict:
    return deal("6-6 6-3 2-6 4-6 5-0 0-0 0-1", f"1-2 3-4 {p1_extra}",
                boneyard=f"6-1 6-5 0-6 {junk} {last_two}")


# (seat 1's extra tiles, the nine tiles seat 0 draws, the two left) -> pips, points, winners
BLOCKED_CASES = {
    "equal-totals": (("5-5 4-5 3-5 4-4 2-5", "0-3 0-4 1-1 1-4 1-5 2-2 2-3 2-4 3-3", "0-2 1-3"),
                     [42, 42], [0, 0], []),
    "seat-1-lower": (("1-1 4-5 3-5 4-4 2-5", "0-3 0-4 5-5 1-4 1-5 2-2 2-3 2-4 3-3", "0-2 1-3"),
                     [50, 34], [0, 16], [1]),
    "seat-0-lower": (("5-5 4-5 3-5 4-4 2-5", "0-3 0-4 1-1 1-4 1-5 2-2 2-3 0-2 3-3", "2-4 1-3"),
                     [38, 42], [4, 0], [0]),
}


# ---------------------------------------------------------------------- players and hands


def test_three_players_are_refused() -> None:
    d = deal("6-6 0-0 0-1 0-2 0-3 0-4 0-5", "1-1 1-2 1-3 1-4 1-5 1-6 0-6",
             "2-2 2-3 2-4 2-5 2-6 3-3 3-4")
    refused(one_round("norwegian", 3, d, "0 play 6-6"), 0, 0, "2 players")


def test_two_players_hold_seven_tiles_each() -> None:
    assert one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6")["status"] == "unfinished"
    refused(one_round("norwegian", 2, deal("6-6 0-0 0-1 0-2 0-3 0-4", "1-1 1-2 1-3 1-4 1-5 1-6"),
                      "0 play 6-6"), 1, 0, "holds 6 tiles")


# ---------------------------------------------------------------------- the opening


def test_opener_holder_of_highest_double_legal() -> None:
    d = stairs_down_deal()
    d["hands"].reverse()
    assert one_round("norwegian", 2, d, "1 play 6-6")["status"] == "unfinished"


def test_opener_other_seat_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "1 play 6-5"), 1, 1,
            "ingaan opens with 6-6")


def test_opening_tile_not_the_highest_double_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 0-0"), 1, 1,
            "opens with 6-6")


def test_opener_highest_tile_when_nobody_holds_a_double_legal() -> None:
    # 3-6 (seat 0) and 4-5 (seat 1) both sum 9; 3-6 has the higher half
    assert one_round("norwegian", 2, no_double_deal(), "0 play 3-6",
                     "1 play 6-1 right")["status"] == "unfinished"


def test_opener_lower_tile_when_nobody_holds_a_double_illegal() -> None:
    refused(one_round("norwegian", 2, no_double_deal(), "1 play 4-5"), 1, 1,
            "ingaan opens with 3-6")


def test_opening_with_an_end_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6 right"), 1, 1, "no end")


# ---------------------------------------------------------------------- ends, tiles, turns


def test_no_spinner_up_end_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 down"),
            1, 2, "no down end")


def test_end_missing_when_both_ends_accept_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5"), 1, 2,
            "name one")


def test_end_named_that_does_not_accept_the_tile_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 left",
                      "0 play 5-5 right"), 1, 3, "the right end shows 6")


def test_tile_that_matches_no_open_end_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "1 play 3-2"), 1, 2,
            "no open end")


def test_tile_not_held_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-1 left"),
            1, 2, "does not hold 6-1")


def test_wrong_player_turn_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "0 play 5-5"), 1, 2,
            "kfnielsen is to move")


# ---------------------------------------------------------------------- draw, pass, stock floor


def test_pass_while_able_to_play_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "1 pass"), 1, 2,
            "may not pass")


def test_draw_while_able_to_play_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), "0 play 6-6", "1 draw"), 1, 2,
            "may not draw")


def test_draw_until_a_tile_fits_then_play_it_legal() -> None:
    answer = one_round("norwegian", 2, draw_deal(), "0 play 6-6", "1 draw *3",
                       "1 play 6-1 left")
    assert answer["status"] == "unfinished"


def test_stock_of_three_may_be_drawn_legal() -> None:
    # 14 in the stock; the 12th draw takes it from 3 to 2
    answer = one_round("norwegian", 2, all_sixes_deal(), "0 play 6-6", "1 draw *12")
    assert answer["status"] == "unfinished"


def test_stock_of_three_pass_illegal() -> None:
    refused(one_round("norwegian", 2, all_sixes_deal(), "0 play 6-6", "1 draw *11", "1 pass"),
            1, 13, "may draw", "legal here: draw")


def test_stock_of_two_draw_illegal() -> None:
    refused(one_round("norwegian", 2, all_sixes_deal(), "0 play 6-6", "1 draw *12", "1 draw"),
            1, 14, "holds 2 tiles", "2 or fewer", "legal here: pass")


def test_stock_of_two_pass_legal() -> None:
    answer = one_round("norwegian", 2, all_sixes_deal(), "0 play 6-6", "1 draw *12", "1 pass",
                       "0 play 6-0 left")
    assert answer["status"] == "unfinished"


# ---------------------------------------------------------------------- domino


def test_domino_scores_the_opponents_pips() -> None:
    rnd = only_round(one_round("norwegian", 2, stairs_down_deal("2-4"),
                               *turns(STAIRS_DOWN, 2)))
    assert rnd == {"winners": [0], "points": [6, 0], "bonus": [0, 0], "blocked": False,
                   "pips_left": [0, 6], "ended_by": 0}


def test_move_after_domino_illegal() -> None:
    refused(one_round("norwegian", 2, stairs_down_deal(), *turns(STAIRS_DOWN, 2), "1 pass"),
            1, 14, "already over")


# ---------------------------------------------------------------------- blocked


@pytest.mark.parametrize("case", list(BLOCKED_CASES), ids=list(BLOCKED_CASES))
def test_blocked_lower_pips_win_the_difference(case: str) -> None:
    (extra, junk, last_two), pips_left, points, winners = BLOCKED_CASES[case]
    d = block_deal(extra, junk, last_two)
    assert [pips(d["hands"][0][5:]) + pips(junk), pips(d["hands"][1][2:])] == pips_left
    rnd = only_round(one_round("norwegian", 2, d, *BLOCK_MOVES))
    assert rnd == {"winners": winners, "points": points, "bonus": [0, 0], "blocked": True,
                   "pips_left": pips_left, "ended_by": 0}


def test_blocked_round_ends_with_two_in_the_stock_no_pass_after_it() -> None:
    refused(one_round("norwegian", 2, block_deal(), *BLOCK_MOVES, "1 pass"), 1, 23,
            "already over")
    refused(one_round("norwegian", 2, block_deal(), *BLOCK_MOVES, "1 draw"), 1, 23,
            "already over")


def test_blocked_equal_totals_score_nothing_in_the_game() -> None:
    answer = run("norwegian", 2, [{"deal": block_deal(), "moves": BLOCK_MOVES}])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("unfinished", [0, 0],
                                                                     [])


# ---------------------------------------------------------------------- the game


def test_game_reaching_the_target_wins_and_a_later_round_is_refused() -> None:
    rnd = {"deal": block_deal(*BLOCKED_CASES["seat-1-lower"][0]), "moves": BLOCK_MOVES}
    rules = {"preset": "norwegian", "options": {"target": 32}}
    assert run(rules, 2, [rnd])["status"] == "unfinished"  # 16
    answer = run(rules, 2, [rnd, rnd])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("finished", [0, 32],
                                                                     [1])
    refused(run(rules, 2, [rnd, rnd, rnd]), 3, 0, "ended after round 2")


def test_game_default_target_is_100() -> None:
    rnd = {"deal": stairs_down_deal("4-6"), "moves": turns(STAIRS_DOWN, 2)}  # 10 a round
    assert run("norwegian", 2, [rnd] * 9)["status"] == "unfinished"
    answer = run("norwegian", 2, [rnd] * 10)
    assert (answer["status"], answer["winners"]) == ("finished", [0])
