"""The SQLite file: migrations, identity constraints, timestamps, tokens."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from recorder import storage
from recorder.tokens import Verdict, check_token, create_token, list_tokens, revoke_tokens

TABLES = {"games", "players", "rounds", "round_moves", "tokens"}


def test_a_new_file_gets_every_table_in_wal_mode(db_path: Path) -> None:
    db = storage.connect(db_path)
    assert set(db.table_names()) >= TABLES
    assert "moves" in db.view_names()
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert storage.integrity_check(db) == "ok"
    db.close()


def test_migrations_are_safe_to_run_again(db_path: Path) -> None:
    db = storage.connect(db_path)
    applied = [m.name for m in storage.migrations.applied(db)]
    assert applied == ["m001_tokens", "m002_games", "m003_facts", "m004_game_list",
                       "m005_token_scopes", "m006_stats_facts", "m007_stats_aggregates",
                       "m008_clustered_facts", "m009_round_endings", "m010_token_frontend",
                       "m011_identity_v2", "m012_round_moves", "m013_compressed_logs",
                       "m020_round_reviews"]
    assert storage.apply_migrations(db) == []
    db.close()
    # A file whose migration record was lost still opens: every step is idempotent.
    raw = sqlite3.connect(db_path)
    raw.execute("DELETE FROM _sqlite_migrations")
    raw.commit()
    raw.close()
    db = storage.connect(db_path)
    assert [m.name for m in storage.migrations.applied(db)] == applied
    db.close()


def test_several_connections_opening_a_new_file_at_once_all_succeed(tmp_path: Path) -> None:
    import concurrent.futures

    path = tmp_path / "race.db"

    def open_it(_: int) -> list[str]:
        db = storage.connect(path)
        names = db.table_names()
        db.close()
        return names

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(open_it, range(4)))
    assert all(set(names) >= TABLES for names in results)


def test_foreign_keys_are_declared_for_datasette(db: storage.Database) -> None:
    for table in ("players", "rounds", "round_moves"):
        (fk,) = db[table].foreign_keys
        assert (fk.column, fk.other_table, fk.other_column) == ("game", "games", "id")
    (fk,) = db["games"].foreign_keys
    assert (fk.column, fk.other_table) == ("uploaded_by", "tokens")


def _game_row(content_hash: str, frontend: str | None, game_id: str | None) -> dict[str, object]:
    return {
        "content_hash": content_hash, "frontend": frontend, "game_id": game_id,
        "status": "finished", "imported_at": storage.utc_now(), "log": "{}", "answer": "{}",
    }


def test_content_hash_is_unique(db: storage.Database) -> None:
    db["games"].insert(_game_row("h1", None, None))
    with pytest.raises(sqlite3.IntegrityError):
        db["games"].insert(_game_row("h1", None, None))


def test_frontend_and_game_id_are_unique_only_when_both_are_given(db: storage.Database) -> None:
    db["games"].insert(_game_row("h1", "spilop", "g-1"))
    db["games"].insert(_game_row("h2", "other", "g-1"))  # another frontend's g-1
    db["games"].insert(_game_row("h3", None, "g-1"))  # no frontend: known by content only
    db["games"].insert(_game_row("h4", None, "g-1"))
    db["games"].insert(_game_row("h5", "spilop", None))
    db["games"].insert(_game_row("h6", "spilop", None))
    with pytest.raises(sqlite3.IntegrityError):
        db["games"].insert(_game_row("h7", "spilop", "g-1"))
    assert db["games"].count == 6


def test_a_failed_savepoint_leaves_the_rest_of_the_transaction(db: storage.Database) -> None:
    with storage.write_transaction(db):
        db.conn.execute(*_insert(_game_row("a", None, None)))
        with pytest.raises(sqlite3.IntegrityError), storage.savepoint(db):
            db.conn.execute(*_insert(_game_row("b", None, None)))
            db.conn.execute(*_insert(_game_row("a", None, None)))
    assert [r["content_hash"] for r in db["games"].rows] == ["a"]


def _insert(row: dict[str, object]) -> tuple[str, list[object]]:
    cols = list(row)
    sql = f"INSERT INTO games ({', '.join(cols)}) VALUES ({', '.join('?' for _ in cols)})"
    return sql, [row[c] for c in cols]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-11-29T18:00:00Z", "2026-11-29T18:00:00Z"),
        ("2026-11-29T19:30:00+01:30", "2026-11-29T18:00:00Z"),
        ("2026-11-29T18:00:00.250Z", "2026-11-29T18:00:00Z"),
        ("2026-11-29T18:00:00", "2026-11-29T18:00:00Z"),
        ("yesterday", None),
        (12, None),
        (None, None),
    ],
)
def test_timestamps_are_stored_in_utc(text: object, expected: str | None) -> None:
    assert storage.normalize_timestamp(text) == expected


def test_the_database_path_comes_from_the_option_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(storage.DB_ENVVAR, raising=False)
    assert storage.resolve_db_path() == tmp_path / "instance" / "recorder.db"
    monkeypatch.setenv(storage.DB_ENVVAR, str(tmp_path / "env.db"))
    assert storage.resolve_db_path() == tmp_path / "env.db"
    assert storage.resolve_db_path(tmp_path / "opt.db") == tmp_path / "opt.db"


def test_tokens_are_stored_only_as_a_hash(db: storage.Database) -> None:
    token, secret = create_token(db, "spilop")
    assert secret.startswith("rec_") and len(secret) > 40
    stored = db.execute("SELECT * FROM tokens").fetchall()
    assert secret not in repr(stored)
    assert token.prefix == secret[:12]
    assert check_token(db, secret).verdict is Verdict.OK
    assert check_token(db, secret + "x").verdict is Verdict.UNKNOWN
    assert check_token(db, None).verdict is Verdict.MISSING


def test_revoking_by_name_or_id(db: storage.Database) -> None:
    first, s1 = create_token(db, "spilop")
    _second, s2 = create_token(db, "spilop")
    _, s3 = create_token(db, "other")
    assert revoke_tokens(db, token_id=first.id) == 1
    assert check_token(db, s1).verdict is Verdict.REVOKED
    assert check_token(db, s2).verdict is Verdict.OK
    assert revoke_tokens(db, "spilop") == 1
    assert revoke_tokens(db, "spilop") == 0
    assert check_token(db, s2).verdict is Verdict.REVOKED
    assert check_token(db, s3).verdict is Verdict.OK
    assert [t.active for t in list_tokens(db)] == [False, False, True]
    with pytest.raises(ValueError):
        create_token(db, "  ")


def test_none_and_bytes_are_bound_as_they_are() -> None:
    """The adapters storage registers for None and bytes (to spare the adapter protocol's
    failed look-ups) hand back the value itself: the same null and the same blob stored."""
    for value in (None, b"", b"\x00\x01facts"):
        adapter = sqlite3.adapters[(type(value), sqlite3.PrepareProtocol)]
        assert adapter(value) is value
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE t (a, b)")
    conn.execute("INSERT INTO t VALUES (?, ?)", (None, b"\x02\x03"))
    assert conn.execute("SELECT a, b, typeof(a), typeof(b) FROM t").fetchone() == (
        None, b"\x02\x03", "null", "blob")
    for kind in (int, float, str, bytearray):  # sqlite3's own fast path stays on
        assert (kind, sqlite3.PrepareProtocol) not in sqlite3.adapters
