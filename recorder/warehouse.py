"""The warehouse: the statistics read with DuckDB from the Parquet datasets of an archive.

``recorder serve --warehouse DIR`` answers every ``/api/stats`` URL from the datasets
``recorder batch facts`` and ``recorder export --parquet`` write (:mod:`recorder.parquet`)
instead of the SQLite store, asking the same questions (``webui.api_stats``,
:mod:`recorder.figures`, :mod:`recorder.stats`): a :class:`Warehouse` is a
:class:`recorder.query.Backend` whose tables are DuckDB views over the Parquet files,
under the SQLite tables' names and with their columns, and :data:`recorder.query.DUCKDB`
says the little that DuckDB writes differently.

The pages are fast on SQLite because the import keeps additive counters (the
``stats_*`` tables): a figure is a sum of a few hundred rows, never a scan of the
moves. The warehouse keeps the same counters as datasets of their own
(:data:`recorder.parquet.COUNTERS`): DuckDB could sum the facts at query time instead,
but a figure of the moves then reads every move (at 10M rounds, 240M rows: seconds, see
docs/scale.md), where the counters stay a few hundred rows whatever the archive's size.

Where the counters come from:

- ``recorder export --parquet`` copies the store's tables as they are;
- ``recorder batch facts`` counts, in each shard's publish task, the games it
  publishes, from their published rows (:func:`facts_of`, then the import's own
  :func:`recorder.stats.contribution`), at the day grain alone (:class:`DayCounters`);
  once every shard of the run is published, the client sums the run's days and adds
  the month and ``all`` grains (:func:`roll_up`), and writes one file per table for the
  run, named after the run's commit: a run done again writes the same file.

A folder so holds one counters file per run (``DIR/stats_players/part-<tag>.parquet``),
and a key found in several files counts their sum, as every query sums its rows.
``stats_people`` keeps the game each name came from, so the latest name wins across
files; ``stats_meta`` the counters' version each run counted with.

The warehouse reads the files at each query (DuckDB lists the folder again), so it shows
what the last run wrote, without a restart; it never writes.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import duckdb
import fsspec
import pyarrow as pa

from recorder import parquet, query, stats, storage
from recorder.analysis import GameFacts, MoveFact, PlayerFact, RoundFact

ADDITIVE: Final = ("stats_players", "stats_rounds", "stats_hist", "stats_seats")
"""The counter tables whose rows are sums (a key's rows add up)."""
KEYS: Final[dict[str, tuple[str, ...]]] = {
    "stats_players": (*storage.AGG_KEY, "player"),
    "stats_rounds": storage.AGG_KEY,
    "stats_hist": storage.HIST_KEY,
    "stats_seats": storage.SEAT_KEY,
}
"""Each additive table's key, in the order of the store's primary key (the files are
sorted by it, so that a range of periods is a few row groups)."""
VIEWS: Final = {"games": "stats_games", "players": "stats_game_players"}
"""The store's tables the pages read beside the counters, and the datasets that hold
their columns here: few files, sorted for the pages' reads (the fact datasets hold a
file per shard and preset, too many to open at every request)."""
MEMORY_LIMIT: Final = "1GB"
"""What DuckDB may hold in memory, for a query of the pages or a run's roll-up."""
GAME_FIELDS: Final = ("id", "game_id", "frontend", "preset", "variant", "player_count",
                      "status", "blocked_rounds", "started_at", "imported_at", "played_at",
                      "ruleset")
"""The ``games`` columns a game's contribution to the counters reads, and those the pages
read (``stats_games``)."""


class WarehouseError(Exception):
    """The folder cannot be served as a warehouse, in words for the operator."""


# ---------------------------------------------------------------------------------------
# A game's facts from its rows, and the counters of many games.


def _flag(value: Any) -> bool | None:
    return None if value is None else bool(value)


def facts_of(players: Iterable[Sequence[Any]], rounds: Iterable[Sequence[Any]],
             moves: Iterable[Sequence[Any]]) -> GameFacts:
    """One game's facts from its ``players``, ``rounds`` and ``moves`` rows, each a tuple
    in its dataset's column order without ``game`` (as ``recorder.storage`` writes them):
    what :func:`recorder.stats.facts_from_rows` reads back from the store."""
    facts = GameFacts()
    for p in players:
        facts.players.append(PlayerFact(
            p[0], p[1], p[2], p[3], bool(p[4]), p[5], p[6], p[7], p[8], p[9], p[10],
            p[11] or 0, p[12] or 0))
    for r in rounds:
        facts.rounds.append(RoundFact(
            r[0], r[1], r[2], json.loads(r[3]), json.loads(r[4]), json.loads(r[5]),
            bool(r[6]), json.loads(r[7]), r[8], r[9], r[10], r[11], r[12], r[13],
            r[14] or ""))
    for m in moves:
        facts.moves.append(MoveFact(
            m[0], m[1], m[2], m[3], m[4], m[5], m[6], m[7], m[8], m[9], bool(m[10]), m[11],
            m[12], m[13], _flag(m[14]), _flag(m[15]), _flag(m[16])))
    return facts


def _day_only(day: str) -> tuple[tuple[str, str], ...]:
    return (("day", day),)


class DayCounters:
    """The counters of a set of games at the day grain alone, as tables of the counters'
    datasets: what one shard adds, before :func:`roll_up` sums the days of a run and
    adds the month and ``all`` grains (which are sums of the days).

    Each game is counted by :func:`recorder.stats.contribution`, the import's function.
    """

    def __init__(self) -> None:
        self._acc = stats.Accumulator(grains=_day_only)
        self._people: dict[str, list[Any]] = {}
        self._games: list[tuple[Any, ...]] = []
        self._players: list[tuple[Any, ...]] = []
        self.games = 0

    def add(self, game: Mapping[str, Any], facts: GameFacts) -> None:
        """One stored game: its ``games`` row (:data:`GAME_FIELDS` at least) and facts."""
        players = [(p.seat, p.player_id, p.name, p.final_score, 1 if p.won else 0)
                   for p in facts.players]
        self.add_counted(game, players, stats.contribution(game, facts))

    def add_counted(self, game: Mapping[str, Any], players: Sequence[tuple[Any, ...]],
                    c: stats.Contribution | None) -> None:
        """One game already counted: its ``games`` row, its players rows (without the
        game's id) and its contribution (None: a game the counters leave out). ``batch``
        stages these with each shard, so publishing adds them without counting again."""
        game_id = int(game["id"])
        self._games.append(tuple(game[k] for k in parquet.COUNTERS["stats_games"].names))
        self._players.extend((game_id, *p) for p in players)
        self.games += 1
        if c is None:
            return
        self._acc.add(game_id, c)
        for pid, name in c.people:
            entry = self._people.setdefault(pid, [None, None, 0])
            entry[2] += 1
            if name is not None and (entry[1] is None or game_id > entry[1]):
                entry[0], entry[1] = name, game_id

    def tables(self) -> dict[str, pa.Table]:
        """Every counters dataset's rows (``stats_meta`` aside)."""
        acc = self._acc
        out: dict[str, pa.Table] = {}
        for name, rows in (("stats_players", acc.players), ("stats_rounds", acc.rounds),
                           ("stats_hist", acc.hist), ("stats_seats", acc.seats)):
            out[name] = parquet.table(parquet.COUNTERS[name],
                                      [(*k, *v) for k, v in rows.items()])
        missed = []
        last, k = None, 0
        for row in acc.missed:  # a game's kept moments come together, largest first
            k = k + 1 if row[0] == last else 0
            last = row[0]
            missed.append((missed_id(row[0], k), *row))
        out["stats_missed"] = parquet.table(parquet.COUNTERS["stats_missed"], missed)
        out["stats_people"] = parquet.table(
            parquet.COUNTERS["stats_people"],
            [(pid, name, games, at) for pid, (name, at, games) in self._people.items()])
        out["stats_games"] = parquet.table(parquet.COUNTERS["stats_games"], self._games)
        out["stats_game_players"] = parquet.table(parquet.COUNTERS["stats_game_players"],
                                                  self._players)
        return out


def missed_id(game: int, k: int) -> int:
    """The id of a game's ``k``-th kept missed-bonus moment (0: the largest): ids follow
    the games' order, as the store's do, so the latest examples are the same."""
    return game * stats.MISSED_PER_GAME + k


# ---------------------------------------------------------------------------------------
# Writing a run's counters.


def connect(fs: fsspec.AbstractFileSystem, *, memory_limit: str = MEMORY_LIMIT,
            spill: str | None = None) -> duckdb.DuckDBPyConnection:
    """A DuckDB database in memory that reads ``fs`` (a remote one through fsspec)."""
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory_limit}'")
    con.execute("SET preserve_insertion_order = false")
    if spill is not None:
        con.execute(f"SET temp_directory = {_literal(spill)}")
    if not parquet.is_local(fs):
        con.register_filesystem(fs)
    return con


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _paths(fs: fsspec.AbstractFileSystem, paths: Sequence[str]) -> list[str]:
    return list(paths) if parquet.is_local(fs) else [fs.unstrip_protocol(p) for p in paths]


