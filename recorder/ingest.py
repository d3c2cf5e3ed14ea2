"""Ingest: the one path from bytes to stored games, for the CLI, the API and the web form.

    bytes -> documents (``recorder.parse``, with size limits) -> schema + replay
    (``recorder.replay``) -> facts (``recorder.analysis``) -> rows (``recorder.storage``)

Every document gets exactly one :class:`Outcome`: ``accepted`` (stored now),
``duplicate`` (already stored: nothing changes), ``superseded`` (it continues an
unfinished game stored before, which it replaces: :mod:`recorder.continuation`) or
``refused`` (with the located error; nothing is stored). A refused document never stops
the others.

Games go in by batches. The slow part of a game (the replay and its facts) runs
before the batch takes the write lock; then one ``BEGIN IMMEDIATE`` transaction
re-checks identity and writes the whole batch, each game inside its own SAVEPOINT so
that one failing game leaves no row and costs the others nothing. A process killed
midway loses at most the batch in flight, which the next run imports again.

A game is known by its normalized content (:mod:`recorder.identity`) and, when it has
both, by its frontend's name and its ``game_id``. Re-sending a game is a duplicate;
sending other content under a known frontend + ``game_id`` is refused, unless it continues
the unfinished game stored under them. A log is judged (the schema, then the rules) before
it is compared with what is stored under its frontend + ``game_id``, so a broken log is
never answered ``duplicate`` or ``game/conflict``. The one comparison made before the
replay is by content hash, which is safe: the normal form never joins a valid log with an
invalid one (see :mod:`recorder.identity`), so a log whose hash is stored is valid.
"""

from __future__ import annotations

import logging
import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, BinaryIO, Protocol

from sqlite_utils import Database

from recorder import binding, continuation, identity, stats, storage
from recorder.analysis import analyse
from recorder.collector import paused as collector_paused
from recorder.errors import InputError, RecorderError, internal_error
from recorder.parse import (
    Count,
    Limits,
    Parsed,
    RawLine,
    iter_documents,
    iter_file,
    iter_path_raw,
    parse_line,
)
from recorder.pool import chunked, default_workers, ordered_map

log = logging.getLogger(__name__)

ACCEPTED = "accepted"
DUPLICATE = "duplicate"
SUPERSEDED = "superseded"
REFUSED = "refused"
STATUSES = (ACCEPTED, DUPLICATE, SUPERSEDED, REFUSED)

DEFAULT_BATCH = 64
"""Games per transaction at most: large enough that commits are a small share of the
time, small enough that a killed import redoes little and other writers wait little."""
DEFAULT_BATCH_ROUNDS = 2000
"""Rounds per transaction at most: what a batch holds in memory grows with its rounds
(about 25 move rows each), so this, not the game count, keeps memory flat when games
are long."""

IMPORT_SUFFIXES = (".json", ".jsonl", ".ndjson", ".gz")
"""What a folder given to ``recorder import`` contributes; other files are skipped."""


class ParsedLike(Protocol):
    """What ``recorder.parse`` yields for each document of an input."""

    @property
    def index(self) -> int | None: ...
    @property
    def line(self) -> int | None: ...
    @property
    def doc(self) -> Any: ...
    @property
    def error(self) -> RecorderError | None: ...


@dataclass(frozen=True)
class Outcome:
    """The verdict on one document of an input."""

    status: str
    game_id: str | None = None
    error: dict[str, Any] | None = None
    id: int | None = None
    """``games.id`` of the stored game (the new row, the one this duplicates, or the
    unfinished one this continues and replaces: its id stays)."""
    source: str | None = None
    index: int | None = None
    line: int | None = None
    result: str | None = None
    """The engine's status of an accepted or superseding game: ``finished`` or
    ``unfinished``."""
    mismatches: list[dict[str, Any]] | None = None
    """The claimed figures of an accepted (or superseding) game that differ from the
    engine's, as the engine's answer lists them (docs/format.md): a frontend that reads
    only the upload report sees its scoring go wrong."""

    @property
    def internal(self) -> bool:
        """Whether this refusal stands for a failure of the recorder, not of the log."""
        code = (self.error or {}).get("code")
        return isinstance(code, str) and code.startswith("internal/")

    def to_json(self) -> dict[str, Any]:
        """The per-game report line of ``recorder import --json`` and ``POST /api/games``."""
        out: dict[str, Any] = {
            "game_id": self.game_id,
            "status": self.status,
            "error": self.error,
            "id": self.id,
        }
        if self.result is not None:
            out["result"] = self.result
        if self.mismatches:
            out["mismatches"] = self.mismatches
        if self.source is not None:
            out["source"] = self.source
        out["index"] = self.index
        out["line"] = self.line
        return out

    def describe(self) -> str:
        """One human line: where the document was, and what became of it."""
        where = self.source or "input"
        if self.line is not None:
            where += f":{self.line}"
        elif self.index is not None:
            where += f" #{self.index + 1}"
        name = f" {self.game_id}" if self.game_id else ""
        if self.status == REFUSED and self.error:
            return f"{where}{name}: refused: {locate(self.error)}"
        if self.status == DUPLICATE:
            return f"{where}{name}: duplicate of game #{self.id}"
        if self.status == SUPERSEDED:
            return f"{where}{name}: continues game #{self.id}, which it replaces"
        return f"{where}{name}: {self.status}" + ("" if self.id is None else f" as game #{self.id}")


