"""Preset ``classic`` (seed 001): docs/rules.md rule by rule, each on both sides.

Highest double opens (no spinner: two ends); nobody holds a double: reshuffle and deal
again from the same stream (an explicit deal without a double is refused); 7 tiles
with 2 players, 5 with 3-4; draw until a tile fits (option ``draw: one``: one tile,
play it if it fits, else pass); lowest pips wins a blocked round, ties split.
"""

from __future__ import annotations

import pytest
from logs import (
    BLOCK6,
    BLOCK6_LONG,
    STAIRS_DOWN,
    all_sixes_deal,
    block6_two_deal,
    canonical,
    deal,
    dealt,
    draw_deal,
    find_seed,
    highest_double,
    no_double_deal,
    one_round,
    only_round,
    played_by,
    position,
    refused,
    run,
    shuffled,
    stairs_down_deal,
    thirds_deal,
    turns,
)

from recorder.engine import Match
from recorder.rules import find
from recorder.shuffle import shuffle

DRAW_ONE = {"preset": "classic", "options": {"draw": "one"}}


def opening_deal() -> dict:
    """6-6 lies in the boneyard; seat 1 holds 5-5, the highest double dealt; seat 0 4-4."""
    return deal("4-4 0-1 0-2 0-3 0-4 0-5 0-6", "5-5 1-2 1-3 1-4 1-5 1-6 4-5")


# ---------------------------------------------------------------------- the opening


def test_opener_holder_of_highest_double_legal() -> None:
    answer = one_round("classic", 2, opening_deal(), "1 play 5-5", "0 play 5-0 right")
    assert answer["status"] == "unfinished"


def test_opener_holder_of_a_lower_double_illegal() -> None:
    refused(one_round("classic", 2, opening_deal(), "0 play 4-4"), 1, 1,
            "not this player's turn", "kfnielsen opens with 5-5")


def test_opening_tile_not_the_highest_double_illegal() -> None:
    refused(one_round("classic", 2, opening_deal(), "1 play 4-5"), 1, 1,
            "opens with 5-5", "legal here: 5-5")


def test_opening_tile_with_an_end_illegal() -> None:
    refused(one_round("classic", 2, opening_deal(), "1 play 5-5 right"), 1, 1, "no end")


# ---------------------------------------------------------------------- ends (no spinner)


def test_opening_double_has_only_two_ends() -> None:
    state = position("classic", 2, stairs_down_deal(), "0 play 6-6")
    assert state.open_ends() == {"left": 6, "right": 6}


def test_no_spinner_up_end_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 up"), 1, 2,
            "no up end")


def test_end_missing_when_both_ends_accept_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5"), 1, 2,
            "left and right", "name one", "legal here: 3-6 left, 3-6 right, 5-6 left")


@pytest.mark.parametrize("end", ["left", "right"])
def test_end_named_when_both_ends_accept_legal(end: str) -> None:
    answer = one_round("classic", 2, stairs_down_deal(), "0 play 6-6", f"1 play 6-5 {end}")
    assert answer["status"] == "unfinished"


def test_end_omitted_when_only_one_end_accepts_legal() -> None:
    answer = one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 right",
                       "0 play 5-5", "1 play 5-4")
    assert answer["status"] == "unfinished"


def test_end_named_that_does_not_accept_the_tile_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 right",
                      "0 play 5-5 left"), 1, 3, "the left end shows 6", "legal here: 5-5")


def test_tile_that_matches_no_open_end_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 play 2-1"), 1, 2,
            "no open end", "left 6, right 6")


def test_tile_not_held_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-0 left"),
            1, 2, "does not hold 6-0")


def test_wrong_player_turn_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 play 6-5 right",
                      "1 play 5-4 right"), 1, 3, "not this player's turn", "ingaan is to move")


# ---------------------------------------------------------------------- draw and pass


def test_pass_while_able_to_play_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 pass"), 1, 2,
            "may not pass")


def test_draw_while_able_to_play_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), "0 play 6-6", "1 draw"), 1, 2,
            "may not draw")


def test_draw_until_a_tile_fits_then_play_it_legal() -> None:
    answer = one_round("classic", 2, draw_deal(), "0 play 6-6", "1 draw *3",
                       "1 play 6-1 left")
    assert answer["status"] == "unfinished"


