"""Continuation: a frontend that saves a game as it goes sends it again, longer.

A ``game_id`` names one game, so other content under a stored frontend + ``game_id`` is
refused (``game/conflict``), with one exception: the continuation of an unfinished game.
A log N **continues** the stored game S when

1. S is stored ``unfinished``, and N has S's frontend and ``game_id`` (their normal forms);
2. N has S's ``format``, ``ruleset``, ``players`` and ``seed``;
3. every round of S is in N, at the same place, with the same ``seed``, ``deal`` and
   ``opener``; S's moves of that round are the first moves of N's round, and every round
   of S but its last has exactly S's moves in N (a finished round cannot grow);
4. N holds something more: another round, or another move.

"The same" is in the normal form of the content hash (:mod:`recorder.identity`): layout,
key order, nulls and the orientation of tiles other than the opening one do not count,
thinking times do. Everything else may differ: the claimed results (the game's and each
round's; the engine's own figures stand), ``started_at``, the frontend's version and the
fields the format does not define. N has been judged valid (schema and rules) before it is
compared, so it is a game the engine accepts, finished or not.

A continuation replaces S in place: the same ``games.id`` (so links to S show the game as
it now stands), with N's log, answer, hash and facts, and S's contribution to the
statistics' counters taken out while N's goes in, in one transaction. The import's report
says ``superseded`` for it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import orjson
from sqlite_utils import Database

from recorder import identity, storage

__all__ = ["continues", "extends"]

_HEADER = ("format", "ruleset", "players", "seed")
_ROUND_HEADER = ("seed", "deal", "opener")


def _loads(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:  # an int beyond 64 bits: the stdlib reads it
        return json.loads(text)


def extends(stored: Any, new: Any) -> bool:
    """Whether the log ``new`` continues the log ``stored`` (points 2 to 4 above)."""
    old, now = identity.normalized(stored), identity.normalized(new)
    if type(old) is not dict or type(now) is not dict:
        return False
    if any(old.get(key) != now.get(key) for key in _HEADER):
        return False
    old_rounds, new_rounds = old.get("rounds"), now.get("rounds")
    if type(old_rounds) is not list or type(new_rounds) is not list:
        return False
    if len(new_rounds) < len(old_rounds):
        return False
    more = len(new_rounds) > len(old_rounds)
    for i, before in enumerate(old_rounds):
        after = new_rounds[i]
        if type(before) is not dict or type(after) is not dict:
            return False
        if any(before.get(key) != after.get(key) for key in _ROUND_HEADER):
            return False
        moves, longer = before.get("moves"), after.get("moves")
        if type(moves) is not list or type(longer) is not list:
            return False
        if longer[:len(moves)] != moves:
            return False
        if len(longer) > len(moves):
            if i < len(old_rounds) - 1:
                return False
            more = True
    return more


def continues(db: Database, other: Mapping[str, Any], record: storage.GameRecord) -> bool:
    """Whether the judged game ``record`` continues the stored game ``other`` (found under
    the same frontend and ``game_id``), so that it may replace it (point 1 and the rest)."""
    row = db.execute("SELECT status, log FROM games WHERE id = ?", [other["id"]]).fetchone()
    if row is None or row[0] != "unfinished":
        return False
    return extends(_loads(row[1]), _loads(str(record.game["log"])))
