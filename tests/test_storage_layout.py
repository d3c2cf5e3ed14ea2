"""The fact tables are clustered on their key (``WITHOUT ROWID``), new and migrated alike.

A database made before the change is brought over by a migration that must keep every
row, every index and what the API shows; one made after is created that way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from conftest import ROOT

from recorder import ingest, storage

SAMPLES = ROOT / "sample_games"


def table_sql(db: Any, table: str) -> str:
    return str(db.execute("SELECT sql FROM sqlite_master WHERE name = ?", [table]).fetchone()[0])


def rows(db: Any, table: str) -> list[tuple[Any, ...]]:
    keys = ", ".join(db[table].pks)
    return db.execute(f"SELECT * FROM [{table}] ORDER BY {keys}").fetchall()


def test_a_new_database_clusters_the_fact_tables(tmp_path: Path) -> None:
    db = storage.connect(tmp_path / "new.db")
    for table in storage.CLUSTERED_TABLES:
        assert table_sql(db, table).endswith("WITHOUT ROWID")
    assert db["moves"].pks == ["game", "round", "move"]
    assert [fk.other_table for fk in db["moves"].foreign_keys] == ["games"]
    db.close()


def test_the_migration_keeps_every_row_and_index(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = storage.connect(path, migrate=False)
    old.enable_wal()
    storage.migrations.apply(old, stop_before="m008_clustered_facts")
    assert "WITHOUT ROWID" not in table_sql(old, "moves")
    # today's import writes columns of later migrations; added as those add them, they
    # leave the table a rowid table
    old.execute("ALTER TABLE rounds ADD COLUMN ending TEXT")
    old.execute("ALTER TABLE games ADD COLUMN identity INTEGER")
    _, outcomes = ingest.import_paths(old, [str(SAMPLES / "spilop-2p.jsonl")])
    assert {o.status for o in outcomes} == {"accepted"}
    before = {t: rows(old, t) for t in storage.CLUSTERED_TABLES}
    indexes = {r[0] for r in old.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")}
    old.close()
    assert len(before["moves"]) > 100

    db = storage.connect(path)  # the pending migration runs
    for table in storage.CLUSTERED_TABLES:
        assert table_sql(db, table).endswith("WITHOUT ROWID")
        assert rows(db, table) == before[table]
    # every index kept, and the one a later migration adds (the games list's variant filter)
    assert {r[0] for r in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")} == \
        indexes | {"idx_games_variant"}
    assert storage.integrity_check(db) == "ok"
    assert db.execute("PRAGMA foreign_key_check").fetchall() == []
    # the migrated file goes on taking games, with the same keys enforced
    _, outcomes = ingest.import_paths(db, [str(SAMPLES / "classic-2p.jsonl")])
    assert {o.status for o in outcomes} == {"accepted"}
    db.close()
    again = storage.connect(path)  # nothing left to apply
    assert storage.apply_migrations(again) == []
    again.close()
