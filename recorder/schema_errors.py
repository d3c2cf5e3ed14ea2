"""The schema check's slow path: which rule a refused document breaks, in plain words.

:mod:`recorder.schema` accepts a valid document with its hand-written fast lane; a
document the fast lane refuses comes here, where ``jsonschema`` (the source of truth
for the message) checks only its first broken part (:func:`_errors`) and the error
that the engine would meet first is turned into one located
:class:`~recorder.errors.SchemaError`. A module of its own so that a process that only
sees valid logs never loads jsonschema (a twentieth of a second at every start).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from functools import cache
from itertools import islice
from typing import Any, Final

import jsonschema.validators  # type: ignore[import-untyped]
from jsonschema import Draft202012Validator, ValidationError  # type: ignore[import-untyped]

from recorder import names
from recorder.errors import SchemaError
from recorder.schema import (
    _ACTIONS,
    SCHEMA,
    _describe,
    _moves,
    _round,
)

__all__ = ["VALIDATOR", "first_error"]

_ERRORS_CONSIDERED: Final = 64
"""How many jsonschema errors are looked at to pick the one to report. jsonschema
yields them roughly in document order, so the earliest is among the first few; the
cap keeps a log with thousands of bad moves from costing thousands of errors."""


def first_error(doc: object) -> SchemaError | None:
    """The most useful shape error of ``doc`` (see :func:`recorder.schema.check_document`,
    which has checked that ``doc`` is an object of format 1), or None if it has none."""
    try:
        errors = _errors(doc)  # type: ignore[arg-type]  # _precheck: a dict
    except (ValueError, RecursionError):
        # jsonschema formats repr(instance) eagerly: an int of more than 4300 digits or
        # a structure nested past the recursion limit breaks it. The parser refuses
        # both, so only a document built in Python gets here.
        return SchemaError(
            "the document holds a value too large or too deeply nested to check", pointer=""
        )
    if not errors:
        return None
    for err in errors:
        _repair_false_schema_path(err, doc)
    error = _descend(min(errors, key=_order))
    return _to_schema_error(error, doc)


# ---------------------------------------------------------------------------------------
# The validator: Draft 2020-12 with an integer that is an int and an ECMAScript "$".


def _is_integer(_checker: object, instance: object) -> bool:
    """A JSON integer is a Python int; ``True`` and ``1.0`` are not (see module doc)."""
    return isinstance(instance, int) and not isinstance(instance, bool)


def _is_number(_checker: object, instance: object) -> bool:
    """A JSON number as the parser makes it: an int or a float, never a bool."""
    return isinstance(instance, int | float) and not isinstance(instance, bool)


@cache
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    """Compile a schema pattern with ECMAScript's end anchor.

    Python's ``$`` also matches before a final newline, so ``re.search("^a$", "a\\n")``
    succeeds where Ajv's does not. A trailing unescaped ``$`` becomes ``\\Z``.
    """
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _pattern_keyword(
    validator: Any, pattern: str, instance: object, _schema: object
) -> Iterator[ValidationError]:
    """The ``pattern`` keyword with :func:`_pattern_regex`; the message quotes briefly."""
    if isinstance(instance, str) and not _pattern_regex(pattern).search(instance):
        yield ValidationError(f"{_describe(instance)} does not match {pattern!r}")


_Validator = jsonschema.validators.extend(
    Draft202012Validator,
    validators={"pattern": _pattern_keyword},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _is_integer, "number": _is_number}
    ),
)

VALIDATOR: Final = _Validator(SCHEMA)
"""The one Draft 2020-12 validator, built once (building it is not free)."""

_ROUND_VALIDATOR: Final = VALIDATOR.evolve(schema=SCHEMA["$defs"]["round"])
_MOVE_VALIDATOR: Final = VALIDATOR.evolve(schema=SCHEMA["$defs"]["move"])
"""The same validator on one round, one move (``$ref`` resolves in the whole schema)."""


_MIN_ROUND: Final[dict[str, Any]] = {"moves": []}
_MIN_MOVE: Final = {"player": 0, "action": "pass"}


def _errors(doc: dict[str, Any]) -> list[ValidationError]:
    """jsonschema's errors for the earliest broken part of ``doc``, found cheaply.

    jsonschema takes ~25 ms over a 250-move log, so it never walks the whole
    document: it checks the document without its rounds, then the first round the
    fast lane refuses without its moves, then that round's first refused move. The
    schema has no constraint across rounds or moves, so a part the fast lane accepts
    holds no error, and leaving it out changes no pointer. Lists over their
    ``maxItems`` keep their length with minimal stand-ins, so that error stays.
    """
    rounds = doc.get("rounds")
    if not isinstance(rounds, list):
        return _first_errors(VALIDATOR, doc, ())
    stand_in = [_MIN_ROUND] * 1001 if len(rounds) > 1000 else []
    errors = _first_errors(VALIDATOR, {**doc, "rounds": stand_in}, ())
    before_rounds = [e for e in errors if not e.absolute_path or e.absolute_path[0] != "result"]
    if before_rounds:
        return before_rounds
    for r, round_ in enumerate(rounds):
        if not _round(round_):
            round_errors = _round_errors(round_, ("rounds", r))
            if round_errors:
                return round_errors
    return errors  # the game's result


def _round_errors(round_: object, prefix: tuple[Any, ...]) -> list[ValidationError]:
    moves = round_.get("moves") if isinstance(round_, dict) else None
    if not isinstance(moves, list) or not isinstance(round_, dict):
        return _first_errors(_ROUND_VALIDATOR, round_, prefix)
    stand_in = [_MIN_MOVE] * 2001 if len(moves) > 2000 else []
    errors = _first_errors(_ROUND_VALIDATOR, {**round_, "moves": stand_in}, prefix)
    at = len(prefix)  # where the round's own field name sits in an error's path
    before_moves = [e for e in errors if len(e.path) <= at or e.path[at] != "result"]
    if before_moves:
        return before_moves
    for m, move in enumerate(moves):
        if not _moves([move]):
            move_errors = _first_errors(_MOVE_VALIDATOR, move, (*prefix, "moves", m))
            if move_errors:
                return move_errors
    return errors  # the round's result


def _first_errors(
    validator: Any, instance: object, prefix: tuple[Any, ...]
) -> list[ValidationError]:
    """Up to ``_ERRORS_CONSIDERED`` errors of ``instance``, their paths made absolute."""
    errors = list(islice(validator.iter_errors(instance), _ERRORS_CONSIDERED))
    for error in errors:
        error.path.extendleft(reversed(prefix))
    return errors


# ---------------------------------------------------------------------------------------
# Choosing the error.

_TOP_ORDER: Final = {
    name: rank
    for rank, name in enumerate(
        ("format", "game_id", "frontend", "ruleset", "players", "seed", "started_at",
         "rounds", "result")
    )
}


def _order(error: ValidationError) -> tuple[int, int, int, int, int]:
    """Sort key: document order as the engine walks it, then shallower first.

    (top-level field, round, section of the round (itself, moves, result), move, depth)
    """
    path = error.absolute_path
    if not path:
        return (-1, -1, -1, -1, 0)
    top = _TOP_ORDER.get(str(path[0]), len(_TOP_ORDER))
    rnd = mv = -1
    section = 0  # the round itself, its seed, its deal
    if path[0] == "rounds" and len(path) >= 2 and isinstance(path[1], int):
        rnd = path[1]
        if len(path) >= 3 and path[2] == "moves":
            section = 1
            if len(path) >= 4 and isinstance(path[3], int):
                mv = path[3]
        elif len(path) >= 3 and path[2] == "result":
            section = 2  # the claimed result is compared after the moves
    return (top, rnd, section, mv, len(path))


def _repair_false_schema_path(error: ValidationError, doc: object) -> None:
    """Put the field name back on the path of a ``"tile": false`` failure.

    jsonschema (4.26) reports a ``false`` subschema under ``properties`` at the
    object's path, without the property. The property is the one of that object
    whose value the error holds.
    """
    if error.validator is not None or not error.relative_schema_path:
        return
    if error.relative_schema_path[-1] != "properties":
        return
    try:
        owner = _resolve(doc, list(error.absolute_path))
    except (KeyError, IndexError, TypeError):
        return
    if isinstance(owner, dict):
        for key, value in owner.items():
            if value is error.instance:
                error.path.append(key)
                error.schema_path.append(key)
                return


def _descend(error: ValidationError) -> ValidationError:
    """From an ``anyOf``/``oneOf`` failure to the branch the value was meant for.

    The branch meant is the one whose ``type`` fits the value (a string ruleset
    meant the preset name, an object the preset-with-options). When no branch or
    several fit, the composite error stays and its message describes the choices.
    """
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        depth = len(error.absolute_path)
        fitting = [
            subs
            for subs in branches.values()
            if not any(s.validator == "type" and len(s.absolute_path) == depth for s in subs)
        ]
        if len(fitting) != 1:
            break
        error = min(fitting[0], key=_order)
    return error


# ---------------------------------------------------------------------------------------
# Words. Each place in a log has a noun ("a tile") and a piece of advice; the message
# is "<the value> is not <noun>; <advice>", or a keyword-specific sentence.

_SEAT = ("a seat number",
         "write the player's seat as a whole number from 0 (the first player) to 7, like 1")
_TILE_WORDS = ("a tile", 'write tiles as "a-b", like "6-3"')
_POINTS = ("a number of points", "write it as a number, like 23")

_FIELDS: Final[dict[tuple[str, ...], tuple[str, str]]] = {
    (): ("a log document",
         'write it as a JSON object, like {"format": "domino-log/1", "ruleset": "spilop", ...}'),
    ("format",): ("a format name", 'write "domino-log/1"'),
    ("game_id",): ("a game id",
                   'write it as a string of 1 to 200 characters, like "spilop-2026-11-29-0001"'),
    ("frontend",): ("a frontend description",
                    'write it as an object, like {"name": "spilop", "version": "4.2"}'),
    ("frontend", "name"): ("a frontend name",
                           'write it as a string of 1 to 100 characters, like "spilop"'),
    ("frontend", "version"): ("a frontend version",
                              'write it as a string of at most 100 characters, like "4.2"'),
    ("ruleset",): ("a ruleset",
                   "write a preset name (spilop, classic, kozel, italian, norwegian, "
                   "openspiel-block, openspiel-team, dominoes-partners or all-fives), or an "
                   'object like {"preset": "spilop", "options": {"target": 150}}'),
    ("ruleset", "preset"): ("a preset",
                            "expected one of spilop, classic, kozel, italian, norwegian, "
                            "openspiel-block, openspiel-team, dominoes-partners, all-fives"),
    ("ruleset", "options"): ("a set of options",
                             'write them as an object, like {"bonus": true, "target": 150}'),
    ("players",): ("a list of players",
                   'write them as an array in seat order, like [{"id": "ingaan"}, '
                   '{"id": "kfnielsen"}]'),
    ("players", "*"): ("a player",
                       'write each player as an object, like {"id": "ingaan", "name": "Inga"}'),
    ("players", "*", "id"): ("a player id",
                             'write it as a string of 1 to 100 characters, like "ingaan"'),
    ("players", "*", "name"): ("a player name",
                               'write it as a string of at most 100 characters, like "Inga"'),
    ("seed",): ("a game seed", "write it as a string of at most 500 characters"),
    ("started_at",): ("a start time",
                      'write it as a string of at most 64 characters, like '
                      '"2026-11-29T18:00:00Z"'),
    ("rounds",): ("a list of rounds", 'write them as an array, like [{"moves": [...]}]'),
    ("rounds", "*"): ("a round", 'write each round as an object, like {"moves": [...]}'),
    ("rounds", "*", "seed"): ("a round seed", "write it as a string of at most 500 characters"),
    ("rounds", "*", "deal"): ("a deal",
                              'write it as an object, like {"hands": [["6-6", "6-3"], '
                              '["2-5", "0-1"]], "boneyard": ["1-1"]}'),
    ("rounds", "*", "deal", "hands"): ("a list of hands",
                                       "write one array of tiles for each seat, in seat order"),
    ("rounds", "*", "deal", "hands", "*"): ("a hand",
                                            'write it as an array of tiles, like ["6-6", "6-3"]'),
    ("rounds", "*", "deal", "hands", "*", "*"): _TILE_WORDS,
    ("rounds", "*", "deal", "boneyard"): ("a boneyard",
                                          "write the undealt tiles as an array in draw order, "
                                          'like ["1-1", "4-2"], or [] when every tile is dealt'),
    ("rounds", "*", "deal", "boneyard", "*"): _TILE_WORDS,
    ("rounds", "*", "moves"): ("a list of moves",
                               'write them as an array, like [{"player": 0, "action": "play", '
                               '"tile": "6-6"}]'),
    ("rounds", "*", "moves", "*"): ("a move",
                                    'write each move as an object, like {"player": 0, '
                                    '"action": "play", "tile": "6-6"}'),
    ("rounds", "*", "moves", "*", "player"): _SEAT,
    ("rounds", "*", "moves", "*", "action"): ("an action", "expected one of play, draw, pass"),
    ("rounds", "*", "moves", "*", "tile"): _TILE_WORDS,
    ("rounds", "*", "moves", "*", "end"): ("an end", "expected one of left, right, up, down"),
    ("rounds", "*", "moves", "*", "ms"): ("a thinking time",
                                          "write milliseconds as a number from 0 to "
                                          "9007199254740991, like 5400"),
    ("rounds", "*", "result"): ("a round result",
                                'write it as an object, like {"winners": [0], '
                                '"points": [23, 0]}'),
    ("rounds", "*", "result", "winners"): ("a list of winners",
                                           "write seat numbers as an array, like [0], "
                                           "or [] when nobody won"),
    ("rounds", "*", "result", "winners", "*"): _SEAT,
    ("rounds", "*", "result", "points"): ("a list of points",
                                          "write one number for each seat, like [23, 0]"),
    ("rounds", "*", "result", "points", "*"): _POINTS,
    ("rounds", "*", "result", "bonus"): ("a list of bonus points",
                                         "write one number for each seat, like [15, 0]"),
    ("rounds", "*", "result", "bonus", "*"): _POINTS,
    ("rounds", "*", "result", "blocked"): ("a blocked flag", "write true or false"),
    ("rounds", "*", "result", "pips_left"): ("a list of pips left",
                                             "write one whole number for each seat, "
                                             "like [0, 23]"),
    ("rounds", "*", "result", "pips_left", "*"): ("a pip count",
                                                  "write it as a whole number from 0, like 23"),
    ("rounds", "*", "result", "ended_by"): _SEAT,
    ("result",): ("a game result",
                  'write it as an object, like {"scores": [23, 0], "winners": [0]}'),
    ("result", "scores"): ("a list of scores", "write one number for each seat, like [23, 0]"),
    ("result", "scores", "*"): _POINTS,
    ("result", "winners"): ("a list of winners",
                            "write seat numbers as an array, like [0], or [] for an "
                            "unfinished game"),
    ("result", "winners", "*"): _SEAT,
}
_UNKNOWN_FIELD: Final = ("a valid value", "see schemas/domino-log-1.schema.json")

_ITEM_NOUNS: Final[dict[tuple[str, ...], str]] = {
    ("players",): "player",
    ("rounds",): "round",
    ("rounds", "*", "moves"): "move",
    ("rounds", "*", "deal", "hands"): "hand",
    ("rounds", "*", "deal", "hands", "*"): "tile",
    ("rounds", "*", "deal", "boneyard"): "tile",
}

_REQUIRED: Final[dict[tuple[tuple[str, ...], str], str]] = {
    ((), "ruleset"): 'a "ruleset", like "spilop"',
    ((), "players"): 'a "players" array, like [{"id": "ingaan"}, {"id": "kfnielsen"}]',
    ((), "rounds"): 'a "rounds" array (write [] for a game with no rounds yet)',
    (("frontend",), "name"): 'a "name", like "spilop"',
    (("ruleset",), "preset"): 'a "preset", like "spilop"',
    (("players", "*"), "id"): 'an "id"',
    (("rounds", "*"), "moves"): 'a "moves" array (write [] when no move was made yet)',
    (("rounds", "*", "deal"), "hands"): 'a "hands" array: the tiles dealt to each seat',
    (("rounds", "*", "deal"), "boneyard"): (
        'a "boneyard" array: the undealt tiles in draw order (write [] when every tile is '
        "dealt)"
    ),
    (("rounds", "*", "moves", "*"), "player"): 'a "player": the seat number, like 0',
    (("rounds", "*", "moves", "*"), "action"): 'an "action": play, draw or pass',
    (("rounds", "*", "moves", "*"), "tile"): 'a "tile", like "6-3"',
}


def _shape(path: Any) -> tuple[str, ...]:
    """The path with array indices replaced by ``*``: the key of the word tables."""
    return tuple("*" if isinstance(p, int) else str(p) for p in path)


def _pointer_of(path: Any) -> str:
    """RFC 6901 JSON pointer of a jsonschema path (``""`` is the whole document)."""
    return "".join(
        "/" + str(part).replace("~", "~0").replace("/", "~1") for part in path
    )


def _locate(path: Any) -> tuple[int, int]:
    """docs/format.md's (round, move) of a path: 1-based, 0 for "as a whole"."""
    parts = list(path)
    if len(parts) >= 2 and parts[0] == "rounds" and isinstance(parts[1], int):
        if len(parts) >= 4 and parts[2] == "moves" and isinstance(parts[3], int):
            return parts[1] + 1, parts[3] + 1
        return parts[1] + 1, 0
    return 0, 0


