"""Statistics: stored facts, every metric on a hand-made game, aggregates, rebuild, API.

The hand-made game is worked out by hand below; the aggregates are compared with a
from-scratch computation over the ``moves``/``rounds``/``players`` tables; the rebuild
must give the same numbers; the API's filters are checked.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from recorder import stats, storage
from recorder.ingest import Importer, import_upload
from recorder.parse import iter_documents
from tests.conftest import break_game, make_game

ROOT = Path(__file__).resolve().parents[1]
DEAL = {"hands": [["6-6", "6-1", "6-2"], ["6-3", "2-4", "4-5"]]}


def _deal() -> dict[str, Any]:
    taken = DEAL["hands"][0] + DEAL["hands"][1]
    norm = {"-".join(sorted(t.split("-"))) for t in taken}
    rest = [f"{a}-{b}" for a in range(7) for b in range(a, 7) if f"{a}-{b}" not in norm]
    return {"hands": DEAL["hands"], "boneyard": rest}


def hand_made(game_id: str = "hand-1", started_at: str = "2026-03-10T12:00:00Z"
              ) -> dict[str, Any]:
    """Classic with bonus, three tiles each, no drawing, target 30; two rounds, one deal.

    P0 ("ana") holds 6-6 6-1 6-2, P1 ("bo") 6-3 2-4 4-5. The open-end sum scores when it
    is a multiple of 5; the uncovered opening double counts both halves.

    Round 1: P0 opens 6-6 (sum 12, forced). P1 plays 6-3 left (3 + 6 + 6 = 15: a bonus of
    15; 6-3 fits both 6s, so two legal moves, both scoring 15). P0 may play 6-1 (3|1 = 4)
    or 6-2 (3|2 = 5, a bonus of 5) and plays 6-1: a missed bonus of 5. Nothing fits 3|1:
    blocked. Pips left: P0 8 (6-2), P1 15 (2-4, 4-5): P0 wins the 15, margin 7, P0 ended it.
    The block was certain only after move 3 (6-2 led to a domino): 0 moves before the end.

    Round 2: the same deal; P0 plays 6-2 (bonus 5), P1 2-4 (3|4, forced), P0 passes,
    P1 4-5 goes out (3|5 = 8): P1 wins P0's 7 pips.

    Scores: P0 15 + 5 = 20; P1 15 + 15 + 7 = 37 >= 30: the game is over, "bo" wins.
    """
    r1 = [
        {"player": 0, "action": "play", "tile": "6-6", "ms": 1000},
        {"player": 1, "action": "play", "tile": "6-3", "end": "left"},
        {"player": 0, "action": "play", "tile": "6-1", "ms": 2000},
    ]
    r2 = [
        {"player": 0, "action": "play", "tile": "6-6", "ms": 3000},
        {"player": 1, "action": "play", "tile": "6-3", "end": "left"},
        {"player": 0, "action": "play", "tile": "6-2", "ms": 4000},
        {"player": 1, "action": "play", "tile": "2-4"},
        {"player": 0, "action": "pass", "ms": 5000},
        {"player": 1, "action": "play", "tile": "4-5"},
    ]
    return {
        "format": "domino-log/1",
        "game_id": game_id,
        "frontend": {"name": "hand", "version": "1"},
        "ruleset": {"preset": "classic",
                    "options": {"bonus": True, "hand_size": 3, "draw": "none", "target": 30}},
        "players": [{"id": "ana", "name": "Ana"}, {"id": "bo", "name": "<b>Bo</b>"}],
        "started_at": started_at,
        "rounds": [{"deal": _deal(), "moves": r1}, {"deal": _deal(), "moves": r2}],
    }


def store(db: Any, docs: list[dict[str, Any]], **kw: Any) -> list[Any]:
    data = "\n".join(json.dumps(d) for d in docs).encode()
    importer = Importer(db, **kw)
    return list(importer.run((None, d) for d in iter_documents(data)))


def counters(db: Any, **flt: Any) -> dict[str, dict[str, float]]:
    reader = stats.Reader(db, stats.StatsFilter(**flt))
    cols = (*storage.METRIC_COUNTERS, *storage.GAME_COUNTERS)
    return {pid: dict(zip(cols, v, strict=True))
            for (pid,), v in reader.sums("stats_players", cols, ("player",)).items()}


def value(key: str, c: dict[str, float]) -> Any:
    """A metric's value with no minimum sample (the hand-made game is small)."""
    return stats.metric_value(dataclasses.replace(stats.METRIC_BY_KEY[key], min_sample=1), c)


# ---------------------------------------------------------------------------------------
# Stored facts.


def test_the_end_a_tile_went_on_is_stored_for_every_play(db: Any) -> None:
    store(db, [hand_made()])
    rows = db.execute("SELECT round, move, action, side FROM moves ORDER BY round, move"
                      ).fetchall()
    # the opening takes no end; 6-3 was logged with "left"; the rest were logged without
    # an end and fit only the right one
    assert rows == [
        (1, 1, "play", None), (1, 2, "play", "left"), (1, 3, "play", "right"),
        (2, 1, "play", None), (2, 2, "play", "left"), (2, 3, "play", "right"),
        (2, 4, "play", "right"), (2, 5, "pass", None), (2, 6, "play", "right"),
    ]