def test_pass_after_one_draw_that_does_not_fit_illegal() -> None:
    refused(one_round("classic", 2, draw_deal(), "0 play 6-6", "1 draw", "1 pass"), 1, 3,
            "legal here: draw")


def test_draw_again_once_a_tile_fits_illegal() -> None:
    refused(one_round("classic", 2, draw_deal(), "0 play 6-6", "1 draw *3", "1 draw"), 1, 5,
            "may not draw", "legal here: 1-6 left, 1-6 right")


def test_draw_from_an_empty_boneyard_illegal() -> None:
    refused(one_round("classic", 2, all_sixes_deal(), "0 play 6-6", "1 draw *14",
                      "1 draw"), 1, 16, "boneyard is empty", "legal here: pass")


def test_pass_with_an_empty_boneyard_legal() -> None:
    answer = one_round("classic", 2, all_sixes_deal(), "0 play 6-6", "1 draw *14", "1 pass",
                       "0 play 6-0 right")
    assert answer["status"] == "unfinished"


# ---------------------------------------------------------------------- option draw: one


def test_draw_one_then_pass_when_it_does_not_fit_legal() -> None:
    answer = one_round(DRAW_ONE, 2, draw_deal(), "0 play 6-6", "1 draw 0-1", "1 pass",
                       "0 play 6-0 right", "1 play 0-1 right")
    assert answer["status"] == "unfinished"


def test_draw_one_second_draw_in_a_turn_illegal() -> None:
    refused(one_round(DRAW_ONE, 2, draw_deal(), "0 play 6-6", "1 draw", "1 draw"), 1, 3,
            "one tile", "legal here: pass")


def test_draw_one_drawn_tile_that_fits_must_be_played_illegal_pass() -> None:
    refused(one_round(DRAW_ONE, 2, draw_deal(top="1-6 0-1 0-2"), "0 play 6-6", "1 draw",
                      "1 pass"), 1, 3, "can play", "legal here: 1-6 left, 1-6 right")


def test_draw_one_drawn_tile_that_fits_is_played_legal() -> None:
    answer = one_round(DRAW_ONE, 2, draw_deal(top="1-6 0-1 0-2"), "0 play 6-6", "1 draw 1-6",
                       "1 play 6-1 left")
    assert answer["status"] == "unfinished"


def test_draw_one_blocked_round_ends_on_the_last_draw() -> None:
    specs = [*turns(BLOCK6, 2), *["0 draw", "0 pass", "1 draw", "1 pass"] * 6, "0 draw",
             "0 pass", "1 draw"]
    rnd = only_round(one_round(DRAW_ONE, 2, block6_two_deal(), *specs))
    # seat 0 drew 0-2 0-4 1-3 1-5 2-3 2-5 3-5 (36) on 4-4 5-5; seat 1 the other seven (35)
    assert rnd == {"winners": [1], "points": [0, 54], "bonus": [0, 0], "blocked": True,
                   "pips_left": [54, 36], "ended_by": 1}
    refused(one_round(DRAW_ONE, 2, block6_two_deal(), *specs, "0 pass"), 1, 38,
            "already over")


# ---------------------------------------------------------------------- nobody holds a double


def test_explicit_deal_without_a_double_is_refused() -> None:
    refused(one_round("classic", 2, no_double_deal(), "0 play 3-6"), 1, 0,
            "nobody holds a double")


def _no_double_first(seed: str) -> bool:
    order, _ = shuffled(seed)
    return highest_double(dealt(order, 2, 7)[0]) is None


def _redeal(seed: str) -> tuple[list[list[str]], list[str], int]:
    """The deal the contract gives: shuffle again on the same stream until a double is held."""
    order, stream = shuffled(seed)
    redeals = 0
    hands, bone = dealt(order, 2, 7)
    while highest_double(hands) is None:
        redeals += 1
        hands, bone = dealt(shuffle(canonical(), stream), 2, 7)
    return hands, bone, redeals


@pytest.fixture(scope="module")
def redeal_seed() -> str:
    return find_seed(_no_double_first, "classic-redeal")


def test_redeal_seeded_continues_the_same_stream(redeal_seed: str) -> None:
    hands, bone, redeals = _redeal(redeal_seed)
    assert redeals >= 1
    state = Match(find("classic"), 2).new_round(seed=redeal_seed)
    assert state.deal.redeals == redeals
    order = canonical()
    assert state.deal.hand_names(state.tiles) == [sorted(h, key=order.index) for h in hands]
    assert state.deal.boneyard_names(state.tiles) == bone


