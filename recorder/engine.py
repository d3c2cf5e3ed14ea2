"""The replay engine: the pure state machine of one round and of a whole match.

No I/O, no clock, no global random: a round is built from a deal (and, for a
seeded deal, the random stream that may still settle a lot), then moves are
checked and applied one by one. ``check`` raises :class:`IllegalMove` with the
reason; ``is_legal`` wraps it; ``apply`` always checks first. For speed a round
advances in place; ``copy()`` gives an independent snapshot (the replay viewer
takes one per frame).

Board geometry is reduced to what the rules need: up to four open ends
(left, right and the spinner's up and down), the number each shows, and
whether the tile at that end is a double lying crosswise (it counts both halves
in the open-end sum).

For a viewer, ``Round.board`` lists the tiles in the order placed as (inner half,
outer half, end index); ``Round.shut`` says which ends are closed for good (a
closed double on it, or a spinner side past ``spinner_max_arms``) and
``Round.closed_tiles`` which entries of ``board`` are closed doubles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, Final

from recorder.errors import DealError, IllegalMove
from recorder.rules import Ruleset
from recorder.shuffle import Stream, shuffle
from recorder.tiles import TileSet, tile_set

# Final: the compiled core reads these as C constants, not as module globals
END_NAMES: Final = ("left", "right", "up", "down")
END_INDEX: Final = {name: i for i, name in enumerate(END_NAMES)}
LEFT: Final = 0
RIGHT: Final = 1
UP: Final = 2
DOWN: Final = 3
MAX_REDEALS: Final = 1000
#: :meth:`Round.move_codes` of a draw and of a pass (a play's code is never negative)
DRAW_CODE: Final = -1
PASS_CODE: Final = -2

# round phases
DRAW_FOR_DOUBLE: Final = "draw-for-double"
OPENING: Final = "opening"
PLAY: Final = "play"
OVER: Final = "over"


class _Value:
    """Compared and hashed by value, like a frozen dataclass: by :meth:`_key`."""

    __slots__ = ()

    def _key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._key())


class Move(_Value):
    """One logged action. ``tile`` keeps the written text (``"3-5"``) for messages.

    Immutable, compared and hashed by value, like a frozen dataclass; written out by
    hand because the engine builds one per logged move and the compiled core compiles
    this constructor (a dataclass's generated one stays interpreted, several times
    slower). The fields hold whatever the log said: :meth:`Round.check` refuses a
    seat or action of the wrong type with a reason, not a ``TypeError``.
    """

    __slots__ = ("player", "action", "tile", "end", "closed")

    def __init__(self, player: Any, action: Any, tile: Any = None, end: Any = None,
                 closed: Any = False) -> None:
        # Any, not int/str: compiled, a declared type is enforced with a TypeError
        self.player: Final[Any] = player
        self.action: Final[Any] = action  # "play" | "draw" | "pass"
        self.tile: Final[Any] = tile
        self.end: Final[Any] = end
        #: a double played crosswise and closed (rule closed_doubles)
        self.closed: Final[Any] = closed

    def _key(self) -> tuple[Any, ...]:
        return (self.player, self.action, self.tile, self.end, self.closed)

    def __repr__(self) -> str:
        return (f"Move(player={self.player!r}, action={self.action!r}, tile={self.tile!r}, "
                f"end={self.end!r}, closed={self.closed!r})")

    def replace(self, **changes: Any) -> Move:
        """This move with some fields changed (what ``dataclasses.replace`` gave)."""
        fields = {"player": self.player, "action": self.action, "tile": self.tile,
                  "end": self.end, "closed": self.closed, **changes}
        return Move(**fields)

    def text(self) -> str:
        """The move as the error messages and transcripts write it: ``plays 3-5 right``."""
        if self.action == "play":
            return f"plays {self.tile}" + (f" {self.end}" if self.end else "") + (
                " closed" if self.closed else "")
        if self.action == "draw":
            return f"draws {self.tile}" if self.tile else "draws"
        return "passes"

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"player": self.player, "action": self.action}
        if self.tile is not None:
            out["tile"] = self.tile
        if self.end is not None:
            out["end"] = self.end
        if self.closed:
            out["closed"] = True
        return out

    def short(self) -> str:
        """What a player may do, as listed after "legal here:"."""
        if self.action == "play":
            return f"{self.tile}" + (f" {self.end}" if self.end else "") + (
                " closed" if self.closed else "")
        return self.action


class Deal(_Value):
    """Who holds what and the boneyard in draw order, plus how the opener was settled.

    Immutable and compared by value, like a frozen dataclass; written out by hand, as
    :class:`Move` is, because every round makes one and a dataclass's generated
    constructor stays interpreted in the compiled core (1.3 us against 0.1 us).
    """

    __slots__ = ("hands", "boneyard", "redeals", "lot", "seeded")

    def __init__(self, hands: tuple[int, ...], boneyard: tuple[int, ...], redeals: int = 0,
                 lot: int | None = None, seeded: bool = True) -> None:
        self.hands: Final = hands  # bit masks of physical tiles
        self.boneyard: Final = boneyard  # physical tile indices, drawn from the start
        self.redeals: Final = redeals
        self.lot: Final = lot  # seat chosen by lot among tied holders
        self.seeded: Final = seeded

    def _key(self) -> tuple[Any, ...]:
        return (self.hands, self.boneyard, self.redeals, self.lot, self.seeded)

    def __repr__(self) -> str:
        return (f"Deal(hands={self.hands!r}, boneyard={self.boneyard!r}, "
                f"redeals={self.redeals!r}, lot={self.lot!r}, seeded={self.seeded!r})")

    def hand_names(self, tiles: TileSet) -> list[list[str]]:
        return [tiles.mask_names(h) for h in self.hands]

    def boneyard_names(self, tiles: TileSet) -> list[str]:
        return [tiles.kind_name[tiles.phys_kind[p]] for p in self.boneyard]


class RoundResult(_Value):
    """What the end of a round gives, as the engine's answer (docs/format.md) lists it.

    Immutable and compared by value; a plain class for the reason :class:`Deal` is.
    """

    __slots__ = ("winners", "points", "bonus", "blocked", "pips_left", "ended_by")

    def __init__(self, winners: tuple[int, ...], points: tuple[Fraction | int, ...],
                 bonus: tuple[int, ...], blocked: bool, pips_left: tuple[int, ...],
                 ended_by: int) -> None:
        self.winners: Final = winners
        self.points: Final = points
        self.bonus: Final = bonus
        self.blocked: Final = blocked
        self.pips_left: Final = pips_left
        self.ended_by: Final = ended_by

    def _key(self) -> tuple[Any, ...]:
        return (self.winners, self.points, self.bonus, self.blocked, self.pips_left,
                self.ended_by)

    def __repr__(self) -> str:
        return (f"RoundResult(winners={self.winners!r}, points={self.points!r}, "
                f"bonus={self.bonus!r}, blocked={self.blocked!r}, "
                f"pips_left={self.pips_left!r}, ended_by={self.ended_by!r})")


# ---------------------------------------------------------------------- dealing
def seeded_deal(rules: Ruleset, players: int, seed: str) -> tuple[Deal, Stream]:
    """Shuffle and deal from a seed; redeal (classic) and lot (two sets) as the contract says."""
    tiles = tile_set(rules.max_pip, rules.sets)
    stream = Stream(seed)
    each = rules.tiles_each(players)
    canonical = range(tiles.size)
    redeals = 0
    while True:
        order = shuffle(canonical, stream)
        hands = tuple(_mask(order[s * each:(s + 1) * each]) for s in range(players))
        boneyard = tuple(order[players * each:])
        opening = rules.opening_for(players)
        if (
            opening in ("highest-double", "double-zero-first")
            and rules.no_double == "redeal"
            and not _holds_double(tiles, hands)
        ):
            redeals += 1
            if redeals > MAX_REDEALS:  # pragma: no cover - needs ~1e-300 luck
                raise DealError("no double after 1000 redeals")
            continue
        return Deal(hands, boneyard, redeals=redeals), stream


def explicit_deal(rules: Ruleset, players: int, deal: object) -> Deal:
    """Check a logged deal: exactly the tile set, the ruleset's number of tiles each."""
    tiles = tile_set(rules.max_pip, rules.sets)
    if not isinstance(deal, dict):
        raise DealError("the deal is an object with hands and boneyard")
    hands_in = deal.get("hands")
    bone_in = deal.get("boneyard", [])
    if not isinstance(hands_in, list) or not isinstance(bone_in, list):
        raise DealError("the deal needs hands (a list per seat) and boneyard (a list)")
    if len(hands_in) != players:
        raise DealError(f"the deal has {len(hands_in)} hands for {players} players")
    each = rules.tiles_each(players)
    left = [tiles.sets] * tiles.kinds  # copies of each kind still unaccounted for
    used = 0

    def take(text: object, where: str) -> int:
        nonlocal used
        try:
            kind = tiles.parse(text)[0]
        except ValueError as exc:
            raise DealError(f"{where}: {exc}") from None
        if left[kind] == 0:
            extra = "" if tiles.sets == 1 else f" more than {tiles.sets} times"
            raise DealError(f"{where}: {tiles.kind_name[kind]} appears{extra} twice in the deal"
                            if tiles.sets == 1 else
                            f"{where}: {tiles.kind_name[kind]} appears{extra}")
        left[kind] -= 1
        phys = kind + tiles.kinds * (tiles.sets - 1 - left[kind])
        used |= 1 << phys
        return phys

    hands = []
    for seat, hand in enumerate(hands_in):
        if not isinstance(hand, list):
            raise DealError(f"hand {seat} of the deal is not a list of tiles")
        if len(hand) != each:
            raise DealError(
                f"hand {seat} of the deal holds {len(hand)} tiles; {rules.preset} deals {each} "
                f"each to {players} players"
            )
        mask = 0
        for text in hand:
            mask |= 1 << take(text, f"hand {seat}")
        hands.append(mask)
    boneyard = tuple(take(text, "boneyard") for text in bone_in)
    if used != tiles.full_mask:
        missing = [tiles.kind_name[k] for k in range(tiles.kinds) if left[k]]
        raise DealError(
            f"the deal is not the whole {tiles.name} set"
            + (" (two sets)" if tiles.sets == 2 else "")
            + ": missing " + ", ".join(missing[:10]) + (" ..." if len(missing) > 10 else "")
        )
    opening = rules.opening_for(players)
    if (
        opening in ("highest-double", "double-zero-first")
        and rules.no_double == "redeal"
        and not _holds_double(tiles, hands)
    ):
        raise DealError(
            "nobody holds a double in this deal; the rules redeal such a deal, so it cannot "
            "be the deal that was played"
        )
    return Deal(tuple(hands), boneyard, seeded=False)


