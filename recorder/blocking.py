"""When did a blocked round become certain to end blocked?

With everything known (every hand and the boneyard's order, as a replay knows them), a
position is *doomed* when no sequence of legal moves from it reaches a domino (a player
going out): every continuation ends blocked. The moment a blocked round was decided is
the earliest move after which the position is doomed. Going backwards from the end, the
first position from which a domino is still reachable marks it: the block was certain
from the move after that one.

The search uses only the engine's own rules (``legal_moves`` and ``apply``, made and
unmade on one position with the engine's ``snapshot`` and ``restore``),
memoizes positions by what decides the rest of the round (hands, stock drawn, open ends,
whose turn it is), and spends at most ``budget`` positions on a round: when the budget
runs out the answer is ``None`` (not known), never a guess. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from recorder.engine import Move, Round, Snapshot

DEFAULT_BUDGET = 4000
"""Positions searched per round at most. Blocked rounds are mostly decided in their last
few moves, where the tree is small; the budget bounds the rare round that is not."""


WINDOW = 8
"""Positions :func:`certain_from` keeps as it replays, counted back from the last move
(about seven blocked rounds in eight are decided within them); a search that gets past
them replays the round again for the earlier ones."""


class _OutOfBudget(Exception):
    pass


def _key(state: Round) -> tuple[object, ...]:
    """What decides the rest of the round (bonus and history do not)."""
    return (
        tuple(state.hands), state.drawn, tuple(state.value), tuple(state.covered),
        state.turn, state.phase, state.drew, state.arms_open, state.openers,
        state.opening_kind,
    )


def _apply(state: Round, move: Move) -> None:
    """``state.apply(move)`` by the engine's fast lane where it is sure (it hands
    anything else, and every closed double, to ``apply``): the same position after."""
    if move.closed:
        state.apply(move)
    else:
        state.apply_fast(move.player, move.action, move.tile, move.end)


def domino_reachable(state: Round, memo: dict[tuple[object, ...], bool],
                     budget: list[int]) -> bool:
    """Whether some sequence of legal moves from ``state`` ends with a player going out.

    ``budget`` is a one-element list of the positions still allowed (shared across calls
    so that one round's searches share one budget); raises ``_OutOfBudget`` past it,
    leaving ``state`` somewhere in the search (else ``state`` is as it was given).
    """
    if state.over:
        return not state.result.blocked  # type: ignore[union-attr]
    key = _key(state)
    known = memo.get(key)
    if known is not None:
        return known
    budget[0] -= 1
    if budget[0] < 0:
        raise _OutOfBudget
    moves = state.legal_moves()
    # plays first: a domino is found sooner, and draws are forced anyway (the order a
    # stable sort on "not a play" gives, without a key function called per move)
    plays = [m for m in moves if m.action == "play"]
    if len(plays) < len(moves):
        plays += [m for m in moves if m.action != "play"]
    # make and unmake on the one position (the engine's snapshot holds everything a move
    # changes), rather than a copy per child
    found = False
    saved = state.snapshot()
    for move in plays:
        _apply(state, move)
        reached = domino_reachable(state, memo, budget)
        state.restore(saved)
        if reached:
            found = True
            break
    memo[key] = found
    return found


def certain_from(start: Round, moves: Sequence[Move], *,
                 budget: int = DEFAULT_BUDGET) -> int | None:
    """The move (1-based) after which the blocked round could only end blocked.

    ``start`` is the round just after the deal (not changed) and ``moves`` every move of
    the round, which must end it blocked. 0 means the deal itself was doomed; ``len(moves)``
    that the block became certain only with the last move. None when the search ran out
    of ``budget`` positions before it could say.
    """
    # One position, replayed once with a snapshot before each of the last WINDOW moves,
    # then taken back move by move (the engine's restore) as the search goes backwards;
    # the snapshots before those are taken by a second replay, for a search that needs them.
    n = len(moves)
    first = max(0, n - WINDOW)
    state = start.copy(history=False)
    saved: list[Snapshot | None] = [None] * n
    for i in range(n):
        if i >= first:
            saved[i] = state.snapshot()
        _apply(state, moves[i])
    if state.result is None or not state.result.blocked:
        raise ValueError("the moves do not end the round blocked")
    memo: dict[tuple[object, ...], bool] = {}
    left = [budget]
    try:
        for k in range(n - 1, -1, -1):
            at = saved[k]
            if at is None:
                _snapshots(start, moves, saved, k + 1)
                at = saved[k]
                assert at is not None
            state.restore(at)
            if domino_reachable(state, memo, left):
                return k + 1
    except _OutOfBudget:
        return None
    return 0


def _snapshots(start: Round, moves: Sequence[Move], saved: list[Snapshot | None],
               upto: int) -> None:
    """The snapshots before each of the first ``upto`` moves, replayed from the deal."""
    state = start.copy(history=False)
    for i in range(upto):
        saved[i] = state.snapshot()
        _apply(state, moves[i])
