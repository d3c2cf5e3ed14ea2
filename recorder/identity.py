"""Identity: the normal form of a game and the content hash taken of it.

A game is known by the SHA-256 of its canonical text (:func:`content_hash`) and, when it
has both, by its frontend's name and its ``game_id`` (:func:`identity_key`), each in the
normal form of :mod:`recorder.names`.

Two logs have the same canonical text exactly when they are the same game written two
ways, and the normal form is chosen so that it never joins two logs of which one is
valid and the other is not: every difference it removes is one that neither the schema
nor the engine can see. That is what lets an import answer a log whose hash it already
holds as a duplicate without replaying it (the stored game was judged valid, so its twin
is valid too), and what the tests hold it to. What the normal form removes:

* layout: white space, the order of an object's keys (duplicate keys never get here:
  the parser refuses them);
* ``null`` in an optional field, which the format reads as absent, and the other ways of
  writing "absent": ``"closed": false`` on a move, an empty claimed ``result`` (the game's
  or a round's) and an empty ``options``; a ruleset ``{"preset": P}`` with nothing else is
  the preset name ``P``;
* the written order of a tile where the engine does not read it: in a deal, in a draw,
  and in every play but a round's first. The opening tile keeps its order, since its
  first written half lies on the left (``"6-3"`` and ``"3-6"`` open different boards).
  Only tiles the schema and the engine accept are turned (``"6-3"``; not ``"06-3"``,
  which the engine refuses, nor ``"²-3"``, which the schema refuses);
* a whole number written with a fraction (``764.0``, below 1e16) where the format takes
  any number:
  a move's ``ms`` and the claimed points (``result.scores``, a round's ``points`` and
  ``bonus``). Where the format takes whole numbers only (seats, pips) ``1.0`` is refused,
  so it is left as written;
* the spelling of the frontend's name and of the ``game_id``: their normal forms
  (:mod:`recorder.names`; a name the schema refuses is left as written).

Everything else (thinking times, names of players, the claimed results, fields the format
does not define, even when null) is part of the game.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Final

from recorder import jsontext, names

__all__ = [
    "IDENTITY_VERSION",
    "canonical_bytes",
    "canonical_json",
    "content_hash",
    "frontend_name",
    "identity_key",
    "normalize_tile",
    "normalized",
]

IDENTITY_VERSION: Final = 2
"""The version of the normal form: stored hashes made under an older one are recomputed
(``recorder.storage``'s migration ``m011_identity_v2``)."""

_TILE: Final = re.compile(r"(0|[1-9][0-9]?)-(0|[1-9][0-9]?)")
_TILE_FORMS: dict[str, str] = {}
"""Tile texts seen, and their low-high form: a log names the same few dozen tiles again and
again, so most are a dictionary lookup (bounded: a hostile log cannot grow it)."""


def normalize_tile(value: Any) -> Any:
    """``"6-3"`` -> ``"3-6"``: a tile written either way is the same tile.

    Only a tile written as the engine reads one (ASCII digits, no leading zero) is
    turned; anything else is left as written, so that it never looks like a valid tile.
    """
    if type(value) is not str:
        return value
    known = _TILE_FORMS.get(value)
    if known is not None:
        return known
    fixed = value
    match = _TILE.fullmatch(value)
    if match is not None:
        a, b = int(match.group(1)), int(match.group(2))
        if a > b:
            fixed = f"{b}-{a}"
    if len(value) <= 8 and len(_TILE_FORMS) < 4096:
        _TILE_FORMS[value] = fixed
    return fixed


# The optional fields of each kind of object: null there is the same as absent, so a
# null-valued one is dropped before hashing. Other null values are kept.
_NULLABLE_GAME: Final = frozenset({"game_id", "frontend", "seed", "started_at", "result"})
_NULLABLE_FRONTEND: Final = frozenset({"version"})
_NULLABLE_RULESET: Final = frozenset({"options"})
_NULLABLE_PLAYER: Final = frozenset({"name"})
_NULLABLE_GAME_RESULT: Final = frozenset({"scores", "winners"})
_NULLABLE_ROUND: Final = frozenset({"seed", "deal", "result", "opener"})
_NULLABLE_ROUND_RESULT: Final = frozenset(
    {"winners", "points", "bonus", "blocked", "pips_left", "ended_by"}
)
_NULLABLE_MOVE: Final = frozenset({"tile", "end", "ms", "closed"})


def _without_nulls(obj: Any, keys: frozenset[str]) -> Any:
    """``obj`` without those of ``keys`` whose value is null; ``obj`` itself when none is."""
    if type(obj) is not dict or None not in obj.values():
        return obj
    out = {k: v for k, v in obj.items() if v is not None or k not in keys}
    return obj if len(out) == len(obj) else out


def _whole(value: Any) -> bool:
    """A float written with a fraction of zero (``764.0``): below 1e16 a float with a
    whole value is written so, and beyond it is written with an exponent (``1e16``)."""
    return type(value) is float and value.is_integer() and -1e16 < value < 1e16


def _numbers(values: Any) -> Any:
    """A list of numbers with whole floats as ints; the list itself when none is."""
    if type(values) is not list:
        return values
    out = values
    for i, v in enumerate(values):
        if _whole(v):
            if out is values:
                out = list(values)
            out[i] = int(v)
    return out


_KEEP_TILES: set[Any] = {None}
"""Tile values seen that identity leaves as written (low-high tiles, texts that are no
tile, and no tile at all): most moves of most logs hold one of them (bounded)."""


def _turned_tiles(moves: list[Any]) -> list[Any]:
    """The moves with every tile turned low-high but the opening one (the round's first
    play); the list itself when none needs turning. What :func:`_normalized_moves` does
    without ``careful``, written for the one loop most logs need.

    A round whose tiles (the opening one included) are all known to stay as written is
    answered from the set of its tiles, one comprehension in C; anything else (a tile to
    turn, a move that is no object, a tile not seen yet) takes the loop.
    """
    try:
        tiles = {mv["tile"] for mv in moves if "tile" in mv}
    except TypeError:  # a move that is no object, or a tile that cannot be hashed
        tiles = None
    if tiles is not None and tiles <= _KEEP_TILES:
        return moves
    out: list[Any] | None = None
    forms = _TILE_FORMS
    opened = False
    for i, mv in enumerate(moves):
        if type(mv) is not dict:
            continue
        if not opened and mv.get("action") == "play":
            opened = True  # the opening tile: its written order places it
            continue
        tile = mv.get("tile")
        if tile is None:
            continue
        turned = forms.get(tile) if type(tile) is str else None
        if turned is None:
            turned = normalize_tile(tile)
        if turned is not tile and turned != tile:
            if out is None:
                out = list(moves)
            out[i] = {**mv, "tile": turned}
        elif type(tile) is str and len(_KEEP_TILES) < 4096:
            _KEEP_TILES.add(tile)
    return moves if out is None else out


def _normalized_moves(moves: list[Any], careful: bool) -> list[Any]:
    """The moves as identity sees them; the list itself when none changes.

    Without ``careful``, only what most logs need: every tile turned but the opening one;
    ``careful`` also drops the moves' null fields and ``"closed": false`` and writes
    whole thinking times as ints (see :func:`canonical_bytes`).
    """
    if not careful:
        return _turned_tiles(moves)
    out: list[Any] | None = None
    forms = _TILE_FORMS
    opened = False
    for i, mv in enumerate(moves):
        if type(mv) is not dict:
            continue
        fixed = mv
        if None in mv.values():
            fixed = _without_nulls(mv, _NULLABLE_MOVE)
        tile = fixed.get("tile")
        if not opened and fixed.get("action") == "play":
            opened = True
            tile = None  # the opening tile: its written order places it
        if tile is not None:
            turned = forms.get(tile) if type(tile) is str else None
            if turned is None:
                turned = normalize_tile(tile)
            if turned is not tile and turned != tile:
                fixed = {**fixed, "tile": turned}
        ms = fixed.get("ms")
        if _whole(ms):
            fixed = {**fixed, "ms": int(ms)}
        if fixed.get("closed") is False:
            fixed = {k: v for k, v in fixed.items() if k != "closed"}
        if fixed is not mv:
            if out is None:
                out = list(moves)
            out[i] = fixed
    return moves if out is None else out


def _claims(result: Any, nullable: frozenset[str], numeric: tuple[str, ...],
            careful: bool) -> Any:
    """A claimed result without null fields (and, ``careful``, with whole floats as
    ints); None when nothing is left of it (an empty claim is no claim)."""
    if type(result) is not dict:
        return result
    out = _without_nulls(result, nullable)
    if careful:
        for key in numeric:
            values = out.get(key)
            fixed = _numbers(values)
            if fixed is not values:
                out = {**out, key: fixed}
    return out if out else None


def _normalized_round(rnd: Any, careful: bool) -> Any:
    if type(rnd) is not dict:
        return rnd
    out = _without_nulls(rnd, _NULLABLE_ROUND)
    moves = out.get("moves")
    if type(moves) is list:
        fixed = _normalized_moves(moves, careful)
        if fixed is not moves:
            out = {**out, "moves": fixed}
    if "result" in out:
        result = out["result"]
        claims = _claims(result, _NULLABLE_ROUND_RESULT, ("points", "bonus"), careful)
        if claims is None:
            out = {k: v for k, v in out.items() if k != "result"}
        elif claims is not result:
            out = {**out, "result": claims}
    deal = out.get("deal")
    if type(deal) is dict:
        deal = dict(deal)
        hands = deal.get("hands")
        if type(hands) is list:
            deal["hands"] = [
                [normalize_tile(t) for t in hand] if type(hand) is list else hand
                for hand in hands
            ]
        boneyard = deal.get("boneyard")
        if type(boneyard) is list:
            deal["boneyard"] = [normalize_tile(t) for t in boneyard]
        out = {**out, "deal": deal}
    return out


def _name(value: Any, key: Any) -> Any:
    """A name in its normal form when the schema accepts it, else as written."""
    if type(value) is str and names.acceptable(value):
        return key(value)
    return value


def normalized(doc: Any, *, careful: bool = True) -> Any:
    """``doc`` as identity sees it (see the module doc). Shares with ``doc`` whatever
    needs no change. ``careful=False`` leaves the moves' nulls, ``"closed": false`` and
    whole floats as they are (see :func:`canonical_bytes`)."""
    if type(doc) is not dict:
        return doc
    doc = _without_nulls(doc, _NULLABLE_GAME)
    out = dict(doc)
    if "game_id" in out:
        out["game_id"] = _name(out["game_id"], names.game_id_key)
    front = out.get("frontend")
    if type(front) is dict:
        front = _without_nulls(front, _NULLABLE_FRONTEND)
        if "name" in front:
            front = {**front, "name": _name(front["name"], names.frontend_key)}
        out["frontend"] = front
    ruleset = out.get("ruleset")
    if type(ruleset) is dict:
        ruleset = _without_nulls(ruleset, _NULLABLE_RULESET)
        options = ruleset.get("options")
        if type(options) is dict:
            # every option is optional: one set to null is one left out
            options = _without_nulls(options, frozenset(options))
            ruleset = {**ruleset, "options": options}
            if not options:
                ruleset = {k: v for k, v in ruleset.items() if k != "options"}
        if set(ruleset) == {"preset"} and type(ruleset["preset"]) is str:
            out["ruleset"] = ruleset["preset"]
        else:
            out["ruleset"] = ruleset
    players = out.get("players")
    if type(players) is list:
        out["players"] = [_without_nulls(p, _NULLABLE_PLAYER) for p in players]
    if "result" in out:
        claims = _claims(out["result"], _NULLABLE_GAME_RESULT, ("scores",), careful)
        if claims is None:
            del out["result"]
        else:
            out["result"] = claims
    rounds = out.get("rounds")
    if type(rounds) is list:
        out["rounds"] = [_normalized_round(r, careful) for r in rounds]
    return out


def canonical_bytes(doc: Any) -> bytes:
    """:func:`canonical_json` as UTF-8, the bytes the identity hash is taken of.

    Written by orjson when it gives the stdlib's very bytes (``recorder.jsontext``): the
    text, and so every stored hash, is the same whichever writes it.

    A move is the one object a log has hundreds of, so the first pass only turns its
    tile; the whole document is looked at carefully (the moves' nulls, ``"closed":
    false``, whole floats) only when the text the first pass gives shows one of those:
    compactly written, a null value is always ``:null``, and a whole float below 1e16
    always ends in ``.0`` (most logs have none of them).
    """
    first = normalized(doc, careful=False)
    text = jsontext.fast_dumps(first, sort_keys=True)
    if text is None:
        text = jsontext.stdlib_dumps(first, sort_keys=True).encode("utf-8")
        null = b":null" in text
    else:
        null = False  # orjson's text is used only when it holds no "null" at all
    # a whole float has a dot: one C-speed search for a byte (memchr) spares the pattern
    # a pass over the text of most logs, whose numbers are all ints
    if null or b'"closed":false' in text or (b"." in text and _WHOLE_FLOAT.search(text)):
        text = jsontext.dumps_bytes(normalized(doc), sort_keys=True)
    return text


_WHOLE_FLOAT: Final = re.compile(rb"\.0[,}\]]")
"""A float written with a fraction of zero, as orjson and the stdlib write one."""


def canonical_json(doc: Any) -> str:
    """The text two copies of a game share however they were written: keys sorted, no
    white space, and the normal form of the module doc."""
    return canonical_bytes(doc).decode("utf-8")


def content_hash(doc: Any) -> str:
    """SHA-256 of :func:`canonical_json`: the identity every game has."""
    return hashlib.sha256(canonical_bytes(doc)).hexdigest()


def frontend_name(doc: Any) -> str | None:
    """The normal form of the frontend's name a log gives, if it gives an acceptable one."""
    if type(doc) is not dict:
        return None
    front = doc.get("frontend")
    name = front.get("name") if type(front) is dict else None
    if type(name) is str and names.acceptable(name):
        return names.frontend_key(name)
    return None


def identity_key(doc: Any) -> tuple[str, str] | None:
    """(frontend name, game_id), both in their normal form, when the log has both."""
    frontend = frontend_name(doc)
    if frontend is None:
        return None
    game_id = doc.get("game_id")
    if type(game_id) is str and names.acceptable(game_id):
        return frontend, names.game_id_key(game_id)
    return None
