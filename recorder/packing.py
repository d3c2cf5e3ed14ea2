"""The moves of a round in one row: the packed layout of ``round_moves``.

A stored round keeps the facts of all its moves in one row of ``round_moves`` rather than
a row per move: the writer inserts one row where it inserted about 25, and the bytes a
move costs fall from about 47 to about 20. The ``moves`` view (``recorder.storage``)
unpacks them with SQLite's own functions, so every reader sees the rows, columns and
types the ``moves`` table had. This module is that layout, in both directions; it is
pure (no I/O) and compiled with the engine, because the import packs every round.

A row of ``round_moves`` (layout version 1):

``ms``
    TEXT, a JSON array with one element per move, in move order: the thinking time as
    logged, or null. Its length is the round's number of moves; the view walks it with
    ``json_each``, so each element becomes a row and its index the move number less one.
``facts``
    BLOB, :data:`WIDTH` bytes per move, in move order: byte ``k`` of move ``i`` (both from
    0) is at offset ``i * WIDTH + k``. Each byte holds a whole number ``n`` from 0 to
    :data:`TOP` as the byte ``n + 2``, and a null as the byte 1: every byte is 7-bit
    ASCII, which SQLite's ``unicode(substr(facts, offset + 1, 1))`` reads back. The bytes
    of a move, in order, are :data:`FIELDS`: ``player``; ``action`` (0 play, 1 draw, 2
    pass); the tile ``a-b`` as its two numbers (both null for no tile); ``side`` (0 left,
    1 right, 2 up, 3 down, or null); ``legal_count``; ``score``; ``best_score``;
    ``forced``; ``pips``, ``best_pips``, ``least_pips``; ``double``, ``double_choice``,
    ``next_stuck`` (0, 1 or null).
``odd``
    TEXT, null, except for a round whose facts do not all fit those bytes (a number
    above :data:`TOP` or below 0, a score with a fraction, a tile written with a leading
    zero, moves not numbered 1, 2, 3...). Then ``facts`` is null and ``odd`` holds the
    facts as a JSON array of rows, one a move: ``[move, player, action, tile, side,
    legal_count, score, best_score, forced, pips, best_pips, least_pips, double,
    double_choice, next_stuck]``, with the values the ``moves`` table stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final

import orjson

from recorder.analysis import MoveFact, RoundFact

WIDTH: Final = 15
"""Bytes per move in ``facts``."""
TOP: Final = 125
"""The largest number a byte holds (stored as 127)."""
NULL: Final = 1
"""The byte that stands for null."""
FIELDS: Final = (
    "player", "action", "tile_a", "tile_b", "side", "legal_count", "score", "best_score",
    "forced", "pips", "best_pips", "least_pips", "double", "double_choice", "next_stuck",
)
"""The bytes of one move, in order."""
ACTIONS: Final = ("play", "draw", "pass")
SIDES: Final = ("left", "right", "up", "down")
ODD_COLUMNS: Final = (
    "move", "player", "action", "tile", "side", "legal_count", "score", "best_score",
    "forced", "pips", "best_pips", "least_pips", "double", "double_choice", "next_stuck",
)
"""The values of one row of ``odd``, in order."""
REAL_COLUMNS: Final = frozenset({"ms", "score", "best_score"})
"""The ``moves`` columns the table declared REAL: their values are read back as floats."""

_ACTION_CODE: Final = {"play": 0, "draw": 1, "pass": 2}
_SIDE_CODE: Final = {"left": 0, "right": 1, "up": 2, "down": 3}
_NONE: Final = NULL - 2
"""What a field's encoder returns for null (the byte NULL once 2 is added)."""
_BAD: Final = -2
"""What a field's encoder returns for a value the bytes cannot hold."""


def _small(value: object) -> int:
    """A whole number from 0 to TOP as itself; anything else _BAD."""
    if type(value) is int:
        n: int = value
        return n if 0 <= n <= TOP else _BAD
    return _BAD


def _small_real(value: object) -> int:
    """A REAL column's value (a score): a whole number from 0 to TOP, else _BAD."""
    if type(value) is float:
        x: float = value
        if x.is_integer() and 0.0 <= x <= TOP:
            return int(x)
        return _BAD
    return _small(value)


