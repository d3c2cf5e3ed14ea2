"""A shard's staging: the moves read from the import's packed rounds are the rows
``packing.unpack_round`` gives, a game's staged counters read back as counted, and a
shard staged without them (or as Parquet, by an earlier version) publishes the same
datasets and counters."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("pyarrow")

import pyarrow as pa
import pyarrow.parquet as pq
from conftest import make_game

from recorder import batch, packing, parquet, storage
from recorder.analysis import analyse
from recorder.parse import Limits
from recorder.stats import Contribution

NOW = "2020-02-29T10:00:00Z"
"""The commit's import time: not today, so a game without a date of its own is dated by
the commit, not by when its shard was processed."""


def _record(game: dict[str, Any]) -> storage.GameRecord:
    answer, facts = analyse(game)
    text = json.dumps(game).encode()
    return storage.build_record(game, log=text, answer=answer, facts=facts,
                                content_hash="x")


def _unpacked(pos: int, round_moves: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [(pos, rnd, *row) for rnd, ms, facts, odd in round_moves
            for row in packing.unpack_round(ms, facts, odd)]


def _odd_rounds() -> list[tuple[Any, ...]]:
    """Rounds the fast reading must leave to ``unpack_round``, or read as it does."""
    row = (1, 1, 0, "play", "6-6", "left", 12.5, 3, 0.0, 2.0, 0, 12, 12, 0, 1, 0, None)
    fits = packing.pack_rows([row])
    odd = packing.pack_rows([(*row[:8], 2.5, *row[9:])])  # a score with a fraction
    assert odd[1] is None and odd[2] is not None and fits[1] is not None
    huge = "[123456789012345678901234567]"  # no float64 holds it exactly: unpacked
    return [
        (1, *fits), (2, *odd), (3, "[]", b"", None), (4, "[null]", fits[1], None),
        (5, huge, fits[1], None), (6, "[1.5e300]", fits[1], None),
        (7, "[]", None, None), (8, fits[0], fits[1], None),
    ]


def test_moves_read_from_the_packed_rounds_are_the_rows_unpack_round_gives() -> None:
    games = [make_game(seed, players=players)
             for seed, players in ((1, 2), (2, 3), (3, 4), (4, None), (5, None))]
    columns = batch._MoveColumns()
    expected: list[tuple[Any, ...]] = []
    for pos, game in enumerate(games):
        round_moves = _record(game).round_moves
        assert round_moves and all(odd is None for *_, odd in round_moves)
        columns.add(pos, round_moves)
        expected += _unpacked(pos, round_moves)
    odd = _odd_rounds()
    columns.add(len(games), odd)  # odd rounds among packed ones, in their place
    expected += _unpacked(len(games), odd)
    columns.add(len(games) + 1, _record(games[0]).round_moves)
    expected += _unpacked(len(games) + 1, _record(games[0]).round_moves)
    assert columns.rows == len(expected) > 100
    table = columns.table()
    assert columns.rows == 0 and len(table.to_batches()) > 1  # read in several runs
    assert table.schema == parquet.MOVES
    assert table.equals(parquet.table(parquet.MOVES, expected))
    assert [tuple(r.values()) for r in table.to_pylist()] == expected


def test_a_round_the_lookups_cannot_read_is_unpacked_as_before() -> None:
    row = (1, 1, 0, "play", "6-6", "left", 12.5, 3, 0.0, 2.0, 0, 12, 12, 0, 1, 0, None)
    ms, facts, _ = packing.pack_rows([row])
    assert facts is not None
    bad = facts[:12] + bytes((200,)) + facts[13:]  # a flag byte no packing writes
    columns = batch._MoveColumns()
    columns.add(0, [(1, ms, facts, None)])
    columns.add(1, [(1, ms, bad, None)])
    expected = _unpacked(0, [(1, ms, facts, None)]) + _unpacked(1, [(1, ms, bad, None)])
    with pytest.raises(pa.ArrowInvalid):  # what the rows the old way do with it
        parquet.table(parquet.MOVES, expected)
    with pytest.raises(pa.ArrowInvalid):
        columns.table()


def test_a_games_staged_counters_read_back_as_counted() -> None:
    players = [(0, "a", None, 3, 1), (1, "b", "B", 2.5, 0)]
    for rows, hist in (([1.0, 2.5], [1.0]), ([math.inf, 2**70], [0.1])):
        c = Contribution("2026-01-01", "classic", "web", 2, [("a", None), ("b", "B")],
                         {"a": rows, "b": [0.5, 3]}, [0.5, 3, 7.25],
                         {("", "margin", "5"): hist}, {("first", 1): [2.0]},
                         [(1, 2, "a", 3.0, 4.5)])
        record = storage.GameRecord({}, players=players)
        record.stats = c
        back_players, back = batch._counted_of(batch._counted_text(record))
        assert back_players == [(0, "a", None, 3, 1), (1, "b", "B", 2.5, 0)]
        assert back == c
        assert [type(v) for v in back.player_rows["a"]] == [type(v) for v in rows]
    record = storage.GameRecord({}, players=players)
    assert batch._counted_of(batch._counted_text(record)) == (players, None)


def _tables(root: Path) -> dict[str, Any]:
    """Every data file's table (the counters by folder: their names carry the run)."""
    out: dict[str, Any] = {}
    for path in sorted(root.rglob("*.parquet")):
        rel = path.relative_to(root)
        if rel.parts[0] == batch.MANIFEST:
            continue
        key = rel.parts[0] if rel.parts[0].startswith("stats_") else str(rel)
        out.setdefault(key, []).append(pq.read_table(path))
    return out