def test_redeal_seeded_holder_of_highest_double_of_the_new_deal_opens(redeal_seed: str) -> None:
    hands, _, _ = _redeal(redeal_seed)
    top = highest_double(hands)
    opener = next(s for s, h in enumerate(hands) if top in h)
    answer = run("classic", 2, [{"seed": redeal_seed, "moves": [f"{opener} play {top}"]}])
    assert answer["status"] == "unfinished", answer
    refused(run("classic", 2, [{"seed": redeal_seed, "moves": [f"{1 - opener} play {top}"]}]),
            1, 1, "not this player's turn")


def test_redeal_seeded_from_the_game_seed_of_round_one() -> None:
    game_seed = find_seed(lambda s: _no_double_first(s + "/1"), "classic-game")
    hands, _, _ = _redeal(game_seed + "/1")
    top = highest_double(hands)
    opener = next(s for s, h in enumerate(hands) if top in h)
    answer = run("classic", 2, [{"moves": [f"{opener} play {top}"]}], seed=game_seed)
    assert answer["status"] == "unfinished", answer


# ---------------------------------------------------------------------- hand sizes and deals


def test_three_players_hold_five_tiles_each() -> None:
    d = deal("6-6 0-0 0-1 0-2 0-3", "1-1 1-2 1-3 1-4 1-5", "2-2 2-3 2-4 2-5 2-6")
    assert len(d["boneyard"]) == 13
    assert one_round("classic", 3, d, "0 play 6-6")["status"] == "unfinished"
    seven = deal("6-6 0-0 0-1 0-2 0-3 0-4 0-5", "1-1 1-2 1-3 1-4 1-5 1-6 0-6",
                 "2-2 2-3 2-4 2-5 2-6 3-3 3-4")
    refused(one_round("classic", 3, seven, "0 play 6-6"), 1, 0, "holds 7 tiles", "5")


def test_two_players_hold_seven_tiles_each() -> None:
    d = deal("6-6 0-0 0-1 0-2 0-3", "1-1 1-2 1-3 1-4 1-5")
    refused(one_round("classic", 2, d, "0 play 6-6"), 1, 0, "holds 5 tiles", "7")


def test_deal_naming_a_tile_twice_is_refused() -> None:
    d = stairs_down_deal()
    d["boneyard"][0] = "6-6"
    refused(one_round("classic", 2, d, "0 play 6-6"), 1, 0, "6-6")


def test_deal_missing_a_tile_is_refused() -> None:
    d = stairs_down_deal()
    d["boneyard"].pop()
    refused(one_round("classic", 2, d, "0 play 6-6"), 1, 0, "missing", "4-6")


def test_deal_with_a_hand_too_many_is_refused() -> None:
    d = stairs_down_deal()
    d["hands"].append([])
    refused(one_round("classic", 2, d, "0 play 6-6"), 1, 0, "3 hands")


# ---------------------------------------------------------------------- domino


def test_domino_two_players_scores_the_opponents_pips() -> None:
    rnd = only_round(one_round("classic", 2, stairs_down_deal("4-6"), *turns(STAIRS_DOWN, 2)))
    assert rnd == {"winners": [0], "points": [10, 0], "bonus": [0, 0], "blocked": False,
                   "pips_left": [0, 10], "ended_by": 0}


def test_domino_three_players_scores_the_sum_of_both_opponents() -> None:
    p0, p1, p2 = played_by(STAIRS_DOWN, 3)  # seat 0 plays 5 tiles and goes out on move 13
    d = deal(p0, [*p1, "3-6"], [*p2, "2-4"])
    rnd = only_round(one_round("classic", 3, d, *turns(STAIRS_DOWN, 3)))
    assert rnd == {"winners": [0], "points": [15, 0, 0], "bonus": [0, 0, 0],
                   "blocked": False, "pips_left": [0, 9, 6], "ended_by": 0}


def test_move_after_domino_illegal() -> None:
    refused(one_round("classic", 2, stairs_down_deal(), *turns(STAIRS_DOWN, 2), "1 draw"),
            1, 14, "already over")


# ---------------------------------------------------------------------- blocked


