"""The Parquet layout of an archive's facts: the datasets, their schemas, how files are written.

``recorder batch`` and ``recorder export --parquet`` write, and the warehouse reads, one
folder (local or any fsspec URL) holding five datasets::

    DIR/games/preset=classic/part-<tag>.parquet
    DIR/players/preset=classic/part-<tag>.parquet
    DIR/rounds/...   DIR/moves/...
    DIR/refused/preset=<preset, or __HIVE_DEFAULT_PARTITION__>/part-<tag>.parquet
    DIR/reviews/...  DIR/review_decisions/...   (``recorder batch review`` only)
    DIR/_batch/      the runs' manifest (``recorder.batch``), never read as data

``games``, ``players``, ``rounds`` and ``moves`` have the names, columns and column order
of the SQLite tables of the same names (``recorder.storage``), so a query written for one
store reads the other; ``refused`` keeps every refusal with its code, pointer and message,
source and line. Every dataset is partitioned Hive-style by the game's preset (the folder
``preset=<name>``, the name percent-encoded); ``games`` and ``refused`` also hold the
preset as a column, as the SQLite games table does. The types are fixed here, once, as a
pyarrow schema per dataset: identifiers are int64, other whole numbers int32, the 0/1
flags of the SQLite tables int8, the REAL columns float64, text and JSON text strings.

Files are written whole or not at all: to a hidden temporary name beside the final one
(``.part-...``, which neither pyarrow nor a ``*.parquet`` glob reads), then renamed. Each
dataset also holds one zero-row file in the null partition, so that an empty dataset
still reads, with its types, in DuckDB and pyarrow alike.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final
from urllib.parse import quote, unquote

import fsspec
import pyarrow as pa
import pyarrow.parquet as pq
from fsspec.implementations.local import LocalFileSystem

from recorder import storage

PARTITION: Final = "preset"
NULL_PARTITION: Final = "__HIVE_DEFAULT_PARTITION__"
"""The folder of rows whose preset is unknown (a refused document that named none):
what pyarrow and DuckDB read back as null."""
EMPTY_FILE: Final = "part-empty.parquet"
COMPRESSION: Final = "zstd"
"""The datasets' compression: small files, and fast to read."""
STAGING_COMPRESSION: Final = "none"
"""Parquet files read once and removed (a batch's staged counters): the cheapest to
write and read."""
STREAM_SUFFIX: Final = ".arrows"
"""A batch's staged rows: Arrow IPC streams (:class:`StreamWriter`), read once by the
task that publishes them and removed. Writing and reading them is little more than
copying the columns, where Parquet, even uncompressed, encodes every page and builds
dictionaries and statistics that no reader of the staging uses."""
ROW_GROUP_ROWS: Final = 128 * 1024
"""Rows per row group: large enough for fast scans, small enough that a writer holds
little (a moves row group is a few MB in memory)."""

_I64, _I32, _I8, _F64, _STR = pa.int64(), pa.int32(), pa.int8(), pa.float64(), pa.string()

#: the SQLite ``games`` table's columns, in its order, with their Parquet types
GAMES: Final = pa.schema([
    ("id", _I64), ("content_hash", _STR), ("frontend", _STR), ("frontend_version", _STR),
    ("game_id", _STR), ("format", _STR), ("preset", _STR), ("ruleset", _STR),
    ("players", _STR), ("player_count", _I32), ("seed", _STR), ("status", _STR),
    ("winners", _STR), ("scores", _STR), ("rounds_count", _I32), ("blocked_rounds", _I32),
    ("moves_count", _I32), ("mismatches", _STR), ("started_at", _STR),
    ("imported_at", _STR), ("source", _STR), ("uploaded_by", _I64), ("log", _STR),
    ("answer", _STR), ("played_at", _STR), ("winner_score", _F64), ("variant", _STR),
])

