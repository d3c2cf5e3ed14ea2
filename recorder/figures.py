"""The figures of the statistics pages, defined once, and what a designer compares.

Player metrics are :data:`recorder.stats.METRICS`; every other figure the pages show is a
:class:`Figure` here, with the words the docs and the tooltips use. A figure that only
some rules can make (a bonus, a round ended on the target) has a *scope*: it is counted
over the variants whose rules can make it, and a filter that leaves none says why
(:func:`scope_reason`).

The variants' figures (how rounds end, how long rounds and games last, the first
player's and each seat's results, points per round) come from the counters of
:mod:`recorder.stats`; :func:`compare` sets two variants side by side, each rate and mean
with its 95% interval and the difference with its own: Newcombe's hybrid score interval
for a difference of rates (from the two Wilson intervals), Welch's normal interval for a
difference of means.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from recorder import stats, storage
from recorder.rules import Ruleset
from recorder.stats import METRIC_BY_KEY, Z95, Reader, mean_interval, wilson


@dataclass(frozen=True)
class Figure:
    """One figure of the pages: what it is, in plain words, and what it is counted over."""

    key: str
    label: str
    definition: str
    unit: str
    kind: str
    """``rate`` (a share, Wilson interval), ``mean`` (normal interval of the mean),
    ``count`` or ``distribution``."""
    min_sample: int = 0
    scope: str | None = None
    """A rule (:data:`SCOPES`) the variant must have for the figure to exist in it."""

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "definition": self.definition,
                "unit": self.unit, "kind": self.kind, "min_sample": self.min_sample,
                "scope": self.scope}


FIGURES: tuple[Figure, ...] = (
    Figure("bonus_share", "Bonus share",
           "Share of plays that scored a bonus, over the plays of the variants whose rules "
           "have a bonus.", "share of plays", "rate", 30, "bonus"),
    Figure("bonus_values", "Bonus values",
           "How many bonus plays scored each value.", "bonus plays", "distribution",
           scope="bonus"),
    Figure("bonus_by_move", "By move number in the round",
           "Share of plays that scored a bonus at each move of a round (draws and passes "
           "count in the numbering).", "share of plays", "rate", scope="bonus"),
    Figure("missed_bonus", "Missed bonus",
           "Share of plays, among those where some legal play scored a bonus, in which the "
           "player's play scored less than the best of them.", "share of plays", "rate",
           scope="bonus"),
    Figure("blocked_share", "Blocked rounds",
           "Share of rounds that ended blocked: nobody could play and nobody could draw.",
           "share of rounds", "rate", 30),
    Figure("domino_share", "Ended by a domino",
           "Share of rounds that a player ended by playing their last tile.",
           "share of rounds", "rate", 30),
    Figure("target_share", "Ended on the target",
           "Share of rounds that ended when a play took a score to the target, which ends "
           "the game at once.", "share of rounds", "rate", 30, "target"),
    Figure("blocked_margin", "Winning margins",
           "Pips between the winning side's hand and the best losing side's at the end of "
           "a blocked round that someone won: 0 for a shared win, below 0 where the rules "
           "give the round to another hand than the lightest (kozel's fish goes to the "
           "last player).", "blocked rounds", "distribution"),
    Figure("block_certain", "Moves before the end",
           "How many moves before the end of the round the block became certain (0: only "
           "the last move made it certain).", "blocked rounds", "distribution"),
    Figure("blocked_enders", "Who ends them",
           "Players who made the last move of a blocked round.", "blocked rounds",
           "count"),
    Figure("round_moves", "Moves per round",
           "Moves (plays, draws and passes) in a round, averaged over rounds.", "moves",
           "mean", 30),
    Figure("game_rounds", "Rounds per game",
           "Rounds in a finished game, averaged over finished games.", "rounds", "mean",
           10),
    Figure("game_moves", "Moves per game",
           "Moves in a finished game, averaged over finished games.", "moves", "mean", 10),
    Figure("first_round_wins", "First player's rounds",
           "Share of rounds won (alone or tied) by the player who made the round's first "
           "play.", "share of rounds", "rate", 30),
    Figure("first_game_wins", "First player's games",
           "Share of finished games won (alone or tied) by the player who made the game's "
           "first play.", "share of games", "rate", 10),
    Figure("seat_wins", "Wins by seat",
           "Share of finished games won (alone or tied) by the player in each seat.",
           "share of games", "rate", 10),
    Figure("seat_points", "Points per round by seat",
           "Points the player in each seat scored in a round (their side's points plus "
           "their own bonus), averaged over rounds.", "points", "mean", 30),
    Figure("turn_round_wins", "Round wins by turn",
           "Share of rounds won (alone or tied) by the player who played first, second, "
           "and so on, in the round.", "share of rounds", "rate", 30),
)
FIGURE_BY_KEY = {f.key: f for f in FIGURES}


@dataclass(frozen=True)
class Scope:
    """A rule a figure needs, and the words that say a variant has it or not."""

    has: Callable[[Ruleset], bool]
    having: str
    lacking: str
    short: str
    """The rule in a few words, as a filter names it (``with a bonus``)."""
    figures: str
    """What is counted only over those variants."""
    has_it: str
    """A variant that has the rule, said of one (``has a bonus rule``)."""


SCOPES: dict[str, Scope] = {
    "bonus": Scope(lambda r: r.bonus, "the variants whose rules have a bonus",
                   "has no bonus rule", "with a bonus", "the bonus figures",
                   "has a bonus rule"),
    "target": Scope(lambda r: r.target_check == "play" and not r.hands,
                    "the variants that check the target after every play",
                    "checks the target only when a round ends",
                    "target checked after every play", "rounds ended on the target",
                    "checks the target after every play"),
}


def in_scope(variant: str, scope: str | None) -> bool:
    """Whether a variant's rules can make a figure of this scope (None: every variant)."""
    if scope is None:
        return True
    rules = stats.ruleset_of_variant(variant)
    return rules is not None and SCOPES[scope].has(rules)


