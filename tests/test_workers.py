"""``--workers``: worker processes change the speed of an import, never its result.

Real processes (forked, and one run spawned), real SQLite files. Each import with
workers is compared with the same import done in one process: the same report line by
line, the same rows in every table, the same exactly-once outcome for duplicates and
conflicts that fall in different chunks, and a worker killed midway leaves a file that
the same import, run again, completes exactly.
"""

from __future__ import annotations

import copy
import gzip
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import ROOT, break_game, json_lines, subprocess_env, write_jsonl

from recorder import ingest, pool, storage
from recorder.parse import iter_documents
from recorder.replay import replay

Cli = Callable[..., Result]
Games = Callable[[int], list[dict[str, Any]]]
SAMPLES = ROOT / "sample_games"

# Columns that say when a row was written, not what it holds.
_CLOCK = {"imported_at", "played_at"}


def dump(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the fact and statistics tables, in key order, clock columns left out."""
    db = storage.connect(db_path)
    out: dict[str, list[tuple[Any, ...]]] = {}
    tables = ["games", "players", "rounds", "moves", *storage.STATS_TABLES]
    for table in tables:
        columns = [c.name for c in db[table].columns if c.name not in _CLOCK | {"day"}]
        # the day and month grains follow the import date of games without one
        where = "WHERE grain = 'all'" if "grain" in columns else ""
        rows = db.execute(f"SELECT {', '.join(f'[{c}]' for c in columns)} FROM [{table}] "
                          f"{where} ORDER BY {', '.join(f'[{c}]' for c in columns)}").fetchall()
        out[table] = rows
    db.close()
    return out


def check_stored(db_path: Path, docs: list[dict[str, Any]]) -> None:
    """The file holds ``docs``, each once, as worked out from the documents and the
    engine's answer for each, not from the importer (whose ``_commit`` both runs of a
    comparison share): one row per game with its log, its players in seat order, a row per
    finished round and per move, and the statistics' counters summed per player."""
    db = sqlite3.connect(db_path)
    try:
        games = {(frontend, game_id): (pk, json.loads(storage.log_text(text)), status, rounds,
                                       moves)
                 for pk, frontend, game_id, text, status, rounds, moves in db.execute(
                     "SELECT id, frontend, game_id, log, status, rounds_count, moves_count "
                     "FROM games")}
        assert len(games) == len(docs)
        want_players: dict[str, list[int]] = {}  # player id -> [games, rounds, moves]
        total_rounds = blocked = 0
        for doc in docs:
            answer = replay(doc)
            pk, stored, status, rounds, moves = games[(doc["frontend"]["name"], doc["game_id"])]
            logged = sum(len(r["moves"]) for r in doc["rounds"])
            assert (stored, status, rounds, moves) == (
                doc, answer["status"], len(answer["rounds"]), logged), doc["game_id"]
            seats = [p["id"] for p in doc["players"]]
            assert [pid for (pid,) in db.execute(
                "SELECT player_id FROM players WHERE game = ? ORDER BY seat", [pk])] == seats
            assert db.execute("SELECT count(*) FROM rounds WHERE game = ?", [pk]).fetchone() \
                == (len(answer["rounds"]),)
            assert db.execute("SELECT count(*) FROM moves WHERE game = ?", [pk]).fetchone() \
                == (logged,)
            total_rounds += len(answer["rounds"])
            blocked += sum(1 for r in answer["rounds"] if r["blocked"])
            for seat, pid in enumerate(seats):
                figures = want_players.setdefault(pid, [0, 0, 0])
                figures[0] += 1
                figures[1] += len(answer["rounds"])
                figures[2] += sum(1 for r in doc["rounds"] for m in r["moves"]
                                  if m["player"] == seat)
        counted = {pid: [g, r, m] for pid, g, r, m in db.execute(
            "SELECT player, sum(games), sum(rounds), sum(moves) FROM stats_players "
            "WHERE grain = 'all' GROUP BY player")}
        assert counted == want_players
        assert db.execute("SELECT sum(games), sum(rounds), sum(blocked) FROM stats_rounds "
                          "WHERE grain = 'all'").fetchone() == (len(docs), total_rounds, blocked)
    finally:
        db.close()