def test_simulated_plays_all_have_their_end(db: Any) -> None:
    store(db, [make_game(i) for i in range(6)])
    missing = db.execute(
        "SELECT count(*) FROM moves m JOIN rounds r ON r.game = m.game AND r.round = m.round "
        "WHERE m.action = 'play' AND m.side IS NULL AND m.tile != r.opening_tile").fetchone()
    assert missing[0] == 0


def test_per_move_and_per_round_facts(db: Any) -> None:
    store(db, [hand_made()])
    moves = db.execute(
        "SELECT round, move, pips, best_pips, least_pips, double, double_choice, next_stuck, "
        "score, best_score FROM moves ORDER BY round, move").fetchall()
    assert moves[2] == (1, 3, 7, 8, 7, 0, 0, None, 0, 5)  # 6-1 played, 6-2 heavier; ended it
    assert moves[1] == (1, 2, 9, 9, 9, 0, 0, 0, 15, 15)  # 6-3: P0 can still play a 6
    assert moves[5] == (2, 3, 8, 8, 7, 0, 0, 0, 5, 5)  # 6-2: P1's 2-4 fits
    assert moves[7][2:8] == (None, None, None, None, None, None)  # a pass
    rounds = db.execute("SELECT round, blocked, block_certain FROM rounds ORDER BY round"
                        ).fetchall()
    assert rounds == [(1, 1, 3), (2, 0, None)]
    players = db.execute("SELECT player_id, bonus_points, bonus_plays FROM players "
                         "ORDER BY seat").fetchall()
    assert players == [("ana", 5, 1), ("bo", 30, 2)]


def test_a_round_ended_on_the_target_is_no_domino(db: Any) -> None:
    """All-fives checks the target after every play: the player whose play reaches it ends
    the game holding tiles. That is a round ended on the target, not a domino."""
    docs = [make_game(f"five-{i}", ruleset="all-fives", players=2) for i in range(6)]
    store(db, docs)
    rounds = db.execute("SELECT game, round, ending, blocked, ended_by, pips_left FROM rounds"
                        ).fetchall()
    targets = [r for r in rounds if r[2] == "target"]
    assert targets, "the corpus has games decided on the target"
    for _game, _rnd, ending, blocked, ended_by, pips in rounds:
        assert (ending == "blocked") == bool(blocked)
        if ending == "domino":  # a domino leaves its player's hand empty
            assert json.loads(pips)[ended_by] == 0
    # the last round of a game decided on the target is that game's last
    for game, rnd, *_ in targets:
        last = db.execute("SELECT max(round) FROM rounds WHERE game = ?", [game]).fetchone()[0]
        assert rnd == last
    # the players' dominoes and the domino rate count only rounds ended by a last tile
    for game, _rnd, _, _, ended_by, _ in targets:
        seat_dominoes = db.execute(
            "SELECT count(*) FROM rounds WHERE game = ? AND ending = 'domino' AND ended_by = ?",
            [game, ended_by]).fetchone()[0]
        assert db.execute("SELECT dominoes FROM players WHERE game = ? AND seat = ?",
                          [game, ended_by]).fetchone()[0] == seat_dominoes
    c = counters(db)
    assert sum(v["dominoes"] for v in c.values()) == db.execute(
        "SELECT count(*) FROM rounds WHERE ending = 'domino'").fetchone()[0]
    assert sum(v["target_rounds"] for v in c.values()) == 2 * len(targets)


def test_the_migration_tells_the_endings_of_stored_rounds_and_asks_for_a_rebuild(
        db: Any, db_path: Path, cli: Any, client: Any) -> None:
    docs = [make_game(f"five-{i}", ruleset="all-fives", players=2) for i in range(4)]
    store(db, docs + [make_game(i) for i in range(4)])
    endings = db.execute("SELECT game, round, ending FROM rounds ORDER BY game, round"
                         ).fetchall()
    assert client.get("/api/stats").get_json()["data"]["counters"] == {
        "version": storage.COUNTERS_VERSION, "current": storage.COUNTERS_VERSION,
        "rebuild_needed": False}
    # as a database stored before the endings: no column to read, no version recorded
    db.execute("UPDATE rounds SET ending = NULL")
    db.execute("DROP TABLE stats_meta")
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm009_round_endings'")
    db.conn.commit()
    again = storage.connect(db_path)  # the migration runs
    assert again.execute("SELECT game, round, ending FROM rounds ORDER BY game, round"
                         ).fetchall() == endings
    assert storage.counters_version(again) == "1"
    counters_note = client.get("/api/stats").get_json()["data"]["counters"]
    assert counters_note["rebuild_needed"] is True and counters_note["version"] == "1"
    again.close()
    result = cli("stats", "rebuild", "--from-facts")
    assert result.exit_code == 0, result.output
    assert client.get("/api/stats").get_json()["data"]["counters"]["rebuild_needed"] is False