def _to_schema_error(error: ValidationError, doc: object) -> SchemaError:
    path = list(error.absolute_path)
    round_, move = _locate(path)
    sentence = _sentence(error, path, doc)
    if error.validator == "additionalProperties" and isinstance(error.instance, dict):
        path.append(_unknown_keys(error)[0])  # the pointer names the field refused
    pointer = _pointer_of(path)
    message = f"at {pointer}: {sentence}" if pointer else sentence
    return SchemaError(message, round=round_, move=move, pointer=pointer)


def _sentence(error: ValidationError, path: list[Any], doc: object) -> str:
    """The plain-English part of the message for one jsonschema error."""
    shape = _shape(path)
    noun, advice = _FIELDS.get(shape, _UNKNOWN_FIELD)
    value = error.instance
    keyword = error.validator

    if keyword is None or (keyword == "type" and error.validator_value == "null"):
        # a ``false`` or ``{"type": "null"}`` subschema: a field this kind of move must
        # not have (null is allowed, being the same as absent)
        field = str(path[-1]) if path else "this field"
        owner = _object_noun(shape[:-1], _resolve(doc, path[:-1]))
        return f'{owner} has no {field}; remove "{field}"'
    if value is None and shape == ("rounds", "*", "moves", "*", "tile"):
        return 'null is not a tile, and a play needs one; write it as "a-b", like "6-3"'
    if keyword == "required":
        missing = next((p for p in error.validator_value if p not in value), "?")
        phrase = _REQUIRED.get((shape, missing), f'{_article(missing)} "{missing}"')
        return f"{_object_noun(shape, value)} needs {phrase}"
    if keyword == "additionalProperties" and isinstance(value, dict):
        # a claimed result under a name the format does not know: never compared, so
        # refused, with the closest known name (as options are)
        allowed = list(error.schema.get("properties", {}))
        key = _unknown_keys(error)[0]
        close = difflib.get_close_matches(key, allowed, n=1)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        fields = ", ".join(allowed[:-1]) + " and " + allowed[-1]
        return f"{noun} has no field {_describe(key)}{hint}; {noun} has {fields}"
    if keyword == "not" and shape == ("rounds", "*"):
        return ('a round takes its deal from "seed" or from "deal", not both; '
                "remove one of them")
    if keyword in ("minItems", "maxItems") and isinstance(value, list):
        item = _ITEM_NOUNS.get(shape, "item")
        count = _count(len(value), item)
        limit = error.validator_value
        if keyword == "maxItems":
            return f"{count}; at most {limit} {'is' if limit == 1 else 'are'} allowed"
        return f"{count}; at least {limit} {'is' if limit == 1 else 'are'} needed"
    if keyword == "minLength" and isinstance(value, str) and not value:
        return f"an empty string is not {noun}; {advice}"
    if keyword == "maxLength" and isinstance(value, str):
        return (f"a string of {len(value)} characters is too long for {noun}; "
                f"at most {error.validator_value} are allowed")
    if keyword == "pattern" and shape in (("game_id",), ("frontend", "name")) \
            and isinstance(value, str):
        why = names.problem(value) or "is not a name"
        return (f"{names.quoted(value)} {why}; see \"Names\" in docs/format.md")
    if keyword == "enum":
        title = error.schema.get("title") if isinstance(error.schema, dict) else None
        choices = ", ".join(str(v) for v in error.validator_value if v is not None)
        enum_noun = f"{_article(title.lower())} {title.lower()}" if title else noun
        return f"{_describe(value)} is not {enum_noun}; expected one of {choices}"
    # type, pattern, minimum, maximum, anyOf, oneOf, const and anything unforeseen
    return f"{_describe(value)} is not {noun}; {advice}"


def _unknown_keys(error: ValidationError) -> list[str]:
    """The keys of an object refused by ``additionalProperties: false``, in its order."""
    allowed = error.schema.get("properties", {})
    return [str(k) for k in error.instance if k not in allowed]


def _resolve(doc: object, path: list[Any]) -> object:
    """The value at ``path`` in ``doc`` (the path comes from jsonschema, so it exists)."""
    value = doc
    for part in path:
        value = value[part]  # type: ignore[index]
    return value


def _object_noun(shape: tuple[str, ...], value: object) -> str:
    """What an object is called in "<noun> needs ...": a move by its action."""
    if shape == ():
        return "the document"
    if shape == ("rounds", "*", "moves", "*") and isinstance(value, dict):
        action = value.get("action")
        # the action may be any JSON value here, a list or an object among them
        if isinstance(action, str) and action in _ACTIONS:
            return f"a {action}"
    return _FIELDS.get(shape, ("this object", ""))[0]


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _count(n: int, item: str) -> str:
    if n == 0:
        return f"no {item}s"
    return f"1 {item}" if n == 1 else f"{n} {item}s"