def locate(error: Mapping[str, Any]) -> str:
    """An error dict as one line that starts with its location, as docs/format.md writes it."""
    message = str(error.get("message", ""))
    r, m = error.get("round") or 0, error.get("move") or 0
    if message.startswith("round ") or (not r and not m):
        return message
    return f"round {r}, move {m}: {message}" if m else f"round {r}: {message}"


@dataclass
class Tally:
    """Running counts of outcomes; the last line of every report."""

    accepted: int = 0
    duplicate: int = 0
    superseded: int = 0
    refused: int = 0

    def add(self, outcome: Outcome) -> None:
        setattr(self, outcome.status, getattr(self, outcome.status) + 1)

    @property
    def total(self) -> int:
        return self.accepted + self.duplicate + self.superseded + self.refused

    def as_dict(self) -> dict[str, int]:
        return {ACCEPTED: self.accepted, DUPLICATE: self.duplicate,
                SUPERSEDED: self.superseded, REFUSED: self.refused}


# ---------------------------------------------------------------------------------------
# Identity (recorder.identity: the normal form and the hash; re-exported for callers).

normalize_tile = identity.normalize_tile
normalized = identity.normalized
canonical_bytes = identity.canonical_bytes
canonical_json = identity.canonical_json
content_hash = identity.content_hash
identity_key = identity.identity_key


def _game_id(doc: Any) -> str | None:
    if isinstance(doc, dict) and isinstance(doc.get("game_id"), str):
        return str(doc["game_id"])
    return None


def _conflict_error(key: tuple[str, str], other: Mapping[str, Any]) -> dict[str, Any]:
    frontend, game_id = key
    return {
        "round": 0,
        "move": 0,
        "code": "game/conflict",
        "pointer": "/game_id",
        "message": (
            f"frontend {frontend!r} already sent a different game with game_id {game_id!r} "
            f"(stored as game #{other['id']} on {other['imported_at']}); a game_id must name "
            "one game: give this game its own game_id, or send the stored game unchanged"
        ),
    }


# ---------------------------------------------------------------------------------------
# The pipeline.


def log_bytes(parsed: Any) -> bytes:
    """The document's bytes as they came (the parser keeps them), else its JSON.

    The parser has already refused anything that is not UTF-8, so the stored log always
    decodes as the text received.
    """
    text = getattr(parsed, "text", None)
    if isinstance(text, bytes):
        return text
    return storage.to_json(parsed.doc).encode("utf-8")


def log_text(parsed: Any) -> str:
    """The document's text as it came (what a Parquet dataset keeps in ``games.log``)."""
    return log_bytes(parsed).decode("utf-8")


def _engine(doc: Any) -> tuple[dict[str, Any], Any]:
    """The engine's answer and, for a valid game, its facts.

    A failure inside the engine is reported as a refusal of this one game, not as a
    crash of the whole import (and logged, since it is a bug to fix, not a bad log).
    """
    try:
        return analyse(doc)
    except RecorderError as exc:
        return {"status": "invalid", "error": exc.to_dict()}, None
    except Exception as exc:  # the engine must never take the service down
        log.exception("the engine failed on a document")
        return {"status": "invalid", "error": internal_error(exc, "replay").to_dict()}, None


