"""Counting a game's moves for the statistics: the per-move part of its contribution.

``recorder.stats.contribution`` turns a game's facts into the counters the statistics
add up. Most of that work is one pass over every move of the game, which the import
makes for every game it stores; it lives here, in the compiled core, where the fields of
``MoveFact`` are read as C values and the sums are kept in C doubles. ``recorder.stats``
keeps what the counters mean and where each goes.

The sums are made in the same order and with the same Python arithmetic as a loop of
``row[i] += value`` over the moves would make them (an int times an int stays an exact
int until it is added to a float), so the counters are the very same floats.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from recorder.analysis import MoveFact


class SeatTally:
    """What one seat's moves of one game add up to."""

    def __init__(self, cap: int) -> None:
        self.moves = 0
        self.plays = 0
        self.draws = 0
        self.passes = 0
        self.ms_n = 0
        self.ms_sum: float = 0.0
        self.ms_sq: float = 0.0
        self.heavy_n = 0
        self.heavy_k = 0
        self.double_n = 0
        self.double_k = 0
        self.chance_n = 0
        self.chance_k = 0
        self.left_sum: float = 0.0
        self.left_sq: float = 0.0
        self.missed_n = 0
        self.missed_points: float = 0.0
        self.bonus_plays = 0
        self.bonus_points: float = 0.0
        self.block_n = 0
        self.block_k = 0
        #: plays, and plays that scored a bonus, by move number (index 1 to the cap)
        self.plays_at: list[int] = [0] * (cap + 1)
        self.bonus_at: list[int] = [0] * (cap + 1)


class MoveTally:
    """A game's moves counted: per seat, and what the statistics keep beside the counters."""

    def __init__(self, seats: int, cap: int) -> None:
        self.seats: list[SeatTally] = [SeatTally(cap) for _ in range(seats)]
        #: bonus each seat scored with its own plays, by (round, seat)
        self.own_bonus: dict[tuple[int, int], float] = {}
        #: (points left, round, move, seat, scored, best) of every play that missed a bonus
        self.misses: list[tuple[Any, int, int, int, Any, Any]] = []
        #: (seat, points) of every play that scored, in move order
        self.bonus: list[tuple[int, Any]] = []


def count_moves(moves: Sequence[MoveFact], seats: int, cap: int) -> MoveTally:
    """Count ``moves`` (a game's, in order) for ``seats`` players; move numbers from
    ``cap`` on are counted at ``cap``. A seat out of range, or a move number below 1,
    fails (IndexError, KeyError) as the counters' own lookups would."""
    out = MoveTally(seats, cap)
    tallies = out.seats
    own = out.own_bonus
    for m in moves:
        seat = m.player
        t = tallies[seat]
        t.moves += 1
        ms = m.ms
        if ms is not None:
            t.ms_n += 1
            t.ms_sum += ms
            t.ms_sq += ms * ms
        action = m.action
        if action == "draw":
            t.draws += 1
            continue
        if action != "play":
            t.passes += 1
            continue
        t.plays += 1
        score: Any = m.score  # int or float: the sums keep Python's arithmetic for both
        best: Any = m.best_score
        best_pips = m.best_pips
        if best_pips is not None and best_pips != m.least_pips:
            t.heavy_n += 1
            if m.pips == best_pips:
                t.heavy_k += 1
        if m.double_choice:
            t.double_n += 1
            if m.double:
                t.double_k += 1
        if best > 0:
            left = best - score
            t.chance_n += 1
            if score > 0:
                t.chance_k += 1
            t.left_sum += left
            t.left_sq += left * left
            if left > 0:
                t.missed_n += 1
                t.missed_points += left
                out.misses.append((left, m.round, m.move, seat, score, best))
        number = m.move
        at = number if number < cap else cap
        if at < 1:
            raise KeyError(at)
        t.plays_at[at] += 1
        if score > 0:
            t.bonus_plays += 1
            t.bonus_points += score
            t.bonus_at[at] += 1
            key = (m.round, seat)
            own[key] = own.get(key, 0.0) + score
            out.bonus.append((seat, score))
        stuck = m.next_stuck
        if stuck is not None and m.legal_count > 1:
            t.block_n += 1
            if stuck:
                t.block_k += 1
    return out
