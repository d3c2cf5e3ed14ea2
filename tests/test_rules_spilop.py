"""Preset ``spilop`` (seed 000): docs/rules.md rule by rule, each on both sides.

Highest double opens and is the spinner (four sides); nobody holds a double: draw in
seat order for one; draw until a tile fits; lowest pips wins a blocked round, ties
split exactly; option ``bonus`` scores open-end sums that are multiples of 5; option
``sets: 2`` settles a tie for the opening double by lot (seeded) or lets any tied
holder open (explicit deal).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from logs import (
    BLOCK6,
    BLOCK6_LONG,
    PLAYER_IDS,
    STAIRS_DOWN,
    all_sixes_deal,
    as_move,
    block6_two_deal,
    canonical,
    deal,
    dealt,
    draw_deal,
    find_seed,
    highest_double,
    is_double,
    no_double_deal,
    one_round,
    only_round,
    pips,
    position,
    refused,
    run,
    shuffled,
    stairs_down_deal,
    thirds_deal,
    turns,
)

BONUS = {"preset": "spilop", "options": {"bonus": True}}
THIRD = Fraction(70, 3)


def stairs_moves() -> list[str]:
    return turns(STAIRS_DOWN, 2)


# ---------------------------------------------------------------------- the opening


def test_opener_holder_of_highest_double_legal() -> None:
    d = stairs_down_deal()
    d["hands"].reverse()  # seat 1 now holds the doubles, 6-6 among them
    answer = one_round("spilop", 2, d, "1 play 6-6", "0 play 6-5 right")
    assert answer["status"] == "unfinished"
    assert answer["rounds"] == []


def test_opener_other_seat_illegal() -> None:
    d = stairs_down_deal()
    d["hands"].reverse()
    refused(one_round("spilop", 2, d, "0 play 6-5"), 1, 1,
            "not this player's turn", "kfnielsen opens with 6-6")


def test_opening_tile_not_the_highest_double_illegal() -> None:
    msg = refused(one_round("spilop", 2, stairs_down_deal(), "0 play 5-5"), 1, 1,
                  "opens with 6-6", "legal here: 6-6")
    assert msg.startswith("round 1, move 1 (ingaan plays 5-5)")


def test_opening_tile_with_an_end_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6 left"), 1, 1,
            "first tile", "no end")


def test_opening_draw_while_holding_a_double_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 draw"), 1, 1, "opens with a play")


# ---------------------------------------------------------------------- the spinner


@pytest.mark.parametrize("end", ["left", "right", "up", "down"])
def test_spinner_takes_a_tile_on_each_of_its_four_sides_legal(end: str) -> None:
    answer = one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", f"1 play 6-5 {end}")
    assert answer["status"] == "unfinished"


def test_spinner_open_ends_after_the_opening() -> None:
    state = position("spilop", 2, stairs_down_deal(), "0 play 6-6")
    assert state.open_ends() == {"left": 6, "right": 6, "up": 6, "down": 6}


# ---------------------------------------------------------------------- ends


def test_end_missing_when_several_ends_accept_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5"), 1, 2,
            "name one", "legal here:", "5-6 up")


def test_end_omitted_when_only_one_end_accepts_legal() -> None:
    answer = one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 right",
                       "0 play 5-5")
    assert answer["status"] == "unfinished"


def test_end_named_when_only_one_end_accepts_legal() -> None:
    answer = one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 right",
                       "0 play 5-5 right")
    assert answer["status"] == "unfinished"


def test_end_named_that_does_not_accept_the_tile_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 right",
                      "0 play 5-5 up"), 1, 3, "the up end shows 6", "legal here: 5-5")


def test_end_that_is_not_an_end_word_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 middle"),
            1, 2, '"middle" is not an end', "left, right, up, down")


# ---------------------------------------------------------------------- tiles


def test_tile_that_matches_no_open_end_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 4-3"), 1, 2,
            "4-3", "no open end")


def test_tile_that_matches_no_open_end_with_an_end_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 4-3 left"),
            1, 2, "the left end shows 6")


def test_tile_not_held_illegal() -> None:
    msg = refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-4 left"),
                  1, 2, "does not hold 6-4")
    assert "kfnielsen plays 6-4 left" in msg


def test_tile_outside_double_six_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-7 left"),
            1, 2, "double-six")


# ---------------------------------------------------------------------- turns


def test_wrong_player_turn_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "0 play 5-5 right"),
            1, 2, "not this player's turn", "kfnielsen is to move")


def test_seat_that_does_not_exist_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "2 play 6-5 right"),
            1, 2, "there is no seat 2", "seats go from 0 to 1", "kfnielsen to move")


# ---------------------------------------------------------------------- draw and pass


def test_pass_while_able_to_play_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 pass"), 1, 2,
            "can play", "may not pass")


def test_draw_while_able_to_play_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), "0 play 6-6", "1 draw"), 1, 2,
            "can play", "may not draw")


def test_draw_until_a_tile_fits_then_play_it_legal() -> None:
    answer = one_round("spilop", 2, draw_deal(), "0 play 6-6", "1 draw 0-1", "1 draw 0-2",
                       "1 draw 1-6", "1 play 6-1 up")
    assert answer["status"] == "unfinished"


def test_draw_again_once_a_tile_fits_illegal() -> None:
    refused(one_round("spilop", 2, draw_deal(), "0 play 6-6", "1 draw *3", "1 draw"), 1, 5,
            "may not draw", "legal here: 1-6 left")


def test_pass_after_a_draw_that_does_not_fit_illegal() -> None:
    refused(one_round("spilop", 2, draw_deal(), "0 play 6-6", "1 draw", "1 pass"), 1, 3,
            "may draw", "legal here: draw")


def test_draw_naming_another_tile_than_the_next_illegal() -> None:
    refused(one_round("spilop", 2, draw_deal(), "0 play 6-6", "1 draw 0-2"), 1, 2,
            "next tile of the boneyard is 0-1")


def test_draw_from_an_empty_boneyard_illegal() -> None:
    refused(one_round("spilop", 2, all_sixes_deal(), "0 play 6-6", "1 draw *14", "1 draw"),
            1, 16, "boneyard is empty", "legal here: pass")


def test_pass_with_an_empty_boneyard_legal() -> None:
    answer = one_round("spilop", 2, all_sixes_deal(), "0 play 6-6", "1 draw *14", "1 pass",
                       "0 play 6-5 left")
    assert answer["status"] == "unfinished"


def test_pass_with_an_empty_boneyard_while_able_to_play_illegal() -> None:
    # after 6-5 the left end shows 5, and seat 1 drew 4-5 and 5-5 among others
    refused(one_round("spilop", 2, all_sixes_deal(), "0 play 6-6", "1 draw *14", "1 pass",
                      "0 play 6-5 left", "1 pass"), 1, 18, "can play")


# ---------------------------------------------------------------------- nobody holds a double


def test_draw_for_double_in_seat_order_and_the_drawer_opens_legal() -> None:
    # boneyard: 5-6 (seat 0), 4-6 (seat 1), 5-5 (seat 0 opens with it at once)
    d = no_double_deal(top="5-6 4-6 5-5")
    answer = one_round("spilop", 2, d, "0 draw 5-6", "1 draw 4-6", "0 draw 5-5",
                       "0 play 5-5", "1 play 5-4 up")
    assert answer["status"] == "unfinished"


def test_draw_for_double_first_draw_by_seat_one_illegal() -> None:
    refused(one_round("spilop", 2, no_double_deal(top="5-6 4-6 5-5"), "1 draw"), 1, 1,
            "not this player's turn")


def test_draw_for_double_pass_illegal() -> None:
    refused(one_round("spilop", 2, no_double_deal(top="5-6 4-6 5-5"), "0 pass"), 1, 1,
            "draw", "legal here: draw")


def test_draw_for_double_play_without_a_double_illegal() -> None:
    refused(one_round("spilop", 2, no_double_deal(top="5-6 4-6 5-5"), "0 play 3-6"), 1, 1,
            "draw")


def test_draw_for_double_two_draws_in_one_turn_illegal() -> None:
    refused(one_round("spilop", 2, no_double_deal(top="5-6 4-6 5-5"), "0 draw", "0 draw"),
            1, 2, "not this player's turn")


def test_draw_for_double_next_seat_draws_after_a_double_illegal() -> None:
    refused(one_round("spilop", 2, no_double_deal(top="5-6 4-6 5-5"), "0 draw", "1 draw",
                      "0 draw", "1 draw"), 1, 4, "not this player's turn")


def test_draw_for_double_drawer_draws_again_illegal() -> None:
    refused(one_round("spilop", 2, no_double_deal(top="5-6 4-6 5-5"), "0 draw", "1 draw",
                      "0 draw", "0 draw"), 1, 4, "legal here: 5-5")


def test_draw_for_double_drawer_opens_with_another_tile_illegal() -> None:
    refused(one_round("spilop", 2, no_double_deal(top="5-6 4-6 5-5"), "0 draw", "1 draw",
                      "0 draw", "0 play 5-6"), 1, 4, "opens with 5-5")


def test_draw_for_double_four_players_second_seat_draws_the_double_legal() -> None:
    d = deal("0-1 0-2 0-3 0-4 0-5", "0-6 1-2 1-3 1-4 1-5", "1-6 2-3 2-4 2-5 2-6",
             "3-4 3-5 3-6 4-5 4-6", top="5-6 3-3")
    assert one_round("spilop", 4, d, "0 draw", "1 draw", "1 play 3-3",
                     "2 play 3-2 down")["status"] == "unfinished"
    refused(one_round("spilop", 4, d, "0 draw", "1 draw", "2 draw"), 1, 3,
            "not this player's turn")


def test_draw_for_double_opening_scores_its_bonus() -> None:
    state = position(BONUS, 2, no_double_deal(top="5-6 4-6 5-5"), "0 draw", "1 draw",
                     "0 draw", "0 play 5-5")
    assert state.bonus == [10, 0]
    assert state.open_ends() == {"left": 5, "right": 5, "up": 5, "down": 5}


def _no_double_seed(seed: str) -> bool:
    order, _ = shuffled(seed)
    hands, _ = dealt(order, 2, 7)
    return highest_double(hands) is None


@pytest.fixture(scope="module")
def no_double_seed() -> tuple[str, list[str]]:
    seed = find_seed(_no_double_seed, "spilop-no-double")
    order, _ = shuffled(seed)
    _, bone = dealt(order, 2, 7)
    return seed, bone


def test_draw_for_double_seeded_deal_legal(no_double_seed: tuple[str, list[str]]) -> None:
    seed, bone = no_double_seed
    k = next(i for i, t in enumerate(bone) if is_double(t))
    specs = [f"{i % 2} draw {bone[i]}" for i in range(k + 1)] + [f"{k % 2} play {bone[k]}"]
    answer = run("spilop", 2, [{"seed": seed, "moves": specs}])
    assert answer["status"] == "unfinished", answer


def test_draw_for_double_seeded_deal_other_seat_opens_illegal(
        no_double_seed: tuple[str, list[str]]) -> None:
    seed, bone = no_double_seed
    k = next(i for i, t in enumerate(bone) if is_double(t))
    specs = [f"{i % 2} draw" for i in range(k + 1)] + [f"{(k + 1) % 2} play {bone[k]}"]
    refused(run("spilop", 2, [{"seed": seed, "moves": specs}]), 1, k + 2,
            "not this player's turn")


# ---------------------------------------------------------------------- domino


def test_domino_scores_the_opponents_pips() -> None:
    rnd = only_round(one_round("spilop", 2, stairs_down_deal("3-6"), *stairs_moves()))
    assert rnd == {"winners": [0], "points": [9, 0], "bonus": [0, 0], "blocked": False,
                   "pips_left": [0, 9], "ended_by": 0}


def test_move_after_domino_illegal() -> None:
    refused(one_round("spilop", 2, stairs_down_deal(), *stairs_moves(), "1 pass"), 1, 14,
            "already over")


# ---------------------------------------------------------------------- blocked


def thirds_moves() -> list[str]:
    return [*turns(BLOCK6_LONG, 4), "3 draw *8"]


def test_blocked_lowest_pips_win_and_a_three_way_tie_splits_in_thirds() -> None:
    rnd = only_round(one_round("spilop", 4, thirds_deal(), *thirds_moves()))
    assert rnd["winners"] == [0, 1, 2]
    assert rnd["blocked"] is True
    assert rnd["pips_left"] == [6, 6, 6, 70]
    assert rnd["points"] == [70 / 3, 70 / 3, 70 / 3, 0]
    assert rnd["ended_by"] == 3


def test_blocked_round_ends_at_the_draw_that_blocks_it_illegal_pass() -> None:
    refused(one_round("spilop", 4, thirds_deal(), *thirds_moves(), "0 pass"), 1, 20,
            "already over")


def test_blocked_round_needs_the_boneyard_drawn_first_illegal_pass() -> None:
    refused(one_round("spilop", 4, thirds_deal(), *turns(BLOCK6_LONG, 4), "3 pass"), 1, 12,
            "may draw", "legal here: draw")


def test_blocked_thirds_are_kept_exact_across_rounds() -> None:
    rounds = [{"deal": thirds_deal(), "moves": thirds_moves()} for _ in range(3)]
    answer = run("spilop", 4, rounds)
    assert answer["status"] == "unfinished"
    assert answer["scores"] == [70, 70, 70, 0]
    assert all(type(s) is int for s in answer["scores"])


def test_blocked_two_players_lowest_wins_the_others_pips() -> None:
    rnd = only_round(one_round("spilop", 2, block6_two_deal(), *turns(BLOCK6, 2),
                               "0 draw *14"))
    assert rnd == {"winners": [1], "points": [0, 89], "bonus": [0, 0], "blocked": True,
                   "pips_left": [89, 1], "ended_by": 0}


# ---------------------------------------------------------------------- the game


def test_game_reaching_the_target_wins_and_a_later_round_is_refused() -> None:
    rounds = [{"deal": stairs_down_deal("3-6"), "moves": stairs_moves()}] * 2
    rules = {"preset": "spilop", "options": {"target": 5}}
    refused(run(rules, 2, rounds), 2, 0, "ended after round 1")
    answer = run(rules, 2, rounds[:1])
    assert answer["status"] == "finished"
    assert answer["winners"] == [0]
    assert answer["scores"] == [9, 0]


def test_game_default_target_is_100() -> None:
    rnd = {"deal": block6_two_deal(), "moves": [*turns(BLOCK6, 2), "0 draw *14"]}
    answer = run("spilop", 2, [rnd])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("unfinished",
                                                                     [0, 89], [])
    answer = run("spilop", 2, [rnd, rnd])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("finished",
                                                                     [0, 178], [1])


def test_game_several_reach_in_one_round_equal_totals_share_the_win() -> None:
    rounds = [{"deal": thirds_deal(), "moves": thirds_moves()} for _ in range(5)]
    answer = run("spilop", 4, rounds[:4])
    assert answer["status"] == "unfinished"  # 93.33 each
    answer = run("spilop", 4, rounds)
    assert answer["status"] == "finished"
    assert answer["winners"] == [0, 1, 2]
    assert answer["scores"] == [float(5 * THIRD)] * 3 + [0]


def test_game_unfinished_round_is_checked_not_listed_and_does_not_count() -> None:
    full = {"deal": ex3_deal(), "moves": EX3_MOVES}
    cut = {"deal": opening_55_deal(), "moves": ["0 play 5-5", "1 play 5-4 left"]}
    answer = run(BONUS, 2, [full, cut])
    assert answer["status"] == "unfinished"
    assert answer["winners"] == []
    assert len(answer["rounds"]) == 1
    assert answer["scores"] == [10, 15]  # the cut round's opening bonus of 10 is not counted
    bad_cut = {"deal": opening_55_deal(), "moves": ["0 play 5-5", "1 play 5-4"]}
    refused(run(BONUS, 2, [full, bad_cut]), 2, 2, "name one")


def test_game_round_after_an_unfinished_round_illegal() -> None:
    full = {"deal": ex3_deal(), "moves": EX3_MOVES}
    cut = {"deal": opening_55_deal(), "moves": ["0 play 5-5"]}
    refused(run(BONUS, 2, [cut, full]), 2, 0, "round 1 is not finished")


# ---------------------------------------------------------------------- bonus


# Example 1 of docs/rules.md: spinner 6-6 with one arm ending in 4: 6 + 6 + 4 = 16, no bonus.
# Every later sum is 12-22 and no multiple of 5 either; seat 0 goes out on move 13.
EX1_MOVES = [
    "0 play 6-6", "1 play 6-4 left", "0 play 4-2 left", "1 play 2-2 left", "0 play 2-1 left",
    "1 play 1-1 left", "0 play 1-0 left", "1 play 0-0 left", "0 play 0-5 left",
    "1 play 5-5 left", "0 play 5-1 left", "1 play 1-6 left", "0 play 6-5 left",
]


def ex1_deal() -> dict:
    return deal("6-6 4-2 2-1 1-0 0-5 5-1 6-5", "6-4 2-2 1-1 0-0 5-5 1-6 3-3")


# Example 2: spinner 4-4, arms 1 (left), 3 (right), 5 (down), 6 (up): 15, a bonus of 15
# on move 5. Sums by move: 8 9 4 9 15 14 11 7 4 6 6 8 9.
EX2_MOVES = [
    "0 play 4-4", "1 play 4-1 left", "0 play 4-3 right", "1 play 4-5 down", "0 play 4-6 up",
    "1 play 1-0 left", "0 play 3-0 right", "1 play 6-2 up", "0 play 5-2 down",
    "1 play 0-2 left", "0 play 0-0 right", "1 play 2-2 left", "0 play 2-3 up",
]


def ex2_deal() -> dict:
    return deal("4-4 4-3 4-6 3-0 5-2 0-0 2-3", "4-1 4-5 1-0 6-2 0-2 2-2 1-6")


# Example 3: spinner 6-6 with one arm ending in a crosswise 3-3: 3 + 3 + 6 + 6 = 18, no
# bonus (move 3). Move 2 (6-3: 6 + 6 + 3 = 15) scores 15. Sums: 12 15 18 14 16 13 14 12
# 12 16 13 17 22.
EX3_MOVES = [
    "0 play 6-6", "1 play 6-3 right", "0 play 3-3 right", "1 play 3-2 right",
    "0 play 2-2 right", "1 play 2-1 right", "0 play 1-1 right", "1 play 1-0 right",
    "0 play 0-0 right", "1 play 0-4 right", "0 play 4-1 right", "1 play 1-5 right",
    "0 play 5-5 right",
]


def ex3_deal() -> dict:
    return deal("6-6 3-3 2-2 1-1 0-0 4-1 5-5", "6-3 3-2 2-1 1-0 0-4 1-5 4-6")


# An opening 5-5 scores 10 at once. Later sums: 14 18 13 16 12 14 11 12 16 12 14 16.
OPENING_55_MOVES = [
    "0 play 5-5", "1 play 5-4 left", "0 play 4-4 left", "1 play 4-3 left", "0 play 3-3 left",
    "1 play 3-2 left", "0 play 2-2 left", "1 play 2-1 left", "0 play 1-1 left",
    "1 play 1-6 left", "0 play 6-2 left", "1 play 2-4 left", "0 play 4-6 left",
]


def opening_55_deal() -> dict:
    return deal("5-5 4-4 3-3 2-2 1-1 6-2 4-6", "5-4 4-3 3-2 2-1 1-6 2-4 0-5")


def test_bonus_example_spinner_with_one_arm_16_no_bonus() -> None:
    rnd = only_round(one_round(BONUS, 2, ex1_deal(), *EX1_MOVES))
    assert rnd["bonus"] == [0, 0]
    assert rnd["points"] == [6, 0]
    assert position(BONUS, 2, ex1_deal(), *EX1_MOVES[:2]).open_end_sum() == 16


def test_bonus_example_four_arms_1_3_6_5_scores_15() -> None:
    answer = one_round(BONUS, 2, ex2_deal(), *EX2_MOVES)
    rnd = only_round(answer)
    assert rnd["bonus"] == [15, 0]
    assert rnd["points"] == [7, 0]
    assert answer["scores"] == [22, 0]
    before = position(BONUS, 2, ex2_deal(), *EX2_MOVES[:4])
    assert before.score_of(as_move("0 play 4-6 up")) == 15
    after = position(BONUS, 2, ex2_deal(), *EX2_MOVES[:5])
    assert after.open_end_sum() == 15
    assert after.open_ends() == {"left": 1, "right": 3, "up": 6, "down": 5}


def test_bonus_example_crosswise_double_on_a_spinner_arm_18_no_bonus() -> None:
    answer = one_round(BONUS, 2, ex3_deal(), *EX3_MOVES)
    rnd = only_round(answer)
    assert rnd["bonus"] == [0, 15]
    assert rnd["points"] == [10, 0]
    assert answer["scores"] == [10, 15]
    assert position(BONUS, 2, ex3_deal(), *EX3_MOVES[:3]).open_end_sum() == 18
    assert position(BONUS, 2, ex3_deal(), *EX3_MOVES[:2]).score_of(
        as_move("0 play 3-3 right")) == 0


def test_bonus_opening_5_5_scores_10() -> None:
    rnd = only_round(one_round(BONUS, 2, opening_55_deal(), *OPENING_55_MOVES))
    assert rnd["bonus"] == [10, 0]
    assert rnd["points"] == [5, 0]


@pytest.mark.parametrize(("plays", "total", "bonus"), [
    (["0 play 6-6"], 12, [0, 0]),  # the spinner alone: both halves
    (["0 play 6-6", "1 play 6-3 up"], 15, [0, 15]),  # no line side covered: 6 + 6 + 3
    (["0 play 6-6", "1 play 6-3 up", "0 play 3-3 up"], 18, [0, 15]),  # crosswise 3-3 on an arm
    (["0 play 6-6", "1 play 6-3 up", "0 play 6-4 down"], 19, [0, 15]),  # 6 + 6 + 3 + 4
    (["0 play 6-6", "1 play 6-3 up", "0 play 6-4 left"], 19, [0, 15]),  # 4 + (6 + 6) + 3
    (["0 play 6-6", "1 play 6-3 up", "0 play 6-4 left", "1 play 6-5 right"], 12,
     [0, 15]),  # both line sides covered: the spinner counts nothing: 4 + 5 + 3
    (["0 play 6-6", "1 play 6-3 up", "0 play 6-4 left", "1 play 6-5 right", "0 play 6-2 down"],
     14, [0, 15]),  # 4 + 5 + 3 + 2
])
def test_bonus_open_end_sum_spinner_counts_while_a_line_side_is_free(
        plays: list[str], total: int, bonus: list[int]) -> None:
    d = deal("6-6 6-4 6-2 3-3 0-0 0-1 0-2", "6-3 6-5 6-1 1-1 1-2 1-3 1-4")
    state = position(BONUS, 2, d, *plays)
    assert state.open_end_sum() == total
    assert state.bonus == bonus


def test_bonus_opening_0_0_scores_nothing() -> None:
    # 0-0 is the only double dealt: it opens, and a sum of 0 is no positive multiple of 5
    d = deal("0-0 0-1 0-2 0-3 0-4 0-5 0-6", "1-2 1-3 1-4 1-5 1-6 2-3 2-4")
    state = position(BONUS, 2, d, "0 play 0-0")
    assert (state.open_end_sum(), state.bonus) == (0, [0, 0])


def test_bonus_is_off_by_default() -> None:
    rnd = only_round(one_round("spilop", 2, opening_55_deal(), *OPENING_55_MOVES))
    assert rnd["bonus"] == [0, 0]


def test_bonus_of_an_illegal_move_is_zero() -> None:
    state = position(BONUS, 2, opening_55_deal())
    assert state.score_of(as_move("1 play 5-4")) == 0
    assert state.score_of(as_move("0 play 5-5")) == 10


def test_bonus_passing_the_target_mid_round_does_not_stop_the_round() -> None:
    rules = {"preset": "spilop", "options": {"bonus": True, "target": 10}}
    answer = one_round(rules, 2, opening_55_deal(), *OPENING_55_MOVES)
    assert answer["status"] == "finished"
    assert answer["scores"] == [15, 0]
    assert answer["winners"] == [0]


def test_game_several_reach_in_one_round_highest_total_wins() -> None:
    rules = {"preset": "spilop", "options": {"bonus": True, "target": 10}}
    answer = one_round(rules, 2, ex3_deal(), *EX3_MOVES)
    assert answer["status"] == "finished"
    assert answer["scores"] == [10, 15]
    assert answer["winners"] == [1]


# ---------------------------------------------------------------------- hand sizes


def test_four_players_hold_five_tiles_each() -> None:
    d = deal("6-6 0-0 0-1 0-2 0-3 0-4 0-5", "1-1 1-2 1-3 1-4 1-5 1-6 0-6",
             "2-2 2-3 2-4 2-5 2-6 3-3 3-4", "3-5 3-6 4-4 4-5 4-6 5-5 5-6", boneyard=[])
    refused(one_round("spilop", 4, d, "0 play 6-6"), 1, 0, "holds 7 tiles", "5")


def test_three_players_hold_seven_tiles_each() -> None:
    d = deal("6-6 0-0 0-1 0-2 0-3 0-4 0-5", "1-1 1-2 1-3 1-4 1-5 1-6 0-6",
             "2-2 2-3 2-4 2-5 2-6 3-3 3-4")
    assert one_round("spilop", 3, d, "0 play 6-6")["status"] == "unfinished"


# ---------------------------------------------------------------------- two sets


SETS2 = {"preset": "spilop", "options": {"sets": 2}}


def two_set_deal() -> dict:
    """Three players, two sets (56 tiles, 7 each): seats 0 and 2 both hold a 6-6."""
    return deal("6-6 0-0 0-1 0-2 0-3 0-4 0-5", "5-5 1-1 1-2 1-3 1-4 1-5 1-6",
                "6-6 2-2 2-3 2-4 2-5 2-6 3-3", sets=2)


@pytest.mark.parametrize("opener", [0, 2])
def test_two_sets_explicit_deal_any_tied_holder_opens_legal(opener: int) -> None:
    answer = one_round(SETS2, 3, two_set_deal(), f"{opener} play 6-6")
    assert answer["status"] == "unfinished"


def test_two_sets_explicit_deal_player_without_the_double_opens_illegal() -> None:
    refused(one_round(SETS2, 3, two_set_deal(), "1 play 5-5"), 1, 1,
            "not this player's turn", "ingaan or svendbent")


def test_two_sets_explicit_deal_refusal_names_both_possible_openers() -> None:
    msg = refused(one_round(SETS2, 3, two_set_deal(), "1 play 5-5"), 1, 1, "legal here:")
    assert "ingaan to move" not in msg


def test_two_sets_explicit_deal_turn_follows_the_opener() -> None:
    refused(one_round(SETS2, 3, two_set_deal(), "2 play 6-6", "1 draw"), 1, 2,
            "ingaan is to move")


def test_two_sets_four_players_hold_seven_tiles_each() -> None:
    hands = [canonical()[i * 7:(i + 1) * 7] for i in range(4)]
    ok = deal(*hands, sets=2)
    assert len(ok["boneyard"]) == 28
    assert one_round({"preset": "spilop", "options": {"sets": 2}}, 4, ok,
                     "3 play 6-6")["status"] == "unfinished"
    five = deal(*(h[:5] for h in hands), sets=2)
    refused(one_round(SETS2, 4, five, "3 play 6-6"), 1, 0, "holds 5 tiles")


def _lot(seed: str, players: int) -> tuple[list[int], int] | None:
    """The tied holders of the highest double dealt, and the lot drawn over them."""
    order, stream = shuffled(seed, sets=2)
    hands, _ = dealt(order, players, 7)
    top = highest_double(hands)
    if top is None:
        return None
    tied = [s for s, h in enumerate(hands) if top in h]
    if len(tied) < 2:
        return None
    return tied, stream.below(len(tied))


def _lot_case(players: int, lot: int, first_tied_seat: int = 0) -> tuple[str, list[int], str]:
    def wanted(seed: str) -> bool:
        got = _lot(seed, players)
        return got is not None and got[1] == lot and got[0][0] >= first_tied_seat

    seed = find_seed(wanted, f"lot-{players}p")
    tied, _ = _lot(seed, players)  # type: ignore[misc]
    order, _ = shuffled(seed, sets=2)
    hands, _ = dealt(order, players, 7)
    return seed, tied, highest_double(hands)  # type: ignore[return-value]


@pytest.fixture(scope="module", params=[(2, 0, 0), (2, 1, 0), (4, 1, 1)],
                ids=["2p-lot0", "2p-lot1", "4p-lot1"])
def lot_case(request: pytest.FixtureRequest) -> tuple[int, str, list[int], int, str]:
    players, lot, first = request.param
    seed, tied, double = _lot_case(players, lot, first)
    return players, seed, tied, lot, double


def test_two_sets_seeded_tie_is_settled_by_lot_legal(
        lot_case: tuple[int, str, list[int], int, str]) -> None:
    players, seed, tied, lot, double = lot_case
    answer = run(SETS2, players, [{"seed": seed, "moves": [f"{tied[lot]} play {double}"]}])
    assert answer["status"] == "unfinished", answer


def test_two_sets_seeded_tie_other_holder_opens_illegal(
        lot_case: tuple[int, str, list[int], int, str]) -> None:
    players, seed, tied, lot, double = lot_case
    loser = tied[1 - lot]
    refused(run(SETS2, players, [{"seed": seed, "moves": [f"{loser} play {double}"]}]), 1, 1,
            "not this player's turn", f"{PLAYER_IDS[tied[lot]]} opens")


# ---------------------------------------------------------------------- claimed results


def test_claimed_thirds_within_two_decimals_are_no_mismatch() -> None:
    result = {"winners": [2, 0, 1], "points": [23.33, 23.33, 23.33, 0], "blocked": True,
              "pips_left": [6, 6, 6, 70], "ended_by": 3}
    answer = run("spilop", 4, [{"deal": thirds_deal(), "moves": thirds_moves(),
                                "result": result}])
    assert answer["status"] == "unfinished"
    assert "mismatches" not in answer


def test_claimed_points_off_by_more_than_half_a_hundredth_mismatch() -> None:
    result = {"points": [23.32, 23.33, 23.33, 0], "blocked": False}
    answer = run("spilop", 4, [{"deal": thirds_deal(), "moves": thirds_moves(),
                                "result": result}])
    assert answer["status"] == "unfinished"
    assert answer["mismatches"] == [
        {"round": 1, "field": "points", "claimed": [23.32, 23.33, 23.33, 0],
         "computed": [70 / 3, 70 / 3, 70 / 3, 0]},
        {"round": 1, "field": "blocked", "claimed": False, "computed": True},
    ]


def test_claimed_game_result_mismatch_is_round_zero() -> None:
    rules = {"preset": "spilop", "options": {"target": 5}}
    answer = run(rules, 2, [{"deal": stairs_down_deal("3-6"), "moves": stairs_moves()}],
                 result={"scores": [9.004, 0], "winners": [1]})
    assert answer["status"] == "finished"
    assert answer["mismatches"] == [{"round": 0, "field": "winners", "claimed": [1],
                                     "computed": [0]}]


def test_pips_helper_agrees_with_the_deals() -> None:
    # the figures the tests above expect, recomputed from the deals themselves
    assert pips(thirds_deal()["boneyard"]) + pips("4-4 4-5 5-5") == 70
    assert pips(block6_two_deal()["boneyard"]) + pips("4-4 5-5") == 89