def run_tag(commit: Mapping[str, Any]) -> str:
    """The name of a run's counters files: the same for the same commit, whenever and
    however often its roll-up runs."""
    text = json.dumps([commit["time"], [s["url"] for s in commit["shards"]],
                       [[s["start"], s["end"]] for s in commit["shards"]]])
    return "run-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def _roll_up_sql(name: str, source: str) -> str:
    """The day rows of ``source`` summed by key, with the month and ``all`` grains added,
    sorted as the store's primary key sorts them."""
    schema = parquet.COUNTERS[name]
    keys = KEYS[name]
    q = query.DUCKDB.quote
    dims = [q(k) for k in keys if k not in ("grain", "period")]
    parts = []
    for grain, period in (("all", None), ("month", "substr(period, 1, 7)"),
                          ("day", "period")):
        select = []
        for column in schema.names:
            if column == "grain":
                select.append(f"'{grain}' AS grain")
            elif column == "period":
                select.append(f"{period or chr(39) * 2} AS period")
            elif column in keys:
                select.append(q(column))
            else:
                select.append(f"sum({q(column)}) AS {q(column)}")
        group = ", ".join([*([period] if period else []), *dims])
        parts.append(f"SELECT {', '.join(select)} FROM {source} GROUP BY {group}")
    return (" UNION ALL ".join(f"({p})" for p in parts)
            + " ORDER BY " + ", ".join(q(k) for k in keys))


