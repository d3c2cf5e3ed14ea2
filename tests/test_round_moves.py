"""A round's moves in one row: the ``moves`` view reads as the table it replaced.

The view is compared with the ``moves`` table written the old way (a row per move, from
``MoveFact.as_row``), row for row and type for type, on the sample games, on simulated
games of every preset and option set, on a game cut off mid-round, and on move facts the
byte layout cannot hold (those take the layout's JSON path). The migration converts old
files in place, resumes when it is killed mid-way, and leaves a file ``stats rebuild``
works on.
"""

from __future__ import annotations

import copy
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, make_game, subprocess_env
from hypothesis import given
from hypothesis import strategies as st
from legacy import lines_of, old_database, old_store

from recorder import ingest, packing, storage
from recorder.analysis import MoveFact

SAMPLES = sorted((ROOT / "sample_games").glob("*.json*"))
COLUMNS = ("game", *storage.MOVE_COLUMNS)
SELECT = ", ".join(f"[{c}]" for c in COLUMNS) + ", " + ", ".join(
    f"typeof([{c}])" for c in COLUMNS)
ORDER = " ORDER BY game, round, move"


def combos() -> list[tuple[str, int, dict[str, Any], bool]]:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from engine_fingerprint import COMBOS
    finally:
        sys.path.pop(0)
    return list(COMBOS)


