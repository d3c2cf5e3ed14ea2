"""Schema check: is a parsed document shaped like a domino-log/1 log?

The formal contract is ``schemas/domino-log-1.schema.json`` (JSON Schema 2020-12),
which frontend developers read and may run themselves. This module checks a
document against it and, when the document does not fit, raises one
:class:`~recorder.errors.SchemaError` that points at the place (a JSON pointer, and
the round and move as docs/format.md counts them) and says in plain words what to
write instead.

Why two checkers: the recorder validates tens of thousands of rounds a second, and
``jsonschema`` takes about 25 ms over a 250-move log (the fast lane 0.1 ms). So
:func:`is_valid` and the common case of :func:`check_document` go through a
hand-written structural check (:func:`_fast_valid`) that mirrors the schema keyword
for keyword; only a document that fails it goes through ``jsonschema`` (in
:mod:`recorder.schema_errors`, imported then: loading jsonschema takes longer than
replaying a game, and a valid document never needs it), and only its first broken
part, whose errors are the source of truth for the message. The two must accept
exactly the same documents: ``tests/test_schema.py`` holds them to that with
hypothesis, so change both or neither.

Two deliberate differences from a stock Draft 2020-12 validator, both making the
recorder stricter than the letter of JSON Schema and closer to what a JavaScript
validator (Ajv) does:

* ``integer`` means a JSON number written without a decimal point: ``1.0`` is not a
  seat number here, because the engine indexes lists with it.
* ``pattern`` is read with ECMAScript's meaning of ``$`` (the very end of the
  string); Python's ``re`` would also let ``"6-3\\n"`` through.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Final

from recorder import FORMAT
from recorder.errors import InstallationError, SchemaError
from recorder.names import acceptable as _name_ok

__all__ = [
    "SCHEMA",
    "SCHEMA_PATH",
    "check_document",
    "is_valid",
    "move_ok",
]

SCHEMA_NAME: Final = "domino-log-1.schema.json"


def _schema_path() -> Path:
    """Where the schema is: inside the installed package (``recorder.schemas``, mapped
    onto ``schemas/`` by the build), else in the source tree beside the package.

    The two usual places are looked at as paths first: asking ``importlib.resources``
    costs every command about 14 ms of imports. It is still asked when neither holds
    the file (a package installed some other way).
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / "schemas" / SCHEMA_NAME, here.parent / "schemas" / SCHEMA_NAME):
        if candidate.is_file():
            return candidate
    try:
        import importlib.resources

        shipped = importlib.resources.files("recorder.schemas") / SCHEMA_NAME
        if shipped.is_file():
            return Path(str(shipped))
    except ModuleNotFoundError:
        pass
    source = here.parent / "schemas"
    raise InstallationError(
        f"the recorder's installation is broken: its schema {SCHEMA_NAME} is missing "
        f"(looked in the recorder.schemas package and in {source}); "
        "reinstall domino-recorder"
    )


SCHEMA_PATH: Final = _schema_path()
"""The schema file: the one in ``schemas/`` that frontends read, shipped as package data."""

_QUOTE_CHARS: Final = 60
"""How much of an offending string a message quotes: enough to recognise it, never
enough to flood a log line or an HTML page."""

try:
    SCHEMA: Final[dict[str, Any]] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    """The schema as a dict, loaded once."""
except (OSError, ValueError) as exc:  # unreadable or damaged: ours to fix, not the user's
    raise InstallationError(
        f"the recorder's installation is broken: its schema {SCHEMA_PATH} cannot be read "
        f"({exc}); reinstall domino-recorder"
    ) from exc



# ---------------------------------------------------------------------------------------
# The fast lane: the schema written out as code. Keep it in step with the JSON file.

_MISSING: Final = object()
_PRESETS: Final = frozenset({"spilop", "classic", "kozel", "italian", "norwegian",
                             "openspiel-block", "openspiel-team", "dominoes-partners",
                             "all-fives"})
_ACTIONS: Final = frozenset({"play", "draw", "pass"})
_ENDS: Final = frozenset({"left", "right", "up", "down"})
_TILE: Final = re.compile(r"[0-9]{1,2}-[0-9]{1,2}").fullmatch
_HALVES: Final = [str(n) for n in range(10)] + [f"{n:02d}" for n in range(100)]
_TILES: Final = frozenset(f"{a}-{b}" for a in _HALVES for b in _HALVES)
"""Every string the tile pattern accepts (12,100 of them): a set lookup is several
times faster than the regular expression, and exactly as strict."""
_FORMAT_PATTERN: Final = re.compile(r"domino-log/[0-9]+(\.[0-9]+)?").fullmatch
_MAX_SEAT: Final = 7
_MAX_MS: Final = 2**53 - 1


