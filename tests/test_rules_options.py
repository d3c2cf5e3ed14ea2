"""House-rule options: each one changes exactly the rule it names, and the refusal of
unknown or contradictory options says what is wrong (round 0, move 0)."""

from __future__ import annotations

import pytest
from logs import (
    BLOCK6,
    BLOCK6_LONG,
    STAIRS_DOWN,
    STAIRS_UP,
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
    stairs_up_deal,
    thirds_deal,
    turns,
)

from recorder.engine import Match
from recorder.errors import RulesetError
from recorder.rules import OPTIONS, Ruleset, find


def opts(preset: str, **options: object) -> dict:
    return {"preset": preset, "options": options}


def block_two() -> list[str]:
    return [*turns(BLOCK6, 2), "0 draw *14"]


# ---------------------------------------------------------------------- draw


def test_draw_none_pass_when_unable_to_play_legal() -> None:
    answer = one_round(opts("classic", draw="none"), 2, draw_deal(), "0 play 6-6", "1 pass",
                       "0 play 6-2 right", "1 play 2-2 right")
    assert answer["status"] == "unfinished"


def test_draw_none_draw_illegal() -> None:
    refused(one_round(opts("classic", draw="none"), 2, draw_deal(), "0 play 6-6", "1 draw"),
            1, 2, "no drawing", "legal here: pass")


def test_draw_none_pass_while_able_to_play_illegal() -> None:
    refused(one_round(opts("classic", draw="none"), 2, stairs_down_deal(), "0 play 6-6",
                      "1 pass"), 1, 2, "can play")


def test_draw_none_blocks_with_tiles_left_in_the_boneyard() -> None:
    rnd = only_round(one_round(opts("classic", draw="none"), 2, block6_two_deal(),
                               *turns(BLOCK6, 2)))
    assert rnd == {"winners": [1], "points": [0, 18], "bonus": [0, 0], "blocked": True,
                   "pips_left": [18, 1], "ended_by": 1}


def test_draw_one_on_spilop_then_pass_legal() -> None:
    answer = one_round(opts("spilop", draw="one"), 2, draw_deal(), "0 play 6-6", "1 draw",
                       "1 pass")
    assert answer["status"] == "unfinished"
    refused(one_round(opts("spilop", draw="one"), 2, draw_deal(), "0 play 6-6", "1 draw",
                      "1 draw"), 1, 3, "one tile")


def test_draw_until_playable_on_italian_no_pass_after_one_miss_illegal() -> None:
    rules = opts("italian", draw="until-playable")
    refused(one_round(rules, 2, draw_deal(), "0 play 6-6", "1 draw", "1 pass"), 1, 3,
            "legal here: draw")
    assert one_round(rules, 2, draw_deal(), "0 play 6-6", "1 draw *3",
                     "1 play 6-1 left")["status"] == "unfinished"


# ---------------------------------------------------------------------- stock_floor


def test_stock_floor_four_draw_at_five_legal_at_four_illegal() -> None:
    rules = opts("classic", stock_floor=4)
    assert one_round(rules, 2, all_sixes_deal(), "0 play 6-6", "1 draw *10",
                     "1 pass")["status"] == "unfinished"
    refused(one_round(rules, 2, all_sixes_deal(), "0 play 6-6", "1 draw *10", "1 draw"), 1, 12,
            "holds 4 tiles", "4 or fewer")
    refused(one_round(rules, 2, all_sixes_deal(), "0 play 6-6", "1 draw *9", "1 pass"), 1, 11,
            "may draw")


def test_stock_floor_zero_on_norwegian_draws_the_whole_stock() -> None:
    rules = opts("norwegian", stock_floor=0)
    assert one_round(rules, 2, all_sixes_deal(), "0 play 6-6", "1 draw *14",
                     "1 pass")["status"] == "unfinished"
    refused(one_round("norwegian", 2, all_sixes_deal(), "0 play 6-6", "1 draw *14"), 1, 14,
            "holds 2 tiles")


# ---------------------------------------------------------------------- opening


