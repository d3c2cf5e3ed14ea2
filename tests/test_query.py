"""The one filter builder: every filter selects, on every table that answers it, exactly the
games a plain reading of the stored games says it should.

The games are imported through the real path into a real SQLite file; each expectation
is computed in Python from the ``games`` and ``players`` rows, independently of the SQL
that :func:`recorder.query.where` writes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from recorder import query, stats, storage
from recorder.ingest import import_paths
from tests.conftest import make_game, write_jsonl

DAYS = ["2026-10-03T09:00:00Z", "2026-10-31T23:59:59Z", "2026-11-01T00:00:00Z",
        "2026-11-15T12:30:00Z", None]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """Games of several presets and variants, dated and undated, one with odd names."""
    folder = tmp_path_factory.mktemp("query")
    docs = []
    rulesets: list[Any] = ["classic", {"preset": "classic", "options": {"draw": "one"}},
                           "spilop", {"preset": "spilop", "options": {"bonus": True}},
                           "kozel", "openspiel-block"]
    for i in range(18):
        doc = make_game(f"q{i}", ruleset=rulesets[i % len(rulesets)],
                        players=2, game_id=f"table-{i}_x%{i}",
                        frontend="front-a" if i % 2 else "front-b")
        if DAYS[i % len(DAYS)] is not None:
            doc["started_at"] = DAYS[i % len(DAYS)]
        if i == 4:
            doc["players"][0]["name"] = "Per_cent %"
        docs.append(doc)
    db = storage.connect(folder / "q.db")
    _, outcomes = import_paths(db, [str(write_jsonl(folder / "q.jsonl", docs))])
    assert {o.status for o in outcomes} == {"accepted"}
    yield db
    db.close()


def games(db: Any) -> list[dict[str, Any]]:
    rows = db.execute("SELECT id, preset, variant, frontend, player_count, played_at, status, "
                      "blocked_rounds, game_id, players FROM games").fetchall()
    keys = ("id", "preset", "variant", "frontend", "players", "played_at", "status",
            "blocked_rounds", "game_id", "people")
    return [dict(zip(keys, r, strict=True)) | {"people": json.loads(r[-1])} for r in rows]


def ids_where(db: Any, flt: query.Filter) -> set[int]:
    where, params = query.where(flt, query.GAMES)
    return {r[0] for r in db.execute(f"SELECT id FROM games WHERE {where}", params)}


def ids_like(db: Any, keep: Callable[[dict[str, Any]], bool]) -> set[int]:
    return {g["id"] for g in games(db) if keep(g)}


def test_every_filter_of_the_games_table(store: Any) -> None:
    db = store
    some = games(db)[3]
    pid = some["people"][1]["id"]
    cases: list[tuple[query.Filter, Callable[[dict[str, Any]], bool]]] = [
        (query.Filter(), lambda g: True),
        (query.Filter(preset="classic"), lambda g: g["preset"] == "classic"),
        (query.Filter(variant="classic draw=one"), lambda g: g["variant"] == "classic draw=one"),
        # a variant names its preset: preset is not added on top of it
        (query.Filter(preset="spilop", variant="classic"), lambda g: g["variant"] == "classic"),
        (query.Filter(variants=("kozel", "spilop")), lambda g: g["variant"] in {"kozel", "spilop"}),
        (query.Filter(variants=()), lambda g: False),
        (query.Filter(preset="spilop", variants=("spilop bonus=true", "kozel")),
         lambda g: g["variant"] == "spilop bonus=true"),
        (query.Filter(frontend="front-a"), lambda g: g["frontend"] == "front-a"),
        (query.Filter(players=2), lambda g: g["players"] == 2),
        (query.Filter(players=3), lambda g: False),
        (query.Filter(player=pid), lambda g: pid in [p["id"] for p in g["people"]]),
        (query.Filter(status="finished"), lambda g: g["status"] == "finished"),
        (query.Filter(blocked=True), lambda g: g["blocked_rounds"] > 0),
        (query.Filter(blocked=False), lambda g: g["blocked_rounds"] == 0),
        # a bare date is the whole day, at either end
        (query.Filter(since="2026-11-01"), lambda g: g["played_at"] >= "2026-11-01T00:00:00Z"),
        (query.Filter(until="2026-10-31"), lambda g: g["played_at"] <= "2026-10-31T23:59:59Z"),
        (query.Filter(since="2026-10-31T12:00:00Z", until="2026-11-01"),
         lambda g: "2026-10-31T12:00:00Z" <= g["played_at"] <= "2026-11-01T23:59:59Z"),
    ]
    for flt, keep in cases:
        assert ids_where(db, flt) == ids_like(db, keep), flt
    # the cases that select something do (the store has blocked rounds and late games)
    assert ids_where(db, query.Filter(blocked=True))
    assert ids_where(db, query.Filter(since="2026-11-01"))


def test_the_search_finds_player_ids_names_and_game_ids_literally(store: Any) -> None:
    db = store

    def found(text: str) -> set[int]:
        return ids_where(db, query.Filter(search=text))

    shouted = "TABLE-7_X%7"  # a game id in another case
    assert found(shouted) == ids_like(db, lambda g: g["game_id"] == "table-7_x%7")
    assert len(found(shouted)) == 1
    assert len(found("table-1")) == len(ids_like(db, lambda g: "table-1" in g["game_id"])) > 1
    # % and _ are the characters themselves, not wildcards
    assert found("_x%1") == ids_like(db, lambda g: "_x%1" in g["game_id"])
    assert found("cent %") == ids_like(db, lambda g: any(
        "cent %" in (p.get("name") or "") for p in g["people"]))
    assert len(found("cent %")) == 1
    assert found("t_") == set()  # "_" is not "any character": no id has "t_"
    pid = games(db)[0]["people"][0]["id"]
    assert found(pid.upper()) >= {games(db)[0]["id"]}


def test_a_preset_of_a_counter_row_is_the_first_word_of_its_variant(store: Any) -> None:
    where, params = query.where(query.Filter(preset="openspiel"), query.COUNTERS)
    rows = store.execute(f"SELECT DISTINCT variant FROM stats_rounds WHERE {where}", params)
    assert rows.fetchall() == []  # "openspiel" is not "openspiel-block"
    where, params = query.where(query.Filter(preset="spilop"), query.COUNTERS)
    rows = store.execute(f"SELECT DISTINCT variant FROM stats_rounds WHERE {where}", params)
    assert sorted(r[0] for r in rows) == ["spilop", "spilop bonus=true"]


def test_the_counters_under_a_filter_are_the_games_it_selects(store: Any) -> None:
    """A statistic and the games list agree: the rounds counted under a filter are the
    rounds of the games the same filter lists."""
    db = store
    pid = games(db)[2]["people"][0]["id"]
    for flt in (query.Filter(), query.Filter(preset="classic"),
                query.Filter(variant="spilop bonus=true"), query.Filter(frontend="front-b"),
                query.Filter(since="2026-11-01"), query.Filter(until="2026-10-31"),
                query.Filter(variants=("kozel", "classic"))):
        counted = stats.Reader(db, flt).total("stats_rounds", ("rounds",))[0]
        # the counters' days are the days of the list's dates (the log's, else the import's)
        want = sum(db.execute("SELECT rounds_count FROM games WHERE id = ?", [i]).fetchone()[0]
                   for i in ids_where(db, flt))
        assert counted == want, flt
    mine = stats.Reader(db, query.Filter(player=pid)).total("stats_players", ("games",))[0]
    assert mine == len(ids_where(db, query.Filter(player=pid)))


def test_the_missed_bonus_examples_take_the_same_filters(store: Any) -> None:
    db = store
    total = db.execute("SELECT count(*) FROM stats_missed").fetchone()[0]
    assert total > 0
    where, params = query.where(query.Filter(variant="classic"), query.MISSED)
    assert db.execute(f"SELECT count(*) FROM stats_missed m WHERE {where}", params
                      ).fetchone()[0] == 0  # classic has no bonus
    where, params = query.where(query.Filter(preset="spilop", until="2026-10-31"), query.MISSED)
    got = {r[0] for r in db.execute(f"SELECT m.game FROM stats_missed m WHERE {where}", params)}
    assert got and got <= ids_where(db, query.Filter(preset="spilop", until="2026-10-31"))


def test_a_filter_a_table_cannot_answer_is_refused() -> None:
    with pytest.raises(ValueError, match="status"):
        query.where(query.Filter(status="finished"), query.COUNTERS)
    with pytest.raises(ValueError, match="since"):
        query.where(query.Filter(since="2026-01-01"), query.COUNTERS)


def test_the_dialect_is_the_one_place_sql_engines_differ() -> None:
    """An engine whose LIKE minds case (DuckDB) changes one method; the questions stay."""

    class CaseSensitiveLike(query.Dialect):
        name = "duckdb-like"

        def contains(self, expr: str, text: str) -> tuple[str, list[Any]]:
            return f"{expr} ILIKE ? ESCAPE '\\'", ["%" + query.like_escape(text) + "%"]

    flt = query.Filter(search="ab", preset="classic", players=2)
    plain, plain_params = query.where(flt, query.GAMES)
    other, other_params = query.where(flt, query.GAMES, CaseSensitiveLike())
    assert plain.replace("LIKE", "ILIKE") == other and plain_params == other_params
    assert query.Dialect().quote('we"ird') == '"we""ird"'


def test_the_filter_says_what_it_applies() -> None:
    flt = query.Filter(preset="kozel", players=3, variants=("a",))
    assert flt.applied() == {"preset": "kozel", "players": 3, "variants": ["a"]}
    assert query.to_args(flt.but(blocked=True)) == {"preset": "kozel", "players": "3",
                                                    "blocked": "true"}
    assert storage.GameFilter(preset="kozel").where() == query.where(
        query.Filter(preset="kozel"), query.GAMES)
