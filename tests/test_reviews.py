"""Stored reviews (recorder/reviews.py) and ``recorder review --db``: a real SQLite file.

A stored review is the review of the log, round by round: assembled from its rows it is
the very object ``review_game`` gives. Which games need a review (none stored, part of
one, another version), that a run commits each game and a second run skips them, that
an interrupted game continues at its first missing round.
"""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

import pytest

from recorder import review, reviews, storage
from recorder.review import Settings, review_game
from recorder.simulate import simulate_game

SMALL_BLOCK = {"preset": "openspiel-block", "options": {"hand_size": 4, "hands": 3}}
SMALL_DRAW = {"preset": "classic", "options": {"hand_size": 3, "stock_floor": 20,
                                                "target": 15}}
FAST = Settings(samples=3)


def small_game(ruleset: dict[str, Any], players: int, seed: str) -> dict[str, Any]:
    return simulate_game(ruleset, players, seed, game_id=seed, max_rounds=3)


def stored_games(cli: Any, tmp_path: Path, docs: list[dict[str, Any]]) -> None:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    result = cli("import", "--workers", "0", str(path))
    assert result.exit_code == 0, result.output


def games_of(db: Any) -> dict[int, dict[str, Any]]:
    return {pk: json.loads(storage.log_text(log))
            for pk, log in db.execute("SELECT id, log FROM games")}


def test_the_migration_makes_the_table_of_round_reviews(db: Any) -> None:
    names = [m.name for m in storage.migrations.applied(db)]
    assert names[-1] == "m020_round_reviews"
    columns = {c.name for c in db["round_reviews"].columns}
    assert columns == {"game", "settings", "round", "version", "rounds", "decisions",
                       "reviewed_at", "body"}


def test_review_db_stores_each_round_and_assembles_the_games_own_review(
        cli: Any, db: Any, tmp_path: Path) -> None:
    docs = [small_game(SMALL_BLOCK, 2, "stored-a"), small_game(SMALL_DRAW, 3, "stored-b")]
    stored_games(cli, tmp_path, docs)
    result = cli("review", "--db", str(tmp_path / "recorder.db"), "--workers", "0",
                 "--samples", "3")
    assert result.exit_code == 0, result.output
    assert "2 games reviewed" in result.output
    for pk, doc in games_of(db).items():
        rows = db.execute("SELECT round, rounds, version, decisions, body FROM round_reviews "
                          "WHERE game = ? ORDER BY round", [pk]).fetchall()
        whole = review_game(doc, FAST)
        assert [r[0] for r in rows] == [r["round"] for r in whole["rounds"]]
        assert {r[1] for r in rows} == {len(whole["rounds"])}
        assert {r[2] for r in rows} == {review.VERSION}
        for (_, _, _, decisions, body), want in zip(rows, whole["rounds"], strict=True):
            assert json.loads(zlib.decompress(body)) == want  # compact, compressed
            assert decisions == len(want["decisions"])
        stored = reviews.load(db, pk, FAST)
        assert stored.complete
        got = reviews.assembled(db, pk, FAST, stored)
        assert json.dumps(got, sort_keys=True) == json.dumps(whole, sort_keys=True)
    # a second run has nothing left to do; other settings are another review
    again = cli("review", "--db", str(tmp_path / "recorder.db"), "--workers", "0",
                "--samples", "3")
    assert again.exit_code == 0 and "0 games reviewed" in again.output
    assert reviews.needing_review(db, FAST) == []
    assert sorted(reviews.needing_review(db, Settings(view="perfect"))) == sorted(games_of(db))


def test_an_interrupted_game_goes_on_at_its_first_missing_round(
        cli: Any, db: Any, tmp_path: Path) -> None:
    doc = small_game(SMALL_BLOCK, 2, "stored-resume")
    stored_games(cli, tmp_path, [doc])
    (pk,) = games_of(db)
    planned = reviews.plan_log(json.dumps(doc))
    assert planned.total >= 2
    reviews.store_rounds(db, pk, FAST, planned.total, [planned.review(1, FAST)])
    assert reviews.needing_review(db, FAST) == [pk]  # part of a review is not one
    first = db.execute("SELECT reviewed_at, body FROM round_reviews WHERE round = 1").fetchone()
    tallies = list(reviews.review_database(db, FAST))
    assert tallies[-1].reviewed == 1 and tallies[-1].rounds == planned.total - 1
    assert db.execute("SELECT reviewed_at, body FROM round_reviews WHERE round = 1"
                      ).fetchone() == first  # round 1 was not reviewed again
    assert reviews.load(db, pk, FAST).complete


def test_a_review_of_another_version_is_made_again_and_replaced(
        cli: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_games(cli, tmp_path, [small_game(SMALL_BLOCK, 2, "stored-version")])
    list(reviews.review_database(db, FAST))
    (pk,) = games_of(db)
    rounds = db.execute("SELECT count(*) FROM round_reviews").fetchone()[0]
    monkeypatch.setattr(reviews, "VERSION", review.VERSION + 1)
    assert reviews.needing_review(db, FAST) == [pk]
    assert reviews.load(db, pk, FAST).total is None  # the old rows are never read
    list(reviews.review_database(db, FAST))
    versions = db.execute("SELECT DISTINCT version FROM round_reviews").fetchall()
    assert versions == [(review.VERSION + 1,)]
    assert db.execute("SELECT count(*) FROM round_reviews").fetchone()[0] == rounds


def test_review_db_with_workers_stores_what_one_process_stores(
        cli: Any, db: Any, tmp_path: Path) -> None:
    docs = [small_game(SMALL_BLOCK, 2, f"stored-w{i}") for i in range(3)]
    stored_games(cli, tmp_path, docs)
    result = cli("review", "--db", str(tmp_path / "recorder.db"), "--workers", "2",
                 "--samples", "3")
    assert result.exit_code == 0, result.output
    for pk, doc in games_of(db).items():
        got = reviews.assembled(db, pk, FAST, reviews.load(db, pk, FAST))
        assert got["rounds"] == review_game(doc, FAST)["rounds"]


def test_the_evaluation_gives_each_side_the_played_values_from_its_own_seat() -> None:
    doc = small_game(SMALL_BLOCK, 2, "stored-graph")
    whole = review_game(doc, Settings(view="perfect"))
    graph = reviews.evaluation(whole, [[0], [1]])
    assert [g["round"] for g in graph] == [r["round"] for r in whole["rounds"]]
    for g, r in zip(graph, whole["rounds"], strict=True):
        valued = [d for d in r["decisions"] if d["class"] is not None]
        assert len(g["seats"][0]) == len(g["seats"][1]) == len(valued)
        for a, b, d in zip(g["seats"][0], g["seats"][1], valued, strict=True):
            played = d["choices"][d["played"]]["value"]
            assert a["move"] == b["move"] == d["move"]
            assert (a["value"], b["value"]) == ((played, -played) if d["player"] == 0
                                                else (-played, played))
        assert g["lines"] == [0, 1]
    # three sides: each seat has its own decisions only
    three = review_game(small_game(SMALL_DRAW, 3, "stored-graph3"), FAST)
    for g, r in zip(reviews.evaluation(three, [[0], [1], [2]]), three["rounds"], strict=True):
        for seat in range(3):
            assert [p["move"] for p in g["seats"][seat]] == [
                d["move"] for d in r["decisions"] if d["player"] == seat and d["class"]]


def test_review_needs_db_or_files(cli: Any) -> None:
    result = cli("review")
    assert result.exit_code == 2
    assert "FILES" in result.output