def five_six_deal() -> dict:
    """6-6 in the boneyard: seat 0 holds 5-6 (highest tile), seat 1 holds 5-5."""
    return deal("5-6 0-1 0-2 0-3 0-4 0-5 0-6", "5-5 1-2 1-3 1-4 1-5 1-6 4-5")


def test_opening_highest_tile_legal_and_the_highest_double_illegal() -> None:
    rules = opts("classic", opening="highest-tile")
    assert one_round(rules, 2, five_six_deal(), "0 play 5-6")["status"] == "unfinished"
    refused(one_round(rules, 2, five_six_deal(), "1 play 5-5"), 1, 1, "ingaan opens with 5-6")
    # without the option the double opens
    assert one_round("classic", 2, five_six_deal(), "1 play 5-5")["status"] == "unfinished"


def test_opening_highest_tile_equal_sums_the_higher_half_wins() -> None:
    # 4-6 and 5-5 both sum 10; 4-6 has the higher half (5-6 and 6-6 lie in the boneyard)
    d = deal("4-6 0-1 0-2 0-3 0-4 0-5 0-6", "5-5 1-2 1-3 1-4 1-5 1-6 4-5")
    rules = opts("classic", opening="highest-tile")
    assert one_round(rules, 2, d, "0 play 6-4")["status"] == "unfinished"
    refused(one_round(rules, 2, d, "1 play 5-5"), 1, 1, "ingaan opens with 4-6")


def test_opening_free_anyone_any_tile() -> None:
    rules = opts("classic", opening="free")
    assert one_round(rules, 2, stairs_down_deal(), "1 play 2-1")["status"] == "unfinished"
    refused(one_round(rules, 2, stairs_down_deal(), "1 play 2-1", "1 play 1-0 right"), 1, 2,
            "ingaan is to move")


def test_opening_double_zero_first_on_classic() -> None:
    rules = opts("classic", opening="double-zero-first")
    assert one_round(rules, 2, stairs_up_deal(), "0 play 0-0")["status"] == "unfinished"
    refused(one_round(rules, 2, stairs_up_deal(), "0 play 6-6"), 1, 1, "opens with 0-0")


def test_opening_by_player_count() -> None:
    rules = opts("classic", opening={"2": "free", "default": "highest-double"})
    assert one_round(rules, 2, stairs_down_deal(), "1 play 2-1")["status"] == "unfinished"
    three = deal("6-6 0-0 0-1 0-2 0-3", "1-1 1-2 1-3 1-4 1-5", "2-2 2-3 2-4 2-5 2-6")
    refused(one_round(rules, 3, three, "1 play 1-1"), 1, 1, "ingaan opens with 6-6")


# ---------------------------------------------------------------------- no_double


def test_no_double_highest_tile_on_classic_accepts_the_deal() -> None:
    rules = opts("classic", no_double="highest-tile")
    assert one_round(rules, 2, no_double_deal(), "0 play 3-6")["status"] == "unfinished"
    refused(one_round("classic", 2, no_double_deal(), "0 play 3-6"), 1, 0,
            "nobody holds a double")


def test_no_double_draw_for_double_on_classic() -> None:
    rules = opts("classic", no_double="draw-for-double")
    d = no_double_deal(top="5-6 4-6 5-5")
    assert one_round(rules, 2, d, "0 draw", "1 draw", "0 draw", "0 play 5-5",
                     "1 play 5-4 left")["status"] == "unfinished"
    # classic has no spinner, even when the opening double was drawn
    refused(one_round(rules, 2, d, "0 draw", "1 draw", "0 draw", "0 play 5-5",
                      "1 play 5-4 up"), 1, 5, "no up end")


def test_no_double_redeal_on_spilop_refuses_an_explicit_deal_without_a_double() -> None:
    refused(one_round(opts("spilop", no_double="redeal"), 2, no_double_deal(), "0 draw"), 1, 0,
            "nobody holds a double")


# ---------------------------------------------------------------------- spinner


def arms_deal() -> dict:
    return deal("6-6 6-4 0-0 0-1 0-2 0-3 0-4", "6-1 6-2 6-3 1-1 1-2 1-3 1-4")


AFTER_SIDES = opts("spilop", spinner_arms="after-sides")


