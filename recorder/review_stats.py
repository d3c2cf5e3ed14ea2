"""Accuracy statistics from the stored reviews: each player's, and each variant's.

Computed from ``review_seats`` (each seat's sums of each reviewed round, written with the
round's review: ``recorder.reviews``), for the default review settings: a page adds up
those sums, never reads a review. Three figures a player, each with its 95% interval
(``recorder.figures``): the mean points lost per decision, the share of decisions where
the best move was played, and the mistakes (inaccuracies, mistakes and blunders) per
round. A player's figures are read against the players of the same variant (and number
of players); per variant, how much decisions matter: the mean points lost per decision,
and the mean range between a decision's best and worst choice.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from sqlite_utils import Database

from recorder import figures, reviews
from recorder.review import VERSION, Settings

ACCURACY: Final = (
    ("mean_loss", "Points lost per decision", "lower"),
    ("best_share", "Best moves", "higher"),
    ("mistakes_per_round", "Mistakes per round", "lower"),
)
"""The accuracy figures: key, label, which way is better."""
MIN_DECISIONS: Final = 5
"""Decisions a player needs before their figures are given (fewer: null)."""

_SUMS = ("sum(r.decisions), sum(r.loss_sum), sum(r.loss_sq), sum(r.best), "
         "sum(r.marked), sum(r.marked * r.marked), count(*), sum(r.range_sum)")


def _where(variant: str | None, players: int | None) -> tuple[str, list[Any]]:
    sql, params = "r.settings = ? AND r.version = ?", [reviews.settings_key(Settings()),
                                                        VERSION]
    if variant is not None:
        sql += " AND g.variant = ?"
        params.append(variant)
    if players is not None:
        sql += " AND g.player_count = ?"
        params.append(players)
    return sql, params


def _figures(row: Sequence[Any]) -> dict[str, dict[str, Any]]:
    decisions, loss, loss_sq, best, marked, marked_sq, rounds, _ = (float(x or 0) for x in row)
    per_round = figures.mean(marked, marked_sq, rounds)
    if decisions < MIN_DECISIONS:  # too few decisions for any of the three
        per_round = figures.mean(marked, marked_sq, rounds, int(rounds) + 1)
    return {
        "mean_loss": figures.mean(loss, loss_sq, decisions, MIN_DECISIONS),
        "best_share": figures.rate(best, decisions, MIN_DECISIONS),
        "mistakes_per_round": per_round,
    }


def player_accuracy(db: Database, player_id: str, variant: str | None,
                    players: int | None) -> dict[str, Any]:
    """One player's accuracy within a variant (and number of players), against the
    players of the same: the pooled population figure with its interval, and the spread
    of the players' own values (10th, 50th and 90th percentile)."""
    where, params = _where(variant, players)
    join = ("FROM review_seats r JOIN games g ON g.id = r.game "
            "JOIN players p ON p.game = r.game AND p.seat = r.seat")
    mine = db.execute(f"SELECT {_SUMS} {join} WHERE {where} AND p.player_id = ?",
                      [*params, player_id]).fetchone()
    everyone = db.execute(f"SELECT {_SUMS} {join} WHERE {where}", params).fetchone()
    each = [_figures(row[1:]) for row in db.execute(
        f"SELECT p.player_id, {_SUMS} {join} WHERE {where} GROUP BY p.player_id", params)]
    out: dict[str, Any] = {"variant": variant, "players": players,
                           "decisions": int(mine[0] or 0), "rounds": int(mine[6] or 0),
                           "metrics": {}}
    own = _figures(mine)
    pooled = _figures(everyone)
    for key, label, better in ACCURACY:
        values = sorted(f[key]["value"] for f in each if f[key]["value"] is not None)
        out["metrics"][key] = {
            "label": label, "better": better, **own[key],
            "population": {**pooled[key], "players": len(values),
                           "p10": _quantile(values, 0.1), "p50": _quantile(values, 0.5),
                           "p90": _quantile(values, 0.9)},
        }
    return out


def variant_decisions(db: Database) -> list[dict[str, Any]]:
    """Per variant, how much its decisions matter: points lost per decision and the share
    of best moves (with their intervals), and the mean range between a decision's best
    and worst choice."""
    where, params = _where(None, None)
    rows = db.execute(
        f"SELECT g.variant, {_SUMS} FROM review_seats r JOIN games g ON g.id = r.game "
        f"WHERE {where} GROUP BY g.variant ORDER BY g.variant", params).fetchall()
    out = []
    for variant, *sums in rows:
        decisions = float(sums[0] or 0)
        f = _figures(sums)
        out.append({"variant": variant, "decisions": int(decisions),
                    "mean_loss": f["mean_loss"], "best_share": f["best_share"],
                    "mean_range": (float(sums[7] or 0) / decisions) if decisions else None})
    return out


def _quantile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    pos = q * (len(values) - 1)
    low = int(pos)
    high = min(low + 1, len(values) - 1)
    return values[low] + (values[high] - values[low]) * (pos - low)
