"""Rehash: stored games brought to the current identity rules, once, after an upgrade.

A game's content hash and the names it is known by (``frontend``, ``game_id``) are taken
in the normal form of :mod:`recorder.identity` and :mod:`recorder.names`. When that normal
form changes (``identity.IDENTITY_VERSION``), the games stored before are recomputed from
their stored logs the next time a command or the app opens the file: by batches of
:data:`BATCH` games in id order, each batch one transaction, so that a run that is stopped
keeps what it did and the next run goes on from there (``games.identity`` holds each game's
version; null is version 1).

When every game is done, ``recorder_meta`` says so (key ``identity``), so that opening the
file again costs one look-up. For most games nothing changes but the version. The others:

* a new hash or new names are written in place (a frontend's name that changes also moves
  the game's contribution to the statistics' counters to the new name);
* two games that are one game under the new rules (written once with ``"ms": 764.0`` and
  once with ``764``, or under ``Spilop-App`` and ``spilop-app``) were stored and counted
  twice: the later one is removed with its rows and its contribution to the counters, and
  ``games_merged`` records that its id now means the earlier one's;

(The statistics' counters move with the games only when they follow the current
definitions, ``storage.COUNTERS_VERSION``: counters made by an older version are reported
stale by the pages until ``recorder stats rebuild``, which makes them whole again.)
* two different games under one frontend + ``game_id`` (now that ``G-1 `` and ``G-1`` are
  one id): both are kept, and the later one's ``game_id`` column is cleared, so it is
  known by its content alone (its log keeps its id as written).

Each of those is printed on standard error as it is done.
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Any, Final

import orjson
from sqlite_utils import Database

from recorder import identity, stats, storage

__all__ = ["BATCH", "pending", "run"]

log = logging.getLogger(__name__)

BATCH: Final = 500
"""Games per transaction: small enough that other writers wait little for the lock."""


def pending(db: Database) -> int:
    """How many stored games are not yet under the current identity rules."""
    return int(db.execute(
        "SELECT count(*) FROM games WHERE identity IS NULL OR identity < ?",
        [identity.IDENTITY_VERSION]).fetchone()[0])


def _say(line: str) -> None:
    print(f"domino-recorder: {line}", file=sys.stderr, flush=True)


STALE: Final = "stale:"
"""What a stored hash not yet recomputed starts with while the rehash runs: no new hash can
equal it, so a game's new hash is only ever compared with hashes that are final."""


def run(db: Database, *, batch: int | None = None) -> int:
    """Bring every stored game to the current identity rules; returns how many were
    looked at (0, at once, when none needs it).

    First every game still to do has its hash marked stale (one statement); then the
    games are done in id order, so a game's twin, if it has one, is an earlier game
    whose hash is final: the later of two twins is the one removed.
    """
    version = identity.IDENTITY_VERSION
    if storage.get_meta(db, "identity") == str(version):
        return 0  # done before: one look-up, not a scan of the games
    select = ("SELECT id FROM games WHERE id > ? AND (identity IS NULL OR identity < ?) "
              "ORDER BY id LIMIT ?")
    if db.execute(select, [0, version, 1]).fetchone() is None:
        with storage.write_transaction(db):
            storage.set_meta(db, "identity", str(version))
        return 0
    batch = batch or BATCH
    total = pending(db)
    _say(f"recomputing the identity of {total} stored games (once, after an upgrade)")
    with storage.write_transaction(db):
        db.execute("UPDATE games SET content_hash = ? || content_hash WHERE (identity IS NULL "
                   "OR identity < ?) AND substr(content_hash, 1, ?) != ?",
                   [STALE, version, len(STALE), STALE])
    done = 0
    last = 0
    while True:
        with storage.write_transaction(db):
            ids = [r[0] for r in db.execute(select, [last, version, batch]).fetchall()]
            if not ids:
                break
            # counters made by an older definition are to be rebuilt whole (the pages say
            # so): moving them would only move figures already wrong
            acc = stats.Accumulator() if storage.counters_version(db) == \
                storage.COUNTERS_VERSION else None
            for game_pk in ids:
                _one(db, game_pk, acc)
            if acc is not None:
                acc.flush(db)
        last = ids[-1]
        done += len(ids)
    with storage.write_transaction(db):
        if db.execute(select, [0, version, 1]).fetchone() is None:
            storage.set_meta(db, "identity", str(version))
    _say(f"the identity of {done} stored games is recomputed")
    return done


