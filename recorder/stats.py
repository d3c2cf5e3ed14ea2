"""Statistics: the metrics' definitions, the aggregates kept at import, and their queries.

Every stored game adds to a few tables of additive counters, keyed by the filter
dimensions (variant, frontend, player count, period, and player where a figure is a
player's). Each contribution is written three times, at three grains: ``all`` (no
period), ``month`` and ``day``; a date range is answered from the months it covers
whole plus the days at its edges, so a query sums at most a few hundred rows whatever
the size of the store. Counters are sums (counts, totals, totals of squares), so the
rates, means and intervals of :data:`METRICS` come out of sums of rows.

The counters are written by the import in the same transaction as the game's rows
(:class:`Accumulator`), and :func:`rebuild` re-derives them, with every game's facts,
from the stored logs when their definitions change.
"""

from __future__ import annotations

import calendar
import json
import math
import operator
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import lru_cache
from typing import Any, Final

from sqlite_utils import Database

from recorder import query, storage, tally
from recorder.errors import RecorderError
from recorder.rules import Ruleset

GRAINS = ("all", "month", "day")
MOVE_CAP = storage.MOVE_CAP
MISSED_PER_GAME = 3
"""Missed-bonus moments kept per game as examples (the largest); counts come from counters."""
Z95 = 1.959963984540054


# ---------------------------------------------------------------------------------------
# Metrics.


@dataclass(frozen=True)
class Metric:
    """One player metric: what it is, in plain words, and how it is computed."""

    key: str
    label: str
    definition: str
    unit: str
    min_sample: int
    kind: str
    """``rate`` (successes ``k`` of ``n``; Wilson interval) or ``mean`` (total of ``n``
    values with their sum of squares; normal interval of the mean)."""
    n: str
    k: str
    sq: str = ""
    better: str | None = "higher"
    """Which way is good for the player: ``higher``, ``lower``, or None for a matter of
    style (or of the deal) that is neither. Points per round depend on the rules as well
    (:func:`better_in`)."""

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "definition": self.definition,
                "unit": self.unit, "min_sample": self.min_sample, "kind": self.kind,
                "better": self.better}


METRICS: tuple[Metric, ...] = (
    Metric("win_rate", "Win rate",
           "Share of the player's finished games that the player won (alone or tied).",
           "share of games", 10, "rate", "finished", "wins"),
    Metric("points_per_round", "Points per round",
           "Points the player's side scored in a round plus the bonus the player scored "
           "with their own plays, averaged over the player's rounds.",
           "points", 20, "mean", "rounds", "points_sum", "points_sq"),
    Metric("domino_rate", "Domino rate",
           "Share of the player's rounds that the player ended by playing their last tile.",
           "share of rounds", 20, "rate", "rounds", "dominoes"),
    Metric("draw_rate", "Draw rate",
           "Share of the player's moves that were draws from the boneyard.",
           "share of moves", 30, "rate", "moves", "draws", better=None),
    Metric("pass_rate", "Pass rate",
           "Share of the player's moves that were passes.",
           "share of moves", 30, "rate", "moves", "passes", better=None),
    Metric("heavy_first", "Heavy first",
           "Share of plays, among those where the legal tiles differed in pips, in which "
           "the player played the tile with the most pips.",
           "share of plays", 30, "rate", "heavy_n", "heavy_k", better=None),
    Metric("double_first", "Double first",
           "Share of plays, among those where both a double and a non-double could be "
           "played, in which the player played a double.",
           "share of plays", 30, "rate", "double_n", "double_k", better=None),
    Metric("bonus_capture", "Bonus capture",
           "Share of plays, among those where some legal play scored a bonus, in which the "
           "player's play scored a bonus.",
           "share of plays", 20, "rate", "chance_n", "chance_k"),
    Metric("bonus_left", "Bonus left on the table",
           "Bonus points the best legal play would have scored minus what the player's "
           "play scored, averaged over the plays where some legal play scored a bonus.",
           "points per chance", 20, "mean", "chance_n", "left_sum", "left_sq", "lower"),
    Metric("blocking", "Blocking",
           "Share of plays, among those where the player had more than one legal play and "
           "that did not end the round, after which the next player had no tile that fit.",
           "share of plays", 30, "rate", "block_n", "block_k", better=None),
    Metric("pips_left_losing", "Pips left when losing",
           "Pips in the player's hand at the end of the rounds the player did not win, "
           "averaged over those rounds.",
           "pips", 20, "mean", "losing_n", "losing_sum", "losing_sq", "lower"),
    Metric("thinking_time", "Thinking time",
           "Milliseconds the player took per move, averaged over the moves whose log "
           "gives the time (ms).",
           "ms", 30, "mean", "ms_n", "ms_sum", "ms_sq", better=None),
)
METRIC_BY_KEY = {m.key: m for m in METRICS}