def roll_up(fs: fsspec.AbstractFileSystem, root: str, parts: Mapping[str, Sequence[str]],
            tag: str, *, spill: str | None = None,
            memory_limit: str = MEMORY_LIMIT) -> dict[str, int]:
    """Sum the day counters of a run's shards (``parts``: each counters dataset's files
    of day rows) into one file per dataset, ``DIR/<table>/part-<tag>.parquet``, with every
    grain; returns the rows written per dataset. Each file is written whole; written again
    from the same parts, it is the same."""
    con = connect(fs, spill=spill, memory_limit=memory_limit)
    written: dict[str, int] = {}
    try:
        rounds = _paths(fs, parts.get("stats_rounds", ()))
        if not rounds or not con.execute("SELECT count(*) FROM read_parquet(?)",
                                         [rounds]).fetchall()[0][0]:
            return written  # the run published no game: it adds no file
        for name, schema in parquet.COUNTERS.items():
            files = _paths(fs, parts.get(name, ()))
            if name == "stats_meta":
                reader: Any = pa.table({"key": ["counters"],
                                        "value": [storage.COUNTERS_VERSION]}).to_reader()
            elif not files:
                continue
            else:
                con.execute("DROP TABLE IF EXISTS part")
                con.execute("CREATE TEMP TABLE part AS SELECT * FROM read_parquet(?)",
                            [files])
                if name in ADDITIVE:
                    sql = _roll_up_sql(name, "part")
                elif name == "stats_people":
                    sql = ("SELECT player, arg_max(name, name_game) FILTER "
                           "(WHERE name IS NOT NULL) AS name, sum(games) AS games, "
                           "max(name_game) AS name_game FROM part GROUP BY player "
                           "ORDER BY player")
                else:  # the kept moments, the games and their players, every row
                    order = {"stats_missed": "id", "stats_games": "id",
                             "stats_game_players": "player_id, game"}[name]
                    sql = f"SELECT * FROM part ORDER BY {order}"
                reader = con.sql(sql).to_arrow_reader(parquet.ROW_GROUP_ROWS)
            path = f"{root}/{name}/part-{tag}.parquet"
            with parquet.FileWriter(fs, path, schema) as writer:
                for batch in reader:
                    writer.write(pa.Table.from_batches([batch]).cast(schema))
            written[name] = writer.rows
    finally:
        con.close()
    return written


def write_tables(fs: fsspec.AbstractFileSystem, folder: str,
                 tables: Mapping[str, pa.Table]) -> list[str]:
    """A shard's day counters as files ``folder/<table>.parquet`` (uncompressed: read
    once by the roll-up, then removed); returns their paths."""
    out = []
    for name, data in tables.items():
        path = f"{folder}/{name}.parquet"
        with parquet.FileWriter(fs, path, parquet.COUNTERS[name],
                                compression=parquet.STAGING_COMPRESSION) as writer:
            writer.write(data)
        out.append(path)
    return out


# ---------------------------------------------------------------------------------------
# Reading: the warehouse as a backend of the statistics.


