"""Stored game reviews: each round's review kept compressed in the database, per settings.

A thin layer around :mod:`recorder.review`: a round's review depends on nothing but the
log up to it and the settings, so it is computed once (by ``recorder review --db``, or by
the service when the replay asks for it), stored as its own row of ``round_reviews``
(zlib of its compact JSON) and the game's review is assembled from the stored rounds
whenever it is read. A row records the settings it was made with
(:func:`settings_key`) and ``review.VERSION``: a game reviewed with other settings, or by
another version of the review, needs reviewing again, and only the rows of the current
version are ever read.

Storing round by round makes every path resumable: a game whose first rounds were
reviewed before an interruption (or before a request's time budget ran out) continues at
its first missing round. Writers take the write lock per round or per game, never while
a round is being searched.
"""

from __future__ import annotations

import json
import re
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlite_utils import Database

from recorder import jsontext, storage
from recorder.errors import RecorderError
from recorder.review import VERSION, Plan, Settings, assemble, plan_review, refused, review_round
from recorder.rules import Ruleset

ZLIB_LEVEL: Final = 6
"""Compression of a stored round: its JSON is mostly repeated keys, about a tenth remains."""
NO_ROUNDS: Final = 0
"""The round number of the row that records a game with no round to review (its review
is then complete with none), so it is not taken up again on every run."""


def settings_key(settings: Settings) -> str:
    """The text that names a review's settings in ``round_reviews.settings``.

    Everything that could change a review's values is in it: the view, the samples and
    their seed (the player view only: the perfect view draws none), and the limits.
    """
    if settings.view == "perfect":
        head = "perfect"
    else:
        head = f"player samples={settings.samples} seed={settings.seed}"
    return f"{head} {_limits(settings)}"


def _limits(settings: Settings) -> str:
    return (f"positions={settings.positions} round_positions={settings.round_positions}"
            f" decisions={settings.max_decisions}")


_CURRENT_HEAD: Final = re.compile(r"perfect|player samples=[1-9][0-9]* seed=.*", re.DOTALL)


def is_current(key: str) -> bool:
    """Whether a stored settings string is one the commands and the service review with now:
    either view, any samples and seed, and this version's default limits.

    No option sets the limits, so a string with others was made before they changed (the
    version need not have changed with them): such a review is never read again, and
    :func:`store_rounds` removes it once its game is reviewed with current settings.
    """
    tail = " " + _limits(Settings())
    return key.endswith(tail) and _CURRENT_HEAD.fullmatch(key[:-len(tail)]) is not None


def pack(obj: dict[str, Any]) -> bytes:
    """A round's review as stored: zlib of its compact JSON."""
    return zlib.compress(jsontext.dumps_bytes(obj), ZLIB_LEVEL)


def unpack(body: bytes) -> dict[str, Any]:
    """A stored round's review object."""
    out: dict[str, Any] = json.loads(zlib.decompress(body))
    return out


@dataclass(slots=True)
class Stored:
    """What the database holds of one game's review under one set of settings."""

    #: rounds of the game's review (None: no row stored yet, so not known without its log)
    total: int | None
    #: the stored rounds' objects, by round number
    rounds: dict[int, dict[str, Any]] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return self.total is not None and all(r in self.rounds for r in range(1, self.total + 1))


def load(db: Database, game_pk: int, settings: Settings) -> Stored:
    """The stored rounds of this game's review with these settings, of this version."""
    rows = db.execute(
        "SELECT round, rounds, body FROM round_reviews WHERE game = ? AND settings = ? "
        "AND version = ? ORDER BY round", [game_pk, settings_key(settings), VERSION]).fetchall()
    if not rows:
        return Stored(None)
    out = Stored(int(rows[0][1]))
    for round_no, _, body in rows:
        if round_no != NO_ROUNDS:
            out.rounds[int(round_no)] = unpack(body)
    return out


