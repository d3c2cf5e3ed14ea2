"""What each player provably lacks, on hand-made games.

Every game here has an explicit deal and moves written by hand; the expected lacks in
each test were worked out by hand from the deal and the rules of docs/frames.md
("What a player lacks"), not taken from the code's output.
"""

from __future__ import annotations

from typing import Any

from logs import BLOCK6, all_sixes_deal, block6_two_deal, deal, log, turns

from recorder.frames import build_frames
from recorder.knowledge import Knowledge, board_counts


def frames_of(ruleset: str | dict[str, Any], the_deal: dict[str, Any],
              *moves: str) -> list[dict[str, Any]]:
    doc = log(ruleset, 2, [{"deal": the_deal, "moves": list(moves)}])
    frames = build_frames(doc)
    assert frames["error"] is None, frames["error"]
    return frames["rounds"][0]["frames"]


def public(frames: list[dict[str, Any]], seat: int) -> list[list[int]]:
    return [f["lacks"]["public"][seat] for f in frames]


# Classic, two players, draw until playable. Seat 0 opens 6-6; seat 1 holds no 0, 5 or 6.
# The boneyard starts 4-4 3-4 2-6 0-3 1-5 1-6.
CLASSIC_DEAL = dict(hands=["6-6 5-6 4-6 3-6 0-0 0-1 0-2", "1-1 1-2 1-3 2-2 2-3 3-3 1-4"],
                    top="4-4 3-4 2-6 0-3 1-5 1-6")
CLASSIC_MOVES = (
    "0 play 6-6",        # m1  ends 6|6
    "1 draw",            # m2  draws 4-4: no 6 held, but 4-4 is unseen
    "1 draw",            # m3  draws 3-4
    "1 draw",            # m4  draws 2-6
    "1 play 2-6 right",  # m5  the last drawn; 4-4 and 3-4 kept, both shown not to fit 6
    "0 play 0-2 right",  # m6  ends 6|0
    "1 draw",            # m7  draws 0-3 (ends 6|0)
    "1 play 0-3 right",  # m8  one tile drawn and played: the hand is the one before the turn
    "0 play 3-6 right",  # m9  ends 6|6
    "1 draw",            # m10 draws 1-5
    "1 draw",            # m11 draws 1-6
    "1 play 1-6 left",   # m12 1-5 kept: tested against 6 only, so the lack of 0 is lost
)


def test_draw_until_playable_keeps_a_turns_lack_and_loses_older_ones() -> None:
    frames = frames_of("classic", deal(*CLASSIC_DEAL["hands"], top=CLASSIC_DEAL["top"]),
                       *CLASSIC_MOVES)
    assert public(frames, 1) == [
        [], [],                 # the deal, the opening
        [], [], [],             # right after each draw the drawn tile is unseen
        [6],                    # m5: 4-4 and 3-4 did not fit 6, the hand had no 6
        [6],                    # m6: seat 0's move changes nothing about seat 1
        [],                     # m7: 0-3 unseen
        [0, 6],                 # m8: 0-3 played, the hand is the one that lacked 6, 0
        [0, 6],                 # m9
        [], [],                 # m10, m11: unseen draws
        [6],                    # m12: 1-5 stays, known only not to carry 6
    ]
    assert public(frames, 0) == [[]] * 13  # seat 0 never drew nor passed


def test_a_pass_proves_a_lack_and_plays_keep_it() -> None:
    # Classic without drawing: seat 1 holds 1-1 1-2 1-3 2-2 2-3 3-3 4-6.
    frames = frames_of(
        {"preset": "classic", "options": {"draw": "none"}},
        deal("6-6 5-6 0-0 0-1 0-2 0-3 0-4", "1-1 1-2 1-3 2-2 2-3 3-3 4-6"),
        "0 play 6-6",        # m1  6|6
        "1 play 4-6 right",  # m2  6|4
        "0 play 0-4 right",  # m3  6|0
        "1 pass",            # m4  no 6, no 0
        "0 play 0-3 right",  # m5  6|3
        "1 play 2-3 right",  # m6  a play keeps the lack: 6|2
        "0 play 0-2 right",  # m7  6|0
        "1 pass",            # m8  no 6, no 0 again
        "0 play 5-6 left",   # m9  5|0
        "1 pass",            # m10 no 5 either
        "0 play 0-1 right",  # m11 5|1; the round goes on (unfinished)
    )
    assert public(frames, 1) == [[], [], [], [], [0, 6], [0, 6], [0, 6], [0, 6], [0, 6],
                                 [0, 6], [0, 5, 6], [0, 5, 6]]
    # seat 0 sees its own 0-0 and 0-1 and the 0-4, 0-3, 0-2 on the board: 5 of the seven
    # 0s, so nothing more than the public lacks; its own entry is empty
    assert frames[10]["lacks"]["seats"][0] == [[], [0, 5, 6]]
    assert frames[10]["lacks"]["seats"][1] == [[], []]


