"""The variants' figures, their intervals and differences, the comparison of two variants,
and the JSON of the pages that read them (variants, compare, a player, finding a player).

Intervals are checked against published values; every figure the API gives is checked
against a count made here from the ``games``, ``rounds`` and ``players`` rows.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

from recorder import figures, stats, storage
from recorder.ingest import Importer
from recorder.parse import iter_documents
from tests.conftest import make_game

# ---------------------------------------------------------------------------------------
# Intervals and differences.


def test_newcombes_interval_of_a_difference_of_rates() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, table II, example (a): 56/70 - 48/80,
    # method 10: 0.0524 to 0.3339
    a, b = figures.rate(56, 70), figures.rate(48, 80)
    d = figures.difference(a, b, "rate")
    assert d["value"] == pytest.approx(0.2)
    assert (d["low"], d["high"]) == (pytest.approx(0.0524, abs=1e-4),
                                     pytest.approx(0.3339, abs=1e-4))
    # example (h): 10/10 - 0/10: 0.6075 to 1.0000
    d = figures.difference(figures.rate(10, 10), figures.rate(0, 10), "rate")
    assert (d["low"], d["high"]) == (pytest.approx(0.6075, abs=1e-4), pytest.approx(1.0))


def test_welchs_interval_of_a_difference_of_means() -> None:
    # values 1, 2, 3 (mean 2, sd 1) and 4, 6, 8 (mean 6, sd 2)
    a = figures.mean(6, 14, 3)
    b = figures.mean(18, 116, 3)
    assert (a["sd"], b["sd"]) == (pytest.approx(1), pytest.approx(2))
    d = figures.difference(a, b, "mean")
    half = stats.Z95 * math.sqrt(1 / 3 + 4 / 3)
    assert d == {"value": -4, "low": pytest.approx(-4 - half), "high": pytest.approx(-4 + half)}


def test_values_below_their_minimum_sample_are_null() -> None:
    assert figures.rate(3, 10, 30)["value"] is None
    assert figures.rate(3, 10, 30)["n"] == 10
    assert figures.rate(0, 0)["value"] is None
    assert figures.mean(10, 60, 5, 10)["value"] is None
    assert figures.difference(figures.rate(1, 2, 30), figures.rate(1, 2), "rate")["value"] is None


def test_a_sentence_says_whether_a_difference_is_clear() -> None:
    a, b = figures.rate(56, 70), figures.rate(48, 80)
    d = figures.difference(a, b, "rate")
    clear, text = figures.verdict("Blocked rounds", "share of rounds", "kozel", "classic",
                                  a, b, d)
    assert clear and text == ("kozel is higher by 20.0 percentage points (95% interval +5.2 "
                              "to +33.4 percentage points).")
    a, b = figures.rate(10, 20), figures.rate(9, 20)
    d = figures.difference(a, b, "rate")
    clear, text = figures.verdict("Blocked rounds", "share of rounds", "kozel", "classic",
                                  a, b, d)
    assert not clear and text.startswith("No clear difference: the 95% interval of kozel "
                                         "minus classic, -")
    assert text.endswith("percentage points, includes zero.")
    clear, text = figures.verdict("x", "moves", "a", "b", figures.mean(1, 1, 1, 30),
                                  figures.mean(60, 200, 30), {"value": None})
    assert not clear and text == "a: too small a sample to compare (sample 1)."
    clear, text = figures.verdict("x", "moves", "a", "b", a, b, d,
                                  ("classic has no bonus rule.", None))
    assert (clear, text) == (False, "classic has no bonus rule.")


def test_a_filter_that_leaves_no_variant_with_the_rule_says_why() -> None:
    assert figures.scope_reason("bonus", ["classic"]) == (
        "classic has no bonus rule: the bonus figures are counted over the variants whose "
        "rules have a bonus.")
    assert figures.scope_reason("bonus", ["classic", "classic draw=one"]).startswith(
        "classic has no bonus rule in any of its 2 variants here")
    assert figures.scope_reason("bonus", ["kozel", "classic draw=one"]).startswith(
        "kozel and classic (draw: one) have no bonus rule")
    assert figures.in_scope("all-fives", "bonus") and figures.in_scope("all-fives", "target")
    assert figures.in_scope("spilop bonus=true", "bonus")
    assert not figures.in_scope("spilop", "bonus") and not figures.in_scope("kozel", "target")
    assert not figures.in_scope("no-such-preset", "bonus")


def test_which_way_is_better_follows_the_rules() -> None:
    points = stats.METRIC_BY_KEY["points_per_round"]
    assert stats.better_in(points, ["classic", "spilop bonus=true"]) == "higher"
    assert stats.better_in(points, ["kozel"]) == "lower"  # kozel's points are penalties
    assert stats.better_in(points, ["kozel", "classic"]) is None
    assert stats.better_in(stats.METRIC_BY_KEY["bonus_left"], ["kozel"]) == "lower"
    assert stats.better_in(stats.METRIC_BY_KEY["thinking_time"], ["classic"]) is None


# ---------------------------------------------------------------------------------------
# A store, and the JSON read from it.


def store(db: Any, docs: list[dict[str, Any]]) -> None:
    data = "\n".join(json.dumps(d) for d in docs).encode()
    importer = Importer(db)
    assert {o.status for o in importer.run((None, d) for d in iter_documents(data))} == {
        "accepted"}


@pytest.fixture
def stocked(db: Any) -> Any:
    docs = []
    for i in range(8):
        docs.append(make_game(f"c{i}", ruleset="classic", players=2 + i % 2,
                              started_at=f"2026-11-{1 + i:02d}T10:00:00Z"))
        docs.append(make_game(f"k{i}", ruleset="kozel", players=3,
                              started_at=f"2026-11-{1 + i:02d}T11:00:00Z"))
    for i in range(4):
        docs.append(make_game(f"f{i}", ruleset="all-fives", players=2))
    store(db, docs)
    return db


def by_variant(db: Any, variant: str, sql: str) -> Any:
    return db.execute(sql.replace("{v}", "?"), [variant]).fetchone()


def test_the_variants_figures_are_the_stored_rounds(stocked: Any, client: Any) -> None:
    data = client.get("/api/stats/variants").get_json()["data"]
    rows = {r["variant"]: r for r in data["variants"]}
    assert set(rows) == {"classic", "kozel", "all-fives"}
    for variant, row in rows.items():
        rounds, blocked, domino, target, moves = by_variant(
            stocked, variant,
            "SELECT count(*), sum(ending = 'blocked'), sum(ending = 'domino'), "
            "sum(ending = 'target'), sum(r.moves_count) FROM rounds r JOIN games g ON "
            "g.id = r.game WHERE g.variant = {v}")
        f = row["figures"]
        assert row["rounds"] == rounds
        assert (f["blocked_share"]["k"], f["blocked_share"]["n"]) == (blocked, rounds)
        assert f["domino_share"]["value"] == pytest.approx(domino / rounds)
        assert f["round_moves"]["value"] == pytest.approx(moves / rounds)
        assert (f["blocked_share"]["low"], f["blocked_share"]["high"]) == \
            pytest.approx(stats.wilson(blocked, rounds))
        if variant == "all-fives":
            assert f["target_share"]["value"] == pytest.approx(target / rounds) and target
            assert f["bonus_share"]["value"] is not None
        else:
            assert f["target_share"]["value"] is None
            assert f["target_share"]["reason"].endswith("checks the target only when a round "
                                                        "ends.")
            assert f["bonus_share"]["reason"] == f"{variant} has no bonus rule."
        finished, game_rounds = by_variant(
            stocked, variant, "SELECT count(*), sum(rounds_count) FROM games "
            "WHERE variant = {v} AND status = 'finished'")
        assert f["game_rounds"]["n"] == finished
        if finished >= figures.FIGURE_BY_KEY["game_rounds"].min_sample:
            assert f["game_rounds"]["value"] == pytest.approx(game_rounds / finished)
        # the first player: rounds won by the opener
        opened, won = 0, 0
        for opener, winners in stocked.execute(
                "SELECT r.opener, r.winners FROM rounds r JOIN games g ON g.id = r.game "
                "WHERE g.variant = ?", [variant]):
            opened += 1
            won += opener in json.loads(winners)
        assert (f["first_round_wins"]["k"], f["first_round_wins"]["n"]) == (won, opened)
        assert row["games_url"] == f"/games?variant={variant}"
    assert rows["kozel"]["figures"]["first_round_wins"]["even"] == pytest.approx(1 / 3)
    assert {f["key"] for f in data["figures"]} >= {"domino_share", "first_game_wins"}


def test_two_variants_compared(stocked: Any, client: Any) -> None:
    answer = client.get("/api/stats/compare?a=kozel&b=classic").get_json()
    assert answer["ok"], answer
    data = answer["data"]
    assert (data["a"]["variant"], data["b"]["variant"]) == ("kozel", "classic")
    variants = {r["variant"]: r for r in client.get("/api/stats/variants").get_json()["data"][
        "variants"]}
    rows = {r["key"]: r for r in data["rows"]}
    assert list(rows) == list(figures.COMPARED)
    blocked = rows["blocked_share"]
    assert blocked["a"] == variants["kozel"]["figures"]["blocked_share"]
    assert blocked["b"] == variants["classic"]["figures"]["blocked_share"]
    want = figures.difference(blocked["a"], blocked["b"], "rate")
    assert blocked["difference"] == pytest.approx(want)
    clear = not (want["low"] <= 0 <= want["high"])
    assert blocked["significant"] is clear
    assert blocked["sentence"].startswith("kozel is" if clear else "No clear difference")
    assert rows["bonus_share"]["sentence"] == "kozel has no bonus rule."
    assert rows["target_share"]["significant"] is False
    # every seat's figures: the wins of seat 0 are the stored games' results
    seats = [s for s in data["b"]["seats"] if s["kind"] == "seat" and s["position"] == 0
             and s["players"] == 2]
    won, finished = stocked.execute(
        "SELECT sum(p.won), count(*) FROM players p JOIN games g ON g.id = p.game WHERE "
        "g.variant = 'classic' AND g.player_count = 2 AND p.seat = 0 AND g.status = "
        "'finished'").fetchone()
    assert (seats[0]["wins"]["k"], seats[0]["wins"]["n"]) == (won, finished)
    # distributions: every round of kozel once, as shares
    dist = data["distributions"]["round_moves"]["kozel"]
    assert sum(d["count"] for d in dist) == variants["kozel"]["rounds"]
    assert sum(d["share"] for d in dist) == pytest.approx(1)
    # any other filter applies to both
    since = client.get("/api/stats/compare?a=kozel&b=classic&since=2026-11-05").get_json()
    assert since["data"]["a"]["rounds"] < data["a"]["rounds"]
    assert since["data"]["filters"] == {"since": "2026-11-05", "a": "kozel", "b": "classic"}
    # with a player, their own rounds, and no distributions nor seats (kept over every game)
    pid = stocked.execute("SELECT player_id FROM players p JOIN games g ON g.id = p.game "
                          "WHERE g.variant = 'kozel' LIMIT 1").fetchone()[0]
    theirs = client.get(f"/api/stats/compare?a=kozel&b=classic&player={pid}").get_json()["data"]
    assert theirs["distributions"] is None and theirs["a"]["seats"] == []
    assert theirs["a"]["players"] == [3]
    assert theirs["a"]["rounds"] == stocked.execute(
        "SELECT count(*) FROM rounds r JOIN players p ON p.game = r.game JOIN games g ON "
        "g.id = r.game WHERE p.player_id = ? AND g.variant = 'kozel'", [pid]).fetchone()[0]


@pytest.mark.parametrize("query, status, word", [
    ("a=kozel", 400, "a and b"), ("b=kozel", 400, "a and b"),
    ("a=kozel&b=kozel", 400, "same"), ("a=kozel&b=nothing", 404, "nothing"),
    ("a=kozel&b=classic&variant=kozel", 400, "variant"),
    ("a=kozel&b=classic&players=many", 400, "players"),
])
def test_a_bad_comparison_is_refused_and_says_why(stocked: Any, client: Any, query: str,
                                                  status: int, word: str) -> None:
    response = client.get(f"/api/stats/compare?{query}")
    assert response.status_code == status
    assert word in response.get_json()["error"]["message"]


def test_a_player_is_found_by_name_or_id(stocked: Any, client: Any) -> None:
    pid, name = stocked.execute("SELECT player_id, name FROM players LIMIT 1").fetchone()
    found = client.get(f"/api/stats/people?q={name[:3].upper()}").get_json()["data"]
    assert pid in [p["id"] for p in found["players"]]
    games = [p["games"] for p in found["players"]]
    assert games == sorted(games, reverse=True)
    found = client.get(f"/api/stats/people?q={pid}").get_json()["data"]
    assert found["players"][0] == {"id": pid, "name": name, "games": stocked.execute(
        "SELECT count(*) FROM players WHERE player_id = ?", [pid]).fetchone()[0]}
    assert client.get("/api/stats/people?q=%25").get_json()["data"]["players"] == []
    for bad in ("", "q=", "q=" + "x" * 101, "q=a&limit=3"):
        assert client.get(f"/api/stats/people?{bad}").status_code == 400


def test_the_player_is_compared_within_a_variant_and_told_which_way_is_better(
        stocked: Any, client: Any) -> None:
    pid = stocked.execute("SELECT p.player_id FROM players p JOIN games g ON g.id = p.game "
                          "WHERE g.variant = 'kozel' GROUP BY p.player_id "
                          "ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
    data = client.get(f"/api/stats/players/{pid}").get_json()["data"]
    breakdown = data["breakdown"]
    counts = stocked.execute(
        "SELECT g.variant, g.player_count, count(*) FROM players p JOIN games g ON "
        "g.id = p.game WHERE p.player_id = ? GROUP BY 1, 2", [pid]).fetchall()
    assert sorted((r["variant"], r["players"], r["games"]) for r in breakdown) == sorted(counts)
    top = breakdown[0]
    assert data["comparison"] == {"variant": top["variant"], "label": top["label"],
                                  "players": top["players"], "chosen": "most games"}
    # the metrics are the player's within that variant and number of players
    within = client.get(f"/api/stats/players?variant={top['variant']}&players="
                        f"{top['players']}").get_json()["data"]["players"]
    mine = next(p for p in within if p["id"] == pid)
    for key, figure in data["metrics"].items():
        assert figure["value"] == mine["metrics"][key]["value"], key
        values = [p["metrics"][key]["value"] for p in within
                  if p["metrics"][key]["value"] is not None]
        assert data["population"][key]["players"] == len(values)
        if figure["value"] is not None and figure["better"] == "higher":
            assert figure["better_than"] == pytest.approx(figure["percentile"])
        if figure["value"] is not None and figure["better"] == "lower":
            assert figure["better_than"] == pytest.approx(100 - figure["percentile"])
    assert data["metrics"]["bonus_left"]["better"] == "lower"
    better_points = "lower" if top["variant"] == "kozel" else "higher"
    assert data["metrics"]["points_per_round"]["better"] == better_points
    assert data["metrics"]["draw_rate"]["better"] is None
    # a filter chooses the comparison
    chosen = client.get(f"/api/stats/players/{pid}?variant=classic").get_json()["data"]
    assert chosen["comparison"]["variant"] == "classic"
    assert chosen["comparison"]["chosen"] == "filters and most games"


def test_the_score_history_is_in_the_order_played_with_each_variants_target(
        db: Any, client: Any) -> None:
    """Undated logs are stored in one second: their order is the order they were stored,
    after the dated ones of earlier days; each variant's target comes with the history."""
    dated = [make_game(f"d{i}", ruleset="classic", players=2,
                       started_at=f"2026-10-{10 - i:02d}T10:00:00Z") for i in range(3)]
    undated = [make_game(f"u{i}", ruleset=r, players=2) for i, r in
               enumerate(["kozel", {"preset": "spilop", "options": {"target": 500}}, "kozel"])]
    pid = "ingaan"
    for doc in dated + undated:
        doc["players"][0] = {"id": pid, "name": "Inga"}
        doc["players"][1] = {"id": "other", "name": "Other"}
    store(db, copy.deepcopy(dated + undated))
    data = client.get(f"/api/stats/players/{pid}").get_json()["data"]
    history = data["score_history"]
    ids = {gid: pk for pk, gid in db.execute("SELECT id, game_id FROM games")}
    assert [g["game_id"] for g in history] == ["game-d2", "game-d1", "game-d0", "game-u0",
                                               "game-u1", "game-u2"]
    assert [g["sequence"] for g in history] == [1, 2, 3, 4, 5, 6]
    assert [g["dated"] for g in history] == [True] * 3 + [False] * 3
    assert [g["game"] for g in history[3:]] == sorted(ids[f"game-u{i}"] for i in range(3))
    targets = {v["variant"]: (v["games"], v["target"], v["reaching_target"])
               for v in data["history_variants"]}
    assert targets == {"classic": (3, 100, "wins"), "kozel": (2, 101, "loses"),
                       "spilop target=500": (1, 500, "wins")}
    assert data["recent_games"][0]["title"] == "game-u2"


def test_the_counters_of_seats_are_a_row_a_seat_and_a_turn() -> None:
    """Over every player, not per player: a game of four adds at most four seat rows and
    four turn rows to each key, whoever played it."""
    from recorder.analysis import game_facts

    doc = make_game("seats", ruleset="classic", players=4)
    c = stats.contribution({"variant": "classic", "status": "finished", "ruleset": '"classic"'},
                           game_facts(doc))
    assert c is not None
    assert sorted(c.seats) == [(kind, p) for kind in ("seat", "turn") for p in range(4)]
    assert storage.SEAT_KEY[-2:] == ("kind", "position")
