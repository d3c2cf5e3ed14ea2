"""The statistics JSON API under ``/api/stats``, in the service's envelope.

Every URL answers from the aggregates ``recorder.stats`` keeps at import (sums of a
few hundred rows at most), never from a scan of the moves. The filters are the same on
every URL and are checked: a bad one is a 400 error envelope that names it.
See docs/stats.md for every field.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, request

from recorder import stats, storage
from recorder.stats import METRICS, Reader, StatsFilter
from webui.api import _integer, _moment, envelope, fail, frontend_filter
from webui.db import get_db

bp = Blueprint("api_stats", __name__, url_prefix="/api/stats")

FILTERS = ("preset", "variant", "frontend", "players", "player", "since", "until")
EXAMPLES = 10
"""Missed-bonus moments listed as examples (the latest matching ones)."""
TOP = 10
RECENT = 20
HISTORY = 100

ENDPOINTS = (
    ("/api/stats/bonus", "Bonus frequency",
     "Share of plays that score a bonus, the values scored, by variant, player count and "
     "move number, the top scorers and the missed chances with links to them."),
    ("/api/stats/blocked", "Blocked rounds",
     "Share of rounds that end blocked by rules and over time, the margins of blocked "
     "wins, who ends them and how many moves before the end the block was certain."),
    ("/api/stats/players", "Player tendencies",
     "Every player's metrics with sample size and 95% interval."),
    ("/api/stats/players/<id>", "One player",
     "A player's metrics against the population (percentiles), score history and recent "
     "games."),
)


def stats_filter() -> StatsFilter:
    """The query string's filters, each checked; unknown parameters are refused."""
    args = request.args
    unknown = sorted(set(args) - set(FILTERS))
    if unknown:
        fail(400, "query/unknown-parameter",
             f"unknown parameter {', '.join(unknown)}; the statistics take "
             + ", ".join(FILTERS))
    empty = sorted(k for k in FILTERS if k in args and not args[k].strip())
    if empty:
        fail(400, "query/invalid", f"{empty[0]} must not be empty")
    since = _moment("since", args["since"], end_of_day=False)[:10] if "since" in args \
        else None
    until = _moment("until", args["until"], end_of_day=True)[:10] if "until" in args \
        else None
    if since and until and since > until:
        fail(400, "query/invalid", f"since ({since}) is after until ({until})")
    return StatsFilter(
        preset=args.get("preset"),
        variant=args.get("variant"),
        frontend=frontend_filter(args.get("frontend")),
        players=_integer("players", args["players"], low=1, high=8) if "players" in args
        else None,
        player=args.get("player"),
        since=since,
        until=until,
    )


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _int(x: float) -> int:
    return round(x)


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 6)


def _bucket_number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


@bp.get("")
def index() -> Response:
    """The URLs and the values each filter can take."""
    stats_filter()
    db = get_db()
    reader = Reader(db, StatsFilter())
    variants = reader.variants()
    rows = db.execute(
        "SELECT DISTINCT frontend, players FROM stats_rounds WHERE grain = 'all'").fetchall()
    days = db.execute(
        "SELECT min(period), max(period) FROM stats_rounds WHERE grain = 'day'").fetchone()
    return envelope({
        "endpoints": [{"url": url, "title": title, "description": text}
                      for url, title, text in ENDPOINTS],
        "filters": {
            "preset": sorted({v.split(" ")[0] for v in variants}),
            "variant": [{"key": v, "label": stats.variant_label(v)} for v in variants],
            "frontend": sorted({r[0] for r in rows if r[0]}),
            "players": sorted({r[1] for r in rows}),
            "since": days[0],
            "until": days[1],
        },
        "metrics": [m.to_json() for m in METRICS],
    })