def _mask(phys: Sequence[int]) -> int:
    m = 0
    for p in phys:
        m |= 1 << p
    return m


def _holds_double(tiles: TileSet, hands: Sequence[int]) -> bool:
    doubles = 0
    for v in range(tiles.max_pip + 1):
        doubles |= tiles.kind_mask[tiles.double_kind[v]]
    return any(h & doubles for h in hands)


#: what :meth:`Round.snapshot` keeps: every field a move may change
Snapshot = tuple[tuple[int, ...], int, str, int, tuple[int, ...], int, int, bool, bool, bool,
                 int, bool, tuple[int, ...], int, int, int, int, "RoundResult | None", int,
                 int]


# ---------------------------------------------------------------------- a round
class Round:
    """The state of one round. Build with :meth:`start`; advance with :meth:`apply`."""

    __slots__ = (
        "rules", "tiles", "players", "hands", "boneyard", "drawn", "phase", "turn",
        "openers", "opening_kind", "value", "dbl", "covered", "arms_open", "opener_double",
        "spinner", "open_mask", "drew", "bonus", "last_player", "last_play", "moves",
        "board", "result", "deal", "_stock_limit",
        "shut", "shut_pips", "closed_tiles", "pot", "target_from", "history",
        "_target_need",
    )

    rules: Ruleset
    tiles: TileSet
    players: int
    deal: Deal
    hands: list[int]
    boneyard: tuple[int, ...]
    drawn: int
    value: list[int]
    dbl: list[bool]
    covered: list[bool]
    arms_open: bool
    opener_double: bool
    spinner: bool
    open_mask: int
    drew: bool
    bonus: list[int]
    last_player: int
    last_play: int
    moves: int
    board: list[tuple[int, int, int]]
    shut: list[bool]
    shut_pips: int
    closed_tiles: list[int]
    #: whether ``board`` and ``closed_tiles`` are kept (a searcher's copy keeps neither)
    history: bool
    pot: int
    target_from: tuple[Fraction | int, ...] | None
    #: with ``target_from``: the bonus each seat must score this round to reach the
    #: target (the least whole number that makes its score reach it)
    _target_need: tuple[int, ...]
    result: RoundResult | None
    _stock_limit: int
    openers: tuple[int, ...]
    opening_kind: int
    turn: int
    phase: str

    @classmethod
    def start(cls, rules: Ruleset, players: int, deal: Deal, stream: Stream | None, *,
              opener: int | None = None, scores: Sequence[Fraction | int] | None = None,
              pot: int = 0) -> Round:
        """The round just after the deal: whose turn it is and what the opening must be.

        ``opener`` is the seat a round names under ``opening: seat``; ``scores`` are
        the match scores before the round (``target_check: play`` ends the game when a
        play reaches the target) and ``pot`` the pips a tie left (``tie_pot``).
        """
        self = cls()
        self.rules = rules
        self.tiles = tile_set(rules.max_pip, rules.sets)
        self.players = players
        self.deal = deal
        self.hands = list(deal.hands)
        self.boneyard = deal.boneyard
        self.drawn = 0
        self.value = [-1, -1, -1, -1]  # number each end shows; -1: not open
        self.dbl = [False, False, False, False]  # tile at that end is a crosswise double
        self.covered = [False, False, False, False]
        self.arms_open = False
        self.opener_double = False
        self.spinner = False
        self.open_mask = 0
        self.drew = False
        self.bonus = [0] * players
        self.last_player = -1
        self.last_play = -1
        self.moves = 0
        #: tiles in the order placed: (inner half, outer half, end index; -1 the opening)
        self.board = []
        #: ends closed for good: a closed double on it, or a spinner side past its arms
        self.shut = [False, False, False, False]
        self.shut_pips = 0  # both halves of every closed double: they still count
        #: positions in ``board`` of the doubles played closed
        self.closed_tiles = []
        self.history = True
        self.pot = pot
        self.target_from = (
            tuple(scores) if scores is not None and rules.target_check == "play" else None
        )
        self._target_need = () if self.target_from is None else tuple(
            math.ceil(rules.target - t) for t in self.target_from)
        self.result = None
        #: the stock is open while ``drawn`` is below this (never, without drawing)
        self._stock_limit = (
            len(deal.boneyard) - rules.stock_floor if rules.draw != "none" else 0
        )
        self.openers = ()
        self.opening_kind = -1  # -1: any tile
        self.turn = 0
        self.phase = OPENING
        self._settle_opening(stream, opener)
        return self

    def _settle_opening(self, stream: Stream | None, opener: int | None = None) -> None:
        tiles, rules, hands = self.tiles, self.rules, self.hands
        rule = rules.opening_for(self.players)
        if opener is not None and rule != "seat":
            raise DealError(f"the round names an opener, but under these rules the opening "
                            f"is {rule}, not a named seat")
        if rule == "free":
            self.openers = tuple(range(self.players))
            return
        if rule == "seat":
            seat = 0 if opener is None else opener
            if isinstance(seat, bool) or not isinstance(seat, int) or not (
                    0 <= seat < self.players):
                raise DealError(f"the round's opener is seat {seat!r}; seats go from 0 to "
                                f"{self.players - 1}")
            self.openers = (seat,)
            self.turn = seat
            return
        kind = -1
        if rule == "double-zero-first":
            kind = self._held_kind([tiles.double_kind[0]])
        if kind < 0 and rule in ("highest-double", "double-zero-first"):
            kind = self._held_kind(self._double_order())
            if kind < 0:
                if rules.no_double in ("draw-for-double", "everyone-draws-for-double"):
                    self.phase = DRAW_FOR_DOUBLE
                    self.turn = 0
                    return
                if rules.no_double == "redeal":  # seeded deals never get here
                    raise DealError("nobody holds a double")
        if kind < 0:
            kind = self._held_kind(list(tiles.rank_order))
        holders = tuple(s for s in range(self.players) if hands[s] & tiles.kind_mask[kind])
        if len(holders) > 1 and rules.tie_break == "lot" and stream is not None:
            holders = (holders[stream.below(len(holders))],)
            self.deal = _with_lot(self.deal, holders[0])
        self.openers = holders
        self.opening_kind = kind
        self.turn = holders[0]

    def _double_order(self) -> list[int]:
        """The double kinds in the order the opening looks for them."""
        double_kind = self.tiles.double_kind
        order = self.rules.double_order or range(self.tiles.max_pip, -1, -1)
        return [double_kind[v] for v in order]

    def _held_kind(self, kinds: Sequence[int]) -> int:
        held = 0
        for h in self.hands:
            held |= h
        for k in kinds:
            if held & self.tiles.kind_mask[k]:
                return k
        return -1

    def copy(self, *, history: bool = True) -> Round:
        """An independent snapshot. ``history=False`` leaves out the tiles placed, so far
        and from then on (``board`` and ``closed_tiles`` stay empty): the same position
        and future, for a searcher that never draws the board and would only push and
        pop a tuple for each play it tries."""
        other = Round()
        other.rules, other.tiles, other.players, other.deal = (
            self.rules, self.tiles, self.players, self.deal)
        other.hands = self.hands.copy()
        other.boneyard, other.drawn = self.boneyard, self.drawn
        other.value = self.value.copy()
        other.dbl = self.dbl.copy()
        other.covered = self.covered.copy()
        other.arms_open, other.opener_double, other.spinner = (
            self.arms_open, self.opener_double, self.spinner)
        other.open_mask, other.drew = self.open_mask, self.drew
        other.bonus = self.bonus.copy()
        other.last_player, other.last_play, other.moves = (
            self.last_player, self.last_play, self.moves)
        other.board = self.board.copy() if history else []
        other.shut = self.shut.copy()
        other.shut_pips = self.shut_pips
        other.closed_tiles = self.closed_tiles.copy() if history else []
        other.history = history and self.history
        other.pot, other.target_from, other.result = self.pot, self.target_from, self.result
        other._target_need = self._target_need
        other._stock_limit = self._stock_limit
        other.openers, other.opening_kind = self.openers, self.opening_kind
        other.turn, other.phase = self.turn, self.phase
        return other

    def snapshot(self) -> Snapshot:
        """What :meth:`restore` needs to bring this round back to now, whatever moves are
        applied in between: a searcher's make and unmake, instead of a :meth:`copy` at
        every node. Everything a move may change is in it (``tests/test_solver.py``
        compares every slot after a restore)."""
        ends = 0
        value, dbl, covered, shut = self.value, self.dbl, self.covered, self.shut
        for e in range(4):
            ends = (ends << 8) | ((value[e] + 1) << 3) | (int(dbl[e]) << 2) | (
                int(covered[e]) << 1) | int(shut[e])
        return (tuple(self.hands), self.drawn, self.phase, self.turn, self.openers,
                self.opening_kind, ends, self.arms_open, self.opener_double, self.spinner,
                self.open_mask, self.drew, tuple(self.bonus), self.last_player,
                self.last_play, self.moves, len(self.board), self.result, self.shut_pips,
                len(self.closed_tiles))

    def restore(self, saved: Snapshot) -> None:
        """Bring the round back to the moment :meth:`snapshot` took ``saved``."""
        hands, bonus = saved[0], saved[12]
        ends: int = saved[6]
        placed: int = saved[16]
        closed: int = saved[19]
        self.drawn, self.phase, self.turn, self.openers, self.opening_kind = (
            saved[1], saved[2], saved[3], saved[4], saved[5])
        self.arms_open, self.opener_double, self.spinner, self.open_mask, self.drew = (
            saved[7], saved[8], saved[9], saved[10], saved[11])
        self.last_player, self.last_play, self.moves, self.result, self.shut_pips = (
            saved[13], saved[14], saved[15], saved[17], saved[18])
        # only what changed is written back: a list store costs more than a read
        mine = self.hands
        for i in range(len(mine)):
            if mine[i] != hands[i]:
                mine[i] = hands[i]
        scores = self.bonus
        for i in range(len(scores)):
            if scores[i] != bonus[i]:
                scores[i] = bonus[i]
        value, dbl, covered, shut = self.value, self.dbl, self.covered, self.shut
        for e in range(3, -1, -1):
            if shut[e] != ((ends & 1) == 1):
                shut[e] = (ends & 1) == 1
            if covered[e] != ((ends & 2) == 2):
                covered[e] = (ends & 2) == 2
            if dbl[e] != ((ends & 4) == 4):
                dbl[e] = (ends & 4) == 4
            v = ((ends >> 3) & 31) - 1
            if value[e] != v:
                value[e] = v
            ends >>= 8
        if self.history:
            board = self.board
            while len(board) > placed:
                board.pop()
            closed_tiles = self.closed_tiles
            while len(closed_tiles) > closed:
                closed_tiles.pop()

    # ------------------------------------------------------------------ queries
    @property
    def over(self) -> bool:
        return self.phase == OVER

    def boneyard_left(self) -> int:
        return len(self.boneyard) - self.drawn

    def may_draw(self) -> bool:
        """Whether the rules let the player to move draw now (not whether they must)."""
        if self.phase == DRAW_FOR_DOUBLE:
            return True
        if self.drawn >= self._stock_limit:
            return False
        return not (self.drew and self.rules.draw == "one")

    def open_ends(self) -> dict[str, int]:
        """The ends a tile may go on now, with the number each shows."""
        return {END_NAMES[e]: v for e, v in enumerate(self.value) if v >= 0}

    def _plays(self, seat: int) -> list[tuple[int, int]]:
        """(kind, end) of every play ``seat`` may make now, in canonical tile order.

        The end is -1 for the opening tile, which takes none.
        """
        tiles = self.tiles
        if self.phase == OPENING:
            if seat not in self.openers:
                return []
            if self.opening_kind >= 0:
                return [(self.opening_kind, -1)]
            return [(k, -1) for k in sorted(set(tiles.mask_kinds(self.hands[seat])))]
        if self.phase != PLAY or seat != self.turn:
            return []
        playable = self.hands[seat] & self.open_mask
        if not playable:
            return []
        plays = []
        value = self.value
        last = -1
        for k in tiles.mask_kinds(playable):  # sorted, a kind once per copy held
            if k == last:
                continue
            last = k
            lo, hi = tiles.kind_lo[k], tiles.kind_hi[k]
            for e in range(4):  # left, right, up, down
                v = value[e]
                if v >= 0 and (v == lo or v == hi):
                    plays.append((k, e))
        return plays

    def legal_moves(self, seat: int | None = None) -> list[Move]:
        """Every move that may be made now, ends written only where needed.

        Usually one player may move; at an opening that several players may make
        (a free opening, tied holders of the opening tile) each of them may. Give
        ``seat`` to list only that player's moves.
        """
        if self.phase == OVER:
            return []
        if seat is None:
            seats = self.openers if self.phase == OPENING else (self.turn,)
            return [m for s in seats for m in self.legal_moves(s)]
        if self.phase == DRAW_FOR_DOUBLE:
            return [Move(seat, "draw")] if seat == self.turn else []
        plays = self._plays(seat)
        if plays:
            name = self.tiles.kind_name
            ends_of: dict[int, int] = {}
            for k, _ in plays:
                ends_of[k] = ends_of.get(k, 0) + 1
            moves = [Move(seat, "play", name[k], END_NAMES[e] if ends_of[k] > 1 else None)
                     for k, e in plays]
            if self.rules.closed_doubles and self._may_close():
                double = self.tiles.kind_is_double
                moves = [c for m, (k, _) in zip(moves, plays, strict=True) for c in (
                    (m, Move(seat, "play", m.tile, m.end, closed=True)) if double[k]
                    else (m,))]
            return moves
        if self.phase == OPENING or seat != self.turn:
            return []
        return [Move(seat, "draw")] if self.may_draw() else [Move(seat, "pass")]

    def move_codes(self, seat: int) -> list[int]:
        """:meth:`legal_moves` of ``seat`` as small integers, in the same order: for search.

        A play is ``kind << 4 | (end + 1) << 1 | closed`` (end -1: the opening tile),
        a draw :data:`DRAW_CODE`, a pass :data:`PASS_CODE`; :meth:`code_move` turns a
        code back into the :class:`Move` that ``legal_moves`` lists, and
        :meth:`apply_code` plays it. A searcher visits millions of positions, and
        building a ``Move`` and parsing its tile back for each would cost most of
        its time.
        """
        if self.phase != PLAY:
            if self.phase == DRAW_FOR_DOUBLE:
                return [DRAW_CODE] if seat == self.turn else []
            return [(k << 4) for k, _ in self._plays(seat)]  # the opening (or over: none)
        if seat != self.turn:
            return []
        tiles = self.tiles
        playable = self.hands[seat] & self.open_mask
        if not playable:
            return [DRAW_CODE] if self.may_draw() else [PASS_CODE]
        kinds = tiles.kinds
        if tiles.sets == 2:  # a kind once, whichever copies are held
            playable = (playable | (playable >> kinds)) & ((1 << kinds) - 1)
        close = self.rules.closed_doubles and self._may_close()
        value = self.value
        out: list[int] = []
        while playable:
            low = playable & -playable
            playable ^= low
            k = low.bit_length() - 1
            lo, hi = tiles.kind_lo[k], tiles.kind_hi[k]
            for e in range(4):  # left, right, up, down
                v = value[e]
                if v >= 0 and (v == lo or v == hi):
                    code = (k << 4) | ((e + 1) << 1)
                    out.append(code)
                    if close and lo == hi:
                        out.append(code | 1)
        return out

    def code_move(self, seat: int, code: int) -> Move:
        """The :class:`Move` of a code of :meth:`move_codes`, as ``legal_moves`` writes it."""
        if code == DRAW_CODE:
            return Move(seat, "draw")
        if code == PASS_CODE:
            return Move(seat, "pass")
        kind, e = code >> 4, ((code >> 1) & 7) - 1
        end = None
        if e >= 0:
            lo, hi = self.tiles.kind_lo[kind], self.tiles.kind_hi[kind]
            if sum(1 for v in self.value if v >= 0 and (v == lo or v == hi)) > 1:
                end = END_NAMES[e]
        return Move(seat, "play", self.tiles.kind_name[kind], end, closed=(code & 1) == 1)

    def apply_code(self, seat: int, code: int) -> None:
        """Play a code of :meth:`move_codes`, unchecked: the searcher's :meth:`apply`.

        It commits exactly what :meth:`apply` would after checking the move
        :meth:`code_move` gives (an opening tile lies with its low half on the left,
        as ``legal_moves`` writes it).
        """
        if code >= 0:
            kind = code >> 4
            self._commit(seat, "play", kind, self.tiles.kind_lo[kind], ((code >> 1) & 7) - 1,
                         (code & 1) == 1)
        elif code == DRAW_CODE:
            self._commit(seat, "draw", 0, 0, 0)
        else:
            self._commit(seat, "pass", 0, 0, 0)

    def options(self, seat: int) -> tuple[int, int]:
        """How many legal moves ``seat`` has now, and the most bonus one of them scores.

        What the statistics store for every move, without building the moves.
        """
        count, bonus, _ = self.choices(seat)
        return count, bonus

    def choices(self, seat: int) -> tuple[int, int, list[int]]:
        """:meth:`options`, and the kinds of tile among ``seat``'s legal plays, in one pass.

        The import asks all three for every move; the plays are found once, and in play
        (every move but the opening) counted on the hand's bits, with no list of plays.
        """
        if self.phase == PLAY and seat == self.turn:
            return self._play_choices(seat)
        plays = self._plays(seat)
        bonus = 0
        if self.rules.bonus:
            for k, e in plays:
                bonus = max(bonus, self._bonus_after(k, e))
        kinds: list[int] = []
        for k, _ in plays:
            if not kinds or kinds[-1] != k:  # plays come grouped by kind
                kinds.append(k)
        if self.phase == PLAY and seat == self.turn:
            if self.rules.closed_doubles and self._may_close():  # a double: open or closed
                doubles = 0
                for k, _ in plays:
                    doubles += self.tiles.kind_is_double[k]
                return len(plays) + doubles or 1, bonus, kinds
            return len(plays) or 1, bonus, kinds  # no play: exactly one of draw or pass
        return len(self.legal_moves(seat)), bonus, kinds

    def _play_choices(self, seat: int) -> tuple[int, int, list[int]]:
        """:meth:`choices` of the player to move in play: the kinds in canonical order
        (as :meth:`move_codes` finds them), each end that takes one a play."""
        tiles = self.tiles
        kinds: list[int] = []
        playable = self.hands[seat] & self.open_mask
        if not playable:
            return 1, 0, kinds  # exactly one of draw or pass
        n = tiles.kinds
        if tiles.sets > 1:  # a kind once, whichever copies are held
            first = (1 << n) - 1
            folded = 0
            while playable:
                folded |= playable & first
                playable >>= n
            playable = folded
        value = self.value
        scored = self.rules.bonus
        count = 0
        doubles = 0
        bonus = 0
        while playable:
            low = playable & -playable
            playable ^= low
            k = low.bit_length() - 1
            kinds.append(k)
            lo, hi = tiles.kind_lo[k], tiles.kind_hi[k]
            for e in range(4):  # left, right, up, down
                v = value[e]
                if v >= 0 and (v == lo or v == hi):
                    count += 1
                    if lo == hi:
                        doubles += 1
                    if scored:
                        bonus = max(bonus, self._bonus_after(k, e))
        if self.rules.closed_doubles and self._may_close():  # a double: open or closed
            return count + doubles or 1, bonus, kinds
        return count or 1, bonus, kinds

    def open_end_sum(self) -> int:
        """The open-end count of the bonus rule (docs/rules.md, "The bonus")."""
        if self.phase in (OPENING, DRAW_FOR_DOUBLE):
            return 0
        return _end_sum(self.value, self.dbl, self.covered, self.opener_double) + \
            self.shut_pips

    def end_terms(self) -> list[tuple[tuple[str, ...], tuple[int, ...], int, str]]:
        """:meth:`open_end_sum` taken apart, for a viewer: what each end adds, and why.

        One ``(ends, halves, points, kind)`` per thing on the table the count looks at,
        in end order: ``kind`` is ``counts`` (an open end: its number, or both halves
        of a double lying across it; the opening double alone on the table is one term
        for both line ends), ``empty-arm`` (a spinner arm open for play with no tile
        yet: it adds nothing), ``closed`` (a double played closed: it takes no tile and
        both halves still count) or ``shut`` (a spinner side closed once three sides
        were covered: nothing). The points always add up to :meth:`open_end_sum`.
        Rare and for display only: the scoring itself never builds these.
        """
        terms: list[tuple[tuple[str, ...], tuple[int, ...], int, str]] = []
        if self.phase == OPENING or self.phase == DRAW_FOR_DOUBLE:
            return terms
        value, dbl, covered = self.value, self.dbl, self.covered
        closed_on = {self.board[i][2] for i in self.closed_tiles}
        alone = self.opener_double and not covered[LEFT] and not covered[RIGHT]
        for e in range(4):
            v = value[e]
            if v < 0:
                if self.shut[e] and e not in closed_on:
                    terms.append(((END_NAMES[e],), (), 0, "shut"))
                continue
            if e >= UP and not covered[e]:
                terms.append(((END_NAMES[e],), (), 0, "empty-arm"))
            elif alone and e == LEFT:  # both line ends are the one opening double
                terms.append(((END_NAMES[LEFT], END_NAMES[RIGHT]), (v, v), 2 * v, "counts"))
            elif alone and e == RIGHT:
                continue
            elif dbl[e]:
                terms.append(((END_NAMES[e],), (v, v), 2 * v, "counts"))
            else:
                terms.append(((END_NAMES[e],), (v,), v, "counts"))
        for i in self.closed_tiles:
            a, b, e = self.board[i]
            terms.append(((END_NAMES[e],), (a, b), a + b, "closed"))
        return terms

    def _may_close(self) -> bool:
        """Whether a double may be played closed now: the spinner has two arms."""
        c = self.covered  # the four ends, counted without sum(): a searcher asks often
        return self.spinner and self.phase == PLAY and \
            int(c[0]) + int(c[1]) + int(c[2]) + int(c[3]) >= 2

    def score_of(self, move: Move) -> int:
        """The bonus ``move`` would score now (0 when bonus is off or it scores nothing)."""
        if move.action != "play" or not self.rules.bonus:
            return 0
        try:
            kind, _, e = self.check(move)
        except IllegalMove:
            return 0
        return self._bonus_after(kind, -1 if self.phase == OPENING else e)

    def _bonus_after(self, kind: int, e: int) -> int:
        """The bonus of placing ``kind`` on end ``e`` (-1: as the opening tile)."""
        lo, hi = self.tiles.kind_lo[kind], self.tiles.kind_hi[kind]
        if e < 0:
            total = 2 * lo if lo == hi else lo + hi
        else:
            total = _end_sum(self.value, self.dbl, self.covered, self.opener_double,
                             e, hi if self.value[e] == lo else lo, lo == hi) + self.shut_pips
        return total if total > 0 and total % self.rules.bonus_multiple == 0 else 0

    # ------------------------------------------------------------------ moves
    def check(self, move: Move) -> tuple[int, int, int]:
        """Raise :class:`IllegalMove` unless ``move`` is legal; returns what apply needs."""
        if self.phase == OVER:
            raise IllegalMove("the round is already over; nothing may follow its last move")
        seat = move.player
        if not isinstance(seat, int) or isinstance(seat, bool) or not (
            0 <= seat < self.players
        ):
            raise IllegalMove(f"there is no seat {seat!r}; seats go from 0 to "
                              f"{self.players - 1}")
        if seat != self.turn and not (self.phase == OPENING and seat in self.openers):
            raise IllegalMove(self._wrong_turn())
        action = move.action
        if action == "play":
            return self._check_play(move)
        if move.closed:
            raise IllegalMove("only a play may be closed")
        if action == "draw":
            if self.phase == DRAW_FOR_DOUBLE:
                return self._check_drawn_tile(move)
            if self.phase == OPENING:
                raise IllegalMove("the round opens with a play; there is no drawing before it")
            if self.hands[seat] & self.open_mask:
                raise IllegalMove("the player can play, so may not draw")
            if self.rules.draw == "none":
                raise IllegalMove("these rules have no drawing")
            if self.drawn >= self._stock_limit:
                floor = self.rules.stock_floor
                if floor:
                    raise IllegalMove(
                        f"the boneyard holds {self.boneyard_left()} tiles; no "
                        f"drawing while it holds {floor} or fewer"
                    )
                raise IllegalMove("the boneyard is empty")
            if self.drew and self.rules.draw == "one":
                raise IllegalMove("only one tile may be drawn a turn")
            return self._check_drawn_tile(move)
        if action == "pass":
            if self.phase == DRAW_FOR_DOUBLE:
                raise IllegalMove("nobody holds a double: the players draw in turn until one "
                                  "draws a double")
            if self.phase == OPENING:
                raise IllegalMove("the round opens with a play; there is no passing before it")
            if self.hands[seat] & self.open_mask:
                raise IllegalMove("the player can play, so may not pass")
            if self.may_draw():
                raise IllegalMove("the player cannot play but may draw, so may not pass")
            return (0, 0, 0)
        raise IllegalMove(f'"{action}" is not an action; expected play, draw or pass')

    def _wrong_turn(self) -> str:
        if self.phase == OPENING and len(self.openers) < self.players:
            who = " or ".join(f"seat {s}" for s in self.openers)
            if self.opening_kind < 0:
                return f"not this player's turn: {who} opens"
            tile = self.tiles.kind_name[self.opening_kind]
            return f"not this player's turn: {who} opens with {tile}{self._lot_text()}"
        return f"not this player's turn: seat {self.turn} is to move"

    def _lot_text(self) -> str:
        """Who held the opening tile when a lot chose among them: the deal was right."""
        lot = self.deal.lot
        if lot is None:
            return ""
        mask = self.tiles.kind_mask[self.opening_kind]
        tied = [s for s in range(self.players) if self.hands[s] & mask]
        if len(tied) < 2:
            return ""
        tile = self.tiles.kind_name[self.opening_kind]
        return f" ({seat_list(tied)} hold {tile}; the lot names seat {lot})"

    def _check_drawn_tile(self, move: Move) -> tuple[int, int, int]:
        if self.drawn >= len(self.boneyard):
            raise IllegalMove("the boneyard is empty")
        if move.tile is not None:
            tiles = self.tiles
            try:
                kind = tiles.parse(move.tile)[0]
            except ValueError as exc:
                raise IllegalMove(str(exc)) from None
            nxt = tiles.phys_kind[self.boneyard[self.drawn]]
            if kind != nxt:
                raise IllegalMove(
                    f"the next tile of the boneyard is {tiles.kind_name[nxt]}, not {move.tile}"
                )
        return (0, 0, 0)

    def _check_play(self, move: Move) -> tuple[int, int, int]:
        tiles = self.tiles
        if self.phase == DRAW_FOR_DOUBLE:
            raise IllegalMove("nobody holds a double: the players draw in turn until one "
                              "draws a double")
        if move.tile is None:
            raise IllegalMove("a play needs a tile")
        try:
            kind, a, b = tiles.parse(move.tile)
        except ValueError as exc:
            raise IllegalMove(str(exc)) from None
        if not self.hands[move.player] & tiles.kind_mask[kind]:
            raise IllegalMove(f"the player does not hold {move.tile}")
        if move.closed:
            self._check_closed(kind)
        if self.phase == OPENING:
            if self.opening_kind >= 0 and kind != self.opening_kind:
                raise IllegalMove(
                    f"the round opens with {tiles.kind_name[self.opening_kind]}"
                )
            if move.end is not None:
                raise IllegalMove("the first tile of a round takes no end")
            return (kind, a, b)
        ends = [e for e, v in enumerate(self.value) if v >= 0 and (v == a or v == b)]
        if move.end is None:
            if not ends:
                raise IllegalMove(self._no_match(move.tile))
            if len(ends) > 1:
                names = ", ".join(END_NAMES[e] for e in ends[:-1]) + " and " + END_NAMES[ends[-1]]
                raise IllegalMove(f"{move.tile} fits the {names} ends; the move must name one")
            return (kind, a, ends[0])
        e = END_INDEX.get(move.end, -1)
        if e < 0:
            raise IllegalMove(f'"{move.end}" is not an end; ends are left, right, up, down')
        if self.value[e] < 0:
            if self.shut[e]:
                raise IllegalMove(f"the {move.end} end is closed")
            if e >= UP:
                if not self.spinner:
                    raise IllegalMove(f"there is no {move.end} end: only a spinner has up and "
                                      "down")
                raise IllegalMove(f"the spinner's {move.end} side is not open yet: it opens "
                                  "once both left and right are covered")
            raise IllegalMove(f"there is no {move.end} end")  # pragma: no cover
        if e not in ends:
            shows = ", ".join(f"{END_NAMES[i]} {v}" for i, v in enumerate(self.value) if v >= 0)
            raise IllegalMove(f"the {move.end} end shows {self.value[e]} (ends: {shows})")
        return (kind, a, e)

    def _check_closed(self, kind: int) -> None:
        if not self.rules.closed_doubles:
            raise IllegalMove("these rules have no closed doubles (option closed_doubles)")
        if not self.tiles.kind_is_double[kind]:
            raise IllegalMove("only a double may be played closed")
        if not self._may_close():
            raise IllegalMove("a double may be played closed only once the spinner has two "
                              "arms")

    def _no_match(self, tile: str) -> str:
        shows = ", ".join(f"{END_NAMES[e]} {v}" for e, v in enumerate(self.value) if v >= 0)
        return f"{tile} matches no open end (the ends show {shows})"

    def is_legal(self, move: Move) -> bool:
        try:
            self.check(move)
        except IllegalMove:
            return False
        return True

    def apply(self, move: Move) -> None:
        """Check ``move`` and play it; the round may end with it."""
        kind, a, e = self.check(move)
        self._commit(move.player, move.action, kind, a, e, move.closed)

    def apply_fast(self, seat: object, action: object, tile: object, end: object) -> None:
        """:meth:`apply` for a logged move given as its fields, without building a Move.

        A fast lane for the common legal cases of replay: it decides only what it
        is sure of (the right player, a held tile on the one end that takes it, a
        draw or pass with nothing playable) and hands anything else to
        :meth:`apply`, so every refusal still comes from :meth:`check`.
        """
        # isinstance narrows for the compiled core: seat, action and the tile become C
        # values and str, not objects compared and indexed through the generic protocol
        if isinstance(seat, int) and type(seat) is int and seat == self.turn and \
                self.phase is PLAY and isinstance(action, str):
            if action == "play":
                hit = self.tiles.lookup.get(tile) if isinstance(tile, str) else None
                if hit is not None:
                    kind, a, b = hit
                    if self.hands[seat] & self.tiles.kind_mask[kind]:
                        value = self.value
                        if end is None:
                            e = -1
                            ambiguous = False
                            for i in range(4):
                                v = value[i]
                                if v >= 0 and (v == a or v == b):
                                    if e >= 0:
                                        ambiguous = True
                                        break
                                    e = i
                            if e >= 0 and not ambiguous:
                                self._commit(seat, "play", kind, a, e)
                                return
                        elif isinstance(end, str):
                            e = END_INDEX.get(end, -1)
                            if e >= 0:
                                v = value[e]
                                if v >= 0 and (v == a or v == b):
                                    self._commit(seat, "play", kind, a, e)
                                    return
            elif not self.hands[seat] & self.open_mask:
                if action == "draw":
                    if self.may_draw():
                        if tile is None:
                            self._commit(seat, "draw", 0, 0, 0)
                            return
                        hit = self.tiles.lookup.get(tile) if isinstance(tile, str) else None
                        if hit is not None and hit[0] == self.tiles.phys_kind[
                                self.boneyard[self.drawn]]:
                            self._commit(seat, "draw", 0, 0, 0)
                            return
                elif action == "pass" and not self.may_draw():
                    self._commit(seat, "pass", 0, 0, 0)
                    return
        self.apply(Move(seat, action, tile, end))  # type: ignore[arg-type]

    def _commit(self, seat: int, action: str, kind: int, a: int, e: int,
                closed: bool = False) -> None:
        """Play a move that has been checked."""
        self.moves += 1
        if action == "play":
            self._place(seat, kind, a, e)
            if closed:
                self._close(e)
            self.drew = False
            if self.target_from is not None and self.bonus[seat] >= self._target_need[seat]:
                self._finish(seat, blocked=False, target=True)
                return
            if not self.hands[seat]:
                self._finish(seat, blocked=False)
                return
            self.turn = (seat + 1) % self.players
            if self.drawn >= self._stock_limit:
                self._check_blocked(seat)
        elif action == "draw":
            phys = self.boneyard[self.drawn]
            self.drawn += 1
            self.hands[seat] |= 1 << phys
            self.drew = True
            if self.phase == DRAW_FOR_DOUBLE:
                kind = self.tiles.phys_kind[phys]
                if self.rules.no_double == "everyone-draws-for-double":
                    self.drew = False
                    if seat == self.players - 1:  # everyone has drawn: look for a double
                        kind = self._held_kind(self._double_order())
                        if kind >= 0:
                            self.phase = OPENING
                            self.opening_kind = kind
                            self.openers = tuple(s for s in range(self.players)
                                                 if self.hands[s] & self.tiles.kind_mask[kind])
                            self.turn = self.openers[0]
                            return
                    self.turn = (seat + 1) % self.players
                    return
                if self.tiles.kind_is_double[kind]:
                    self.phase = OPENING
                    self.openers = (seat,)
                    self.opening_kind = kind
                else:
                    self.turn = (seat + 1) % self.players
                    self.drew = False
                return
            if self.drawn >= self._stock_limit:
                self._check_blocked(seat)
        else:  # pass
            self.drew = False
            self.turn = (seat + 1) % self.players
        self.last_player = seat

    def _place(self, seat: int, kind: int, a: int, e: int) -> None:
        tiles = self.tiles
        hand = self.hands[seat]
        copies = hand & tiles.kind_mask[kind]
        self.hands[seat] = hand ^ (copies & -copies)
        lo, hi = tiles.kind_lo[kind], tiles.kind_hi[kind]
        value = self.value
        if self.phase == OPENING:
            b = hi if a == lo else lo
            value[LEFT], value[RIGHT] = a, b
            if lo == hi:
                self.opener_double = True
                self.dbl[LEFT] = self.dbl[RIGHT] = True
                if self.rules.spinner:
                    self.spinner = True
                    if self.rules.spinner_arms == "always":
                        value[UP] = value[DOWN] = lo
                        self.arms_open = True
            self.phase = PLAY
            self.turn = seat
            if self.history:
                self.board.append((a, b, -1))
        else:
            shown = value[e]
            outer = hi if shown == lo else lo
            value[e] = outer
            self.dbl[e] = lo == hi
            self.covered[e] = True
            if self.history:
                self.board.append((shown, outer, e))
            if self.spinner and not self.arms_open and self.covered[LEFT] and \
                    self.covered[RIGHT]:
                value[UP] = value[DOWN] = self.tiles.kind_lo[self.opening_kind]
                self.arms_open = True
            c = self.covered
            if self.spinner and self.rules.spinner_max_arms == 3 and \
                    int(c[0]) + int(c[1]) + int(c[2]) + int(c[3]) == 3:
                last = c.index(False)  # the side left without a tile closes
                value[last] = -1
                self.shut[last] = True
        mask = 0
        pip_mask = tiles.pip_mask
        for v in value:
            if v >= 0:
                mask |= pip_mask[v]
        self.open_mask = mask
        self.last_play = seat
        self.last_player = seat
        if self.rules.bonus:
            total = self.open_end_sum()
            if total > 0 and total % self.rules.bonus_multiple == 0:
                self._credit_bonus(seat, total)

    def _close(self, e: int) -> None:
        """The double just placed on end ``e`` was played closed: the end ends there."""
        v = self.value[e]
        self.value[e] = -1
        self.dbl[e] = False
        self.shut[e] = True
        self.shut_pips += 2 * v
        if self.history:
            self.closed_tiles.append(len(self.board) - 1)
        mask = 0
        pip_mask = self.tiles.pip_mask
        for x in self.value:
            if x >= 0:
                mask |= pip_mask[x]
        self.open_mask = mask

    def _credit_bonus(self, seat: int, total: int) -> None:
        self.bonus[seat] += total
        if self.rules.partnerships:  # the partner across the table scores with it
            self.bonus[(seat + 2) % 4] += total

    def _check_blocked(self, seat: int) -> None:
        """With the stock closed: end the round at once if nobody can play."""
        held = 0
        for h in self.hands:
            held |= h
        if held & self.open_mask:  # someone holds a tile an open end takes
            return
        self.last_player = seat
        self._finish(seat, blocked=True)

    def _finish(self, seat: int, *, blocked: bool, target: bool = False) -> None:
        self.last_player = seat
        self.phase = OVER
        if target:  # the game ends now: the round scores no pips, its bonus stands
            side = next(s for s in self.rules.sides(self.players) if seat in s)
            self.result = RoundResult(tuple(side), (0,) * self.players, tuple(self.bonus),
                                      False, tuple(self.pips_left()), seat)
        else:
            self.result = score_round(self, seat, blocked)

    def pips_left(self) -> list[int]:
        return [self.tiles.mask_pips(h) for h in self.hands]