def _as_parquet(staging: Path) -> None:
    """The staging as a version before the streams left it: Parquet, no counters."""
    for path in staging.rglob(f"*{parquet.STREAM_SUFFIX}"):
        if path.stem != "counted":
            data = pa_table(path)
            with parquet.FileWriter(*parquet.filesystem(str(path.with_suffix(".parquet"))),
                                    data.schema, compression="none") as writer:
                writer.write(data)
        path.unlink()


def pa_table(path: Path) -> Any:
    fs, name = parquet.filesystem(str(path))
    batches = list(parquet.iter_stream(fs, name))
    return pa.Table.from_batches(batches, schema=batch.STAGING[path.stem])


def test_a_shard_staged_without_its_counters_or_as_parquet_publishes_the_same(
        tmp_path: Path) -> None:
    games = [make_game(i, started_at=None if i % 3 else f"2026-0{1 + i % 9}-1{i % 10}T"
                       "10:00:00Z") for i in range(14)]
    source = tmp_path / "games.jsonl"
    source.write_text("".join(json.dumps(g) + "\n" for g in [*games, games[2]]) +
                      "not json\n")
    limits = Limits()
    (file,) = batch.expand_sources([str(source)])
    plan = batch.plan_file(file, 6000, limits)
    shards = [batch.Shard(**{**batch.asdict(s), "ordinal": i}) for i, s in enumerate(plan)]
    assert len(shards) > 2
    new, old = tmp_path / "new", tmp_path / "old"
    fs, root = parquet.filesystem(str(new))
    batch.open_state(fs, root, "facts")
    records = {s.id: batch.process_shard(s, str(new), "facts", limits) for s in shards}
    assert (new / batch.MANIFEST / "staging" / shards[0].id /
            f"counted{parquet.STREAM_SUFFIX}").exists()
    shutil.copytree(new, old)
    _as_parquet(old / batch.MANIFEST / "staging")
    for out in (new, old):
        fs, root = parquet.filesystem(str(out))
        commit = batch.decide(fs, root, shards, batch.line_bases(shards, records), NOW)
        for shard in shards:
            batch.publish_shard(shard, commit["bases"][shard.id], str(out), "facts", NOW)
        batch._roll_up(fs, root, shards, commit)
    mine, theirs = _tables(new), _tables(old)
    assert set(mine) == set(theirs)
    assert any(k.startswith("stats_hist") for k in mine)
    assert sum(t.num_rows for k, ts in mine.items() if k.startswith("moves/")
               for t in ts) > 500
    for key, parts in mine.items():
        assert [t.equals(u) for t, u in zip(parts, theirs[key], strict=True)] == \
            [True] * len(parts), key
