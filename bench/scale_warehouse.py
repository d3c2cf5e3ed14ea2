"""The warehouse at scale: generated facts and counters, and the p95 of every stats URL.

Run through ``bench/scale.py``::

    python bench/scale.py --warehouse 10000000 --warehouse 100000000 --sqlite 10000000
    python bench/scale.py --warehouse 1000000 --check          # the generator held to the real path
    python bench/scale.py --warehouse 10000000 --pool 1000     # a thousand players

How the archives are made (docs/scale.md, "The warehouse at scale"), under
``bench/out/warehouse/`` (gitignored):

1. **base**: games of ``recorder simulate`` for every preset (and the options and player
   counts of ``bench/dashboard.py``), each dated within a year and given one of three
   frontend names, until ``BASE_ROUNDS`` rounds; then ``recorder batch facts`` over them,
   the real path: the base's facts and counters are what the batch writes.
2. **copies**: a target of N rounds takes ``ceil(N / base rounds)`` copies of every base
   game, written straight into the datasets' layout by DuckDB from the base's rows: copy
   ``c`` of game ``g`` is game ``c * span + g`` (its ``game_id`` and content hash made
   unique), played ``29 * c`` days later within the same year, by the same players (or,
   with ``--pool N``, by players of a pool of N, seat after seat from a place that
   depends on the copy and the game). Its rows are the base game's rows under the new
   ids; the logs (``games.log`` and ``answer``) are left empty: no stats URL reads them.
3. **counters**: each base game's contribution is counted once, by the import's own
   function (``recorder.stats.contribution``), with its players as seat numbers; a copy's
   contribution is the same under its day and its players, so the day counters of the
   copies are sums over (copy, base game) in DuckDB; the run's roll-up
   (``recorder.warehouse.roll_up``, the batch's) then adds the month and all grains.
   ``--check`` holds this to the real path: it counts a generated archive again game by
   game from its rows (``recorder.warehouse.DayCounters``) and compares every table.

The SQLite store beside it (``--sqlite N``) is loaded from the same generated rows (the
games, players and rounds, and the counters: every table a stats URL reads) into a store
made by ``recorder.storage.connect``; the moves are left out (no stats URL reads them, and
they would be 60% of the file). Both stores then answer the same URLs, and the run checks
they answer them alike before timing them.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dashboard

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "warehouse"
BASE_ROUNDS = 100_000
FIRST_DAY = datetime(2025, 12, 1, tzinfo=UTC)
FRONTENDS = dashboard.FRONTENDS
CHUNK_GAMES = 40
COPY_STEP_DAYS = 29
MIX: tuple[tuple[str, tuple[str, ...], int], ...] = (
    *dashboard.MIX,
    ("openspiel-block", (), 2), ("openspiel-team", (), 4),
    ("dominoes-partners", (), 4), ("all-fives", (), 2),
)
"""bench/dashboard.py's mix, and every other preset."""
TARGET_MS = 300.0
# The asks are bench/dashboard.py's, so both benchmarks time the same URLs and filters.
FILTERS, URLS, PAGE_PARAMS, NO_FILTERS = (
    dashboard.FILTERS, dashboard.URLS, dashboard.PAGE_PARAMS, dashboard.NO_FILTERS)


def _read(files: str) -> str:
    """A dataset's files as DuckDB reads them: their own columns, no partition column."""
    return f"read_parquet('{files}', hive_partitioning = false)"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _recorder(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "recorder.cli", *args], env=env, text=True,
                          cwd=ROOT, **kw)


# ---------------------------------------------------------------------------------------
# The base: simulated games through the real batch.


def _simulated(index: int) -> Iterator[dict[str, Any]]:
    preset, options, players = MIX[index % len(MIX)]
    args = ["simulate", "--preset", preset, "--players", str(players), "--games",
            str(CHUNK_GAMES), "--seed", f"wh{index}"]
    for option in options:
        args += ["-o", option]
    done = _recorder(*args, capture_output=True, check=True)
    for line in done.stdout.splitlines():
        yield json.loads(line)


