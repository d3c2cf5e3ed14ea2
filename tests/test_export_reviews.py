"""``recorder export --parquet`` writes the store's reviews (``recorder review --db``) as
the ``reviews`` and ``review_decisions`` datasets, row for row those ``recorder batch
review`` writes over the same logs, so ``recorder serve --warehouse`` answers the
accuracy figures from an exported folder as the store does. Reviews of another version,
with limits no longer used, or only begun are left out."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

from archives import cluster as cluster  # the module's cluster (a fixture)
from click.testing import CliRunner
from conftest import write_jsonl
from test_warehouse import CONFIG, differences
from test_warehouse_reviews import games, players

from recorder import batch, parquet, review_stats, reviews, storage
from recorder.cli import main
from recorder.review import VERSION, Settings
from recorder.warehouse import open_warehouse
from recorder.warehouse_reviews import review_tables
from webui import create_app

PERFECT = Settings(view="perfect")
STALE_LIMITS = reviews.settings_key(Settings()).replace("round_positions=", "round_positions=5")
"""A settings string as an earlier default of the round's limit wrote it."""


def invoke(*args: str) -> None:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def folders(cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The games reviewed in a store (both views) and exported, and by ``batch review``
    over the same logs (both views)."""
    folder = tmp_path_factory.mktemp("export-reviews")
    source = str(write_jsonl(folder / "games.jsonl", games()))
    db = folder / "recorder.db"
    invoke("import", "--db", str(db), source)
    for view in ("player", "perfect"):
        invoke("review", "--db", str(db), "--view", view, "--workers", "0", "--no-progress")
    out = folder / "batch"
    for settings in (Settings(), PERFECT):
        report = batch.run([source], str(out), "review", client=cluster, shard_bytes=4096,
                           settings=settings)
        assert report.tally.reviewed == 14
    invoke("export", "--parquet", str(folder / "export"), "--db", str(db))
    return {"db": db, "batch": out, "export": folder / "export", "source": Path(source)}


def review_rows(out: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The review datasets' rows, each game by its ``game_id`` (the folders number games
    apart), sorted, without the time of writing."""
    ids = {g["id"]: g["game_id"]
           for g in parquet.read_dataset(str(out), "games", ["id", "game_id"]).to_pylist()}
    rows = {}
    for name in parquet.REVIEW_DATASETS:
        cols = [c for c in parquet.REVIEW_SCHEMAS[name].names if c != "reviewed_at"]
        data = parquet.read_dataset(str(out), name, cols).to_pylist()
        rows[name] = sorted((tuple(ids[r["game"]] if c == "game" else r[c] for c in cols)
                             for r in data), key=lambda r: tuple((v is not None, v) for v in r))
    return rows


def test_the_export_holds_the_reviews_batch_review_writes(folders: dict[str, Path]) -> None:
    exported, batched = review_rows(folders["export"]), review_rows(folders["batch"])
    assert len(exported["reviews"]) > 28 and len(exported["review_decisions"]) > 100
    assert {r[1] for r in exported["reviews"]} == {
        reviews.settings_key(Settings()), reviews.settings_key(PERFECT)}
    assert exported == batched  # row for row, both views
    for settings in (Settings(), PERFECT):  # and the reviews put together are the same
        by_id = {g["id"]: g["game_id"] for g in parquet.read_dataset(
            str(folders["export"]), "games", ["id", "game_id"]).to_pylist()}
        mine = {by_id[g]: r for g, r in batch.reviews_of(str(folders["export"]),
                                                          settings).items()}
        assert len(mine) == 14
        assert mine == {r["game_id"]: r for r in batch.reviews_of(str(folders["batch"]),
                                                                   settings).values()}
    # the empty files are there, as batch review writes them
    for name in parquet.REVIEW_DATASETS:
        assert (folders["export"] / name / parquet.partition_name(None) /
                parquet.EMPTY_FILE).exists()


def test_reviews_of_another_version_old_limits_or_only_begun_are_left_out(
        folders: dict[str, Path], tmp_path: Path) -> None:
    db = tmp_path / "recorder.db"
    shutil.copy(folders["db"], db)
    store = storage.connect(db)
    try:
        first, second = (r[0] for r in store.execute(
            "SELECT id FROM games ORDER BY id LIMIT 2").fetchall())
        body = reviews.pack({"round": 1, "decisions": []})
        with storage.write_transaction(store):
            store.conn.executemany(
                "INSERT INTO round_reviews (game, settings, round, version, rounds, decisions, "
                "reviewed_at, body) VALUES (?, ?, 1, ?, 1, 0, '2026-01-01T00:00:00Z', ?)",
                [(first, reviews.settings_key(Settings(samples=3)), VERSION - 1, body),
                 (first, STALE_LIMITS, VERSION, body)])
        # a review the service began: one round of a game of more
        two = Settings(samples=2)
        planned = reviews.plan_log(reviews.log_of(store, second) or "")
        assert planned.total > 1
        reviews.store_rounds(store, second, two, planned.total, [planned.review(1, two)])
        assert not reviews.load(store, second, two).complete
    finally:
        store.close()
    invoke("export", "--parquet", str(tmp_path / "out"), "--db", str(db))
    assert review_rows(tmp_path / "out") == review_rows(folders["export"])


def test_the_warehouse_of_an_export_answers_the_accuracy_as_the_store(
        folders: dict[str, Path], tmp_path: Path) -> None:
    out = folders["export"]
    warehouse = open_warehouse(str(out))
    tables = review_tables(warehouse)
    assert tables is not None
    store = storage.connect(folders["db"], migrate=False)
    try:
        expected = review_stats.variant_decisions(store)
        assert len(expected) == 2 and all(v["decisions"] > 10 for v in expected)
        assert not differences(expected, review_stats.variant_decisions(tables))
        asked = 0
        for player in players(folders["db"]):
            for variant in (None, *(v["variant"] for v in expected)):
                mine = review_stats.player_accuracy(store, player, variant, None)
                asked += mine["decisions"] > 0
                found = differences(mine, review_stats.player_accuracy(tables, player,
                                                                       variant, None))
                assert not found, (player, variant, found)
        assert asked > 10
    finally:
        store.close()
        warehouse.close()
    # through the URLs, with the store's own review sums gone from the served copy
    db = tmp_path / "recorder.db"
    shutil.copy(folders["db"], db)
    copy = storage.connect(db, migrate=False)
    copy.execute("DELETE FROM review_seats")
    copy.conn.commit()
    copy.close()
    sqlite = create_app({**CONFIG, "DATABASE": str(folders["db"])}).test_client()
    served = create_app({**CONFIG, "DATABASE": str(db), "WAREHOUSE": str(out)}).test_client()
    assert differences(sqlite.get("/api/stats/variants").get_json(),
                       served.get("/api/stats/variants").get_json()) == []
    for player in players(folders["db"])[:3]:
        want = sqlite.get(f"/api/stats/players/{player}").get_json()["data"]["accuracy"]
        got = served.get(f"/api/stats/players/{player}").get_json()["data"]["accuracy"]
        assert want["decisions"] > 0 and differences(want, got) == []


def test_a_store_without_reviews_exports_no_review_datasets(tmp_path: Path,
                                                            folders: dict[str, Path]) -> None:
    db = tmp_path / "recorder.db"
    invoke("import", "--db", str(db), str(folders["source"]))
    invoke("export", "--parquet", str(tmp_path / "out"), "--db", str(db))
    assert not any((tmp_path / "out" / name).exists() for name in parquet.REVIEW_DATASETS)
    warehouse = open_warehouse(str(tmp_path / "out"))
    try:
        assert review_tables(warehouse) is None  # the accuracy is left to the store
    finally:
        warehouse.close()
