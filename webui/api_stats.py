"""The statistics JSON API under ``/api/stats``, in the service's envelope.

Every URL answers from the aggregates ``recorder.stats`` keeps at import (sums of a
few hundred rows at most), never from a scan of the moves. The filters are the same on
every URL and are checked: a bad one is a 400 error envelope that names it.

The questions are asked of a :class:`recorder.query.Backend`: the SQLite store, or with
a warehouse configured (``recorder serve --warehouse DIR``) DuckDB over its Parquet
datasets, which holds the same tables (:mod:`recorder.warehouse`); the SQL is the same.
A figure that only some rules can make (a bonus) is counted over the variants whose rules
make it, and the answer says which (``scope``). See docs/stats.md for every field.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, Response, request

from recorder import figures, query, review_stats, stats, storage
from recorder.stats import METRICS, Reader, StatsFilter
from webui.api import _integer, _moment, envelope, fail, frontend_filter
from webui.db import get_reviews, get_stats

bp = Blueprint("api_stats", __name__, url_prefix="/api/stats")

FILTERS = ("preset", "variant", "frontend", "players", "player", "since", "until")
EXAMPLES = 10
"""Missed-bonus moments listed as examples (the latest matching ones)."""
TOP = 10
RECENT = 20
HISTORY = 100
"""A player's latest games in the score history."""
PEOPLE = 20
"""Players a search by name or id answers at most."""
SEARCH_MAX = 100
"""Longest text a search of players takes."""
BLOCKED_MIN = figures.FIGURE_BY_KEY["blocked_share"].min_sample
"""Rounds below which a cell of the blocked heatmap is marked as too few to compare."""

ENDPOINTS = (
    ("/api/stats/bonus", "Bonus frequency",
     "Share of plays that score a bonus (over the variants with a bonus rule), the values "
     "scored, by variant, player count and move number, the top scorers and the missed "
     "chances with links to them."),
    ("/api/stats/blocked", "Blocked rounds",
     "Share of rounds that end blocked by variant and number of players and over time, "
     "the margins of blocked wins, who ends them and how many moves before the end the "
     "block was certain."),
    ("/api/stats/variants", "Variants",
     "Every variant's figures: how rounds end, how long rounds and games last, the first "
     "player's results and the points per round, each with its 95% interval."),
    ("/api/stats/compare", "Two variants compared",
     "Two variants (a and b) side by side: every rate and mean with its 95% interval, the "
     "difference with its interval and a sentence on it, the distributions of round and "
     "game length, and each seat's results."),
    ("/api/stats/players", "Player tendencies",
     "Every player's metrics with sample size and 95% interval."),
    ("/api/stats/players/<id>", "One player",
     "A player's metrics against the players of the same variant (percentiles, and which "
     "way is better), by variant and number of players, score history and recent games."),
    ("/api/stats/people", "Find a player",
     "Players whose name or id contains the text q, with the most games first."),
)


NEEDS = {"/api/stats/compare": "?a=<variant>&b=<variant>", "/api/stats/people": "?q=<text>"}
"""The parameters an endpoint cannot answer without (shown with it in the index)."""


def stats_filter(extra: Sequence[str] = (), *, without: Sequence[str] = ()) -> StatsFilter:
    """The query string's filters, each checked; unknown parameters are refused.

    ``extra`` names parameters of one URL that are not filters (read by its view),
    ``without`` filters it does not take.
    """
    args = request.args
    allowed = [f for f in FILTERS if f not in without] + list(extra)
    unknown = sorted(set(args) - set(allowed))
    if unknown:
        fail(400, "query/unknown-parameter",
             f"unknown parameter {', '.join(unknown)}; this address takes "
             + ", ".join(allowed))
    empty = sorted(k for k in allowed if k in args and not args[k].strip())
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