def test_spinner_arms_after_sides_closed_at_first_illegal() -> None:
    assert position(AFTER_SIDES, 2, arms_deal(), "0 play 6-6").open_ends() == {
        "left": 6, "right": 6}
    refused(one_round(AFTER_SIDES, 2, arms_deal(), "0 play 6-6", "1 play 6-1 up"), 1, 2,
            "not open yet")


def test_spinner_arms_after_sides_open_once_left_and_right_are_covered_legal() -> None:
    specs = ["0 play 6-6", "1 play 6-1 left", "0 play 6-4 right"]
    assert position(AFTER_SIDES, 2, arms_deal(), *specs).open_ends() == {
        "left": 1, "right": 4, "up": 6, "down": 6}
    assert one_round(AFTER_SIDES, 2, arms_deal(), *specs,
                     "1 play 6-2 up")["status"] == "unfinished"
    refused(one_round(AFTER_SIDES, 2, arms_deal(), *specs, "1 play 6-2"), 1, 4, "name one")


def test_spinner_arms_after_one_side_still_closed_illegal() -> None:
    refused(one_round(AFTER_SIDES, 2, arms_deal(), "0 play 6-6", "1 play 6-1 left",
                      "0 play 6-4 down"), 1, 3, "not open yet")


def test_spinner_on_classic() -> None:
    rules = opts("classic", spinner=True)
    assert one_round(rules, 2, stairs_down_deal(), "0 play 6-6",
                     "1 play 6-5 up")["status"] == "unfinished"


# ---------------------------------------------------------------------- bonus_multiple


EX1_MOVES = [
    "0 play 6-6", "1 play 6-4 left", "0 play 4-2 left", "1 play 2-2 left", "0 play 2-1 left",
    "1 play 1-1 left", "0 play 1-0 left", "1 play 0-0 left", "0 play 0-5 left",
    "1 play 5-5 left", "0 play 5-1 left", "1 play 1-6 left", "0 play 6-5 left",
]


def test_bonus_multiple_three() -> None:
    # open-end sums: 12 16 14 16 13 14 12 12 17 22 13 18 17; multiples of 3 on moves
    # 1 and 7 (seat 0: 12 + 12) and 8 and 12 (seat 1: 12 + 18); none is a multiple of 5
    d = deal("6-6 4-2 2-1 1-0 0-5 5-1 6-5", "6-4 2-2 1-1 0-0 5-5 1-6 3-3")
    answer = one_round(opts("spilop", bonus=True, bonus_multiple=3), 2, d, *EX1_MOVES)
    assert only_round(answer)["bonus"] == [24, 30]
    assert answer["scores"] == [30, 30]
    assert only_round(one_round(opts("spilop", bonus=True), 2, d, *EX1_MOVES))["bonus"] == [0, 0]


def test_bonus_multiple_three_in_what_each_move_could_score() -> None:
    """score_of and options (what the statistics store for every move) use the multiple
    too: the same sums, 12 16 14 16 13 14 12 12 17 22 13 18 17, scored when a multiple
    of 3, and the best a player could have done is never below what they did."""
    from logs import log

    from recorder.replay import MoveEvent, walk

    d = deal("6-6 4-2 2-1 1-0 0-5 5-1 6-5", "6-4 2-2 1-1 0-0 5-5 1-6 3-3")
    for multiple, expected in ((3, [12, 0, 0, 0, 0, 0, 12, 12, 0, 0, 0, 18, 0]),
                               (5, [0] * 13)):
        doc = log(opts("spilop", bonus=True, bonus_multiple=multiple), 2,
                  [{"deal": d, "moves": EX1_MOVES}])
        scored = []
        for event in walk(doc):
            if type(event) is MoveEvent:
                state, seat = event.state, event.move.player
                scored.append(state.score_of(event.move))
                count, best = state.options(seat)
                assert best >= scored[-1] and count >= 1
                assert best == max(state.score_of(m) for m in state.legal_moves(seat))
        assert scored == expected, multiple


# ---------------------------------------------------------------------- scoring