def _int(value: object) -> bool:
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def _num(value: object) -> bool:
    return type(value) in (int, float) or (
        isinstance(value, int | float) and not isinstance(value, bool)
    )


def _str(value: object, max_length: int, min_length: int = 0) -> bool:
    return isinstance(value, str) and min_length <= len(value) <= max_length


def _seat(value: object) -> bool:
    return _int(value) and not value < 0 and not value > _MAX_SEAT  # type: ignore[operator]


def _list_of(value: object, max_items: int, item: Any) -> bool:
    return isinstance(value, list) and len(value) <= max_items and all(map(item, value))


def _points(value: object) -> bool:
    return _num(value)


def _pips(value: object) -> bool:
    return _int(value) and not value < 0  # type: ignore[operator]


def _tile(value: object) -> bool:
    return isinstance(value, str) and (value in _TILES or _TILE(value) is not None)


def _opt(obj: dict[str, Any], key: str, check: Any) -> bool:
    """True when ``key`` is absent or null, or its value passes ``check``.

    Every optional field may be null, which means the same as absent (the schema's
    ``"type": [..., "null"]``).
    """
    value = obj.get(key)
    return value is None or check(value)


def _ruleset(value: object) -> bool:
    if isinstance(value, str):
        return value in _PRESETS
    if not isinstance(value, dict):
        return False
    preset = value.get("preset", _MISSING)
    return (
        isinstance(preset, str)
        and preset in _PRESETS
        and _opt(value, "options", lambda o: isinstance(o, dict))
    )