def better_in(metric: Metric, variants: Iterable[str]) -> str | None:
    """Which way is good for ``metric`` over games of these variants.

    Points are good where reaching the target wins and bad where it loses (kozel, whose
    points are penalties): over variants of one kind, points per round is ``higher`` or
    ``lower``; over both kinds mixed, neither.
    """
    if metric.key != "points_per_round":
        return metric.better
    modes = set()
    for v in variants:
        rules = ruleset_of_variant(v)
        modes.add(rules.target_mode if rules is not None else None)
    if modes == {"reach-loses"}:
        return "lower"
    if modes <= {"reach-wins"}:
        return "higher"
    return None


def wilson(k: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a rate k/n (95%): sound near 0 and 1 and for small n."""
    if n <= 0:
        return (0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(total: float, sq: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The normal 95% interval of a mean from n values' sum and sum of squares."""
    mean = total / n
    if n < 2:
        return (mean, mean)
    var = max(0.0, (sq - total * total / n) / (n - 1))
    half = z * math.sqrt(var / n)
    return (mean - half, mean + half)


def metric_value(metric: Metric, counters: Mapping[str, float]) -> dict[str, Any]:
    """``{"value", "n", "low", "high"}`` of one metric; value null below its minimum sample."""
    n = counters.get(metric.n) or 0
    out: dict[str, Any] = {"value": None, "n": int(n), "low": None, "high": None}
    if n < metric.min_sample or n <= 0:
        return out
    k = counters.get(metric.k) or 0
    if metric.kind == "rate":
        low, high = wilson(k, n)
        out["value"] = k / n
    else:
        low, high = mean_interval(k, counters.get(metric.sq) or 0, n)
        out["value"] = k / n
    out["low"], out["high"] = low, high
    return out


# ---------------------------------------------------------------------------------------
# A game's contribution.


@dataclass
class Contribution:
    """What one game adds to the aggregates, before the grains are applied."""

    day: str
    variant: str
    frontend: str
    players: int
    people: list[tuple[str, str | None]]
    player_rows: dict[str, list[float]] = field(default_factory=dict)
    round_row: list[float] = field(
        default_factory=lambda: [0.0] * len(storage.ROUND_COUNTERS))
    hist: dict[tuple[str, str, str], list[float]] = field(default_factory=dict)
    """(player or "" for round-level figures, kind, bucket) -> [n]."""
    seats: dict[tuple[str, int], list[float]] = field(default_factory=dict)
    """(kind, position) -> the seat counters, over every player."""
    missed: list[tuple[int, int, str, float, float]] = field(default_factory=list)
    """(round, move, player, scored, best) of the largest missed bonus chances."""


@lru_cache(maxsize=256)
def _rules(ruleset_json: str) -> Ruleset | None:
    try:
        return Ruleset.from_spec(json.loads(ruleset_json))
    except (RecorderError, ValueError, TypeError):
        return None


def _hist(c: Contribution, player: str, kind: str, bucket: object) -> None:
    key = (player, kind, str(bucket))
    row = c.hist.get(key)
    if row is None:
        c.hist[key] = [1.0]
    else:
        row[0] += 1


_IX: Final = {name: i for i, name in enumerate(storage.PLAYER_COUNTERS)}
"""Each player counter's place in a row, looked up once here: ``contribution`` runs per
move of every imported game, where a name lookup per counter was a fifth of its time."""
_PLAYS_PLACES: Final = tuple(_IX[f"plays_at_{at}"] for at in range(1, MOVE_CAP + 1))
_BONUS_PLACES: Final = tuple(_IX[f"bonus_at_{at}"] for at in range(1, MOVE_CAP + 1))
"""Where a seat's plays (and bonus plays) at move number 1, 2, ... the cap go in a row."""
_GAMES, _FINISHED, _WINS = (_IX[name] for name in ("games", "finished", "wins"))
_MOVE_PLACES: Final = tuple(_IX[name] for name in (
    "moves", "ms_n", "ms_sum", "ms_sq", "draws", "passes", "plays", "heavy_n", "heavy_k",
    "double_n", "double_k", "chance_n", "chance_k", "left_sum", "left_sq", "missed_n",
    "missed_points", "bonus_plays", "bonus_points", "block_n", "block_k"))
"""Where each sum of ``tally.SeatTally`` goes in a player's row, in the order
``tally.add_seat`` reads them."""
_ROUND_PLACES: Final = tuple(_IX[name] for name in (
    "rounds", "round_moves_sum", "round_moves_sq", "points_sum", "points_sq", "rounds_won",
    "losing_n", "losing_sum", "losing_sq", "blocked_rounds", "target_rounds", "dominoes"))
"""The places of the counters a round adds to each player's row."""


def game_day(game: Mapping[str, Any]) -> str:
    """The day a game counts on: its log's start, else when it was imported (a
    ``batch`` shard counted before its commit dates its games again by this, once the
    commit's import time is known)."""
    return str(game.get("started_at") or game.get("imported_at") or "")[:10]


def contribution(game: Mapping[str, Any], facts: Any) -> Contribution | None:
    """What a stored game (its ``games`` row and its facts) adds to every aggregate."""
    if facts is None or not facts.players:
        return None
    day = game_day(game)
    variant = str(game.get("variant") or game.get("preset") or "")
    n = len(facts.players)
    ids = [p.player_id for p in facts.players]
    c = Contribution(day, variant, str(game.get("frontend") or ""), n,
                     [(p.player_id, p.name) for p in facts.players])
    rows = {pid: [0.0] * len(storage.PLAYER_COUNTERS) for pid in ids}
    finished = game.get("status") == "finished"
    for p in facts.players:
        row = rows[p.player_id]
        row[_GAMES] += 1
        if finished:
            row[_FINISHED] += 1
            row[_WINS] += 1 if p.won else 0
    counted = tally.count_moves(facts.moves, n, MOVE_CAP)
    own_bonus = counted.own_bonus
    for row, t in zip((rows[pid] for pid in ids), counted.seats, strict=True):
        tally.add_seat(row, t, _MOVE_PLACES, _PLAYS_PLACES, _BONUS_PLACES)
    misses = [(left, rnd, mv, ids[seat], sc, be)
              for left, rnd, mv, seat, sc, be in counted.misses]
    for seat, score in counted.bonus:
        _hist(c, ids[seat], "bonus", _num(score))
    rules = _rules(str(game.get("ruleset") or "null"))
    sides = rules.sides(n) if rules is not None else [(s,) for s in range(n)]
    _rounds_and_seats(c, facts, ids, rows, own_bonus, finished)
    for r in facts.rounds:
        if not r.blocked:
            continue
        margin = _margin(r, sides)
        certain = "unknown" if r.block_certain is None else r.moves - r.block_certain
        for scope in ("", *ids):
            if margin is not None:
                _hist(c, scope, "margin", margin)
            _hist(c, scope, "ender", ids[r.ended_by])
            _hist(c, scope, "certain", certain)
    c.player_rows = rows
    misses.sort(key=lambda x: (-x[0], x[1], x[2]))
    c.missed = [(rnd, mv, pid, sc, be) for _, rnd, mv, pid, sc, be in misses[:MISSED_PER_GAME]]
    return c


def _num(x: float) -> int | float:
    return int(x) if float(x).is_integer() else x


ROUND_MOVES_BUCKET = 3
GAME_MOVES_BUCKET = 20
"""Moves per round and per game are counted in buckets of this many (``round_moves`` and
``game_moves`` in ``stats_hist``, by the bucket's first value): a row per exact length
would be about a row per round at the day grain, and the import writes every row."""
(_R_GAMES, _R_ROUNDS, _R_BLOCKED, _R_DOMINO, _R_TARGET, _R_MOVES, _R_MOVES_SQ, _R_FINISHED,
 _R_GROUNDS, _R_GROUNDS_SQ, _R_GMOVES, _R_GMOVES_SQ) = range(len(storage.ROUND_COUNTERS))


def ending_of(r: Any) -> str:
    """How a round ended; for facts stored before it was kept, as the migration says."""
    if r.ending:
        return str(r.ending)
    if r.blocked:
        return "blocked"
    return "target" if r.pips_left[r.ended_by] > 0 else "domino"


def _seat(c: Contribution, key: tuple[str, int], finished: float, won: float,
          rounds: float, rounds_won: float, points: float) -> None:
    row = c.seats.get(key)
    if row is None:
        row = c.seats[key] = [0.0] * len(storage.SEAT_COUNTERS)
    row[0] += finished
    row[1] += won
    row[2] += rounds
    row[3] += rounds_won
    row[4] += points
    row[5] += points * points


def _rounds_and_seats(c: Contribution, facts: Any, ids: Sequence[str],
                      rows: dict[str, list[float]], own_bonus: dict[tuple[int, int], float],
                      finished: bool) -> None:
    """The round-level counters, the players' round counters and the seats' rows.

    Turn positions count from the player who played first: each round's opener for the
    round figures, the first round's opener for the game's result.
    """
    ix = _IX
    n = len(ids)
    rr = c.round_row
    rr[_R_GAMES] = 1
    game_moves = len(facts.moves)
    rounds_count = len(facts.rounds)
    if finished:
        rr[_R_FINISHED] = 1
        rr[_R_GROUNDS] = rounds_count
        rr[_R_GROUNDS_SQ] = rounds_count * rounds_count
        rr[_R_GMOVES] = game_moves
        rr[_R_GMOVES_SQ] = game_moves * game_moves
        _hist(c, "", "game_rounds", rounds_count)
        _hist(c, "", "game_moves", game_moves // GAME_MOVES_BUCKET * GAME_MOVES_BUCKET)
        first = facts.rounds[0].opener if facts.rounds else -1
        for p in facts.players:
            won = 1.0 if p.won else 0.0
            row = rows[p.player_id]
            row[ix["game_rounds_sum"]] += rounds_count
            row[ix["game_rounds_sq"]] += rounds_count * rounds_count
            row[ix["game_moves_sum"]] += game_moves
            row[ix["game_moves_sq"]] += game_moves * game_moves
            _seat(c, ("seat", p.seat), 1, won, 0, 0, 0)
            if first >= 0:
                _seat(c, ("turn", (p.seat - first) % n), 1, won, 0, 0, 0)
    for r in facts.rounds:
        ending = ending_of(r)
        rr[_R_ROUNDS] += 1
        rr[_R_MOVES] += r.moves
        rr[_R_MOVES_SQ] += r.moves * r.moves
        if ending == "blocked":
            rr[_R_BLOCKED] += 1
        elif ending == "target":
            rr[_R_TARGET] += 1
        else:
            rr[_R_DOMINO] += 1
        _hist(c, "", "round_moves", r.moves // ROUND_MOVES_BUCKET * ROUND_MOVES_BUCKET)
    # The players' and the seats' round counters, summed by the compiled tally in rounds
    # order from zero; each row's counters here are still zero (ids are unique: the
    # engine refuses a game without), so adding the sums gives the very same floats.
    counted = tally.count_rounds(facts.rounds, n, own_bonus)
    for pid, sums in zip(ids, counted.seats, strict=True):
        row = rows[pid]
        for place, value in zip(_ROUND_PLACES, sums, strict=True):
            row[place] += value
    seats = c.seats
    for key, (rounds, won, points, points_sq) in counted.positions.items():
        srow = seats.get(key)
        if srow is None:
            srow = seats[key] = [0.0] * len(storage.SEAT_COUNTERS)
        srow[2] += rounds
        srow[3] += won
        srow[4] += points
        srow[5] += points_sq


def _margin(r: Any, sides: Sequence[Sequence[int]]) -> int | None:
    """Pips between the winning side and the best losing side at a blocked round's end.

    None when nobody won the round (negative scoring, or a tie under difference); 0 when
    several sides tied for the win.
    """
    if not r.winners:
        return None
    pips = [sum(r.pips_left[s] for s in side) for side in sides]
    won = [i for i, side in enumerate(sides) if side[0] in r.winners]
    lost = [p for i, p in enumerate(pips) if i not in won]
    if len(won) > 1 or not lost:
        return 0
    return int(min(lost) - pips[won[0]])


# ---------------------------------------------------------------------------------------
# Writing: the import's accumulator and the rebuild.


def _grains(day: str) -> tuple[tuple[str, str], ...]:
    return (("all", ""), ("month", day[:7]), ("day", day))


@dataclass
class Accumulator:
    """Contributions of a batch of games, summed by key and written in one go.

    The import adds each game once it is stored (inside the batch's transaction) and
    flushes before the commit, so the counters move with the rows: exactly once.
    """

    players: dict[tuple[Any, ...], list[float]] = field(default_factory=dict)
    rounds: dict[tuple[Any, ...], list[float]] = field(default_factory=dict)
    hist: dict[tuple[Any, ...], list[float]] = field(default_factory=dict)
    seats: dict[tuple[Any, ...], list[float]] = field(default_factory=dict)
    missed: list[tuple[Any, ...]] = field(default_factory=list)
    people: dict[str, tuple[str | None, int]] = field(default_factory=dict)
    grains: Callable[[str], tuple[tuple[str, str], ...]] = field(default=_grains, repr=False)
    """The (grain, period) rows a game's day adds to: all three for the store; the day's
    alone where the other grains are summed from the days afterwards (the warehouse)."""

    removed: bool = False
    """Whether a game's contribution was taken out (:meth:`remove`): rows left at zero
    are then deleted after the flush, so that no list shows a player with no games."""

    def add(self, game_pk: int, c: Contribution | None, *, sign: float = 1.0,
            missed: bool = True) -> None:
        """Add a stored game's contribution (``sign`` -1: take it out; ``missed``: with its
        examples of missed bonus, which a game whose rows are rewritten keeps).

        The writer of an import runs this for every game under the write lock, so the
        rows are merged by C loops (``map``) rather than element by element."""
        if c is None:
            return
        base = (c.variant, c.frontend, c.players)
        round_row: Sequence[float] = c.round_row
        player_rows: Iterable[tuple[str, Sequence[float]]] = c.player_rows.items()
        hist_rows: Iterable[tuple[tuple[str, str, str], Sequence[float]]] = c.hist.items()
        seat_rows: Iterable[tuple[tuple[str, int], Sequence[float]]] = c.seats.items()
        if sign != 1.0:
            round_row = [sign * v for v in round_row]
            player_rows = [(k, [sign * v for v in row]) for k, row in player_rows]
            hist_rows = [(k, [sign * v for v in row]) for k, row in hist_rows]
            seat_rows = [(k, [sign * v for v in row]) for k, row in seat_rows]
        else:
            player_rows, hist_rows, seat_rows = \
                list(player_rows), list(hist_rows), list(seat_rows)
        rounds, players, hist, seats = self.rounds, self.players, self.hist, self.seats
        variant, frontend, count = base
        add = operator.add
        # merge_into written out: a game merges a hundred rows or more at each grain,
        # most of them a histogram's single count, where a call and a map per row were
        # a fifth of the writer's own Python; the same additions, in the same order
        for grain, period in self.grains(c.day):
            key = (grain, period, variant, frontend, count)
            merge_into(rounds, key, round_row)
            for pid, row in player_rows:
                whose = (grain, period, variant, frontend, count, pid)
                have = players.get(whose)
                if have is None:
                    players[whose] = list(row)
                else:
                    have[:] = map(add, have, row)
            for (scope, kind, bucket), row in hist_rows:
                where = (kind, grain, period, scope, variant, frontend, count, bucket)
                have = hist.get(where)
                if have is None:
                    hist[where] = list(row)
                elif len(have) == 1 and len(row) == 1:
                    have[0] += row[0]
                else:
                    have[:] = map(add, have, row)
            for (kind, position), row in seat_rows:
                at = (grain, period, variant, frontend, count, kind, position)
                have = seats.get(at)
                if have is None:
                    seats[at] = list(row)
                else:
                    have[:] = map(add, have, row)
        if sign > 0 and missed:
            for rnd, mv, pid, scored, best in c.missed:
                self.missed.append((game_pk, rnd, mv, pid, c.variant, c.frontend, c.players,
                                    c.day, scored, best))
        for pid, name in c.people:
            # the latest name given: a later game without one keeps it (as the table's
            # upsert does across batches, so the name is the same whatever the batches)
            known, games = self.people.get(pid, (None, 0))
            self.people[pid] = (name if name is not None else known,
                                games + (1 if sign > 0 else -1))

    def remove(self, game_pk: int, c: Contribution | None) -> None:
        """Take a stored game's contribution out again (a game replaced by its
        continuation). Its ``stats_missed`` rows are deleted with its rows, not here."""
        if c is not None:
            self.removed = True
            self.add(game_pk, c, sign=-1.0)

    def flush(self, db: Database) -> None:
        """Add the batch to the tables (inside the caller's transaction) and start over."""
        conn = db.conn
        # each table's rows have distinct keys (the dictionaries'), so many rows may go
        # in one statement: the sums stored are the same as one row at a time
        for upsert, rows in ((_UPSERT_PLAYERS, self.players), (_UPSERT_ROUNDS, self.rounds),
                             (_UPSERT_HIST, self.hist), (_UPSERT_SEATS, self.seats)):
            if rows:
                head, width, tail = upsert
                storage.insert_rows(conn, head, width, list(rows.items()), tail)
        if self.missed:
            conn.executemany(
                "INSERT INTO stats_missed (game, round, move, player, variant, frontend, "
                "players, day, scored, best) VALUES (?,?,?,?,?,?,?,?,?,?)", self.missed)
        if self.people:
            conn.executemany(
                "INSERT INTO stats_people (player, name, games) VALUES (?, ?, ?) "
                "ON CONFLICT(player) DO UPDATE SET name = coalesce(excluded.name, name), "
                "games = games + excluded.games",
                [(pid, name, games) for pid, (name, games) in self.people.items()])
        if self.removed:
            self._drop_emptied(db)
        self.players, self.rounds, self.hist, self.seats = {}, {}, {}, {}
        self.missed, self.people = [], {}
        self.removed = False

    def _drop_emptied(self, db: Database) -> None:
        """Delete the counter rows this batch touched that now count no game (each is a
        key of its table's primary key: a look-up, not a scan). A count is a sum of whole
        numbers, so it is exactly 0 when nothing is left."""
        conn = db.conn
        for table, keys, empty, touched in (
                ("stats_players", (*storage.AGG_KEY, "player"), "[games] <= 0", self.players),
                ("stats_rounds", storage.AGG_KEY, "[games] <= 0", self.rounds),
                ("stats_hist", storage.HIST_KEY, "[n] <= 0", self.hist),
                ("stats_seats", storage.SEAT_KEY, "[finished] <= 0 AND [rounds] <= 0",
                 self.seats)):
            where = " AND ".join(f"[{k}] = ?" for k in keys)
            conn.executemany(f"DELETE FROM {table} WHERE {where} AND {empty}", list(touched))
        conn.executemany("DELETE FROM stats_people WHERE player = ? AND games <= 0",
                         [(pid,) for pid in self.people])


def merge_into(target: dict[tuple[Any, ...], list[float]], key: tuple[Any, ...],
           row: Sequence[float]) -> None:
    """Add ``row`` to ``target[key]`` element by element (a copy of it if the key is new)."""
    have = target.get(key)
    if have is None:
        target[key] = list(row)
    else:
        have[:] = map(operator.add, have, row)


def _upsert(table: str, keys: Sequence[str], counters: Sequence[str]) -> tuple[str, int, str]:
    """The parts of a counter table's upsert for :func:`recorder.storage.insert_rows`:
    ``INSERT INTO table (columns)``, the row's width, and the ``ON CONFLICT`` clause that
    adds each counter to the stored one."""
    cols = [*keys, *counters]
    return (
        f"INSERT INTO {table} (" + ", ".join(f"[{c}]" for c in cols) + ")",
        len(cols),
        " ON CONFLICT(" + ", ".join(keys) + ") DO UPDATE SET "
        + ", ".join(f"[{c}] = [{c}] + excluded.[{c}]" for c in counters),
    )


_UPSERT_PLAYERS = _upsert("stats_players", (*storage.AGG_KEY, "player"),
                          storage.PLAYER_COUNTERS)
_UPSERT_ROUNDS = _upsert("stats_rounds", storage.AGG_KEY, storage.ROUND_COUNTERS)
_UPSERT_HIST = _upsert("stats_hist", storage.HIST_KEY, storage.HIST_COUNTERS)
_UPSERT_SEATS = _upsert("stats_seats", storage.SEAT_KEY, storage.SEAT_COUNTERS)


def rebuild(db: Database, *, from_logs: bool = True, batch: int = 200,
            progress: Callable[[int], None] | None = None) -> int:
    """Make the statistics again for every stored game; returns the number of games.

    With ``from_logs`` (the default) every game's facts are re-derived from its stored
    log first (the ``players``, ``rounds`` and ``moves`` rows, as an import would write
    them now): for when the facts' definitions change or a database predates them.
    Without, the counters are made from the stored facts rows, which is much faster: for
    when only the counters change. The tables are dropped and made again (their shape may
    have changed), in the first transaction; then batches of games, one transaction
    each, so the pages show partial figures while a rebuild runs.
    """
    with storage.write_transaction(db):
        for table in storage.STATS_TABLES:
            db.execute(f"DROP TABLE IF EXISTS [{table}]")
        storage.create_stats_tables(db)
        storage.set_counters_version(db, "rebuilding")
    last = 0
    done = 0
    while True:
        rows = db.execute(
            "SELECT id, started_at, imported_at, frontend, status, ruleset, variant, preset"
            + (", log" if from_logs else "")
            + " FROM games WHERE id > ? ORDER BY id LIMIT ?", [last, batch]).fetchall()
        if not rows:
            break
        last = rows[-1][0]
        acc = Accumulator()
        with storage.write_transaction(db):
            stored = None if from_logs else facts_from_rows(db, rows[0][0], last)
            for row in rows:
                game = dict(zip(("id", "started_at", "imported_at", "frontend", "status",
                                 "ruleset", "variant", "preset"), row[:8], strict=True))
                if from_logs:
                    facts = _refresh_facts(db, game, json.loads(storage.log_text(row[8])))
                else:
                    facts = stored.get(game["id"]) if stored else None
                acc.add(game["id"], contribution(game, facts))
            acc.flush(db)
        done += len(rows)
        if progress is not None:
            progress(len(rows))
    with storage.write_transaction(db):
        storage.set_counters_version(db)
    return done


def stored_contribution(db: Database, game_pk: int) -> Contribution | None:
    """What the stored game ``game_pk`` added to the counters, from its row and its facts
    rows: the very contribution its import made (as ``rebuild(from_logs=False)`` reads
    it), so that taking it out leaves the counters as if it had never been stored."""
    row = db.execute(
        "SELECT id, started_at, imported_at, frontend, status, ruleset, variant, preset "
        "FROM games WHERE id = ?", [game_pk]).fetchone()
    if row is None:
        return None
    game = dict(zip(("id", "started_at", "imported_at", "frontend", "status", "ruleset",
                     "variant", "preset"), row, strict=True))
    return contribution(game, facts_from_rows(db, game_pk, game_pk).get(game_pk))


def _refresh_facts(db: Database, game: dict[str, Any], doc: Any) -> Any:
    """Re-derive one stored game's facts from its log and store them in place of the old."""
    from recorder.analysis import analyse

    _, facts = analyse(doc)
    record = storage.build_record(doc, log="", answer={}, facts=facts, content_hash="")
    storage.replace_facts(db, game["id"], record)
    game["variant"] = record.game["variant"]
    db.execute("UPDATE games SET variant = ? WHERE id = ?", [game["variant"], game["id"]])
    return facts


def facts_from_rows(db: Database, first: int, last: int) -> dict[int, Any]:
    """The stored facts of games ``first``..``last``, as the analysis gave them at import."""
    from recorder.analysis import GameFacts, MoveFact, PlayerFact, RoundFact

    out: dict[int, GameFacts] = {}
    span = [first, last]
    for row in db.execute(
            "SELECT game, seat, player_id, name, final_score, won, rounds_won, dominoes, "
            "bonus_total, plays, draws, passes, bonus_points, bonus_plays FROM players "
            "WHERE game BETWEEN ? AND ? ORDER BY game, seat", span):
        out.setdefault(row[0], GameFacts()).players.append(PlayerFact(
            row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7], row[8], row[9],
            row[10], row[11], row[12] or 0, row[13] or 0))
    for row in db.execute(
            "SELECT game, round, opener, opening_tile, winners, points, bonus, blocked, "
            "pips_left, ended_by, moves_count, draws, passes, boneyard_left, block_certain, "
            "ending FROM rounds WHERE game BETWEEN ? AND ? ORDER BY game, round", span):
        out.setdefault(row[0], GameFacts()).rounds.append(RoundFact(
            row[1], row[2], row[3], json.loads(row[4]), json.loads(row[5]),
            json.loads(row[6]), bool(row[7]), json.loads(row[8]), row[9], row[10], row[11],
            row[12], row[13], row[14], row[15] or ""))
    flag = _maybe_bool
    for row in db.execute(
            "SELECT game, round, move, player, action, tile, side, ms, legal_count, score, "
            "best_score, forced, pips, best_pips, least_pips, double, double_choice, "
            "next_stuck FROM moves WHERE game BETWEEN ? AND ? ORDER BY game, round, move",
            span):
        out.setdefault(row[0], GameFacts()).moves.append(MoveFact(
            row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9],
            row[10], bool(row[11]), row[12], row[13], row[14], flag(row[15]),
            flag(row[16]), flag(row[17])))
    return out


def _maybe_bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


# ---------------------------------------------------------------------------------------
# Reading.


StatsFilter = query.Filter
"""The filters every stats URL takes (:class:`recorder.query.Filter`); dates are whole days."""


def _month_end(day: date) -> date:
    return day.replace(day=calendar.monthrange(day.year, day.month)[1])


def periods(since: str | None, until: str | None) -> list[tuple[str, str, str, int]]:
    """(grain, first period, last period, sign) ranges whose signed sum is since..until.

    No dates: the ``all`` grain. Otherwise the whole months inside the range at the month
    grain; a part of a month at the edges is its days at the day grain, or, when it is
    more than half of the month, the month minus the days outside it (fewer rows to sum,
    and the counters are additive, so the difference is exact).
    """
    if since is None and until is None:
        return [("all", "", "", 1)]
    lo = date.fromisoformat(since) if since else date(1, 1, 1)
    hi = date.fromisoformat(until) if until else date(9999, 12, 31)
    if lo > hi:
        return []
    # the first and last whole months of the range (none past the calendar's ends)
    first = lo if lo.day == 1 else \
        _month_end(lo) + timedelta(days=1) if _month_end(lo) < date.max else None
    last = hi if hi == _month_end(hi) else \
        hi.replace(day=1) - timedelta(days=1) if hi.replace(day=1) > date.min else None
    out: list[tuple[str, str, str, int]] = []
    parts: list[tuple[date, date]] = []
    if first is not None and last is not None and first <= last:
        out.append(("month", first.isoformat()[:7], last.isoformat()[:7], 1))
        if lo < first:
            parts.append((lo, first - timedelta(days=1)))
        if hi > last:
            parts.append((last + timedelta(days=1), hi))
    else:
        end = min(hi, _month_end(lo))
        parts.append((lo, end))
        if end < hi:
            parts.append((end + timedelta(days=1), hi))
    for a, b in parts:
        start, stop = a.replace(day=1), _month_end(a)
        if (b - a).days + 1 > ((stop - start).days + 1) / 2:
            out.append(("month", a.isoformat()[:7], a.isoformat()[:7], 1))
            if start < a:
                out.append(("day", start.isoformat(), (a - timedelta(days=1)).isoformat(), -1))
            if b < stop:
                out.append(("day", (b + timedelta(days=1)).isoformat(), stop.isoformat(), -1))
        else:
            out.append(("day", a.isoformat(), b.isoformat(), 1))
    return out


@dataclass
class Reader:
    """Sums of counter rows under one filter, asked through a :class:`query.Backend`.

    ``db`` is the SQLite store (a ``sqlite_utils.Database``) or any backend, such as the
    warehouse's DuckDB over Parquet (:mod:`recorder.warehouse`): the same questions.
    """

    db: Database | query.Backend
    flt: StatsFilter
    backend: query.Backend = field(init=False)

    def __post_init__(self) -> None:
        self.backend = query.backend_of(self.db)

    def with_filter(self, flt: StatsFilter) -> Reader:
        """A reader of the same database under another filter."""
        return Reader(self.backend, flt)

    def variants(self) -> list[str]:
        rows = self.backend.rows(
            "SELECT DISTINCT variant FROM stats_rounds WHERE grain = 'all'")
        return sorted(r[0] for r in rows)

    def _where(self, *, player: str | None = None) -> tuple[str, list[Any]]:
        """Conditions on the filter dimensions (the period is added per range).

        ``player`` overrides the filter's player: ``""`` selects the rows of round-level
        figures that count every round once (the ``stats_hist`` kinds kept per round).
        """
        flt = self.flt.but(since=None, until=None)
        if player is not None:
            flt = flt.but(player=player)
        return query.where(flt, query.COUNTERS, self.backend.dialect)

    def sums(self, table: str, columns: Sequence[str], group: Sequence[str] = (),
             *, player: str | None = None, extra: str = "", extra_params: Sequence[Any] = (),
             by_month: bool = False) -> dict[tuple[Any, ...], list[float]]:
        """``SUM`` of ``columns`` grouped by ``group`` over every period range.

        ``by_month`` groups by month as well (the first key): month rows by their period,
        day rows by their month. It needs the month and day grains, so without dates the
        whole time line is read at the month grain.
        """
        where, params = self._where(player=player)
        if extra:
            where = f"{where} AND {extra}"
            params = [*params, *extra_params]
        ranges = periods(self.flt.since, self.flt.until)
        if by_month and ranges == [("all", "", "", 1)]:
            ranges = [("month", "", "9999-12", 1)]
        dialect = self.backend.dialect
        q = dialect.quote
        out: dict[tuple[Any, ...], list[float]] = {}
        keys = [*(["substr(period, 1, 7)"] if by_month else []), *(q(g) for g in group)]
        grouped = " GROUP BY " + ", ".join(keys) if keys else ""
        if dialect.ranges_in_one_scan and len(ranges) > 1:
            # one pass over the rows of every range, each row weighed by its range's sign
            span = "grain = ? AND period BETWEEN ? AND ?"
            weight = "CASE " + " ".join(f"WHEN {span} THEN ?" for _ in ranges) + " END"
            spans = [v for grain, lo, hi, _ in ranges for v in (grain, lo, hi)]
            signs = [v for grain, lo, hi, sign in ranges for v in (grain, lo, hi, sign)]
            cols = ", ".join(f"SUM({q(c)} * w)" for c in columns)
            sql = (f"SELECT {', '.join([*keys, cols])} FROM (SELECT *, {weight} AS w "
                   f"FROM {q(table)} WHERE ({' OR '.join(f'({span})' for _ in ranges)}) "
                   f"AND {where}) AS ranged{grouped}")
            queries = [(sql, [*signs, *spans, *params], 1)]
        else:  # a read of the clustered key per range
            cols = ", ".join(f"SUM({q(c)})" for c in columns)
            sql = (f"SELECT {', '.join([*keys, cols])} FROM {q(table)} "
                   f"WHERE grain = ? AND period BETWEEN ? AND ? AND {where}{grouped}")
            queries = [(sql, [grain, lo, hi, *params], sign) for grain, lo, hi, sign in ranges]
        for sql, values, sign in queries:
            for row in self.backend.rows(sql, values):
                key = tuple(row[:len(keys)])
                merge_into(out, key, [sign * (v or 0) for v in row[len(keys):]])
        if len(ranges) > 1:  # what a subtraction left at nothing was not in the range
            out = {k: v for k, v in out.items() if any(abs(x) > 1e-9 for x in v)}
        return out

    def total(self, table: str, columns: Sequence[str], **kw: Any) -> list[float]:
        got = self.sums(table, columns, **kw)
        return got.get((), [0.0] * len(columns))


def _iter_metrics(counters: Mapping[str, float]) -> Iterator[tuple[str, dict[str, Any]]]:
    for metric in METRICS:
        yield metric.key, metric_value(metric, counters)


def player_metrics(reader: Reader) -> dict[str, dict[str, Any]]:
    """Every player's counters and metrics under the reader's filter, by player id."""
    cols = storage.METRIC_COUNTERS
    grouped = reader.sums("stats_players", cols, ("player",))
    out: dict[str, dict[str, Any]] = {}
    for (pid,), vals in grouped.items():
        counters = dict(zip(cols, vals, strict=True))
        out[pid] = {"counters": counters, "metrics": dict(_iter_metrics(counters))}
    return out


def percentile_rank(value: float, population: Sequence[float]) -> float | None:
    """Share of the population below ``value`` (ties count half), in percent."""
    if not population:
        return None
    below = sum(1 for v in population if v < value)
    equal = sum(1 for v in population if v == value)
    return 100.0 * (below + 0.5 * equal) / len(population)


def quantile(values: Sequence[float], q: float) -> float | None:
    """The q-quantile by linear interpolation between order statistics."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def counters_version(db: Database | query.Backend) -> str:
    """The definitions the counters a backend holds follow (:func:`storage.counters_version`
    for the SQLite store; the warehouse keeps the same ``stats_meta`` table)."""
    backend = query.backend_of(db)
    if isinstance(backend, query.SQLiteBackend):
        return storage.counters_version(backend.db)
    row = query.first_row(backend, "SELECT value FROM stats_meta WHERE key = 'counters'")
    return "1" if row is None else str(row[0])


def names(db: Database | query.Backend, ids: Iterable[str]) -> dict[str, str | None]:
    """Each player's latest name, from the small table the import keeps."""
    backend = query.backend_of(db)
    wanted = list(ids)
    out: dict[str, str | None] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        sql, params = backend.dialect.one_of("player", chunk)
        rows = backend.rows(f"SELECT player, name FROM stats_people WHERE {sql}", params)
        out.update({r[0]: r[1] for r in rows})
    return out


def variant_label(key: str) -> str:
    """``classic draw=one`` -> ``classic (draw: one)``."""
    preset, _, rest = key.partition(" ")
    if not rest:
        return preset
    return f"{preset} (" + ", ".join(p.replace("=", ": ", 1) for p in rest.split(" ")) + ")"


@lru_cache(maxsize=1024)
def ruleset_of_variant(key: str) -> Ruleset | None:
    """The rules a variant key names (its preset with its options), or None when this
    version cannot read them (a preset or an option it no longer knows)."""
    preset, _, rest = key.partition(" ")
    options: dict[str, Any] = {}
    for part in rest.split(" ") if rest else []:
        name, _, text = part.partition("=")
        try:
            options[name] = json.loads(text)
        except ValueError:
            options[name] = text
    try:
        return Ruleset.from_spec({"preset": preset, "options": options})
    except (RecorderError, ValueError, TypeError):
        return None


def rules_of_variant(key: str) -> tuple[str, str]:
    """(preset, draw policy) of a variant key, as the rules give them."""
    rules = ruleset_of_variant(key)
    return key.partition(" ")[0], rules.draw if rules is not None else "?"