@dataclass
class _Pending:
    """One document on its way through a batch."""

    source: str | None
    index: int | None
    line: int | None
    game_id: str | None = None
    outcome: Outcome | None = None
    record: storage.GameRecord | None = None
    content_hash: str = ""
    key: tuple[str, str] | None = None
    result: str | None = None
    mismatches: list[dict[str, Any]] | None = None

    def decide(self, status: str, *, id: int | None = None,
               error: dict[str, Any] | None = None) -> Outcome:
        accepted = status in (ACCEPTED, SUPERSEDED)
        self.outcome = Outcome(
            status, game_id=self.game_id, error=error, id=id, source=self.source,
            index=self.index, line=self.line, result=self.result if accepted else None,
            mismatches=self.mismatches if accepted else None,
        )
        return self.outcome


@dataclass
class Importer:
    """Feeds documents through the pipeline into one database.

    ``uploaded_by`` is the ``tokens.id`` of the uploader (None from the command line).
    """

    db: Database
    uploaded_by: int | None = None
    batch_size: int = DEFAULT_BATCH
    batch_rounds: int = DEFAULT_BATCH_ROUNDS
    tally: Tally = field(default_factory=Tally)
    aggregates: bool = True
    """Keep the statistics' counters (``recorder.stats``) with the rows; off only to
    measure what they cost."""
    frontend: str | None = None
    """The frontend an upload token is bound to (:mod:`recorder.binding`): each log must
    name it or none, and one that names none is stored as this frontend's. None from the
    command line, where each log names its own."""
    _stats: stats.Accumulator = field(default_factory=stats.Accumulator)

    def run(self, items: Iterable[tuple[str | None, ParsedLike]]) -> Iterator[Outcome]:
        """Import ``(source, parsed)`` pairs; yields each outcome once its batch is committed."""
        return self.store(self._prepare(source, parsed) for source, parsed in items)

    def store(self, prepared: Iterable[_Pending]) -> Iterator[Outcome]:
        """Store documents prepared here or by workers, in their order, by batches.

        Whatever way this ends (done, failed, or closed by its reader), ``prepared`` is
        closed now, so that worker processes stop at once, not at the program's exit.
        The cyclic garbage collector is paused while a batch is gathered (prepared here
        with ``workers=0``, unpickled from the workers otherwise) and written, and runs
        while its outcomes are reported (:func:`collector_paused`).
        """
        source = iter(prepared)
        try:
            while True:
                with collector_paused():
                    batch = self._gather(source)
                    if batch:
                        self._write(batch)
                if not batch:
                    return
                yield from self._report(batch)
        finally:
            close = getattr(prepared, "close", None)
            if close is not None:
                close()

    def _gather(self, source: Iterator[_Pending]) -> list[_Pending]:
        """The next batch: up to ``batch_size`` documents or ``batch_rounds`` rounds."""
        batch: list[_Pending] = []
        rounds = 0
        for pending in source:
            batch.append(pending)
            if pending.record is not None:
                rounds += len(pending.record.rounds) or 1
            if len(batch) >= self.batch_size or rounds >= self.batch_rounds:
                break
        return batch

    def _prepare(self, source: str | None, parsed: ParsedLike) -> _Pending:
        """Everything that needs no lock: identity, pre-checks, the replay, the rows.

        An unexpected exception here is this document's ``internal/import`` refusal,
        logged; the batch goes on without it. Database failures are not caught: they
        concern every document, and the import stops with them.
        """
        try:
            return self._prepare_one(source, parsed)
        except sqlite3.Error:
            raise
        except Exception as exc:
            log.exception("importing a document failed")
            pending = _Pending(source, parsed.index, parsed.line,
                               game_id=_game_id(parsed.doc))
            pending.decide(REFUSED, error=internal_error(exc, "import").to_dict())
            return pending

    def _prepare_one(self, source: str | None, parsed: ParsedLike) -> _Pending:
        doc = parsed.doc
        pending = _begin(source, parsed)
        if pending.outcome is not None:
            return pending
        received = log_bytes(parsed)
        if self.frontend is not None:
            refusal = binding.refusal(doc, self.frontend)
            if refusal is not None:
                pending.decide(REFUSED, error=refusal.to_dict())
                return pending
            doc, text = binding.with_frontend(doc, received.decode("utf-8"), self.frontend)
            received = text.encode("utf-8")
        pending.content_hash = identity.content_hash(doc)
        pending.key = identity.identity_key(doc)
        # The one look-up before the replay: a stored hash is a valid game's, and the
        # normal form never joins a valid log with an invalid one, so this is a duplicate
        # (re-importing a known file costs no replay). Everything else is judged first.
        if self._known_content(pending):
            return pending
        answer, facts = _engine(doc)
        if _refused_by_replay(pending, answer):
            return pending
        pending.result = answer.get("status")
        pending.mismatches = answer.get("mismatches")
        pending.record = storage.build_record(
            doc, log=received, answer=answer, facts=facts,
            content_hash=pending.content_hash, source=source, uploaded_by=self.uploaded_by,
        )
        if self.aggregates:
            pending.record.stats = stats.contribution(pending.record.game, facts)
        return pending

    def _known_content(self, pending: _Pending) -> bool:
        """Decide a game whose content is stored already: a duplicate."""
        known = storage.find_by_hash(self.db, pending.content_hash)
        if known is None:
            return False
        pending.decide(DUPLICATE, id=known["id"])
        return True

    def _write(self, batch: Sequence[_Pending]) -> None:
        """Store the batch's new games in one transaction; each gets its outcome."""
        new = [p for p in batch if p.record is not None]
        if new:
            with storage.write_transaction(self.db):
                self._stats = stats.Accumulator()
                stored = _Stored(self.db, new)
                for pending in new:
                    self._store(pending, stored)
                # the counters of the games just stored, in their transaction: exactly once
                self._stats.flush(self.db)

    def _report(self, batch: Sequence[_Pending]) -> Iterator[Outcome]:
        """The batch's outcomes, in order, each counted in the tally as it is given."""
        for pending in batch:
            assert pending.outcome is not None
            self.tally.add(pending.outcome)
            yield pending.outcome

    def _store(self, pending: _Pending, stored: _Stored) -> None:
        """Store one judged game under the write lock, deciding its identity there, where
        what another writer or an earlier game of this batch stored is seen (``stored``).

        A game whose frontend + ``game_id`` is stored already is refused as a conflict,
        unless it continues that stored game, which is unfinished (:mod:`recorder.
        continuation`): then it replaces it, rows and counters, in this same savepoint.
        """
        assert pending.record is not None
        known = stored.by_hash.get(pending.content_hash)
        if known is not None:
            pending.decide(DUPLICATE, id=known["id"])
            pending.record = None
            return
        other = None if pending.key is None else stored.by_key.get(pending.key)
        if other is not None and not continuation.continues(self.db, other, pending.record):
            assert pending.key is not None
            pending.record = None
            pending.decide(REFUSED, error=_conflict_error(pending.key, other))
            return
        removed: stats.Contribution | None = None
        try:
            with storage.savepoint(self.db):
                if other is None:
                    game_pk = storage.insert_game(self.db, pending.record)
                else:
                    game_pk = int(other["id"])
                    removed = stats.stored_contribution(self.db, game_pk)
                    storage.replace_game(self.db, game_pk, pending.record)
        except sqlite3.IntegrityError as exc:
            log.exception("could not store a game")
            pending.record = None
            pending.decide(REFUSED, error={
                "round": 0, "move": 0, "code": "storage/constraint",
                "message": f"the game could not be stored: {exc}",
            })
            return
        except sqlite3.Error:
            raise  # the database itself failed (full, read-only, locked): stop the import
        except Exception as exc:  # the savepoint undid this game's rows; the batch goes on
            log.exception("storing a game failed")
            pending.record = None
            pending.decide(REFUSED, error=internal_error(exc, "storage").to_dict())
            return
        stored.add(game_pk, pending.record.game, replaced=other)
        if other is None:
            pending.decide(ACCEPTED, id=game_pk)
        else:
            # the replaced game's counters go with its rows, in the same transaction
            self._stats.remove(game_pk, removed)
            pending.decide(SUPERSEDED, id=game_pk)
        self._stats.add(game_pk, pending.record.stats)
        pending.record = None  # its rows are in the file; free them before the batch ends