def _nullable(value: object) -> int:
    return _NONE if value is None else _small(value)


def _flag(value: object) -> int:
    """A 0/1 flag (or a bool), null allowed."""
    if value is None:
        return _NONE
    if value is True or value is False:
        return 1 if value else 0
    if type(value) is int:
        n: int = value
        return n if n == 0 or n == 1 else _BAD
    return _BAD


def _code(value: object, codes: dict[str, int], nullable: bool) -> int:
    if value is None:
        return _NONE if nullable else _BAD
    if isinstance(value, str):
        return codes.get(value, _BAD)
    return _BAD


def _tile(tile: object, out: bytearray) -> bool:
    """Append a tile's two numbers as written (``"6-3"``: 6, 3), two nulls for none;
    False for a text the two numbers would not give back."""
    if tile is None:
        out.append(NULL)
        out.append(NULL)
        return True
    if not isinstance(tile, str):
        return False
    a, sep, b = tile.partition("-")
    if not sep or not a.isdigit() or not b.isdigit() or not a.isascii() or not b.isascii():
        return False
    x, y = int(a), int(b)
    if x > TOP or y > TOP or f"{x}-{y}" != tile:
        return False
    out.append(x + 2)
    out.append(y + 2)
    return True


def _put(out: bytearray, value: int) -> bool:
    if value == _BAD:
        return False
    out.append(value + 2)
    return True


def _encode(out: bytearray, player: object, action: object, tile: object, side: object,
            legal_count: object, score: object, best_score: object, forced: object,
            pips: object, best_pips: object, least_pips: object, double: object,
            double_choice: object, next_stuck: object) -> bool:
    """Append one move's WIDTH bytes; False (``out`` then unusable) when one does not fit."""
    return (_put(out, _small(player)) and _put(out, _code(action, _ACTION_CODE, False))
            and _tile(tile, out) and _put(out, _code(side, _SIDE_CODE, True))
            and _put(out, _small(legal_count)) and _put(out, _small_real(score))
            and _put(out, _small_real(best_score)) and _put(out, _flag(forced))
            and _put(out, _nullable(pips)) and _put(out, _nullable(best_pips))
            and _put(out, _nullable(least_pips)) and _put(out, _flag(double))
            and _put(out, _flag(double_choice)) and _put(out, _flag(next_stuck)))


def _ms_text(value: object) -> str:
    """One element of the ``ms`` array: the logged number as JSON, or null."""
    if value is None:
        return "null"
    if type(value) is int:
        return str(value)
    if type(value) is float:
        x: float = value
        if x != x or x in (float("inf"), float("-inf")):
            return "null"  # not a JSON number: the schema allows neither
        if x.is_integer() and abs(x) < 2.0 ** 53:
            return str(int(x))  # the column is REAL: 1234 and 1234.0 read back alike
        return repr(x)
    return json.dumps(value)


_TILE_BYTES: dict[str, bytes] = {}
"""Tile texts seen and their two bytes, empty for a text the bytes cannot give back: a log
names the same few dozen tiles again and again (the cache is bounded, so a hostile log
cannot grow it)."""
_BYTE: Final = tuple(bytes((n,)) for n in range(256))
"""Each byte as a ``bytes`` of its own: a round's bytes are joined from these, which costs
less than making ``bytes`` of a list of ints or a ``struct`` call per move."""
_NO_TILE: Final = bytes((NULL, NULL))
_FLAGS: Final = tuple(bytes((a, b, c)) for a in (NULL, 2, 3) for b in (NULL, 2, 3)
                      for c in (NULL, 2, 3))
"""The last three bytes of a move (``double``, ``double_choice``, ``next_stuck``), by
:func:`_flag_index` of each."""


def _tile_bytes(tile: str) -> bytes:
    known = _TILE_BYTES.get(tile)
    if known is not None:
        return known
    probe = bytearray()
    found = bytes(probe) if _tile(tile, probe) else b""
    if len(_TILE_BYTES) < 4096:
        _TILE_BYTES[tile] = found
    return found


def _flag_index(value: bool | None) -> int:
    return 0 if value is None else (2 if value else 1)