def test_domino_scoring_penalty_on_classic() -> None:
    rnd = only_round(one_round(opts("classic", domino_scoring="penalty"), 2,
                               stairs_down_deal("3-6"), *turns(STAIRS_DOWN, 2)))
    assert (rnd["winners"], rnd["points"]) == ([0], [0, 9])


def test_domino_scoring_opponents_pips_on_kozel() -> None:
    rnd = only_round(one_round(opts("kozel", domino_scoring="opponents-pips"), 2,
                               stairs_up_deal("3-6"), *turns(STAIRS_UP, 2)))
    assert (rnd["winners"], rnd["points"]) == ([0], [9, 0])


@pytest.mark.parametrize(("scoring", "winners", "points"), [
    ("lowest-wins", [1], [0, 89]),
    ("fish", [1], [89, 0]),  # seat 1 made the last play; seat 0 drew after it
    ("negative", [], [-89, -1]),
    ("difference", [1], [0, 88]),
])
def test_blocked_scoring_options_on_classic(scoring: str, winners: list[int],
                                            points: list[int]) -> None:
    rnd = only_round(one_round(opts("classic", blocked_scoring=scoring), 2, block6_two_deal(),
                               *block_two()))
    assert (rnd["winners"], rnd["points"], rnd["pips_left"]) == (winners, points, [89, 1])


def test_blocked_scoring_lowest_wins_everybody_tied_all_win_nothing() -> None:
    # two players, 6 pips each: draw none ends the round when nobody can play
    p0, p1 = played_by(BLOCK6, 2)
    d = deal([*p0, "0-2", "0-4"], [*p1, "1-1", "1-3"])
    rnd = only_round(one_round(opts("classic", draw="none"), 2, d, *turns(BLOCK6, 2)))
    assert (rnd["winners"], rnd["points"], rnd["pips_left"]) == ([0, 1], [0, 0], [6, 6])


def test_blocked_scoring_difference_equal_totals_nobody_scores() -> None:
    p0, p1 = played_by(BLOCK6, 2)
    d = deal([*p0, "0-2", "0-4"], [*p1, "1-1", "1-3"])
    rnd = only_round(one_round(opts("classic", draw="none", blocked_scoring="difference"), 2, d,
                               *turns(BLOCK6, 2)))
    assert (rnd["winners"], rnd["points"]) == ([], [0, 0])


# ---------------------------------------------------------------------- target_mode


def test_target_mode_reach_loses_on_classic() -> None:
    answer = run(opts("classic", target_mode="reach-loses", target=50), 2,
                 [{"deal": block6_two_deal(), "moves": block_two()}])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("finished", [0, 89],
                                                                     [0])


def test_target_mode_reach_wins_on_kozel() -> None:
    p0, p1, p2 = played_by(BLOCK6_LONG, 3)
    d = deal([*p0, "0-2", "0-3", "0-4"], [*p1, "2-2", "3-3", "4-4"],
             [*p2, "1-1", "1-3", "1-4", "2-3"])
    answer = run(opts("kozel", target_mode="reach-wins", target=50), 3,
                 [{"deal": d, "moves": [*turns(BLOCK6_LONG, 3), "2 draw *7"]}])
    assert (answer["status"], answer["scores"], answer["winners"]) == ("finished", [9, 0, 61],
                                                                     [2])


# ---------------------------------------------------------------------- max_pip


def test_max_pip_nine_deal_and_play() -> None:
    rules = opts("classic", max_pip=9)
    d = deal("9-9 9-8 0-0 0-1 0-2 0-3 0-4", "9-7 8-8 1-1 1-2 1-3 1-4 1-5", max_pip=9)
    assert len(d["boneyard"]) == 55 - 14
    assert one_round(rules, 2, d, "0 play 9-9", "1 play 9-7 left")["status"] == "unfinished"
    refused(one_round(rules, 2, d, "0 play 9-8"), 1, 1, "opens with 9-9")
    refused(one_round(rules, 2, d, "1 play 8-8"), 1, 1, "ingaan opens with 9-9")
    refused(one_round(rules, 2, d, "0 play 9-9", "1 play 9-10 left"), 1, 2, "double-nine")


