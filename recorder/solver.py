"""The game-review solver: what each legal move is worth, by search to the end of the round.

Pure, beside the engine: no I/O, no clock, no global random. Every position is the
engine's own :class:`~recorder.engine.Round`, advanced with the engine's own moves
(:meth:`Round.move_codes` lists exactly :meth:`Round.legal_moves`, :meth:`Round.apply_code`
commits what :meth:`Round.apply` would), so every preset and option is searched exactly
as the engine plays it: draws and the stock floor, the spinner and its arms, bonus,
closed doubles, partnerships, every scoring rule, ``target_check: play``.

**The value** of a position for a side is what that side gains from there to the end of
the round minus what the other side gains, under best play by both. A side's gain is its
round points as the engine scores the round plus the bonus it scores from then on, both
negated where reaching the target loses (kozel). The value of a move is the mover's
immediate bonus difference plus the value of the position after it. With three or four
sides (no partnerships) each side's value is its gain minus the mean of the others',
each side maximizing its own (max^n), ties broken by the order of ``legal_moves``.

**Perfect view** (:class:`Solver`): every hand and the boneyard's order known, as in a
replayed log; values are exact (``Fraction``). Two sides: alpha-beta over the engine's
rounds with a transposition table keyed by a compact position (left and right, and up and
down, folded together: the rules treat each pair alike), moves ordered (the table's best
move first, then a play that goes out, that scores, that leaves the next player fewest
plays, heavy tiles and doubles), principal variation search (each move after the first
tested with a null window), moves that are the only legal one played in place without a
node of their own. Three or four sides: max^n with the table (no pruning), mirrored
positions folded where no tie decided the value (see :meth:`Solver._maxn`).
The key holds the stock still to draw, in order, so one table serves every deal of a
round (the player view's samples share what their futures have alike); with the target
checked at every play it holds a seat's bonus so far only while its side could still
reach the target this round. Without bonus, a last tile that fits several ends is
searched on the first (every such play ends the round alike).

**Player view** (:func:`estimate`): what the mover knew, their hand, the board, every
play, draw and pass, and what each player provably lacks (:class:`Seen`); the value of
each legal move is averaged over deals of the unseen tiles consistent with that knowledge,
drawn uniformly (:class:`Sampler`) from a seeded stream, each solved in the perfect view,
with the number of samples and the standard error of each value. Sampling stops early
when the best move is clear. docs/review.md defines the figures and says what the method
cannot see (it assumes the hidden tiles will be known later: strategy fusion).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Final

from recorder.engine import (
    DRAW_FOR_DOUBLE,
    OPENING,
    OVER,
    PLAY,
    Move,
    Round,
)
from recorder.rules import Ruleset
from recorder.shuffle import Stream

INF: Final = 1 << 40
#: a transposition-table entry of the two-sided search packs both bounds and the best
#: move's index in one int: ``(lo + OFF) << (BITS + 6) | (hi + OFF) << 6 | best + 1``
_OFF: Final = 1 << 26
_BITS: Final = 27
_LOW6: Final = 63
_MASK: Final = (1 << _BITS) - 1
#: the transposition table is emptied when it holds this many positions (memory bound)
TABLE_MAX: Final = 400_000
#: the points of three or four sides are scaled by this to stay whole numbers: a
#: blocked pot split two, three or four ways is a multiple of 1/12
SCALE_MANY: Final = 12


class SearchLimit(Exception):
    """The search visited more positions than it was allowed (:attr:`Solver.limit`)."""


class Solver:
    """Exact values of the legal moves of a position whose every tile is known.

    One solver serves one ruleset and player count; its transposition table stays valid
    across the deals of rounds alike (the stock's length and floor, the scores at the
    start when the target is checked at every play, the pot): every decision of a round
    and every sampled deal share it, and it is emptied for another kind of round or
    when it holds :data:`TABLE_MAX` positions. ``limit`` bounds the
    positions one call may visit (0: no bound); past it :class:`SearchLimit` is raised
    and the table stays consistent. ``technique`` selects what the benchmarks compare:
    ``"minimax"`` (memoized minimax, no pruning), ``"alphabeta"`` (no table, no
    ordering), ``"table"`` (alpha-beta and the table), ``"ordering"`` (and move
    ordering), ``"full"`` (and the stock in the key, the bonus so far only while the
    target is in reach, a last tile on several ends searched once, principal variation
    search, max^n's mirror fold: the default). Every technique gives the same values.
    """

    def __init__(self, rules: Ruleset, players: int, *, limit: int = 0,
                 technique: str = "full") -> None:
        if technique not in ("minimax", "alphabeta", "table", "ordering", "full"):
            raise ValueError(f"unknown technique {technique!r}")
        self.rules = rules
        self.players = players
        sides = rules.sides(players)
        side_of = [0] * players
        for i, side in enumerate(sides):
            for p in side:
                side_of[p] = i
        self.side_of: list[int] = side_of
        self.reps: list[int] = [side[0] for side in sides]
        self.two: bool = len(sides) == 2
        #: points are counted in twelfths (a blocked pot split two, three or four ways is
        #: whole), negated where reaching the target loses
        self.scale: int = SCALE_MANY
        self.unit: int = -SCALE_MANY if rules.target_mode == "reach-loses" else SCALE_MANY
        self.prune: bool = technique != "minimax"
        self.table: bool = technique != "alphabeta"
        self.order: bool = technique in ("ordering", "full")
        #: the stock in the key (one table for every deal), the bonus so far only while
        #: the target is in reach, a last tile on several ends searched once
        self.extra: bool = technique == "full"
        #: left/right and up/down folded in the key: the rules treat each pair alike,
        #: so a mirrored position has the same value; with more sides only by the
        #: default technique, since max^n breaks ties by the order of the moves, which
        #: mirroring changes
        self.mirror: bool = self.two or technique == "full"
        #: max^n folds mirrored positions only for entries whose value no tie decided
        #: (see :meth:`_maxn`); the others are kept apart by their orientation
        self.mirror_many: bool = self.mirror and not self.two
        #: children made by applying the move to the parent and restoring it after
        #: (Round.snapshot / restore) rather than by copying the round
        self.undo: bool = True
        self.fish: bool = rules.blocked_scoring == "fish" and not rules.pips_decide
        self.bonus: bool = rules.bonus
        self.limit: int = limit
        #: the target checked at every play (``target_check: play``): a seat's bonus so
        #: far is in the key only while its side could still reach the target
        self.goal: int = rules.target if rules.target_check == "play" else 0
        self.sides_of: list[list[int]] = [list(sides[side_of[p]]) for p in range(players)]
        #: the most bonus one play can score (set from the tiles at the first deal)
        self.per_play: int = 0
        self._ends_most: int = 0
        self._doubles: int = 0  # the physical doubles, and each one's pips
        self._double_pips: list[int] = []
        #: principal variation search: every move after the first tested with a null
        #: window first (two sides)
        self.pvs: bool = technique == "full"
        #: the tiles of the stock that may still be drawn, by tiles drawn so far
        self._stock_masks: list[int] = []
        self._need: list[int] = []
        #: bits of a key below the hands: ends, stock, turn; the fish setter; the bonus
        self._bonus_bits: int = 24 * players if rules.target_check == "play" else 0
        self._shift: int = 48 + (3 if self.fish else 0) + self._bonus_bits
        #: positions visited since the solver was made (a position is a search node:
        #: forced moves are played through without one)
        self.nodes: int = 0
        self._stop: int = 0
        self._tt: dict[int, int] = {}
        self._vt: dict[int, list[int]] = {}
        #: max^n entries a tie decided, by key and orientation (``key << 2 | orient``)
        self._vn: dict[int, list[int]] = {}
        #: the orientation of the last key (bit 0: left and right swapped, bit 1: up and
        #: down), and whether the last max^n value returned was decided by no tie
        self._orient: int = 0
        self._free: bool = True
        self._deal: object = None
        #: the stock of the last deal, and an id for each order of the stock still to
        #: draw (by tiles drawn so far) among every deal the table holds
        self._stock: tuple[int, ...] | None = None
        self._ids: dict[tuple[int, ...], int] = {}
        self._suffix: list[int] = [0]
        self._none: list[int] = []  # gains nobody scores (rules without bonus)

    # ------------------------------------------------------------------ the API
    def values(self, state: Round, seat: int) -> list[Fraction]:
        """The exact value of each move of ``state.legal_moves(seat)``, in that order, in
        points from ``seat``'s side. ``state`` is left as it was."""
        self._prepare(state)
        state = state.copy(history=False)  # the search never reads the tiles placed
        codes = state.move_codes(seat)
        self._stop = self.nodes + self.limit if self.limit else 0
        saved = state.snapshot()
        out: list[Fraction] = []
        if self.two:
            for code in codes:
                v = self._move_value(state, seat, code, -INF, INF, False)
                out.append(Fraction(v, self.scale))
                state.restore(saved)
        else:
            n = self.players
            for code in codes:
                vec = self._move_vector(state, seat, code, False)
                out.append(Fraction(n * vec[seat] - sum(vec), (n - 1) * self.scale))
                state.restore(saved)
        return out

    def clear(self) -> None:
        """Forget every position searched (the next call starts from an empty table)."""
        self._tt = {}
        self._vt = {}
        self._vn = {}
        self._ids = {}
        self._deal = None
        self._stock = None

    def _prepare(self, state: Round) -> None:
        """Keep the table for any deal of the same round's kind (the stock's length and
        floor, the scores at its start, the pot): a position's key holds the stock
        still to be drawn, in order, so positions of different deals of the unseen
        tiles (the player view's samples) share it where their futures are the same."""
        stock = state.boneyard
        deal = (len(stock), state._stock_limit, state.target_from, state.pot,
                None if self.extra else stock)
        if deal != self._deal or \
                len(self._tt) + len(self._vt) + len(self._vn) + len(self._ids) > TABLE_MAX:
            self._tt = {}
            self._vt = {}
            self._vn = {}
            self._ids = {}
            self._deal = deal
            self._stock = None
        if stock != self._stock:
            self._stock = stock
            ids = self._ids
            limit = min(state._stock_limit, len(stock))
            suffix = [0] * (len(stock) + 1)
            for d in range(limit):
                rest = stock[d:limit]
                got = ids.get(rest, 0)
                if not got:
                    got = len(ids) + 1
                    ids[rest] = got
                suffix[d] = got
            self._suffix = suffix
            if self.goal:
                if not self.per_play:
                    self._set_per_play(state)
                self._stock_masks = _stock_masks(state)
                target = state.target_from
                if target is not None:  # the bonus each seat lacks (the scores may be split)
                    self._need = [math.ceil(self.goal - t) for t in target]

    # ------------------------------------------------------------------ positions
    def _key(self, st: Round) -> int:
        """Everything of a position its future depends on, as one int (the deal fixed)."""
        size = st.tiles.size
        hands = st.hands
        n = len(hands)
        h = self._suffix[st.drawn]  # the stock still to draw, in order (0: none)
        i = 0
        if size <= 31:  # two hands at a time in a small int: half the big-int steps
            both = size + size
            while i + 1 < n:
                h = (h << both) | ((hands[i] << size) | hands[i + 1])
                i += 2
        while i < n:
            h = (h << size) | hands[i]
            i += 1
        value = st.value
        dbl = st.dbl
        covered = st.covered
        shut = st.shut
        e0 = ((value[0] + 1) << 3) | (int(dbl[0]) << 2) | (int(covered[0]) << 1) | int(shut[0])
        e1 = ((value[1] + 1) << 3) | (int(dbl[1]) << 2) | (int(covered[1]) << 1) | int(shut[1])
        e2 = ((value[2] + 1) << 3) | (int(dbl[2]) << 2) | (int(covered[2]) << 1) | int(shut[2])
        e3 = ((value[3] + 1) << 3) | (int(dbl[3]) << 2) | (int(covered[3]) << 1) | int(shut[3])
        if self.mirror:
            orient = 0
            if e0 > e1:
                e0, e1 = e1, e0
                orient = 1
            if e2 > e3:
                e2, e3 = e3, e2
                orient |= 2
            self._orient = orient
        code = (((((st.drawn << 7) | e0) << 7 | e1) << 7 | e2) << 7) | e3
        code = (code << 8) | st.shut_pips
        code = (code << 4) | (st.turn << 2) | (int(st.drew) << 1) | int(st.arms_open)
        if self.fish:  # the last player to place a tile sets a blocked round's fish
            code = (code << 3) | (st.last_play + 1)
        if st.target_from is not None:  # the bonus so far decides when the target is met
            code = (code << self._bonus_bits) | self._bonus_key(st)
        return (h << self._shift) | code

    def _bonus_key(self, st: Round) -> int:
        """Each seat's bonus so far (plus one), 24 bits each, or 0 for a seat whose side
        cannot reach the target this round: the bonus so far then changes nothing of
        what follows (the round is scored without it), so positions reached with
        different totals are one. Reachable: its score at the round's start, its bonus
        so far, and the most its side's remaining plays could score (each tile its
        members hold or may still draw, at most :meth:`_most` each) reach the target."""
        stock = st._stock_limit - st.drawn
        if stock < 0:
            stock = 0
        hands = st.hands
        bonus = st.bonus
        per = -1
        code = 0  # built apart from the rest of the key: a small int for two seats
        for s in range(self.players):
            b = bonus[s]
            need = self._need[s] - b  # the bonus still to score to reach the target
            if need > 0 and self.extra:
                left = stock
                for p in self.sides_of[s]:
                    left += _count(hands[p])
                if left * self.per_play < need:
                    b = -1  # out of reach at any pace
                elif left * (self._ends_most + st.shut_pips) < need:
                    if per < 0:
                        per = self._most(st)
                    if left * per < need:
                        b = -1
            code = (code << 24) | (b + 1)
        return code

    def _most(self, st: Round) -> int:
        """The most one play can score from ``st`` on: the open ends' largest sum
        (:attr:`_ends_most`) plus the closed doubles' halves, those closed already and
        every double still to be played, in case each were closed."""
        most = self._ends_most + st.shut_pips
        if self.rules.closed_doubles:
            loose = self._stock_masks[st.drawn] if st.drawn < len(self._stock_masks) else 0
            for h in st.hands:
                loose |= h
            loose &= self._doubles
            pips = self._double_pips
            while loose:
                low = loose & -loose
                most += pips[low.bit_length() - 1]
                loose ^= low
        return most

    def _set_per_play(self, state: Round) -> None:
        """:attr:`per_play`, the most one play can score in any position: the open ends'
        largest sum (each end shows at most the highest pip, or both halves of a
        double, each double once) plus both halves of every double, as if each were
        closed."""
        tiles = state.tiles
        top = tiles.max_pip
        ends = 4 if self.rules.spinner else 2
        shown = [top] * ends
        doubles = 0
        pips = [0] * tiles.size
        shut = 0
        for p in range(tiles.size):
            k = tiles.phys_kind[p]
            if tiles.kind_is_double[k]:
                shown.append(tiles.kind_pips[k])
                doubles |= 1 << p
                pips[p] = tiles.kind_pips[k]
                shut += tiles.kind_pips[k]
        shown.sort(reverse=True)
        self._ends_most = sum(shown[:ends])
        self._doubles = doubles
        self._double_pips = pips
        self.per_play = self._ends_most + (shut if self.rules.closed_doubles else 0)

    def _final(self, st: Round, side: int) -> int:
        """The round's points of ``side`` minus the other side's (scaled, signed)."""
        result = st.result
        assert result is not None
        pts = result.points
        mine = pts[self.reps[side]]
        other = pts[self.reps[1 - side]]
        if type(mine) is int and type(other) is int:
            return (mine - other) * self.unit
        return int((mine - other) * self.unit)

    def _points(self, st: Round) -> list[int]:
        """Every seat's round points, signed and scaled to whole numbers."""
        result = st.result
        assert result is not None
        unit = self.unit
        out: list[int] = []
        for p in result.points:
            out.append(p * unit if type(p) is int else int(p * unit))
        return out

    def _forced(self, st: Round, gains: list[int]) -> list[int]:
        """Play, in place, the moves that are the only legal one; add the bonus they score
        to ``gains`` (per seat, signed and scaled). The legal moves of the position
        reached ([] when the round is over)."""
        while True:
            if st.phase == OVER:
                return []
            seat = st.turn
            codes = st.move_codes(seat)
            if len(codes) != 1:
                return codes
            if self.bonus:
                before = st.bonus[seat]
                st.apply_code(seat, codes[0])
                gains[seat] += self.unit * (st.bonus[seat] - before)
            else:
                st.apply_code(seat, codes[0])

    # ------------------------------------------------------------------ two sides
    def _move_value(self, st: Round, seat: int, code: int, alpha: int, beta: int,
                    last: bool) -> int:
        """The value of ``code`` for ``seat``'s side, as alpha-beta bounds it."""
        nxt = st if last or self.undo else st.copy()
        before = nxt.bonus[seat]
        nxt.apply_code(seat, code)
        side = self.side_of[seat]
        gain = self.unit * (nxt.bonus[seat] - before)
        if nxt.phase == OVER:
            return gain + self._final(nxt, side)
        codes: list[int]
        if self.bonus:
            gains = [0] * self.players
            codes = self._forced(nxt, gains)
            for p in range(self.players):
                if gains[p]:
                    gain += gains[p] if self.side_of[p] == side else -gains[p]
        else:
            codes = self._forced(nxt, self._none)
        if nxt.phase == OVER:
            return gain + self._final(nxt, side)
        if self.side_of[nxt.turn] == side:
            return gain + self._search(nxt, codes, alpha - gain, beta - gain)
        return gain - self._search(nxt, codes, gain - beta, gain - alpha)

    def _search(self, st: Round, codes: list[int], alpha: int, beta: int) -> int:
        """Alpha-beta (fail-soft): the value of ``st`` for the side to move."""
        self.nodes += 1
        if self._stop and self.nodes > self._stop:
            raise SearchLimit()
        seat = st.turn
        key = 0
        first = -1
        if self.table:
            key = self._key(st)
            hit = self._tt.get(key, -1)
            if hit >= 0:
                lo = (hit >> (_BITS + 6)) - _OFF
                hi = ((hit >> 6) & _MASK) - _OFF
                first = (hit & _LOW6) - 1
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                if lo > alpha:
                    alpha = lo
                if hi < beta:
                    beta = hi
        a0 = alpha
        b0 = beta
        n = len(codes)
        order = self._ordered(st, seat, codes, first) if self.order and n > 1 \
            else self._plain(n)
        best = -INF
        best_i = 0
        saved = st.snapshot() if self.undo else None
        pvs = self.pvs and saved is not None
        last_tile = self._last_tile(st, seat)
        for at in range(n):
            i = order[at]
            if last_tile and codes[i] >= 0:
                if last_tile > 1:
                    continue  # the last tile played again elsewhere: the same end
                last_tile = 2
            if at and saved is not None:
                st.restore(saved)
            if at and pvs and beta - alpha > 1:
                # the first move is likeliest best: the others first only tested
                # against it (a null window), searched again where one beats it
                v = self._move_value(st, seat, codes[i], alpha, alpha + 1, False)
                if alpha < v < beta and saved is not None:
                    st.restore(saved)
                    v = self._move_value(st, seat, codes[i], alpha, beta, False)
            else:
                v = self._move_value(st, seat, codes[i], alpha, beta, at == n - 1)
            if v > best:
                best = v
                best_i = i
                if best > alpha:
                    alpha = best
                if self.prune and alpha >= beta:
                    break
        if self.table:
            lo = -_OFF
            hi = _OFF - 1
            if best <= a0:
                hi = best
            elif best >= b0:
                lo = best
            else:
                lo = hi = best
            old = self._tt.get(key, -1)
            if old >= 0:
                olo = (old >> (_BITS + 6)) - _OFF
                ohi = ((old >> 6) & _MASK) - _OFF
                if olo > lo:
                    lo = olo
                if ohi < hi:
                    hi = ohi
            self._tt[key] = ((lo + _OFF) << (_BITS + 6)) | ((hi + _OFF) << 6) | (best_i + 1)
        return best

    def _last_tile(self, st: Round, seat: int) -> int:
        """1 when every play of ``seat`` goes out with its one tile and, without bonus,
        ends the round alike whichever end takes it (the same pips left, the same
        player last to place, no bonus to tell the ends apart): only the first such
        play need be searched, the others equal it (and the first of equals is kept).
        0 otherwise."""
        if self.bonus or not self.extra:
            return 0
        hand = st.hands[seat]
        return 1 if hand and hand & (hand - 1) == 0 else 0  # one tile left

    def _plain(self, n: int) -> list[int]:
        order = [0] * n
        for i in range(1, n):
            order[i] = i
        return order

    def _ordered(self, st: Round, seat: int, codes: list[int], first: int) -> list[int]:
        """The moves' indexes, likeliest best first (ties keep the legal order)."""
        tiles = st.tiles
        nxt_hand = st.hands[(seat + 1) % self.players]
        mine = st.hands[seat]
        value = st.value
        pip_mask = tiles.pip_mask
        ends = [0, 0, 0, 0]  # what each open end takes
        for j in range(4):
            if value[j] >= 0:
                ends[j] = pip_mask[value[j]]
        n = len(codes)
        scores = [0] * n
        for i in range(n):
            c = codes[i]
            s = 0
            if i == first:
                s = 1 << 30
            elif c >= 0:
                k = c >> 4
                e = ((c >> 1) & 7) - 1
                s = tiles.kind_pips[k] + (20 if tiles.kind_is_double[k] else 0)
                if e >= 0:
                    if mine & ~tiles.kind_mask[k] == 0:
                        s += 100_000  # goes out
                    lo = tiles.kind_lo[k]
                    mask = pip_mask[tiles.kind_hi[k] if value[e] == lo else lo]
                    for j in range(4):
                        if j != e:
                            mask |= ends[j]
                    left = nxt_hand & mask  # the tiles the next player could play
                    while left:
                        left &= left - 1
                        s -= 30
                    if self.bonus:
                        s += st._bonus_after(k, e) * 40
            scores[i] = s
        order = [0] * n
        for i in range(1, n):
            order[i] = i
        for i in range(1, n):  # insertion sort, stable: a handful of moves
            x = order[i]
            sx = scores[x]
            j = i
            while j > 0 and scores[order[j - 1]] < sx:
                order[j] = order[j - 1]
                j -= 1
            order[j] = x
        return order

    # ------------------------------------------------------------------ max^n
    def _move_vector(self, st: Round, seat: int, code: int, last: bool) -> list[int]:
        """Every seat's gain from ``code`` to the end of the round (signed, scaled)."""
        nxt = st if last or self.undo else st.copy()
        if not self.bonus:  # nobody scores before the round ends: no gains to add
            nxt.apply_code(seat, code)
            codes = self._forced(nxt, self._none)
            if nxt.phase == OVER:
                return self._points(nxt)
            return self._maxn(nxt, codes)  # the table's list: read, never changed
        gains = [0] * self.players
        before = nxt.bonus[seat]
        nxt.apply_code(seat, code)
        gains[seat] = self.unit * (nxt.bonus[seat] - before)
        codes = self._forced(nxt, gains)
        if nxt.phase == OVER:
            pts = self._points(nxt)
            return [gains[p] + pts[p] for p in range(self.players)]
        rest = self._maxn(nxt, codes)
        return [gains[p] + rest[p] for p in range(self.players)]

    def _maxn(self, st: Round, codes: list[int]) -> list[int]:
        """Max^n: the gains the mover's best move leads to (first of equals).

        Sets :attr:`_free`: whether no tie between moves of different gains decided the
        value here or below. Such a value does not depend on the order of the moves, so
        the mirrored position (left and right, or up and down, swapped: its moves the
        same, listed in another order) has it too, and it is stored under the folded
        key; a value a tie decided is stored under the key and its orientation."""
        self.nodes += 1
        if self._stop and self.nodes > self._stop:
            raise SearchLimit()
        key = 0
        if self.table:
            key = self._key(st)
            hit = self._vt.get(key)
            if hit is not None:
                self._free = True
                return hit
            if self.mirror_many:
                hit = self._vn.get((key << 2) | self._orient)
                if hit is not None:
                    self._free = False
                    return hit
        orient = self._orient
        seat = st.turn
        n = self.players
        best: list[int] = []
        best_u = 0
        free = True
        tied = False  # a move of another gains ties the best
        count = len(codes)
        saved = st.snapshot() if self.undo else None
        last_tile = self._last_tile(st, seat)
        for i in range(count):
            if last_tile and codes[i] >= 0:
                if last_tile > 1:
                    continue  # the last tile played again elsewhere: the same end
                last_tile = 2
            if i and saved is not None:
                st.restore(saved)
            self._free = True
            vec = self._move_vector(st, seat, codes[i], i == count - 1)
            if not self._free:
                free = False
            u = n * vec[seat]
            for p in range(n):
                u -= vec[p]
            if not best or u > best_u:
                best = vec
                best_u = u
                tied = False
            elif u == best_u and not tied and vec != best:
                tied = True
        if tied:
            free = False
        if self.table:
            if free or not self.mirror_many:
                self._vt[key] = best
            else:
                self._vn[(key << 2) | orient] = best
        self._free = free
        return best


def _count(mask: int) -> int:
    """The tiles of a mask: ``int.bit_count`` is a method call in the compiled build,
    several times dearer than this loop over the few tiles a hand holds."""
    n = 0
    while mask:
        mask &= mask - 1
        n += 1
    return n


def _stock_masks(state: Round) -> list[int]:
    """For each count of tiles drawn, the tiles of the stock that may still be drawn."""
    limit = state._stock_limit
    stock = state.boneyard
    out = [0] * (len(stock) + 1)
    for d in range(min(limit, len(stock)) - 1, -1, -1):
        out[d] = out[d + 1] | (1 << stock[d])
    return out


# ---------------------------------------------------------------------- what a seat knows
class Seen:
    """What everyone at the table can prove about the hidden hands, tile by tile.

    Each seat's hand is a list of slots, one per tile held, oldest first; a slot is the
    mask of physical tiles it provably is not. A slot enters with the deal or with a
    draw and from then on takes in every proof about the hand as a whole:

    * the opening: the tiles the opening rule looked for before the one that opened were
      in no hand (6-6 was nowhere if 5-5 opened under ``highest-double``); a round that
      drew for a double dealt no double, and no tile drawn before the opening one was one;
    * a draw or a pass with ends showing ``E``: no tile then held carries a number of
      ``E`` (a drawn tile enters after its draw's proof, unknown);
    * a play: the tile leaves the oldest slot it may have been (all slots' masks are
      nested, the oldest the largest, so this leaves the others the weakest proofs
      among all the ways the tile could have been held: exactly what is known).

    Fed every move before it is applied (:meth:`record`), in the order of the log. What
    a seat can tell of the others is this plus its own hand (:class:`Sampler`).
    """

    def __init__(self, state: Round) -> None:
        self.tiles = state.tiles
        self.players = state.players
        self.slots: list[list[int]] = [[0] * state.hands[s].bit_count()
                                       for s in range(state.players)]
        #: a tile of the hidden hands that no slot allowed: a proof was wrong (a bug);
        #: the sampler then relaxes to the hand sizes alone rather than refuse
        self.broken = False
        self._rules = state.rules
        self._drawing = state.phase == DRAW_FOR_DOUBLE

    def record(self, state: Round, move: Move) -> None:
        """Take in ``move`` (legal, not yet applied to ``state``)."""
        seat = move.player
        if not (type(seat) is int and 0 <= seat < self.players):
            return
        tiles = self.tiles
        slots = self.slots[seat]
        action = move.action
        if state.phase == DRAW_FOR_DOUBLE:
            if action == "draw":
                slots.append(0)
            return
        if action == "play":
            hit = tiles.lookup.get(move.tile) if isinstance(move.tile, str) else None
            if hit is None:
                return
            kind = hit[0]
            if state.phase == OPENING:
                self._take(slots, kind)
                self._opening(state, kind)
                return
            self._take(slots, kind)
            return
        if state.phase != PLAY:
            return
        ends = 0
        for v in state.value:
            if v >= 0:
                ends |= tiles.pip_mask[v]
        for i in range(len(slots)):
            slots[i] |= ends
        if action == "draw":
            slots.append(0)

    def _take(self, slots: list[int], kind: int) -> None:
        bit = self.tiles.kind_mask[kind]
        for i in range(len(slots)):
            if not slots[i] & bit:
                del slots[i]
                return
        self.broken = True
        if slots:
            slots.pop()

    def _opening(self, state: Round, kind: int) -> None:
        """The opening tile ``kind`` was played: what the opening rule proves of the deal."""
        tiles = self.tiles
        doubles = 0
        for v in range(tiles.max_pip + 1):
            doubles |= tiles.kind_mask[tiles.double_kind[v]]
        before = 0
        for k in opening_scan(state):
            if k == kind:
                break
            before |= tiles.kind_mask[k]
        else:
            before = 0  # any tile could open (free, seat): nothing was looked for
        if self._drawing:
            # no hand held a double at the deal, and every tile drawn before the one
            # that opened was no double (draw-for-double), or none was held before the
            # last round of draws (everyone-draws-for-double)
            last_round = self._rules.no_double == "everyone-draws-for-double"
            for s in range(self.players):
                slots = self.slots[s]
                for i in range(len(slots)):
                    newest = i == len(slots) - 1
                    slots[i] |= before if (last_round and newest) else doubles
            return
        for s in range(self.players):
            slots = self.slots[s]
            for i in range(len(slots)):
                slots[i] |= before


def opening_scan(state: Round) -> list[int]:
    """The kinds the opening rule looks for, in order, until a hand holds one (the engine's
    ``_settle_opening``): the ones before the opening tile were held by nobody.

    Empty when any tile may open (``free``, ``seat``). After a round drew for a double
    the scan is the doubles' order (the drawn double ends it).
    """
    rules = state.rules
    tiles = state.tiles
    rule = rules.opening_for(state.players)
    if rule in ("free", "seat"):
        return []
    order = [tiles.double_kind[v] for v in
             (rules.double_order or range(tiles.max_pip, -1, -1))]
    scan: list[int] = []
    if rule == "double-zero-first":
        scan.append(tiles.double_kind[0])
    if rule in ("highest-double", "double-zero-first"):
        scan.extend(order)
    scan.extend(tiles.rank_order)
    return scan


# ---------------------------------------------------------------------- sampling
def _below(stream: Stream, n: int) -> int:
    """A uniform integer in ``[0, n)`` for any ``n`` (counts of deals exceed 32 bits)."""
    if n <= 1 << 32:
        return stream.below(n)
    bits = n.bit_length()
    words = (bits + 31) // 32
    while True:
        x = 0
        for _ in range(words):
            x = (x << 32) | stream.u32()
        x >>= words * 32 - bits
        if x < n:
            return x


def _comb(n: int, k: int) -> int:
    return math.comb(n, k) if 0 <= k <= n else 0


class _Hand:
    """One hidden hand's slots as levels: distinct masks, most forbidding first."""

    __slots__ = ("masks", "need", "size")

    def __init__(self, slots: Sequence[int]) -> None:
        levels: dict[int, int] = {}
        for m in slots:
            levels[m] = levels.get(m, 0) + 1
        # the masks are nested: a larger mask forbids more; most forbidding first
        masks = sorted(levels, key=lambda m: -m.bit_count())
        self.masks: list[int] = masks
        cum = 0
        need: list[int] = []
        for m in masks:
            cum += levels[m]
            need.append(cum)
        self.need: list[int] = need  # slots at this level or above, cumulatively
        self.size: int = cum

    def groups(self, pool: int) -> list[int]:
        """The pool's tiles split by the first level they may fill (the last: none)."""
        out = [0] * (len(self.masks) + 1)
        left = pool
        for j, m in enumerate(self.masks):
            out[j] = left & ~m
            left &= m
        out[-1] = left
        return out

    def table(self, sizes: Sequence[int]) -> list[list[int]]:
        """``f[j][p]``: ways to pick ``p`` tiles from the first ``j`` groups (sizes) that
        fill the first ``j`` levels' slots."""
        m = self.size
        f = [[0] * (m + 1) for _ in range(len(self.masks) + 1)]
        f[0][0] = 1
        for j in range(len(self.masks)):
            g = sizes[j]
            row, nxt = f[j], f[j + 1]
            for p in range(m + 1):
                if row[p]:
                    for x in range(min(g, m - p) + 1):
                        nxt[p + x] += row[p] * _comb(g, x)
            for p in range(self.need[j]):
                nxt[p] = 0  # too few tiles for this level's slots
        return f

    def count(self, pool: int) -> int:
        """How many hands of this size the pool can give that fill every slot."""
        if not self.size:
            return 1
        sizes = [g.bit_count() for g in self.groups(pool)]
        return self.table(sizes)[-1][self.size]

    def bound(self, pool: int, left: int) -> int:
        """The most hands any ``left`` tiles of ``pool`` could give: the ``left`` tiles
        that fit the most slots (more fitting tiles never give fewer hands)."""
        sizes = [g.bit_count() for g in self.groups(pool)]
        for j in range(len(sizes)):
            take = min(sizes[j], left)
            sizes[j] = take
            left -= take
        if not self.size:
            return 1
        return self.table(sizes)[-1][self.size]

    def draw(self, pool: int, stream: Stream) -> tuple[int, int]:
        """A uniform hand of the pool that fills every slot, and how many there were."""
        if not self.size:
            return 0, 1
        groups = self.groups(pool)
        sizes = [g.bit_count() for g in groups]
        f = self.table(sizes)
        total = f[-1][self.size]
        if not total:
            return -1, 0
        hand = 0
        p = self.size
        for j in range(len(self.masks) - 1, -1, -1):  # how many from each group, backwards
            r = _below(stream, f[j + 1][p])
            g = sizes[j]
            for x in range(min(g, p) + 1):
                w = f[j][p - x] * _comb(g, x) if p - x >= 0 else 0
                if r < w:
                    hand |= _pick(groups[j], x, stream)
                    p -= x
                    break
                r -= w
        return hand, total


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _pick(mask: int, k: int, stream: Stream) -> int:
    """``k`` tiles of ``mask``, uniformly (a partial Fisher-Yates)."""
    items = _bits(mask)
    out = 0
    for i in range(k):
        j = i + stream.below(len(items) - i)
        items[i], items[j] = items[j], items[i]
        out |= 1 << items[i]
    return out


class Sampler:
    """Deals of the tiles ``seat`` cannot see, uniform among those ``seen`` allows.

    The unseen tiles are those neither on the board nor in the seat's hand; each other
    hand gets as many as it holds (what the table sees) and fills its slots
    (:class:`Seen`), the rest is the boneyard, in a uniform order. Hands are drawn one
    after another, the most constrained first, each uniform among those that fill its
    slots from what is left, and the whole deal is kept with the probability that makes
    it uniform among all consistent deals (rejection against the most hands any such
    rest could give). Only the hands' sizes and their union are read from ``state``.
    """

    #: proposals rejected in a row before the hands are taken as drawn (consistent, but
    #: no longer exactly uniform); counted in :attr:`relaxed`
    MAX_TRIES: Final = 2000

    def __init__(self, state: Round, seat: int, seen: Seen) -> None:
        tiles = state.tiles
        self.state = state
        self.seat = seat
        hidden = 0
        for s in range(state.players):
            if s != seat:
                hidden |= state.hands[s]
        stock = 0
        for i in range(state.drawn, len(state.boneyard)):
            stock |= 1 << state.boneyard[i]
        self.pool: int = (hidden | stock) & tiles.full_mask
        self.stock_size: int = len(state.boneyard) - state.drawn
        self.others: list[int] = []
        self.hands: list[_Hand] = []
        counts: list[tuple[int, int, _Hand]] = []
        for s in range(state.players):
            if s == seat:
                continue
            slots = seen.slots[s]
            if seen.broken or len(slots) != state.hands[s].bit_count():
                slots = [0] * state.hands[s].bit_count()
            hand = _Hand(slots)
            counts.append((hand.count(self.pool), s, hand))
        counts.sort(key=lambda c: c[0])  # the most constrained first
        for _, s, hand in counts:
            self.others.append(s)
            self.hands.append(hand)
        self.bounds: list[int] = []
        left = self.pool.bit_count()
        for hand in self.hands:
            self.bounds.append(hand.bound(self.pool, left))
            left -= hand.size
        self.tries = 0
        self.relaxed = 0

    def single(self) -> bool:
        """Whether only one deal is consistent with what the seat knows (no sampling):
        every hidden hand is forced, and the boneyard's order cannot matter."""
        pool = self.pool
        for hand in self.hands:
            if hand.count(pool) != 1:
                return False
            got, _ = hand.draw(pool, Stream("single"))
            pool &= ~got
        state = self.state
        return self.stock_size <= 1 or state.drawn >= state._stock_limit

    def draw(self, stream: Stream) -> Round:
        """One consistent deal, as a copy of the round with the hidden tiles replaced."""
        hands: list[int] = []
        tries = 0
        while True:
            tries += 1
            pool = self.pool
            hands = []
            accept = 1
            bound = 1
            ok = True
            for i, hand in enumerate(self.hands):
                got, total = hand.draw(pool, stream)
                if got < 0:
                    ok = False
                    break
                if i:
                    accept *= total
                    bound *= self.bounds[i]
                hands.append(got)
                pool &= ~got
            if ok and (accept == bound or _below(stream, bound) < accept):
                break
            if tries >= self.MAX_TRIES and ok:
                self.relaxed += 1
                break
        self.tries += tries
        out = self.state.copy()
        for s, got in zip(self.others, hands, strict=True):
            out.hands[s] = got
        stock = _bits(pool)
        for i in range(len(stock) - 1, 0, -1):
            j = stream.below(i + 1)
            stock[i], stock[j] = stock[j], stock[i]
        out.boneyard = out.boneyard[:out.drawn] + tuple(stock)
        return out


# ---------------------------------------------------------------------- the player view
class Estimate:
    """The values of a position's legal moves: a mean and a standard error per move.

    ``samples`` deals were solved (1 with ``se`` all 0 when the value is exact: the
    perfect view, or a player view with one consistent deal). ``nodes`` is the search's
    work. ``values`` and ``se`` are floats in points from the mover's side.
    """

    __slots__ = ("values", "se", "samples", "nodes", "exact")

    def __init__(self, values: list[float], se: list[float], samples: int, nodes: int,
                 exact: bool) -> None:
        self.values = values
        self.se = se
        self.samples = samples
        self.nodes = nodes
        self.exact = exact

    def best(self) -> int:
        """The index of the best move (the first of equals)."""
        best = 0
        for i in range(1, len(self.values)):
            if self.values[i] > self.values[best]:
                best = i
        return best


#: samples always solved before the best move may be called clear
MIN_SAMPLES: Final = 6
#: how many standard errors the best move's lead over each other move must exceed
CLEAR_Z: Final = 2.0
#: how much better than the best mean another move may be, at that confidence, for the
#: best to be called clear: half a point, less than the smallest pip count
CLEAR_POINTS: Final = 0.5


def perfect(solver: Solver, state: Round, seat: int) -> Estimate:
    """The perfect view: the exact values, as an :class:`Estimate`."""
    start = solver.nodes
    values = solver.values(state, seat)
    return Estimate([float(v) for v in values], [0.0] * len(values), 1,
                    solver.nodes - start, True)


def estimate(solver: Solver, state: Round, seat: int, seen: Seen, *, samples: int,
             seed: str, budget: int = 0) -> Estimate | None:
    """The player view of ``seat``'s legal moves in ``state``.

    Up to ``samples`` consistent deals (:class:`Sampler`, seeded by ``seed``) are solved
    in the perfect view; after :data:`MIN_SAMPLES`, sampling stops once the best mean
    leads every other move's by more than :data:`CLEAR_Z` standard errors of the paired
    difference (or equals it in every sample). ``budget`` bounds the positions searched
    for all samples together (0: none); when it runs out the samples solved so far
    stand, and None is returned if not one was.
    """
    sampler = Sampler(state, seat, seen)
    if sampler.single():
        exact = solver.values(_fixed(sampler, state), seat) if sampler.hands else \
            solver.values(state, seat)
        return Estimate([float(v) for v in exact], [0.0] * len(exact), 1, 0, True)
    stream = Stream(seed)
    rows: list[list[float]] = []
    start = solver.nodes
    for _ in range(max(1, samples)):
        deal = sampler.draw(stream)
        solver.limit = 0 if not budget else budget - (solver.nodes - start)
        if budget and solver.limit <= 0:
            break
        values = _within(solver, deal, seat)
        solver.limit = 0
        if values is None:
            break
        rows.append([float(v) for v in values])
        if len(rows) >= MIN_SAMPLES and _clear(rows):
            break
    if not rows:
        return None
    k = len(rows)
    n = len(rows[0])
    means = [sum(r[i] for r in rows) / k for i in range(n)]
    se = [_se([r[i] for r in rows]) for i in range(n)]
    return Estimate(means, se, k, solver.nodes - start, False)


def _within(solver: Solver, state: Round, seat: int) -> list[Fraction] | None:
    """The solver's values, or None when its limit ran out."""
    try:
        return solver.values(state, seat)
    except SearchLimit:
        return None


def _fixed(sampler: Sampler, state: Round) -> Round:
    """The one consistent deal (see :meth:`Sampler.single`)."""
    return sampler.draw(Stream("single"))


def _se(xs: list[float]) -> float:
    k = len(xs)
    if k < 2:
        return 0.0
    mean = sum(xs) / k
    var = sum((x - mean) ** 2 for x in xs) / (k - 1)
    return math.sqrt(var / k)


def _clear(rows: list[list[float]]) -> bool:
    """Whether the best mean is clear: no other move is likely, by :data:`CLEAR_Z`
    standard errors of the paired difference, to be better than it by more than
    :data:`CLEAR_POINTS`."""
    k = len(rows)
    n = len(rows[0])
    means = [sum(r[i] for r in rows) / k for i in range(n)]
    best = 0
    for i in range(1, n):
        if means[i] > means[best]:
            best = i
    for j in range(n):
        if j == best:
            continue
        diffs = [r[j] - r[best] for r in rows]
        if sum(diffs) / k + CLEAR_Z * _se(diffs) > CLEAR_POINTS:
            return False
    return True


__all__ = ["Estimate", "Sampler", "SearchLimit", "Seen", "Solver", "estimate",
           "opening_scan", "perfect"]