def _ms_json(moves: Sequence[MoveFact]) -> str:
    """The ``ms`` array of these moves: orjson writes a list of numbers and nulls in C
    (valid JSON, and any number the view reads back as the same float)."""
    times = [m.ms for m in moves]
    try:
        return orjson.dumps(times).decode("ascii")
    except TypeError:  # an int beyond 64 bits (the schema allows none)
        return "[" + ",".join([_ms_text(t) for t in times]) + "]"


def _real_byte(value: object) -> int:
    """The byte of a REAL column's value (a score): a whole number from 0 to TOP as
    ``n + 2``, anything else -1. Compared natively, without ``float.is_integer``."""
    if type(value) is float:
        x: float = value
        if 0.0 <= x <= 125.0:  # TOP; also false for nan
            n = int(x)
            if n == x:
                return n + 2
        return -1
    if type(value) is int:
        k: int = value
        return k + 2 if 0 <= k <= TOP else -1
    return -1


def _opt_byte(value: object) -> int:
    """The byte of a nullable whole number from 0 to TOP (NULL for None), else -1."""
    if value is None:
        return NULL
    if type(value) is int:
        k: int = value
        return k + 2 if 0 <= k <= TOP else -1
    return -1


def pack_round(moves: Sequence[MoveFact]) -> tuple[str, bytes | None, str | None]:
    """``(ms, facts, odd)`` of one round's move facts, in move order.

    The import packs every round, so this is :func:`_encode` written out for the types
    ``MoveFact`` declares: the compiled core reads them as C values, compares the action
    and the side with literals, and joins the bytes from ready-made pieces once a round.
    """
    ms = _ms_json(moves)
    parts: list[bytes] = []
    byte = _BYTE
    number = 1
    for m in moves:
        if m.move != number:
            break
        number += 1
        player = m.player
        legal = m.legal_count
        if not 0 <= player <= TOP or not 0 <= legal <= TOP:
            break
        action = m.action
        if action == "play":
            act = 2
        elif action == "draw":
            act = 3
        elif action == "pass":
            act = 4
        else:
            break
        end = m.end
        if end is None:
            side = NULL
        elif end == "left":
            side = 2
        elif end == "right":
            side = 3
        elif end == "up":
            side = 4
        elif end == "down":
            side = 5
        else:
            side = NULL  # an end the layout does not name reads back as null
        tile = m.tile
        pair = _NO_TILE if tile is None else _tile_bytes(tile)
        score = _real_byte(m.score)
        best = _real_byte(m.best_score)
        pips = _opt_byte(m.pips)
        best_pips = _opt_byte(m.best_pips)
        least_pips = _opt_byte(m.least_pips)
        if (not pair or score < 0 or best < 0 or pips < 0 or best_pips < 0
                or least_pips < 0):
            break
        parts.append(byte[player + 2])
        parts.append(byte[act])
        parts.append(pair)
        parts.append(byte[side])
        parts.append(byte[legal + 2])
        parts.append(byte[score])
        parts.append(byte[best])
        parts.append(byte[3 if m.forced else 2])
        parts.append(byte[pips])
        parts.append(byte[best_pips])
        parts.append(byte[least_pips])
        parts.append(_FLAGS[_flag_index(m.double) * 9 + _flag_index(m.double_choice) * 3
                            + _flag_index(m.next_stuck)])
    else:
        return ms, b"".join(parts), None
    return ms, None, odd_rows([m.as_row() for m in moves])


def pack_rows(rows: Sequence[Sequence[Any]]) -> tuple[str, bytes | None, str | None]:
    """``(ms, facts, odd)`` of one round's rows as the ``moves`` table held them:
    ``(round, move, player, action, tile, side, ms, legal_count, score, best_score,
    forced, pips, best_pips, least_pips, double, double_choice, next_stuck)``."""
    ms = "[" + ",".join([_ms_text(r[6]) for r in rows]) + "]"
    out = bytearray()
    number = 1
    for r in rows:
        if r[1] != number or not _encode(out, r[2], r[3], r[4], r[5], r[7], r[8], r[9],
                                         r[10], r[11], r[12], r[13], r[14], r[15], r[16]):
            return ms, None, odd_rows(rows)
        number += 1
    return ms, bytes(out), None