def unclocked(outcome: dict[str, Any]) -> dict[str, Any]:
    """An outcome without the time a conflicting game was stored (it names the second)."""
    error = outcome.get("error")
    if error and error.get("code") == "game/conflict":
        message = re.sub(r" on \d{4}-\d\d-\d\dT[\d:]+Z", "", error["message"])
        return {**outcome, "error": {**error, "message": message}}
    return outcome


def run_import(db_path: Path, paths: list[str], workers: int,
               method: str | None = None) -> list[dict[str, Any]]:
    """The outcomes of one import, as ``--json`` prints them (conflicts without a clock)."""
    db = storage.connect(db_path)
    try:
        _, outcomes = ingest.import_paths(db, paths, workers=workers, method=method)
        return [unclocked(o.to_json()) for o in outcomes]
    finally:
        db.close()


def test_workers_store_the_samples_exactly_as_one_process_does(tmp_path: Path) -> None:
    alone = run_import(tmp_path / "alone.db", [str(SAMPLES)], workers=0)
    two = run_import(tmp_path / "two.db", [str(SAMPLES)], workers=2)
    assert len(alone) > 100 and all(o["status"] == "accepted" for o in alone)
    assert two == alone
    reference = dump(tmp_path / "alone.db")
    assert sum(len(rows) for rows in reference.values()) > 10_000
    check_stored(tmp_path / "alone.db", [parsed.doc for path in sorted(SAMPLES.iterdir())
                                         for parsed in iter_documents(path.read_bytes())])
    stored = dump(tmp_path / "two.db")
    for table, rows in reference.items():
        assert stored[table] == rows, f"{table} differs"


def mixed_file(tmp_path: Path, docs: list[dict[str, Any]]) -> Path:
    """40 lines: 36 games, a copy of game 2 in another chunk and a copy of game 5 in the
    same chunk, a conflict (game 3's id, other content) and, in the middle, a line that
    is not JSON and a game that breaks a rule."""
    lines = [json.dumps(d) for d in docs[:36]]
    conflict = copy.deepcopy(docs[3])
    conflict["rounds"] = conflict["rounds"][:1]
    lines.insert(7, json.dumps(docs[5]))             # same chunk as the original
    lines.insert(20, '{"format": "domino-log/1", "rounds": [')  # a bad line mid-file
    lines.insert(25, json.dumps(docs[2]))            # two chunks later
    lines.insert(31, json.dumps(conflict))
    lines.insert(33, json.dumps(break_game({**docs[36], "game_id": "broken"})))
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_duplicates_conflicts_and_bad_lines_across_chunks(tmp_path: Path, games: Games) -> None:
    path = mixed_file(tmp_path, games(40))
    alone = run_import(tmp_path / "alone.db", [str(path)], workers=0)
    two = run_import(tmp_path / "two.db", [str(path)], workers=2)
    assert two == alone
    by_line = {o["line"]: o for o in two}
    assert len(two) == 41
    assert by_line[8]["status"] == "duplicate" and by_line[8]["id"] == by_line[6]["id"]
    assert by_line[26]["status"] == "duplicate" and by_line[26]["id"] == by_line[3]["id"]
    assert by_line[32]["status"] == "refused"
    assert by_line[32]["error"]["code"] == "game/conflict"
    assert by_line[21]["status"] == "refused"
    assert by_line[21]["error"]["message"].startswith("line 21: not valid JSON")
    assert by_line[34]["status"] == "refused" and by_line[34]["error"]["round"] == 1
    assert [o["status"] for o in two].count("accepted") == 36
    check_stored(tmp_path / "two.db", games(36))
    assert dump(tmp_path / "two.db") == dump(tmp_path / "alone.db")
    # the same file again: nothing new, the same conflict and the same refusals
    again = run_import(tmp_path / "two.db", [str(path)], workers=2)
    assert [o["status"] for o in again].count("duplicate") == 38
    assert [o["line"] for o in again if o["status"] == "refused"] == [21, 32, 34]


