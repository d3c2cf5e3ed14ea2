"""A database of the recorder of 2026-12-01 is brought to today's identity rules.

``tests/data/identity-v1.db.gz`` was made by that recorder (``make_identity_v1_db.py``
beside it says how and what it holds). Opened by today's recorder, every stored hash is
recomputed, twins that are one game under today's rules are one game (the later one
removed with its counters, and ``games_merged`` says where it went), a game_id held by two
games is kept by the earlier, tokens are bound to frontends as docs/service.md says, and
the counters are what a rebuild from the stored facts makes. A run that is stopped midway
goes on where it stopped and ends in the same file.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import stats_counters as counters
from conftest import subprocess_env

from recorder import identity, rehash, stats, storage

FIXTURE = Path(__file__).resolve().parent / "data" / "identity-v1.db.gz"
@pytest.fixture
def old_db(tmp_path: Path) -> Path:
    path = tmp_path / "old.db"
    path.write_bytes(gzip.decompress(FIXTURE.read_bytes()))
    return path


def rows(path: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(path) as conn:
        return conn.execute(sql, args).fetchall()


def test_the_fixture_is_a_database_of_the_old_rules(old_db: Path) -> None:
    applied = {r[0] for r in rows(old_db, "SELECT name FROM _sqlite_migrations")}
    assert "m008_clustered_facts" in applied and "m011_identity_v2" not in applied
    assert len(rows(old_db, "SELECT id FROM games")) == 14


def test_opening_an_old_database_brings_it_to_todays_rules(old_db: Path, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", "from recorder.cli import main; main()", "token", "list",
         "--json", "--db", str(old_db)],
        capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert result.returncode == 0, result.stderr
    said = result.stderr
    assert "recomputing the identity of 14 stored games" in said
    assert "game #10 is game #9 stored twice: #10 is removed, #9 kept" in said
    assert "game #12 is game #11 stored twice" in said
    assert "game #14 has the frontend and game_id of game #13" in said

    # every hash is today's hash of the stored log, and the names are in normal form
    games = rows(old_db, "SELECT id, content_hash, frontend, game_id, log, identity FROM games")
    assert [g[0] for g in games] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 14]
    for pk, content_hash, frontend, _, log, version in games:
        doc = json.loads(storage.log_text(log))  # kept compressed
        assert content_hash == identity.content_hash(doc), pk
        assert version == identity.IDENTITY_VERSION
        assert frontend == identity.frontend_name(doc)
    assert rows(old_db, "SELECT id, frontend, game_id FROM games WHERE id IN (9, 13, 14)") == \
        [(9, "victim-app", "twin-1"), (13, "spilop-app", "g-7"), (14, "spilop-app", None)]
    assert rows(old_db, "SELECT id, kept FROM games_merged ORDER BY id") == [(10, 9), (12, 11)]
    assert rows(old_db, "SELECT count(*) FROM moves WHERE game IN (10, 12)") == [(0,)]

    # tokens: bound to the one frontend they sent, else to their own name
    tokens = {t["name"]: t["frontend"] for t in map(json.loads, result.stdout.splitlines())}
    assert tokens == {"test-frontend": "test-frontend", "ci": "spilop-app",
                      "Kozel-App": "kozel-app", "mixed": "mixed", "dash": None}

    # the counters were made by an older definition: the pages say so, and a rebuild makes
    # them whole (nothing is moved in figures that are to be made again)
    db = storage.connect(old_db)
    assert storage.counters_version(db) == "1"
    db.close()
    assert rows(old_db, "PRAGMA integrity_check") == [("ok",)]

    # and the games go on working: re-sending one is a duplicate, its twin too
    db = storage.connect(old_db)
    from recorder.ingest import import_upload

    stored = rows(old_db, "SELECT log FROM games WHERE id = 9")[0][0]
    twin_log = json.loads(storage.log_text(stored))
    twin_log["frontend"]["name"] = "VICTIM-APP"
    _, outcomes = import_upload(db, json.dumps(twin_log).encode())
    assert [(o.status, o.id) for o in outcomes] == [("duplicate", 9)]
    assert rehash.run(db) == 0  # nothing left to do: opening it again costs nothing
    assert storage.get_meta(db, "identity") == str(identity.IDENTITY_VERSION)
    db.close()

    # a link to a removed twin leads to the game it was
    from webui import create_app

    client = create_app({"TESTING": True, "DATABASE": str(old_db)}).test_client()
    response = client.get("/games/10")
    assert (response.status_code, response.headers["Location"]) == (301, "/games/9")
    answer = client.get("/api/games/10/frames").get_json()
    assert (answer["status"], answer["error"]["kept"]) == (404, 9)
    assert "it was game #9 stored twice" in answer["error"]["message"]


def test_a_stopped_rehash_goes_on_where_it_stopped(
        old_db: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    straight = tmp_path / "straight.db"
    straight.write_bytes(old_db.read_bytes())
    storage.connect(straight).close()

    done = []
    one = rehash._one

    def stop_after_five(db: Any, game_pk: int, acc: Any) -> None:
        if len(done) == 5:
            raise KeyboardInterrupt  # the process is stopped in the middle of a batch
        done.append(game_pk)
        one(db, game_pk, acc)

    monkeypatch.setattr(rehash, "BATCH", 3)
    monkeypatch.setattr(rehash, "_one", stop_after_five)
    with pytest.raises(KeyboardInterrupt):
        storage.connect(old_db)
    # the first batch of three is kept, the one in flight is not, and the file does not
    # say it is done
    assert len(rows(old_db, "SELECT id FROM games WHERE identity = ?",
                    identity.IDENTITY_VERSION)) == 3
    assert rows(old_db, "SELECT value FROM recorder_meta WHERE key = 'identity'") == []
    monkeypatch.setattr(rehash, "_one", one)
    storage.connect(old_db).close()
    assert rows(old_db, "SELECT id, content_hash, frontend, game_id FROM games ORDER BY id") \
        == rows(straight, "SELECT id, content_hash, frontend, game_id FROM games ORDER BY id")
    assert counters(old_db) == counters(straight)
    assert rows(old_db, "SELECT id, kept FROM games_merged ORDER BY id") == \
        rows(straight, "SELECT id, kept FROM games_merged ORDER BY id")


def test_counters_of_the_current_definitions_move_with_the_games(
        old_db: Path, tmp_path: Path) -> None:
    """Counters made whole before the rehash (a rebuild under the old identity) end as a
    rebuild after it makes them: the removed twins' contributions out, the renamed
    frontends' moved."""
    db = storage.connect(old_db, migrate=False)
    storage.migrations.apply(db)  # the migrations, not yet the rehash
    stats.rebuild(db, from_logs=True)
    assert storage.counters_version(db) == storage.COUNTERS_VERSION
    frontends = {r[0] for r in db.execute("SELECT DISTINCT frontend FROM stats_rounds")}
    assert {"Victim-App", "victim-app"} <= frontends
    assert rehash.run(db) == 14
    db.close()
    kept = counters(old_db)
    assert "Victim-App" not in {row[3] for row in kept["stats_rounds"]}
    copy = tmp_path / "rebuilt.db"
    with sqlite3.connect(old_db) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    db = storage.connect(copy)
    stats.rebuild(db, from_logs=False)
    db.close()
    assert kept == counters(copy)