def _begin(source: str | None, parsed: ParsedLike) -> _Pending:
    """A document's pending outcome, already refused if it could not be parsed: where
    every path's per-game work starts, so a refusal reads the same from each."""
    pending = _Pending(source, parsed.index, parsed.line, game_id=_game_id(parsed.doc))
    if parsed.error is not None:
        pending.decide(REFUSED, error=parsed.error.to_dict())
    return pending


def _refused_by_replay(pending: _Pending, answer: Mapping[str, Any]) -> bool:
    """Refuse ``pending`` if the replay found its log invalid, with the engine's error
    (round, move, reason), coded ``log/invalid`` where the engine names no code."""
    if answer.get("status") != "invalid":
        return False
    error = dict(answer.get("error") or {"round": 0, "move": 0, "message": "invalid"})
    error.setdefault("code", "log/invalid")
    pending.decide(REFUSED, error=error)
    return True


class _Stored:
    """The identity of the stored games a batch's games may meet, looked up for the whole
    batch at once when its transaction takes the write lock, then kept up to date as the
    batch stores games: what :func:`recorder.storage.find_by_hash` and
    :func:`~recorder.storage.find_by_key` would answer at each game, two look-ups a batch
    instead of two a game. Nothing else writes while the lock is held, so this is exact."""

    def __init__(self, db: Database, batch: Sequence[_Pending]) -> None:
        self.by_hash = storage.find_by_hashes(db, (p.content_hash for p in batch))
        self.by_key = storage.find_by_keys(db, (p.key for p in batch if p.key is not None))

    def add(self, game_pk: int, game: Mapping[str, Any],
            replaced: Mapping[str, Any] | None = None) -> None:
        """A game just stored as ``game_pk`` (in the place of ``replaced``, whose content
        is then no longer stored): the identity columns of its row, as a look-up finds them."""
        if replaced is not None:
            self.by_hash.pop(replaced["content_hash"], None)
        identity = {"id": game_pk, "frontend": game["frontend"], "game_id": game["game_id"],
                    "content_hash": game["content_hash"], "imported_at": game["imported_at"]}
        self.by_hash[identity["content_hash"]] = identity
        if identity["frontend"] is not None and identity["game_id"] is not None:
            self.by_key[(identity["frontend"], identity["game_id"])] = identity


