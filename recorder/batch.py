"""Batch: the per-game work over whole archives on a Dask cluster, written as Parquet.

``recorder batch facts|replay SOURCE... --out DIR`` reads JSON Lines (gzip or not, local
or any fsspec URL), and runs for each game the import's own per-game work: the parse,
the schema, the replay and, for ``facts``, the facts (``recorder.ingest.Importer``, the
very function ``recorder import`` calls). The rows land in the datasets of
:mod:`recorder.parquet` under DIR. The work runs on a ``distributed`` LocalCluster of
worker processes, or on any cluster given by its scheduler's address: the same code.

How a run goes, and why it can be stopped anywhere::

    plan      each file is cut into shards: byte ranges of JSON Lines (a shard owns the
              lines that start inside its range), for gzip ranges of the decompressed
              stream; a file that is not JSON Lines is one shard, read whole
    process   one task per shard: its games' rows into DIR/_batch/staging/<shard>/, then
              the shard's record DIR/_batch/shards/<shard>.json (the manifest: a shard
              with a record is never processed again)
    commit    when every shard of the run is staged, one identity step on the client
              (DuckDB over the staged identities and the games already in DIR) decides
              what each document is: accepted (and its games.id), a duplicate, or
              refused; the decisions and DIR/_batch/commit.json are written, whole
    publish   one task per shard: its accepted rows into the datasets, each file
              written whole (temporary name, then rename), then its record says so
    finish    commit.json and the staging files go

Every file is written whole or not at all, and a task's output depends only on its
input, so a task that Dask runs again (its worker killed) writes the same files, and a
run killed anywhere is finished by running it again: shards with a record are not
redone, and a commit already decided is published as decided.

Identity is the SQLite import's (``recorder.ingest``): the content hash, and frontend +
``game_id`` when a game has both. Deciding it needs every document at once, so it is
not done per shard but in the commit, in the order the import would meet the documents
(sources as given, each file from its start), with each game as if stored before the
next is read: the first valid copy of a game is accepted and later copies are
duplicates; a game whose frontend + ``game_id`` an earlier accepted game holds with
other content is refused as ``game/conflict``; games already in DIR come before all of
the run's. A refusal is kept once per document (its content hash, or the hash of its
bytes when it could not be parsed): sending the same bad document again adds nothing.
"""

from __future__ import annotations

import array
import glob as globlib
import gzip
import hashlib
import json
import logging
import os
import socket
import time
import uuid
import zlib
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Final

import fsspec
import orjson
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from sqlite_utils import Database

from recorder import jsontext, packing, parquet, stats, storage, warehouse
from recorder.errors import InputError, TooLarge
from recorder.ingest import (
    IMPORT_SUFFIXES,
    REFUSED,
    Importer,
    _begin,
    _conflict_error,
    _InputFailure,
    _Pending,
    _refused_by_replay,
    content_hash,
    expand_paths,
    identity_key,
    log_text,
)
from recorder.parse import GZIP_MAGIC, Limits, Parsed, RawLine, iter_documents, parse_line
from recorder.replay import replay
from recorder.review import VERSION as REVIEW_VERSION
from recorder.review import Plan, Settings, assemble, plan_review, review_round
from recorder.reviews import NO_ROUNDS, settings_key
from recorder.rules import PRESETS
from recorder.stats import Contribution

log = logging.getLogger(__name__)

KINDS: Final = ("facts", "replay", "review")
"""``facts``: every dataset; ``replay``: the verdicts alone (``games`` and ``refused``);
``review``: every dataset of ``facts`` and the games' reviews (``reviews``,
``review_decisions``), in a folder of ``facts``."""
LAYOUT: Final = 1
"""The version of the folder's layout and manifest, in DIR/_batch/state.json."""
MANIFEST: Final = "_batch"
DEFAULT_SHARD_BYTES: Final = 32 * 1024 * 1024
"""Bytes of JSON Lines per shard (about 23,000 rounds, some seconds of one worker):
small enough that work spreads evenly and a retried shard costs little, large enough
that the scheduler's cost per task (milliseconds) does not count."""
DEFAULT_REVIEW_SHARD_BYTES: Final = 16 * 1024
"""Bytes per shard of ``batch review``: a round's review costs from a few hundredths of
a CPU second (a 2-player block game) to near a minute (three or four sides, drawing:
docs/benchmarks.md, "Review") where its facts cost tens of microseconds, so a shard holds
a few games (about 20 rounds): the bar moves often, a killed worker loses little, and the
cost of a task to the scheduler and the manifest stays a small share of its work."""
SHARDS_PER_FILE: Final = 16
MIN_SHARD_BYTES: Final = 1024 * 1024
"""A file is cut into about SHARDS_PER_FILE shards, none smaller than this (unless
``--shard-bytes`` asks for smaller), nor larger than ``--shard-bytes``."""
MAX_GZIP_SHARDS: Final = 16
"""A gzip file is cut into at most this many shards: a shard of a gzip stream has to
decompress (and throw away) everything before its range, a cost that grows with the
number of shards (at 16, about a tenth of the work on the file)."""
SMALL_GZIP: Final = 4 * 1024 * 1024
"""A gzip file at most this big is one shard, without decompressing it to plan it."""
_BLOCK: Final = 256 * 1024
_WHITESPACE: Final = b" \t\r\n"
_BOM: Final = b"\xef\xbb\xbf"
_BUFFER_ROWS: Final = {"ids": 8192, "games": 128, "players": 8192, "rounds": 8192,
                       "moves": 32768, "refused": 1024, "reviews": 1024,
                       "review_decisions": 8192, "counted": 1024}
"""Rows of each staging table held before they are written as a row group: a games
row holds the whole log, so few of them (a worker's memory stays under about 100 MB
beyond its modules, whatever the shard's size)."""
_READ_ROWS: Final = {"games": 256}
"""Rows read at once when publishing (64 Ki for the tables without logs)."""
LOOPBACK: Final = "127.0.0.1:0"
"""Where a LocalCluster's scheduler serves HTTP (its health and metrics, the dashboard
where bokeh is installed): a free port on this machine only, never another's."""
MEMORY_LIMIT: Final = "1GB"
"""What DuckDB may hold in memory in the commit's identity step before it spills."""


class BatchError(Exception):
    """What stops a run before or between its steps, in words for the operator."""


# ---------------------------------------------------------------------------------------
# Sources and the plan.


@dataclass(frozen=True)
class SourceFile:
    """One file of the sources: where it is, and what it is now (a changed file is new)."""

    url: str
    size: int
    stamp: str


@dataclass(frozen=True)
class Shard:
    """A piece of one file: the lines starting in ``[start, end)`` (``end`` None: to the
    end), or the whole file (``mode`` "whole")."""

    url: str
    stamp: str
    mode: str  # "lines" or "whole"
    gzip: bool
    start: int
    end: int | None
    ordinal: int = 0
    """Its place in the run: the order identity is decided in."""
    work: str = ""
    """What is done with it beyond the facts (``batch review``: the review's version and
    settings), so that a review of a shard is its own task, record and files, apart from
    the facts of the same shard and from reviews with other settings."""

    @property
    def id(self) -> str:
        parts: list[Any] = [self.url, self.stamp, self.mode, self.start, self.end]
        if self.work:
            parts.append(self.work)
        return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:32]


_MAGIC_CHARS: Final = frozenset("*?[")


def _is_url(source: str) -> bool:
    return "://" in source


def expand_sources(sources: Sequence[str]) -> list[SourceFile]:
    """Every file the sources name, in order: files as given, folders as the importable
    files under them (name order, as ``recorder import`` reads them), globs as the files
    they match (sorted). A file named twice is read once. Raises BatchError for a source
    that names nothing."""
    seen: set[str] = set()
    out: list[SourceFile] = []
    for source in sources:
        if source == "-":
            raise BatchError("batch reads files and URLs, not standard input: give a file")
        found = _expand_url(source) if _is_url(source) else _expand_local(source)
        if not found:
            raise BatchError(f"no such file or folder: {source}")
        for item in found:
            if item.url not in seen:
                seen.add(item.url)
                out.append(item)
    return out


def _expand_local(source: str) -> list[SourceFile]:
    if _MAGIC_CHARS.intersection(source):
        paths: list[str] = []
        for match in sorted(globlib.glob(source, recursive=True)):
            paths.extend(expand_paths([match]) if os.path.isdir(match) else [match])
    elif os.path.exists(source):
        paths = list(expand_paths([source]))
    else:
        return []
    out = []
    for path in paths:
        if os.path.isfile(path):
            st = os.stat(path)
            out.append(SourceFile(path, st.st_size, f"{st.st_size}:{st.st_mtime_ns}"))
    return out


def _expand_url(source: str) -> list[SourceFile]:
    fs, path = fsspec.core.url_to_fs(source)
    if _MAGIC_CHARS.intersection(path):
        paths = sorted(fs.glob(path))
    elif fs.isdir(path):
        paths = sorted(p for p in fs.find(path) if p.lower().endswith(IMPORT_SUFFIXES))
    elif fs.exists(path):
        paths = [path]
    else:
        return []
    out = []
    for p in paths:
        info = fs.info(p)
        if info.get("type") == "directory":
            continue
        size = int(info.get("size") or 0)
        mark = next((str(info[k]) for k in ("ETag", "etag", "mtime", "LastModified",
                                            "last_modified", "created") if info.get(k)), "")
        url = source if p == path and not _MAGIC_CHARS.intersection(path) \
            else fs.unstrip_protocol(p)
        out.append(SourceFile(url, size, f"{size}:{mark}"))
    return out


def _open(url: str) -> Any:
    fs, path = fsspec.core.url_to_fs(url)
    return fs.open(path, "rb")