def store_rounds(db: Database, game_pk: int, settings: Settings, total: int,
                 rounds: Sequence[tuple[int, int, bytes]]) -> None:
    """Store reviewed rounds ``(round, decisions, packed body)`` of a game, in one transaction.

    The game's old reviews are deleted first (:func:`stale_settings`): made by another
    version, or with settings no longer used, they are never read again, so a store
    reviewed again after the review changed holds the new reviews in place of the old,
    not beside them. ``total`` is the number of rounds of the game's review (0: a game
    without any, recorded by one row of round :data:`NO_ROUNDS`).
    """
    key = settings_key(settings)
    now = storage.utc_now()
    rows = list(rounds) if total else [(NO_ROUNDS, 0, pack({"round": 0, "decisions": []}))]
    players = db.execute("SELECT player_count FROM games WHERE id = ?", [game_pk]).fetchone()
    seats = [(game_pk, key, *row)
             for r, _, body in rows if r != NO_ROUNDS
             for row in seat_sums(unpack(body), int(players[0] or 0) if players else 0)]
    with storage.write_transaction(db):
        old = stale_settings(db, game_pk, key)
        for table in ("round_reviews", "review_seats"):
            db.conn.executemany(f"DELETE FROM {table} WHERE game = ? AND settings = ? "
                                "AND (version != ? OR ?)",
                                [(game_pk, k, VERSION, every) for k, every in old])
        db.conn.executemany(
            "INSERT OR REPLACE INTO review_seats (game, settings, round, seat, version, "
            "decisions, loss_sum, loss_sq, best, marked, range_sum) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", seats)
        db.conn.executemany(
            "INSERT INTO round_reviews (game, settings, round, version, rounds, decisions, "
            "reviewed_at, body) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (game, settings, round) DO UPDATE SET version = excluded.version, "
            "rounds = excluded.rounds, decisions = excluded.decisions, "
            "reviewed_at = excluded.reviewed_at, body = excluded.body",
            [(game_pk, key, r, VERSION, total, n, now, body) for r, n, body in rows])


def stale_settings(db: Database, game_pk: int, key: str) -> list[tuple[str, bool]]:
    """The game's stored reviews that storing one with settings ``key`` replaces, as
    ``(settings, every version)``: of each settings string, the rows of another version;
    of a string no longer current (:func:`is_current`) but ``key``, every row. A review
    with other current settings (the other view, other samples) stays."""
    rows = db.execute("SELECT settings, max(version != ?) FROM round_reviews WHERE game = ? "
                      "GROUP BY settings", [VERSION, game_pk]).fetchall()
    out = []
    for settings, other_version in rows:
        every = settings != key and not is_current(settings)
        if every or other_version:
            out.append((str(settings), every))
    return out


MARKED: Final = ("inaccuracy", "mistake", "blunder")
"""The classes the replay marks and the statistics count as mistakes."""


def seat_sums(round_obj: dict[str, Any], players: int) -> list[tuple[Any, ...]]:
    """Each seat's row of ``review_seats`` for one reviewed round: ``(seat, version,
    decisions, loss_sum, loss_sq, best, marked, range_sum)`` over its valued decisions
    (``range_sum``: the best choice's value less the worst's, how much each could matter)
    (every seat gets a row, so a round without a decision counts as a round)."""
    sums = {seat: [0, 0.0, 0.0, 0, 0, 0.0] for seat in range(players)}
    for d in round_obj["decisions"]:
        if d["class"] is None or d["player"] not in sums:
            continue
        row = sums[d["player"]]
        values = [c["value"] for c in d["choices"]]
        row[0] += 1
        row[1] += d["loss"]
        row[2] += d["loss"] * d["loss"]
        row[3] += d["class"] == "best"
        row[4] += d["class"] in MARKED
        row[5] += max(values) - min(values)
    return [(round_obj["round"], seat, VERSION, *row) for seat, row in sums.items()]