def test_partners_bonus_comes_from_their_own_plays(db: Any) -> None:
    doc = make_game("partners", ruleset={"preset": "spilop",
                                         "options": {"bonus": True, "partnerships": True}},
                    players=4)
    store(db, [doc])
    rows = db.execute("SELECT seat, bonus_total, bonus_points FROM players ORDER BY seat"
                      ).fetchall()
    own = db.execute("SELECT player, sum(score) FROM moves GROUP BY player ORDER BY player"
                     ).fetchall()
    assert [r[2] for r in rows] == [s for _, s in own]
    # the team figure is each partner's own plus the other's
    assert rows[0][1] == rows[2][1] == rows[0][2] + rows[2][2]
    assert rows[1][1] == rows[3][1] == rows[1][2] + rows[3][2]


# ---------------------------------------------------------------------------------------
# Every metric on the hand-made game.


def test_every_metric_on_the_hand_made_game(db: Any) -> None:
    store(db, [hand_made()])
    c = counters(db)
    ana, bo = c["ana"], c["bo"]
    # Win rate: one finished game, won by bo.
    assert value("win_rate", ana)["value"] == 0 and value("win_rate", bo)["value"] == 1
    # Points per round: ana 15 (won the block) and 0 + 5 bonus -> 10; bo 0 + 15 and
    # 7 + 15 -> 18.5.
    assert value("points_per_round", ana)["value"] == 10
    assert value("points_per_round", bo)["value"] == 18.5
    # Domino rate: bo went out in one of two rounds; ana never.
    assert value("domino_rate", bo)["value"] == 0.5 and value("domino_rate", ana)["value"] == 0
    # Draw and pass rates: ana made 5 moves, one a pass; no draws (drawing is off).
    assert value("pass_rate", ana)["value"] == 1 / 5 and value("draw_rate", ana)["value"] == 0
    assert value("pass_rate", bo)["n"] == 4 and value("pass_rate", bo)["value"] == 0
    # Heavy first: ana chose between 6-1 (7) and 6-2 (8) twice, heavy once. bo never had
    # tiles of different weights to choose from (6-3 on either 6 is one tile).
    assert (value("heavy_first", ana)["n"], value("heavy_first", ana)["value"]) == (2, 0.5)
    assert value("heavy_first", bo)["n"] == 0 and value("heavy_first", bo)["value"] is None
    # Double first: nobody ever chose between a double and a non-double.
    assert value("double_first", ana)["n"] == 0 == value("double_first", bo)["n"]
    # Bonus capture: ana had two chances (6-2 scored 5 each time), took one; bo two (15),
    # took both. Bonus left: ana 5 and 0 -> 2.5 a chance; bo 0.
    assert (value("bonus_capture", ana)["n"], value("bonus_capture", ana)["value"]) == (2, 0.5)
    assert value("bonus_capture", bo)["value"] == 1
    assert value("bonus_left", ana)["value"] == 2.5 and value("bonus_left", bo)["value"] == 0
    # Blocking: plays with a choice that did not end the round. ana: 6-2 in round 2 (bo's
    # 2-4 fits): 0 of 1. bo: 6-3 twice (two ends), ana could follow both times: 0 of 2.
    assert (value("blocking", ana)["n"], value("blocking", ana)["value"]) == (1, 0)
    assert (value("blocking", bo)["n"], value("blocking", bo)["value"]) == (2, 0)
    # Pips left when losing: ana lost round 2 holding 6-1 (7); bo lost round 1 with 15.
    assert value("pips_left_losing", ana)["value"] == 7
    assert value("pips_left_losing", bo)["value"] == 15
    # Thinking time: ana's five moves carry 1000..5000 ms; bo's none.
    assert value("thinking_time", ana)["value"] == 3000
    assert value("thinking_time", bo)["n"] == 0 and value("thinking_time", bo)["value"] is None