def _interval(part: float, whole: float) -> dict[str, float | None]:
    """``share`` with its 95% Wilson interval ``low``..``high`` (null with no whole)."""
    if not whole:
        return {"share": None, "low": None, "high": None}
    low, high = stats.wilson(part, whole)
    return {"share": part / whole, "low": low, "high": high}


def _int(x: float) -> int:
    return round(x)


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else round(x, 6)


def _bucket_number(text: str) -> int | float:
    value = float(text)
    return int(value) if value.is_integer() else value


def games_url(flt: StatsFilter, **extra: Any) -> str:
    """The games list with the same filters (and ``extra`` ones): the games behind a
    figure. Every stats filter is a filter of the list, under the same name."""
    args = {**query.to_args(flt), **{k: v for k, v in extra.items() if v is not None}}
    args = {k: ("true" if v is True else "false" if v is False else str(v))
            for k, v in args.items()}
    return "/games" + (f"?{urlencode(args)}" if args else "")


def missed_moment_url(game: int, round_no: int, move: int) -> str:
    """Where a missed bonus opens the replay: the moment of the move, with the chance it
    missed shown (the replay reads ``#r<round>m<move>``). The one place this link is made."""
    return f"/games/{game}#r{round_no}m{move}"


@bp.get("")
def index() -> Response:
    """The URLs, the values each filter can take, and the definitions of every figure."""
    stats_filter()
    db = get_stats()
    reader = Reader(db, StatsFilter())
    variants = reader.variants()
    rows = list(db.rows(
        "SELECT DISTINCT frontend, players FROM stats_rounds WHERE grain = 'all'"))
    days = query.first_row(
        db, "SELECT min(period), max(period) FROM stats_rounds WHERE grain = 'day'") \
        or (None, None)
    version = stats.counters_version(db)
    return envelope({
        "endpoints": [{"url": url, "title": title, "description": text,
                       "needs": NEEDS.get(url)} for url, title, text in ENDPOINTS],
        "filters": {
            "preset": sorted({v.split(" ")[0] for v in variants}),
            "variant": [{"key": v, "label": stats.variant_label(v)} for v in variants],
            "frontend": sorted({r[0] for r in rows if r[0]}),
            "players": sorted({r[1] for r in rows}),
            "since": days[0],
            "until": days[1],
        },
        "metrics": [m.to_json() for m in METRICS],
        "figures": [f.to_json() for f in figures.FIGURES],
        "counters": {"version": version, "current": storage.COUNTERS_VERSION,
                     "rebuild_needed": version != storage.COUNTERS_VERSION},
    })


def _scope(rule: str, plays_by_variant: Mapping[str, float], reader: Reader
           ) -> tuple[list[str], dict[str, Any]]:
    """The variants a figure of this rule is counted over, and the answer's ``scope``.

    When the filters leave none, ``reason`` says why and ``elsewhere`` names the stored
    variants that have the rule, to go to instead.
    """
    inside, outside = figures.split_scope(plays_by_variant, rule)
    none_left = bool(outside) and not inside

    def listed(keys: list[str]) -> list[dict[str, Any]]:
        return [{"variant": k, "label": stats.variant_label(k),
                 "plays": _int(plays_by_variant[k])} for k in keys]

    return inside, {
        "rule": rule,
        "counted_over": figures.SCOPES[rule].having,
        "variants": listed(inside),
        "left_out": listed(outside),
        "reason": figures.scope_reason(rule, outside) if none_left else None,
        "elsewhere": [{"variant": k, "label": stats.variant_label(k)}
                      for k in figures.split_scope(reader.variants(), rule)[0]]
        if none_left else [],
    }