def needing_review(db: Database, settings: Settings) -> list[int]:
    """The stored games whose review with these settings is missing, partial or made by
    another version, in id order."""
    rows = db.execute(
        "SELECT g.id FROM games g LEFT JOIN ("
        "  SELECT game, count(*) AS n, max(rounds) AS total FROM round_reviews "
        "  WHERE settings = ? AND version = ? GROUP BY game) r ON r.game = g.id "
        "WHERE r.game IS NULL OR (r.total > 0 AND r.n < r.total) ORDER BY g.id",
        [settings_key(settings), VERSION]).fetchall()
    return [int(r[0]) for r in rows]


def stored_plan(db: Database, game_pk: int) -> Plan | None:
    """What :func:`recorder.review.assemble` needs of a stored game, from its row (no
    replay): its status and its number of players."""
    row = db.execute("SELECT status, player_count FROM games WHERE id = ?",
                     [game_pk]).fetchone()
    if row is None:
        return None
    return Plan(str(row[0]), int(row[1] or 0), [])


def assembled(db: Database, game_pk: int, settings: Settings, stored: Stored,
              doc: Any = None) -> dict[str, Any]:
    """The game's review object from its stored rounds (complete or not, in order)."""
    plan = stored_plan(db, game_pk)
    assert plan is not None
    if doc is None:
        doc = {"game_id": _game_id(db, game_pk)}
    return assemble(doc, settings, plan, [stored.rounds[r] for r in sorted(stored.rounds)])


def _game_id(db: Database, game_pk: int) -> str | None:
    row = db.execute("SELECT game_id FROM games WHERE id = ?", [game_pk]).fetchone()
    return None if row is None or row[0] is None else str(row[0])


def sides_of(db: Database, game_pk: int) -> list[list[int]]:
    """Who scores together in a stored game (each seat alone when its rules no longer read)."""
    row = db.execute("SELECT ruleset, player_count FROM games WHERE id = ?",
                     [game_pk]).fetchone()
    players = int(row[1] or 0) if row else 0
    try:
        return Ruleset.from_spec(json.loads(row[0])).sides(players)
    except (RecorderError, TypeError, ValueError):  # pragma: no cover - stored games read
        return [[p] for p in range(players)]


def evaluation(review: dict[str, Any], sides: Sequence[Sequence[int]]) -> list[dict[str, Any]]:
    """Each seat's expected round margin after each valued decision, per round: the graph
    of the replay page.

    A decision's played value is the mover's side's expected margin at the end of the
    round after that move. With two sides the other side's is its negation, so each seat
    has a point at every decision; with three or four the values are each side against
    the mean of the others, and a seat has points at its own decisions only. ``lines``
    names one seat per side: the curves to draw when no seat is in view.
    """
    side_of = {seat: i for i, side in enumerate(sides) for seat in side}
    seats = sorted(side_of)
    two = len(sides) == 2
    out = []
    for r in review.get("rounds") or []:
        points: list[list[dict[str, Any]]] = [[] for _ in seats]
        for d in r["decisions"]:
            if d.get("class") is None:
                continue
            value = d["choices"][d["played"]]["value"]
            mover = side_of.get(d["player"])
            for seat in seats:
                same = side_of[seat] == mover
                if same or two:
                    points[seat].append({"move": d["move"], "value": value if same else -value,
                                         "class": d["class"], "player": d["player"]})
        out.append({"round": r["round"], "seats": points,
                    "lines": [side[0] for side in sides]})
    return out


# ---------------------------------------------------------------------- the work itself
@dataclass(slots=True)
class Planned:
    """A stored game's log read and planned: what reviewing its missing rounds needs."""

    doc: Any
    plan: Plan

    @property
    def total(self) -> int:
        return len(self.plan.before)

    def missing(self, have: Iterable[int]) -> list[int]:
        done = set(have)
        return [r for r in range(1, self.total + 1) if r not in done]

    def review(self, round_no: int, settings: Settings) -> tuple[int, int, bytes]:
        """Review one round: ``(round, decisions, packed body)``, ready to store."""
        obj = review_round(self.doc, round_no, settings, skip=self.plan.before[round_no - 1])
        return round_no, len(obj["decisions"]), pack(obj)


