"""When a blocked round became certain: hand-made deals whose answer is worked out here."""

from __future__ import annotations

from typing import Any

import pytest

from recorder.blocking import certain_from
from recorder.engine import Move, Round, explicit_deal
from recorder.rules import Ruleset
from recorder.tiles import tile_set

RULES = Ruleset.from_spec({"preset": "classic", "options": {"draw": "none", "hand_size": 3}})


def deal(p0: list[str], p1: list[str]) -> Round:
    """A two-player round of double-six without drawing: these hands, the rest aside."""
    tiles = tile_set(6, 1)
    held = {tiles.parse(t)[0] for t in p0 + p1}
    rest = [tiles.kind_name[k] for k in range(tiles.kinds) if k not in held]
    dealt = explicit_deal(RULES, 2, {"hands": [p0, p1], "boneyard": rest})
    return Round.start(RULES, 2, dealt, None)


def moves(*spec: tuple[Any, ...]) -> list[Move]:
    return [Move(*s) for s in spec]


def test_a_round_doomed_from_the_deal_is_certain_from_move_0() -> None:
    # P0 opens 6-6 (the highest double). P1 holds no 6 and passes; P0 plays 6-5, the only
    # tile that fits; P1 plays 5-4 on the 5, the only one that fits. Ends 4|6: P0's 0-1 and
    # P1's 2-3 and 0-2 fit nothing. Every move was forced (6-5 may go on either 6, which
    # leaves the same ends), so no sequence from the deal reaches a domino.
    start = deal(["6-6", "6-5", "0-1"], ["5-4", "2-3", "0-2"])
    played = moves((0, "play", "6-6"), (1, "pass"), (0, "play", "6-5", "left"),
                   (1, "play", "5-4"))
    assert certain_from(start, played) == 0


def test_a_block_decided_by_the_last_move_is_certain_from_that_move() -> None:
    # P0 opens 6-6, P1 must play 6-3 (ends 3|6). P0 may play 6-1 or 6-2 on the 6:
    # - 6-1 (ends 3|1): P0 keeps 6-2, P1 keeps 2-4 and 4-5; nothing fits: blocked at once.
    # - 6-2 (ends 3|2): P1 plays 2-4 (3|4), P0 passes, P1 plays 4-5 and goes out: a domino.
    # Played: 6-1, so the block was certain only after the third and last move.
    start = deal(["6-6", "6-1", "6-2"], ["6-3", "2-4", "4-5"])
    played = moves((0, "play", "6-6"), (1, "play", "6-3", "left"), (0, "play", "6-1"))
    assert certain_from(start, played) == 3


def test_a_block_certain_in_the_middle_of_the_round() -> None:
    # P1 opens 3-3 (highest double; P1 also holds 0-0). P0 plays 3-2 or 3-0:
    # - 2-3 (ends 2|3): P1's only fit is 3-4 (2|4); then P0's 0-3 and 1-6 and P1's 0-0 fit
    #   nothing: blocked. So after move 2 = 2-3, the block is certain.
    # - 0-3 (ends 0|3): P1 may play 3-4 (0|4); P0 has nothing for 0 or 4 and passes; P1
    #   plays 0-0 and goes out. A domino was still reachable after move 1.
    start = deal(["0-3", "1-6", "2-3"], ["3-4", "3-3", "0-0"])
    played = moves((1, "play", "3-3"), (0, "play", "2-3", "left"), (1, "play", "3-4"))
    assert certain_from(start, played) == 2


def test_the_search_says_so_when_its_budget_runs_out() -> None:
    start = deal(["0-3", "1-6", "2-3"], ["3-4", "3-3", "0-0"])
    played = moves((1, "play", "3-3"), (0, "play", "2-3", "left"), (1, "play", "3-4"))
    assert certain_from(start, played, budget=1) is None
    assert certain_from(start, played, budget=50) == 2


def test_the_moves_must_end_the_round_blocked() -> None:
    start = deal(["6-6", "6-1", "6-2"], ["6-3", "2-4", "4-5"])
    with pytest.raises(ValueError):
        certain_from(start, moves((0, "play", "6-6")))


def test_the_start_is_left_as_it_was() -> None:
    start = deal(["6-6", "6-1", "6-2"], ["6-3", "2-4", "4-5"])
    before = (list(start.hands), start.phase, start.turn)
    certain_from(start, moves((0, "play", "6-6"), (1, "play", "6-3", "left"),
                              (0, "play", "6-1")))
    assert (list(start.hands), start.phase, start.turn) == before
