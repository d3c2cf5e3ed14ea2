"""``recorder serve --warehouse DIR`` answers the review statistics from the ``reviews``
datasets of ``recorder batch review``, as the SQLite store does holding the same
reviews (stored by ``recorder review --db``): each player's accuracy, and each variant's
decisions figures, through the functions and through the stats URLs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

from archives import cluster as cluster  # the module's cluster (a fixture)
from click.testing import CliRunner
from conftest import write_jsonl
from test_warehouse import CONFIG, differences

from recorder import batch, review_stats, storage
from recorder.cli import main
from recorder.simulate import simulate_game
from recorder.warehouse import open_warehouse
from recorder.warehouse_reviews import review_tables
from webui import create_app

VARIANTS = (
    {"preset": "classic", "options": {"hand_size": 4, "draw": "none", "target": 25}},
    {"preset": "classic", "options": {"hand_size": 5, "draw": "none", "target": 30}},
)
"""Two variants of small block games: the default review (player view, 24 deals) of a
round takes milliseconds."""


def games() -> list[dict[str, Any]]:
    return [
        simulate_game(
            VARIANTS[i % 2],
            2 + i % 3 % 2,
            f"wh-review-{i}",
            game_id=f"wh-review-{i}",
            max_rounds=4,
            started_at=f"2026-10-{1 + i:02d}T10:00:00Z",
        )
        for i in range(14)
    ]


@pytest.fixture(scope="module")
def stores(cluster: Any, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The games and their default reviews in a SQLite store and in a batch folder."""
    folder = tmp_path_factory.mktemp("reviews")
    source = str(write_jsonl(folder / "games.jsonl", games()))
    db = folder / "recorder.db"
    for args in (
        ["import", "--db", str(db), source],
        ["review", "--db", str(db), "--workers", "0", "--no-progress"],
    ):
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    out = folder / "batch"
    report = batch.run([source], str(out), "review", client=cluster, shard_bytes=4096)
    assert report.tally.reviewed == 14
    return {"db": db, "out": out}


def players(db: Path) -> list[str]:
    store = storage.connect(db, migrate=False)
    try:
        return sorted({r[0] for r in store.execute("SELECT player_id FROM players")})
    finally:
        store.close()


def test_the_review_statistics_of_the_warehouse_are_the_stores(stores: dict[str, Any]) -> None:
    warehouse = open_warehouse(str(stores["out"]))
    tables = review_tables(warehouse)
    assert tables is not None
    db = storage.connect(stores["db"], migrate=False)
    try:
        expected = review_stats.variant_decisions(db)
        assert len(expected) == 2 and all(v["decisions"] > 10 for v in expected)
        assert not differences(expected, review_stats.variant_decisions(tables))
        asked = 0
        for player in players(stores["db"]):
            for variant in (None, *(v["variant"] for v in expected)):
                for count in (None, 2, 3):
                    mine = review_stats.player_accuracy(db, player, variant, count)
                    asked += mine["decisions"] > 0
                    found = differences(
                        mine, review_stats.player_accuracy(tables, player, variant, count)
                    )
                    assert not found, (player, variant, count, found)
        assert asked > 10
    finally:
        db.close()
        warehouse.close()


def test_the_stats_urls_answer_the_accuracy_from_the_warehouse(stores: dict[str, Any]) -> None:
    db, out = stores["db"], stores["out"]
    sqlite = create_app({**CONFIG, "DATABASE": str(db)}).test_client()
    served = create_app({**CONFIG, "DATABASE": str(db), "WAREHOUSE": str(out)}).test_client()
    # the store's reviews gone: what the warehouse answers is its own
    store = storage.connect(db, migrate=False)
    kept = list(store.query("SELECT * FROM review_seats"))
    store.execute("DELETE FROM review_seats")
    store.conn.commit()
    try:
        empty = sqlite.get("/api/stats/variants").get_json()
        assert all(v["decisions"] is None for v in empty["data"]["variants"])
        from_warehouse = served.get("/api/stats/variants").get_json()
        player = players(db)[0]
        page = served.get(f"/api/stats/players/{player}").get_json()
    finally:
        store["review_seats"].insert_all(kept)
        store.conn.commit()
        store.close()
    assert differences(sqlite.get("/api/stats/variants").get_json(), from_warehouse) == []
    expected = sqlite.get(f"/api/stats/players/{player}").get_json()
    assert page["data"]["accuracy"]["decisions"] > 0
    assert differences(expected["data"]["accuracy"], page["data"]["accuracy"]) == []


def test_a_folder_without_reviews_leaves_the_accuracy_to_the_store(
    cluster: Any, stores: dict[str, Any], tmp_path: Path
) -> None:
    source = str(write_jsonl(tmp_path / "games.jsonl", games()))
    batch.run([source], str(tmp_path / "facts"), "facts", client=cluster, shard_bytes=4096)
    warehouse = open_warehouse(str(tmp_path / "facts"))
    assert review_tables(warehouse) is None
    warehouse.close()
    sqlite = create_app({**CONFIG, "DATABASE": str(stores["db"])}).test_client()
    served = create_app(
        {**CONFIG, "DATABASE": str(stores["db"]), "WAREHOUSE": str(tmp_path / "facts")}
    ).test_client()
    player = players(stores["db"])[0]
    answers = [
        json.dumps(c.get(f"/api/stats/players/{player}").get_json()["data"]["accuracy"])
        for c in (sqlite, served)
    ]
    assert answers[0] == answers[1]
