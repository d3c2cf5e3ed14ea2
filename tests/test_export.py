"""``recorder export --parquet``: a SQLite store as the datasets of ``recorder batch``, row
for row (ids and import times included), streamed a slice at a time, in files of bounded
size; ``batch facts`` then adds to the folder only what the store did not hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

from archives import (
    SHARD,
    batch_refusals,
    columns,
    files,
    parquet_rows,
    sqlite_rows,
    write_archive,
)
from archives import cluster as cluster  # the module's cluster (a fixture)
from click.testing import CliRunner
from conftest import make_game

from recorder import batch, export, parquet, storage
from recorder.cli import main


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    folder = tmp_path_factory.mktemp("store")
    archive = write_archive(folder / "logs")
    db = folder / "recorder.db"
    result = CliRunner().invoke(main, ["import", *archive], env={"RECORDER_DB": str(db)},
                                catch_exceptions=False)
    assert result.exit_code == 2, result.output  # d.jsonl.gz is cut off
    return db, archive


def _export(db: Path, out: Path) -> Any:
    return CliRunner().invoke(main, ["export", "--parquet", str(out), "--db", str(db)],
                              catch_exceptions=False)


def _same_as_store(out: Path, db: Path) -> None:
    for table in ("games", "players", "rounds", "moves"):
        cols = columns(table, skip=())
        rows = sqlite_rows(db, table, cols)
        assert rows and parquet_rows(out, table, cols) == rows, table


def test_export_writes_every_row_of_the_store(store: tuple[Path, list[str]],
                                              tmp_path: Path) -> None:
    db, _ = store
    result = _export(db, tmp_path / "out")
    assert result.exit_code == 0, result.output
    _same_as_store(tmp_path / "out", db)
    assert parquet_rows(tmp_path / "out", "refused", ["code"]) == []
    names = {p.name for p in (tmp_path / "out").rglob("*.parquet")}
    assert names == {"part-export-00000.parquet", parquet.EMPTY_FILE}
    presets = {p.name for p in (tmp_path / "out" / "games").iterdir()}
    assert presets >= {"preset=classic", "preset=spilop", "preset=kozel", "preset=italian"}
    state = json.loads((tmp_path / "out" / batch.MANIFEST / "state.json").read_text())
    assert state["made_by"] == "export" and state["kind"] == "facts"
    assert not (tmp_path / "out" / batch.MANIFEST / "export.json").exists()
    assert "exported " in result.output and " games" in result.output


def test_export_streams_slices_into_files_of_bounded_size(
        store: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, _ = store
    monkeypatch.setattr(export, "SLICE_GAMES", 3)
    monkeypatch.setattr(export, "FETCH_ROWS", 7)
    monkeypatch.setattr(export, "FILE_ROWS", 100)
    monkeypatch.setattr(parquet, "ROW_GROUP_ROWS", 50)
    assert _export(db, tmp_path / "out").exit_code == 0
    _same_as_store(tmp_path / "out", db)
    moves = list((tmp_path / "out" / "moves" / "preset=spilop").glob("part-export-*.parquet"))
    assert len(moves) > 5


def test_export_into_a_folder_that_holds_something_changes_nothing(
        store: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, _ = store
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    result = _export(db, tmp_path / "busy")
    assert result.exit_code == 1
    assert "is not empty" in result.output
    assert [p.name for p in (tmp_path / "busy").iterdir()] == ["notes.txt"]
    assert _export(db, tmp_path / "done").exit_code == 0
    before = files(tmp_path / "done")
    again = _export(db, tmp_path / "done")
    assert again.exit_code == 1 and "holds datasets already" in again.output
    assert files(tmp_path / "done") == before


def test_an_export_that_was_stopped_is_done_again_from_the_start(
        store: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db, _ = store
    monkeypatch.setattr(export, "SLICE_GAMES", 5)

    def stop(_: int) -> None:
        raise KeyboardInterrupt

    connection = storage.connect(db)
    with pytest.raises(KeyboardInterrupt):
        export.export_parquet(connection, str(tmp_path / "out"), progress=stop)
    connection.close()
    assert (tmp_path / "out" / batch.MANIFEST / "export.json").exists()
    assert not (tmp_path / "out" / batch.MANIFEST / "state.json").exists()
    assert _export(db, tmp_path / "out").exit_code == 0
    _same_as_store(tmp_path / "out", db)


def test_an_empty_store_exports_empty_datasets_that_read(tmp_path: Path) -> None:
    db = tmp_path / "empty.db"
    storage.connect(db).close()
    assert _export(db, tmp_path / "out").exit_code == 0
    for name, schema in parquet.SCHEMAS.items():
        data = parquet.read_dataset(str(tmp_path / "out"), name)
        assert data.num_rows == 0 and data.schema == schema


def test_batch_facts_after_an_export_adds_only_what_the_store_lacks(
        cluster: Any, store: tuple[Path, list[str]], tmp_path: Path) -> None:
    db, archive = store
    out = tmp_path / "out"
    assert _export(db, out).exit_code == 0
    before = files(out)
    newer = tmp_path / "newer.jsonl"
    taken = make_game(5)
    taken["players"][0]["name"] = "Not the stored one"  # its frontend + game_id are taken
    newer.write_text("\n".join(json.dumps(g) for g in
                               [make_game(0), make_game(400), taken, make_game(401)]) + "\n")
    report = batch.run([*archive, str(newer)], str(out), "facts", client=cluster,
                       shard_bytes=SHARD)
    assert (report.tally.accepted, report.tally.refused) == (2, 8)
    after = files(out)
    assert {k: v for k, v in after.items() if k in before} == before
    games = parquet.read_dataset(str(out), "games", ["id", "game_id"]).to_pylist()
    top = max(g["id"] for g in games if g["game_id"] not in ("game-400", "game-401"))
    assert sorted(g["id"] for g in games if g["game_id"] in ("game-400", "game-401")) == \
        [top + 1, top + 2]
    (stored_id, stored_at), = [r[1:] for r in sqlite_rows(db, "games", [
        "game_id", "id", "imported_at"]) if r[0] == "game-5"]
    conflict = [r for r in batch_refusals(out) if r[4] == "game/conflict" and
                r[0] == str(newer)]
    assert len(conflict) == 1
    message = parquet_rows(out, "refused", ["source", "message"])
    assert any(src == str(newer) and f"stored as game #{stored_id} on {stored_at}" in m
               for src, m in message)