@bp.get("/bonus")
def bonus() -> Response:
    """How often plays score a bonus, how much, where, by whom, and the chances missed."""
    flt = stats_filter()
    db = get_db()
    reader = Reader(db, flt)
    # one read of the player rows, rolled up here five ways
    cols = ("plays", "bonus_plays", "bonus_points", "missed_n", "missed_points",
            *storage.PLAYS_AT, *storage.BONUS_AT)
    rows = reader.sums("stats_players", cols, ("variant", "players", "player"))
    total = [0.0] * len(cols)
    by_variant: dict[tuple[Any, ...], list[float]] = {}
    by_players: dict[tuple[Any, ...], list[float]] = {}
    scorers: dict[tuple[Any, ...], list[float]] = {}
    for (variant, count, pid), v in rows.items():
        stats.merge_into({(): total}, (), v)
        stats.merge_into(by_variant, (variant,), v[:2])
        stats.merge_into(by_players, (count,), v[:2])
        stats.merge_into(scorers, (pid,), (v[2], v[1], v[0]))
    plays, bonus_plays, bonus_points, missed_n, missed_points = total[:5]
    cap = storage.MOVE_CAP
    by_move = [(i + 1, total[5 + i], total[5 + cap + i]) for i in range(cap) if total[5 + i]]
    values = reader.sums("stats_hist", ("n",), ("bucket",), extra="kind = 'bonus'")
    top = sorted(((pid, v) for (pid,), v in scorers.items() if v[0] > 0),
                 key=lambda x: (-x[1][0], x[0]))[:TOP]
    who = stats.names(db, [pid for pid, _ in top])
    return envelope({
        "filters": flt.applied(),
        "plays": _int(plays),
        "bonus_plays": _int(bonus_plays),
        "bonus_points": _num(bonus_points),
        "share": _share(bonus_plays, plays),
        "values": sorted(({"value": _bucket_number(b), "count": _int(v[0])}
                          for (b,), v in values.items()), key=lambda x: x["value"]),
        "by_variant": [
            {"variant": key, "label": stats.variant_label(key), "plays": _int(v[0]),
             "bonus_plays": _int(v[1]), "share": _share(v[1], v[0])}
            for (key,), v in sorted(by_variant.items())],
        "by_players": [
            {"players": key, "plays": _int(v[0]), "bonus_plays": _int(v[1]),
             "share": _share(v[1], v[0])}
            for (key,), v in sorted(by_players.items())],
        "by_move": [{"move": move, "plays": _int(n), "bonus_plays": _int(k),
                     "share": _share(k, n)} for move, n, k in by_move],
        "move_cap": stats.MOVE_CAP,
        "top_scorers": [
            {"player": pid, "name": who.get(pid), "bonus_points": _num(v[0]),
             "bonus_plays": _int(v[1]), "plays": _int(v[2])}
            for pid, v in top],
        "missed": {"count": _int(missed_n), "points": _num(missed_points),
                   "examples": _missed_examples(db, flt)},
    })


def _missed_examples(db: Any, flt: StatsFilter) -> list[dict[str, Any]]:
    """The latest kept missed-bonus moments under the filters, with their replay links."""
    clauses, params = [], []
    for column in ("variant", "frontend", "players", "player"):
        value = getattr(flt, column)
        if value is not None:
            clauses.append(f"m.{column} = ?")
            params.append(value)
    if flt.preset is not None and flt.variant is None:
        clauses.append("(m.variant = ? OR m.variant LIKE ?)")
        params += [flt.preset, flt.preset + " %"]
    if flt.since is not None:
        clauses.append("m.day >= ?")
        params.append(flt.since)
    if flt.until is not None:
        clauses.append("m.day <= ?")
        params.append(flt.until)
    where = " AND ".join(clauses) or "1"
    rows = db.execute(
        "SELECT m.game, m.round, m.move, m.player, p.name, m.scored, m.best "
        f"FROM stats_missed m LEFT JOIN stats_people p ON p.player = m.player WHERE {where} "
        "ORDER BY m.id DESC LIMIT ?", [*params, EXAMPLES]).fetchall()
    return [{"game": g, "round": r, "move": m, "player": pid, "name": name,
             "scored": _num(scored), "best": _num(best), "url": f"/games/{g}#r{r}m{m}"}
            for g, r, m, pid, name, scored, best in rows]


@bp.get("/blocked")
def blocked() -> Response:
    """How often rounds end blocked, under which rules, when, by how much, by whom."""
    flt = stats_filter()
    db = get_db()
    reader = Reader(db, flt)
    if flt.player is None:  # every round once; with a player, the rounds of their games
        table, cols = "stats_rounds", ("rounds", "blocked")
    else:
        table, cols = "stats_players", ("rounds", "blocked_rounds")
    rounds, blocked_n = reader.total(table, cols)
    by_rules: dict[tuple[str, int, str], list[float]] = {}
    for (variant, players), v in reader.sums(table, cols, ("variant", "players")).items():
        preset, draw = stats.rules_of_variant(variant)
        stats.merge_into(by_rules, (preset, players, draw), v)
    over_time = reader.sums(table, cols, by_month=True)
    scope = "" if flt.player is None else flt.player
    hist = reader.sums("stats_hist", ("n",), ("kind", "bucket"), player=scope,
                       extra="kind IN ('margin', 'ender', 'certain')")

    def buckets(kind: str) -> list[tuple[str, int]]:
        return [(b, _int(v[0])) for (k, b), v in hist.items() if k == kind]

    enders = sorted(buckets("ender"), key=lambda x: (-x[1], x[0]))
    who = stats.names(db, [pid for pid, _ in enders])
    certain = buckets("certain")
    return envelope({
        "filters": flt.applied(),
        "rounds": _int(rounds),
        "blocked": _int(blocked_n),
        "share": _share(blocked_n, rounds),
        "by_rules": [
            {"preset": preset, "players": players, "draw": draw, "rounds": _int(v[0]),
             "blocked": _int(v[1]), "share": _share(v[1], v[0])}
            for (preset, players, draw), v in sorted(by_rules.items())],
        "over_time": [
            {"period": period, "rounds": _int(v[0]), "blocked": _int(v[1]),
             "share": _share(v[1], v[0])}
            for (period,), v in sorted(over_time.items())],
        "margins": sorted(({"margin": int(b), "count": c} for b, c in buckets("margin")),
                          key=lambda x: x["margin"]),
        "enders": [{"player": pid, "name": who.get(pid), "count": c} for pid, c in enders],
        "certain_before_end": sorted(
            ({"moves": int(b), "count": c} for b, c in certain if b != "unknown"),
            key=lambda x: x["moves"]),
        "certain_unknown": sum(c for b, c in certain if b == "unknown"),
    })