# ---------------------------------------------------------------------------------------
# Inputs.


@dataclass(frozen=True)
class _InputFailure:
    """A whole input that could not be read, reported in the stream like a refused game."""

    error: RecorderError
    index: int | None = None
    line: int | None = None
    doc: Any = None


def expand_paths(paths: Iterable[str]) -> Iterator[str]:
    """Files as given; folders as the importable files under them, in name order."""
    for path in paths:
        if path == "-":
            yield path
            continue
        p = Path(path)
        if p.is_dir():
            for child in sorted(p.rglob("*")):
                if child.is_file() and child.name.lower().endswith(IMPORT_SUFFIXES):
                    yield str(child)
        else:
            yield path


def iter_sources(
    paths: Iterable[str], *, limits: Limits | None = None
) -> Iterator[tuple[str | None, ParsedLike]]:
    """Documents of every path, streamed; an unreadable input becomes one refused item.

    Documents read before a file turns out to be damaged (a truncated gzip) still go
    in: each is a game in its own right, and re-running the import skips them.
    """
    for source, item in _iter_inputs(paths, limits or Limits(), unparsed=False):
        assert not isinstance(item, RawLine)
        yield source, item


def _iter_inputs(
    paths: Iterable[str], lim: Limits, *, unparsed: bool
) -> Iterator[tuple[str, ParsedLike | RawLine]]:
    """:func:`iter_sources`, with the lines of JSON Lines left unparsed if ``unparsed``."""
    for path in expand_paths(paths):
        source = "<stdin>" if path == "-" else path
        try:
            for parsed in iter_path_raw(path, limits=lim, unparsed=unparsed):
                yield source, parsed
        except InputError as exc:
            yield source, _InputFailure(exc)
        except OSError as exc:
            yield source, _InputFailure(InputError(f"cannot read {source}: {exc.strerror}"))
        except Exception as exc:  # a bug of the parser: the other inputs still go in
            log.exception("reading %s failed", source)
            yield source, _InputFailure(internal_error(exc, "parse"))


