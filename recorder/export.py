"""Export: a SQLite store's games and facts as the Parquet datasets of ``recorder batch``.

``recorder export --parquet DIR`` moves a single-machine store up to the archive's layout
(:mod:`recorder.parquet`) without reading the logs again: every ``games``, ``players``,
``rounds`` and ``moves`` row as it is stored (ids, import times and all), partitioned by
preset. ``refused`` is empty: the store keeps no refusals. ``recorder batch facts`` can
then add games to DIR, known by the same identity as in the store.

The store is read in id order, a slice of games at a time, and each slice's rows are
streamed from a cursor into per-preset writers, so memory stays bounded whatever the
store's size; each file appears whole once written (temporary name, then rename). DIR
must be new or empty. The export's mark (``_batch/export.json``) is written first and
the folder's state (``_batch/state.json``) last: a folder with the first and not the
second holds an export that was stopped, which the next export clears and does again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from sqlite_utils import Database

from recorder import parquet, storage
from recorder.batch import LAYOUT, MANIFEST

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


def export_parquet(db: Database, out: str, *,
                   progress: Callable[[int], Any] | None = None) -> ExportReport:
    """Write every game of ``db`` and its facts as the datasets under ``out``."""
    fs, root = parquet.filesystem(out)
    mark = f"{root}/{MANIFEST}/export.json"
    state = f"{root}/{MANIFEST}/state.json"
    if fs.exists(state):
        raise ExportError(f"{out} holds datasets already; export into a new folder")
    if fs.exists(mark):  # an export that was stopped: start it again from nothing
        for name in (*parquet.DATASETS, MANIFEST):
            if fs.exists(f"{root}/{name}"):
                fs.rm(f"{root}/{name}", recursive=True)
    elif fs.exists(root) and fs.ls(root):
        raise ExportError(f"{out} is not empty; export into a new or empty folder")
    fs.makedirs(root, exist_ok=True)
    parquet.write_bytes_atomic(fs, mark, json.dumps({"from": _db_name(db)}).encode())
    parquet.write_empty_files(fs, root)
    writers = {name: parquet.PartitionedWriter(fs, root, name, TAG, file_rows=FILE_ROWS)
               for name in ("games", *parquet.FACT_DATASETS)}
    try:
        _copy(db, writers, progress)
        for writer in writers.values():
            writer.close()
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    parquet.write_bytes_atomic(fs, state, json.dumps(
        {"layout": LAYOUT, "kind": "facts", "made_by": "export",
         "created": storage.utc_now()}, sort_keys=True).encode())
    fs.rm(mark)
    return ExportReport(out, {name: w.rows for name, w in writers.items()})


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
    last = 0
    while True:
        rows = db.execute(game_sql, [last, SLICE_GAMES]).fetchall()
        if not rows:
            return
        presets = {row[0]: row[preset_at] for row in rows}
        for row in rows:
            writers["games"].add(row[preset_at], row)
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
        if progress is not None:
            progress(len(rows))


def _order(name: str) -> tuple[str, ...]:
    """The table's primary key: its rows in the order the store clusters them."""
    return {"players": ("game", "seat"), "rounds": ("game", "round"),
            "moves": ("game", "round", "move")}[name]