def _loads(text: str) -> Any:
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _one(db: Database, game_pk: int, acc: stats.Accumulator | None) -> None:
    """Bring one game to the current rules (inside the batch's transaction)."""
    row = db.execute("SELECT content_hash, frontend, log, identity FROM games WHERE id = ?",
                     [game_pk]).fetchone()
    if row is None or (row[3] or 1) >= identity.IDENTITY_VERSION:
        return  # done by another process meanwhile
    stale_hash, old_frontend, text, _ = row
    try:
        doc = _loads(text)
        new_hash = identity.content_hash(doc)
        frontend = identity.frontend_name(doc)
        game_id = storage._game_id_key(doc.get("game_id") if type(doc) is dict else None)
    except Exception:  # a stored log this version cannot read: keep it as it is
        log.exception("game #%s: its identity could not be recomputed", game_pk)
        _say(f"game #{game_pk}: its identity could not be recomputed; it keeps its hash")
        db.execute("UPDATE games SET content_hash = ?, identity = ? WHERE id = ?",
                   [str(stale_hash).removeprefix(STALE), identity.IDENTITY_VERSION, game_pk])
        return
    if frontend is None:
        frontend = old_frontend  # a frontend the log does not name: kept as stored
    twin = db.execute("SELECT id FROM games WHERE content_hash = ? AND id != ?",
                      [new_hash, game_pk]).fetchone()
    if twin is not None:  # an earlier game, already done: this one goes
        _merge(db, game_pk, int(twin[0]), acc)
        return
    if frontend is not None and game_id is not None:
        other = db.execute("SELECT id FROM games WHERE frontend = ? AND game_id = ? AND "
                           "id != ?", [frontend, game_id, game_pk]).fetchone()
        if other is not None:
            # the later of the two is known by its content alone (a later game not done
            # yet comes to the same answer when its turn comes)
            later = max(int(other[0]), game_pk)
            db.execute("UPDATE games SET game_id = NULL WHERE id = ?", [later])
            if later == game_pk:
                game_id = None
                _say(f"game #{game_pk} has the frontend and game_id of game #{other[0]}, "
                     "another game: it is now known by its content alone")
    moved = frontend != old_frontend and acc is not None
    if moved:  # its counters were kept under the old name: they move with it
        acc.remove(game_pk, stats.stored_contribution(db, game_pk))
    db.execute("UPDATE games SET content_hash = ?, frontend = ?, game_id = ?, identity = ? "
               "WHERE id = ?",
               [new_hash, frontend, game_id, identity.IDENTITY_VERSION, game_pk])
    if frontend != old_frontend:
        db.execute("UPDATE stats_missed SET frontend = ? WHERE game = ?",
                   [frontend or "", game_pk])
    if moved:
        acc.add(game_pk, stats.stored_contribution(db, game_pk), missed=False)


def _merge(db: Database, later: int, kept: int, acc: stats.Accumulator | None) -> None:
    """Remove the stored game ``later``, the same game as ``kept`` under the new rules."""
    if acc is not None:
        acc.remove(later, stats.stored_contribution(db, later))
    for table in ("moves", "rounds", "players", "stats_missed"):
        db.execute(f"DELETE FROM [{table}] WHERE game = ?", [later])
    db.execute("DELETE FROM games WHERE id = ?", [later])
    db.execute("INSERT OR REPLACE INTO games_merged (id, kept, merged_at, reason) "
               "VALUES (?, ?, ?, ?)", [later, kept, storage.utc_now(),
                                       "the same game as the kept one under identity rules "
                                       f"version {identity.IDENTITY_VERSION}"])
    _say(f"game #{later} is game #{kept} stored twice: #{later} is removed, #{kept} kept")