def import_paths(
    db: Database,
    paths: Iterable[str],
    *,
    limits: Limits | None = None,
    batch_size: int = DEFAULT_BATCH,
    workers: int = 0,
    method: str | None = None,
) -> tuple[Importer, Iterator[Outcome]]:
    """The command line's import: returns the importer (for its tally) and the outcomes.

    With ``workers`` > 0, that many worker processes parse, replay and build the rows of
    each game (see :mod:`recorder.pool`); this process alone writes, in input order,
    so the outcomes, their order and what is stored are the same as with 0 (all here).
    With fewer workers than cores, this process also prepares chunks itself whenever
    the workers' next one is not ready (``ordered_map(..., helping=True)``).
    ``method`` is the processes' start method (``fork`` where there is one).
    """
    importer = Importer(db, batch_size=batch_size)
    path = database_file(db)
    if workers <= 0 or path is None:
        return importer, importer.run(iter_sources(paths, limits=limits))
    lim = limits or Limits()
    wire = (_item_to_wire(source, item) for source, item in
            _iter_inputs(paths, lim, unparsed=True))
    results = ordered_map(
        _prepare_chunk, chunked(wire, _wire_size), workers, initializer=_start_worker,
        initargs=(path, importer.uploaded_by, importer.aggregates, _limits_args(lim)),
        method=method, helping=workers < default_workers(),
    )
    return importer, importer.store(_unwired(results))


def _unwired(results: Iterator[list[_WireItem]]) -> Iterator[_Pending]:
    """The workers' answers, in order; closing this stops the workers."""
    try:
        for chunk in results:
            for item in chunk:
                yield _pending_from_wire(item)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()


def database_file(db: Database) -> str | None:
    """The file of ``db``'s main database; None for one in memory (workers cannot share it)."""
    for _, name, file in db.execute("PRAGMA database_list").fetchall():
        if name == "main":
            return str(file) or None
    return None


# ---------------------------------------------------------------------------------------
# Worker processes (``import --workers N``). What goes to and from a worker is plain data:
# tuples of str, bytes, numbers, lists and dicts, nothing of the engine.

_WireItem = tuple[Any, ...]
_worker: Importer | None = None
_worker_limits: Limits = Limits()


def _limits_args(limits: Limits) -> dict[str, int]:
    return {name: getattr(limits, name) for name in limits.__dataclass_fields__}


def _item_to_wire(source: str, item: ParsedLike | RawLine) -> _WireItem:
    """An input item as a worker gets it: a line to parse, a parsed document, or a refusal."""
    if isinstance(item, RawLine):
        return ("line", source, item.index, item.number, item.offset, item.chunk)
    if item.error is not None:
        return ("refused", source, item.index, item.line, item.error.to_dict())
    return ("doc", source, item.index, item.line, item.doc, getattr(item, "text", None))


def _wire_size(item: _WireItem) -> int:
    text = item[5] if item[0] in ("line", "doc") else None
    return len(text) if isinstance(text, bytes) else 1024


def _start_worker(db_path: str, uploaded_by: int | None, aggregates: bool,
                  limits: dict[str, int]) -> None:
    """Each worker's own read connection, for the cheap "already stored?" checks that
    spare a known game its replay (the writer checks again under its lock)."""
    global _worker, _worker_limits
    _worker = Importer(storage.connect(db_path, migrate=False), uploaded_by=uploaded_by,
                       aggregates=aggregates)
    _worker_limits = Limits(**limits)


def _prepare_chunk(chunk: list[_WireItem]) -> list[_WireItem]:
    """A worker's job: every document of the chunk prepared as :meth:`Importer._prepare` does.

    The cyclic garbage collector is paused for the chunk: a document, its facts and its
    rows are trees that reference counting frees, and the collector would only walk the
    chunk's results again and again as they pile up (a tenth of a worker's time or more).
    It is resumed, as it was, before the results go back; anything cyclic made meanwhile
    (a caught error's traceback) is collected then.
    """
    importer = _worker
    assert importer is not None, "the worker was not started"
    with collector_paused():
        return _prepare_items(importer, chunk)


def _prepare_items(importer: Importer, chunk: list[_WireItem]) -> list[_WireItem]:
    out: list[_WireItem] = []
    for item in chunk:
        kind, source = item[0], item[1]
        parsed: ParsedLike
        if kind == "line":
            parsed = parse_line(RawLine(*item[2:]), _worker_limits)
        elif kind == "doc":
            parsed = Parsed(item[2], item[3], item[4], None, item[5])
        else:
            error = item[4]
            parsed = _InputFailure(
                RecorderError(error["message"], round=error["round"], move=error["move"],
                              pointer=error.get("pointer"), code=error["code"]),
                index=item[2], line=item[3])
        out.append(_pending_to_wire(importer._prepare(source, parsed)))
    return out