def check_folder(fs: fsspec.AbstractFileSystem, root: str, url: str) -> dict[str, Any]:
    """The folder's state, if it holds the datasets and counters the pages read; else a
    :class:`WarehouseError` that says what it holds instead."""
    from recorder.batch import LAYOUT, MANIFEST

    try:
        with fs.open(f"{root}/{MANIFEST}/state.json", "rb") as f:
            state: dict[str, Any] = json.loads(f.read())
    except FileNotFoundError:
        if fs.exists(f"{root}/{MANIFEST}/export.json"):
            raise WarehouseError(f"{url}: an export into it is under way or was stopped; "
                                 "let it finish, or export again") from None
        raise WarehouseError(
            f"{url} holds no datasets of 'recorder batch facts' or 'recorder export "
            "--parquet' (no _batch/state.json)") from None
    except (OSError, ValueError) as exc:
        raise WarehouseError(f"{url}: cannot read _batch/state.json: {exc}") from exc
    if state.get("layout") != LAYOUT:
        raise WarehouseError(f"{url} holds datasets of layout {state.get('layout')!r}; "
                             f"this version reads layout {LAYOUT}")
    if state.get("kind") != "facts":
        raise WarehouseError(f"{url} holds the verdicts of 'batch {state.get('kind')}', "
                             "without the facts and counters the statistics read: serve "
                             "a folder of 'batch facts' or 'export --parquet'")
    missing = [name for name in parquet.COUNTERS if not fs.exists(f"{root}/{name}")]
    if missing:
        raise WarehouseError(
            f"{url} holds no statistics' counters ({', '.join(missing)}): it was written "
            "by a version that did not keep them; write it again into a new folder "
            "('recorder export --parquet', 'recorder batch facts')")
    return state


class Warehouse:
    """The Parquet datasets of one folder as a :class:`recorder.query.Backend`.

    One DuckDB database in memory holds views named as the store's tables the pages read
    (the ``stats_*`` tables, and ``games`` and ``players`` with the columns the pages
    read: :data:`VIEWS`) over the folder's files; each thread asks through a cursor of
    its own (a DuckDB connection serves one thread at a time). Queries read the files as
    they are at that moment.
    """

    dialect = query.DUCKDB

    def __init__(self, url: str, *, memory_limit: str = MEMORY_LIMIT,
                 threads: int | None = None) -> None:
        fs, root = parquet.filesystem(url)
        self.url = url
        self.state = check_folder(fs, root, url)
        self._con = connect(fs, memory_limit=memory_limit)
        if threads is not None:
            self._con.execute(f"SET threads = {int(threads)}")
        self._con.execute("SET parquet_metadata_cache = true")
        base = root if parquet.is_local(fs) else fs.unstrip_protocol(root)
        for name in parquet.COUNTERS:
            files = _literal(f"{base}/{name}/*.parquet")
            source = f"read_parquet({files}, hive_partitioning = false)"
            if name == "stats_people":  # a player's rows of several runs: one row
                body = (f"SELECT player, arg_max(name, name_game) FILTER "
                        f"(WHERE name IS NOT NULL) AS name, sum(games) AS games "
                        f"FROM {source} GROUP BY player")
            elif name == "stats_meta":  # the runs' versions: one, or 'mixed'
                body = (f"SELECT key, CASE WHEN count(DISTINCT value) = 1 THEN min(value) "
                        f"ELSE 'mixed' END AS value FROM (SELECT * FROM {source} "
                        f"UNION ALL SELECT 'counters', "
                        f"{_literal(storage.COUNTERS_VERSION)} WHERE NOT EXISTS "
                        f"(SELECT 1 FROM {source} WHERE key = 'counters')) GROUP BY key")
            else:
                body = f"SELECT * FROM {source}"
            self._con.execute(f"CREATE VIEW {name} AS {body}")
        for name, dataset in VIEWS.items():
            self._con.execute(f"CREATE VIEW {name} AS SELECT * FROM {dataset}")
        self._local = threading.local()
        self._lock = threading.Lock()

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        cursor: duckdb.DuckDBPyConnection | None = getattr(self._local, "cursor", None)
        if cursor is None:
            with self._lock:
                cursor = self._con.cursor()
            self._local.cursor = cursor
        return cursor

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """The rows of one query, asked through this thread's cursor."""
        return self._cursor().execute(sql, list(params)).fetchall()

    def close(self) -> None:
        self._con.close()


def open_warehouse(url: str, *, memory_limit: str = MEMORY_LIMIT) -> Warehouse:
    """The warehouse of the folder ``url`` (a path or an fsspec URL), checked."""
    return Warehouse(url, memory_limit=memory_limit)