@bp.get("/players")
def players() -> Response:
    """Every player's metrics (value null where the sample is below the metric's minimum)."""
    flt = stats_filter()
    db = get_db()
    table = stats.player_metrics(Reader(db, flt))
    who = stats.names(db, table)
    rows = [
        {"id": pid, "name": who.get(pid), "games": _int(entry["counters"]["games"]),
         "rounds": _int(entry["counters"]["rounds"]), "metrics": entry["metrics"]}
        for pid, entry in table.items()
    ]
    rows.sort(key=lambda r: (-r["games"], r["id"]))
    return envelope({
        "filters": flt.applied(),
        "metrics": [m.to_json() for m in METRICS],
        "players": rows,
    })


@bp.get("/players/<path:player_id>")
def player(player_id: str) -> Response:
    """One player's metrics against everyone's, the score history and recent games."""
    flt = stats_filter()
    if flt.player is not None and flt.player != player_id:
        fail(400, "query/invalid",
             f"player is {player_id!r} in the address and {flt.player!r} in the query")
    db = get_db()
    population = stats.player_metrics(Reader(db, flt.without_player()))
    mine = population.get(player_id)
    name = stats.names(db, [player_id]).get(player_id)
    if mine is None and name is None:
        fail(404, "stats/unknown-player", f"no stored game has a player {player_id!r}")
    metrics: dict[str, Any] = {}
    spread: dict[str, Any] = {}
    for metric in METRICS:
        values = [e["metrics"][metric.key]["value"] for e in population.values()
                  if e["metrics"][metric.key]["value"] is not None]
        own = dict(mine["metrics"][metric.key]) if mine else stats.metric_value(metric, {})
        own["percentile"] = (stats.percentile_rank(own["value"], values)
                             if own["value"] is not None else None)
        metrics[metric.key] = own
        spread[metric.key] = {"p10": stats.quantile(values, 0.1),
                              "p50": stats.quantile(values, 0.5),
                              "p90": stats.quantile(values, 0.9), "players": len(values)}
    games = _player_games(db, player_id, flt)
    return envelope({
        "filters": flt.applied(),
        "player": {"id": player_id, "name": name,
                   "games": _int(mine["counters"]["games"]) if mine else 0,
                   "rounds": _int(mine["counters"]["rounds"]) if mine else 0},
        "metrics": metrics,
        "population": spread,
        "score_history": [
            {"game": g["game"], "date": g["date"], "score": g["score"], "won": g["won"],
             "url": g["url"]} for g in sorted(games, key=lambda g: (g["date"], g["game"]))],
        "recent_games": games[:RECENT],
    })


def _player_games(db: Any, player_id: str, flt: StatsFilter) -> list[dict[str, Any]]:
    """The player's latest games under the filters, newest first (the history's window)."""
    clauses, params = ["p.player_id = ?"], [player_id]
    if flt.variant is not None:
        clauses.append("g.variant = ?")
        params.append(flt.variant)
    elif flt.preset is not None:
        clauses.append("g.preset = ?")
        params.append(flt.preset)
    if flt.frontend is not None:
        clauses.append("g.frontend = ?")
        params.append(flt.frontend)
    if flt.players is not None:
        clauses.append("g.player_count = ?")
        params.append(flt.players)
    if flt.since is not None:
        clauses.append("coalesce(g.started_at, g.imported_at) >= ?")
        params.append(flt.since)
    if flt.until is not None:
        clauses.append("substr(coalesce(g.started_at, g.imported_at), 1, 10) <= ?")
        params.append(flt.until)
    rows = db.execute(
        "SELECT g.id, coalesce(g.started_at, g.imported_at), g.preset, g.variant, "
        "g.player_count, p.final_score, p.won, g.status FROM players p "
        "JOIN games g ON g.id = p.game WHERE " + " AND ".join(clauses)
        + " ORDER BY p.game DESC LIMIT ?", [*params, HISTORY]).fetchall()
    return [{"game": gid, "date": when, "preset": preset, "variant": variant,
             "players": count, "score": score, "won": bool(won), "status": status,
             "url": f"/games/{gid}"}
            for gid, when, preset, variant, count, score, won, status in rows]


__all__ = ["bp", "stats_filter"]