_PLAYER_TYPES: Final = {
    "seat": _I32, "player_id": _STR, "name": _STR, "final_score": _F64, "won": _I8,
    "rounds_won": _I32, "dominoes": _I32, "bonus_total": _F64, "plays": _I32,
    "draws": _I32, "passes": _I32, "bonus_points": _F64, "bonus_plays": _I32,
}
_ROUND_TYPES: Final = {
    "round": _I32, "opener": _I32, "opening_tile": _STR, "winners": _STR, "points": _STR,
    "bonus": _STR, "blocked": _I8, "pips_left": _STR, "ended_by": _I32,
    "moves_count": _I32, "draws": _I32, "passes": _I32, "boneyard_left": _I32,
    "block_certain": _I32, "ending": _STR,
}
_MOVE_TYPES: Final = {
    "round": _I32, "move": _I32, "player": _I32, "action": _STR, "tile": _STR,
    "side": _STR, "ms": _F64, "legal_count": _I32, "score": _F64, "best_score": _F64,
    "forced": _I8, "pips": _I32, "best_pips": _I32, "least_pips": _I32, "double": _I8,
    "double_choice": _I8, "next_stuck": _I8,
}


def _facts_schema(columns: Sequence[str], types: Mapping[str, pa.DataType]) -> pa.Schema:
    """``game`` then the columns in the order storage writes them (its row tuples)."""
    missing = set(columns) ^ set(types)
    if missing:  # storage grew or lost a column: the layout must say its type
        raise RuntimeError(f"the Parquet layout has no type for {sorted(missing)}")
    return pa.schema([("game", _I64), *((name, types[name]) for name in columns)])


PLAYERS: Final = _facts_schema(storage.PLAYER_COLUMNS, _PLAYER_TYPES)
ROUNDS: Final = _facts_schema(storage.ROUND_COLUMNS, _ROUND_TYPES)
MOVES: Final = _facts_schema(storage.MOVE_COLUMNS, _MOVE_TYPES)

REFUSED: Final = pa.schema([
    ("source", _STR),
    ("line", _I64),
    ("index", _I64),
    ("game_id", _STR),
    ("preset", _STR),
    ("code", _STR),
    ("pointer", _STR),
    ("message", _STR),
    ("round", _I32),
    ("move", _I32),
    ("content_hash", _STR),
    ("refused_at", _STR),
])
"""One row per refused document: where it was (the source as given, its 1-based line in
JSON Lines, its 0-based position among the input's documents), its ``game_id`` and
preset when it has them, the error (code, JSON pointer, message, round and move as the
import reports them), the hash it is known by (its content hash, or for a document that
could not be parsed the SHA-256 of its bytes), and when it was refused."""


REVIEWS: Final = pa.schema([
    ("game", _I64), ("settings", _STR), ("round", _I32), ("version", _I32),
    ("rounds", _I32), ("decisions", _I32), ("reviewed_at", _STR), ("body", _STR),
])
"""One row per reviewed round (``recorder batch review``), as the SQLite store's
``round_reviews`` holds it: the game (``games.id``), the settings' key
(``recorder.reviews.settings_key``), the round (0: the one row of a game without a round
to review), the review's version, the game's rounds, the round's decisions, when it was
published, and the round's review object as compact JSON text (what ``review_round``
returns)."""

REVIEW_DECISIONS: Final = pa.schema([
    ("game", _I64), ("settings", _STR), ("version", _I32), ("round", _I32), ("move", _I32),
    ("player", _I32), ("choices", _I32), ("samples", _I32), ("played", _I32),
    ("best", _I32), ("action", _STR), ("tile", _STR), ("end", _STR), ("loss", _F64),
    ("class", _STR), ("played_value", _F64), ("best_value", _F64), ("worst_value", _F64),
])
"""One row per decision of the ``reviews`` rows, for queries: its place (round, move,
the mover's seat), how many choices it had, the samples solved, the indexes of the played
and the best choice, what was played, the loss and its class, and the played, best and
worst choices' values (null, with ``class``, for a decision left unvalued)."""

REVIEW_SCHEMAS: Final[dict[str, pa.Schema]] = {
    "reviews": REVIEWS, "review_decisions": REVIEW_DECISIONS,
}
REVIEW_DATASETS: Final = tuple(REVIEW_SCHEMAS)


def _counter_schema(keys: Sequence[str], counters: Sequence[str]) -> pa.Schema:
    """A counter table's key (``players`` and ``position`` int32, the rest text) and its
    counters (float64, as SQLite's FLOAT columns)."""
    return pa.schema([(k, _I32 if k in ("players", "position") else _STR) for k in keys]
                     + [(c, _F64) for c in counters])