@bp.get("/bonus")
def bonus() -> Response:
    """How often plays score a bonus, how much, where, by whom, and the chances missed.

    Counted over the variants whose rules have a bonus: plays of other variants cannot
    score one, and counting them would only dilute the share.
    """
    flt = stats_filter()
    db = get_stats()
    reader = Reader(db, flt)
    # one read of the player rows, rolled up here five ways
    cols = ("plays", "bonus_plays", "bonus_points", "missed_n", "missed_points", "chance_n",
            *storage.PLAYS_AT, *storage.BONUS_AT)
    head = 6
    rows = reader.sums("stats_players", cols, ("variant", "players", "player"))
    plays_by_variant: dict[str, float] = {}
    for (variant, _count, _pid), v in rows.items():
        plays_by_variant[variant] = plays_by_variant.get(variant, 0) + v[0]
    inside, scope = _scope("bonus", plays_by_variant, reader)
    kept = set(inside)
    total = [0.0] * len(cols)
    by_variant: dict[tuple[Any, ...], list[float]] = {}
    by_players: dict[tuple[Any, ...], list[float]] = {}
    scorers: dict[tuple[Any, ...], list[float]] = {}
    for (variant, count, pid), v in rows.items():
        if variant not in kept:
            continue
        stats.merge_into({(): total}, (), v)
        stats.merge_into(by_variant, (variant,), v[:2])
        stats.merge_into(by_players, (count,), v[:2])
        stats.merge_into(scorers, (pid,), (v[2], v[1], v[0]))
    plays, bonus_plays, bonus_points, missed_n, missed_points, chances = total[:head]
    cap = storage.MOVE_CAP
    by_move = [(i + 1, total[head + i], total[head + cap + i]) for i in range(cap)
               if total[head + i]]
    scoped = reader.with_filter(flt.but(variants=tuple(inside)))
    values = scoped.sums("stats_hist", ("n",), ("bucket",), extra="kind = 'bonus'")
    top = sorted(((pid, v) for (pid,), v in scorers.items() if v[0] > 0),
                 key=lambda x: (-x[1][0], x[0]))[:TOP]
    who = stats.names(db, [pid for pid, _ in top])
    return envelope({
        "filters": flt.applied(),
        "scope": scope,
        "all_plays": _int(sum(plays_by_variant.values())),
        "plays": _int(plays),
        "bonus_plays": _int(bonus_plays),
        "bonus_points": _num(bonus_points),
        **_interval(bonus_plays, plays),
        "values": sorted(({"value": _bucket_number(b), "count": _int(v[0])}
                          for (b,), v in values.items()), key=lambda x: x["value"]),
        "by_variant": [
            {"variant": key, "label": stats.variant_label(key), "plays": _int(v[0]),
             "bonus_plays": _int(v[1]), **_interval(v[1], v[0]),
             "games_url": games_url(flt.but(preset=None), variant=key)}
            for (key,), v in sorted(by_variant.items())],
        "by_players": [
            {"players": key, "plays": _int(v[0]), "bonus_plays": _int(v[1]),
             **_interval(v[1], v[0]), "games_url": games_url(flt, players=key, rule="bonus")}
            for (key,), v in sorted(by_players.items())],
        "by_move": [{"move": move, "plays": _int(n), "bonus_plays": _int(k),
                     **_interval(k, n)} for move, n, k in by_move],
        "move_cap": stats.MOVE_CAP,
        "top_scorers": [
            {"player": pid, "name": who.get(pid), "bonus_points": _num(v[0]),
             "bonus_plays": _int(v[1]), "plays": _int(v[2])}
            for pid, v in top],
        "missed": {"count": _int(missed_n), "points": _num(missed_points),
                   "chances": _int(chances), **_interval(missed_n, chances),
                   "examples": _missed_examples(db, flt.but(variants=tuple(inside)))},
        "games_url": games_url(flt, rule="bonus"),
    })