def base_corpus(rounds: int = BASE_ROUNDS) -> Path:
    """JSON Lines of simulated games, dated within a year, three frontends (cached)."""
    path = OUT / f"base-{rounds}.jsonl"
    if path.exists():
        return path
    OUT.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    total = games = index = 0
    started = time.perf_counter()
    with tmp.open("w", encoding="utf-8") as out:
        while total < rounds:
            for doc in _simulated(index):
                games += 1
                day = FIRST_DAY + timedelta(minutes=(games * 7919) % (365 * 24 * 60))
                doc["started_at"] = day.strftime("%Y-%m-%dT%H:%M:%SZ")
                doc["frontend"] = {"name": FRONTENDS[games % len(FRONTENDS)], "version": "1"}
                doc["game_id"] = f"wh-{games}"
                out.write(json.dumps(doc, separators=(",", ":")) + "\n")
                total += len(doc["rounds"])
            index += 1
    tmp.replace(path)
    print(f"base: {games:,} games, {total:,} rounds simulated in "
          f"{time.perf_counter() - started:.0f} s", file=sys.stderr)
    return path


def base_facts(corpus: Path) -> Path:
    """The base through ``recorder batch facts`` (the real path; cached)."""
    out = corpus.with_suffix(".facts")
    done = out / "_batch" / "state.json"
    if done.exists() and not (out / "_batch" / "commit.json").exists() and \
            any((out / "stats_rounds").glob("part-run-*.parquet")):
        return out
    started = time.perf_counter()
    _recorder("batch", "facts", str(corpus), "--out", str(out), check=True,
              stdout=subprocess.DEVNULL)
    print(f"base: batch facts in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return out


# ---------------------------------------------------------------------------------------
# Each base game's contribution, its players as seats.


def _seat_id(seat: int) -> str:
    return f"\x00{seat}"


def base_contributions(facts: Path) -> dict[str, Any]:
    """Every base game's contribution to the counters (``recorder.stats.contribution``
    over its rows), with each player named by their seat, as Arrow tables."""
    import duckdb
    import pyarrow as pa

    from recorder import stats, storage, warehouse

    con = duckdb.connect()
    glob = lambda name: str(facts / name / "*" / "*.parquet")  # noqa: E731
    games = con.execute(
        "SELECT " + ", ".join(c for c in warehouse.GAME_FIELDS) +
        f" FROM {_read(glob('games'))} ORDER BY id").fetchall()
    rows: dict[str, dict[int, list[tuple[Any, ...]]]] = {}
    for name in ("players", "rounds", "moves"):
        order = {"players": "seat", "rounds": "round", "moves": "round, move"}[name]
        grouped: dict[int, list[tuple[Any, ...]]] = {}
        for row in con.execute(f"SELECT * FROM {_read(glob(name))} "
                               f"ORDER BY game, {order}").fetchall():
            grouped.setdefault(row[0], []).append(tuple(row[1:]))
        rows[name] = grouped
    out: dict[str, list[tuple[Any, ...]]] = {k: [] for k in (
        "players", "rounds", "hist", "seats", "missed", "meta")}
    seat_of = {_seat_id(s): s for s in range(8)}
    for values in games:
        game = dict(zip(warehouse.GAME_FIELDS, values, strict=True))
        gid = game["id"]
        players = [(p[0], _seat_id(p[0]), *p[2:]) for p in rows["players"].get(gid, [])]
        facts_ = warehouse.facts_of(players, rows["rounds"].get(gid, []),
                                    rows["moves"].get(gid, []))
        c = stats.contribution(game, facts_)
        if c is None:
            continue
        out["meta"].append((gid, c.variant, c.frontend, c.players, c.day))
        out["rounds"].append((gid, *c.round_row))
        for pid, row in c.player_rows.items():
            out["players"].append((gid, seat_of[pid], *row))
        for (scope, kind, bucket), (n,) in c.hist.items():
            out["hist"].append((gid, seat_of.get(scope, -1), kind,
                                bucket if kind != "ender" else "", seat_of.get(bucket, -1)
                                if kind == "ender" else -1, n))
        for (kind, position), row in c.seats.items():
            out["seats"].append((gid, kind, position, *row))
        for k, (rnd, mv, pid, scored, best) in enumerate(c.missed):
            out["missed"].append((gid, k, rnd, mv, seat_of[pid], scored, best))
    f64, i64, i32, txt = pa.float64(), pa.int64(), pa.int32(), pa.string()
    schemas = {
        "players": [("base", i64), ("seat", i32), *((c, f64) for c in storage.PLAYER_COUNTERS)],
        "rounds": [("base", i64), *((c, f64) for c in storage.ROUND_COUNTERS)],
        "hist": [("base", i64), ("scope_seat", i32), ("kind", txt), ("bucket", txt),
                 ("bucket_seat", i32), ("n", f64)],
        "seats": [("base", i64), ("kind", txt), ("position", i32),
                  *((c, f64) for c in storage.SEAT_COUNTERS)],
        "missed": [("base", i64), ("k", i32), ("round", i32), ("move", i32), ("seat", i32),
                   ("scored", f64), ("best", f64)],
        "meta": [("base", i64), ("variant", txt), ("frontend", txt), ("players", i32),
                 ("day", txt)],
    }
    tables = {}
    for name, fields in schemas.items():
        schema = pa.schema(fields)
        columns = list(zip(*out[name], strict=True)) if out[name] else [()] * len(schema)
        tables[name] = pa.Table.from_arrays(
            [pa.array(col, type=f.type) for col, f in zip(columns, schema, strict=True)],
            schema=schema)
    con.close()
    return tables


# ---------------------------------------------------------------------------------------
# The copies.


def _pool_table(pool: int | None) -> list[tuple[int, str, str]]:
    """(index, id, name) of the players copies are given: None keeps the base's."""
    from recorder.simulate import PERSONAS

    if pool is None:
        return []
    out = [(i, pid, name) for i, (pid, name, _) in enumerate(PERSONAS[:pool])]
    out += [(i, f"player-{i + 1:05d}", f"Player {i + 1}") for i in range(len(out), pool)]
    return out


def generate(rounds: int, *, pool: int | None = None, moves: bool = True,
             memory: str = "4GB", base_rounds: int = BASE_ROUNDS) -> Path:
    """The archive of about ``rounds`` rounds under bench/out/warehouse/ (cached)."""
    import duckdb
    import pyarrow as pa

    from recorder import batch, parquet, warehouse

    name = f"gen-{rounds}" + (f"-pool{pool}" if pool else "") + ("" if moves else "-nomoves")
    if base_rounds != BASE_ROUNDS:
        name += f"-base{base_rounds}"
    out = OUT / name
    if (out / "_batch" / "generated.json").exists():
        return out
    corpus = base_corpus(base_rounds)
    base = base_facts(corpus)
    started = time.perf_counter()
    contributions = base_contributions(base)
    print(f"{name}: base contributions in {time.perf_counter() - started:.0f} s",
          file=sys.stderr)
    shutil.rmtree(out, ignore_errors=True)
    fs, root = parquet.filesystem(str(out))
    batch.open_state(fs, root, "facts")
    spill = OUT / "spill"
    spill.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    con.execute(f"SET memory_limit = '{memory}'")
    con.execute(f"SET temp_directory = '{spill}'")
    con.execute("SET preserve_insertion_order = false")
    for key, table in contributions.items():
        con.register(f"bc_{key}_arrow", table)
        con.execute(f"CREATE TABLE bc_{key} AS SELECT * FROM bc_{key}_arrow")
    src = {n: str(base / n / "*" / "*.parquet") for n in ("games", "players", "rounds", "moves")}
    con.execute(f"CREATE TABLE bg AS SELECT * FROM {_read(src['games'])}")
    base_games, base_rounds, span = con.execute(
        "SELECT count(*), sum(rounds_count), max(id) FROM bg").fetchall()[0]
    copies = max(1, math.ceil(rounds / base_rounds))
    people = _pool_table(pool)
    if people:
        con.register("pool_arrow", pa.table({"idx": [p[0] for p in people],
                                             "player_id": [p[1] for p in people],
                                             "name": [p[2] for p in people]}))
    else:  # the base's own players: the seat's player of the base game
        con.execute(f"CREATE TABLE bplayers AS SELECT game, seat, player_id, name "
                    f"FROM {_read(src['players'])}")
    con.execute("CREATE TABLE pool AS SELECT * FROM pool_arrow" if people else
                "CREATE TABLE pool (idx INTEGER, player_id VARCHAR, name VARCHAR)")
    per_chunk = max(1, 10_000_000 // base_rounds)
    parts: dict[str, list[str]] = {}
    first = FIRST_DAY.strftime("%Y-%m-%d")
    for c0 in range(0, copies, per_chunk):
        c1 = min(copies, c0 + per_chunk)
        tag = f"gen{c0:05d}"
        con.execute("DROP TABLE IF EXISTS cp")
        con.execute(
            "CREATE TEMP TABLE cp AS SELECT c, g.id AS base, "
            f"c * {span} + g.id AS id, (c * 7919 + g.id * 104729) % {max(pool or 1, 1)} AS h, "
            f"strftime(strptime(g.started_at, '%Y-%m-%dT%H:%M:%SZ') + to_days(CAST(("
            f"date_diff('day', DATE '{first}', CAST(strptime(g.started_at, "
            f"'%Y-%m-%dT%H:%M:%SZ') AS DATE)) + c * {COPY_STEP_DAYS}) % 365 - "
            f"date_diff('day', DATE '{first}', CAST(strptime(g.started_at, "
            f"'%Y-%m-%dT%H:%M:%SZ') AS DATE)) AS INTEGER)), '%Y-%m-%dT%H:%M:%SZ') AS started "
            f"FROM range({c0}, {c1}) r(c) CROSS JOIN bg g")
        _write_facts(con, out, tag, src, pool, moves)
        day_parts = _write_day_counters(con, out / "_batch" / "gen" / tag, src)
        for key, path in day_parts.items():
            parts.setdefault(key, []).append(path)
        print(f"{name}: copies {c0}..{c1 - 1} of {copies} written, "
              f"{time.perf_counter() - started:.0f} s, load {_load()}", file=sys.stderr)
    con.close()
    written = warehouse.roll_up(fs, root, parts, "run-generated", spill=str(spill),
                                memory_limit=memory)
    shutil.rmtree(out / "_batch" / "gen", ignore_errors=True)
    meta = {"rounds": copies * int(base_rounds), "games": copies * int(base_games),
            "copies": copies, "base_rounds": int(base_rounds), "pool": pool,
            "moves": moves, "counters": written,
            "seconds": round(time.perf_counter() - started), "load": _load(),
            "bytes": {n: sum(p.stat().st_size for p in (out / n).rglob("*.parquet"))
                      for n in (*parquet.DATASETS, *parquet.COUNTERS)}}
    (out / "_batch" / "generated.json").write_text(json.dumps(meta, indent=1))
    print(f"{name}: {meta['rounds']:,} rounds in {meta['seconds']} s", file=sys.stderr)
    return out


def _player_sql(pool: int | None, seat: str) -> tuple[str, str]:
    """SQL for the id and the name of the player of ``seat`` in a copy (``cp``)."""
    if pool:
        idx = f"(cp.h + {seat}) % {pool}"
        return (f"(SELECT player_id FROM pool WHERE idx = {idx})",
                f"(SELECT name FROM pool WHERE idx = {idx})")
    return (f"(SELECT player_id FROM bplayers b WHERE b.game = cp.base AND b.seat = {seat})",
            f"(SELECT name FROM bplayers b WHERE b.game = cp.base AND b.seat = {seat})")


def _copy(con: Any, sql: str, folder: Path, tag: str, *, keep_preset: bool) -> None:
    con.execute(
        f"COPY ({sql}) TO '{folder}' (FORMAT parquet, PARTITION_BY (preset), "
        f"WRITE_PARTITION_COLUMNS {str(keep_preset).lower()}, COMPRESSION zstd, "
        f"ROW_GROUP_SIZE 131072, FILENAME_PATTERN 'part-{tag}-{{i}}', "
        f"OVERWRITE_OR_IGNORE true)")


def _write_facts(con: Any, out: Path, tag: str, src: dict[str, str], pool: int | None,
                 moves: bool) -> None:
    """The copies' games, players, rounds and moves, in the datasets' layout and types."""
    from recorder import parquet

    pid, pname = _player_sql(pool, "p.seat")
    con.execute("DROP TABLE IF EXISTS cpl")
    con.execute(
        "CREATE TEMP TABLE cpl AS SELECT cp.id AS game, p.seat, "
        f"{pid} AS player_id, {pname} AS name, cp.base FROM cp "
        f"JOIN {_read(src['players'])} p ON p.game = cp.base")
    cols = []
    for f in parquet.GAMES:
        expr = {
            "id": "cp.id",
            "content_hash": "substr(g.content_hash, 1, 48) || printf('%016x', cp.c)",
            "game_id": "g.game_id || '~' || cp.c",
            "players": "(SELECT '[' || string_agg('{\"id\":' || to_json(l.player_id) || "
                       "',\"name\":' || to_json(l.name) || '}', ',' ORDER BY l.seat) || ']' "
                       "FROM cpl l WHERE l.game = cp.id)",
            "started_at": "cp.started", "played_at": "cp.started",
            "log": "''", "answer": "''",
        }.get(f.name, f"g.{f.name}")
        cols.append(f"CAST({expr} AS {_duck_type(f.type)}) AS {f.name}")
    _copy(con, f"SELECT {', '.join(cols)} FROM cp JOIN bg g ON g.id = cp.base",
          out / "games", tag, keep_preset=True)
    for name in ("players", "rounds", *(("moves",) if moves else ())):
        schema = parquet.SCHEMAS[name]
        exprs = []
        for f in schema:
            if f.name == "game":
                exprs.append("cp.id AS game")
            elif name == "players" and f.name in ("player_id", "name"):
                exprs.append(f"l.{f.name}")
            else:
                exprs.append(f"x.{f.name}")
        join = ("JOIN cpl l ON l.game = cp.id AND l.seat = x.seat " if name == "players"
                else "")
        _copy(con, f"SELECT {', '.join(exprs)}, g.preset FROM {_read(src[name])} x "
                   f"JOIN cp ON cp.base = x.game JOIN bg g ON g.id = cp.base {join}",
              out / name, tag, keep_preset=False)


def _duck_type(t: Any) -> str:
    import pyarrow as pa

    return {pa.int64(): "BIGINT", pa.int32(): "INTEGER", pa.int8(): "TINYINT",
            pa.float64(): "DOUBLE", pa.string(): "VARCHAR"}[t]


def _write_day_counters(con: Any, folder: Path, src: dict[str, str]) -> dict[str, str]:
    """The copies' counters at the day grain, a file per counters dataset: each copy's
    contribution is its base game's under the copy's day and players (``cpl``: the
    player of each seat of each copy)."""
    from recorder import parquet, storage

    folder.mkdir(parents=True, exist_ok=True)
    day = "substr(cp.started, 1, 10)"
    player = "(SELECT l.player_id FROM cpl l WHERE l.game = cp.id AND l.seat = {})"
    scope, ender, player = (player.format("b.scope_seat"), player.format("b.bucket_seat"),
                            player.format("b.seat"))
    meta = "JOIN bc_meta m ON m.base = b.base"
    sums = {name: ", ".join(f"sum(b.{c}) AS {c}" for c in cols) for name, cols in (
        ("players", storage.PLAYER_COUNTERS), ("rounds", storage.ROUND_COUNTERS),
        ("seats", storage.SEAT_COUNTERS))}
    queries = {
        "stats_players": f"SELECT 'day' AS grain, {day} AS period, m.variant, m.frontend, "
                         f"m.players, {player} AS player, {sums['players']} FROM bc_players b "
                         f"JOIN cp ON cp.base = b.base {meta} GROUP BY ALL",
        "stats_rounds": f"SELECT 'day' AS grain, {day} AS period, m.variant, m.frontend, "
                        f"m.players, {sums['rounds']} FROM bc_rounds b "
                        f"JOIN cp ON cp.base = b.base {meta} GROUP BY ALL",
        "stats_hist": f"SELECT b.kind, 'day' AS grain, {day} AS period, CASE WHEN "
                      f"b.scope_seat < 0 THEN '' ELSE {scope} END AS player, m.variant, "
                      f"m.frontend, m.players, CASE WHEN b.bucket_seat < 0 THEN b.bucket "
                      f"ELSE {ender} END AS bucket, sum(b.n) AS n FROM bc_hist b "
                      f"JOIN cp ON cp.base = b.base {meta} GROUP BY ALL",
        "stats_seats": f"SELECT 'day' AS grain, {day} AS period, m.variant, m.frontend, "
                       f"m.players, b.kind, b.position, {sums['seats']} FROM bc_seats b "
                       f"JOIN cp ON cp.base = b.base {meta} GROUP BY ALL",
        "stats_missed": f"SELECT cp.id * 3 + b.k AS id, cp.id AS game, b.round, b.move, "
                        f"{player} AS player, m.variant, "
                        f"m.frontend, m.players, {day} AS day, b.scored, b.best "
                        f"FROM bc_missed b JOIN cp ON cp.base = b.base {meta}",
        "stats_people": "SELECT player_id AS player, arg_max(name, game) AS name, "
                        "count(*) AS games, max(game) AS name_game FROM cpl GROUP BY ALL",
        "stats_games": "SELECT " + ", ".join(
            ("cp.id" if c == "id" else "g.game_id || '~' || cp.c" if c == "game_id" else
             "cp.started" if c in ("started_at", "played_at") else f"g.{c}") + f" AS {c}"
            for c in parquet.COUNTERS["stats_games"].names) +
            " FROM cp JOIN bg g ON g.id = cp.base",
        "stats_game_players": "SELECT l.game, l.seat, l.player_id, l.name, p.final_score, "
                              f"p.won FROM cpl l JOIN {_read(src['players'])} p "
                              "ON p.game = l.base AND p.seat = l.seat",
    }
    out = {}
    for name, sql in queries.items():
        schema = parquet.COUNTERS[name]
        cast = ", ".join(f"CAST({c} AS {_duck_type(schema.field(c).type)}) AS {c}"
                         for c in schema.names)
        path = folder / f"{name}.parquet"
        con.execute(f"COPY (SELECT {cast} FROM ({sql})) TO '{path}' (FORMAT parquet)")
        out[name] = str(path)
    return out


# ---------------------------------------------------------------------------------------
# The generator held to the real path.


def check(out: Path) -> dict[str, int]:
    """Count the archive again game by game from its rows, as ``recorder batch`` counts
    the games it publishes (``recorder.warehouse.DayCounters`` and ``roll_up``), and
    compare every counters dataset with the generated one; returns the rows compared.
    Needs the moves (an archive generated with them)."""
    import tempfile

    import duckdb

    from recorder import parquet, warehouse

    con = duckdb.connect()
    con.execute("SET memory_limit = '2GB'")
    glob = lambda name: str(out / name / "*" / "*.parquet")  # noqa: E731
    counters = warehouse.DayCounters()
    games = con.execute("SELECT " + ", ".join(warehouse.GAME_FIELDS) +
                        f" FROM {_read(glob('games'))} ORDER BY id").fetchall()
    order = {"players": "seat", "rounds": "round", "moves": "round, move"}
    readers = {name: _grouped(con.cursor().execute(
        f"SELECT * FROM {_read(glob(name))} ORDER BY game, {key}"))
        for name, key in order.items()}
    heads = {name: next(r, None) for name, r in readers.items()}
    for values in games:
        game = dict(zip(warehouse.GAME_FIELDS, values, strict=True))
        rows = {}
        for name, reader in readers.items():
            head = heads[name]
            while head is not None and head[0] < game["id"]:
                head = next(reader, None)
            heads[name] = head
            rows[name] = head[1] if head is not None and head[0] == game["id"] else []
        counters.add(game, warehouse.facts_of(rows["players"], rows["rounds"], rows["moves"]))
    compared = {}
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        fs, root = parquet.filesystem(tmp)
        parts = {name: [p] for name, p in zip(
            counters.tables(), warehouse.write_tables(fs, f"{root}/parts",
                                                      counters.tables()), strict=True)}
        warehouse.roll_up(fs, root, parts, "check")
        for name, schema in parquet.COUNTERS.items():
            if name == "stats_meta":
                continue
            cols = ", ".join(schema.names)
            real = con.execute(f"SELECT {cols} FROM read_parquet('{root}/{name}/*.parquet') "
                               f"ORDER BY ALL").fetchall()
            made = con.execute(f"SELECT {cols} FROM read_parquet('{out}/{name}/*.parquet') "
                               f"ORDER BY ALL").fetchall()
            if name == "stats_people":  # the generator takes the latest game's name
                real = [r[:3] for r in real]
                made = [r[:3] for r in made]
            bad = [(a, b) for a, b in zip(real, made, strict=False) if not _same_row(a, b)]
            if len(real) != len(made) or bad:
                raise SystemExit(f"check: {name} differs: {len(real)} rows counted from the "
                                 f"rows, {len(made)} generated; first: {bad[:1]}")
            compared[name] = len(real)
    con.close()
    return compared


def _grouped(cursor: Any) -> Iterator[tuple[int, list[tuple[Any, ...]]]]:
    current, rows = None, []
    while True:
        chunk = cursor.fetchmany(65536)
        if not chunk:
            break
        for row in chunk:
            if row[0] != current:
                if current is not None:
                    yield current, rows
                current, rows = row[0], []
            rows.append(tuple(row[1:]))
    if current is not None:
        yield current, rows


def _same_row(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    if len(a) != len(b):
        return False
    return all(math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-9)
               if isinstance(x, float) and isinstance(y, float) else x == y
               for x, y in zip(a, b, strict=True))


# ---------------------------------------------------------------------------------------
# The SQLite store of the same games.


def sqlite_store(out: Path) -> Path:
    """A SQLite store holding the archive's games, players and rounds and its counters:
    every table a stats URL reads (cached)."""
    import duckdb

    from recorder import parquet, storage

    path = out.with_name(out.name + ".db")
    done = path.with_suffix(".done")
    if done.exists():
        return path
    path.unlink(missing_ok=True)
    started = time.perf_counter()
    db = storage.connect(path)
    conn = db.conn
    conn.execute("PRAGMA synchronous = OFF")
    con = duckdb.connect()
    con.execute("SET memory_limit = '2GB'")
    sources = {name: (f"SELECT * FROM read_parquet('{out}/{name}/*/*.parquet', "
                      "hive_partitioning = false) ORDER BY "
                      + ("id" if name == "games" else "game"), parquet.SCHEMAS[name].names)
               for name in ("games", "players", "rounds")}
    for name in parquet.COUNTERS:
        cols = [c for c in parquet.COUNTERS[name].names if c != "name_game"]
        if name in ("stats_games", "stats_game_players", "stats_meta"):
            continue
        if name == "stats_people":
            sql = (f"SELECT player, arg_max(name, name_game) FILTER (WHERE name IS NOT NULL), "
                   f"sum(games) FROM read_parquet('{out}/stats_people/*.parquet') "
                   f"GROUP BY player")
        else:
            sql = f"SELECT {', '.join(cols)} FROM read_parquet('{out}/{name}/*.parquet')"
        sources[name] = (sql, cols)
    for name, (sql, cols) in sources.items():
        cursor = con.execute(sql)
        insert = (f"INSERT INTO [{name}] ({', '.join(f'[{c}]' for c in cols)}) VALUES "
                  f"({', '.join('?' for _ in cols)})")
        if name.startswith("stats_") and name != "stats_missed" and name != "stats_people":
            conn.execute(f"DELETE FROM [{name}]")
        while True:
            chunk = cursor.fetchmany(50_000)
            if not chunk:
                break
            conn.executemany(insert, chunk)
        conn.commit()
        print(f"sqlite: {name} loaded, {time.perf_counter() - started:.0f} s",
              file=sys.stderr)
    storage.set_counters_version(db)
    conn.commit()
    conn.execute("ANALYZE")
    db.close()
    con.close()
    done.write_text(f"{time.perf_counter() - started:.0f}\n")
    return path


# ---------------------------------------------------------------------------------------
# Measuring.


def asks() -> list[tuple[str, dict[str, str]]]:
    """Every stats URL with every filter of FILTERS it takes (bench/dashboard.py's)."""
    return [(url, {**flt, **PAGE_PARAMS.get(url, {})}) for url in URLS
            for flt in (FILTERS if url not in NO_FILTERS else ({},))
            if not (url.startswith("/api/stats/players/") and "player" in flt)
            and not (url == "/api/stats/compare" and "variant" in flt)]


def client(db: Path, warehouse: Path | None) -> Any:
    from webui import create_app

    config: dict[str, Any] = {"TESTING": True, "RATELIMIT_ENABLED": False,
                              "DATABASE": str(db)}
    if warehouse is not None:
        config["WAREHOUSE"] = str(warehouse)
    return create_app(config).test_client()


def measure(clients: dict[str, Any], repeat: int) -> dict[str, dict[str, Any]]:
    """p50, p95 and max in ms of every URL (over its filters, ``repeat`` times) for each
    client, the asks going round-robin over the clients and the URLs, so that every
    figure shares the same spells of machine noise; the load average beside each."""
    times: dict[tuple[str, str], list[float]] = {}
    loads: dict[str, list[float]] = {name: [] for name in clients}
    todo = asks()
    for _ in range(repeat):
        for url, args in todo:
            for name, c in clients.items():
                started = time.perf_counter()
                response = c.get(url, query_string=args)
                times.setdefault((name, url), []).append(
                    (time.perf_counter() - started) * 1000)
                if response.status_code != 200:
                    raise SystemExit(f"{name} {url} {args}: {response.status_code} "
                                     f"{response.get_data()[:300]!r}")
            for name in clients:
                loads[name].append(os.getloadavg()[0])
    out: dict[str, dict[str, Any]] = {}
    for (name, url), got in times.items():
        got.sort()
        p95 = got[min(len(got) - 1, round(0.95 * (len(got) - 1)))]
        out.setdefault(name, {})[url] = {
            "asks": len(got), "p50": round(statistics.median(got), 1), "p95": round(p95, 1),
            "max": round(got[-1], 1)}
    for name in clients:
        out[name]["_load"] = {"min": round(min(loads[name]), 2),
                              "max": round(max(loads[name]), 2)}
    return out


def same_answers(clients: dict[str, Any]) -> int:
    """Every ask's JSON compared between the clients, key for key (numbers to 1e-9):
    the stores answer alike before they are timed. Returns the asks compared."""
    names = list(clients)
    for url, args in asks():
        got = {n: clients[n].get(url, query_string=args).get_json() for n in names}
        for n in names[1:]:
            diff = _diff(got[names[0]], got[n])
            if diff:
                raise SystemExit(f"{url} {args}: {names[0]} and {n} differ: {diff[:3]}")
    return len(asks())


def _diff(a: Any, b: Any, path: str = "") -> list[str]:
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for k in a for d in _diff(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items against {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in _diff(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        return [] if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12) else [f"{path}: {a} {b}"]
    return [] if type(a) is type(b) and a == b else [f"{path}: {a!r} {b!r}"]


FACT_QUERIES = {
    "blocked share by variant and players (rounds)":
        "SELECT g.variant, g.player_count, count(*), sum(r.blocked) FROM rounds r "
        "JOIN games g ON g.id = r.game GROUP BY ALL",
    "bonus share by variant (moves)":
        "SELECT g.variant, count(*) FILTER (WHERE m.action = 'play'), "
        "count(*) FILTER (WHERE m.action = 'play' AND m.score > 0) FROM moves m "
        "JOIN games g ON g.id = m.game GROUP BY ALL",
    "one player's plays, draws and passes (moves)":
        "SELECT count(*) FILTER (WHERE m.action = 'play'), "
        "count(*) FILTER (WHERE m.action = 'draw'), count(*) FILTER (WHERE m.action = "
        "'pass') FROM moves m JOIN players p ON p.game = m.game AND p.seat = m.player "
        "WHERE p.player_id = 'ingaan'",
}
"""Figures of the pages computed from the facts at query time, the alternative to the
counters: each is one figure of one page, without its filters."""


def facts_at_query_time(out: Path, repeat: int = 3) -> dict[str, float]:
    """Best seconds of each of FACT_QUERIES over the archive's fact datasets (DuckDB)."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET memory_limit = '2GB'")
    for name in ("games", "players", "rounds", "moves"):
        con.execute(f"CREATE VIEW {name} AS SELECT * FROM read_parquet("
                    f"'{out}/{name}/*/*.parquet', hive_partitioning = false)")
    best = {}
    for label, sql in FACT_QUERIES.items():
        if "moves" in sql and not any((out / "moves").rglob("part-gen*")):
            continue
        got = []
        for _ in range(repeat):
            started = time.perf_counter()
            con.execute(sql).fetchall()
            got.append(time.perf_counter() - started)
        best[label] = round(min(got), 3)
    con.close()
    return best
