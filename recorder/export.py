"""Export: a SQLite store's games and facts as the Parquet datasets of ``recorder batch``.

``recorder export --parquet DIR`` moves a single-machine store up to the archive's layout
(:mod:`recorder.parquet`) without reading the logs again: every ``games``, ``players``,
``rounds`` and ``moves`` row as it is stored (ids, import times and all), partitioned by
preset. ``refused`` is empty: the store keeps no refusals. The stored reviews
(``round_reviews``) become the ``reviews`` and ``review_decisions`` datasets, the rows
``recorder batch review`` writes for the same games (:func:`_copy_reviews` says which);
a store without such a review writes neither, as ``batch facts`` does. The statistics' counters
(the ``stats_*`` tables) are copied as they are, one file per table
(:data:`recorder.parquet.COUNTERS`), so that ``recorder serve --warehouse DIR`` answers
as the store does. ``recorder batch facts`` can then add games to DIR, known by the
same identity as in the store.

The store is read in id order, a slice of games at a time, and each slice's rows are
streamed from a cursor into per-preset writers, so memory stays bounded whatever the
store's size; each file appears whole once written (temporary name, then rename). DIR
must be new or empty. The export's mark (``_batch/export.json``) is written first and
the folder's state (``_batch/state.json``) last: a folder with the first and not the
second holds an export that was stopped, which the next export clears and does again.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from sqlite_utils import Database

from recorder import parquet, storage, warehouse
from recorder.batch import LAYOUT, MANIFEST, _decision_row
from recorder.review import VERSION as REVIEW_VERSION
from recorder.reviews import is_current

SLICE_GAMES: Final = 2000
"""Games read at once; their child rows are streamed, not held."""
FETCH_ROWS: Final = 10_000
FILE_ROWS: Final = 8 * 1024 * 1024
"""Rows per file, about: a large store becomes many files of bounded size."""
TAG: Final = "export"


class ExportError(Exception):
    """DIR cannot take an export (it holds something else)."""


@dataclass
class ExportReport:
    out: str
    rows: dict[str, int]
    counters: dict[str, int]
    """Rows of each counters dataset (the store's ``stats_*`` tables)."""


def export_parquet(db: Database, out: str, *,
                   progress: Callable[[int], Any] | None = None) -> ExportReport:
    """Write every game of ``db`` and its facts as the datasets under ``out``."""
    fs, root = parquet.filesystem(out)
    mark = f"{root}/{MANIFEST}/export.json"
    state = f"{root}/{MANIFEST}/state.json"
    if fs.exists(state):
        raise ExportError(f"{out} holds datasets already; export into a new folder")
    if fs.exists(mark):  # an export that was stopped: start it again from nothing
        for name in (*parquet.DATASETS, *parquet.REVIEW_DATASETS, MANIFEST):
            if fs.exists(f"{root}/{name}"):
                fs.rm(f"{root}/{name}", recursive=True)
    elif fs.exists(root) and fs.ls(root):
        raise ExportError(f"{out} is not empty; export into a new or empty folder")
    fs.makedirs(root, exist_ok=True)
    parquet.write_bytes_atomic(fs, mark, json.dumps({"from": _db_name(db)}).encode())
    parquet.write_empty_files(fs, root, counters=True)
    writers = {name: parquet.PartitionedWriter(fs, root, name, TAG, file_rows=FILE_ROWS)
               for name in ("games", *parquet.FACT_DATASETS, *parquet.REVIEW_DATASETS)}
    try:
        _copy(db, writers, progress)
        for writer in writers.values():
            writer.close()
        if writers["reviews"].rows:
            parquet.write_empty_files(fs, root, reviews=True)
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    counted = _copy_counters(db, fs, root)
    parquet.write_bytes_atomic(fs, state, json.dumps(
        {"layout": LAYOUT, "kind": "facts", "made_by": "export",
         "created": storage.utc_now()}, sort_keys=True).encode())
    fs.rm(mark)
    return ExportReport(out, {name: w.rows for name, w in writers.items()}, counted)


def _db_name(db: Database) -> str:
    for _, name, file in db.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return str(file)
    return ""


def _copy(db: Database, writers: dict[str, parquet.PartitionedWriter],
          progress: Callable[[int], Any] | None) -> None:
    games = parquet.GAMES.names
    game_sql = ("SELECT " + ", ".join(f"[{c}]" for c in games) +
                " FROM games WHERE id > ? ORDER BY id LIMIT ?")
    child_sql = {
        name: "SELECT " + ", ".join(f"[{c}]" for c in parquet.SCHEMAS[name].names) +
              f" FROM [{name}] WHERE game BETWEEN ? AND ? ORDER BY " +
              ", ".join(f"[{c}]" for c in _order(name))
        for name in parquet.FACT_DATASETS
    }
    preset_at = games.index("preset")
    log_at = games.index("log")
    last = 0
    while True:
        rows = db.execute(game_sql, [last, SLICE_GAMES]).fetchall()
        if not rows:
            return
        presets = {row[0]: row[preset_at] for row in rows}
        for row in rows:  # the log as received (the store keeps it compressed)
            writers["games"].add(row[preset_at], (
                *row[:log_at], storage.log_text(row[log_at]), *row[log_at + 1:]))
        low, last = rows[0][0], rows[-1][0]
        for name, sql in child_sql.items():
            cursor = db.execute(sql, [low, last])
            while True:
                chunk = cursor.fetchmany(FETCH_ROWS)
                if not chunk:
                    break
                writer = writers[name]
                for child in chunk:
                    writer.add(presets.get(child[0]), child)
        _copy_reviews(db, writers, presets, low, last)
        if progress is not None:
            progress(len(rows))


_REVIEWS_SQL: Final = (
    "SELECT r.game, r.settings, r.round, r.version, r.rounds, r.decisions, r.reviewed_at, "
    "r.body FROM round_reviews r JOIN ("
    "  SELECT game, settings FROM round_reviews WHERE game BETWEEN ? AND ? AND version = ?"
    "  GROUP BY game, settings HAVING count(*) = max(max(rounds), 1)) whole "
    "ON whole.game = r.game AND whole.settings = r.settings "
    "WHERE r.game BETWEEN ? AND ? AND r.version = ? ORDER BY r.game, r.settings, r.round")
"""The whole reviews of the current version among a slice of games, row by row."""


def _copy_reviews(db: Database, writers: dict[str, parquet.PartitionedWriter],
                  presets: dict[int, Any], low: int, last: int) -> None:
    """The slice's stored reviews as ``batch review`` writes them: each round's row with
    its object as compact JSON text (the stored bytes, uncompressed), and a row per
    decision.

    Only whole reviews (a row for each of the game's rounds) of the current version with
    current settings (:func:`recorder.reviews.is_current`): those a reader of the folder
    would take for the game's review. A review the service has only begun is left out (it
    would stop ``batch review`` from adding the whole one; ``recorder review --db``
    finishes it), and so is one made by another version or with limits no longer used.
    """
    cursor = db.execute(_REVIEWS_SQL, [low, last, REVIEW_VERSION, low, last, REVIEW_VERSION])
    reviews, decisions = writers["reviews"], writers["review_decisions"]
    while True:
        chunk = cursor.fetchmany(FETCH_ROWS)
        if not chunk:
            return
        for game, key, round_no, version, total, count, at, body in chunk:
            if not is_current(key):
                continue
            text = zlib.decompress(body).decode("utf-8")
            preset = presets.get(game)
            reviews.add(preset, (game, key, round_no, version, total, count, at, text))
            for d in json.loads(text)["decisions"]:
                decisions.add(preset, _decision_row(game, key, round_no, d))


def _copy_counters(db: Database, fs: Any, root: str) -> dict[str, int]:
    """The store's counter tables, each as one file (``part-export.parquet``) in the order
    of its primary key (the store's clustering: a range of periods is a few row groups).

    ``stats_people`` gets, as ``name_game``, the store's last game: its names are as of
    the export, older than those of any game ``recorder batch`` adds afterwards.
    """
    last = db.execute("SELECT coalesce(max(id), 0) FROM games").fetchone()[0]
    version = storage.counters_version(db)
    selects = {
        "stats_people": ("SELECT player, name, games, ? FROM stats_people ORDER BY player",
                         [last]),
        "stats_missed": ("SELECT " + ", ".join(parquet.COUNTERS["stats_missed"].names)
                         + " FROM stats_missed ORDER BY id", []),
        "stats_games": ("SELECT " + ", ".join(parquet.COUNTERS["stats_games"].names)
                        + " FROM games ORDER BY id", []),
        "stats_game_players": (
            "SELECT " + ", ".join(parquet.COUNTERS["stats_game_players"].names)
            + " FROM players ORDER BY player_id, game", []),
    }
    written: dict[str, int] = {}
    for name, schema in parquet.COUNTERS.items():
        path = f"{root}/{name}/part-{TAG}.parquet"
        with parquet.FileWriter(fs, path, schema) as writer:
            if name == "stats_meta":
                writer.write(parquet.table(schema, [("counters", version)]))
                written[name] = 1
                continue
            sql, params = selects.get(name) or (
                "SELECT " + ", ".join(f"[{c}]" for c in schema.names) + f" FROM [{name}] "
                "ORDER BY " + ", ".join(f"[{k}]" for k in warehouse.KEYS[name]), [])
            cursor = db.execute(sql, params)
            while True:
                chunk = cursor.fetchmany(FETCH_ROWS)
                if not chunk:
                    break
                writer.write(parquet.table(schema, chunk))
        written[name] = writer.rows
    return written


def _order(name: str) -> tuple[str, ...]:
    """The table's primary key: its rows in the order the store clusters them."""
    return {"players": ("game", "seat"), "rounds": ("game", "round"),
            "moves": ("game", "round", "move")}[name]