COUNTERS: Final[dict[str, pa.Schema]] = {
    "stats_players": _counter_schema((*storage.AGG_KEY, "player"), storage.PLAYER_COUNTERS),
    "stats_rounds": _counter_schema(storage.AGG_KEY, storage.ROUND_COUNTERS),
    "stats_hist": _counter_schema(storage.HIST_KEY, storage.HIST_COUNTERS),
    "stats_seats": _counter_schema(storage.SEAT_KEY, storage.SEAT_COUNTERS),
    "stats_missed": pa.schema([
        ("id", _I64), ("game", _I64), ("round", _I32), ("move", _I32), ("player", _STR),
        ("variant", _STR), ("frontend", _STR), ("players", _I32), ("day", _STR),
        ("scored", _F64), ("best", _F64)]),
    "stats_people": pa.schema([("player", _STR), ("name", _STR), ("games", _I64),
                               ("name_game", _I64)]),
    "stats_meta": pa.schema([("key", _STR), ("value", _STR)]),
    "stats_games": pa.schema([GAMES.field(c) for c in (
        "id", "game_id", "frontend", "preset", "variant", "player_count", "status",
        "blocked_rounds", "started_at", "played_at")]),
    "stats_game_players": pa.schema([PLAYERS.field(c) for c in (
        "game", "seat", "player_id", "name", "final_score", "won")]),
}
"""What the stats pages read (:mod:`recorder.warehouse`): the SQLite store's ``stats_*``
tables with their columns, and the columns of ``games`` and ``players`` the pages read
(a player's latest games, the examples' game ids) as ``stats_games`` (sorted by id) and
``stats_game_players`` (sorted by player and game). ``DIR/<table>/part-<tag>.parquet``,
not partitioned: a folder holds one file per run that wrote it (where the fact datasets
hold a file per shard and preset), and a key in several files counts their sum (every
counter is additive). ``stats_people`` adds ``name_game``, the game its name came from,
so that the latest name wins across files."""

SCHEMAS: Final[dict[str, pa.Schema]] = {
    "games": GAMES, "players": PLAYERS, "rounds": ROUNDS, "moves": MOVES,
    "refused": REFUSED,
}
DATASETS: Final = tuple(SCHEMAS)
FACT_DATASETS: Final = ("players", "rounds", "moves")


def schema_of(dataset: str) -> pa.Schema:
    """The schema of a partitioned dataset: a fact dataset's or a review dataset's."""
    return SCHEMAS[dataset] if dataset in SCHEMAS else REVIEW_SCHEMAS[dataset]


# ---------------------------------------------------------------------------------------
# Paths and file systems.


def filesystem(url: str) -> tuple[fsspec.AbstractFileSystem, str]:
    """The fsspec file system of ``url`` (a local path or any fsspec URL) and its path there."""
    fs, path = fsspec.core.url_to_fs(url)
    return fs, path.rstrip("/") or "/"


def is_local(fs: fsspec.AbstractFileSystem) -> bool:
    return isinstance(fs, LocalFileSystem)


def partition_name(preset: str | None) -> str:
    """``preset=<name>``, the name percent-encoded (any text makes one safe folder name)."""
    if preset is None or preset == "":
        return f"{PARTITION}={NULL_PARTITION}"
    return f"{PARTITION}={quote(preset, safe='')}"


def preset_of_partition(folder: str) -> str | None:
    """The preset a partition folder holds (None for the null partition)."""
    value = folder.partition("=")[2]
    return None if value == NULL_PARTITION else unquote(value)


def part_path(root: str, dataset: str, preset: str | None, tag: str) -> str:
    return f"{root}/{dataset}/{partition_name(preset)}/part-{tag}.parquet"


def dataset_files(fs: fsspec.AbstractFileSystem, root: str, dataset: str) -> list[str]:
    """The data files of one dataset (its partitions' ``*.parquet``), sorted."""
    base = f"{root}/{dataset}"
    if not fs.exists(base):
        return []
    return sorted(fs.glob(f"{base}/{PARTITION}=*/*.parquet"))


def temp_path(path: str) -> str:
    """A hidden name beside ``path`` for writing it before the rename."""
    folder, _, name = path.rpartition("/")
    return f"{folder}/.{name}.{uuid.uuid4().hex}.tmp"


def commit_file(fs: fsspec.AbstractFileSystem, temp: str, path: str) -> None:
    """Put a fully written temporary file in its place in one step."""
    if is_local(fs):
        import os

        os.replace(temp, path)
    else:  # object stores have no rename: mv copies, and an object appears whole
        fs.mv(temp, path)


