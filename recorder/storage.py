"""Storage: one SQLite file, its migrations, and the rows an accepted game becomes.

Everything the service keeps lives in one embedded SQLite database opened through
sqlite-utils. The schema is a set of named migrations (``sqlite_utils.Migrations``)
that are safe to re-run, so any command can open any file and bring it up to date.

An accepted game becomes one ``games`` row (the log as received, compressed; the
engine's answer; the facts every list page filters on) plus ``players``, ``rounds`` and
``round_moves`` rows with the facts the statistics need, so no page ever re-parses a
log. A round's moves are one ``round_moves`` row (``recorder.packing``); the ``moves``
view gives them back a row per move, with the columns the ``moves`` table had. Column
names are meant to be read in Datasette: foreign keys are declared, JSON columns hold
JSON text, and booleans are 0/1.

Writers take the write lock up front (``BEGIN IMMEDIATE``): with several processes on
one WAL file, a deferred transaction that reads and then writes can fail at once with
``SQLITE_BUSY`` instead of waiting, which would turn a busy server into refused games.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import zlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from sqlite_utils import Database, Migrations

from recorder import identity, jsontext, names, packing, query
from recorder.errors import RulesetError
from recorder.rules import Ruleset

DB_ENVVAR = "RECORDER_DB"
"""The environment variable that names the database file for every command and the app."""

DB_FILENAME = "recorder.db"
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%SZ"
"""Every timestamp column: UTC, to the second, so that text order is time order."""
MAX_INTEGER = 2**63 - 1
"""The largest INTEGER SQLite stores: a game number or count beyond it names no row."""
BUSY_TIMEOUT_MS = 30_000
"""How long a writer waits for another process's transaction before giving up
(``RECORDER_BUSY_TIMEOUT_MS`` sets another wait)."""
BUSY_TIMEOUT_ENVVAR = "RECORDER_BUSY_TIMEOUT_MS"
MAX_BYTES_ENVVAR = "RECORDER_MAX_DB_BYTES"
"""A ceiling on the database file's size, so that uploads cannot fill the server's disk:
a write past it fails as a full disk would, cleanly (SQLite's ``max_page_count``)."""


def _as_is(value: Any) -> Any:
    """A parameter bound as it is (the adapter of :func:`_bind_as_is`)."""
    return value


def _bind_as_is(*types: type) -> None:
    """Bind values of ``types`` without the adapter protocol's failed look-ups.

    Python's ``sqlite3`` binds an exact ``int``, ``float``, ``str`` or ``bytearray``
    directly; any other value (``None`` and ``bytes`` too) first looks for a registered
    adapter and, finding none, for ``__adapt__`` and ``__conform__``, each failure an
    ``AttributeError`` formatted and dropped: about 3,300 instructions a value, and the
    import binds two or three such values a round (a round's packed facts, its null
    ``odd``, a null ``block_certain``). With an adapter registered that returns the value
    itself, the same value is bound (null, or the blob) for a dictionary hit and a call.
    Registered for exact types only (a subclass still takes the protocol), and none of
    ``sqlite3``'s own base types, so its fast path for those stays on.
    """
    for kind in types:
        sqlite3.register_adapter(kind, _as_is)


_bind_as_is(type(None), bytes)


def _env_int(name: str) -> int | None:
    """A positive whole number from the environment, or None when unset; a bad one is an
    error that names the variable (a typo must not silently lift a limit)."""
    raw = os.environ.get(name, "").strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if value < 1:
        raise ValueError(f"{name} must be a positive whole number, not {raw!r}")
    return value


def busy_timeout_ms() -> int:
    """How long this process waits for another writer, in milliseconds."""
    return _env_int(BUSY_TIMEOUT_ENVVAR) or BUSY_TIMEOUT_MS


def default_instance_path() -> Path:
    """The instance folder: ``instance/`` under the current directory.

    The CLI and ``webui.create_app`` both use it, so ``recorder import`` and
    ``recorder serve`` started from the same folder see the same database whether or
    not the package is installed (Flask's own default moves with the install).
    """
    return Path.cwd() / "instance"


def default_db_path() -> Path:
    """``instance/recorder.db`` under the current directory."""
    return default_instance_path() / DB_FILENAME


def resolve_db_path(path: str | os.PathLike[str] | None = None) -> Path:
    """The database a command works on: ``path``, else ``$RECORDER_DB``, else the default."""
    if path:
        return Path(path)
    env = os.environ.get(DB_ENVVAR)
    if env:
        return Path(env)
    return default_db_path()


def utc_now() -> str:
    """Now, as the ISO 8601 UTC text every timestamp column uses (sorts as text)."""
    return datetime.now(UTC).strftime(TIMESTAMP_FORMAT)


def normalize_timestamp(value: object) -> str | None:
    """An ISO 8601 date-time as UTC text ``YYYY-MM-DDTHH:MM:SSZ``, or None if it is not one.

    Logs may carry any offset; comparing them as text (the ``since``/``until`` filters)
    is only right once they are all in UTC and all to the second. A value without an
    offset is taken as UTC. A moment that falls outside the years 1 to 9999 once in UTC
    is not one either (``9999-12-31T23:59:59-01:00``): it cannot be written this way.
    """
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        utc = moment.astimezone(UTC)
    except OverflowError:  # 0001-01-01T00:00:00+01:00 is in year 0 once in UTC
        return None
    # isoformat, not strftime: the C library writes year 999 as "999", which sorts
    # after "2026" as text
    return utc.replace(tzinfo=None, microsecond=0).isoformat() + "Z"


# ---------------------------------------------------------------------------------------
# Migrations. Each step is idempotent (``if_not_exists``) so that two processes starting
# on a new file at once cannot fail on each other's tables; ``migrate`` also serializes
# them behind the write lock.

migrations = Migrations("recorder")


def _object_type(db: Database, name: str) -> str | None:
    """``table``, ``view`` or ``index`` for what bears this name, None when nothing does."""
    row = db.execute("SELECT type FROM sqlite_master WHERE name = ?", [name]).fetchone()
    return None if row is None else str(row[0])


@migrations()
def m001_tokens(db: Database) -> None:
    """Upload tokens: only a SHA-256 of each token is kept, never the token."""
    db.table("tokens").create(
        {
            "id": int,
            "name": str,
            "prefix": str,
            "token_sha256": str,
            "created_at": str,
            "revoked_at": str,
        },
        pk="id",
        not_null={"name", "prefix", "token_sha256", "created_at"},
        if_not_exists=True,
    )
    db.table("tokens").create_index(["token_sha256"], unique=True, if_not_exists=True)
    db.table("tokens").create_index(["name"], if_not_exists=True)


@migrations()
def m002_games(db: Database) -> None:
    """One row per stored game: identity, the facts list pages filter on, log and answer."""
    db.table("games").create(
        {
            "id": int,
            "content_hash": str,
            "frontend": str,
            "frontend_version": str,
            "game_id": str,
            "format": str,
            "preset": str,
            "ruleset": str,
            "players": str,
            "player_count": int,
            "seed": str,
            "status": str,
            "winners": str,
            "scores": str,
            "rounds_count": int,
            "blocked_rounds": int,
            "moves_count": int,
            "mismatches": str,
            "started_at": str,
            "imported_at": str,
            "source": str,
            "uploaded_by": int,
            "log": str,
            "answer": str,
        },
        pk="id",
        not_null={"content_hash", "status", "imported_at", "log", "answer"},
        foreign_keys=[("uploaded_by", "tokens", "id")],
        if_not_exists=True,
    )
    games = db.table("games")
    games.create_index(["content_hash"], unique=True, if_not_exists=True)
    # A game is known by frontend + game_id only when it has both: a partial index, so
    # games without them never collide with each other.
    db.execute(
        "CREATE UNIQUE INDEX IF NOT EXISTS idx_games_frontend_game_id "
        "ON games (frontend, game_id) WHERE frontend IS NOT NULL AND game_id IS NOT NULL"
    )
    for column in ("preset", "status", "started_at", "imported_at", "uploaded_by"):
        games.create_index([column], if_not_exists=True)


@migrations()
def m003_facts(db: Database) -> None:
    """Per player, per round and per move facts, so statistics never replay a log."""
    db.table("players").create(
        {
            "game": int,
            "seat": int,
            "player_id": str,
            "name": str,
            "final_score": float,
            "won": int,
            "rounds_won": int,
            "dominoes": int,
            "bonus_total": float,
            "plays": int,
            "draws": int,
            "passes": int,
        },
        pk=("game", "seat"),
        foreign_keys=[("game", "games", "id")],
        not_null={"player_id"},
        if_not_exists=True,
    )
    db.table("players").create_index(["player_id"], if_not_exists=True)
    db.table("rounds").create(
        {
            "game": int,
            "round": int,
            "opener": int,
            "opening_tile": str,
            "winners": str,
            "points": str,
            "bonus": str,
            "blocked": int,
            "pips_left": str,
            "ended_by": int,
            "moves_count": int,
            "draws": int,
            "passes": int,
            "boneyard_left": int,
        },
        pk=("game", "round"),
        foreign_keys=[("game", "games", "id")],
        if_not_exists=True,
    )
    if _object_type(db, "moves") == "view":
        return  # since m012_round_moves, a view of round_moves (this step run again)
    db.table("moves").create(
        {
            "game": int,
            "round": int,
            "move": int,
            "player": int,
            "action": str,
            "tile": str,
            "side": str,
            "ms": float,
            "legal_count": int,
            "score": float,
            "best_score": float,
            "forced": int,
        },
        pk=("game", "round", "move"),
        foreign_keys=[("game", "games", "id")],
        if_not_exists=True,
    )


@migrations()
def m004_game_list(db: Database) -> None:
    """What the games list sorts and pages on: the game's date and its winner's score.

    ``played_at`` is the date the list shows and filters on (``started_at``, or the import
    time for a log without one); ``winner_score`` the score of the game's winners (of the
    leader, for an unfinished game). Each sort column gets an index on (column, id), so a
    page of the list is a range scan from the last row of the page before (keyset), as
    fast at the end of a large store as at its start.
    """
    games = db.table("games")
    if "played_at" not in games.columns_dict:
        games.add_column("played_at", str)
    if "winner_score" not in games.columns_dict:
        games.add_column("winner_score", float)
    rows = db.execute(
        "SELECT id, started_at, imported_at, ruleset, scores, winners FROM games "
        "WHERE played_at IS NULL OR winner_score IS NULL"
    ).fetchall()
    for pk, started, imported, ruleset, scores, winners in rows:
        db.execute(
            "UPDATE games SET played_at = ?, winner_score = ? WHERE id = ?",
            [started or imported,
             winner_score(_loads(ruleset), _loads(scores) or [], _loads(winners) or []), pk],
        )
    for columns in (["played_at", "id"], ["rounds_count", "id"], ["moves_count", "id"],
                    ["winner_score", "id"], ["player_count"], ["frontend"]):
        games.create_index(columns, if_not_exists=True)
    db.table("players").create_index(["name"], if_not_exists=True)


def _loads(text: str | None) -> Any:
    try:
        return None if text is None else json.loads(text)
    except ValueError:
        return None


def winner_score(ruleset: Any, scores: Sequence[Any], winners: Sequence[int]) -> float:
    """The winners' score; for a game without winners yet, the leader's (0 with no scores).

    The leader has the highest score, or the lowest where reaching the target loses
    (kozel): the same choice the match makes when it names the winners.
    """
    numbers = [float(x) for x in scores if isinstance(x, int | float)]
    if not numbers:
        return 0.0
    if winners and 0 <= winners[0] < len(numbers):
        return numbers[winners[0]]
    try:
        reach_loses = Ruleset.from_spec(ruleset).target_mode == "reach-loses"
    except RulesetError:  # a ruleset this version no longer reads: the highest score
        reach_loses = False
    return min(numbers) if reach_loses else max(numbers)


@migrations()
def m005_token_scopes(db: Database) -> None:
    """What each token may do: ``upload``, ``read`` or both (tokens made before: both)."""
    if "scopes" not in db["tokens"].columns_dict:
        db.execute("ALTER TABLE tokens ADD COLUMN scopes TEXT NOT NULL DEFAULT 'read upload'")


@migrations()
def m006_stats_facts(db: Database) -> None:
    """Per-move facts the player metrics need, the block's moment, a player's own bonus.

    Added to existing tables as nullable columns: rows stored before them keep nulls
    until ``recorder stats rebuild`` re-derives every game's facts from its log.
    """
    added = {
        "moves": {"pips": int, "best_pips": int, "least_pips": int, "double": int,
                  "double_choice": int, "next_stuck": int},
        "rounds": {"block_certain": int},
        "players": {"bonus_points": float, "bonus_plays": int},
        "games": {"variant": str},
    }
    for table, columns in added.items():
        if _object_type(db, table) != "table":
            continue  # moves, a view since m012_round_moves (this step run again)
        have = {c.name for c in db.table(table).columns}
        for name, kind in columns.items():
            if name not in have:
                db.table(table).add_column(name, kind)
    db.table("players").create_index(["player_id", "game"], if_not_exists=True)


AGG_KEY = ("grain", "period", "variant", "frontend", "players")
"""Every aggregate row's key has these: the grain (``all``, ``month``, ``day``), the
period at that grain (``""``, ``2026-11``, ``2026-11-30``), and the filter dimensions."""

MOVE_CAP = 40
"""Plays are counted by their move number in the round up to this; later ones share it."""
PLAYS_AT = tuple(f"plays_at_{i}" for i in range(1, MOVE_CAP + 1))
BONUS_AT = tuple(f"bonus_at_{i}" for i in range(1, MOVE_CAP + 1))

METRIC_COUNTERS = (
    "games", "finished", "wins", "rounds", "rounds_won", "dominoes", "blocked_rounds",
    "points_sum", "points_sq", "moves", "plays", "draws", "passes",
    "heavy_n", "heavy_k", "double_n", "double_k", "chance_n", "chance_k",
    "left_sum", "left_sq", "block_n", "block_k", "losing_n", "losing_sum", "losing_sq",
    "ms_n", "ms_sum", "ms_sq", "bonus_plays", "bonus_points", "missed_n", "missed_points",
)
GAME_COUNTERS = (
    "target_rounds", "round_moves_sum", "round_moves_sq", "game_rounds_sum",
    "game_rounds_sq", "game_moves_sum", "game_moves_sq",
)
"""How the rounds and games of a player's games went (for the variants' figures under a
player filter): rounds ended on the target, moves per round, rounds and moves per
finished game."""
PLAYER_COUNTERS = (*METRIC_COUNTERS, *PLAYS_AT, *BONUS_AT, *GAME_COUNTERS)
"""The additive counters of ``stats_players`` (one row per player and key). Plays and
bonus plays by move number are columns, not rows: a histogram row per player, move and
period would make a year's figures hundreds of thousands of rows."""

ROUND_COUNTERS = ("games", "rounds", "blocked", "domino_rounds", "target_rounds",
                  "moves_sum", "moves_sq", "finished", "game_rounds_sum", "game_rounds_sq",
                  "game_moves_sum", "game_moves_sq")
"""``stats_rounds``: every game and round once; how rounds ended, moves per round, and
rounds and moves per finished game (sums and sums of squares)."""
SEAT_KEY = (*AGG_KEY, "kind", "position")
"""``stats_seats`` key: ``kind`` ``seat`` (position: the seat) or ``turn`` (position: turns
after the first player, 0 being the player who played first). Over every player: rows of
each player's own seats would multiply the rows (and the import's writes) by the number
of players, for a figure read by variant."""
SEAT_COUNTERS = ("finished", "wins", "rounds", "rounds_won", "points_sum", "points_sq")
HIST_KEY = ("kind", "grain", "period", "player", "variant", "frontend", "players", "bucket")
"""``stats_hist`` key, kind first: each distribution is read on its own, over a range of
periods; round-level kinds are read for one scope (``""``: every round once, or one
player's rounds)."""
HIST_COUNTERS = ("n",)
STATS_TABLES = ("stats_players", "stats_rounds", "stats_hist", "stats_missed",
                "stats_people", "stats_seats", "stats_meta")
COUNTERS_VERSION = "2"
"""The counters' definitions as this version counts them; ``stats_meta`` holds the one
the stored counters were made with (``rebuilding`` while a rebuild runs)."""


def _counter_table(db: Database, name: str, keys: Sequence[str],
                   counters: Sequence[str]) -> None:
    """A table of counters clustered by its key (``WITHOUT ROWID``): a range of periods is
    then one contiguous read, not a lookup per row."""
    columns = [f"[{k}] INTEGER NOT NULL" if k in ("players", "position")
               else f"[{k}] TEXT NOT NULL" for k in keys]
    columns += [f"[{c}] FLOAT NOT NULL DEFAULT 0" for c in counters]
    db.execute(
        f"CREATE TABLE IF NOT EXISTS [{name}] ({', '.join(columns)}, "
        f"PRIMARY KEY ({', '.join(f'[{k}]' for k in keys)})) WITHOUT ROWID"
    )


def create_stats_tables(db: Database) -> None:
    """The statistics' tables (a rebuild drops and makes them again, shape included)."""
    _counter_table(db, "stats_players", (*AGG_KEY, "player"), PLAYER_COUNTERS)
    _counter_table(db, "stats_rounds", AGG_KEY, ROUND_COUNTERS)
    _counter_table(db, "stats_hist", HIST_KEY, HIST_COUNTERS)
    _counter_table(db, "stats_seats", SEAT_KEY, SEAT_COUNTERS)
    db.table("stats_missed").create(
        {"id": int, "game": int, "round": int, "move": int, "player": str, "variant": str,
         "frontend": str, "players": int, "day": str, "scored": float, "best": float},
        pk="id", foreign_keys=[("game", "games", "id")], if_not_exists=True,
    )
    db.table("stats_missed").create_index(["day"], if_not_exists=True)
    db.table("stats_missed").create_index(["player", "id"], if_not_exists=True)
    db.table("stats_missed").create_index(["game"], if_not_exists=True)
    db.table("stats_people").create(
        {"player": str, "name": str, "games": int}, pk="player", if_not_exists=True,
    )
    db.table("stats_meta").create({"key": str, "value": str}, pk="key", if_not_exists=True)


def set_counters_version(db: Database, version: str = COUNTERS_VERSION) -> None:
    """Record which definitions the stored counters follow (inside the caller's work)."""
    db.execute("INSERT INTO stats_meta (key, value) VALUES ('counters', ?) "
               "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [version])


def counters_version(db: Database) -> str:
    """The definitions the stored counters follow: ``"1"`` for counters made before the
    version was recorded, ``rebuilding`` while a rebuild runs."""
    try:
        row = db.execute("SELECT value FROM stats_meta WHERE key = 'counters'").fetchone()
    except sqlite3.OperationalError:  # a file not migrated yet
        return "1"
    return "1" if row is None else str(row[0])


@migrations()
def m007_stats_aggregates(db: Database) -> None:
    """Additive counters for the statistics, kept at import, so no page scans ``moves``."""
    create_stats_tables(db)


CLUSTERED_TABLES = ("moves", "rounds", "players")
"""The per-game fact tables as ``m008_clustered_facts`` found them, then stored ``WITHOUT
ROWID``: clustered on their primary key (game, ...), a row is stored once instead of in
the table and again in the key's index, and a game's rows are one contiguous read."""
FACT_TABLES = ("round_moves", "rounds", "players")
"""The per-game fact tables now, every one ``WITHOUT ROWID`` (``moves`` is a view of
``round_moves`` since ``m012_round_moves``)."""


@migrations()
def m008_clustered_facts(db: Database) -> None:
    """The fact tables clustered on their primary key (``WITHOUT ROWID``), every row kept.

    Each table is made again under its own definition plus ``WITHOUT ROWID`` and its rows
    copied in key order; its other indexes are made again after. The columns, keys and
    foreign keys are unchanged, so Datasette and the API show the same rows. On a new
    database the tables are empty and this costs nothing.
    """
    for table in CLUSTERED_TABLES:
        found = db.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
                           [table]).fetchone()
        if found is None or "WITHOUT ROWID" in found[0].upper():
            continue  # clustered already, or no longer a table (``moves``, since m012)
        sql = found[0]
        indexes = [row[0] for row in db.execute(
            "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? "
            "AND sql IS NOT NULL", [table])]
        pks = [c.name for c in db.table(table).columns if c.is_pk]
        body = sql.partition("(")[2]
        db.execute(f'CREATE TABLE "{table}_clustered" ({body} WITHOUT ROWID')
        columns = ", ".join(f'"{c.name}"' for c in db.table(table).columns)
        db.execute(f'INSERT INTO "{table}_clustered" ({columns}) SELECT {columns} '
                   f'FROM "{table}" ORDER BY ' + ", ".join(f'"{k}"' for k in pks))
        db.execute(f'DROP TABLE "{table}"')
        db.execute(f'ALTER TABLE "{table}_clustered" RENAME TO "{table}"')
        for index in indexes:
            db.execute(index)


@migrations()
def m009_round_endings(db: Database) -> None:
    """How each round ended, and the counters of the variants' figures.

    ``rounds.ending`` is filled for the rounds already stored from their facts: blocked,
    else a target reached (the player who ended the round still held pips), else a
    domino; exact except for a target reached by a player holding only the double blank,
    which ``recorder stats rebuild`` (from the logs) tells apart. The new counters start
    at zero: counters stored before them are marked as made by version 1, which the
    pages report until ``recorder stats rebuild`` makes them again.
    """
    if "ending" not in db.table("rounds").columns_dict:
        db.execute("ALTER TABLE rounds ADD COLUMN ending TEXT")
    db.table("games").create_index(["variant"], if_not_exists=True)
    db.execute(
        "UPDATE rounds SET ending = CASE WHEN blocked THEN 'blocked' "
        "WHEN coalesce(json_extract(pips_left, '$[' || ended_by || ']'), 0) > 0 "
        "THEN 'target' ELSE 'domino' END WHERE ending IS NULL")
    had = db.execute("SELECT count(*) FROM stats_rounds").fetchone()[0] > 0
    for table, counters in (("stats_rounds", ROUND_COUNTERS),
                            ("stats_players", PLAYER_COUNTERS)):
        have = set(db.table(table).columns_dict)
        for name in counters:
            if name not in have:
                db.execute(f"ALTER TABLE [{table}] ADD COLUMN [{name}] FLOAT NOT NULL "
                           "DEFAULT 0")
    create_stats_tables(db)
    set_counters_version(db, "1" if had else COUNTERS_VERSION)


@migrations()
def m010_token_frontend(db: Database) -> None:
    """Each token that may upload is bound to one frontend (``tokens.frontend``).

    A token made before is bound to the one frontend its uploaded games name, when they
    all name the same one (so a frontend that uploads with it keeps working), else to the
    frontend its own name names (the convention: a token is named after its frontend).
    A read-only token is bound to none, and so is one whose name cannot be a frontend's
    name (it can then upload nothing: make a new one with ``--frontend``).
    """
    if "frontend" not in db["tokens"].columns_dict:
        db.execute("ALTER TABLE tokens ADD COLUMN frontend TEXT")
    rows = db.execute("SELECT id, name, scopes FROM tokens WHERE frontend IS NULL").fetchall()
    for token_id, name, scopes in rows:
        if "upload" not in str(scopes).split():
            continue
        sent = {names.frontend_key(f) for (f,) in db.execute(
            "SELECT DISTINCT frontend FROM games WHERE uploaded_by = ? AND frontend IS NOT "
            "NULL", [token_id]) if isinstance(f, str) and names.acceptable(f)}
        if len(sent) == 1:
            bound: str | None = sent.pop()
        elif isinstance(name, str) and names.acceptable(name):
            bound = names.frontend_key(name)
        else:
            bound = None
        db.execute("UPDATE tokens SET frontend = ? WHERE id = ?", [bound, token_id])


@migrations()
def m011_identity_v2(db: Database) -> None:
    """The version of each stored game's identity (``games.identity``), and the record of
    games found to be the same game twice (``games_merged``).

    Games stored before have no version: ``recorder.rehash`` recomputes their hashes and
    names in the normal form of this version, by batches, each committed (an interrupted
    run goes on where it stopped), when a command or the app next opens the file.
    """
    if "identity" not in db["games"].columns_dict:
        db.execute("ALTER TABLE games ADD COLUMN identity INTEGER")
    db.table("games_merged").create(
        {"id": int, "kept": int, "merged_at": str, "reason": str},
        pk="id", not_null={"kept", "merged_at"}, if_not_exists=True,
    )
    db.execute("CREATE TABLE IF NOT EXISTS recorder_meta (key TEXT PRIMARY KEY, value TEXT)")
    if db.execute("SELECT 1 FROM games LIMIT 1").fetchone() is None:
        set_meta(db, "identity", str(identity.IDENTITY_VERSION))  # nothing to recompute


def get_meta(db: Database, key: str) -> str | None:
    """A value of ``recorder_meta`` (what the whole file follows, such as the version of
    the identity rules every stored game is under), or None."""
    try:
        row = db.execute("SELECT value FROM recorder_meta WHERE key = ?", [key]).fetchone()
    except sqlite3.OperationalError:  # a file not migrated yet
        return None
    return None if row is None else str(row[0])


def set_meta(db: Database, key: str, value: str) -> None:
    """Record a value of ``recorder_meta`` (inside the caller's work)."""
    db.execute("CREATE TABLE IF NOT EXISTS recorder_meta (key TEXT PRIMARY KEY, value TEXT)")
    db.execute("INSERT INTO recorder_meta (key, value) VALUES (?, ?) "
               "ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value])


def _moves_view_sql() -> str:
    """The ``moves`` view: each ``round_moves`` row unpacked into a row per move.

    Written with SQLite's own functions only (``json_each``, ``unicode``, ``substr``), so
    Datasette and the ``sqlite3`` shell read it as the recorder does. The columns, their
    order and their types are those of the ``moves`` table it replaces (``MOVE_COLUMNS``
    after ``game``): ``ms``, ``score`` and ``best_score`` are floats, as the table's
    REAL columns made them. The byte layout is ``recorder.packing``'s.
    """
    width = packing.WIDTH

    def byte(k: int) -> str:
        return f"unicode(substr(m.facts, j.key * {width} + {k + 1}, 1))"

    def either(packed: str, odd: int) -> str:
        return (f"CASE WHEN m.odd IS NULL THEN {packed} "
                f"ELSE json_extract(m.odd, '$[' || j.key || '][{odd}]') END")

    def named(k: int, names: Sequence[str]) -> str:
        cases = " ".join(f"WHEN {i + 2} THEN '{name}'" for i, name in enumerate(names))
        return f"CASE {byte(k)} {cases} END"

    def number(k: int) -> str:
        return f"nullif({byte(k)}, {packing.NULL}) - 2"

    at = {name: i for i, name in enumerate(packing.FIELDS)}
    odd = {name: i for i, name in enumerate(packing.ODD_COLUMNS)}
    tile = (f"CASE WHEN {byte(at['tile_a'])} > {packing.NULL} THEN "
            f"({byte(at['tile_a'])} - 2) || '-' || ({byte(at['tile_b'])} - 2) END")
    columns = {
        "game": "m.game",
        "round": "m.round",
        "move": either("j.key + 1", odd["move"]),
        "player": either(number(at["player"]), odd["player"]),
        "action": either(named(at["action"], packing.ACTIONS), odd["action"]),
        "tile": either(tile, odd["tile"]),
        "side": either(named(at["side"], packing.SIDES), odd["side"]),
        "ms": "CAST(j.value AS REAL)",
    }
    for name in MOVE_COLUMNS:
        if name in columns:
            continue
        value = either(number(at[name]), odd[name])
        columns[name] = f"CAST({value} AS REAL)" if name in packing.REAL_COLUMNS else value
    assert list(columns) == ["game", *MOVE_COLUMNS]
    select = ",\n  ".join(f"{sql} AS [{name}]" for name, sql in columns.items())
    return f"CREATE VIEW moves AS SELECT\n  {select}\nFROM round_moves AS m, json_each(m.ms) AS j"


_OLD_MOVES = ("round", "move", "player", "action", "tile", "side", "ms", "legal_count",
              "score", "best_score", "forced", "pips", "best_pips", "least_pips", "double",
              "double_choice", "next_stuck")
"""The columns of the ``moves`` table before ``m012_round_moves``, in its order."""
CONVERT_GAMES = 200
"""Games a resumable migration converts per transaction."""


def _create_round_moves(db: Database) -> None:
    db.execute(
        "CREATE TABLE IF NOT EXISTS round_moves ("
        "[game] INTEGER NOT NULL REFERENCES [games]([id]), [round] INTEGER NOT NULL, "
        "[ms] TEXT NOT NULL, [facts] BLOB, [odd] TEXT, "
        "PRIMARY KEY ([game], [round])) WITHOUT ROWID")


def _convert_moves(db: Database, games: int | None) -> int:
    """Pack the old ``moves`` rows of the next ``games`` games (all with None) into
    ``round_moves``, deleting them from ``moves``; returns the number of games done.

    In the caller's transaction: the rows of a game leave the table in the same
    transaction that writes them packed, so a stop at any point loses and doubles none.
    """
    first = db.execute("SELECT game FROM moves ORDER BY game LIMIT 1").fetchone()
    if first is None:
        return 0
    if games is None:
        last = db.execute("SELECT max(game) FROM moves").fetchone()[0]
    else:
        last = db.execute("SELECT max(game) FROM (SELECT DISTINCT game FROM moves "
                          "WHERE game >= ? ORDER BY game LIMIT ?)", [first[0], games]
                          ).fetchone()[0]
    columns = ", ".join(f"[{c}]" for c in _OLD_MOVES)
    cursor = db.execute(f"SELECT game, {columns} FROM moves WHERE game BETWEEN ? AND ? "
                        "ORDER BY game, round, move", [first[0], last])
    packed: list[tuple[Any, ...]] = []
    done: set[int] = set()
    key: tuple[int, int] | None = None
    rows: list[tuple[Any, ...]] = []
    for row in cursor:
        if (row[0], row[1]) != key:
            if key is not None:
                packed.append((*key, *packing.pack_rows(rows)))
            key, rows = (row[0], row[1]), []
            done.add(row[0])
        rows.append(row[1:])
    if key is not None:
        packed.append((*key, *packing.pack_rows(rows)))
    db.conn.executemany(_ROUND_MOVES_SQL, packed)
    db.execute("DELETE FROM moves WHERE game BETWEEN ? AND ?", [first[0], last])
    return len(done)


def _convert_moves_in_batches(db: Database) -> None:
    """The resumable part of ``m012_round_moves``: batches of games, each committed."""
    if _object_type(db, "moves") != "table":
        return
    with write_transaction(db):
        _create_round_moves(db)
    total = db.execute("SELECT count(DISTINCT game) FROM moves").fetchone()[0]
    with _progress(total, "packing moves") as bar:
        while True:
            with write_transaction(db):
                done = _convert_moves(db, CONVERT_GAMES)
            if not done:
                return
            bar.update(done)


@migrations()
def m012_round_moves(db: Database) -> None:
    """A round's moves in one row of ``round_moves``, and ``moves`` a view of them.

    The facts of every move of a round are packed into one row (``recorder.packing``),
    so storing a game writes one row a round where it wrote one a move, and the moves
    take less than half the space. The ``moves`` view gives back exactly the rows,
    columns and types of the table it replaces. An existing database is converted in
    place: :func:`apply_migrations` runs the conversion first in batches of games, each
    committed (a stopped conversion goes on where it stopped); what is left, here, is
    dropping the empty table and making the view.
    """
    _create_round_moves(db)
    if _object_type(db, "moves") == "table":
        while _convert_moves(db, None):
            pass
        db.execute("DROP TABLE moves")
    if _object_type(db, "moves") is None:
        db.execute(_moves_view_sql())


LOG_LEVEL = 2
"""zlib's level for stored logs: 6.8 times smaller than the text on the benchmark's logs
(level 3: 7.2 times, for about a fifth more CPU, though only 6% more instructions: its
longer match chains miss the cache; level 1: 6.2 times, for the CPU of level 2; level 6:
8 times, at 2.5 times the time). Any level decompresses to the very bytes received."""


def compress_log(text: bytes) -> bytes:
    """A log as ``games.log`` keeps it: its UTF-8 bytes compressed with zlib (RFC 1950)."""
    return zlib.compress(text, LOG_LEVEL)


def log_text(stored: str | bytes) -> str:
    """The log as received from ``games.log`` (compressed, or text from before
    ``m013_compressed_logs``)."""
    if isinstance(stored, bytes):
        return zlib.decompress(stored).decode("utf-8")
    return stored


def _compress_logs(db: Database, games: int | None, after: int = 0) -> tuple[int, int]:
    """Compress the logs still stored as text of the next ``games`` games (all with None)
    past id ``after``, in the caller's transaction; returns how many, and the last id."""
    sql = "SELECT id, log FROM games WHERE id > ? AND typeof(log) = 'text' ORDER BY id"
    rows = db.execute(sql + ("" if games is None else " LIMIT ?"),
                      [after] if games is None else [after, games]).fetchall()
    db.conn.executemany("UPDATE games SET log = ? WHERE id = ?",
                        [(compress_log(text.encode("utf-8")), pk) for pk, text in rows])
    return len(rows), (int(rows[-1][0]) if rows else after)


def _compress_logs_in_batches(db: Database) -> None:
    """The resumable part of ``m013_compressed_logs``: batches of games, each committed."""
    total = db.execute("SELECT count(*) FROM games WHERE typeof(log) = 'text'").fetchone()[0]
    if not total:
        return
    last = 0
    with _progress(total, "compressing logs") as bar:
        while True:
            with write_transaction(db):
                done, last = _compress_logs(db, CONVERT_GAMES, last)
            if not done:
                return
            bar.update(done)


@migrations()
def m013_compressed_logs(db: Database) -> None:
    """Each game's log kept compressed (zlib), byte for byte what was received.

    The logs were most of the file; compressed they take about a seventh. Readers get
    the text from :func:`get_game` and :func:`log_text` (``GET /api/games/<id>/log``
    serves the received bytes). An existing database is converted in place, in batches
    of games, each committed, before this step runs (:func:`apply_migrations`).
    """
    _compress_logs(db, None)


BATCHED_STEPS = {
    "m012_round_moves": _convert_moves_in_batches,
    "m013_compressed_logs": _compress_logs_in_batches,
}
"""Migrations whose bulk runs first in committed batches: a database of millions of
rounds converts in minutes, and a conversion that is stopped goes on from where it
stopped, with no row lost or doubled. The step itself then finds nothing left and
records itself."""


@contextmanager
def _progress(total: int, what: str) -> Iterator[Any]:
    """A progress bar on stderr for a conversion (tqdm; shown on a terminal only)."""
    from tqdm import tqdm

    with tqdm(total=total, desc=what, unit=" games", file=sys.stderr, mininterval=0.5,
              disable=None, leave=False) as bar:
        yield bar


@migrations()
def m020_round_reviews(db: Database) -> None:
    """Stored game reviews, one row per round reviewed (``recorder.reviews``).

    ``settings`` names how the round was reviewed (the view, the samples and their seed,
    the limits: :func:`recorder.reviews.settings_key`), ``version`` the review's
    definitions (``recorder.review.VERSION``); ``body`` is the round's review object as
    compact JSON, zlib-compressed, and ``rounds`` how many rounds the game's review has,
    so that a game whose every round is stored is known without reading its log.
    ``review_seats`` holds each seat's sums of each reviewed round (decisions, points
    lost and their squares, best moves, marked ones, and the range between the best and
    the worst choice's value), which the accuracy statistics add up.
    """
    db.execute(
        "CREATE TABLE IF NOT EXISTS round_reviews ("
        "game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE, "
        "settings TEXT NOT NULL, "
        "round INTEGER NOT NULL, "
        "version INTEGER NOT NULL, "
        "rounds INTEGER NOT NULL, "
        "decisions INTEGER NOT NULL, "
        "reviewed_at TEXT NOT NULL, "
        "body BLOB NOT NULL, "
        "PRIMARY KEY (game, settings, round)) WITHOUT ROWID")
    # each seat's figures of each reviewed round, for the accuracy statistics (a page
    # reads these sums, never a review's body)
    db.execute(
        "CREATE TABLE IF NOT EXISTS review_seats ("
        "game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE, "
        "settings TEXT NOT NULL, "
        "round INTEGER NOT NULL, "
        "seat INTEGER NOT NULL, "
        "version INTEGER NOT NULL, "
        "decisions INTEGER NOT NULL, "
        "loss_sum FLOAT NOT NULL, "
        "loss_sq FLOAT NOT NULL, "
        "best INTEGER NOT NULL, "
        "marked INTEGER NOT NULL, "
        "range_sum FLOAT NOT NULL, "
        "PRIMARY KEY (game, settings, round, seat)) WITHOUT ROWID")


# ---------------------------------------------------------------------------------------
# Connections and transactions.


def connect(path: str | os.PathLike[str] | None = None, *, migrate: bool = True) -> Database:
    """Open (creating if needed) the database file and bring its schema up to date.

    Every connection waits for a busy writer rather than failing, checks foreign keys,
    and uses ``synchronous=NORMAL``: with WAL that loses no committed transaction when a
    process is killed, only possibly the last ones on a power cut, and it is much faster.
    """
    wait_ms = busy_timeout_ms()
    max_bytes = _env_int(MAX_BYTES_ENVVAR)
    db_path = resolve_db_path(path)
    db_path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(db_path), timeout=wait_ms / 1000)
    db = Database(conn)
    db.execute(f"PRAGMA busy_timeout = {wait_ms}")
    db.execute("PRAGMA foreign_keys = ON")
    db.execute("PRAGMA synchronous = NORMAL")
    if max_bytes is not None:
        page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
        db.execute(f"PRAGMA max_page_count = {max(1, max_bytes // page_size)}")
    if migrate:
        apply_migrations(db)
        from recorder import rehash  # the rehash needs the statistics, which need this

        rehash.run(db)
    return db


def apply_migrations(db: Database) -> list[str]:
    """Switch the file to WAL and apply pending migrations; returns the names applied.

    Each step runs inside a ``BEGIN IMMEDIATE`` transaction, so that two processes
    opening a new file at the same moment apply them one after the other. A step of
    :data:`BATCHED_STEPS` first converts the rows it concerns in batches, each its own
    transaction, with a progress bar: a stopped conversion loses nothing and the next
    command to open the file carries it on.
    """
    if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        db.enable_wal()
    applied: list[str] = []
    while True:
        pending = migrations.pending(db)
        if not pending:
            return applied
        step = pending[0]
        batched = BATCHED_STEPS.get(step.name)
        if batched is not None:
            batched(db)
        with write_transaction(db):
            pending = migrations.pending(db)
            if pending and pending[0].name == step.name:  # else another process did it
                migrations.apply(db, stop_before=[m.name for m in pending[1:]])
                applied.append(step.name)


@contextmanager
def write_transaction(db: Database) -> Iterator[Database]:
    """A transaction that holds the write lock from its start, committed on success."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.rollback()
        raise
    else:
        db.commit()


@contextmanager
def savepoint(db: Database, name: str = "game") -> Iterator[Database]:
    """A nested step of a transaction: on error only its own changes are undone."""
    db.conn.execute(f"SAVEPOINT {name}")
    try:
        yield db
    except BaseException:
        if db.conn.in_transaction:
            db.conn.execute(f"ROLLBACK TO SAVEPOINT {name}")
            db.conn.execute(f"RELEASE SAVEPOINT {name}")
        raise
    else:
        db.conn.execute(f"RELEASE SAVEPOINT {name}")


def explain_failure(exc: sqlite3.Error) -> str:
    """A database failure in words an operator can act on.

    Transactions hold whole batches of whole games, so after any of these the file
    holds every game committed before and nothing of the batch in flight: running the
    same import or upload again stores exactly the missing games (the others are
    duplicates).
    """
    text = str(exc)
    low = text.lower()
    if "full" in low:
        why = "the disk, or the database's size limit, is full; make room"
    elif "readonly" in low or "read-only" in low:
        why = "the database file (or its folder) is read-only; give the recorder write access"
    elif "locked" in low or "busy" in low:
        why = (f"another process held the database's write lock for more than "
               f"{busy_timeout_ms() / 1000:g} s; wait for it to finish")
    else:
        why = "fix what it says"
    return (f"{text} ({why}, then send the same games again: those stored before the "
            "failure are kept and count as duplicates; nothing of the failed batch was stored)")


def integrity_check(db: Database) -> str:
    """SQLite's own verdict on the file (``"ok"`` when sound)."""
    return str(db.execute("PRAGMA integrity_check").fetchone()[0])


# ---------------------------------------------------------------------------------------
# Many rows a statement.

ROWS_PER_STATEMENT = 32
"""Rows one ``INSERT ... VALUES (...), (...)`` carries at most (fewer when the rows are so
wide that SQLite's limit on bound values would be passed). Each statement run costs a
fixed share (the call, a reset, the GIL given up and taken back, a cursor opened on each
index); the import's counters are thousands of short rows a batch, and written one
statement a row that share was about a fifth of their cost. Larger statements save
little more and cost more to prepare, once per connection (a 128-row upsert of the
players' counters takes about 5 ms to prepare, a 32-row one about 1.3 ms)."""


@lru_cache(maxsize=64)
def _values_sql(head: str, width: int, rows: int, tail: str) -> str:
    one = "(" + ", ".join("?" * width) + ")"
    return f"{head} VALUES {', '.join([one] * rows)}{tail}"


def _rows_per_statement(conn: sqlite3.Connection, width: int) -> int:
    limit = conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
    return max(1, min(ROWS_PER_STATEMENT, limit // max(1, width)))


def insert_rows(conn: sqlite3.Connection, head: str, width: int,
                rows: Sequence[Iterable[Sequence[Any]]], tail: str = "") -> None:
    """``head VALUES (row), (row), ... tail`` for every row of ``rows``, in order: the same
    rows as ``executemany`` of one row a statement, in fewer statements. Each row is given
    in pieces whose values, one after the other, are its ``width`` values (the key and
    the counters of a dictionary's item, say), so that no row is copied to be joined.

    Full statements of :data:`ROWS_PER_STATEMENT` rows first, then the rest one row a
    statement: two prepared statements a table, which the connection's cache keeps.
    ``tail`` may be an ``ON CONFLICT`` clause: the rows must then have distinct keys (a
    row meeting another of the same statement would update it)."""
    total = len(rows)
    size = _rows_per_statement(conn, width)
    done = 0
    if size > 1 and total >= size:
        sql = _values_sql(head, width, size, tail)
        while total - done >= size:
            params: list[Any] = []
            for pieces in rows[done:done + size]:
                for piece in pieces:
                    params += piece
            conn.execute(sql, params)
            done += size
    if done < total:
        conn.executemany(_values_sql(head, width, 1, tail),
                         [[value for piece in pieces for value in piece]
                          for pieces in rows[done:]])


# ---------------------------------------------------------------------------------------
# Rows of one game.


def to_json(value: Any) -> str:
    """Compact JSON text for a JSON column (non-ASCII kept readable in Datasette)."""
    return jsontext.dumps(value)


def _json_or_none(value: Any) -> str | None:
    return None if value is None else to_json(value)


def _flag(value: Any) -> int:
    return 1 if value else 0


@dataclass
class GameRecord:
    """Every row one accepted game becomes; built outside the write lock, stored inside it."""

    game: dict[str, Any]
    players: list[tuple[Any, ...]] = field(default_factory=list)
    rounds: list[tuple[Any, ...]] = field(default_factory=list)
    round_moves: list[tuple[Any, ...]] = field(default_factory=list)
    """``round_moves`` rows without the game: (round, ms, facts, odd), a row per round."""
    stats: Any = None
    """The game's contribution to the statistics aggregates (``recorder.stats``), if any."""

    @property
    def moves(self) -> list[tuple[Any, ...]]:
        """The rows of the ``moves`` view (``MOVE_COLUMNS``, without the game), unpacked."""
        return [(rnd, *row) for rnd, ms, facts, odd in self.round_moves
                for row in packing.unpack_round(ms, facts, odd)]


PLAYER_COLUMNS = (
    "seat", "player_id", "name", "final_score", "won", "rounds_won", "dominoes",
    "bonus_total", "plays", "draws", "passes", "bonus_points", "bonus_plays",
)
ROUND_COLUMNS = (
    "round", "opener", "opening_tile", "winners", "points", "bonus", "blocked", "pips_left",
    "ended_by", "moves_count", "draws", "passes", "boneyard_left", "block_certain", "ending",
)
MOVE_COLUMNS = (
    "round", "move", "player", "action", "tile", "side", "ms", "legal_count", "score",
    "best_score", "forced", "pips", "best_pips", "least_pips", "double", "double_choice",
    "next_stuck",
)


def _insert_sql(table: str, columns: Sequence[str]) -> str:
    names = ", ".join(f"[{c}]" for c in ("game", *columns))
    marks = ", ".join("?" for _ in range(len(columns) + 1))
    return f"INSERT INTO [{table}] ({names}) VALUES ({marks})"


_PLAYER_SQL = _insert_sql("players", PLAYER_COLUMNS)
_ROUND_SQL = _insert_sql("rounds", ROUND_COLUMNS)
ROUND_MOVES_COLUMNS = ("round", "ms", "facts", "odd")
_ROUND_MOVES_SQL = _insert_sql("round_moves", ROUND_MOVES_COLUMNS)


def frontend_of(doc: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The frontend's name and version as the log gives them (a bare string is a name)."""
    front = doc.get("frontend")
    if isinstance(front, Mapping):
        name, version = front.get("name"), front.get("version")
        return (
            name if isinstance(name, str) else None,
            version if isinstance(version, str) else None,
        )
    if isinstance(front, str):
        return front, None
    return None, None


def preset_of(ruleset: Any) -> str | None:
    """The preset named by a log's ``ruleset`` field (a name or {preset, options})."""
    if isinstance(ruleset, str):
        return ruleset
    if isinstance(ruleset, Mapping) and isinstance(ruleset.get("preset"), str):
        return str(ruleset["preset"])
    return None


def _option_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def variant_key(ruleset: Any) -> str | None:
    """The preset and the options as one canonical text: ``classic draw=one``.

    Options are taken as the log writes them, sorted by name; the statistics group and
    filter by this key, so two logs with the same options in another order share it.
    """
    preset = preset_of(ruleset)
    if preset is None:
        return None
    options = ruleset.get("options") if isinstance(ruleset, Mapping) else None
    if not isinstance(options, Mapping) or not options:
        return preset
    return " ".join([preset, *(f"{k}={_option_text(v)}" for k, v in sorted(options.items()))])


def build_record(
    doc: Mapping[str, Any],
    *,
    log: bytes | str,
    answer: Mapping[str, Any],
    facts: Any,
    content_hash: str,
    source: str | None = None,
    uploaded_by: int | None = None,
) -> GameRecord:
    """The rows of one replayed, valid game.

    ``facts`` come from ``recorder.analysis.analyse(doc)`` (or None, when the engine has no
    facts to give: then only the ``games`` row is written). ``log`` is the document's
    bytes as received, stored compressed (:func:`compress_log`); a text is stored as it
    is (a placeholder, where only the facts are wanted).
    """
    _, version = frontend_of(doc)
    key = identity.identity_key(doc)
    rounds_answer = answer.get("rounds") or []
    game = {
        "content_hash": content_hash,
        # the names in their normal form (recorder.names): what identity compares
        "frontend": identity.frontend_name(doc),
        "frontend_version": version,
        "game_id": key[1] if key is not None else _game_id_key(doc.get("game_id")),
        "format": doc.get("format"),
        "preset": preset_of(doc.get("ruleset")),
        "variant": variant_key(doc.get("ruleset")),
        "ruleset": to_json(doc.get("ruleset")),
        "players": to_json(doc.get("players")),
        "player_count": len(doc.get("players") or []),
        "seed": doc.get("seed") if isinstance(doc.get("seed"), str) else None,
        "status": answer.get("status"),
        "winners": to_json(answer.get("winners") or []),
        "scores": to_json(answer.get("scores") or []),
        "rounds_count": len(rounds_answer),
        "blocked_rounds": sum(1 for r in rounds_answer if r.get("blocked")),
        "moves_count": 0,
        "mismatches": _json_or_none(answer.get("mismatches")),
        "started_at": normalize_timestamp(doc.get("started_at")),
        "imported_at": utc_now(),
        "played_at": None,
        "winner_score": winner_score(doc.get("ruleset"), answer.get("scores") or [],
                                     answer.get("winners") or []),
        "source": public_source(source),
        "uploaded_by": uploaded_by,
        "log": compress_log(log) if isinstance(log, bytes) else log,
        "answer": to_json(answer),
        "identity": identity.IDENTITY_VERSION,
    }
    game["played_at"] = game["started_at"] or game["imported_at"]
    record = GameRecord(game)
    if facts is None:
        return record
    for p in facts.players:
        record.players.append((
            p.seat, p.player_id, p.name, p.final_score, _flag(p.won), p.rounds_won,
            p.dominoes, p.bonus_total, p.plays, p.draws, p.passes, p.bonus_points,
            p.bonus_plays,
        ))
    record.rounds = packing.round_rows(facts.rounds, to_json)
    record.round_moves = packing.pack_game(facts.moves)
    game["moves_count"] = len(facts.moves)
    return record


def _game_id_key(value: Any) -> str | None:
    """A game id's normal form (a log without a frontend is known by content only, but
    its id is still shown and searched in that form)."""
    if isinstance(value, str) and names.acceptable(value):
        return names.game_id_key(value)
    return value if isinstance(value, str) else None


@lru_cache(maxsize=8)
def _games_sql(columns: tuple[str, ...], update: bool = False) -> str:
    if update:
        return "UPDATE games SET " + ", ".join(f"[{c}] = ?" for c in columns) + " WHERE id = ?"
    return ("INSERT INTO games (" + ", ".join(f"[{c}]" for c in columns) + ") VALUES ("
            + ", ".join("?" for _ in columns) + ")")


def _insert_children(conn: sqlite3.Connection, game_pk: int, record: GameRecord) -> None:
    """The game's players, rounds and moves rows."""
    if record.players:
        conn.executemany(_PLAYER_SQL, [(game_pk, *row) for row in record.players])
    if record.rounds:
        conn.executemany(_ROUND_SQL, [(game_pk, *row) for row in record.rounds])
    if record.round_moves:
        conn.executemany(_ROUND_MOVES_SQL, [(game_pk, *row) for row in record.round_moves])


def insert_game(db: Database, record: GameRecord) -> int:
    """Write one game's rows (inside the caller's transaction); returns its ``games.id``.

    The rows go through prepared statements of this module, not ``Table.insert_all``,
    whose per-call bookkeeping costs more than the insert itself for the few dozen rows a
    game has: ingest speed is bounded by this loop.
    """
    game = record.game
    columns = tuple(game)
    cursor = db.conn.execute(_games_sql(columns), [game[c] for c in columns])
    game_id = int(cursor.lastrowid or 0)
    _insert_children(db.conn, game_id, record)
    return game_id


def replace_game(db: Database, game_pk: int, record: GameRecord) -> None:
    """Put ``record`` in the place of the stored game ``game_pk``, which keeps its id:
    every column of its row, and its players, rounds and moves rows (inside the caller's
    transaction). The statistics' examples of missed bonus (``stats_missed``) that named
    the old game go too; the caller moves the counters."""
    columns = tuple(record.game)
    db.conn.execute(_games_sql(columns, update=True),
                    [*(record.game[c] for c in columns), game_pk])
    db.conn.execute("DELETE FROM stats_missed WHERE game = ?", [game_pk])
    replace_facts(db, game_pk, record)


def replace_facts(db: Database, game_pk: int, record: GameRecord) -> None:
    """Swap a stored game's players, rounds and moves rows for ``record``'s (a rebuild)."""
    conn = db.conn
    for table in ("round_moves", "rounds", "players"):
        conn.execute(f"DELETE FROM [{table}] WHERE game = ?", [game_pk])
    _insert_children(conn, game_pk, record)


def find_by_hash(db: Database, content_hash: str) -> dict[str, Any] | None:
    """The stored game with this normalized content, if any (identity columns only)."""
    row = db.execute(
        "SELECT id, frontend, game_id, content_hash, imported_at FROM games "
        "WHERE content_hash = ?",
        [content_hash],
    ).fetchone()
    return None if row is None else _identity(row)


def find_by_key(db: Database, frontend: str, game_id: str) -> dict[str, Any] | None:
    """The stored game that this frontend sent under this ``game_id``, if any."""
    row = db.execute(
        "SELECT id, frontend, game_id, content_hash, imported_at FROM games "
        "WHERE frontend = ? AND game_id = ?",
        [frontend, game_id],
    ).fetchone()
    return None if row is None else _identity(row)


_LOOKUP_VALUES = 500
"""Values one look-up of :func:`find_by_hashes` or :func:`find_by_keys` binds at most
(under SQLite's oldest default limit of 999)."""


def find_by_hashes(db: Database, hashes: Iterable[str]) -> dict[str, dict[str, Any]]:
    """:func:`find_by_hash` of many hashes at once: the stored games among them, by hash
    (an index search for each, in one statement per few hundred)."""
    wanted = list(dict.fromkeys(hashes))
    found: dict[str, dict[str, Any]] = {}
    for i in range(0, len(wanted), _LOOKUP_VALUES):
        part = wanted[i:i + _LOOKUP_VALUES]
        for row in db.conn.execute(
                "SELECT id, frontend, game_id, content_hash, imported_at FROM games "
                f"WHERE content_hash IN ({', '.join('?' * len(part))})", part):
            found[row[3]] = _identity(row)
    return found


def find_by_keys(db: Database, keys: Iterable[tuple[str, str]]
                 ) -> dict[tuple[str, str], dict[str, Any]]:
    """:func:`find_by_key` of many (frontend, ``game_id``) pairs at once, by pair: one
    statement per frontend (``(frontend, game_id) IN (VALUES ...)`` would scan the table;
    ``frontend = ? AND game_id IN (...)`` searches the index for each)."""
    by_frontend: dict[str, list[str]] = {}
    for frontend, game_id in dict.fromkeys(keys):
        by_frontend.setdefault(frontend, []).append(game_id)
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for frontend, game_ids in by_frontend.items():
        for i in range(0, len(game_ids), _LOOKUP_VALUES):
            part = game_ids[i:i + _LOOKUP_VALUES]
            for row in db.conn.execute(
                    "SELECT id, frontend, game_id, content_hash, imported_at FROM games "
                    f"WHERE frontend = ? AND game_id IN ({', '.join('?' * len(part))})",
                    [frontend, *part]):
                found[(row[1], row[2])] = _identity(row)
    return found


def merged_into(db: Database, game_pk: int) -> int | None:
    """The game a removed id now means, when the identity rules found it a twin of it."""
    try:
        row = db.execute("SELECT kept FROM games_merged WHERE id = ?", [game_pk]).fetchone()
    except sqlite3.OperationalError:  # a file opened without its migrations
        return None
    return None if row is None else int(row[0])


def _identity(row: Sequence[Any]) -> dict[str, Any]:
    return dict(zip(("id", "frontend", "game_id", "content_hash", "imported_at"), row,
                    strict=True))


def count_rows(db: Database) -> dict[str, int]:
    """How many rows each table holds (for tests, the crash check and ``serve``'s banner)."""
    return {t: db[t].count for t in ("games", "players", "rounds", "moves", "tokens")}


# ---------------------------------------------------------------------------------------
# Reading games back: the export filters of ``GET /api/games``.

SUMMARY_COLUMNS = (
    "id", "game_id", "frontend", "frontend_version", "preset", "players", "player_count",
    "status", "winners", "scores", "rounds_count", "blocked_rounds", "moves_count",
    "started_at", "imported_at", "content_hash", "source", "played_at", "winner_score",
    "variant",
)
_JSON_COLUMNS = frozenset({"players", "winners", "scores", "mismatches", "ruleset"})
STATUSES = ("finished", "unfinished")


class GameFilter(query.Filter):
    """The filters of the game list (:class:`recorder.query.Filter`), on the games table.

    ``since`` and ``until`` bound the game's date (``played_at``: its ``started_at``, or
    when the log has none, the time it was imported), both inclusive, as UTC text.
    ``search`` finds games with a player whose id or name contains it, or whose
    ``game_id`` does (any case); ``players`` is the number of players.
    """

    def where(self) -> tuple[str, list[Any]]:
        """The SQL condition and its parameters."""
        return query.where(self, query.GAMES)


SORTS = {"date": "played_at", "rounds": "rounds_count", "moves": "moves_count",
         "score": "winner_score"}
"""The list's sort keys and the column each sorts on (ties broken by id)."""


def page_games(
    db: Database,
    flt: GameFilter,
    *,
    sort: str = "date",
    descending: bool = True,
    after: tuple[Any, int] | None = None,
    before: tuple[Any, int] | None = None,
    limit: int = 50,
    by_filter: bool = False,
) -> list[dict[str, Any]]:
    """One page of the list, sorted on ``sort`` then id, in the order shown.

    Keyset paging: ``after`` is the (sort value, id) of the last row of the page before,
    ``before`` that of the first row of the page after (a page backwards). Each page is a
    range scan of the (column, id) index, so it costs the same at any depth of a large
    store, and rows stored meanwhile do not shift the pages.

    ``by_filter`` is for a filter that matches few games (see :func:`few_enough`): walking
    the sort index would then pass over most of the store to find a page, so the query
    keeps SQLite off that index (a unary ``+``) and sorts the matches found through the
    filter's own index instead.
    """
    key = ("+" if by_filter else "") + SORTS[sort]
    where, params = flt.where()
    backwards = before is not None
    forward_desc = descending != backwards  # the direction this query reads in
    bound = after if after is not None else before
    if bound is not None:
        op = "<" if forward_desc else ">"
        where += f" AND ({key}, id) {op} (?, ?)"
        params += [bound[0], bound[1]]
    direction = "DESC" if forward_desc else "ASC"
    sql = (
        "SELECT " + ", ".join(f"[{c}]" for c in SUMMARY_COLUMNS) + f" FROM games WHERE {where} "
        f"ORDER BY {key} {direction}, id {direction} LIMIT ?"
    )
    params.append(limit)
    cursor = db.execute(sql, params)
    names = [d[0] for d in cursor.description]
    rows = [decode_row(dict(zip(names, row, strict=True))) for row in cursor]
    if backwards:
        rows.reverse()
    return rows


def few_enough(matches: int, total: int) -> bool:
    """Whether sorting a filter's matches beats walking the sort index to find a page.

    Both cost about one row read each: sorting reads every match, the index walk about
    ``page * total / matches`` rows to fill a page of 50. They meet near
    ``matches = sqrt(50 * total)`` (about 3,200 of 200,000 games), which bounds either
    way to that many row reads.
    """
    return matches * matches < 50 * total


def distinct_values(db: Database, column: str) -> list[Any]:
    """The values a list filter can take, from the stored games (each an indexed column)."""
    if column not in {"preset", "variant", "frontend", "player_count"}:
        raise ValueError(f"no list filter on {column!r}")
    return [r[0] for r in db.execute(
        f"SELECT DISTINCT [{column}] FROM games WHERE [{column}] IS NOT NULL "
        f"ORDER BY [{column}]").fetchall()]


_SOURCE_PREFIXES = ("api:", "upload:", "<stdin>")


def public_source(source: str | None) -> str | None:
    """Where a game came from, as the public may see it: never a path on the server.

    ``api:<token name>``, ``upload:<file name>`` and ``<stdin>`` stay as they are; a
    file given to ``recorder import`` is shown by its name alone. Rows stored before
    imports kept only the name still hold the whole path, so reading goes through this
    too.
    """
    if source is None or source.startswith(_SOURCE_PREFIXES):
        return source
    return source.replace("\\", "/").rstrip("/").rsplit("/", 1)[-1] or source


def decode_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """A games row as API data: JSON columns decoded, the source without a server path,
    the log as the text received."""
    out = dict(row)
    if out.get("log") is not None:
        out["log"] = log_text(out["log"])
    for key in _JSON_COLUMNS.intersection(out):
        if out[key] is not None:
            out[key] = json.loads(out[key])
    if "source" in out:
        out["source"] = public_source(out["source"])
    return out


def select_games(
    db: Database,
    flt: GameFilter,
    *,
    columns: Sequence[str] = SUMMARY_COLUMNS,
    after: int | None = None,
    limit: int | None = None,
    descending: bool = False,
) -> Iterator[dict[str, Any]]:
    """Games matching ``flt`` in id order, from just past ``after``, streamed from a cursor.

    Keyset pagination (``id > after``) rather than OFFSET: a page costs the same at the
    end of a large export as at its start, and rows inserted meanwhile do not shift it.
    """
    where, params = flt.where()
    if after is not None:
        where += " AND id < ?" if descending else " AND id > ?"
        params.append(after)
    sql = (
        "SELECT " + ", ".join(f"[{c}]" for c in columns) + f" FROM games WHERE {where} "
        f"ORDER BY id {'DESC' if descending else 'ASC'}"
    )
    if limit is not None:
        sql += " LIMIT ?"
        params.append(limit)
    cursor = db.execute(sql, params)
    names = [d[0] for d in cursor.description]
    for row in cursor:
        yield decode_row(dict(zip(names, row, strict=True)))


def count_games(db: Database, flt: GameFilter) -> int:
    """How many games match ``flt``."""
    where, params = flt.where()
    return int(db.execute(f"SELECT count(*) FROM games WHERE {where}", params).fetchone()[0])


def get_summary(db: Database, game_pk: int) -> dict[str, Any] | None:
    """One stored game's summary (the list's columns, decoded), without its log."""
    cursor = db.execute(
        "SELECT " + ", ".join(f"[{c}]" for c in SUMMARY_COLUMNS) + " FROM games WHERE id = ?",
        [game_pk])
    row = cursor.fetchone()
    if row is None:
        return None
    return decode_row(dict(zip([d[0] for d in cursor.description], row, strict=True)))


def get_game(db: Database, game_pk: int) -> dict[str, Any] | None:
    """One stored game with every column (the log as the text received, the answer)."""
    cursor = db.execute("SELECT * FROM games WHERE id = ?", [game_pk])
    row = cursor.fetchone()
    if row is None:
        return None
    names = [d[0] for d in cursor.description]
    out = dict(zip(names, row, strict=True))
    out["log"] = log_text(out["log"])
    return out