def test_max_pip_nine_refuses_a_double_six_deal() -> None:
    refused(one_round(opts("classic", max_pip=9), 2, stairs_down_deal(), "0 play 6-6"), 1, 0,
            "double-nine")


def test_max_pip_nine_seeded_deal_follows_the_canonical_order() -> None:
    seed = "double-nine-1"
    order, _ = shuffled(seed, max_pip=9)
    hands, bone = dealt(order, 2, 7)
    state = Match(Ruleset.from_spec(opts("classic", max_pip=9, no_double="highest-tile")),
                  2).new_round(seed=seed)
    names = canonical(9)
    assert state.deal.hand_names(state.tiles) == [sorted(h, key=names.index) for h in hands]
    assert state.deal.boneyard_names(state.tiles) == bone


def test_max_pip_twelve() -> None:
    rules = opts("classic", max_pip=12)
    d = deal("12-12 12-11 0-0 0-1 0-2 0-3 0-4", "11-11 12-10 1-1 1-2 1-3 1-4 1-5", max_pip=12)
    assert len(d["boneyard"]) == 91 - 14
    assert one_round(rules, 2, d, "0 play 12-12", "1 play 12-10 right")["status"] == "unfinished"


def test_max_pip_other_values_refused() -> None:
    refused(run(opts("classic", max_pip=7), 2, []), 0, 0, "6, 9 or 12")


# ---------------------------------------------------------------------- hand_size


def test_hand_size_number() -> None:
    rules = opts("spilop", hand_size=5)
    five = deal("6-6 0-0 0-1 0-2 0-3", "1-1 1-2 1-3 1-4 1-5")
    assert one_round(rules, 2, five, "0 play 6-6")["status"] == "unfinished"
    refused(one_round(rules, 2, stairs_down_deal(), "0 play 6-6"), 1, 0, "holds 7 tiles", "5")


def test_hand_size_by_player_count() -> None:
    rules = opts("classic", hand_size={"2": 6, "3": 4})
    six = deal("6-6 0-0 0-1 0-2 0-3 0-4", "1-1 1-2 1-3 1-4 1-5 1-6")
    assert one_round(rules, 2, six, "0 play 6-6")["status"] == "unfinished"
    four = deal("6-6 0-0 0-1 0-2", "1-1 1-2 1-3 1-4", "2-2 2-3 2-4 2-5")
    assert one_round(rules, 3, four, "0 play 6-6")["status"] == "unfinished"


def test_hand_size_seeded_deal() -> None:
    seed = "hand-size-5"
    order, _ = shuffled(seed)
    hands, bone = dealt(order, 2, 5)
    state = Match(Ruleset.from_spec(opts("spilop", hand_size=5)), 2).new_round(seed=seed)
    names = canonical()
    assert state.deal.hand_names(state.tiles) == [sorted(h, key=names.index) for h in hands]
    assert state.deal.boneyard_names(state.tiles) == bone


def test_hand_size_larger_than_the_set_refused() -> None:
    refused(run(opts("classic", hand_size=15), 2, []), 0, 0, "more than the 28 tiles")


def test_hand_size_bad_player_count_key_refused() -> None:
    refused(run(opts("classic", hand_size={"two": 5}), 2, []), 0, 0, "hand_size")


# ---------------------------------------------------------------------- partnerships


def partners_deal() -> dict:
    """Four players, 5 each, STAIRS_DOWN then four more plays: seat 0 goes out on move 17.

    Pips left: seat 1 3-6 (9), seat 2 0-5 (5), seat 3 4-6 (10)."""
    p0, p1, p2, p3 = played_by(STAIRS_DOWN, 4)
    return deal([*p0, "1-3"], [*p1, "0-2", "3-6"], [*p2, "6-1", "0-5"], [*p3, "2-4", "4-6"])


PARTNER_MOVES = [*turns(STAIRS_DOWN, 4), "1 play 0-2 right", "2 play 6-1 left",
                 "3 play 2-4 right", "0 play 1-3 left"]