def cut_off(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` stopped in the middle of its last round (an unfinished game)."""
    out = copy.deepcopy(doc)
    out.pop("result", None)
    last = out["rounds"][-1]
    last.pop("result", None)
    last["moves"] = last["moves"][: max(1, len(last["moves"]) // 2)]
    return out


@pytest.fixture(scope="module")
def documents() -> list[tuple[bytes, Any]]:
    """The samples, two simulated games of every preset and option set, and cut-off games."""
    from recorder.simulate import simulate_game

    docs = lines_of(SAMPLES)
    for i, (preset, players, options, explicit) in enumerate(combos()):
        ruleset: Any = {"preset": preset, "options": options} if options else preset
        for seed in range(2):
            doc = simulate_game(ruleset, players, f"view-{i}-{seed}", game_id=f"v-{i}-{seed}",
                                explicit_deal=explicit, max_rounds=6)
            docs.append((json.dumps(doc).encode(), doc))
    for n in range(4):
        doc = cut_off(make_game(100 + n, game_id=f"cut-{n}"))
        docs.append((json.dumps(doc).encode(), doc))
    return docs


def import_new(path: Path, docs: list[tuple[bytes, Any]]) -> Any:
    db = storage.connect(path)
    importer = ingest.Importer(db)
    parsed = [ingest.Parsed(i, None, doc, None, text) for i, (text, doc) in enumerate(docs)]
    outcomes = list(importer.run(("test", p) for p in parsed))
    assert {o.status for o in outcomes} <= {"accepted", "duplicate"}
    return db


def test_the_view_is_the_old_table_row_for_row_and_type_for_type(
        tmp_path: Path, documents: list[tuple[bytes, Any]]) -> None:
    old = old_database(tmp_path / "old.db")
    old_store(old, documents)
    new = import_new(tmp_path / "new.db", documents)
    want = old.execute(f"SELECT {SELECT} FROM moves{ORDER}").fetchall()
    got = new.execute(f"SELECT {SELECT} FROM moves{ORDER}").fetchall()
    assert len(want) > 10_000
    assert got == want
    # every type the table held, including nulls and floats, is there to compare
    kinds = {(c, row[len(COLUMNS) + i]) for row in want for i, c in enumerate(COLUMNS)}
    assert {("ms", "null"), ("ms", "real"), ("side", "null"), ("pips", "null"),
            ("next_stuck", "null"), ("score", "real"), ("tile", "null")} <= kinds
    assert new.execute("SELECT count(*) FROM round_moves WHERE odd IS NOT NULL"
                       ).fetchone()[0] == 0
    # in the view's own order too, and a game at a time
    assert new.execute(f"SELECT {SELECT} FROM moves").fetchall() == want
    cut = new.execute("SELECT id FROM games WHERE game_id = 'cut-0'").fetchone()[0]
    for pk in (1, cut):
        one = f"SELECT {SELECT} FROM moves WHERE game = ?{ORDER}"
        assert new.execute(one, [pk]).fetchall() == old.execute(one, [pk]).fetchall()
    # the cut-off round's moves are kept, though the round has no row of its own
    assert new.execute("SELECT max(round) FROM moves WHERE game = ?", [cut]).fetchone()[0] == \
        new.execute("SELECT max(round) FROM rounds WHERE game = ?", [cut]).fetchone()[0] + 1
    # a game's moves are found through the key, not by unpacking every round
    plan = " ".join(r[-1] for r in new.execute(
        "EXPLAIN QUERY PLAN SELECT * FROM moves WHERE game = 5"))
    assert "SEARCH m USING PRIMARY KEY (game=?)" in plan, plan
    assert [c.name for c in new["moves"].columns] == list(COLUMNS)
    assert storage.integrity_check(new) == "ok"


def facts_row(db: Any, game: int, rnd: int, moves: list[MoveFact]) -> None:
    db.execute("INSERT INTO round_moves (game, round, ms, facts, odd) VALUES (?, ?, ?, ?, ?)",
               [game, rnd, *packing.pack_round(moves)])


def as_table(db: Any, game: int, moves: list[MoveFact]) -> list[tuple[Any, ...]]:
    """The rows the old ``moves`` table stored for these facts, with their types."""
    db.execute("DELETE FROM old_moves")
    db.conn.executemany(
        "INSERT INTO old_moves VALUES (" + ", ".join("?" * len(COLUMNS)) + ")",
        [(game, *m.as_row()) for m in moves])
    return db.execute(f"SELECT {SELECT} FROM old_moves{ORDER}").fetchall()


OLD_TABLE = (
    "CREATE TABLE old_moves (game INTEGER, [round] INTEGER, [move] INTEGER, player INTEGER, "
    "action TEXT, tile TEXT, side TEXT, ms REAL, legal_count INTEGER, score REAL, "
    "best_score REAL, forced INTEGER, pips INTEGER, best_pips INTEGER, least_pips INTEGER, "
    "[double] INTEGER, double_choice INTEGER, next_stuck INTEGER, "
    "PRIMARY KEY (game, [round], [move])) WITHOUT ROWID")
"""The old ``moves`` table's columns and declared types (m003 and m006), as a scratch table."""


def scratch_db(path: Path) -> Any:
    """A new database with one game, and a table of the old ``moves`` shape."""
    db = storage.connect(path)
    db.execute("INSERT INTO games (id, content_hash, status, imported_at, log, answer) "
               "VALUES (1, 'x', 'finished', '2026-12-01T00:00:00Z', '', '{}')")
    db.execute(OLD_TABLE)
    return db


@pytest.fixture
def scratch(tmp_path: Path) -> Any:
    return scratch_db(tmp_path / "scratch.db")


def test_the_scratch_table_has_the_old_tables_types(tmp_path: Path) -> None:
    old = old_database(tmp_path / "old.db")
    want = [(c.name, c.type) for c in old["moves"].columns]
    new = scratch_db(tmp_path / "new.db")
    assert [(c.name, c.type) for c in new["old_moves"].columns] == want


def move(n: int, **values: Any) -> MoveFact:
    fields: dict[str, Any] = dict(
        round=1, move=n, player=n % 3, action="play", tile="6-3", end="left", ms=1200,
        legal_count=2, score=0, best_score=5, forced=False, pips=9, best_pips=9,
        least_pips=4, double=False, double_choice=True, next_stuck=None)
    fields.update(values)
    return MoveFact(**fields)


ODD_CASES = {
    "a fractional score": [move(1), move(2, score=2.5, best_score=7.5)],
    "a count above a byte": [move(1, legal_count=300)],
    "a tile with a leading zero": [move(1, tile="06-3")],
    "moves not numbered from 1": [move(2), move(3)],
    "a negative score": [move(1, score=-5)],
}


@pytest.mark.parametrize("case", sorted(ODD_CASES))
def test_facts_the_bytes_cannot_hold_take_the_json_path(scratch: Any, case: str) -> None:
    moves = ODD_CASES[case]
    _, facts, odd = packing.pack_round(moves)
    assert facts is None and odd is not None
    facts_row(scratch, 1, 1, moves)
    assert scratch.execute(f"SELECT {SELECT} FROM moves{ORDER}").fetchall() == \
        as_table(scratch, 1, moves)


def test_plain_facts_take_the_bytes(scratch: Any) -> None:
    moves = [move(1, action="play", end=None, ms=None, tile="0-0"),
             move(2, action="draw", tile=None, end=None, pips=None, best_pips=None,
                  least_pips=None, double=None, double_choice=None, ms=12.5),
             move(3, action="pass", tile="12-11", end="down", ms=2 ** 53 - 1, score=125,
                  best_score=125.0, forced=True, next_stuck=True, double=True)]
    ms, facts, odd = packing.pack_round(moves)
    assert odd is None and facts is not None and len(facts) == packing.WIDTH * 3
    assert set(facts) <= set(range(1, 128))  # 7-bit ASCII, what unicode() reads
    facts_row(scratch, 1, 1, moves)
    got = scratch.execute(f"SELECT {SELECT} FROM moves{ORDER}").fetchall()
    assert got == as_table(scratch, 1, moves)
    assert [r[1:18] for r in got] == [(1, *r) for r in packing.unpack_round(ms, facts, odd)]


numbers = st.one_of(st.integers(-3, 130), st.floats(-1, 130, allow_nan=False, width=32))
flags = st.sampled_from([None, False, True])
small = st.one_of(st.none(), st.integers(0, 130))


@st.composite
def rounds_of_moves(draw: Any) -> list[MoveFact]:
    count = draw(st.integers(1, 6))
    out = []
    number = 0
    for _ in range(count):
        number += draw(st.sampled_from([1, 1, 1, 1, 2]))  # now and then a gap
        out.append(move(
            number, player=draw(st.integers(0, 127)),
            action=draw(st.sampled_from(packing.ACTIONS)),
            tile=draw(st.one_of(st.none(), st.sampled_from(["0-0", "6-3", "12-12", "06-3",
                                                            "99-99", "126-1"]))),
            end=draw(st.one_of(st.none(), st.sampled_from(packing.SIDES))),
            ms=draw(st.one_of(st.none(), st.integers(0, 2 ** 53 - 1),
                              st.floats(0, 1e12, allow_nan=False))),
            legal_count=draw(st.integers(0, 130)), score=draw(numbers),
            best_score=draw(numbers), forced=draw(st.booleans()), pips=draw(small),
            best_pips=draw(small), least_pips=draw(small), double=draw(flags),
            double_choice=draw(flags), next_stuck=draw(flags)))
    return out


@given(moves=rounds_of_moves())
def test_any_facts_read_back_through_the_view_as_the_table_stored_them(
        tmp_path_factory: Any, moves: list[MoveFact]) -> None:
    db = _property_db(tmp_path_factory)
    db.execute("DELETE FROM round_moves")
    facts_row(db, 1, 1, moves)
    assert db.execute(f"SELECT {SELECT} FROM moves{ORDER}").fetchall() == \
        as_table(db, 1, moves)


_PROPERTY_DB: list[Any] = []


def _property_db(tmp_path_factory: Any) -> Any:
    if not _PROPERTY_DB:
        _PROPERTY_DB.append(scratch_db(tmp_path_factory.mktemp("property") / "p.db"))
    return _PROPERTY_DB[0]


# ---------------------------------------------------------------------------------------
# The migration of a file made before the change.


def snapshot(db: Any) -> dict[str, Any]:
    """Everything the migrations must keep, as readers see it."""
    games = [dict(zip([d[0] for d in c.description], row, strict=True))
             for c in [db.execute("SELECT * FROM games ORDER BY id")] for row in c]
    for g in games:
        g["log"] = storage.log_text(g["log"])
    return {
        "games": games,
        "moves": db.execute(f"SELECT {SELECT} FROM moves{ORDER}").fetchall(),
        **{t: db.execute(f"SELECT * FROM [{t}] ORDER BY 1, 2").fetchall()
           for t in ("players", "rounds", "stats_players", "stats_rounds", "stats_hist")},
    }


KILLER = """
import sys, time
from recorder import storage
step, after = sys.argv[2], int(sys.argv[3])
storage.CONVERT_GAMES = 3
name = {"moves": "_convert_moves", "logs": "_compress_logs"}[step]
real = getattr(storage, name)
calls = [0]
def slow(*args):
    out = real(*args)
    calls[0] += 1
    if calls[0] == after:  # inside the batch's transaction, its rows written
        print("in a batch", flush=True)
        time.sleep(120)
    return out
setattr(storage, name, slow)
storage.connect(sys.argv[1])
print("finished", flush=True)
"""


def run_and_kill(path: Path, step: str, after: int) -> None:
    """Open ``path`` in a child process and kill it (SIGKILL) inside its ``after``-th batch."""
    with subprocess.Popen([sys.executable, "-c", KILLER, str(path), step, str(after)],
                          stdout=subprocess.PIPE, env=subprocess_env(), text=True) as child:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line == "in a batch\n", line
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)


def test_an_old_file_is_converted_in_place_and_a_killed_conversion_goes_on(
        tmp_path: Path, documents: list[tuple[bytes, Any]], cli: Any, db_path: Path) -> None:
    old = old_database(db_path)
    ids = old_store(old, documents)
    before = snapshot(old)
    assert old.execute("SELECT typeof(log) FROM games LIMIT 1").fetchone() == ("text",)
    old.close()

    run_and_kill(db_path, "moves", 4)  # three batches of three games packed, then killed
    half = storage.connect(db_path, migrate=False)
    packed = {r[0] for r in half.execute("SELECT DISTINCT game FROM round_moves")}
    left = {r[0] for r in half.execute("SELECT DISTINCT game FROM moves")}
    assert len(packed) == 9 and packed.isdisjoint(left) and packed | left == set(ids)
    assert [m.name for m in storage.migrations.pending(half)] == [
        "m012_round_moves", "m013_compressed_logs", "m020_round_reviews"]
    half.close()

    run_and_kill(db_path, "moves", 2)  # the next command goes on, and is killed again
    run_and_kill(db_path, "logs", 3)  # then the moves are all packed, the logs begin
    half = storage.connect(db_path, migrate=False)
    assert storage._object_type(half, "moves") == "view"
    kinds = dict(half.execute("SELECT typeof(log), count(*) FROM games GROUP BY 1"))
    assert kinds == {"blob": 6, "text": len(ids) - 6}
    half.close()

    db = storage.connect(db_path)  # the rest, to the end
    assert storage.migrations.pending(db) == []
    assert snapshot(db) == before
    assert storage.integrity_check(db) == "ok"
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    assert db.execute("SELECT count(*) FROM games WHERE typeof(log) != 'blob'"
                      ).fetchone()[0] == 0
    db.close()
    # the converted file goes on: the statistics made again from the logs and from the
    # stored facts give the counters the old file had, and new games go in
    for how in ("--from-logs", "--from-facts"):
        result = cli("stats", "rebuild", how)
        assert result.exit_code == 0, result.output
        db = storage.connect(db_path)
        assert snapshot(db) == before
        db.close()
    result = cli("import", str(ROOT / "sample_games" / "classic-2p.jsonl"))
    assert result.exit_code == 0 and "duplicate" in result.output