def test_spawned_workers_give_the_same_outcomes(tmp_path: Path, games: Games) -> None:
    docs = games(20)
    path = write_jsonl(tmp_path / "g.jsonl", [*docs, docs[0]])
    alone = run_import(tmp_path / "alone.db", [str(path)], workers=0)
    spawned = run_import(tmp_path / "spawn.db", [str(path)], workers=1, method="spawn")
    assert spawned == alone
    assert spawned[-1]["status"] == "duplicate"
    check_stored(tmp_path / "spawn.db", docs)
    assert dump(tmp_path / "spawn.db") == dump(tmp_path / "alone.db")


def test_one_worker_and_the_helping_writer_store_what_one_process_stores(
    tmp_path: Path, games: Games
) -> None:
    # one worker on a machine with more cores: the main process prepares chunks too
    if pool.default_workers() < 2:
        pytest.skip("needs two cores")
    path = mixed_file(tmp_path, games(40))
    alone = run_import(tmp_path / "alone.db", [str(path)], workers=0)
    one = run_import(tmp_path / "one.db", [str(path)], workers=1)
    assert one == alone
    assert [o["status"] for o in one].count("accepted") == 36
    check_stored(tmp_path / "one.db", games(36))
    assert dump(tmp_path / "one.db") == dump(tmp_path / "alone.db")


def _slow_pid(chunk: list[int]) -> tuple[int, list[int]]:
    time.sleep(0.02)
    return os.getpid(), [x * x for x in chunk]


def test_a_helping_main_process_computes_chunks_in_their_order() -> None:
    chunks = [[i, i + 1] for i in range(0, 80, 2)]
    results = list(pool.ordered_map(_slow_pid, chunks, 1, helping=True))
    assert [values for _, values in results] == [[x * x for x in c] for c in chunks]
    here = [i for i, (pid, _) in enumerate(results) if pid == os.getpid()]
    # the first chunk's result cannot be ready at once, so this process helps from the
    # start; the worker still computes its share
    assert here and len(here) < len(chunks)
    alone = list(pool.ordered_map(_slow_pid, chunks, 1))
    assert all(pid != os.getpid() for pid, _ in alone)


def _collecting(chunk: list[int]) -> list[bool]:
    import gc

    return [gc.isenabled() for _ in chunk]


def test_a_worker_collects_garbage_whatever_its_parent_did_at_the_fork() -> None:
    """The writer pauses the collector while it gathers a batch, which is when the pool
    forks: the workers must not keep it paused for good."""
    import gc

    gc.disable()
    try:
        assert list(pool.ordered_map(_collecting, [[1, 2]] * 3, 2)) == [[True, True]] * 3
    finally:
        gc.enable()


def _slow_or_failing(chunk: list[int]) -> list[int]:
    time.sleep(0.02)
    if 30 in chunk:
        raise ValueError("chunk 15 fails")
    return [x * x for x in chunk]


def test_a_chunk_failing_is_raised_at_its_turn_whoever_computed_it() -> None:
    chunks = [[i, i + 1] for i in range(0, 80, 2)]
    taken: list[list[int]] = []
    with pytest.raises(ValueError, match="chunk 15 fails"):
        for values in pool.ordered_map(_slow_or_failing, chunks, 1, helping=True):
            taken.append(values)
    assert taken == [[x * x for x in c] for c in chunks[:15]]


def test_cli_report_is_the_same_with_and_without_workers(
    cli: Cli, tmp_path: Path, games: Games
) -> None:
    path = mixed_file(tmp_path, games(40))
    results = {}
    for workers in ("0", "2"):
        db_path = tmp_path / f"cli{workers}.db"
        results[workers] = cli("import", "--json", "--workers", workers, "--db", str(db_path),
                               str(path))
    assert results["0"].exit_code == results["2"].exit_code == 1
    assert [unclocked(o) for o in json_lines(results["0"].output)] == \
        [unclocked(o) for o in json_lines(results["2"].output)]
    assert json_lines(results["2"].output)[-1] == {"accepted": 36, "duplicate": 2,
                                                   "superseded": 0, "refused": 3}