def write_bytes_atomic(fs: fsspec.AbstractFileSystem, path: str, data: bytes) -> None:
    """Write a small file whole or not at all (the manifest's records)."""
    fs.makedirs(path.rpartition("/")[0], exist_ok=True)
    temp = temp_path(path)
    with fs.open(temp, "wb") as out:
        out.write(data)
    commit_file(fs, temp, path)


# ---------------------------------------------------------------------------------------
# Writing.


def table(schema: pa.Schema, rows: Sequence[Sequence[Any]]) -> pa.Table:
    """Rows (tuples in the schema's column order) as a table of exactly that schema."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(schema)
    return pa.Table.from_arrays(
        [pa.array(col, type=f.type) for col, f in zip(columns, schema, strict=True)],
        schema=schema)


class FileWriter:
    """One Parquet file written by row groups, in place only once closed.

    ``close()`` renames the finished file into place; ``abort()`` (or an exception in a
    ``with`` block) leaves nothing behind but, at worst, a hidden temporary file.
    """

    def __init__(self, fs: fsspec.AbstractFileSystem, path: str, schema: pa.Schema, *,
                 compression: str = COMPRESSION) -> None:
        self.fs, self.path, self.schema = fs, path, schema
        self.rows = 0
        fs.makedirs(path.rpartition("/")[0], exist_ok=True)
        self._temp = temp_path(path)
        self._stream = fs.open(self._temp, "wb")
        self._writer = pq.ParquetWriter(self._stream, schema, compression=compression)

    def write(self, data: pa.Table | pa.RecordBatch) -> None:
        if data.num_rows:
            self._writer.write(data, row_group_size=ROW_GROUP_ROWS)
            self.rows += data.num_rows

    def close(self) -> None:
        self._writer.close()
        self._stream.close()
        commit_file(self.fs, self._temp, self.path)

    def abort(self) -> None:
        try:
            self._writer.close()
            self._stream.close()
        finally:
            if self.fs.exists(self._temp):
                self.fs.rm(self._temp)

    def __enter__(self) -> FileWriter:
        return self

    def __exit__(self, kind: object, *_: object) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


class StreamWriter(FileWriter):
    """One Arrow IPC stream file (``STREAM_SUFFIX``) written batch by batch, in place
    only once closed, as :class:`FileWriter` puts a Parquet file."""

    def __init__(self, fs: fsspec.AbstractFileSystem, path: str, schema: pa.Schema) -> None:
        self.fs, self.path, self.schema = fs, path, schema
        self.rows = 0
        fs.makedirs(path.rpartition("/")[0], exist_ok=True)
        self._temp = temp_path(path)
        self._stream = fs.open(self._temp, "wb")
        self._writer = pa.ipc.new_stream(self._stream, schema)

    def write(self, data: pa.Table | pa.RecordBatch) -> None:
        if data.num_rows:
            self._writer.write(data)
            self.rows += data.num_rows


def iter_stream(fs: fsspec.AbstractFileSystem, path: str,
                columns: Sequence[str] | None = None) -> Iterator[pa.RecordBatch]:
    """An Arrow IPC stream file's batches, as they were written (memory bounded by the
    writer's batches), each read into memory of its own."""
    with (pa.OSFile(path, "rb") if is_local(fs) else fs.open(path, "rb")) as source:
        for batch in pa.ipc.open_stream(source):
            yield batch if columns is None else batch.select(list(columns))