def _end_sum(value: list[int], dbl: list[bool], covered: list[bool], opener_double: bool,
             at: int = -1, shows: int = 0, double: bool = False) -> int:
    """Sum of the open ends; a crosswise double at an end counts both halves.

    The opening double (spinner or not) is itself an end while at most one of its
    line sides is covered; a spinner arm with no tile counts nothing. With ``at``
    the sum is the one after a tile is placed there, showing ``shows`` (a ``double``
    or not): what a candidate move would score, without copying the board.
    """
    total = 0
    for e in range(4):  # left, right, up, down
        if e == at:
            total += shows * 2 if double else shows
        elif (covered[e] or e < UP) and value[e] >= 0:  # a shut end: in the caller's sum
            total += value[e] * 2 if dbl[e] else value[e]
    if opener_double and not covered[LEFT] and not covered[RIGHT] and at not in (LEFT, RIGHT):
        total -= 2 * value[LEFT]  # both line ends are the one opening double: count it once
    return total


def seat_list(seats: Sequence[int]) -> str:
    """Seats as the messages list them: "seat 0 and seat 2", "seat 0, seat 1 and seat 3"."""
    names = [f"seat {s}" for s in seats]
    return ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]


def _with_lot(deal: Deal, seat: int) -> Deal:
    return Deal(deal.hands, deal.boneyard, deal.redeals, seat, deal.seeded)


