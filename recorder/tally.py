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


def add_seat(row: list[float], t: SeatTally, places: Sequence[int],
             plays_places: Sequence[int], bonus_places: Sequence[int]) -> None:
    """Add a seat's move sums to its row of player counters: ``t``'s 21 sums (moves,
    ms_n, ms_sum, ms_sq, draws, passes, plays, heavy_n, heavy_k, double_n, double_k,
    chance_n, chance_k, left_sum, left_sq, missed_n, missed_points, bonus_plays,
    bonus_points, block_n, block_k) at ``places``, and its plays and bonus plays at
    move numbers 1 to the cap at ``plays_places`` and ``bonus_places``. Each place
    takes one addition, a float plus a sum, as ``row[place] += value`` in Python."""
    row[places[0]] += t.moves
    row[places[1]] += t.ms_n
    row[places[2]] += t.ms_sum
    row[places[3]] += t.ms_sq
    row[places[4]] += t.draws
    row[places[5]] += t.passes
    row[places[6]] += t.plays
    row[places[7]] += t.heavy_n
    row[places[8]] += t.heavy_k
    row[places[9]] += t.double_n
    row[places[10]] += t.double_k
    row[places[11]] += t.chance_n
    row[places[12]] += t.chance_k
    row[places[13]] += t.left_sum
    row[places[14]] += t.left_sq
    row[places[15]] += t.missed_n
    row[places[16]] += t.missed_points
    row[places[17]] += t.bonus_plays
    row[places[18]] += t.bonus_points
    row[places[19]] += t.block_n
    row[places[20]] += t.block_k
    plays_at = t.plays_at
    bonus_at = t.bonus_at
    for i in range(len(plays_places)):
        row[plays_places[i]] += plays_at[i + 1]
        row[bonus_places[i]] += bonus_at[i + 1]


ROUND_SUMS = 12
"""The sums a game's rounds add to each seat's row, in the order of :class:`RoundTally`:
rounds, round_moves_sum, round_moves_sq, points_sum, points_sq, rounds_won, losing_n,
losing_sum, losing_sq, blocked_rounds, target_rounds, dominoes."""


class RoundTally:
    """A game's rounds counted: per seat, and per seat or turn position."""

    def __init__(self, seats: int) -> None:
        #: per seat, the ROUND_SUMS sums
        self.seats: list[list[float]] = [[0.0] * ROUND_SUMS for _ in range(seats)]
        #: ("seat", seat) or ("turn", position from the round's opener) -> [rounds,
        #: rounds_won, points_sum, points_sq], in the order each was first counted
        self.positions: dict[tuple[str, int], list[float]] = {}


def count_rounds(rounds: Sequence[Any], seats: int,
                 own_bonus: dict[tuple[int, int], float]) -> RoundTally:
    """Count a game's rounds (``RoundFact``, in order) for ``seats`` players.

    ``own_bonus`` is :attr:`MoveTally.own_bonus`: a seat's points in a round are the
    round's points plus the bonus it scored with its own plays. Every sum starts at 0.0
    and takes the rounds in order, as a loop adding each round to a row of zeros would.
    """
    out = RoundTally(seats)
    sums = out.seats
    positions = out.positions
    seat_keys = [("seat", seat) for seat in range(seats)]
    turn_keys = [("turn", k) for k in range(seats)]
    for r in rounds:
        written = r.ending
        if written:
            ending = str(written)
        elif r.blocked:
            ending = "blocked"
        else:
            ending = "target" if r.pips_left[r.ended_by] > 0 else "domino"
        blocked = ending == "blocked"
        target = ending == "target"
        moves: int = r.moves
        moves_f = float(moves)
        moves_sq = float(moves * moves)
        number = r.round
        points_of = r.points
        pips_of = r.pips_left
        winners = set(r.winners)
        ended_by = r.ended_by
        opener: int = r.opener
        for seat in range(seats):
            row = sums[seat]
            row[0] += 1.0
            row[1] += moves_f
            row[2] += moves_sq
            points: float = float(points_of[seat]) + (
                own_bonus.get((number, seat), 0.0) if own_bonus else 0.0)
            row[3] += points
            row[4] += points * points
            won = seat in winners
            if won:
                row[5] += 1.0
            else:
                pips = float(pips_of[seat])
                row[6] += 1.0
                row[7] += pips
                row[8] += pips * pips
            if blocked:
                row[9] += 1.0
            elif target:
                row[10] += 1.0
            elif ended_by == seat:
                row[11] += 1.0
            _position(positions, seat_keys[seat], won, points)
            if opener >= 0:
                _position(positions, turn_keys[(seat - opener) % seats], won, points)
    return out


def _position(positions: dict[tuple[str, int], list[float]], key: tuple[str, int],
              won: bool, points: float) -> None:
    row = positions.get(key)
    if row is None:
        row = positions[key] = [0.0, 0.0, 0.0, 0.0]
    row[0] += 1.0
    if won:
        row[1] += 1.0
    row[2] += points
    row[3] += points * points