def plan_file(source: SourceFile, shard_bytes: int, limits: Limits) -> list[Shard]:
    """The shards of one file (a task of its own: it reads the file's head, and a large
    gzip file whole, to measure it). A file it cannot read is one shard, which reports
    why in the import's words."""
    try:
        with _open(source.url) as raw:
            is_gzip = raw.read(2) == GZIP_MAGIC
            raw.seek(0)
            read = gzip.GzipFile(fileobj=raw, mode="rb").read1 if is_gzip else raw.read
            large = not is_gzip and source.size > limits.max_input_bytes
            mode = _sniff(read, limits, large=large)
    except Exception:
        return [Shard(source.url, source.stamp, "whole", False, 0, None)]
    if mode == "whole":
        return [Shard(source.url, source.stamp, "whole", is_gzip, 0, None)]
    if not is_gzip:
        step = shard_size(source.size, shard_bytes)
        bounds = list(range(0, max(source.size, 1), step))
    elif source.size <= min(SMALL_GZIP, shard_bytes):
        bounds = [0]
    else:
        size = _gzip_size(source.url, limits.max_stream_bytes)
        step = shard_size(size, shard_bytes)
        count = max(1, min(MAX_GZIP_SHARDS, -(-size // step)))
        bounds = list(range(0, max(size, 1), max(1, -(-size // count))))
    ends: list[int | None] = [*bounds[1:], None]
    return [Shard(source.url, source.stamp, "lines", is_gzip, start, end)
            for start, end in zip(bounds, ends, strict=True)]


def shard_size(size: int, most: int) -> int:
    """Bytes per shard of a file of ``size`` bytes: ``most`` for a large file, less for a
    smaller one (about SHARDS_PER_FILE shards, none under MIN_SHARD_BYTES), so that one
    file is still spread over the workers. It depends on the file alone: the same file
    is cut the same way in every run, and its shards done before are not done again."""
    return max(1, min(most, max(MIN_SHARD_BYTES, -(-size // SHARDS_PER_FILE))))


def _sniff(read: Callable[[int], bytes], limits: Limits, *, large: bool) -> str:
    """"lines" when the file is JSON Lines as the import tells it (its first non-blank
    line is a JSON value and another line follows; or, for a file too large to read
    whole, its first line is broken and its second is a document), else "whole"."""
    reader = _Reader(read, 0, limits)
    found: list[bytes] = []
    long_line = False
    while len(found) < 2:
        item = reader.read_line()
        if item is None:
            break
        offset, chunk, complete = item
        if not complete:
            long_line = True
            break
        if offset == 0 and chunk.startswith(_BOM):
            chunk = chunk[3:]
        if chunk.strip(_WHITESPACE):
            found.append(chunk)
    if not found:
        return "whole"
    first_ok = parse_line(RawLine(0, 1, 0, found[0]), limits).error is None
    if first_ok and (len(found) == 2 or long_line):
        return "lines"
    if large and not first_ok and len(found) == 2 and found[0].lstrip().startswith(b"{"):
        return "lines" if parse_line(RawLine(1, 2, 0, found[1]), limits).error is None \
            else "whole"
    return "whole"


def _gzip_size(url: str, limit: int) -> int:
    """How many bytes a gzip file decompresses to (up to just past ``limit``; up to
    where it is damaged)."""
    total = 0
    try:
        with _open(url) as raw, gzip.GzipFile(fileobj=raw, mode="rb") as gz:
            while total <= limit:
                block = gz.read1(_BLOCK)
                if not block:
                    break
                total += len(block)
    except (OSError, EOFError, gzip.BadGzipFile, ValueError):
        pass  # the shard that reaches the damage reports it
    return total


class _Reader:
    """Lines of a (decompressed) stream, each at its absolute offset, none kept longer
    than a document may be, the whole stream counted against ``max_stream_bytes``: the
    rules of the import's reader (``recorder.parse``)."""

    def __init__(self, read: Callable[[int], bytes], position: int, limits: Limits) -> None:
        self._read = read
        self._limits = limits
        self._buf = b""
        self._i = 0
        self.position = position

    def _fill(self) -> bool:
        block = self._read(_BLOCK)
        if not block:
            return False
        self._buf, self._i = block, 0
        if self.position + len(block) > self._limits.max_stream_bytes:
            raise TooLarge(
                f"the input is larger than {_size(self._limits.max_stream_bytes)} "
                "(after decompression), the most read from one file")
        return True

    def read_line(self) -> tuple[int, bytes, bool] | None:
        """(offset, bytes, complete) of the next line; None at the end. A line longer
        than a document may be comes cut, with complete False."""
        limit = self._limits.max_document_bytes + 2
        start = self.position
        pieces: list[bytes] = []
        size = 0
        while True:
            if self._i >= len(self._buf) and not self._fill():
                return (start, b"".join(pieces), True) if pieces else None
            end = self._buf.find(b"\n", self._i)
            stop = len(self._buf) if end < 0 else end + 1
            pieces.append(self._buf[self._i:stop])
            size += stop - self._i
            self.position += stop - self._i
            self._i = stop
            if end >= 0:
                return start, b"".join(pieces), True
            if size >= limit:
                return start, b"".join(pieces), False

    def skip_line(self) -> int | None:
        """Read past the end of the current line; the offset of its newline (None: none)."""
        while self._i < len(self._buf) or self._fill():
            end = self._buf.find(b"\n", self._i)
            stop = len(self._buf) if end < 0 else end + 1
            self.position += stop - self._i
            self._i = stop
            if end >= 0:
                return self.position - 1
        return None

    def skip_bytes(self, n: int) -> None:
        """Throw away ``n`` bytes (the part of a gzip stream before a shard's range)."""
        while n > 0:
            if self._i >= len(self._buf) and not self._fill():
                return
            take = min(n, len(self._buf) - self._i)
            self._i += take
            self.position += take
            n -= take


def _size(n: int) -> str:
    from recorder.parse import _size as size_text

    return size_text(n)


# ---------------------------------------------------------------------------------------
# The per-game work.


class _Fresh(Importer):
    """The import's per-game work, for documents that no store has seen yet.

    ``Importer._prepare`` is the function every path calls (identity, the replay, the
    rows, an unexpected failure as that document's ``internal/import`` refusal); here
    nothing is stored already (the commit decides that, for the whole run at once), so
    its "already stored?" look-up answers no.
    """

    def _known_content(self, pending: _Pending) -> bool:
        return False


class _Verdicts(_Fresh):
    """``batch replay``: the replay's verdict (``recorder replay --json``'s answer) and
    the games row, without the per-move facts."""

    def _prepare_one(self, source: str | None, parsed: Any) -> _Pending:
        doc = parsed.doc
        pending = _begin(source, parsed)
        if pending.outcome is not None:
            return pending
        pending.content_hash = content_hash(doc)
        pending.key = identity_key(doc)
        answer = replay(doc)
        if _refused_by_replay(pending, answer):
            return pending
        pending.result = answer.get("status")
        pending.record = storage.build_record(
            doc, log=log_text(parsed), answer=answer, facts=None,
            content_hash=pending.content_hash, source=source, uploaded_by=None)
        # a valid game's moves are every move of its rounds, as the facts count them
        pending.record.game["moves_count"] = sum(len(r.get("moves") or [])
                                                 for r in doc["rounds"])
        return pending


def _importer(kind: str) -> _Fresh:
    """The import's per-game work; for ``facts`` and ``review`` with each game's
    contribution to the statistics' counters (``stats.contribution``, computed as the
    import computes it, from the facts in hand), which the shard stages for publishing."""
    if kind == "replay":
        return _Verdicts(Database(memory=True), aggregates=False)
    return _Fresh(Database(memory=True), aggregates=_COUNTED)


# ---------------------------------------------------------------------------------------
# The staging of one shard (what the process task writes).

_ID_SCHEMA: Final = pa.schema([
    ("pos", pa.int32()), ("line", pa.int64()), ("index", pa.int64()), ("hash", pa.string()),
    ("key_frontend", pa.string()), ("key_game_id", pa.string()), ("game_id", pa.string()),
    ("preset", pa.string()), ("kind", pa.int8()),
])
"""Every document of a shard: where it is (line and index within the shard), what it is
known by, and whether it is a valid game (1), refused (0), or not even a document (-1:
it could not be parsed, or the input could not be read)."""
VALID, INVALID, UNREAD = 1, 0, -1
_STAGED_REFUSED: Final = pa.schema([
    ("pos", pa.int32()), ("code", pa.string()), ("pointer", pa.string()),
    ("message", pa.string()), ("round", pa.int32()), ("move", pa.int32()),
])
_STAGED_COUNTED: Final = pa.schema([("pos", pa.int32()), ("body", pa.string())])
"""Every valid game of a shard (``batch facts`` and ``review``), in order: its
contribution to the statistics' counters and the players row it adds to
``stats_game_players``, as JSON text (:func:`_counted_text`). The contribution is the
import's (``stats.contribution``), computed once from the facts the replay just gave:
publishing only adds the games the commit accepted, where it would otherwise read every
move back and count it again."""
_GAME_COLUMNS: Final = parquet.GAMES.names


def _staging_schemas() -> dict[str, pa.Schema]:
    """Staged tables: the datasets' schemas with the document's place in the shard where
    the game's id will be (``games.id``, the facts' ``game``)."""
    return {"ids": _ID_SCHEMA, "games": parquet.GAMES, "players": parquet.PLAYERS,
            "rounds": parquet.ROUNDS, "moves": parquet.MOVES, "refused": _STAGED_REFUSED,
            "counted": _STAGED_COUNTED, **parquet.REVIEW_SCHEMAS}


STAGING: Final = _staging_schemas()


# ---------------------------------------------------------------------------------------
# A shard's moves, column by column, from the rounds as the import packs them.

_LAYOUT: Final = ("player", "action", "tile_a", "tile_b", "side", "legal_count", "score",
                  "best_score", "forced", "pips", "best_pips", "least_pips", "double",
                  "double_choice", "next_stuck")
"""The bytes of a packed move this module reads (``recorder.packing``, layout 1)."""
_PACKED: Final = (len(_LAYOUT) == packing.WIDTH and tuple(packing.FIELDS) == _LAYOUT
                  and packing.NULL == 1 and tuple(packing.ACTIONS) == ("play", "draw", "pass")
                  and tuple(packing.SIDES) == ("left", "right", "up", "down"))
"""Whether the packing is the layout read here; if it ever changes, every round is
unpacked by ``packing.unpack_round`` instead (the same rows, at the old cost)."""
_WIDTH: Final = packing.WIDTH


def _byte_value(b: int) -> int | None:
    """``packing._value``: a byte's number, None for the null byte."""
    return None if b == 1 else b - 2


class _Lookups:
    """What each byte of a packed move reads as, per column type, as Arrow arrays indexed
    by the byte (``pyarrow.compute.take``): the values ``packing.unpack_round`` gives,
    made once a process. A byte no packed round holds is out of a table's range, and the
    take fails (the rounds are then unpacked one by one, as before)."""

    def __init__(self) -> None:
        self.int32 = pa.array([_byte_value(b) for b in range(256)], pa.int32())
        self.int8 = pa.array([_byte_value(b) for b in range(130)], pa.int8())
        self.real = pa.array([None if b == 1 else float(b - 2) for b in range(256)],
                             pa.float64())
        # ACTIONS[b - 2] and SIDES[b - 2], negative indexes included, as unpack_round reads
        self.action = pa.array([packing.ACTIONS[b - 2] for b in range(5)], pa.string())
        self.side = pa.array([None if b == 1 else packing.SIDES[b - 2] for b in range(6)],
                             pa.string())
        # a tile is f"{a}-{b}" of its two bytes' numbers, null when the first is null
        self.tile_a = pa.array([None if b == 1 else str(b - 2) for b in range(256)])
        self.tile_b = pa.array([str(_byte_value(b)) for b in range(256)])


_lookups: _Lookups | None = None


class _MoveColumns:
    """The moves rows of a row group of staging, built as Arrow columns.

    The import packs each round's moves (``recorder.packing``: a JSON array of the
    times, ``WIDTH`` bytes a move); the ``moves`` rows are those bytes read back. Here
    the bytes of many rounds are joined into one buffer and read column by column
    (``pyarrow.compute``: a byte a move, looked up in :class:`_Lookups`), where
    unpacking them in Python cost a tuple, 17 values and their conversion a move. Rounds
    the bytes cannot hold (``odd``), and any round the fast reading would not give
    exactly as ``packing.unpack_round`` does, come from ``unpack_round`` itself, in
    their place among the rows.
    """

    def __init__(self) -> None:
        self.rows = 0
        self._parts: list[pa.Table] = []
        self._games = array.array("q")
        self._rounds = array.array("i")
        self._numbers = array.array("i")
        self._times: list[Any] = []
        self._facts: list[bytes] = []
        self._runs: list[tuple[int, int, str]] = []
        self._count = 0

    def add(self, pos: int, round_moves: Sequence[tuple[Any, ...]]) -> None:
        """One game's ``round_moves`` rows (round, ms, facts, odd), in order."""
        for rnd, ms, facts, odd in round_moves:
            if _PACKED and odd is None and facts is not None:
                n, extra = divmod(len(facts), _WIDTH)
                try:
                    times = orjson.loads(ms) if ms else []
                except orjson.JSONDecodeError:
                    times = None
                if not extra and type(times) is list and len(times) == n:
                    if n:
                        self._games.extend(array.array("q", (pos,)) * n)
                        self._rounds.extend(array.array("i", (rnd,)) * n)
                        self._numbers.extend(range(1, n + 1))
                        self._times.extend(times)
                        self._facts.append(facts)
                        self._runs.append((pos, rnd, ms))
                        self._count += n
                        self.rows += n
                    continue
            rows = [(pos, rnd, *row) for row in packing.unpack_round(ms, facts, odd)]
            if rows:
                self._close_run()
                self._parts.append(parquet.table(parquet.MOVES, rows))
                self.rows += len(rows)

    def _close_run(self) -> None:
        """The rounds read from bytes since the last odd round, as one table."""
        if not self._count:
            return
        try:
            part = self._columns()
        except (pa.ArrowException, IndexError, TypeError, ValueError):
            part = self._unpacked()  # a value the tables do not hold: as unpack_round
        self._parts.append(part)
        self._games, self._rounds, self._numbers = \
            array.array("q"), array.array("i"), array.array("i")
        self._times, self._facts, self._runs, self._count = [], [], [], 0

    def _columns(self) -> pa.Table:
        global _lookups
        if _lookups is None:
            _lookups = _Lookups()
        look = _lookups
        n = self._count
        data = b"".join(self._facts)
        # byte k of every move: a strided slice of the joined bytes (a C loop), as uint8
        byte = [pa.Array.from_buffers(pa.uint8(), n, [None, pa.py_buffer(data[k::_WIDTH])])
                for k in range(_WIDTH)]

        def take(table: pa.Array, k: int) -> pa.Array:
            return pc.take(table, byte[k])

        try:
            times = pa.array(self._times, pa.float64())
        except (pa.ArrowException, TypeError, ValueError):
            times = pa.array([None if t is None else float(t) for t in self._times],
                             pa.float64())
        columns = [
            pa.Array.from_buffers(pa.int64(), n, [None, pa.py_buffer(self._games)]),
            pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(self._rounds)]),
            pa.Array.from_buffers(pa.int32(), n, [None, pa.py_buffer(self._numbers)]),
            take(look.int32, 0), take(look.action, 1),
            pc.binary_join_element_wise(take(look.tile_a, 2), take(look.tile_b, 3), "-"),
            take(look.side, 4), times, take(look.int32, 5), take(look.real, 6),
            take(look.real, 7), take(look.int8, 8), take(look.int32, 9),
            take(look.int32, 10), take(look.int32, 11), take(look.int8, 12),
            take(look.int8, 13), take(look.int8, 14),
        ]
        return pa.Table.from_arrays(columns, schema=parquet.MOVES)

    def _unpacked(self) -> pa.Table:
        """The same rows as :meth:`_columns`, unpacked a round at a time (the old way)."""
        rows: list[tuple[Any, ...]] = []
        for (pos, rnd, ms), facts in zip(self._runs, self._facts, strict=True):
            rows.extend((pos, rnd, *row) for row in packing.unpack_round(ms, facts, None))
        return parquet.table(parquet.MOVES, rows)

    def table(self) -> pa.Table:
        """Every row added since the last call, in order (and the buffer emptied)."""
        self._close_run()
        parts, self._parts, self.rows = self._parts, [], 0
        return parts[0] if len(parts) == 1 else pa.concat_tables(parts)


# ---------------------------------------------------------------------------------------
# A game's counters, staged.

_CONTRIBUTION_FIELDS: Final = ("day", "variant", "frontend", "players", "people",
                               "player_rows", "round_row", "hist", "seats", "missed")
_COUNTED: Final = tuple(f.name for f in fields(Contribution)) == _CONTRIBUTION_FIELDS
"""Whether a contribution is the one :func:`_counted_text` writes down; if it ever
changes, shards stage no counters and publishing counts each game from its rows again."""


def _counted_text(record: storage.GameRecord) -> str:
    """A game's ``counted`` row: its contribution (None without one) and its
    ``stats_game_players`` rows (seat, player id, name, final score, won), as JSON that
    reads back the same values: orjson's (in C), unless its text holds a null, which
    may be a float orjson cannot write (an infinity); then Python's, which writes
    those too, after a space (so that it is read back by Python's JSON as well: orjson
    would read a very large whole number as a float)."""
    c = record.stats
    players = [(p[0], p[1], p[2], p[3], 1 if p[4] else 0) for p in record.players]
    value = [players, None if c is None else [
        c.day, c.variant, c.frontend, c.players, c.people, c.player_rows, c.round_row,
        list(c.hist.items()), list(c.seats.items()), c.missed]]
    try:
        text = orjson.dumps(value)
    except TypeError:  # a number beyond 64 bits, a key that is not text
        text = b"null"
    if b"null" in text:
        return " " + json.dumps(value)
    return text.decode("utf-8")


def _counted_of(text: str) -> tuple[list[tuple[Any, ...]], Contribution | None]:
    """A ``counted`` row read back: the players rows and the contribution, its keys
    tuples again."""
    players, c = json.loads(text) if text.startswith(" ") else orjson.loads(text)
    rows = [tuple(p) for p in players]
    if c is None:
        return rows, None
    day, variant, frontend, n, people, player_rows, round_row, hist, seats, missed = c
    return rows, Contribution(
        day, variant, frontend, n, [tuple(p) for p in people], player_rows, round_row,
        {tuple(k): v for k, v in hist}, {tuple(k): v for k, v in seats},
        [tuple(m) for m in missed])


_STAGED_PARQUET: Final = frozenset({"ids", "refused", "moves"})
"""Staged tables kept as Parquet (uncompressed): ``ids``, which the commit reads in
DuckDB, the few refusals, and the moves, which Parquet's encodings hold in about 180 bytes
a round where a stream takes 2,100 (the cost of writing and reading them, about 11 us a
round more, buys a staging of about 2,100 bytes a round instead of 4,000). The rest are
Arrow IPC streams (``parquet.STREAM_SUFFIX``), read only by the shard's publishing: their
rows are mostly the logs, which no encoding makes smaller."""


def _staged_path(folder: str, name: str) -> str:
    return f"{folder}/{name}.parquet" if name in _STAGED_PARQUET else \
        f"{folder}/{name}{parquet.STREAM_SUFFIX}"


def _staged_batches(fs: fsspec.AbstractFileSystem, folder: str, name: str,
                    columns: Sequence[str] | None = None, *, batch_rows: int = 64 * 1024
                    ) -> Iterator[pa.RecordBatch]:
    """A staged table's rows, a batch at a time; staging written as Parquet (by a version
    before the streams: a run stopped and resumed by this one) is read as Parquet."""
    path = _staged_path(folder, name)
    if path.endswith(parquet.STREAM_SUFFIX) and not fs.exists(path):
        old = f"{folder}/{name}.parquet"
        if fs.exists(old):
            yield from parquet.iter_batches(fs, old, columns, batch_rows=batch_rows)
            return
    if path.endswith(parquet.STREAM_SUFFIX):
        yield from parquet.iter_stream(fs, path, columns)
    else:
        yield from parquet.iter_batches(fs, path, columns, batch_rows=batch_rows)


@dataclass
class ShardResult:
    """What a processed shard reports (and its record in the manifest keeps)."""

    id: str
    url: str
    start: int
    end: int | None
    status: str = "staged"
    newlines: int = 0
    """Newlines inside the shard's range: the line numbers of the shards after it."""
    documents: int = 0
    """Documents (non-blank lines) the shard owns: the indexes of the shards after it."""
    games: int = 0
    refused: int = 0
    unreadable: int = 0
    """Inputs that could not be read (from some point on)."""
    internal: int = 0
    """Refusals that are failures of the recorder (``internal/...``)."""
    rounds: int = 0
    reviewed: int = 0
    """Rounds reviewed (``batch review``)."""
    seconds: float = 0.0


class _Stage:
    """The staging tables of one shard, written by row groups, each file put in place
    whole when the shard is done."""

    def __init__(self, fs: fsspec.AbstractFileSystem, folder: str, kind: str) -> None:
        names = ["ids", "games", "refused"]
        if kind in ("facts", "review"):
            names += list(parquet.FACT_DATASETS)
            if _COUNTED:
                names.append("counted")
        if kind == "review":
            names += list(parquet.REVIEW_DATASETS)
        self._rows: dict[str, list[tuple[Any, ...]]] = {n: [] for n in names
                                                        if n != "moves"}
        self._moves = _MoveColumns() if "moves" in names else None
        self._files = {n: parquet.FileWriter(fs, _staged_path(folder, n), STAGING[n],
                                             compression=parquet.STAGING_COMPRESSION)
                       if n in _STAGED_PARQUET else
                       parquet.StreamWriter(fs, _staged_path(folder, n), STAGING[n])
                       for n in names}

    @property
    def counted(self) -> bool:
        """Whether the shard stages its games' counters (else publishing counts them)."""
        return "counted" in self._rows

    def add(self, name: str, row: tuple[Any, ...]) -> None:
        rows = self._rows[name]
        rows.append(row)
        if len(rows) >= _BUFFER_ROWS[name]:
            self._flush(name)

    def add_facts(self, pos: int, record: storage.GameRecord) -> None:
        """A game's players, rounds and moves rows, under its place in the shard: the
        moves from the rounds as the import packs them (``record.round_moves``), turned
        into columns a row group at a time."""
        for name, facts in (("players", record.players), ("rounds", record.rounds)):
            rows = self._rows.get(name)
            if rows is None or not facts:
                continue  # batch replay keeps no facts
            rows.extend([(pos, *row) for row in facts])
            if len(rows) >= _BUFFER_ROWS[name]:
                self._flush(name)
        moves = self._moves
        if moves is not None and record.round_moves:
            moves.add(pos, record.round_moves)
            if moves.rows >= _BUFFER_ROWS["moves"]:
                self._flush("moves")

    def _flush(self, name: str) -> None:
        if name == "moves":
            if self._moves is not None and self._moves.rows:
                self._files[name].write(self._moves.table())
            return
        rows = self._rows[name]
        if rows:
            self._files[name].write(parquet.table(STAGING[name], rows))
            rows.clear()

    def close(self) -> None:
        for name in self._files:
            self._flush(name)
        for writer in self._files.values():
            writer.close()

    def abort(self) -> None:
        for writer in self._files.values():
            writer.abort()


@dataclass(frozen=True)
class _Tail:
    """Not a document: the count of newlines in the shard's range, after its last line."""

    newlines: int


_Item = tuple[Parsed | _InputFailure | _Tail, bytes | None]
"""A document (or the input's failure, or the tail) and the bytes it came from."""


def _documents(shard: Shard, limits: Limits) -> Iterator[_Item]:
    """The shard's documents in order, then its :class:`_Tail`; an input that cannot be
    read (any more) ends them with a :class:`_InputFailure` worded as the import words it."""
    fs, path = fsspec.core.url_to_fs(shard.url)
    try:
        size = int(fs.info(path).get("size") or 0)
        if str(size) != shard.stamp.partition(":")[0]:
            raise InputError(f"{shard.url} changed since the run was planned: "
                             "run the batch again")
        with fs.open(path, "rb") as raw:
            if shard.mode == "whole":
                yield from _whole(raw, shard, limits)
            elif shard.gzip:
                gz = gzip.GzipFile(fileobj=raw, mode="rb")
                yield from _lines(gz.read1, 0, shard, limits)
            else:
                at = max(shard.start - 1, 0)
                raw.seek(at)
                yield from _lines(raw.read, at, shard, limits)
    except InputError as exc:
        yield _InputFailure(exc), None
    except EOFError:
        yield _InputFailure(InputError("the gzip data is cut off before its end")), None
    except (gzip.BadGzipFile, zlib.error) as exc:
        yield _InputFailure(InputError(f"the gzip data is damaged: {exc}")), None
    except OSError as exc:
        yield _InputFailure(InputError(f"cannot read {shard.url}: {exc.strerror or exc}")), None


def _whole(raw: Any, shard: Shard, limits: Limits) -> Iterator[_Item]:
    """A file that is not JSON Lines, read whole as the import reads it."""
    data = raw.read(limits.max_input_bytes + 1)
    if len(data) > limits.max_input_bytes:
        raise TooLarge(
            f"the input is larger than {_size(limits.max_input_bytes)}, the most read at "
            "once; write one document a line (JSON Lines) to send more")
    for parsed in iter_documents(data, limits=limits):
        yield parsed, parsed.text
    yield _Tail(0), None


def _lines(read: Callable[[int], bytes], position: int, shard: Shard, limits: Limits
           ) -> Iterator[_Item]:
    """The JSON Lines documents that start inside the shard's range, parsed as the import
    parses each line (``parse_line``), numbered within the shard: its first line is 1.

    ``read`` gives the stream from ``position`` (the byte before the range, or the start
    of a gzip stream, which cannot seek).
    """
    start, end = shard.start, shard.end
    reader = _Reader(read, position, limits)
    newlines = 0  # newlines at offsets in [start, end)

    def inside(offset: int | None) -> bool:
        return offset is not None and offset >= start and (end is None or offset < end)

    if start > 0:
        reader.skip_bytes(start - 1 - reader.position)
        # the rest of the line holding the byte before the range (just "\n" when a line
        # starts with the range): it belongs to the shard before
        newline = reader.skip_line()
        if inside(newline):
            newlines += 1
        if newline is None or (end is not None and newline + 1 >= end):
            yield _Tail(newlines), None
            return
    index = 0
    while end is None or reader.position < end:
        item = reader.read_line()
        if item is None:
            break
        offset, chunk, complete = item
        line_no = newlines + 1
        if not complete:
            newline = reader.skip_line()
        else:
            newline = offset + len(chunk) - 1 if chunk.endswith(b"\n") else None
        if inside(newline):
            newlines += 1
        if offset == 0 and chunk.startswith(_BOM):
            chunk, offset = chunk[3:], offset + 3
        if complete and not chunk.strip(_WHITESPACE):
            continue  # a blank line: no document, as in the import
        if complete:
            parsed = parse_line(RawLine(index, line_no, offset, chunk), limits)
        else:
            parsed = Parsed(index, line_no, None, InputError(
                f"line {line_no}: the line is longer than "
                f"{_size(limits.max_document_bytes)}, the most accepted for one document"))
        index += 1
        yield parsed, chunk.rstrip(b"\r\n")
    yield _Tail(newlines), None


def process_shard(shard: Shard, out: str, kind: str, limits: Limits,
                  settings: Settings | None = None) -> ShardResult:
    """The task of one shard: every document's rows into the shard's staging folder, then
    its record. Deterministic: run twice (a worker killed), it writes the same files.
    ``settings``: how ``batch review`` reviews each valid game."""
    started = time.perf_counter()
    fs, root = parquet.filesystem(out)
    folder = f"{root}/{MANIFEST}/staging/{shard.id}"
    result = ShardResult(shard.id, shard.url, shard.start, shard.end)
    importer = _importer(kind)
    stage = _Stage(fs, folder, kind)
    try:
        pos = 0
        for item, raw in _documents(shard, limits):
            if isinstance(item, _Tail):
                result.newlines = item.newlines
                continue
            if _stage_document(stage, importer, shard, pos, item, raw, result) and \
                    kind == "review":
                assert settings is not None and isinstance(item, Parsed)
                _stage_review(stage, pos, item.doc, settings, result)
            pos += 1
        stage.close()
    except BaseException:
        stage.abort()
        raise
    result.seconds = round(time.perf_counter() - started, 3)
    _write_record(fs, root, result)
    return result


def _stage_document(stage: _Stage, importer: _Fresh, shard: Shard, pos: int,
                    item: Parsed | _InputFailure, raw: bytes | None, result: ShardResult) -> bool:
    """One document's rows, or its refusal, into the staging tables; True for a valid game."""
    if isinstance(item, _InputFailure):
        error = item.error.to_dict()
        digest = hashlib.sha256(f"{shard.url}\0{error['message']}".encode()).hexdigest()
        stage.add("ids", (pos, None, None, digest, None, None, None, None, UNREAD))
        stage.add("refused", _refused_row(pos, error))
        result.refused += 1
        result.unreadable += 1
        return False
    result.documents += 1
    pending = importer._prepare(shard.url, item)
    record = pending.record
    key = pending.key
    kf, kg = key if key is not None else (None, None)
    if record is not None and pending.outcome is None:
        game = record.game
        stage.add("ids", (pos, item.line, item.index, pending.content_hash, kf, kg,
                          pending.game_id, game["preset"], VALID))
        # the log as received: what the stored, compressed log decompresses to
        stage.add("games", tuple(pos if c == "id" else log_text(item)
                                 if c == "log" else game[c] for c in _GAME_COLUMNS))
        stage.add_facts(pos, record)
        if stage.counted:
            stage.add("counted", (pos, _counted_text(record)))
        result.games += 1
        result.rounds += int(game["rounds_count"] or 0)
        return True
    assert pending.outcome is not None and pending.outcome.status == REFUSED
    error = pending.outcome.error or {}
    doc = item.doc
    preset = storage.preset_of(doc.get("ruleset")) if isinstance(doc, dict) else None
    if preset not in PRESETS:
        preset = None  # a refused document may name anything: no folder for that
    if pending.content_hash:
        digest, kind = pending.content_hash, INVALID
    else:  # not hashed (not parsed, or the recorder failed first): known by its bytes
        digest = hashlib.sha256(raw if raw is not None else
                                f"{shard.url}\0{item.line}\0{item.index}".encode()).hexdigest()
        kind = UNREAD if item.error is not None else INVALID
    stage.add("ids", (pos, item.line, item.index, digest, kf, kg, pending.game_id, preset,
                      kind))
    stage.add("refused", _refused_row(pos, error))
    result.refused += 1
    if str(error.get("code", "")).startswith("internal/"):
        result.internal += 1
    return False


def _stage_review(stage: _Stage, pos: int, doc: Any, settings: Settings,
                  result: ShardResult) -> None:
    """A valid game's review, round by round, into the staging tables: a ``reviews`` row
    per round (one of round 0 for a game without a round to review) and a
    ``review_decisions`` row per decision, under the game's place in the shard.

    A round's review is ``review_round``'s, the function every path calls, so the rows
    hold what ``recorder review --json`` prints; its limits (positions a decision,
    decisions a game) are the settings'. The recorder failing on a game (a bug) is
    logged and counted as an internal failure; the game stays, without a review.
    """
    key = settings_key(settings)
    try:
        plan = plan_review(doc)
        if plan.error is not None:  # pragma: no cover - the import accepted it
            raise RuntimeError(f"the review refuses a game the import accepts: {plan.error}")
        total = len(plan.before)
        rounds = [review_round(doc, r, settings, skip=plan.before[r - 1])
                  for r in range(1, total + 1)]
    except Exception:
        log.exception("reviewing the game at %d of its shard failed", pos)
        result.internal += 1
        return
    if not rounds:
        stage.add("reviews", (pos, key, NO_ROUNDS, REVIEW_VERSION, 0, 0, None,
                              jsontext.dumps({"round": NO_ROUNDS, "decisions": []})))
    for obj in rounds:
        stage.add("reviews", (pos, key, obj["round"], REVIEW_VERSION, total,
                              len(obj["decisions"]), None, jsontext.dumps(obj)))
        for d in obj["decisions"]:
            stage.add("review_decisions", _decision_row(pos, key, obj["round"], d))
    result.reviewed += len(rounds)


def _decision_row(pos: int, key: str, round_no: int, d: dict[str, Any]) -> tuple[Any, ...]:
    choices = d["choices"]
    played = choices[d["played"]]
    values = [c["value"] for c in choices if c["value"] is not None]
    valued = d["class"] is not None and bool(values)
    return (pos, key, REVIEW_VERSION, round_no, d["move"], d["player"], len(choices),
            d["samples"], d["played"], d["best"], played["action"], played["tile"],
            played["end"], d["loss"], d["class"], played["value"],
            choices[d["best"]]["value"] if valued else None,
            min(values) if valued else None)


def _refused_row(pos: int, error: dict[str, Any]) -> tuple[Any, ...]:
    return (pos, error.get("code"), error.get("pointer"), str(error.get("message", "")),
            int(error.get("round") or 0), int(error.get("move") or 0))


# ---------------------------------------------------------------------------------------
# The manifest.


def _record_path(root: str, shard_id: str) -> str:
    return f"{root}/{MANIFEST}/shards/{shard_id}.json"


def _write_record(fs: fsspec.AbstractFileSystem, root: str, result: ShardResult) -> None:
    parquet.write_bytes_atomic(fs, _record_path(root, result.id),
                               json.dumps(asdict(result), sort_keys=True).encode())


def _read_json(fs: fsspec.AbstractFileSystem, path: str) -> Any:
    try:
        with fs.open(path, "rb") as f:
            return json.loads(f.read())
    except FileNotFoundError:
        return None


def read_records(fs: fsspec.AbstractFileSystem, root: str) -> dict[str, ShardResult]:
    """Every shard record in the manifest, by shard id."""
    folder = f"{root}/{MANIFEST}/shards"
    if not fs.exists(folder):
        return {}
    out = {}
    for path in fs.glob(f"{folder}/*.json"):
        data = _read_json(fs, path)
        if data is not None:
            out[data["id"]] = ShardResult(**data)
    return out


def open_state(fs: fsspec.AbstractFileSystem, root: str, kind: str, made_by: str = "batch"
               ) -> dict[str, Any]:
    """The folder's state (its layout and kind), made with the datasets' empty files on
    first use; a folder of another kind or layout is refused."""
    path = f"{root}/{MANIFEST}/state.json"
    state = _read_json(fs, path)
    if state is None:
        fs.makedirs(root, exist_ok=True)
        parquet.write_empty_files(fs, root, counters=kind == "facts")
        state = {"layout": LAYOUT, "kind": kind, "made_by": made_by,
                 "created": storage.utc_now()}
        parquet.write_bytes_atomic(fs, path, json.dumps(state, sort_keys=True).encode())
        return state
    if state.get("layout") != LAYOUT:
        raise BatchError(f"{root} holds datasets of layout {state.get('layout')!r}; this "
                         f"version writes layout {LAYOUT}: write to a new folder")
    if state.get("kind") != kind:
        raise BatchError(f"{root} holds the datasets of 'batch {state.get('kind')}'; "
                         f"'batch {kind}' writes to a folder of its own")
    return state


@contextmanager
def folder_lock(fs: fsspec.AbstractFileSystem, root: str) -> Iterator[None]:
    """One run at a time in a local folder (a lock file naming its process; one left by a
    process that is gone is taken over). Remote folders are not locked: run one batch at
    a time there."""
    if not parquet.is_local(fs):
        yield
        return
    folder = Path(root) / MANIFEST
    folder.mkdir(parents=True, exist_ok=True)
    lock = folder / "lock"
    me = f"{socket.gethostname()} {os.getpid()}"
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = lock.read_text(errors="replace").split()
            if len(holder) == 2 and holder[0] == socket.gethostname() and \
                    holder[1].isdigit() and not _alive(int(holder[1])):
                lock.unlink(missing_ok=True)
                continue
            raise BatchError(f"another batch run ({' '.join(holder) or 'unknown'}) is "
                             f"writing {root}; wait for it, or remove {lock} if it is "
                             "gone") from None
        with os.fdopen(fd, "w") as f:
            f.write(me)
        break
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ---------------------------------------------------------------------------------------
# The commit: identity decided for the whole run at once.

_DECISIONS: Final = pa.schema([
    ("pos", pa.int32()), ("verdict", pa.string()), ("id", pa.int64()), ("at", pa.string()),
])
"""One shard's decisions: each accepted document's games.id, and each refusal that is
kept (for a conflict, the id and import time of the game holding the frontend + game_id);
a document not named (a duplicate, or a refusal already kept) writes nothing."""

_KEY_SQL: Final = ("CASE WHEN {f} IS NOT NULL AND {g} IS NOT NULL "
                   "THEN 'k' || length({f})::VARCHAR || ':' || {f} || {g} "
                   "ELSE 'h' || {h} END")


@dataclass
class Tally:
    """What became of a run's documents (the import's three outcomes), and its work."""

    accepted: int = 0
    duplicate: int = 0
    refused: int = 0
    unreadable: int = 0
    internal: int = 0
    rounds: int = 0
    shards: int = 0
    skipped: int = 0
    """Shards done by an earlier run (not read again)."""
    reviewed: int = 0
    """Games whose review this run published (``batch review``)."""
    reviewed_rounds: int = 0
    """Rounds the run's tasks reviewed (a game already reviewed is reviewed again when
    it is in a shard not done before, and its review not published twice)."""

    @property
    def total(self) -> int:
        return self.accepted + self.duplicate + self.refused


def _duck_paths(fs: fsspec.AbstractFileSystem, paths: Sequence[str]) -> list[str]:
    return list(paths) if parquet.is_local(fs) else [fs.unstrip_protocol(p) for p in paths]


def _connect_duckdb(fs: fsspec.AbstractFileSystem, root: str) -> Any:
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
    con.execute("SET preserve_insertion_order = false")
    if parquet.is_local(fs):
        spill = Path(root) / MANIFEST / "spill"
        spill.mkdir(parents=True, exist_ok=True)
        con.execute(f"SET temp_directory = '{spill}'")
    else:
        con.register_filesystem(fs)
    return con


def decide(fs: fsspec.AbstractFileSystem, root: str, shards: Sequence[Shard],
           bases: dict[str, list[int]], now: str, review: str | None = None
           ) -> dict[str, Any]:
    """Decide every staged document of ``shards`` against the games already in the
    datasets, write each shard's decisions, and return the commit (not yet written).

    ``review`` (``batch review``: the settings' key): also which staged reviews are
    published, a ``review`` decision naming the game's id: that of the first copy of each
    game in the run (accepted now, or a duplicate of a game stored before) whose game has
    no review of this version with these settings in the datasets yet."""
    staging = f"{root}/{MANIFEST}/staging"
    files = [f"{staging}/{s.id}/ids.parquet" for s in shards]
    con = _connect_duckdb(fs, root)
    try:
        con.register("shard_map", pa.table({
            "file": _duck_paths(fs, files),
            "ord": pa.array([s.ordinal for s in shards], pa.int64())}))
        games = _duck_paths(fs, parquet.dataset_files(fs, root, "games"))
        refused = _duck_paths(fs, parquet.dataset_files(fs, root, "refused"))
        con.execute("CREATE TEMP TABLE c AS SELECT m.ord, i.pos, i.hash, i.kind, "
                    + _KEY_SQL.format(f="i.key_frontend", g="i.key_game_id", h="i.hash")
                    + " AS g, m.ord * 4294967296 + i.pos AS o "
                    "FROM read_parquet(?, filename = true) i JOIN shard_map m "
                    "ON i.filename = m.file", [_duck_paths(fs, files)])
        con.execute("CREATE TEMP TABLE e AS SELECT id, content_hash AS hash, imported_at, "
                    + _KEY_SQL.format(f="frontend", g="game_id", h="content_hash")
                    + " AS g FROM read_parquet(?)", [games])
        base = int(con.execute("SELECT coalesce(max(id), 0) FROM e").fetchone()[0])
        con.execute(
            "CREATE TEMP TABLE w AS "
            "SELECT g, hash AS whash, -1::BIGINT AS wo, id AS wid, imported_at AS wat FROM e "
            "UNION ALL "
            "SELECT g, whash, wo, ? + row_number() OVER (ORDER BY wo), ? FROM ("
            "  SELECT g, arg_min(hash, o) AS whash, min(o) AS wo FROM c "
            "  WHERE kind = 1 AND NOT EXISTS (SELECT 1 FROM e WHERE e.g = c.g) GROUP BY g)",
            [base, now])
        con.execute(
            "CREATE TEMP TABLE v AS SELECT c.ord, c.pos, c.hash, c.o, CASE "
            "  WHEN c.kind = -1 OR w.g IS NULL THEN 'refuse' "
            "  WHEN c.hash = w.whash THEN CASE WHEN c.o = w.wo THEN 'accept' "
            "                                  ELSE 'duplicate' END "
            "  WHEN c.o > w.wo AND (c.kind = 1 OR w.wo = -1) THEN 'conflict' "
            "  ELSE 'refuse' END AS verdict, w.wid, w.wat "
            "FROM c LEFT JOIN w ON c.g = w.g AND c.kind <> -1")
        counts = dict(con.execute("SELECT verdict, count(*) FROM v GROUP BY verdict")
                      .fetchall())
        con.execute("CREATE TEMP TABLE known AS SELECT DISTINCT content_hash AS hash "
                    "FROM read_parquet(?) WHERE content_hash IS NOT NULL", [refused])
        reviews = ""
        if review is not None:
            done = _duck_paths(fs, parquet.dataset_files(fs, root, "reviews"))
            con.execute("CREATE TEMP TABLE reviewed AS SELECT DISTINCT game FROM "
                        "read_parquet(?) WHERE settings = ? AND version = ?",
                        [done, review, REVIEW_VERSION])
            con.execute(
                "CREATE TEMP TABLE r AS SELECT ord, pos, wid FROM ("
                "  SELECT *, row_number() OVER (PARTITION BY wid ORDER BY o) AS n FROM v "
                "  WHERE verdict IN ('accept', 'duplicate')) d "
                "WHERE n = 1 AND NOT EXISTS (SELECT 1 FROM reviewed WHERE game = d.wid)")
            counts["review"] = int(con.execute("SELECT count(*) FROM r").fetchall()[0][0])
            reviews = ("UNION ALL SELECT ord, pos::INTEGER, 'review', wid, NULL::VARCHAR "
                       "FROM r ")
        reader = con.sql(
            "SELECT ord, pos::INTEGER AS pos, verdict, wid AS id, wat AS at FROM v "
            "WHERE verdict = 'accept' UNION ALL "
            "SELECT ord, pos::INTEGER, verdict, wid, wat FROM ("
            "  SELECT *, row_number() OVER (PARTITION BY hash ORDER BY o) AS n FROM v "
            "  WHERE verdict IN ('refuse', 'conflict')) d "
            "WHERE n = 1 AND NOT EXISTS (SELECT 1 FROM known WHERE known.hash = d.hash) "
            + reviews + "ORDER BY ord, pos").to_arrow_reader(64 * 1024)
        _write_decisions(fs, root, shards, reader)
    finally:
        con.close()
    return {"time": now, "base_id": base, "shards": [asdict(s) for s in shards],
            "bases": {s.id: bases[s.id] for s in shards}, "counts": counts}


def _write_decisions(fs: fsspec.AbstractFileSystem, root: str, shards: Sequence[Shard],
                     reader: Any) -> None:
    """Each shard's decisions in a file of its own (the rows come sorted by shard)."""
    by_ordinal = {s.ordinal: s for s in shards}
    current: int | None = None
    parts: list[pa.Table] = []

    def flush() -> None:
        if current is not None and parts:
            path = _decisions_path(root, by_ordinal[current].id)
            with parquet.FileWriter(fs, path, _DECISIONS) as writer:
                writer.write(pa.concat_tables(parts))
        parts.clear()

    for batch in reader:
        ords = batch.column("ord")
        for ordinal in pc.unique(ords).to_pylist():
            if ordinal != current:
                flush()
                current = ordinal
            part = pa.Table.from_batches([batch.filter(pc.equal(ords, ordinal))])
            parts.append(part.select(_DECISIONS.names).cast(_DECISIONS))
    flush()


def _decisions_path(root: str, shard_id: str) -> str:
    return f"{root}/{MANIFEST}/commit/{shard_id}.parquet"


def line_bases(shards: Sequence[Shard], records: dict[str, ShardResult]
               ) -> dict[str, list[int]]:
    """Each shard's first line and first index in its file, less one: the newlines and
    the documents of the file's shards before it (every shard of a file is in one plan)."""
    out: dict[str, list[int]] = {}
    running: dict[str, list[int]] = {}
    for shard in sorted(shards, key=lambda s: s.ordinal):
        line, index = running.get(shard.url, [0, 0])
        out[shard.id] = [line, index]
        record = records.get(shard.id)
        if record is not None:
            running[shard.url] = [line + record.newlines, index + record.documents]
    return out


# ---------------------------------------------------------------------------------------
# Publishing: a shard's accepted rows into the datasets.


def publish_shard(shard: Shard, bases: list[int], out: str, kind: str, now: str) -> int:
    """The task that moves one decided shard into the datasets; returns the games it put
    there. Each file is written whole; run twice, it writes the same files again."""
    fs, root = parquet.filesystem(out)
    staging = f"{root}/{MANIFEST}/staging/{shard.id}"
    ids = _read_all(fs, f"{staging}/ids.parquet")
    decisions = _read_all(fs, _decisions_path(root, shard.id)) \
        if fs.exists(_decisions_path(root, shard.id)) else _DECISIONS.empty_table()
    accepted = decisions.filter(pc.equal(decisions.column("verdict"), "accept"))
    reviewed = decisions.filter(pc.equal(decisions.column("verdict"), "review"))
    chosen: dict[str, tuple[Any, Any, Any]] = {}
    lookups: dict[str, _Chosen] = {}
    for verdict, rows in (("accept", accepted), ("review", reviewed)):
        by_pos = ids.take(pc.index_in(rows.column("pos"), value_set=ids.column("pos")))
        chosen[verdict] = (rows.column("pos"), rows.column("id"), by_pos.column("preset"))
        lookups[verdict] = _Chosen(ids.num_rows, *chosen[verdict])
    names: tuple[str, ...] = ("games",)
    if kind in ("facts", "review"):
        names += parquet.FACT_DATASETS
    if kind == "review":
        names += parquet.REVIEW_DATASETS
    writers = {n: parquet.PartitionedWriter(fs, root, n, shard.id) for n in names}
    writers["refused"] = parquet.PartitionedWriter(fs, root, "refused", shard.id)
    try:
        for name in names:
            column = "id" if name == "games" else "game"
            lookup = lookups["review" if name in parquet.REVIEW_DATASETS else "accept"]
            if not lookup.any:
                continue
            parts = _PresetParts(writers[name], _WRITE_ROWS.get(name, 64 * 1024))
            for batch in _staged_batches(fs, staging, name,
                                         batch_rows=_READ_ROWS.get(name, 64 * 1024)):
                positions = batch.column(column)
                new_ids = pc.take(lookup.ids, positions)
                if new_ids.null_count == len(new_ids):
                    continue
                codes = pc.take(lookup.codes, positions)
                if new_ids.null_count:
                    keep = pc.is_valid(new_ids)
                    batch, new_ids, codes = \
                        batch.filter(keep), new_ids.filter(keep), codes.filter(keep)
                batch = batch.set_column(batch.schema.get_field_index(column), column,
                                         new_ids)
                if name == "games":
                    batch = _stamped(batch, now)
                elif name == "reviews":
                    at = pa.array([now] * batch.num_rows, pa.string())
                    batch = batch.set_column(batch.schema.get_field_index("reviewed_at"),
                                             "reviewed_at", at)
                present = pc.unique(codes).to_pylist()
                for code in present:
                    parts.add(lookup.presets[code], batch if len(present) == 1 else
                              batch.filter(pc.equal(codes, code)))
            parts.close()
        _publish_refusals(fs, staging, shard, ids, decisions, bases, now, writers["refused"])
        if kind in ("facts", "review"):
            _count_shard(fs, staging, *chosen["accept"][:2], now)
        for writer in writers.values():
            writer.close()
    except BaseException:
        for writer in writers.values():
            writer.abort()
        raise
    record = _read_record(fs, root, shard.id)
    if record is not None:
        record.status = "published"
        _write_record(fs, root, record)
    return accepted.num_rows


class _Chosen:
    """The documents of a shard a verdict publishes, as look-ups by place in the shard
    (``pyarrow.compute.take`` by a staged row's ``game``): the games.id each gets, and
    the number of its preset in ``presets`` (null: not published)."""

    def __init__(self, documents: int, positions: pa.Array, new_ids: pa.Array,
                 presets: pa.Array) -> None:
        places = positions.to_pylist()
        size = max([documents, *(p + 1 for p in places)])
        self.presets: list[str | None] = list(dict.fromkeys(presets.to_pylist()))
        number = {preset: i for i, preset in enumerate(self.presets)}
        ids: list[int | None] = [None] * size
        codes: list[int | None] = [None] * size
        for place, new_id, preset in zip(places, new_ids.to_pylist(), presets.to_pylist(),
                                         strict=True):
            ids[place], codes[place] = new_id, number[preset]
        self.any = bool(places)
        self.ids = pa.array(ids, pa.int64())
        self.codes = pa.array(codes, pa.int32())


_WRITE_ROWS: Final = {"games": 256, "reviews": 1024}
"""Rows of one preset a publish task gathers before it writes them (64 Ki for the other
datasets), up to four times that over all presets: a shard's batches hold every preset
mixed, and a row group per batch and preset made small row groups, whose many small
pages cost more to compress (and to read) than a few large ones."""


class _PresetParts:
    """A dataset's published rows gathered by preset, written a large row group at a
    time."""

    def __init__(self, writer: parquet.PartitionedWriter, rows: int) -> None:
        self._writer, self._rows = writer, rows
        self._parts: dict[str | None, list[pa.RecordBatch]] = {}
        self._counts: dict[str | None, int] = {}
        self._total = 0

    def add(self, preset: str | None, batch: pa.RecordBatch) -> None:
        self._parts.setdefault(preset, []).append(batch)
        count = self._counts[preset] = self._counts.get(preset, 0) + batch.num_rows
        self._total += batch.num_rows
        if count >= self._rows:
            self._write(preset)
        elif self._total >= 4 * self._rows:
            self.close()

    def _write(self, preset: str | None) -> None:
        parts = self._parts.pop(preset, None)
        if parts:
            self._writer.add_table(preset, pa.Table.from_batches(parts))
            self._total -= self._counts.pop(preset)

    def close(self) -> None:
        """Write what is gathered (the writer itself is closed with the others)."""
        for preset in list(self._parts):
            self._write(preset)


def _count_shard(fs: fsspec.AbstractFileSystem, staging: str, positions: pa.Array,
                 new_ids: pa.Array, now: str) -> None:
    """The statistics' counters of the games a shard publishes, at the day grain, into
    its staging (``counters/<table>.parquet``), for the run's roll-up
    (:mod:`recorder.warehouse`). Counted from the rows as published (ids, and the
    commit's import time where the log gives no date), a game at a time: the staged
    tables are in the order of the shard's documents."""
    ids = dict(zip(positions.to_pylist(), new_ids.to_pylist(), strict=True))
    names = [c for c in warehouse.GAME_FIELDS if c != "id"]
    if fs.exists(_staged_path(staging, "counted")):
        _count_staged(fs, staging, ids, names, now)
        return
    # a shard staged without its counters (a layout of the contribution this version
    # does not write down): each game counted again from its rows
    counters = warehouse.DayCounters()
    facts = {name: _by_position(fs, staging, name) for name in parquet.FACT_DATASETS}
    heads: dict[str, tuple[int, list[tuple[Any, ...]]] | None] = {
        name: next(rows, None) for name, rows in facts.items()}
    for batch in _staged_batches(fs, staging, "games", ["id", *names], batch_rows=4096):
        for pos, *values in parquet.rows_of([batch]):
            if pos not in ids:
                continue
            game = dict(zip(names, values, strict=True))
            game.update(id=ids[pos], imported_at=now, played_at=game["started_at"] or now)
            rows: dict[str, list[tuple[Any, ...]]] = {}
            for name, group in facts.items():
                head = heads[name]
                while head is not None and head[0] < pos:
                    head = next(group, None)
                heads[name] = head
                rows[name] = head[1] if head is not None and head[0] == pos else []
            counters.add(game, warehouse.facts_of(rows["players"], rows["rounds"],
                                                  rows["moves"]))
    warehouse.write_tables(fs, f"{staging}/counters", counters.tables())


def _count_staged(fs: fsspec.AbstractFileSystem, staging: str, ids: dict[int, int],
                  names: Sequence[str], now: str) -> None:
    """:func:`_count_shard` from the contributions the shard's processing staged (a
    ``counted`` row a valid game, in the order of its ``games`` rows): each published
    game adds its own, dated as the import dates it, by the log's start or else the
    commit's import time."""
    counters = warehouse.DayCounters()
    bodies: Iterator[tuple[Any, ...]] = parquet.rows_of(
        _staged_batches(fs, staging, "counted"))
    for batch in _staged_batches(fs, staging, "games", ["id", *names], batch_rows=4096):
        for pos, *values in parquet.rows_of([batch]):
            at, body = next(bodies)
            if at != pos:  # pragma: no cover - written together, in one order
                raise RuntimeError(f"the staged counters of {staging} are out of order")
            if pos not in ids:
                continue
            game = dict(zip(names, values, strict=True))
            game.update(id=ids[pos], imported_at=now, played_at=game["started_at"] or now)
            players, c = _counted_of(body)
            if c is not None:  # stats.contribution's day, with the commit's import time
                c.day = stats.game_day(game)
            counters.add_counted(game, players, c)
    warehouse.write_tables(fs, f"{staging}/counters", counters.tables())


def _by_position(fs: fsspec.AbstractFileSystem, staging: str, name: str
                 ) -> Iterator[tuple[int, list[tuple[Any, ...]]]]:
    """A staged facts table's rows, a document at a time: (its place in the shard, its
    rows without the place), in order."""
    current: int | None = None
    rows: list[tuple[Any, ...]] = []
    for batch in _staged_batches(fs, staging, name):
        for pos, *row in parquet.rows_of([batch]):
            if pos != current:
                if current is not None:
                    yield current, rows
                current, rows = pos, []
            rows.append(tuple(row))
    if current is not None:
        yield current, rows


def _stamped(batch: pa.RecordBatch, now: str) -> pa.RecordBatch:
    """A games batch with the commit's import time (and so its ``played_at`` where the log
    has no date): the time the games entered the datasets, the same in every retry."""
    at = pa.array([now] * batch.num_rows, pa.string())
    batch = batch.set_column(batch.schema.get_field_index("imported_at"), "imported_at", at)
    played = pc.coalesce(batch.column("started_at"), at)
    return batch.set_column(batch.schema.get_field_index("played_at"), "played_at", played)


def _publish_refusals(fs: fsspec.AbstractFileSystem, staging: str, shard: Shard,
                      ids: pa.Table, decisions: pa.Table, bases: list[int], now: str,
                      writer: parquet.PartitionedWriter) -> None:
    """The shard's kept refusals, each with its place in the file and its error, a few
    thousand at a time (a shard of bad lines holds many)."""
    kept = decisions.filter(pc.is_in(decisions.column("verdict"),
                                     value_set=pa.array(["refuse", "conflict"])))
    if not kept.num_rows:
        return
    staged = _read_all(fs, f"{staging}/refused.parquet")
    line_base, index_base = bases
    for chunk in kept.to_batches(max_chunksize=4096):
        where = ids.take(pc.index_in(chunk.column("pos"), value_set=ids.column("pos")))
        errors = staged.take(pc.index_in(chunk.column("pos"),
                                         value_set=staged.column("pos")))
        columns = [c.to_pylist() for c in (
            chunk.column("verdict"), chunk.column("id"), chunk.column("at"),
            where.column("line"), where.column("index"), where.column("hash"),
            where.column("key_frontend"), where.column("key_game_id"),
            where.column("game_id"), where.column("preset"), errors.column("code"),
            errors.column("pointer"), errors.column("message"), errors.column("round"),
            errors.column("move"))]
        for (verdict, winner, at, line, index, digest, kf, kg, game_id, preset, code,
             pointer, message, rnd, move) in zip(*columns, strict=True):
            if verdict == "conflict":
                error = _conflict_error((kf, kg), {"id": winner, "imported_at": at})
                code, pointer, message = error["code"], error.get("pointer"), error["message"]
                rnd, move = error["round"], error["move"]
            if shard.mode == "lines" and line is not None:
                local = f"line {line}: "
                line += line_base
                if message.startswith(local):
                    message = f"line {line}: " + message[len(local):]
            if index is not None:
                index += index_base
            writer.add(preset, (shard.url, line, index, game_id, preset, code, pointer,
                                message, rnd, move, digest, now))


def _read_all(fs: fsspec.AbstractFileSystem, path: str) -> pa.Table:
    with fs.open(path, "rb") as f:
        return pq.ParquetFile(f).read()


def _read_record(fs: fsspec.AbstractFileSystem, root: str, shard_id: str
                 ) -> ShardResult | None:
    data = _read_json(fs, _record_path(root, shard_id))
    return None if data is None else ShardResult(**data)


# ---------------------------------------------------------------------------------------
# A run.

Progress = Callable[[str, int, dict[str, Any]], Any]
"""``progress(step, total)`` opens a step's bar and returns ``update(n, **postfix)``."""


@dataclass
class Report:
    """What a run did: the outcomes of the documents it decided, and where it wrote."""

    out: str
    kind: str
    tally: Tally = field(default_factory=Tally)
    seconds: float = 0.0
    refusals: list[dict[str, Any]] = field(default_factory=list)
    """The first refusals kept by this run (for the command's report; all are in
    ``refused``)."""
    steps: dict[str, float] = field(default_factory=dict)
    """Seconds of each step (``cluster``, ``plan``, the kind's processing, ``commit``,
    ``publish``): where a run's time goes."""

    def timed(self, step: str, since: float) -> float:
        now = time.perf_counter()
        self.steps[step] = round(self.steps.get(step, 0.0) + now - since, 3)
        return now


@contextmanager
def dask_client(scheduler: str | None, workers: int) -> Iterator[Any]:
    """A client of the cluster at ``scheduler``, else of a LocalCluster of ``workers``
    worker processes (one thread each: the per-game work is Python, held by the GIL)."""
    from distributed import Client, LocalCluster

    if scheduler:
        client = Client(scheduler, timeout="30s")
        try:
            yield client
        finally:
            client.close()
        return
    cluster = LocalCluster(n_workers=max(1, workers), threads_per_worker=1, processes=True,
                           dashboard_address=LOOPBACK, silence_logs=logging.ERROR)
    try:
        client = Client(cluster)
        try:
            yield client
        finally:
            client.close()
    finally:
        cluster.close()


def _plan_path(root: str, source: SourceFile, shard_bytes: int) -> str:
    digest = hashlib.sha256(json.dumps([source.url, source.stamp, shard_bytes]).encode())
    return f"{root}/{MANIFEST}/files/{digest.hexdigest()[:32]}.json"


def _gather(client: Any, futures: Sequence[Any], bar: Callable[..., Any]) -> Iterator[Any]:
    """Results as they come, the bar moved for each."""
    from distributed import as_completed

    for future in as_completed(futures):
        result = future.result()
        bar(result)
        yield result


def run(sources: Sequence[str], out: str, kind: str, *, scheduler: str | None = None,
        workers: int = 2, shard_bytes: int = DEFAULT_SHARD_BYTES,
        limits: Limits | None = None, progress: Progress | None = None,
        client: Any = None, settings: Settings | None = None) -> Report:
    """One ``recorder batch`` run (see the module's doc); raises BatchError for what stops
    it before it starts, and lets a failed task's error through (run it again).
    ``settings``: how ``batch review`` reviews (default: ``recorder review``'s)."""
    if kind not in KINDS:
        raise BatchError(f"no batch {kind!r}: {', '.join(KINDS)}")
    started = time.perf_counter()
    lim = limits or Limits()
    review = (settings or Settings()) if kind == "review" else None
    work = review_work(review) if review is not None else ""
    files = expand_sources(sources)
    fs, root = parquet.filesystem(out)
    report = Report(out, kind)
    bar_for = progress or (lambda step, total, _: lambda n=1, **kw: None)
    with folder_lock(fs, root):
        open_state(fs, root, "facts" if kind == "review" else kind)
        if review is not None:
            parquet.write_empty_files(fs, root, counters=True, reviews=True)
        with (_borrowed(client) if client is not None else
              dask_client(scheduler, workers)) as dask:
            at = report.timed("cluster", started)
            pending = _read_json(fs, f"{root}/{MANIFEST}/commit.json")
            if pending is not None:  # a run stopped after deciding: publish as decided
                was = pending.get("kind") or ("facts" if kind == "review" else kind)
                _publish(dask, fs, root, out, was, pending, bar_for, report)
                at = report.timed("publish", at)
            shards = [Shard(**{**asdict(s), "work": work}) for s in
                      _plan(dask, fs, root, files, shard_bytes, lim, bar_for)]
            at = report.timed("plan", at)
            records = read_records(fs, root)
            todo = [s for s in shards if s.id not in records]
            report.tally.shards = len(shards)
            report.tally.skipped = len(shards) - len(todo)
            if todo:
                update = bar_for(kind, len(todo), {})
                rounds = [0]

                def moved(result: ShardResult) -> None:
                    rounds[0] += result.rounds
                    update(1, rounds=rounds[0])

                futures = dask.map(process_shard, todo, out=out, kind=kind, limits=lim,
                                   settings=review,
                                   key=[f"recorder-{kind}-{s.id}-{uuid.uuid4().hex[:8]}"
                                        for s in todo], retries=2)
                for result in _gather(dask, futures, moved):
                    records[result.id] = result
                    report.tally.reviewed_rounds += result.reviewed
                at = report.timed(kind, at)
            staged = [s for s in shards if records[s.id].status == "staged"]
            for s in staged:
                r = records[s.id]
                report.tally.rounds += r.rounds
                report.tally.unreadable += r.unreadable
                report.tally.internal += r.internal
            if staged:
                now = storage.utc_now()
                commit = decide(fs, root, staged, line_bases(shards, records), now,
                                review=None if review is None else settings_key(review))
                if kind == "review":
                    commit["kind"] = kind  # a run stopped now is published as a review
                parquet.write_bytes_atomic(fs, f"{root}/{MANIFEST}/commit.json",
                                           json.dumps(commit, sort_keys=True).encode())
                at = report.timed("commit", at)
                _publish(dask, fs, root, out, kind, commit, bar_for, report)
                report.timed("publish", at)
    report.seconds = time.perf_counter() - started
    return report


@contextmanager
def _borrowed(client: Any) -> Iterator[Any]:
    yield client


def review_work(settings: Settings) -> str:
    """What a shard's review is known by: the review's version and the settings' key (a
    review made otherwise is other work, with its own records and files)."""
    return f"review/{REVIEW_VERSION}/{settings_key(settings)}"


def reviews_of(out: str, settings: Settings) -> dict[int, dict[str, Any]]:
    """Every game's review in the datasets made with ``settings`` by this version, by
    ``games.id``: the object ``recorder review --json`` prints for the game's log, put
    together from its rounds' rows as the SQLite store does (``recorder.review.assemble``).
    For tests and checks: it reads the whole datasets."""
    key = settings_key(settings)
    games = {g["id"]: g for g in parquet.read_dataset(
        out, "games", ["id", "game_id", "status", "player_count"]).to_pylist()}
    rounds: dict[int, list[tuple[int, dict[str, Any]]]] = {}
    for row in parquet.read_dataset(out, "reviews").to_pylist():
        if row["settings"] == key and row["version"] == REVIEW_VERSION:
            found = rounds.setdefault(row["game"], [])
            if row["round"] != NO_ROUNDS:
                found.append((row["round"], json.loads(row["body"])))
    out_reviews = {}
    for game, found in rounds.items():
        g = games[game]
        plan = Plan(g["status"], int(g["player_count"] or 0), [])
        out_reviews[game] = assemble({"game_id": g["game_id"]}, settings, plan,
                                     [obj for _, obj in sorted(found, key=lambda x: x[0])])
    return out_reviews


def _plan(dask: Any, fs: fsspec.AbstractFileSystem, root: str, files: Sequence[SourceFile],
          shard_bytes: int, limits: Limits, bar_for: Progress) -> list[Shard]:
    """Every file's shards, in order, each numbered in the run; plans made before are
    read back (a gzip file is measured once)."""
    plans: dict[int, list[Shard]] = {}
    missing = []
    for i, source in enumerate(files):
        cached = _read_json(fs, _plan_path(root, source, shard_bytes))
        if cached is not None:
            plans[i] = [Shard(**s) for s in cached]
        else:
            missing.append(i)
    if missing:
        update = bar_for("plan", len(missing), {})
        futures = dask.map(plan_file, [files[i] for i in missing], shard_bytes=shard_bytes,
                           limits=limits, key=[f"recorder-plan-{uuid.uuid4().hex}"
                                               for _ in missing], retries=2)
        for i, future in zip(missing, futures, strict=True):
            plans[i] = future.result()
            update(1)
            parquet.write_bytes_atomic(fs, _plan_path(root, files[i], shard_bytes),
                                       json.dumps([asdict(s) for s in plans[i]]).encode())
    shards = []
    for i in range(len(files)):
        for shard in plans[i]:
            shards.append(Shard(**{**asdict(shard), "ordinal": len(shards)}))
    return shards


def _publish(dask: Any, fs: fsspec.AbstractFileSystem, root: str, out: str, kind: str,
             commit: dict[str, Any], bar_for: Progress, report: Report) -> None:
    """Publish every shard of a decided commit, then clear the commit and its staging."""
    shards = [Shard(**s) for s in commit["shards"]]
    records = read_records(fs, root)
    todo = [s for s in shards if records.get(s.id) is None or
            records[s.id].status != "published"]
    if todo:
        update = bar_for("publish", len(todo), {})
        futures = dask.map(publish_shard, todo, [commit["bases"][s.id] for s in todo],
                           out=out, kind=kind, now=commit["time"],
                           key=[f"recorder-publish-{s.id}-{uuid.uuid4().hex[:8]}"
                                for s in todo], retries=2)
        for _ in _gather(dask, futures, lambda _: update(1)):
            pass
    if kind in ("facts", "review"):
        _roll_up(fs, root, shards, commit)
    counts = commit["counts"]
    report.tally.reviewed += counts.get("review", 0)
    report.tally.accepted += counts.get("accept", 0)
    report.tally.duplicate += counts.get("duplicate", 0)
    report.tally.refused += counts.get("refuse", 0) + counts.get("conflict", 0)
    report.refusals += _first_refusals(fs, root, shards)
    fs.rm(f"{root}/{MANIFEST}/commit.json")
    for shard in shards:
        for path in (f"{root}/{MANIFEST}/staging/{shard.id}", _decisions_path(root, shard.id)):
            if fs.exists(path):
                fs.rm(path, recursive=True)
    for folder in ("staging", "commit", "spill"):
        path = f"{root}/{MANIFEST}/{folder}"
        if fs.exists(path) and not fs.ls(path):
            fs.rm(path, recursive=True)


def _roll_up(fs: fsspec.AbstractFileSystem, root: str, shards: Sequence[Shard],
             commit: dict[str, Any]) -> None:
    """The run's counters: the day counters its shards staged, summed into one file per
    counters dataset named after the commit (written again the same, if the run is)."""
    parts: dict[str, list[str]] = {}
    for shard in shards:
        folder = f"{root}/{MANIFEST}/staging/{shard.id}/counters"
        for name in parquet.COUNTERS:
            path = f"{folder}/{name}.parquet"
            if fs.exists(path):
                parts.setdefault(name, []).append(path)
    spill = str(Path(root) / MANIFEST / "spill") if parquet.is_local(fs) else None
    if spill is not None:
        Path(spill).mkdir(parents=True, exist_ok=True)
    warehouse.roll_up(fs, root, parts, warehouse.run_tag(commit), spill=spill)


def _first_refusals(fs: fsspec.AbstractFileSystem, root: str, shards: Sequence[Shard],
                    limit: int = 20) -> list[dict[str, Any]]:
    """Up to ``limit`` of the refusals these shards published, in order."""
    out: list[dict[str, Any]] = []
    names = {f"part-{s.id}.parquet": s.ordinal for s in shards}
    paths = [p for p in parquet.dataset_files(fs, root, "refused")
             if p.rpartition("/")[2] in names]
    for path in sorted(paths, key=lambda p: names[p.rpartition("/")[2]]):
        for row in _read_all(fs, path).to_pylist():
            out.append(row)
            if len(out) >= limit:
                return out
    return out