def split_scope(variants: Iterable[str], scope: str | None) -> tuple[list[str], list[str]]:
    """The variants in the scope, and the ones left out, each sorted."""
    inside, outside = [], []
    for v in sorted(set(variants)):
        (inside if in_scope(v, scope) else outside).append(v)
    return inside, outside


def scope_reason(scope: str, left_out: Sequence[str]) -> str:
    """Why a filter leaves no game a figure can be counted over, in a sentence that names
    the variants it leaves (``classic has no bonus rule: ...``)."""
    rule = SCOPES[scope]
    lacking = rule.lacking
    plural = lacking.replace("has ", "have ", 1).replace("checks ", "check ", 1)
    names = [stats.variant_label(v) for v in left_out]
    presets = sorted({v.partition(" ")[0] for v in left_out})
    if not names:
        who = "No game is under these filters"
    elif len(names) == 1:
        who = f"{names[0]} {lacking}"
    elif len(presets) == 1:
        who = f"{presets[0]} {lacking} in any of its {len(names)} variants here"
    elif len(names) <= 3:
        who = f"{', '.join(names[:-1])} and {names[-1]} {plural}"
    else:
        who = f"None of the {len(names)} variants under these filters {rule.has_it}"
    return f"{who}: {rule.figures} are counted over {rule.having}."


# ---------------------------------------------------------------------------------------
# Values with their intervals.


def rate(k: float, n: float, min_sample: int = 0) -> dict[str, Any]:
    """``{"value", "low", "high", "k", "n"}`` of a share k/n with its Wilson interval;
    value and interval null with nothing to divide, or below ``min_sample``."""
    out: dict[str, Any] = {"value": None, "low": None, "high": None, "k": _num(k),
                           "n": _num(n)}
    if n <= 0 or n < min_sample:
        return out
    low, high = wilson(k, n)
    out.update(value=k / n, low=low, high=high)
    return out