def _missed_examples(db: query.Backend, flt: StatsFilter) -> list[dict[str, Any]]:
    """The latest kept missed-bonus moments under the filters, with their replay links."""
    where, params = query.where(flt, query.MISSED, db.dialect)
    # the latest moments first, then their names and game ids: the joins read a few rows
    # (over Parquet, a join before the limit would read every game)
    rows = db.rows(
        "SELECT m.game, m.round, m.move, m.player, p.name, m.scored, m.best, g.game_id "
        f"FROM (SELECT * FROM stats_missed m WHERE {where} ORDER BY m.id DESC LIMIT ?) m "
        "LEFT JOIN stats_people p ON p.player = m.player "
        "LEFT JOIN games g ON g.id = m.game ORDER BY m.id DESC", [*params, EXAMPLES])
    return [{"game": g, "game_id": game_id, "round": r, "move": m, "player": pid,
             "name": name, "scored": _num(scored), "best": _num(best),
             "url": missed_moment_url(g, r, m)}
            for g, r, m, pid, name, scored, best, game_id in rows]


@bp.get("/blocked")
def blocked() -> Response:
    """How often rounds end blocked, under which rules, when, by how much, by whom."""
    flt = stats_filter()
    db = get_stats()
    reader = Reader(db, flt)
    if flt.player is None:  # every round once; with a player, the rounds of their games
        table, cols = "stats_rounds", ("rounds", "blocked")
    else:
        table, cols = "stats_players", ("rounds", "blocked_rounds")
    rounds, blocked_n = reader.total(table, cols)
    by_rules = reader.sums(table, cols, ("variant", "players"))
    over_time = reader.sums(table, cols, by_month=True)
    scope = "" if flt.player is None else flt.player
    hist = reader.sums("stats_hist", ("n",), ("kind", "bucket"), player=scope,
                       extra="kind IN ('margin', 'ender', 'certain')")

    def buckets(kind: str) -> list[tuple[str, int]]:
        return [(b, _int(v[0])) for (k, b), v in hist.items() if k == kind]

    enders = sorted(buckets("ender"), key=lambda x: (-x[1], x[0]))
    who = stats.names(db, [pid for pid, _ in enders])
    certain = buckets("certain")
    rules_rows = []
    for (variant, players), v in sorted(by_rules.items()):
        preset, draw = stats.rules_of_variant(variant)
        rules_rows.append({
            "variant": variant, "label": stats.variant_label(variant), "preset": preset,
            "draw": draw, "players": players, "rounds": _int(v[0]), "blocked": _int(v[1]),
            **_interval(v[1], v[0]), "thin": v[0] < BLOCKED_MIN,
            "games_url": games_url(flt.but(preset=None), variant=variant, players=players,
                                   blocked=True)})
    return envelope({
        "filters": flt.applied(),
        "rounds": _int(rounds),
        "blocked": _int(blocked_n),
        **_interval(blocked_n, rounds),
        "min_sample": BLOCKED_MIN,
        "by_rules": rules_rows,
        "over_time": [
            {"period": period, "rounds": _int(v[0]), "blocked": _int(v[1]),
             **_interval(v[1], v[0]),
             "games_url": games_url(flt.but(since=max(f"{period}-01", flt.since or ""),
                                            until=min(_month_last(period),
                                                      flt.until or "9999")), blocked=True)}
            for (period,), v in sorted(over_time.items())],
        "margins": sorted(({"margin": int(b), "count": c} for b, c in buckets("margin")),
                          key=lambda x: x["margin"]),
        "enders": [{"player": pid, "name": who.get(pid), "count": c,
                    "games_url": games_url(flt, player=pid, blocked=True)}
                   for pid, c in enders],
        "certain_before_end": sorted(
            ({"moves": int(b), "count": c} for b, c in certain if b != "unknown"),
            key=lambda x: x["moves"]),
        "certain_unknown": sum(c for b, c in certain if b == "unknown"),
        "games_url": games_url(flt, blocked=True),
    })


def _month_last(period: str) -> str:
    """The last day of a month ``2026-11``: ``2026-11-30``."""
    return f"{period}-{calendar.monthrange(int(period[:4]), int(period[5:7]))[1]:02d}"