def _as_stored(value: Any, real: bool) -> Any:
    """A value as the ``moves`` table stored it: REAL columns as floats, a whole float
    of an INTEGER column as an int (SQLite's column affinity), a bool as 0 or 1."""
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return 1 if value else 0
    if real:
        return float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def odd_rows(rows: Sequence[Sequence[Any]]) -> str:
    """The ``odd`` text of a round whose facts do not fit the bytes: a JSON row a move,
    from rows in the ``moves`` table's order (ms left out: it is in ``ms``)."""
    out = []
    for row in rows:
        values = (row[1], *row[2:6], *row[7:])
        out.append([_as_stored(v, name in REAL_COLUMNS)
                    for name, v in zip(ODD_COLUMNS, values, strict=True)])
    return json.dumps(out, separators=(",", ":"), ensure_ascii=False)


def pack_game(moves: Sequence[MoveFact]) -> list[tuple[int, str, bytes | None, str | None]]:
    """``round_moves`` rows ``(round, ms, facts, odd)`` of a game, a row per round.

    ``moves`` are the game's move facts in order (``GameFacts.moves``): each round's
    moves together, rounds ascending.
    """
    rows: list[tuple[int, str, bytes | None, str | None]] = []
    start = 0
    n = len(moves)
    while start < n:
        rnd = moves[start].round
        end = start + 1
        while end < n and moves[end].round == rnd:
            end += 1
        ms, facts, odd = pack_round(moves[start:end])
        rows.append((rnd, ms, facts, odd))
        start = end
    return rows


def _value(byte: int) -> int | None:
    return None if byte == NULL else byte - 2


def unpack_round(ms: str | None, facts: bytes | None,
                 odd: str | None) -> list[tuple[Any, ...]]:
    """The rows the ``moves`` view gives for one ``round_moves`` row, without game and
    round: ``(move, player, action, tile, side, ms, legal_count, score, best_score,
    forced, pips, best_pips, least_pips, double, double_choice, next_stuck)``."""
    times = json.loads(ms) if ms else []
    out: list[tuple[Any, ...]] = []
    if odd is not None:
        for t, row in zip(times, json.loads(odd), strict=True):
            out.append((*row[:5], None if t is None else float(t), *row[5:]))
        return out
    if facts is None:
        return out
    for i, t in enumerate(times):
        b = facts[i * WIDTH:(i + 1) * WIDTH]
        a, c = _value(b[2]), _value(b[3])
        side = _value(b[4])
        score, best = _value(b[6]), _value(b[7])
        out.append((
            i + 1, _value(b[0]), ACTIONS[b[1] - 2],
            None if a is None else f"{a}-{c}",
            None if side is None else SIDES[side],
            None if t is None else float(t), _value(b[5]),
            None if score is None else float(score), None if best is None else float(best),
            _value(b[8]), _value(b[9]), _value(b[10]), _value(b[11]), _value(b[12]),
            _value(b[13]), _value(b[14]),
        ))
    return out


def ints_json(value: list[Any], to_json: Callable[[Any], str]) -> str:
    """The compact JSON text of a list: written here when every element is an ``int``
    (the text the stdlib gives, ``[3,-1,0]``), else by ``to_json``. A round's winners,
    points, bonus and pips are lists of a few ints, four a round, where a call of the
    JSON writer costs more than the text."""
    parts: list[str] = []
    for v in value:
        if type(v) is not int:
            return to_json(value)
        parts.append(str(v))
    return "[" + ",".join(parts) + "]"


def round_rows(rounds: Sequence[RoundFact], to_json: Callable[[Any], str]
               ) -> list[tuple[Any, ...]]:
    """The ``rounds`` rows of a game's round facts, without the game: the values of
    ``storage.ROUND_COLUMNS`` in order, the lists as JSON text (by ``to_json`` unless
    all ints: :func:`ints_json`) and ``blocked`` as 0 or 1. Compiled because the import
    builds a row for every round, reading each fact's fields as C values."""
    rows: list[tuple[Any, ...]] = []
    for r in rounds:
        rows.append((
            r.round, r.opener, r.opening_tile, ints_json(r.winners, to_json),
            ints_json(r.points, to_json), ints_json(r.bonus, to_json),
            1 if r.blocked else 0, ints_json(r.pips_left, to_json), r.ended_by, r.moves,
            r.draws, r.passes, r.boneyard_left, r.block_certain, r.ending,
        ))
    return rows