def plan_log(log_text: str) -> Planned:
    """Read and plan a stored log (one replay of it)."""
    doc = json.loads(log_text)
    return Planned(doc, plan_review(doc))


def review_log(log_text: str, settings: Settings,
               have: Iterable[int] = ()) -> tuple[int, list[tuple[int, int, bytes]],
                                                  dict[str, Any] | None]:
    """Review the rounds of a stored log not in ``have``: ``(total, rows, error)``.

    ``error`` is the engine's refusal of a log it no longer accepts (then nothing is
    reviewed). Pure work: the caller stores the rows (a worker process returns them).
    """
    planned = plan_log(log_text)
    if planned.plan.error is not None:
        return 0, [], planned.plan.error
    return planned.total, [planned.review(r, settings) for r in planned.missing(have)], None


def refused_review(db: Database, game_pk: int, settings: Settings,
                   error: dict[str, Any]) -> dict[str, Any]:
    """The review of a stored log the engine now refuses: nothing but why."""
    return refused({"game_id": _game_id(db, game_pk)}, settings, error)


def log_of(db: Database, game_pk: int) -> str | None:
    """The stored log's text (kept compressed since ``m013_compressed_logs``)."""
    row = db.execute("SELECT log FROM games WHERE id = ?", [game_pk]).fetchone()
    return None if row is None else storage.log_text(row[0])


# ---------------------------------------------------------------------- a whole database
@dataclass(slots=True)
class Tally:
    """What ``recorder review --db`` did."""

    reviewed: int = 0
    rounds: int = 0
    refused: list[tuple[int, str]] = field(default_factory=list)


def _review_chunk(chunk: list[tuple[int, str, tuple[int, ...], Settings]]) -> list[Any]:
    """The work of one worker: each game's missing rounds (module level: pickled by name)."""
    out = []
    for game_pk, log_text, have, settings in chunk:
        total, rows, error = review_log(log_text, settings, have)
        out.append((game_pk, total, rows, error))
    return out


def review_database(db: Database, settings: Settings, *, workers: int = 0,
                    progress: Any = None) -> Iterator[Tally]:
    """Review every stored game that needs it; yields the tally after each game.

    Each game is committed on its own as soon as it is reviewed, so an interrupted run
    keeps what it finished and the next run starts at the first game left (and, within
    a game the service began, at its first missing round). ``workers`` processes search
    (0: this one); the database is written here only.
    """
    from recorder.pool import ordered_map

    todo = needing_review(db, settings)
    if progress is not None:
        progress(len(todo))
    tally = Tally()

    def items() -> Iterator[list[tuple[int, str, tuple[int, ...], Settings]]]:
        for game_pk in todo:
            text = log_of(db, game_pk)
            if text is None:  # pragma: no cover - removed while the run went on
                continue
            have = tuple(load(db, game_pk, settings).rounds)
            yield [(game_pk, text, have, settings)]

    results = ordered_map(_review_chunk, items(), workers)
    try:
        for chunk in results:
            for game_pk, total, rows, error in chunk:
                if error is not None:
                    tally.refused.append((game_pk, str(error.get("message", error))))
                else:
                    store_rounds(db, game_pk, settings, total, rows)
                    tally.reviewed += 1
                    tally.rounds += len(rows)
                yield tally
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()


def count_stored(db: Database) -> int:
    """Rows of ``round_reviews`` (for tests and the operator)."""
    try:
        return int(db.execute("SELECT count(*) FROM round_reviews").fetchone()[0])
    except sqlite3.OperationalError:  # pragma: no cover - a file not migrated yet
        return 0


__all__ = ["Planned", "Stored", "Tally", "assembled", "evaluation", "is_current", "load",
           "needing_review",
           "pack", "plan_log", "refused_review", "review_database", "review_log", "settings_key",
           "sides_of", "stale_settings", "store_rounds", "unpack"]