def test_intervals() -> None:
    low, high = stats.wilson(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert stats.wilson(0, 10)[0] == 0 and stats.wilson(10, 10)[1] == pytest.approx(1)
    # values 1, 2, 3: mean 2, sd 1, half-width 1.96 / sqrt(3)
    low, high = stats.mean_interval(6, 14, 3)
    assert low == pytest.approx(2 - 1.959964 / 3 ** 0.5, abs=1e-6)
    assert high == pytest.approx(2 + 1.959964 / 3 ** 0.5, abs=1e-6)


def test_a_metric_below_its_minimum_sample_has_no_value(db: Any, client: Any) -> None:
    store(db, [hand_made()])
    data = client.get("/api/stats/players").get_json()["data"]
    ana = next(p for p in data["players"] if p["id"] == "ana")
    assert ana["metrics"]["heavy_first"] == {"value": None, "n": 2, "low": None, "high": None}
    assert [m["key"] for m in data["metrics"]] == [m.key for m in stats.METRICS]


def test_bonus_and_blocked_figures_of_the_hand_made_game(db: Any, client: Any) -> None:
    store(db, [hand_made()])
    game = db.execute("SELECT id FROM games").fetchone()[0]
    bonus = client.get("/api/stats/bonus").get_json()["data"]
    # plays: ana 4, bo 4; bonus plays: ana 1 (5), bo 2 (15 each)
    assert (bonus["plays"], bonus["bonus_plays"], bonus["share"]) == (8, 3, 3 / 8)
    assert bonus["values"] == [{"value": 5, "count": 1}, {"value": 15, "count": 2}]
    by_move = {m["move"]: (m["plays"], m["bonus_plays"]) for m in bonus["by_move"]}
    assert by_move == {1: (2, 0), 2: (2, 2), 3: (2, 1), 4: (1, 0), 6: (1, 0)}
    assert bonus["top_scorers"][0] == {"player": "bo", "name": "<b>Bo</b>", "bonus_points": 30,
                                       "bonus_plays": 2, "plays": 4}
    assert bonus["missed"]["count"] == 1 and bonus["missed"]["points"] == 5
    assert bonus["missed"]["examples"] == [{
        "game": game, "game_id": "hand-1", "round": 1, "move": 3, "player": "ana",
        "name": "Ana", "scored": 0, "best": 5, "url": f"/games/{game}#r1m3"}]
    # the rate of the misses: 1 of the 4 plays that had a bonus chance
    assert (bonus["missed"]["chances"], bonus["missed"]["share"]) == (4, 0.25)
    blocked = client.get("/api/stats/blocked").get_json()["data"]
    assert (blocked["rounds"], blocked["blocked"], blocked["share"]) == (2, 1, 0.5)
    low, high = stats.wilson(1, 2)
    assert (blocked["low"], blocked["high"]) == (low, high)
    variant = "classic bonus=true draw=none hand_size=3 target=30"
    assert blocked["by_rules"] == [{
        "variant": variant, "label": stats.variant_label(variant), "preset": "classic",
        "players": 2, "draw": "none", "rounds": 2, "blocked": 1, "share": 0.5, "low": low,
        "high": high, "thin": True,
        "games_url": "/games?" + urlencode({"variant": variant, "players": 2,
                                            "blocked": "true"})}]
    assert blocked["over_time"] == [{
        "period": "2026-03", "rounds": 2, "blocked": 1, "share": 0.5, "low": low,
        "high": high,
        "games_url": "/games?since=2026-03-01&until=2026-03-31&blocked=true"}]
    assert blocked["margins"] == [{"margin": 7, "count": 1}]
    assert [(e["player"], e["name"], e["count"]) for e in blocked["enders"]] == [
        ("ana", "Ana", 1)]
    assert blocked["certain_before_end"] == [{"moves": 0, "count": 1}]


def partners_blocked() -> dict[str, Any]:
    """Partnerships (dominoes-partners, two tiles each): one round, blocked at move 2.

    Seats 0 and 2 ("ana", "cy") play against 1 and 3 ("bo", "di"). ana opens 6-6, bo
    plays 6-5 on the right: the ends show 6 and 5, which nobody holds, and nobody may
    draw: blocked. Pips left: ana 1 (0-1), bo 5 (2-3), cy 2 (0-0, 0-2), di 6 (1-2, 0-3).
    The team ana + cy holds 3, the team bo + di 11: ana's team wins the round by 8 pips
    (by 4 if each team counted only its first player's hand).
    """
    hands = [["6-6", "0-1"], ["6-5", "2-3"], ["0-0", "0-2"], ["1-2", "0-3"]]
    taken = {t for hand in hands for t in hand}
    rest = [f"{a}-{b}" for a in range(7) for b in range(a, 7)
            if f"{a}-{b}" not in taken and f"{b}-{a}" not in taken]
    return {
        "format": "domino-log/1",
        "game_id": "partners-blocked",
        "frontend": {"name": "hand", "version": "1"},
        "ruleset": {"preset": "dominoes-partners", "options": {"hand_size": 2}},
        "players": [{"id": pid} for pid in ("ana", "bo", "cy", "di")],
        "started_at": "2026-03-11T12:00:00Z",
        "rounds": [{"deal": {"hands": hands, "boneyard": rest}, "moves": [
            {"player": 0, "action": "play", "tile": "6-6"},
            {"player": 1, "action": "play", "tile": "6-5", "end": "right"},
        ]}],
    }


def test_a_blocked_round_of_partners_is_won_by_the_teams_pips(db: Any, client: Any) -> None:
    assert [o.status for o in store(db, [partners_blocked()])] == ["accepted"]
    assert db.execute("SELECT blocked, pips_left, winners FROM rounds").fetchall() == [
        (1, "[1,5,2,6]", "[0,2]")]
    blocked = client.get("/api/stats/blocked").get_json()["data"]
    assert (blocked["rounds"], blocked["blocked"]) == (1, 1)
    assert blocked["margins"] == [{"margin": 8, "count": 1}]
    assert blocked["enders"] == [{"player": "bo", "name": None, "count": 1,
                                  "games_url": "/games?player=bo&blocked=true"}]
    # each player's own page of the figure counts the same team margin
    for pid in ("ana", "bo", "cy", "di"):
        mine = client.get(f"/api/stats/blocked?player={pid}").get_json()["data"]
        assert mine["margins"] == [{"margin": 8, "count": 1}], pid


def test_a_game_sent_twice_in_one_batch_counts_once(db: Any) -> None:
    """Both copies pass the cheap "already stored?" read before either is stored; the
    second is found a duplicate under the write lock, and adds nothing to the counters."""
    outcomes = store(db, [hand_made(), hand_made(), make_game(4), make_game(4)])
    assert [o.status for o in outcomes] == ["accepted", "duplicate", "accepted", "duplicate"]
    assert (outcomes[1].id, outcomes[3].id) == (outcomes[0].id, outcomes[2].id)
    assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 2
    assert_matches_scratch(db)
    assert counters(db)["ana"]["games"] == 1 and counters(db)["ana"]["rounds"] == 2
    assert db.execute("SELECT sum(games), sum(rounds) FROM stats_rounds WHERE grain = 'all'"
                      ).fetchone() == (2, db.execute("SELECT count(*) FROM rounds").fetchone()[0])


def test_an_upload_holding_a_game_twice_counts_it_once(db_path: Path,
                                                       start_server: Any) -> None:
    """The same over HTTP, on the production server: one body, the same game twice."""
    from recorder.tokens import create_token

    db = storage.connect(db_path)
    _, secret = create_token(db, "frontend")
    db.close()
    url = start_server(db_path)
    body = (json.dumps(hand_made()) + "\n") * 2
    request = urllib.request.Request(url + "/api/games", data=body.encode(), method="POST",
                                     headers={"Authorization": f"Bearer {secret}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        report = json.load(response)["data"]
    assert report["summary"] == {"accepted": 1, "duplicate": 1, "refused": 0}
    with urllib.request.urlopen(url + "/api/stats/players", timeout=60) as response:
        players = {p["id"]: p for p in json.load(response)["data"]["players"]}
    assert {pid: (p["games"], p["rounds"]) for pid, p in players.items()} == {
        "ana": (1, 2), "bo": (1, 2)}
    with urllib.request.urlopen(url + "/api/stats/blocked", timeout=60) as response:
        blocked = json.load(response)["data"]
    assert (blocked["rounds"], blocked["blocked"], blocked["margins"]) == (
        2, 1, [{"margin": 7, "count": 1}])


# ---------------------------------------------------------------------------------------
# Aggregates against a computation from scratch.


def scratch(db: Any) -> dict[str, dict[str, float]]:
    """Per-player figures straight from the facts tables, written independently."""
    out: dict[str, dict[str, float]] = {}

    def add(pid: str, key: str, v: float) -> None:
        out.setdefault(pid, {}).setdefault(key, 0)
        out[pid][key] += v

    for pid, action, score, best, pips, hi, lo, dbl, choice, stuck, legal, ms in db.execute(
            "SELECT p.player_id, m.action, m.score, m.best_score, m.pips, m.best_pips, "
            "m.least_pips, m.double, m.double_choice, m.next_stuck, m.legal_count, m.ms "
            "FROM moves m JOIN players p ON p.game = m.game AND p.seat = m.player"):
        add(pid, "moves", 1)
        add(pid, {"play": "plays", "draw": "draws", "pass": "passes"}[action], 1)
        if ms is not None:
            add(pid, "ms_sum", ms)
        if action != "play":
            continue
        if hi != lo:
            add(pid, "heavy_k", pips == hi)
        if choice:
            add(pid, "double_k", dbl)
        if best > 0:
            add(pid, "chance_n", 1)
            add(pid, "left_sum", best - score)
        if score > 0:
            add(pid, "bonus_points", score)
        if stuck is not None and legal > 1:
            add(pid, "block_k", stuck)
    for pid, won, status in db.execute(
            "SELECT p.player_id, p.won, g.status FROM players p JOIN games g ON g.id = p.game"):
        add(pid, "games", 1)
        add(pid, "wins", won if status == "finished" else 0)
    for game, winners, pips, ending, ended_by, moves in db.execute(
            "SELECT game, winners, pips_left, ending, ended_by, moves_count FROM rounds"):
        seats = db.execute("SELECT seat, player_id FROM players WHERE game = ?", [game])
        for seat, pid in seats.fetchall():
            add(pid, "rounds", 1)
            add(pid, "dominoes", ending == "domino" and ended_by == seat)
            add(pid, "target_rounds", ending == "target")
            add(pid, "round_moves_sum", moves)
            if seat not in json.loads(winners):
                add(pid, "losing_sum", json.loads(pips)[seat])
    for pid, rounds, moves in db.execute(
            "SELECT p.player_id, g.rounds_count, g.moves_count FROM players p "
            "JOIN games g ON g.id = p.game WHERE g.status = 'finished'"):
        add(pid, "game_rounds_sum", rounds)
        add(pid, "game_moves_sum", moves)
    return out


def assert_rounds_and_seats_match_scratch(db: Any) -> None:
    """``stats_rounds`` and ``stats_seats`` against the facts tables, variant by variant."""
    want: dict[str, dict[str, float]] = {}
    for variant, ending, moves in db.execute(
            "SELECT g.variant, r.ending, r.moves_count FROM rounds r "
            "JOIN games g ON g.id = r.game"):
        row = want.setdefault(variant, {})
        for key, value in (("rounds", 1), ("blocked", ending == "blocked"),
                           ("domino_rounds", ending == "domino"),
                           ("target_rounds", ending == "target"), ("moves_sum", moves),
                           ("moves_sq", moves * moves)):
            row[key] = row.get(key, 0) + value
    for variant, status, rounds, moves in db.execute(
            "SELECT variant, status, rounds_count, moves_count FROM games"):
        row = want.setdefault(variant, {})
        done = status == "finished"
        for key, value in (("games", 1), ("finished", done), ("game_rounds_sum", rounds * done),
                           ("game_moves_sum", moves * done)):
            row[key] = row.get(key, 0) + value
    cols = ("rounds", "blocked", "domino_rounds", "target_rounds", "moves_sum", "moves_sq",
            "games", "finished", "game_rounds_sum", "game_moves_sum")
    got = {v: dict(zip(cols, vals, strict=True)) for (v,), vals in stats.Reader(
        db, stats.StatsFilter()).sums("stats_rounds", cols, ("variant",)).items()}
    assert set(got) == set(want)
    for variant, row in want.items():
        assert got[variant] == pytest.approx(row), variant
    assert sum(r["target_rounds"] for r in want.values()) > 0  # the corpus has such rounds
    # seats: game wins by seat, and round wins by turn from each round's opener
    seat_want: dict[tuple[Any, ...], list[float]] = {}
    for variant, n, seat, won, status in db.execute(
            "SELECT g.variant, g.player_count, p.seat, p.won, g.status FROM players p "
            "JOIN games g ON g.id = p.game"):
        if status == "finished":
            row = seat_want.setdefault((variant, n, "seat", seat), [0, 0, 0, 0])
            row[0] += 1
            row[1] += won
    for variant, n, opener, winners in db.execute(
            "SELECT g.variant, g.player_count, r.opener, r.winners FROM rounds r "
            "JOIN games g ON g.id = r.game"):
        for seat in range(n):
            row = seat_want.setdefault((variant, n, "turn", (seat - opener) % n), [0, 0, 0, 0])
            row[2] += 1
            row[3] += seat in json.loads(winners)
    for variant, n, seat, won, opener in db.execute(
            "SELECT g.variant, g.player_count, p.seat, p.won, r.opener FROM players p "
            "JOIN games g ON g.id = p.game JOIN rounds r ON r.game = g.id AND r.round = 1 "
            "WHERE g.status = 'finished'"):
        row = seat_want.setdefault((variant, n, "first", (seat - opener) % n), [0, 0, 0, 0])
        row[0] += 1
        row[1] += won
    got_seats = stats.Reader(db, stats.StatsFilter()).sums(
        "stats_seats", ("finished", "wins", "rounds", "rounds_won"),
        ("variant", "players", "kind", "position"))
    for key, (finished, wins, rounds, rounds_won) in seat_want.items():
        if key[2] == "first":  # the game's result by turn from round 1's opener
            assert got_seats[(*key[:2], "turn", key[3])][:2] == [finished, wins], key
            continue
        got_finished, got_wins, got_rounds, got_rounds_won = got_seats[key]
        if key[2] == "seat":  # game results by seat
            assert (got_finished, got_wins) == (finished, wins), key
        else:  # round results by turn from each round's opener
            assert (got_rounds, got_rounds_won) == (rounds, rounds_won), key


def assert_matches_scratch(db: Any) -> None:
    agg = counters(db)
    ref = scratch(db)
    assert set(agg) == set(ref)
    for pid, figures in ref.items():
        for key, v in figures.items():
            assert agg[pid][key] == pytest.approx(v), (pid, key)


def test_aggregates_equal_a_computation_from_scratch(db: Any) -> None:
    docs = [make_game(i, started_at=f"2026-0{1 + i % 3}-1{i % 10}T10:00:00Z")
            for i in range(12)]
    # all-fives ends rounds on the target too; partnerships score by side
    docs += [make_game(f"five-{i}", ruleset="all-fives", players=2,
                       started_at=f"2026-02-2{i}T10:00:00Z") for i in range(3)]
    docs.append(make_game("teams", ruleset={"preset": "classic",
                                            "options": {"partnerships": True}}, players=4))
    outcomes = store(db, docs)
    assert {o.status for o in outcomes} == {"accepted"}
    # duplicates, a conflicting game_id and an invalid game change nothing
    conflict = copy.deepcopy(docs[0])
    conflict["players"][0]["name"] = "someone else"
    again = store(db, [docs[1], docs[2], conflict, break_game(docs[3])])
    assert [o.status for o in again] == ["duplicate", "duplicate", "refused", "refused"]
    assert_matches_scratch(db)
    total = db.execute("SELECT sum(rounds), sum(blocked), sum(games) FROM stats_rounds "
                       "WHERE grain = 'all'").fetchone()
    assert total == (
        db.execute("SELECT count(*) FROM rounds").fetchone()[0],
        db.execute("SELECT count(*) FROM rounds WHERE blocked").fetchone()[0],
        16,
    )
    assert_rounds_and_seats_match_scratch(db)
    # the three grains hold the same totals
    for grain in ("month", "day"):
        assert db.execute("SELECT sum(rounds), sum(blocked) FROM stats_rounds WHERE grain = ?",
                          [grain]).fetchone() == total[:2]


def test_a_date_range_sums_whole_months_and_edge_days(db: Any) -> None:
    days = ["2026-01-05", "2026-01-31", "2026-02-01", "2026-02-14", "2026-03-01", "2026-03-20"]
    store(db, [make_game(i, started_at=f"{d}T08:00:00Z") for i, d in enumerate(days)])
    for since, until in [("2026-01-31", "2026-03-01"), ("2026-01-06", None),
                         (None, "2026-02-14"), ("2026-02-01", "2026-02-28"),
                         ("2026-03-02", "2026-03-19")]:
        got = stats.Reader(db, stats.StatsFilter(since=since, until=until)).total(
            "stats_rounds", ("rounds",))[0]
        where = " AND ".join(
            ([f"substr(started_at, 1, 10) >= '{since}'"] if since else [])
            + ([f"substr(started_at, 1, 10) <= '{until}'"] if until else []))
        want = db.execute(f"SELECT coalesce(sum(rounds_count), 0) FROM games WHERE {where}"
                          ).fetchone()[0]
        assert got == want, (since, until)


def test_the_rebuild_gives_the_same_numbers(db: Any, db_path: Path, cli: Any) -> None:
    store(db, [make_game(i) for i in range(8)] + [hand_made(),
               make_game("five", ruleset="all-fives", players=2)])
    tables = ("stats_players", "stats_rounds", "stats_hist", "stats_seats")

    def snapshot() -> dict[str, list[tuple[Any, ...]]]:
        return {t: sorted(db.execute(f"SELECT * FROM {t}").fetchall()) for t in tables}

    before = snapshot()
    missed = db.execute("SELECT game, round, move, scored, best FROM stats_missed "
                        "ORDER BY game, round, move").fetchall()
    # as a database from before the facts: facts gone, aggregates gone
    endings = db.execute("SELECT game, round, ending FROM rounds ORDER BY game, round"
                         ).fetchall()
    db.execute("UPDATE moves SET side = NULL, pips = NULL, next_stuck = NULL")
    db.execute("UPDATE rounds SET ending = NULL")
    db.execute("DELETE FROM stats_players")
    db.conn.commit()
    result = cli("stats", "rebuild")
    assert result.exit_code == 0, result.output
    assert "10 games" in result.output
    assert snapshot() == before
    assert db.execute("SELECT game, round, move, scored, best FROM stats_missed "
                      "ORDER BY game, round, move").fetchall() == missed
    assert db.execute("SELECT count(*) FROM moves WHERE action = 'play' AND pips IS NULL"
                      ).fetchone()[0] == 0
    assert db.execute("SELECT game, round, ending FROM rounds ORDER BY game, round"
                      ).fetchall() == endings
    assert {e for _, _, e in endings} == {"domino", "blocked", "target"}
    assert_matches_scratch(db)
    # from the stored facts alone (no replay): the same again
    db.execute("DELETE FROM stats_hist")
    db.conn.commit()
    result = cli("stats", "rebuild", "--from-facts")
    assert result.exit_code == 0, result.output
    assert snapshot() == before


def test_an_upload_keeps_the_aggregates_too(db: Any) -> None:
    data = json.dumps(hand_made()).encode()
    import_upload(db, data)
    assert counters(db)["bo"]["bonus_points"] == 30


def test_the_import_without_aggregates_writes_none(db: Any) -> None:
    store(db, [hand_made()], aggregates=False)
    assert db.execute("SELECT count(*) FROM stats_players").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM moves").fetchone()[0] == 9


# ---------------------------------------------------------------------------------------
# The API's filters.


@pytest.fixture
def stocked(db: Any) -> Any:
    docs = [make_game(i, started_at=f"2026-0{1 + i % 4}-0{1 + i % 9}T10:00:00Z")
            for i in range(10)]
    docs.append(hand_made())
    store(db, docs)
    return db


URLS = ("/api/stats/bonus", "/api/stats/blocked", "/api/stats/players",
        "/api/stats/players/ana")


@pytest.mark.parametrize("url", URLS)
@pytest.mark.parametrize("query, name", [
    ("players=two", "players"), ("players=0", "players"), ("since=yesterday", "since"),
    ("until=2026-13-01", "until"), ("colour=red", "colour"), ("preset=", "preset"),
    ("since=2026-03-01&until=2026-02-01", "since"),
])
def test_a_bad_filter_is_a_400_that_names_it(stocked: Any, client: Any, url: str,
                                             query: str, name: str) -> None:
    response = client.get(f"{url}?{query}")
    assert response.status_code == 400
    body = response.get_json()
    assert body["ok"] is False and name in body["error"]["message"]


def test_filters_narrow_every_figure(stocked: Any, client: Any) -> None:
    every = client.get("/api/stats/blocked").get_json()["data"]
    classic = client.get("/api/stats/blocked?preset=classic").get_json()["data"]
    want = stocked.execute("SELECT sum(rounds_count) FROM games WHERE preset = 'classic'"
                           ).fetchone()[0]
    assert classic["rounds"] == want < every["rounds"]
    assert {r["preset"] for r in classic["by_rules"]} == {"classic"}
    # the only bonus game has two players: three players leave no variant with a bonus
    three = client.get("/api/stats/bonus?players=3").get_json()["data"]
    assert three["by_players"] == [] and three["plays"] == 0 and three["all_plays"] > 0
    assert "no bonus rule" in three["scope"]["reason"]
    assert [v["variant"] for v in three["scope"]["elsewhere"]] == [
        "classic bonus=true draw=none hand_size=3 target=30"]
    two = client.get("/api/stats/bonus?players=2").get_json()["data"]
    assert [b["players"] for b in two["by_players"]] == [2]
    variant = "classic bonus=true draw=none hand_size=3 target=30"
    one = client.get("/api/stats/bonus", query_string={"variant": variant}).get_json()["data"]
    assert one["plays"] == 8
    march = client.get("/api/stats/blocked?since=2026-03-01&until=2026-03-31").get_json()
    assert [p["period"] for p in march["data"]["over_time"]] == ["2026-03"]
    ana = client.get("/api/stats/blocked?player=ana").get_json()["data"]
    assert ana["rounds"] == 2 and ana["enders"] == [{
        "player": "ana", "name": "Ana", "count": 1,
        "games_url": "/games?player=ana&blocked=true"}]
    bo = client.get("/api/stats/bonus?player=bo").get_json()["data"]
    assert (bo["plays"], bo["bonus_plays"], bo["values"]) == (4, 2, [{"value": 15,
                                                                      "count": 2}])
    assert [s["player"] for s in bo["top_scorers"]] == ["bo"]
    assert {k: bo["missed"][k] for k in ("count", "points", "examples", "chances", "share")
            } == {"count": 0, "points": 0, "examples": [], "chances": 2, "share": 0}
    nobody = client.get("/api/stats/bonus?frontend=nothing").get_json()["data"]
    assert nobody["plays"] == 0 and nobody["share"] is None


def test_the_index_lists_urls_and_filter_values(stocked: Any, client: Any) -> None:
    data = client.get("/api/stats").get_json()["data"]
    assert [e["url"] for e in data["endpoints"]] == [
        "/api/stats/bonus", "/api/stats/blocked", "/api/stats/variants",
        "/api/stats/compare", "/api/stats/players", "/api/stats/players/<id>",
        "/api/stats/people"]
    filters = data["filters"]
    assert "classic" in filters["preset"]
    assert {"key": "classic bonus=true draw=none hand_size=3 target=30",
            "label": "classic (bonus: true, draw: none, hand_size: 3, target: 30)"
            } in filters["variant"]
    assert filters["frontend"] == ["hand", "test-frontend"]
    assert filters["players"] == sorted(set(filters["players"])) and 2 in filters["players"]


def test_the_player_page_data(stocked: Any, client: Any) -> None:
    data = client.get("/api/stats/players/ana").get_json()["data"]
    assert data["player"]["name"] == "Ana"
    assert data["recent_games"][0]["url"].startswith("/games/")
    assert data["recent_games"][0]["title"] == "hand-1"
    # the history is the recent games in the order they were played, numbered
    assert [(g["game"], g["score"], g["won"], g["url"]) for g in data["score_history"]] == [
        (g["game"], g["score"], g["won"], g["url"]) for g in reversed(data["recent_games"])]
    assert [g["sequence"] for g in data["score_history"]] == [1]
    assert set(data["metrics"]) == {m.key for m in stats.METRICS}
    assert data["games_url"] == "/games?player=ana"
    assert client.get("/api/stats/players/nobody").status_code == 404


def test_percentiles_against_the_population() -> None:
    assert stats.percentile_rank(3, [1, 2, 3, 4]) == 62.5
    assert stats.quantile([1, 2, 3, 4, 5], 0.5) == 3
    assert stats.quantile([0, 10], 0.9) == 9


# ---------------------------------------------------------------------------------------
# Docs.


def test_every_metric_is_defined_in_the_docs_in_the_same_words() -> None:
    text = (ROOT / "docs" / "stats.md").read_text().split("## Metrics of a player")[1]
    text = text.split("\n## ")[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| [^|]+ \| ([^|]+?) \|", text, re.M))
    assert rows == {m.key: m.definition for m in stats.METRICS}


def test_every_figure_is_defined_in_the_docs_in_the_same_words() -> None:
    from recorder.figures import FIGURES

    text = (ROOT / "docs" / "stats.md").read_text().split("## Figures of the pages")[1]
    text = text.split("\n## ")[0]
    rows = {key: (label, definition, unit, kind, scope) for key, label, definition, unit, kind,
            _, scope in re.findall(
                r"^\| `(\w+)` \| ([^|]+?) \| ([^|]+?) \| ([^|]+?) \| (\w+) \| ([^|]+?) \| "
                r"([^|]+?) \|$", text, re.M)}
    assert rows == {f.key: (f.label, f.definition, f.unit, f.kind, f.scope or "every variant")
                    for f in FIGURES}


def test_which_way_is_better_is_in_the_docs() -> None:
    text = (ROOT / "docs" / "stats.md").read_text().split("## Metrics of a player")[1]
    text = text.split("\n## ")[0]
    rows = dict(re.findall(r"^\| `(\w+)` \|.*\| (higher|lower|neither)[^|]* \|$", text, re.M))
    assert rows == {m.key: m.better or "neither" for m in stats.METRICS}


def test_every_stats_url_is_in_the_docs() -> None:
    text = (ROOT / "docs" / "stats.md").read_text()
    from webui.api_stats import ENDPOINTS

    for url, _, _ in ENDPOINTS:
        assert f"GET {url}" in text


def test_variant_keys() -> None:
    assert storage.variant_key("classic") == "classic"
    assert storage.variant_key({"preset": "spilop", "options": {"sets": 2, "bonus": True}}
                               ) == "spilop bonus=true sets=2"
    assert stats.variant_label("spilop bonus=true sets=2") == "spilop (bonus: true, sets: 2)"
    assert stats.rules_of_variant("classic draw=one") == ("classic", "one")