# ---------------------------------------------------------------------- scoring
def score_round(rnd: Round, ended_by: int, blocked: bool) -> RoundResult:
    """Points of a finished round under the ruleset's scoring rules.

    A searcher reaches the end of a round at most of its positions, so this is written
    with plain loops over the sides (seats 0+2 and 1+3 in partnerships, else each seat
    alone, as :meth:`Ruleset.sides` says) and no dictionary or generator: the same
    points, several times fewer instructions."""
    rules, n = rnd.rules, rnd.players
    tiles = rnd.tiles
    pips: list[int] = []
    for h in rnd.hands:
        pips.append(tiles.mask_pips(h))
    teams = rules.partnerships
    side_pips = [pips[0] + pips[2], pips[1] + pips[3]] if teams else pips
    ns = len(side_pips)
    total = 0
    low = side_pips[0]
    for p in side_pips:
        total += p
        if p < low:
            low = p
    side_points: list[Fraction | int] = [0] * ns
    winning: list[int] = []
    if rules.pips_decide:
        lows = _lowest(side_pips, low)
        if len(lows) == 1:  # a tie for the lowest: nobody wins (the pips may go to the pot)
            w = lows[0]
            winning = lows
            side_points[w] = total - side_pips[w] + rnd.pot
    elif not blocked:
        w = ended_by % 2 if teams else ended_by
        winning = [w]
        if rules.domino_scoring == "opponents-pips":
            side_points[w] = total - side_pips[w]
        elif rules.domino_scoring == "all-pips":
            side_points[w] = total
        else:  # penalty
            for i in range(ns):
                if i != w:
                    side_points[i] = side_pips[i]
    else:
        scoring = rules.blocked_scoring
        if scoring == "lowest-wins":
            winning = _lowest(side_pips, low)
            pot = total - low * len(winning)
            for i in winning:
                side_points[i] = _share(pot, len(winning))
        elif scoring == "difference":
            winning = _lowest(side_pips, low)
            if len(winning) == ns:
                winning = []
            else:
                pot = total - low * ns
                for i in winning:
                    side_points[i] = _share(pot, len(winning))
        elif scoring == "lowest-takes-all":
            winning = _lowest(side_pips, low)
            if len(winning) == ns:
                winning = []
            else:
                for i in winning:
                    side_points[i] = _share(total, len(winning))
        elif scoring == "fish":
            setter = rnd.last_play if rnd.last_play >= 0 else ended_by
            w = setter % 2 if teams else setter
            winning = [w]
            for i in range(ns):
                if i != w:
                    side_points[i] = side_pips[i]
        else:  # negative
            for i in range(ns):
                side_points[i] = -side_pips[i]
    points = side_points  # each seat its own side
    if teams:
        points = []
        for p in range(n):
            points.append(side_points[p % 2])
    winners: list[int] = []
    if teams:  # a side's seats, all in seat order
        for p in range(n):
            if (p % 2) in winning:
                winners.append(p)
    else:
        winners = winning  # sides in order, each one seat
    return RoundResult(tuple(winners), tuple(points), tuple(rnd.bonus), blocked, tuple(pips),
                       ended_by)