def _player(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    pid = value.get("id", _MISSING)
    return _str(pid, 100, 1) and _opt(value, "name", lambda n: _str(n, 100))


def _name(value: object, max_length: int) -> bool:
    """A game id or a frontend's name: ``$defs/name`` (recorder.names) and its length."""
    return _str(value, max_length, 1) and _name_ok(value)  # type: ignore[arg-type]


def _frontend(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    return _name(value.get("name", _MISSING), 100) and _opt(
        value, "version", lambda v: _str(v, 100)
    )


GAME_RESULT_KEYS: Final = ("scores", "winners")
ROUND_RESULT_KEYS: Final = ("winners", "points", "bonus", "blocked", "pips_left", "ended_by")
"""The fields a claimed result may have (the schema's ``additionalProperties: false``)."""
_GAME_RESULT_SET: Final = frozenset(GAME_RESULT_KEYS)
_ROUND_RESULT_SET: Final = frozenset(ROUND_RESULT_KEYS)


def _game_result(value: object) -> bool:
    return isinstance(value, dict) and value.keys() <= _GAME_RESULT_SET and (
        _opt(value, "scores", lambda v: _list_of(v, 8, _points))
        and _opt(value, "winners", lambda v: _list_of(v, 8, _seat))
    )


def _seats(value: object) -> bool:
    if not isinstance(value, list) or len(value) > 8:
        return False
    return all(_seat(x) for x in value)


def _points_list(value: object) -> bool:
    if not isinstance(value, list) or len(value) > 8:
        return False
    return all(_num(x) for x in value)


def _round_result(value: object) -> bool:
    # written out, not with ``_opt`` and lambdas: every round of a log has one, and
    # the compiled core calls these directly
    if not isinstance(value, dict):
        return False
    known = 0  # the fields read so far that are there (not null): when that is all of
    # them, the result has no field of another name, and no set of names is compared
    winners = value.get("winners")
    if winners is not None:
        if not _seats(winners):
            return False
        known += 1
    points = value.get("points")
    if points is not None:
        if not _points_list(points):
            return False
        known += 1
    bonus = value.get("bonus")
    if bonus is not None:
        if not _points_list(bonus):
            return False
        known += 1
    blocked = value.get("blocked")
    if blocked is not None:
        if not isinstance(blocked, bool):
            return False
        known += 1
    pips_left = value.get("pips_left")
    if pips_left is not None:
        if not _list_of(pips_left, 8, _pips):
            return False
        known += 1
    ended_by = value.get("ended_by")
    if ended_by is not None:
        if not _seat(ended_by):
            return False
        known += 1
    return len(value) == known or value.keys() <= _ROUND_RESULT_SET


def _deal(value: object) -> bool:
    if not isinstance(value, dict):
        return False
    hands = value.get("hands", _MISSING)
    boneyard = value.get("boneyard", _MISSING)
    return _list_of(hands, 8, lambda h: _list_of(h, 200, _tile)) and _list_of(
        boneyard, 200, _tile
    )


def move_ok(move: dict[str, Any], player: object, action: object, tile: object,
            end: object, closed: object) -> bool:
    """True when one move, a ``dict`` whose fields the caller has read, is certainly
    valid; False means "not certain": the everyday move passes in a few steps, and
    anything unusual is left to :func:`_moves_careful` (through the whole check).

    The replay's walk calls this as it reads each move (see
    :func:`check_document`'s ``moves``), so that a move's dictionary is read once.
    """
    # ``type(...) is`` tests narrow the types, so the compiled core compares the
    # values directly
    if type(player) is not int or player < 0 or player > _MAX_SEAT:
        return False
    if type(action) is not str:
        return False
    # How many of the move's keys are checked by now. A key that is present but null
    # is not counted: then ``ms`` is looked at below, which is only slower.
    known = 2
    if action == "play":
        if type(tile) is not str or tile not in _TILES:
            return False
        if end is None:
            known = 3
        elif type(end) is str and end in _ENDS:
            known = 4
        else:
            return False
    elif action == "draw":
        if end is not None:
            return False
        if tile is not None:
            if type(tile) is not str or tile not in _TILES:
                return False
            known = 3
    elif action != "pass" or tile is not None or end is not None:
        return False
    if len(move) > known:
        ms = move.get("ms")
        if ms is not None and (
            (type(ms) is not int and type(ms) is not float) or ms < 0 or ms > _MAX_MS
        ):
            return False
        if closed is not None and type(closed) is not bool:
            return False
    return True


def _moves(moves: object) -> bool:
    """The hot loop: every move of every round passes here once (:func:`move_ok`),
    and a list with anything unusual goes to :func:`_moves_careful`."""
    if type(moves) is not list or len(moves) > 2000:
        return _moves_careful(moves)
    for move in moves:
        if type(move) is not dict or not move_ok(
                move, move.get("player"), move.get("action"), move.get("tile"),
                move.get("end"), move.get("closed")):
            return _moves_careful(moves)
    return True


def _moves_listed(moves: object) -> bool:
    """The moves as a list the walk can read, their fields left to it (``moves=False``)."""
    return type(moves) is list and len(moves) <= 2000


def _moves_careful(moves: object) -> bool:
    """The moves keyword by keyword, for any Python value (subclasses included)."""
    if not isinstance(moves, list) or len(moves) > 2000:
        return False
    for move in moves:
        if not isinstance(move, dict):
            return False
        player = move.get("player", _MISSING)
        if not _int(player) or player < 0 or player > _MAX_SEAT:  # type: ignore[operator]
            return False
        action = move.get("action", _MISSING)
        if not isinstance(action, str) or action not in _ACTIONS:
            return False
        # tile, end and ms: None when absent or null, which the schema holds the same
        tile = move.get("tile")
        if tile is not None and not _tile(tile):
            return False
        end = move.get("end")
        if end is not None and not (isinstance(end, str) and end in _ENDS):
            return False
        if action == "play" and tile is None:  # a play's tile is required, and not null
            return False
        if action == "pass" and (tile is not None or end is not None):
            return False
        if action == "draw" and end is not None:
            return False
        ms = move.get("ms")
        if ms is not None and (not _num(ms) or ms < 0 or ms > _MAX_MS):  # type: ignore[operator]
            return False
        closed = move.get("closed")
        if closed is not None and not isinstance(closed, bool):
            return False
    return True


def _round(value: object, moves: bool = True) -> bool:
    if not isinstance(value, dict):
        return False
    seed = value.get("seed")
    deal = value.get("deal")
    if seed is not None and deal is not None:
        return False
    listed = value.get("moves", _MISSING)
    if not (_moves(listed) if moves else _moves_listed(listed)):
        return False
    if seed is not None and not _str(seed, 500):
        return False
    if deal is not None and not _deal(deal):
        return False
    opener = value.get("opener")
    if opener is not None and not _seat(opener):
        return False
    result = value.get("result")
    return result is None or _round_result(result)


def _fast_valid(doc: object, moves: bool = True) -> bool:
    """True exactly when ``VALIDATOR`` finds no error in ``doc`` (proven by tests).

    Written for speed in the common, valid case; on ``False`` the caller asks
    jsonschema what is wrong. Comparisons are written as jsonschema writes them
    (``x < minimum`` fails), so a NaN passes ``minimum`` here as it does there.
    ``moves=False``: everything but the moves' own fields (see :func:`check_document`).
    """
    if not isinstance(doc, dict):
        return False
    fmt = doc.get("format", _MISSING)
    if not (_str(fmt, 40) and _FORMAT_PATTERN(fmt)):  # type: ignore[arg-type]
        return False
    if not _ruleset(doc.get("ruleset", _MISSING)):
        return False
    if not _list_of(doc.get("players", _MISSING), 8, _player) or not doc["players"]:
        return False
    rounds = doc.get("rounds", _MISSING)
    if not isinstance(rounds, list) or len(rounds) > 1000:
        return False
    for value in rounds:
        if not _round(value, moves):
            return False
    return (
        _opt(doc, "game_id", lambda g: _name(g, 200))
        and _opt(doc, "frontend", _frontend)
        and _opt(doc, "seed", lambda s: _str(s, 500))
        and _opt(doc, "started_at", lambda s: _str(s, 64))
        and _opt(doc, "result", _game_result)
    )

# ---------------------------------------------------------------------------------------
# Before the schema: the three things whose messages must not depend on it.

_FORMAT_NAME: Final = re.compile(r"domino-log/([0-9]+)")


def _precheck(doc: object) -> SchemaError | None:
    """Object, ``format`` present, known major version: checked first, because a log
    of another major version may have any shape and deserves the version message,
    not a list of shape errors."""
    if not isinstance(doc, dict):
        return SchemaError(
            f"the document must be a JSON object, got {_json_kind(doc)}", pointer=""
        )
    if "format" not in doc:
        return SchemaError('the document needs a "format", like "domino-log/1"', pointer="")
    fmt = doc["format"]
    if isinstance(fmt, str):
        match = _FORMAT_NAME.match(fmt)
        if match is None or match.group(1).lstrip("0") != "1":
            return SchemaError(
                f"unknown format {_describe(fmt)}: this recorder reads {FORMAT}",
                pointer="/format",
                code="log/unknown-format",
            )
    return None

def is_valid(doc: object) -> bool:
    """Whether :func:`check_document` would accept ``doc``, without building an error.

    Cheap for a valid document (the fast lane only). A document the fast lane
    refuses is confirmed the way :func:`check_document` finds its error, so the two
    always agree, even if the fast lane and the schema ever drifted apart.
    """
    if _precheck(doc) is not None:
        return False
    if _fast_valid(doc):
        return True
    from recorder.schema_errors import first_error

    return first_error(doc) is None


def check_document(doc: object, *, moves: bool = True) -> None:
    """Raise :class:`SchemaError` for the most useful shape error of ``doc``, if any.

    "Most useful" is the earliest in the order the engine would meet it: the
    document as a whole, then round by round, a round's own fields before its moves,
    move by move. The error carries ``pointer`` (RFC 6901), ``round`` and ``move``
    (docs/format.md: round 0, move 0 for the document; round r, move 0 for round r as a
    whole; round r, move m for move m) and a message that quotes at most
    ~60 characters of the offending value.

    ``moves=False`` checks everything but the fields of each move (each round's moves
    must still be a list), for a caller that reads every move anyway: it checks each
    one with :func:`move_ok` as it reads it and, when one is not certainly valid, or
    before it reports any error of its own, calls this again in full, so that the
    schema's error always comes first, as if the whole document had been checked.
    """
    early = _precheck(doc)
    if early is not None:
        raise early
    if _fast_valid(doc, moves):
        return
    from recorder.schema_errors import first_error

    error = first_error(doc)
    if error is not None:
        raise error


def _json_kind(value: object) -> str:
    """JSON's name for a value's type, with an article: "an array", "null"."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _describe(value: object) -> str:
    """A value as a message may quote it: JSON, strings cut to ~60 characters,
    containers only named (never dumped), huge numbers only sized."""
    if isinstance(value, str):
        cut = value[:_QUOTE_CHARS]
        text = json.dumps(cut, ensure_ascii=False)
        if len(value) > _QUOTE_CHARS:
            text = text[:-1] + '..."'
        # A lone surrogate ("\ud800") must not reach an encoder that would choke on it.
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, bool) or value is None:
        return _json_kind(value)
    if isinstance(value, int):
        if value.bit_length() > 190:  # ~57 digits; str() of 4300+ digits even raises
            return f"a number of about {int(value.bit_length() * math.log10(2)) + 1} digits"
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    return _json_kind(value)