@bp.get("/variants")
def variants() -> Response:
    """Every variant under the filters with the figures a designer reads first."""
    flt = stats_filter()
    table = figures.variant_figures(Reader(get_stats(), flt))
    decisions = {row["variant"]: row for row in review_stats.variant_decisions(get_reviews())}
    keys = ("domino_share", "blocked_share", "target_share", "round_moves", "game_rounds",
            "game_moves", "first_round_wins", "first_game_wins", "points_per_round",
            "bonus_share")
    return envelope({
        "filters": flt.applied(),
        "figures": [figures.describe(k) for k in keys],
        "variants": [
            {**{k: v for k, v in row.items() if k not in ("figures", "seats")},
             "figures": {k: row["figures"][k] for k in keys},
             "decisions": decisions.get(row["variant"]),
             "games_url": games_url(flt.but(preset=None), variant=row["variant"])}
            for row in table.values()],
    })


@bp.get("/compare")
def compare() -> Response:
    """Two variants side by side, every figure with its interval and the difference's."""
    flt = stats_filter(("a", "b"), without=("variant",))
    a, b = request.args.get("a"), request.args.get("b")
    if not a or not b:
        fail(400, "query/invalid",
             "compare needs a and b: two variant keys, as GET /api/stats lists them "
             "(a=classic&b=classic draw=one)")
    if a == b:
        fail(400, "query/invalid", f"a and b are the same variant ({a!r}); name two")
    db = get_stats()
    reader = Reader(db, flt)
    known = set(reader.variants())
    for name, key in (("a", a), ("b", b)):
        if key not in known:
            fail(404, "stats/unknown-variant",
                 f"{name}: no stored game is of the variant {key!r}; GET /api/stats lists "
                 "the variants")
    answer = figures.compare(reader, a, b)
    for side, key in (("a", a), ("b", b)):
        answer[side]["games_url"] = games_url(flt.but(preset=None), variant=key)
    return envelope({"filters": {**flt.applied(), "a": a, "b": b}, **answer})


@bp.get("/players")
def players() -> Response:
    """Every player's metrics (value null where the sample is below the metric's minimum)."""
    flt = stats_filter()
    db = get_stats()
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


@bp.get("/people")
def people() -> Response:
    """Players whose id or name contains ``q`` (any case), most games first."""
    unknown = sorted(set(request.args) - {"q"})
    if unknown:
        fail(400, "query/unknown-parameter",
             f"unknown parameter {', '.join(unknown)}; this address takes q")
    text = (request.args.get("q") or "").strip()
    if not text:
        fail(400, "query/invalid", "q must not be empty: a part of a player's name or id")
    if len(text) > SEARCH_MAX:
        fail(400, "query/invalid", f"q must be at most {SEARCH_MAX} characters")
    db = get_stats()
    by_id, id_params = db.dialect.contains("player", text)
    by_name, name_params = db.dialect.contains("name", text)
    rows = db.rows(
        f"SELECT player, name, games FROM stats_people WHERE {by_id} OR {by_name} "
        "ORDER BY games DESC, player LIMIT ?", [*id_params, *name_params, PEOPLE])
    return envelope({"q": text, "limit": PEOPLE,
                     "players": [{"id": pid, "name": name, "games": games}
                                 for pid, name, games in rows]})