def _lowest(side_pips: list[int], low: int) -> list[int]:
    """The sides holding the fewest pips, in order."""
    out: list[int] = []
    for i in range(len(side_pips)):
        if side_pips[i] == low:
            out.append(i)
    return out


def _share(pot: int, ways: int) -> Fraction | int:
    """Points split equally, kept exact: a tie of three gives thirds, never rounded."""
    return pot // ways if pot % ways == 0 else Fraction(pot, ways)


# ---------------------------------------------------------------------- a match
class Match:
    """A game across rounds: running scores, the target, and who wins."""

    __slots__ = ("rules", "players", "scores", "results", "over", "winners", "pot")

    def __init__(self, rules: Ruleset, players: int) -> None:
        rules.check_players(players)
        self.rules = rules
        self.players = players
        self.scores: list[Fraction | int] = [0] * players
        self.results: list[RoundResult] = []
        self.over = False
        self.winners: tuple[int, ...] = ()
        self.pot = 0  # pips of tied rounds waiting for a winner (tie_pot)

    def new_round(self, *, seed: str | None = None, deal: object = None,
                  opener: int | None = None) -> Round:
        """Deal the next round from its seed or its explicit deal.

        ``opener`` is the seat the round names to open (rule ``opening: seat``).
        """
        if deal is not None:
            return self.start_round(explicit_deal(self.rules, self.players, deal), None,
                                    opener=opener)
        if seed is None:
            raise DealError("a round needs a seed or a deal")
        dealt, stream = seeded_deal(self.rules, self.players, seed)
        return self.start_round(dealt, stream, opener=opener)

    def start_round(self, deal: Deal, stream: Stream | None, *,
                    opener: int | None = None) -> Round:
        """The next round from a deal already made, with what it needs of the match."""
        if self.rules.target_check == "play" or self.rules.tie_pot:
            return Round.start(self.rules, self.players, deal, stream, opener=opener,
                               scores=self.scores, pot=self.pot)
        return Round.start(self.rules, self.players, deal, stream, opener=opener)

    def finish_round(self, result: RoundResult) -> None:
        """Add a finished round to the scores and check the target."""
        self.results.append(result)
        scores = self.scores
        for p in range(self.players):
            scores[p] += result.points[p] + result.bonus[p]
        rules = self.rules
        if rules.tie_pot:
            self.pot = 0 if result.winners else self.pot + sum(result.pips_left)
        if rules.hands:
            if len(self.results) >= rules.hands:
                self.over = True
                best = max(scores) if rules.target_mode == "reach-wins" else min(scores)
                if any(s != best for s in scores):  # all equal: nobody wins
                    self.winners = tuple(p for p, s in enumerate(scores) if s == best)
            return
        target = rules.target
        if any(s >= target for s in scores):
            self.over = True
            best = max(scores) if self.rules.target_mode == "reach-wins" else min(scores)
            self.winners = tuple(p for p, s in enumerate(scores) if s == best)