def test_draw_one_then_play_or_pass() -> None:
    # Italian (free opening, one draw a turn). Seat 1 holds no 0, 5 or 6; the boneyard
    # starts 2-4 4-6 3-4.
    frames = frames_of(
        "italian",
        deal("6-6 5-6 0-0 0-1 0-2 0-3 0-4", "1-1 1-2 1-3 2-2 2-3 3-3 1-4", top="2-4 4-6 3-4"),
        "0 play 6-6",        # m1  6|6
        "1 draw",            # m2  2-4, unseen
        "1 pass",            # m3  2-4 did not fit: the hand, 2-4 included, lacks 6
        "0 play 5-6 right",  # m4  6|5
        "1 draw",            # m5  4-6, unseen
        "1 play 4-6 left",   # m6  the drawn tile played: the hand before the turn, no 5, 6
        "0 play 0-4 left",   # m7  0|5
        "1 draw",            # m8  3-4, unseen
        "1 pass",            # m9  3-4 kept, known only to lack 0 and 5: the lack of 6 is lost
    )
    assert public(frames, 1) == [[], [], [], [6], [6], [], [5, 6], [5, 6], [], [0, 5]]


def test_exhaustion_is_public_once_every_tile_of_a_number_is_on_the_board() -> None:
    # BLOCK6: the ten plays put all seven 6s on the table with both ends showing 6.
    frames = frames_of("classic", block6_two_deal(), *turns(BLOCK6, 2), "0 draw")
    assert frames[9]["lacks"]["public"] == [[], []]       # six 6s on the board
    assert frames[10]["lacks"]["public"] == [[6], [6]]    # the seventh, 0-6
    # seat 0 draws with 6|6 showing: the drawn tile is unseen, but no 6 is left anywhere
    assert frames[11]["lacks"]["public"] == [[6], [6]]
    assert frames[11]["lacks"]["seats"] == [[[], [6]], [[6], []]]


def test_a_seat_that_holds_every_tile_of_a_number_knows_the_others_lack_it() -> None:
    # Seat 0 holds all seven 6s; seat 1 must draw the whole boneyard after 6-6.
    frames = frames_of("classic", all_sixes_deal(), "0 play 6-6", "1 draw", "1 draw")
    first = frames[0]["lacks"]
    assert first["public"] == [[], []]
    assert first["seats"] == [[[], [6]], [[], []]]
    # after the first draw: nothing public (the tile is unseen), seat 0 still knows
    assert frames[2]["lacks"]["public"] == [[], []]
    assert frames[2]["lacks"]["seats"][0] == [[], [6]]
    # the second draw proves the hand, the first drawn tile included, had no 6; but the
    # tile it brings is unseen again, so still nothing public
    assert frames[3]["lacks"]["public"] == [[], []]


def test_two_sets_need_both_copies() -> None:
    # Two sets of double-six: fourteen tiles carry each number. Seat 0 holding one of
    # each 6 proves nothing about seat 1.
    know = Knowledge(2, max_pip=6, sets=2)
    sixes = [(k, 6) for k in range(7)]
    assert know.seen_by([0] * 7, [sixes, []]) == [[[], []], [[], []]]
    counts = board_counts([(6, k, 0) for k in range(7)], 6)
    assert counts == [1, 1, 1, 1, 1, 1, 7]
    assert know.public(counts) == [[], []]
    assert know.seen_by(counts, [sixes, []])[0] == [[], [6]]


def test_double_nine_and_double_twelve_count_their_own_sets() -> None:
    nine = Knowledge(3, max_pip=9)
    assert nine.per_number == 10
    counts = [0] * 10
    counts[9] = 9
    assert nine.public(counts) == [[], [], []]
    counts[9] = 10
    assert nine.public(counts) == [[9], [9], [9]]
    twelve = Knowledge(4, max_pip=12)
    counts = [0] * 13
    counts[0] = 12
    hands = [[(0, 12)], [], [], []]
    assert twelve.seen_by(counts, hands)[0] == [[], [0], [0], [0]]
    assert twelve.seen_by(counts, hands)[1] == [[], [], [], []]


def test_draw_for_double_proves_nothing() -> None:
    know = Knowledge(2)
    know.record(0, "draw", [], "draw-for-double")
    know.record(1, "draw", [], "draw-for-double")
    assert know.public([0] * 7) == [[], []]
    # and a play after it (the opening) does not make the drawn tiles known
    know.record(1, "play", [], "opening")
    assert know.public([0] * 7) == [[], []]