@bp.get("/players/<path:player_id>")
def player(player_id: str) -> Response:
    """One player's metrics against the players of the same variant, their figures by
    variant and number of players, the score history and recent games."""
    flt = stats_filter()
    if flt.player is not None and flt.player != player_id:
        fail(400, "query/invalid",
             f"player is {player_id!r} in the address and {flt.player!r} in the query")
    db = get_stats()
    flt = flt.but(player=None)
    name = stats.names(db, [player_id]).get(player_id)
    by_kind = Reader(db, flt.but(player=player_id)).sums(
        "stats_players", storage.METRIC_COUNTERS, ("variant", "players"))
    if not by_kind and name is None:
        fail(404, "stats/unknown-player", f"no stored game has a player {player_id!r}")
    breakdown = _breakdown(by_kind, flt, player_id)
    within = _comparison(flt, breakdown)
    scoped = flt.but(variant=within["variant"], players=within["players"])
    population = stats.player_metrics(Reader(db, scoped))
    mine = population.get(player_id)
    variants_in = [within["variant"]] if within["variant"] else []
    metrics: dict[str, Any] = {}
    spread: dict[str, Any] = {}
    for metric in METRICS:
        values = [e["metrics"][metric.key]["value"] for e in population.values()
                  if e["metrics"][metric.key]["value"] is not None]
        own = dict(mine["metrics"][metric.key]) if mine else stats.metric_value(metric, {})
        own["percentile"] = (stats.percentile_rank(own["value"], values)
                             if own["value"] is not None else None)
        better = stats.better_in(metric, variants_in)
        own["better"] = better
        own["better_than"] = _better_than(own["value"], values, better)
        if metric.key in ("bonus_capture", "bonus_left") and variants_in and \
                not figures.in_scope(variants_in[0], "bonus"):
            own["reason"] = f"{stats.variant_label(variants_in[0])} has no bonus rule."
        metrics[metric.key] = own
        spread[metric.key] = {"p10": stats.quantile(values, 0.1),
                              "p50": stats.quantile(values, 0.5),
                              "p90": stats.quantile(values, 0.9), "players": len(values)}
    games = _player_games(db, player_id, flt)
    totals = [0.0, 0.0]
    for v in by_kind.values():
        totals[0] += v[storage.METRIC_COUNTERS.index("games")]
        totals[1] += v[storage.METRIC_COUNTERS.index("rounds")]
    history = sorted(games, key=lambda g: (g["played_at"], g["game"]))
    for i, g in enumerate(history, 1):
        g["sequence"] = i
    return envelope({
        "filters": flt.applied(),
        "player": {"id": player_id, "name": name, "games": _int(totals[0]),
                   "rounds": _int(totals[1])},
        "comparison": within,
        "metrics": metrics,
        "population": spread,
        "accuracy": review_stats.player_accuracy(get_reviews(), player_id, within["variant"],
                                                 within["players"]),
        "breakdown": breakdown,
        "history_variants": _history_variants(history),
        "score_history": [
            {k: g[k] for k in ("sequence", "game", "game_id", "title", "date", "dated",
                               "variant", "score", "won", "url")} for g in history],
        "recent_games": [{k: v for k, v in g.items() if k not in ("played_at", "sequence")}
                         for g in games[:RECENT]],
        "games_url": games_url(flt, player=player_id),
    })


def _better_than(value: float | None, population: Sequence[float],
                 better: str | None) -> float | None:
    """The share of the population this value is better than (ties half), in percent."""
    if value is None or better is None or not population:
        return None
    worse = sum(1 for v in population if (v < value if better == "higher" else v > value))
    equal = sum(1 for v in population if v == value)
    return 100.0 * (worse + 0.5 * equal) / len(population)


BREAKDOWN = ("win_rate", "points_per_round", "domino_rate", "pips_left_losing")


def _breakdown(by_kind: Mapping[tuple[Any, ...], Sequence[float]], flt: StatsFilter,
               player_id: str) -> list[dict[str, Any]]:
    """The player's figures per variant and number of players, most games first."""
    rows = []
    for (variant, players), vals in by_kind.items():
        counters = dict(zip(storage.METRIC_COUNTERS, vals, strict=True))
        rows.append({
            "variant": variant, "label": stats.variant_label(variant), "players": players,
            "games": _int(counters["games"]), "rounds": _int(counters["rounds"]),
            "metrics": {k: {**stats.metric_value(stats.METRIC_BY_KEY[k], counters),
                            "better": stats.better_in(stats.METRIC_BY_KEY[k], [variant])}
                        for k in BREAKDOWN},
            "games_url": games_url(flt.but(preset=None), player=player_id, variant=variant,
                                   players=players),
        })
    rows.sort(key=lambda r: (-r["games"], r["variant"], r["players"]))
    return rows