def test_partnerships_domino_the_team_scores_the_other_teams_pips() -> None:
    rnd = only_round(one_round(opts("classic", partnerships=True), 4, partners_deal(),
                               *PARTNER_MOVES))
    assert rnd == {"winners": [0, 2], "points": [19, 0, 19, 0], "bonus": [0, 0, 0, 0],
                   "blocked": False, "pips_left": [0, 9, 5, 10], "ended_by": 0}


def test_without_partnerships_the_winner_scores_all_three_opponents() -> None:
    rnd = only_round(one_round("classic", 4, partners_deal(), *PARTNER_MOVES))
    assert (rnd["winners"], rnd["points"]) == ([0], [24, 0, 0, 0])


def test_partnerships_blocked_team_pips_compared() -> None:
    rnd = only_round(one_round(opts("classic", partnerships=True), 4, thirds_deal(),
                               *turns(BLOCK6_LONG, 4), "3 draw *8"))
    # team 0+2 holds 6 + 6, team 1+3 holds 6 + 70
    assert (rnd["winners"], rnd["points"]) == ([0, 2], [76, 0, 76, 0])


def test_partnerships_bonus_and_scores_are_the_teams() -> None:
    # spilop sums: 12 17 22 16 20 15 18 14 16 13 14 12 12 14 3 5 7: seat 0 scores 20 on
    # move 5, seat 1 15 on move 6, seat 3 5 on move 16
    answer = one_round(opts("spilop", bonus=True, partnerships=True), 4, partners_deal(),
                       *PARTNER_MOVES)
    rnd = only_round(answer)
    assert rnd["bonus"] == [20, 20, 20, 20]
    assert rnd["points"] == [19, 0, 19, 0]
    assert answer["scores"] == [39, 20, 39, 20]
    alone = only_round(one_round(opts("spilop", bonus=True), 4, partners_deal(),
                                 *PARTNER_MOVES))
    assert alone["bonus"] == [20, 15, 0, 5]
    assert alone["points"] == [24, 0, 0, 0]


def test_partnerships_game_winners_are_both_partners() -> None:
    rules = opts("classic", partnerships=True, target=19)
    answer = run(rules, 4, [{"deal": partners_deal(), "moves": PARTNER_MOVES}])
    assert (answer["status"], answer["winners"]) == ("finished", [0, 2])


def test_partnerships_need_four_players() -> None:
    refused(run(opts("classic", partnerships=True), 3, []), 0, 0, "4 players")
    refused(run(opts("norwegian", partnerships=True), 2, []), 0, 0, "partnerships")


# ---------------------------------------------------------------------- two sets: tie_break


def _tied_seed(seed: str) -> bool:
    order, stream = shuffled(seed, sets=2)
    hands, _ = dealt(order, 2, 7)
    top = highest_double(hands)
    return top is not None and all(top in h for h in hands) and stream.below(2) == 1


def test_tie_break_any_lets_either_tied_holder_open_a_seeded_deal() -> None:
    seed = find_seed(_tied_seed, "tie-any")
    order, _ = shuffled(seed, sets=2)
    top = highest_double(dealt(order, 2, 7)[0])
    rules = opts("spilop", sets=2, tie_break="any")
    for opener in (0, 1):
        answer = run(rules, 2, [{"seed": seed, "moves": [f"{opener} play {top}"]}])
        assert answer["status"] == "unfinished", answer
    # with the default lot only seat 1 (the lot drew 1) may open
    refused(run(opts("spilop", sets=2), 2, [{"seed": seed, "moves": [f"0 play {top}"]}]),
            1, 1, "not this player's turn")


# ---------------------------------------------------------------------- refusals


@pytest.mark.parametrize(("options", "words"), [
    ({"bonuss": True}, ['unknown option "bonuss"', 'did you mean "bonus"']),
    ({"bonus": "yes"}, ["option bonus must be true or false"]),
    ({"draw": "sometimes"}, ["option draw", "until-playable, one, none"]),
    ({"sets": 3}, ["option sets", "1 to 2"]),
    ({"target": 0}, ["option target"]),
    ({"stock_floor": -1}, ["option stock_floor"]),
    ({"tie_break": "coin"}, ["option tie_break", "lot, any"]),
    ({"opening": "lowest"}, ["option opening"]),
    ({"opening": "highest-tile"}, ["spinner needs a double"]),
    ({"opening": "free"}, ["spinner needs a double"]),
    ({"no_double": "highest-tile"}, ["spinner needs a double"]),
])
def test_bad_options_on_spilop_are_refused(options: dict, words: list[str]) -> None:
    refused(run({"preset": "spilop", "options": options}, 2, []), 0, 0, *words)