def mean(total: float, sq: float, n: float, min_sample: int = 0) -> dict[str, Any]:
    """``{"value", "low", "high", "n", "sd"}`` of a mean from sums, with its normal
    interval; null with no value, or below ``min_sample``."""
    out: dict[str, Any] = {"value": None, "low": None, "high": None, "n": _num(n),
                           "sd": None}
    if n <= 0 or n < min_sample:
        return out
    low, high = mean_interval(total, sq, n)
    var = max(0.0, (sq - total * total / n) / (n - 1)) if n > 1 else 0.0
    out.update(value=total / n, low=low, high=high, sd=math.sqrt(var))
    return out


def metric(key: str, counters: Mapping[str, float]) -> dict[str, Any]:
    """A player metric (:data:`recorder.stats.METRICS`) from pooled counters, as a value
    with ``sd`` for a mean (a difference of means needs it)."""
    m = METRIC_BY_KEY[key]
    n = counters.get(m.n) or 0
    k = counters.get(m.k) or 0
    if m.kind == "rate":
        return rate(k, n, m.min_sample)
    return mean(k, counters.get(m.sq) or 0, n, m.min_sample)


def difference(a: Mapping[str, Any], b: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """``a - b`` with its 95% interval; null unless both have a value.

    Rates: Newcombe's hybrid score interval (his method 10), built from each rate's
    Wilson interval, sound for small samples and rates near 0 or 1. Means: Welch's, the
    normal interval of a difference of two means of unequal variances.
    """
    out: dict[str, Any] = {"value": None, "low": None, "high": None}
    if a.get("value") is None or b.get("value") is None:
        return out
    d = a["value"] - b["value"]
    if kind == "rate":
        low = d - math.sqrt((a["value"] - a["low"]) ** 2 + (b["high"] - b["value"]) ** 2)
        high = d + math.sqrt((a["high"] - a["value"]) ** 2 + (b["value"] - b["low"]) ** 2)
    else:
        se = math.sqrt((a["sd"] or 0) ** 2 / a["n"] + (b["sd"] or 0) ** 2 / b["n"])
        low, high = d - Z95 * se, d + Z95 * se
    out.update(value=d, low=low, high=high)
    return out


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


def fmt(value: float, unit: str, *, signed: bool = False) -> str:
    """A value as the pages write it: a share in percent (``signed``: a difference of
    shares, in percentage points, ``+4.3``), a mean to two, one or no decimals by its
    size."""
    share = unit.startswith("share")
    number = abs(value) * 100 if share else abs(value)
    digits = 1 if share else 0 if number >= 100 else 1 if number >= 10 else 2
    text = f"{number:,.{digits}f}"
    sign = "-" if value < 0 and round(number, digits) else "+" if signed else ""
    return f"{sign}{text}" if signed or not share else f"{sign}{text}%"


def verdict(label: str, unit: str, a_name: str, b_name: str, a: Mapping[str, Any],
            b: Mapping[str, Any], diff: Mapping[str, Any],
            reasons: tuple[str | None, str | None] = (None, None)) -> tuple[bool, str]:
    """Whether the difference is clear at 95%, and a plain sentence that says so."""
    for name, why, side in ((a_name, reasons[0], a), (b_name, reasons[1], b)):
        if why:
            return False, why
        if side.get("value") is None:
            return False, (f"{name}: too small a sample to compare "
                           f"(sample {int(side.get('n') or 0):,}).")
    tail = " percentage points" if unit.startswith("share") else f" {unit}"
    span = (f"{fmt(diff['low'], unit, signed=True)} to "
            f"{fmt(diff['high'], unit, signed=True)}{tail}")
    if diff["low"] <= 0 <= diff["high"]:
        return False, (f"No clear difference: the 95% interval of {a_name} minus {b_name}, "
                       f"{span}, includes zero.")
    more = "higher" if diff["value"] > 0 else "lower"
    size = fmt(abs(diff["value"]), unit, signed=True).lstrip("+")
    return True, f"{a_name} is {more} by {size}{tail} (95% interval {span})."


# ---------------------------------------------------------------------------------------
# The variants' figures.

ROUND_KEYS = ("rounds", "blocked", "domino_rounds", "target_rounds", "moves_sum", "moves_sq",
              "games", "finished", "game_rounds_sum", "game_rounds_sq", "game_moves_sum",
              "game_moves_sq")
"""The round-level counters, as ``stats_rounds`` names them."""
_FROM_PLAYERS = {"rounds": "rounds", "blocked": "blocked_rounds",
                 "target_rounds": "target_rounds", "moves_sum": "round_moves_sum",
                 "moves_sq": "round_moves_sq", "games": "games", "finished": "finished",
                 "game_rounds_sum": "game_rounds_sum", "game_rounds_sq": "game_rounds_sq",
                 "game_moves_sum": "game_moves_sum", "game_moves_sq": "game_moves_sq"}
"""With a player filter, the same from the player's own counters (each of their rounds
and games once)."""
POOLED = ("points_per_round", "draw_rate", "pass_rate", "heavy_first", "double_first",
          "bonus_capture", "bonus_left", "blocking", "pips_left_losing", "thinking_time")
"""Player metrics that describe a variant when pooled: their counters summed over every
player of the variant (points per round is then the points of every player's rounds,
averaged). The win rate and the domino rate are not among them: pooled, they say how many
play, not how the rules play; the first player's and the seats' figures, and how rounds
end, say that."""
DISTRIBUTIONS = ("round_moves", "game_rounds", "game_moves")


def round_counters(reader: Reader) -> dict[str, dict[str, float]]:
    """The round-level counters of every variant under the reader's filter.

    Without a player filter each round and game once (``stats_rounds``); with one, the
    rounds and games of that player, from their own counters.
    """
    out: dict[str, dict[str, float]] = {}
    if reader.flt.player is None:
        for (variant,), vals in reader.sums("stats_rounds", ROUND_KEYS, ("variant",)).items():
            out[variant] = dict(zip(ROUND_KEYS, vals, strict=True))
        return out
    cols = [_FROM_PLAYERS[k] for k in ROUND_KEYS if k in _FROM_PLAYERS]
    for (variant,), vals in reader.sums("stats_players", cols, ("variant",)).items():
        got = dict(zip(cols, vals, strict=True))
        row = {k: got[c] for k, c in _FROM_PLAYERS.items()}
        row["domino_rounds"] = row["rounds"] - row["blocked"] - row["target_rounds"]
        out[variant] = row
    return out


def pooled_counters(reader: Reader) -> dict[str, dict[str, float]]:
    """Every variant's player counters summed over its players (or the filter's one)."""
    cols = storage.METRIC_COUNTERS
    return {variant: dict(zip(cols, vals, strict=True))
            for (variant,), vals in reader.sums("stats_players", cols, ("variant",)).items()}


def seat_counters(reader: Reader) -> dict[str, dict[tuple[int, str, int], dict[str, float]]]:
    """Per variant: (players, kind, position) -> the seat counters.

    Kept over every player (not per player, as the distributions): none under a player
    filter.
    """
    out: dict[str, dict[tuple[int, str, int], dict[str, float]]] = {}
    if reader.flt.player is not None:
        return out
    rows = reader.sums("stats_seats", storage.SEAT_COUNTERS,
                       ("variant", "players", "kind", "position"))
    for (variant, players, kind, position), vals in rows.items():
        out.setdefault(variant, {})[(int(players), str(kind), int(position))] = dict(
            zip(storage.SEAT_COUNTERS, vals, strict=True))
    return out


def _even(variant: str, weights: Mapping[int, float]) -> float | None:
    """The share a player would win if no seat or turn mattered: one in the number of
    sides, averaged over the player counts by how much each weighs."""
    rules = stats.ruleset_of_variant(variant)
    total = sum(weights.values())
    if rules is None or not total:
        return None
    return sum(w / len(rules.sides(n)) for n, w in weights.items()) / total


def _first(seats: Mapping[tuple[int, str, int], Mapping[str, float]], variant: str,
           games: bool) -> dict[str, Any]:
    """The first player's share of rounds (or of finished games) won, with the even share."""
    n_key, k_key = ("finished", "wins") if games else ("rounds", "rounds_won")
    figure = FIGURE_BY_KEY["first_game_wins" if games else "first_round_wins"]
    k = n = 0.0
    weights: dict[int, float] = {}
    for (players, kind, position), c in seats.items():
        if kind != "turn" or position != 0:
            continue
        k += c[k_key]
        n += c[n_key]
        weights[players] = weights.get(players, 0) + c[n_key]
    out = rate(k, n, figure.min_sample)
    out["even"] = _even(variant, weights)
    return out


def seat_table(variant: str, seats: Mapping[tuple[int, str, int], Mapping[str, float]]
               ) -> list[dict[str, Any]]:
    """Each seat's and each turn's results, by number of players."""
    wins_min = FIGURE_BY_KEY["seat_wins"].min_sample
    rounds_min = FIGURE_BY_KEY["turn_round_wins"].min_sample
    points_min = FIGURE_BY_KEY["seat_points"].min_sample
    rows = []
    for (players, kind, position), c in sorted(seats.items()):
        rows.append({
            "players": players, "kind": kind, "position": position,
            "wins": rate(c["wins"], c["finished"], wins_min),
            "round_wins": rate(c["rounds_won"], c["rounds"], rounds_min),
            "points_per_round": mean(c["points_sum"], c["points_sq"], c["rounds"], points_min),
            "even": _even(variant, {players: 1.0}),
        })
    return rows


def variant_figures(reader: Reader) -> dict[str, dict[str, Any]]:
    """Every variant under the reader's filter with its figures, by variant key.

    Each figure is a value with its interval (:func:`rate`, :func:`mean`); one outside
    its scope (a target share where the target is checked only at a round's end) is null
    with its ``reason``.
    """
    rounds = round_counters(reader)
    pooled = pooled_counters(reader)
    seats = seat_counters(reader)
    counts: dict[str, list[int]] = {}
    table = "stats_rounds" if reader.flt.player is None else "stats_players"
    for variant, players in sorted(reader.sums(table, ("games",), ("variant", "players"))):
        counts.setdefault(variant, []).append(int(players))
    out: dict[str, dict[str, Any]] = {}
    for variant in sorted(set(rounds) | set(pooled)):
        r = rounds.get(variant, {k: 0.0 for k in ROUND_KEYS})
        p = pooled.get(variant, {})
        s = seats.get(variant, {})
        fig = FIGURE_BY_KEY
        values: dict[str, Any] = {
            "domino_share": rate(r["domino_rounds"], r["rounds"], fig["domino_share"].min_sample),
            "blocked_share": rate(r["blocked"], r["rounds"], fig["blocked_share"].min_sample),
            "target_share": rate(r["target_rounds"], r["rounds"],
                                 fig["target_share"].min_sample),
            "round_moves": mean(r["moves_sum"], r["moves_sq"], r["rounds"],
                                fig["round_moves"].min_sample),
            "game_rounds": mean(r["game_rounds_sum"], r["game_rounds_sq"], r["finished"],
                                fig["game_rounds"].min_sample),
            "game_moves": mean(r["game_moves_sum"], r["game_moves_sq"], r["finished"],
                               fig["game_moves"].min_sample),
            "first_round_wins": _first(s, variant, games=False),
            "first_game_wins": _first(s, variant, games=True),
            "bonus_share": rate(p.get("bonus_plays", 0), p.get("plays", 0),
                                fig["bonus_share"].min_sample),
        }
        for key in POOLED:
            values[key] = metric(key, p)
        for key in ("target_share", "bonus_share", "bonus_capture", "bonus_left"):
            scope = "target" if key == "target_share" else "bonus"
            if not in_scope(variant, scope):
                values[key] = {**values[key], "value": None, "low": None, "high": None,
                               "reason": f"{stats.variant_label(variant)} "
                                         f"{SCOPES[scope].lacking}."}
        out[variant] = {
            "variant": variant, "label": stats.variant_label(variant),
            "games": _num(r["games"]), "finished": _num(r["finished"]),
            "rounds": _num(r["rounds"]),
            "players": counts.get(variant, []),
            "figures": values,
            "seats": seat_table(variant, s),
        }
    return out


def distributions(reader: Reader, variants: Sequence[str]) -> dict[str, Any] | None:
    """Moves per round, rounds and moves per finished game, as distributions, per variant.

    Kept over every game (not per player: a player's rows per day and bucket would be
    far more rows than their figures): None under a player filter.
    """
    if reader.flt.player is not None:
        return None
    kinds = ", ".join(f"'{k}'" for k in DISTRIBUTIONS)
    rows = reader.sums("stats_hist", ("n",), ("variant", "kind", "bucket"), player="",
                       extra=f"kind IN ({kinds})")
    out: dict[str, Any] = {k: {v: [] for v in variants} for k in DISTRIBUTIONS}
    for (variant, kind, bucket), (n,) in rows.items():
        if variant in variants:
            out[kind][variant].append({"value": int(float(bucket)), "count": _num(n)})
    for kind in DISTRIBUTIONS:
        for variant in variants:
            items = sorted(out[kind][variant], key=lambda x: x["value"])
            total = sum(x["count"] for x in items)
            for x in items:
                x["share"] = x["count"] / total if total else None
            out[kind][variant] = items
    out["round_moves_bucket"] = stats.ROUND_MOVES_BUCKET
    out["game_moves_bucket"] = stats.GAME_MOVES_BUCKET
    return out


COMPARED = ("domino_share", "blocked_share", "target_share", "round_moves", "game_rounds",
            "game_moves", "first_round_wins", "first_game_wins", "points_per_round",
            "bonus_share", "bonus_capture", "bonus_left", "draw_rate", "pass_rate",
            "heavy_first", "double_first", "blocking", "pips_left_losing", "thinking_time")
"""The rows of a comparison, in the order the page shows them."""


def describe(key: str) -> dict[str, Any]:
    """A compared figure's label, definition, unit and kind, wherever it is defined."""
    if key in FIGURE_BY_KEY:
        f = FIGURE_BY_KEY[key]
        return {"key": key, "label": f.label, "definition": f.definition, "unit": f.unit,
                "kind": f.kind}
    m = METRIC_BY_KEY[key]
    return {"key": key, "label": m.label, "definition": m.definition, "unit": m.unit,
            "kind": m.kind}


def compare(reader: Reader, a: str, b: str) -> dict[str, Any]:
    """Two variants' figures side by side, with each difference and a sentence on it.

    The reader's filter applies to both (its ``variant`` is replaced by ``a`` and ``b``).
    """
    both = reader.with_filter(reader.flt.but(variant=None, variants=(a, b)))
    table = variant_figures(both)
    empty = {"variant": "", "label": "", "games": 0, "finished": 0, "rounds": 0,
             "players": [], "figures": {}, "seats": []}
    sides = {k: table.get(k) or {**empty, "variant": k, "label": stats.variant_label(k)}
             for k in (a, b)}
    rows = []
    for key in COMPARED:
        about = describe(key)
        va = sides[a]["figures"].get(key, {"value": None, "n": 0})
        vb = sides[b]["figures"].get(key, {"value": None, "n": 0})
        kind = "rate" if about["kind"] == "rate" else "mean"
        diff = difference(va, vb, kind)
        significant, sentence = verdict(
            about["label"], about["unit"], sides[a]["label"], sides[b]["label"], va, vb, diff,
            (va.get("reason"), vb.get("reason")))
        rows.append({**about, "a": va, "b": vb, "difference": diff,
                     "significant": significant, "sentence": sentence})
    return {"a": sides[a], "b": sides[b], "rows": rows,
            "distributions": distributions(both, [a, b]),
            "seat_min_sample": {
                "wins": FIGURE_BY_KEY["seat_wins"].min_sample,
                "round_wins": FIGURE_BY_KEY["turn_round_wins"].min_sample,
                "points_per_round": FIGURE_BY_KEY["seat_points"].min_sample}}