def _comparison(flt: StatsFilter, breakdown: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The variant and number of players the player is compared within: the filter's,
    else those of most of the player's games under it."""
    variant, players = flt.variant, flt.players
    chosen = "filters"
    candidates = [r for r in breakdown
                  if (variant is None or r["variant"] == variant)
                  and (players is None or r["players"] == players)]
    if candidates and (variant is None or players is None):
        top = candidates[0]
        chosen = "most games" if variant is None else "filters and most games"
        variant, players = top["variant"], top["players"]
    return {"variant": variant, "label": stats.variant_label(variant) if variant else None,
            "players": players, "chosen": chosen}


def _history_variants(history: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The variants of the history, most games first, each with its target and whether
    reaching it wins or loses (so that scores are read on their own scale)."""
    counts: dict[str, int] = {}
    for g in history:
        counts[g["variant"]] = counts.get(g["variant"], 0) + 1
    out = []
    for variant, n in sorted(counts.items(), key=lambda x: (-x[1], x[0])):
        rules = stats.ruleset_of_variant(variant)
        out.append({
            "variant": variant, "label": stats.variant_label(variant), "games": n,
            "target": None if rules is None or rules.hands else rules.target,
            "hands": rules.hands if rules is not None and rules.hands else None,
            "reaching_target": None if rules is None or rules.hands else
            ("loses" if rules.target_mode == "reach-loses" else "wins"),
        })
    return out


def _player_games(db: query.Backend, player_id: str, flt: StatsFilter
                  ) -> list[dict[str, Any]]:
    """The player's latest stored games under the filters, newest played first.

    The window is the last ``HISTORY`` games stored (a range of the index on the player's
    id and the game: a player of 100,000 games costs what one of 100 does), ordered by the
    game's sequence: its date where the log gives one, else when it was stored, then the
    order it was stored in. Sorting all of a player's games by date instead would read
    every one of their rows.
    """
    where, params = query.where(flt.but(player=None), query.games_as("g"), db.dialect)
    sql = ("SELECT g.id, g.game_id, g.played_at, g.started_at, g.preset, g.variant, "
           "g.player_count, p.final_score, p.won, g.status FROM players p "
           "CROSS JOIN games g WHERE g.id = p.game AND p.player_id = ? AND p.game >= ? "
           f"AND {where} "
           "ORDER BY p.game DESC LIMIT ?")
    # The latest games first: the join reads the games from the player's K-th latest on,
    # K growing until HISTORY games pass the filters (or every game is read). Over
    # Parquet, the join of all of a player's games read every game's row; on SQLite each
    # pass is a range of the index.
    window = HISTORY * 10
    while True:
        bound = query.first_row(
            db, "SELECT game FROM players WHERE player_id = ? ORDER BY game DESC "
                "LIMIT 1 OFFSET ?", [player_id, window - 1])
        rows = list(db.rows(sql, [player_id, bound[0] if bound else 0, *params, HISTORY]))
        if bound is None or len(rows) >= HISTORY:
            break
        window *= 10
    games = [{"game": gid, "game_id": game_id, "title": game_id or f"Game #{gid}",
              "date": played, "played_at": played or "", "dated": started is not None,
              "preset": preset, "variant": variant or preset, "players": count,
              "score": score, "won": bool(won), "status": status, "url": f"/games/{gid}"}
             for gid, game_id, played, started, preset, variant, count, score, won, status
             in rows]
    games.sort(key=lambda g: (g["played_at"], g["game"]), reverse=True)
    return games


__all__ = ["bp", "stats_filter"]