def test_contradictory_spinner_on_a_free_opening_preset_refused() -> None:
    refused(run(opts("italian", spinner=True), 2, []), 0, 0, "spinner")


def test_unknown_ruleset_key_refused() -> None:
    refused(run({"preset": "classic", "rules": {"draw": "one"}}, 2, []), 0, 0, "rules")


def test_unknown_preset_refused_with_a_suggestion() -> None:
    with pytest.raises(RulesetError, match='did you mean "spilop"'):
        find("spillop")
    refused(run("spillop", 2, []), 0, 0, '"spillop" is not a preset', "spilop, classic")


def test_option_error_points_at_the_option() -> None:
    with pytest.raises(RulesetError) as info:
        Ruleset.from_spec({"preset": "classic", "options": {"drwa": "one"}})
    assert info.value.pointer == "/ruleset/options/drwa"
    assert 'did you mean "draw"' in info.value.message


def test_every_documented_option_is_known() -> None:
    documented = {"target", "target_mode", "bonus", "bonus_multiple", "sets", "max_pip",
                  "hand_size", "draw", "stock_floor", "opening", "no_double", "tie_break",
                  "spinner", "spinner_arms", "domino_scoring", "blocked_scoring",
                  "partnerships"}
    assert documented <= set(OPTIONS)


# ---------------------------------------------------------------------- options that change nothing


@pytest.mark.parametrize(("preset", "options", "name", "why"), [
    ("classic", {"spinner_arms": "after-sides"}, "spinner_arms", "without spinner"),
    ("spilop", {"spinner": False, "spinner_arms": "always"}, "spinner_arms", "without spinner"),
    ("kozel", {"bonus_multiple": 3}, "bonus_multiple", "without bonus"),
    ("spilop", {"bonus": False, "bonus_multiple": 5}, "bonus_multiple", "without bonus"),
])
def test_an_option_that_changes_nothing_is_refused_with_why(
        preset: str, options: dict[str, object], name: str, why: str) -> None:
    with pytest.raises(RulesetError) as info:
        Ruleset.from_spec({"preset": preset, "options": options})
    assert info.value.pointer == f"/ruleset/options/{name}"
    assert f"option {name} changes nothing" in info.value.message
    assert why in info.value.message and "remove" in info.value.message


def test_the_same_options_with_what_they_act_on_are_accepted() -> None:
    rules = Ruleset.from_spec({"preset": "kozel", "options": {"bonus": True,
                                                              "bonus_multiple": 3}})
    assert (rules.bonus, rules.bonus_multiple) == (True, 3)
    assert find("spilop").with_options({"spinner_arms": "after-sides"}).spinner_arms \
        == "after-sides"


def test_an_option_set_to_null_is_the_option_left_out() -> None:
    assert Ruleset.from_spec({"preset": "spilop", "options": {"bonus": None}}) == find("spilop")
    rules = Ruleset.from_spec({"preset": "spilop", "options": {"bonus": True,
                                                               "bonus_multiple": None}})
    assert (rules.bonus, rules.bonus_multiple) == (True, 5)
    # null does not switch an option off: the preset's own value stays
    assert Ruleset.from_spec({"preset": "spilop", "options": {"spinner": None}}).spinner


def test_a_null_option_hashes_like_the_option_left_out() -> None:
    from conftest import make_game

    from recorder.ingest import content_hash
    from recorder.replay import replay

    doc = make_game(3, ruleset={"preset": "classic", "options": {"draw": "one"}})
    with_null = {**doc, "ruleset": {"preset": "classic",
                                    "options": {"draw": "one", "bonus": None}}}
    assert content_hash(with_null) == content_hash(doc)
    answer = replay(with_null)
    assert answer["status"] == "finished"
    assert answer == replay(doc)