class PartitionedWriter:
    """Rows of one dataset spread over its preset partitions, one file per preset.

    Rows are buffered per preset up to ``buffer_rows`` and then written as a row group,
    so memory stays bounded however many rows pass. ``close()`` puts every file in place.
    """

    def __init__(self, fs: fsspec.AbstractFileSystem, root: str, dataset: str, tag: str,
                 *, buffer_rows: int = 64 * 1024, file_rows: int | None = None) -> None:
        self.fs, self.root, self.dataset, self.tag = fs, root, dataset, tag
        self.schema = schema_of(dataset)
        self.buffer_rows = buffer_rows if file_rows is None else min(buffer_rows, file_rows)
        self.file_rows = file_rows
        """With a number, a preset's rows go to files of about that many rows each
        (``part-<tag>-00000.parquet``, ...), so no file grows without bound."""
        self._buffers: dict[str | None, list[tuple[Any, ...]]] = {}
        self._files: dict[str | None, FileWriter] = {}
        self._done: list[str] = []
        self._counts: dict[str | None, int] = {}
        self.rows = 0

    def add(self, preset: str | None, row: tuple[Any, ...]) -> None:
        buf = self._buffers.setdefault(preset, [])
        buf.append(row)
        self.rows += 1
        if len(buf) >= self.buffer_rows:
            self._flush(preset)

    def add_table(self, preset: str | None, data: pa.Table) -> None:
        """Rows already in Arrow form (of this dataset's schema)."""
        if data.num_rows:
            self._flush(preset)
            self._file(preset).write(data)
            self.rows += data.num_rows

    def _file(self, preset: str | None) -> FileWriter:
        writer = self._files.get(preset)
        if writer is not None and self.file_rows is not None and \
                writer.rows >= self.file_rows:
            writer.close()
            self._done.append(writer.path)
            writer = None
        if writer is None:
            tag = self.tag
            if self.file_rows is not None:
                number = self._counts.get(preset, 0)
                self._counts[preset] = number + 1
                tag = f"{tag}-{number:05d}"
            writer = FileWriter(self.fs, part_path(self.root, self.dataset, preset, tag),
                                self.schema)
            self._files[preset] = writer
        return writer

    def _flush(self, preset: str | None) -> None:
        buf = self._buffers.get(preset)
        if buf:
            self._file(preset).write(table(self.schema, buf))
            buf.clear()

    def close(self) -> list[str]:
        """Write what is buffered and put every file in place; returns their paths."""
        for preset in list(self._buffers):
            self._flush(preset)
        for writer in self._files.values():
            writer.close()
        return [*self._done, *(w.path for w in self._files.values())]

    def abort(self) -> None:
        for writer in self._files.values():
            writer.abort()


def write_empty_files(fs: fsspec.AbstractFileSystem, root: str, *,
                      counters: bool = False, reviews: bool = False) -> None:
    """The zero-row file of each dataset (and with ``counters``, of each counters
    dataset; with ``reviews``, of each review dataset), so an empty dataset reads with
    its types. Files already there are left as they are."""
    partitioned = {**SCHEMAS, **(REVIEW_SCHEMAS if reviews else {})}
    paths = {f"{root}/{name}/{partition_name(None)}/{EMPTY_FILE}": schema
             for name, schema in partitioned.items()}
    if counters:
        paths.update({f"{root}/{name}/{EMPTY_FILE}": schema
                      for name, schema in COUNTERS.items()})
    for path, schema in paths.items():
        if not fs.exists(path):
            with FileWriter(fs, path, schema) as writer:
                writer.write(table(schema, []))


# ---------------------------------------------------------------------------------------
# Reading (tests, the export's checks, and the batch's identity step).


def read_dataset(url: str, dataset: str, columns: Sequence[str] | None = None) -> pa.Table:
    """One whole dataset as a table of its schema (every partition; for tests and checks:
    it holds the whole dataset in memory)."""
    fs, root = filesystem(url)
    schema = schema_of(dataset)
    names = list(columns) if columns is not None else schema.names
    tables = []
    for path in dataset_files(fs, root, dataset):
        with fs.open(path, "rb") as stream:
            tables.append(pq.ParquetFile(stream).read(columns=names))
    if not tables:
        return table(pa.schema([schema.field(n) for n in names]), [])
    return pa.concat_tables(tables).select(names)


def iter_batches(fs: fsspec.AbstractFileSystem, path: str, columns: Sequence[str] | None = None,
                 *, batch_rows: int = 64 * 1024) -> Iterator[pa.RecordBatch]:
    """A Parquet file's rows a batch at a time (memory bounded by ``batch_rows``)."""
    with fs.open(path, "rb") as stream:
        reader = pq.ParquetFile(stream)
        yield from reader.iter_batches(batch_size=batch_rows,
                                       columns=None if columns is None else list(columns))


def rows_of(tables: Iterable[pa.Table | pa.RecordBatch]) -> Iterator[tuple[Any, ...]]:
    """Rows as tuples, in column order."""
    for data in tables:
        columns = [col.to_pylist() for col in data.columns]
        yield from zip(*columns, strict=True)