def worker_pids(pid: int) -> list[int]:
    """The child processes of ``pid`` (Linux's /proc)."""
    children: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        children += [int(c) for c in text]
    return children


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_a_killed_worker_stops_the_import_and_a_retry_stores_exactly_the_rest(
    tmp_path: Path, games: Games
) -> None:
    base = games(40)
    docs = [{**copy.deepcopy(base[i % 40]), "game_id": f"copy-{i}"} for i in range(200)]
    path = write_jsonl(tmp_path / "many.jsonl", docs)
    db_path = tmp_path / "killed.db"
    storage.connect(db_path).close()
    command = [sys.executable, "-m", "recorder.cli", "import", "--workers", "2",
               "--batch-size", "8", "--db", str(db_path), str(path)]
    proc = subprocess.Popen(command, env=subprocess_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path)
    reader = sqlite3.connect(db_path)
    deadline = time.monotonic() + 60
    while reader.execute("SELECT count(*) FROM games").fetchone()[0] == 0:
        assert proc.poll() is None and time.monotonic() < deadline, "the import never started"
        time.sleep(0.02)
    os.kill(worker_pids(proc.pid)[0], signal.SIGKILL)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 3, err.decode()
    assert "a worker process stopped without answering" in err.decode()
    assert "run the same import again" in err.decode()
    stored = reader.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 0 < stored < len(docs)
    # every stored game is whole: its moves are all there
    assert reader.execute(
        "SELECT count(*) FROM games g WHERE moves_count != "
        "(SELECT count(*) FROM moves m WHERE m.game = g.id)").fetchone()[0] == 0
    reader.close()
    retry = run_import(db_path, [str(path)], workers=2)
    statuses = [o["status"] for o in retry]
    assert statuses.count("duplicate") == stored
    assert statuses.count("accepted") == len(docs) - stored
    db = storage.connect(db_path)
    assert db["games"].count == len(docs)
    assert storage.integrity_check(db) == "ok"
    db.close()
    check_stored(db_path, docs)


def test_in_memory_database_imports_in_this_process(games: Games, tmp_path: Path) -> None:
    from sqlite_utils import Database

    path = write_jsonl(tmp_path / "g.jsonl", games(3))
    db = Database(memory=True)
    storage.apply_migrations(db)
    assert ingest.database_file(db) is None
    _, outcomes = ingest.import_paths(db, [str(path)], workers=2)
    assert [o.status for o in outcomes] == ["accepted"] * 3


@pytest.mark.parametrize("command", [["replay"], ["replay", "--json"], ["validate"],
                                     ["validate", "--strict"]])
def test_replay_and_validate_print_the_same_with_workers(
    cli: Cli, tmp_path: Path, games: Games, command: list[str]
) -> None:
    mixed = mixed_file(tmp_path, games(40))
    cut = tmp_path / "cut.jsonl.gz"
    whole = gzip.compress(mixed.read_bytes())
    cut.write_bytes(whole[: len(whole) // 2])
    paths = [str(SAMPLES / "spilop-2p.jsonl"), str(SAMPLES / "bonus-examples.json"),
             str(mixed), str(cut), str(tmp_path / "missing.json"),
             str(ROOT / "tests" / "hostile" / "comments.json")]
    alone = cli(*command, "--workers", "0", *paths)
    two = cli(*command, "--workers", "2", *paths)
    assert two.stdout == alone.stdout
    assert two.stderr == alone.stderr
    assert two.exit_code == alone.exit_code == 2  # unreadable inputs, answered in place
    assert "cannot read" in alone.stderr and len(alone.stdout.splitlines()) > 60