def test_blocked_two_players_lowest_wins_the_others_pips() -> None:
    rnd = only_round(one_round("classic", 2, block6_two_deal(), *turns(BLOCK6, 2),
                               "0 draw *14"))
    assert rnd == {"winners": [1], "points": [0, 89], "bonus": [0, 0], "blocked": True,
                   "pips_left": [89, 1], "ended_by": 0}


def test_blocked_round_ends_at_the_last_draw_no_pass_after_it() -> None:
    refused(one_round("classic", 2, block6_two_deal(), *turns(BLOCK6, 2), "0 draw *14",
                      "0 pass"), 1, 25, "already over")


def test_blocked_four_players_three_way_tie_splits_in_thirds() -> None:
    rnd = only_round(one_round("classic", 4, thirds_deal(), *turns(BLOCK6_LONG, 4),
                               "3 draw *8"))
    assert rnd["winners"] == [0, 1, 2]
    assert rnd["points"] == [70 / 3, 70 / 3, 70 / 3, 0]
    assert rnd["pips_left"] == [6, 6, 6, 70]


# ---------------------------------------------------------------------- the game


def block_round() -> dict:
    return {"deal": block6_two_deal(), "moves": [*turns(BLOCK6, 2), "0 draw *14"]}


def test_game_target_100_reached_in_round_two() -> None:
    answer = run("classic", 2, [block_round()])
    assert (answer["status"], answer["winners"], answer["scores"]) == ("unfinished", [],
                                                                     [0, 89])
    answer = run("classic", 2, [block_round(), block_round()])
    assert (answer["status"], answer["winners"], answer["scores"]) == ("finished", [1],
                                                                     [0, 178])


def test_game_short_target_50_and_a_round_after_the_end_refused() -> None:
    rules = {"preset": "classic", "options": {"target": 50}}
    answer = run(rules, 2, [block_round()])
    assert (answer["status"], answer["winners"]) == ("finished", [1])
    refused(run(rules, 2, [block_round(), block_round()]), 2, 0, "round 2")


def test_game_round_cut_off_does_not_count() -> None:
    cut = {"deal": block6_two_deal(), "moves": turns(BLOCK6, 2)}
    answer = run("classic", 2, [block_round(), cut])
    assert answer["status"] == "unfinished"
    assert len(answer["rounds"]) == 1
    assert answer["scores"] == [0, 89]


def test_claimed_round_result_mismatch_is_reported_and_the_engine_stands() -> None:
    rnd = block_round()
    rnd["result"] = {"winners": [0], "points": [89, 0], "pips_left": [89, 1], "ended_by": 1}
    answer = run("classic", 2, [rnd])
    assert answer["status"] == "unfinished"
    assert answer["scores"] == [0, 89]
    assert answer["mismatches"] == [
        {"round": 1, "field": "winners", "claimed": [0], "computed": [1]},
        {"round": 1, "field": "points", "claimed": [89, 0], "computed": [0, 89]},
        {"round": 1, "field": "ended_by", "claimed": 1, "computed": 0},
    ]


def test_claimed_scores_tolerance_is_half_a_hundredth() -> None:
    near = run("classic", 2, [block_round()], result={"scores": [0, 88.996], "winners": []})
    assert "mismatches" not in near
    off = run("classic", 2, [block_round()], result={"scores": [0, 89.006], "winners": []})
    assert off["mismatches"] == [{"round": 0, "field": "scores", "claimed": [0, 89.006],
                                  "computed": [0, 89]}]


def test_move_with_a_malformed_player_is_located_at_its_move() -> None:
    doc_round = {"deal": stairs_down_deal(), "moves": [
        "0 play 6-6", {"player": "1", "action": "play", "tile": "6-5", "end": "left"}]}
    refused(run("classic", 2, [doc_round]), 1, 2, '"1" is not a seat number')


def test_moves_may_carry_thinking_time() -> None:
    doc_round = {"deal": stairs_down_deal(), "moves": [
        {"player": 0, "action": "play", "tile": "6-6", "ms": 5400},
        {"player": 1, "action": "pass", "ms": 12}]}
    refused(run("classic", 2, [doc_round]), 1, 2, "may not pass")
    doc_round["moves"][1] = {"player": 1, "action": "play", "tile": "6-5", "end": "left",
                             "ms": 800}
    assert run("classic", 2, [doc_round])["status"] == "unfinished"


def test_round_without_seed_or_deal_in_a_game_without_seed_is_refused() -> None:
    refused(run("classic", 2, [{"moves": []}]), 1, 0, "seed")
