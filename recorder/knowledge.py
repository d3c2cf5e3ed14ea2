"""What each player provably lacks: the numbers a player is known to hold no tile of.

Pure bookkeeping over the moves of one round; the replay frames carry its answer at
every move. Nothing here guesses: a number is listed only when the moves seen so far
(and, for one seat's point of view, that seat's own hand) prove it.

Public knowledge, from what everyone at the table saw:

* **A draw or a pass proves a lack.** The rules let a player draw (outside the
  draw-for-double phase) or pass only when no tile in hand fits an open end, so at
  that moment the hand holds no tile carrying any number the open ends show (``E``).
* **A lack survives plays and the other players' moves**: taking tiles out of a hand
  cannot add a number to it.
* **A drawn tile is unseen, so it suspends what was known.** Right after a draw the
  hand holds a tile nobody else has seen, which may carry any number: nothing is proved
  about the hand as a whole until the player moves again.

  - Another draw or a pass in the same turn proves the whole hand, the tiles just drawn
    included, lacks ``E`` again. Older lacks that ``E`` does not repeat are lost for
    good: the kept tiles were only ever tested against ``E``.
  - A play after drawing ``k`` tiles in the turn can only be the last tile drawn (the
    hand before it fitted nothing). With ``k = 1`` the hand after the play is the hand
    before the turn, so everything known before the turn holds again, ``E`` included.
    With ``k > 1`` the first ``k - 1`` drawn tiles stay in the hand: they are known to
    lack ``E`` only (each was followed by another draw), so the lack is ``E``.

  This is why, with draw-until-playable, the lack of a turn's end numbers survives that
  turn, while a tile drawn and kept in a *later* turn keeps only that later turn's end
  numbers.
* **Exhaustion.** When every tile carrying a number lies on the board, nobody holds
  it: each player lacks it.

A seat's point of view adds what that seat alone knows, its own hand: a number whose
every tile is on the board or in that hand is lacked by every other player. The seat's
own entry is empty (it sees its hand).

Draws in the draw-for-double phase prove nothing about numbers (no end is open), but
the drawn tiles are unseen all the same; a round starts with nothing known, so they
suspend nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

PLAY_PHASE = "play"


@dataclass(slots=True)
class _Seat:
    lacks: frozenset[int] = frozenset()
    """What the whole hand provably lacks now (before exhaustion)."""
    before_turn: frozenset[int] = frozenset()
    """What the hand held before this turn's first draw lacks (that draw's ends included)."""
    drawn: int = 0
    """Tiles drawn in the turn under way (outside draw-for-double)."""


@dataclass(slots=True)
class Knowledge:
    """The lacks of one round, fed each move before it is applied.

    ``max_pip`` and ``sets`` give how many tiles carry each number:
    ``(max_pip + 1) * sets`` (a double carries its number once).
    """

    players: int
    max_pip: int = 6
    sets: int = 1
    seats: list[_Seat] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.seats = [_Seat() for _ in range(self.players)]

    @property
    def per_number(self) -> int:
        """How many tiles of the set(s) carry any one number."""
        return (self.max_pip + 1) * self.sets

    def record(self, seat: int, action: str, ends: Iterable[int], phase: str) -> None:
        """Take in a move of ``seat`` made while the open ends showed ``ends``, in ``phase``.

        Called before the move is applied; a move the engine then refuses ends the
        replay, so its knowledge is never shown.
        """
        if not 0 <= seat < self.players:
            return
        me = self.seats[seat]
        if phase != PLAY_PHASE:
            return  # the opening, or a draw for a double: nothing about numbers
        shown = frozenset(ends)
        if action == "draw":
            if me.drawn == 0:
                me.before_turn = me.lacks | shown
            me.drawn += 1
            me.lacks = frozenset()  # the tile just drawn is unseen
        elif action == "pass":
            me.lacks = (me.lacks | shown) if me.drawn == 0 else shown
            me.drawn = 0
        elif action == "play":
            if me.drawn == 1:
                me.lacks = me.before_turn
            elif me.drawn > 1:
                me.lacks = shown
            me.drawn = 0

    def public(self, board_counts: Sequence[int]) -> list[list[int]]:
        """Per seat, the numbers everyone can tell it lacks.

        ``board_counts[n]`` is how many tiles on the board carry ``n`` (:func:`board_counts`).
        """
        gone = self._exhausted(board_counts)
        return [sorted(s.lacks | gone) for s in self.seats]

    def seen_by(self, board_counts: Sequence[int],
                hands: Sequence[Sequence[tuple[int, int]]]) -> list[list[list[int]]]:
        """Per viewer seat v, per seat s: what v can tell s lacks (v's own entry is empty).

        ``hands`` gives each hand's tiles as (low, high) pairs.
        """
        out: list[list[list[int]]] = []
        for v in range(self.players):
            counts = list(board_counts)
            for lo, hi in hands[v]:
                counts[lo] += 1
                if hi != lo:
                    counts[hi] += 1
            gone = self._exhausted(counts)
            out.append([[] if s == v else sorted(self.seats[s].lacks | gone)
                        for s in range(self.players)])
        return out

    def _exhausted(self, counts: Sequence[int]) -> frozenset[int]:
        full = self.per_number
        return frozenset(n for n, c in enumerate(counts) if c >= full)


def board_counts(board: Sequence[Sequence[int]], max_pip: int) -> list[int]:
    """How many placed tiles carry each number (a double once), from ``Round.board``."""
    counts = [0] * (max_pip + 1)
    for placed in board:
        a, b = placed[0], placed[1]
        counts[a] += 1
        if b != a:
            counts[b] += 1
    return counts


__all__ = ["Knowledge", "board_counts"]