_CONTRIBUTION_FIELDS = tuple(f.name for f in fields(stats.Contribution))


def _pending_to_wire(p: _Pending) -> _WireItem:
    decided = None if p.outcome is None else (p.outcome.status, p.outcome.id, p.outcome.error)
    record = None
    if p.record is not None:
        r = p.record
        contribution = None if r.stats is None else \
            tuple(getattr(r.stats, name) for name in _CONTRIBUTION_FIELDS)
        record = (r.game, r.players, r.rounds, r.round_moves, contribution)
    return (p.source, p.index, p.line, p.game_id, p.content_hash, p.key, p.result, decided,
            record, p.mismatches)


def _pending_from_wire(w: _WireItem) -> _Pending:
    source, index, line, game_id, content_hash, key, result, decided, record, mismatches = w
    pending = _Pending(source, index, line, game_id=game_id, content_hash=content_hash,
                       key=None if key is None else tuple(key), result=result,
                       mismatches=mismatches)
    if record is not None:
        game, players, rounds, round_moves, contribution = record
        pending.record = storage.GameRecord(
            game, players, rounds, round_moves,
            None if contribution is None else stats.Contribution(*contribution))
    if decided is not None:
        status, id_, error = decided
        pending.decide(status, id=id_, error=error)
    return pending


def upload_documents(data: bytes | BinaryIO, *, limits: Limits,
                     max_documents: int | None = None, count: Count | None = None
                     ) -> Iterator[Parsed]:
    """The documents of an upload: a body held in memory, or a file (a form's, spooled
    to disk) read from its start as the command line reads one, so that memory is bounded
    by the limits and not by what the file expands to."""
    if isinstance(data, bytes | bytearray | memoryview):
        yield from iter_documents(bytes(data), limits=limits, max_documents=max_documents)
        return
    data.seek(0)
    for item in iter_file(data, limits=limits, max_documents=max_documents, count=count):
        assert isinstance(item, Parsed)
        yield item


def check_upload(data: bytes | BinaryIO, *, limits: Limits | None = None,
                 max_documents: int | None = None, frontend: str | None = None,
                 count: Count | None = None) -> int:
    """How many documents one uploaded body holds; raises InputError if it is unreadable
    (:class:`~recorder.errors.TooManyDocuments` for more than ``max_documents``), and
    :class:`~recorder.binding.WrongFrontend` if a token bound to ``frontend`` sends a log
    of another frontend.

    An upload is read all or not at all: this first pass reads the whole body and
    keeps nothing, so a body that turns out to be damaged halfway, or that holds a
    document the token may not send, stores nothing, and the second pass (the import) can
    go in batches with memory as flat as the CLI's. Parsing costs a small share of the
    replay, so reading twice is cheap insurance.
    """
    documents = 0
    for parsed in upload_documents(data, limits=limits or Limits(),
                                   max_documents=max_documents, count=count):
        if frontend is not None and parsed.error is None:
            refusal = binding.refusal(parsed.doc, frontend, index=parsed.index,
                                      line=parsed.line)
            if refusal is not None:
                raise refusal
        documents += 1
    return documents


def import_upload(
    db: Database,
    data: bytes | BinaryIO,
    *,
    limits: Limits | None = None,
    max_documents: int | None = None,
    source: str | None = None,
    uploaded_by: int | None = None,
    frontend: str | None = None,
    count: Count | None = None,
) -> tuple[Tally, list[Outcome]]:
    """The API's and the web form's import of one body or file (raises InputError if
    unreadable, :class:`~recorder.errors.TooManyDocuments` for more than
    ``max_documents``, and :class:`~recorder.binding.WrongFrontend` if it holds a log of
    another frontend than ``frontend``, the uploading token's: all before anything is
    replayed or stored). A file is read twice from its start, streamed; ``count``
    receives the bytes it expands to."""
    lim = limits or Limits()
    check_upload(data, limits=lim, max_documents=max_documents, frontend=frontend,
                 count=count)
    importer = Importer(db, uploaded_by=uploaded_by, frontend=frontend)
    outcomes = list(importer.run((source, d) for d in upload_documents(data, limits=lim)))
    return importer.tally, outcomes
