"""``recorder review``: every decision of the games in some files, judged (docs/review.md).

The main process reads the inputs in order, replays each game once (its verdict, where
its rounds and decisions fall: :func:`recorder.review.plan_review`) and hands its
decisions to the workers, one decision a job: a decision's value depends on nothing but
the log and the settings (:func:`recorder.review.decision_work`), so the decisions of
one round are valued side by side, and the output is the same whatever the number of
workers. Each round is joined as :func:`recorder.review.finish_round` joins it, and each
game printed, whole, as soon as its last decision is back, in input order.
"""

from __future__ import annotations

import json
import logging
import sys
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import click

from recorder.errors import InputError, RecorderError, internal_error
from recorder.review import (
    Plan,
    Settings,
    assemble,
    decision_work,
    finish_round,
    plan_review,
    refused,
    report_text,
)

log = logging.getLogger(__name__)
EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE, EXIT_FAILED = 0, 1, 2, 3


@dataclass(slots=True)
class _Game:
    """A game read and planned, waiting for its rounds' reviews."""

    where: str
    doc: Any
    plan: Plan
    #: per round, its decisions' work as it comes back (:func:`decision_work`)
    works: list[list[tuple[dict[str, Any], int]]]
    review: dict[str, Any] | None = None  # set for a game with no decision to value
    failed: bool = False

    def finish(self, settings: Settings) -> None:
        """The review, from every decision's work (unless a failure has set it)."""
        if self.review is None:
            rounds = [finish_round(r, works, settings)
                      for r, works in enumerate(self.works, 1)]
            self.review = assemble(self.doc, settings, self.plan, rounds)


_settings = Settings()


def _start(settings: Settings) -> None:
    global _settings
    _settings = settings


def _decision_job(chunk: list[tuple[Any, int, int, int]]) -> list[tuple[str, Any]]:
    """A worker's job: a few decisions valued (``("ok", (decision, positions))`` or
    ``("failed", message)`` when the recorder itself failed on one)."""
    out: list[tuple[str, Any]] = []
    for doc, round_no, move_no, index in chunk:
        try:
            out.append(("ok", decision_work(doc, round_no, move_no, _settings, index=index)))
        except Exception as exc:  # a bug: that game is reported, the others go on
            log.exception("reviewing move %d of round %d failed", move_no, round_no)
            out.append(("failed", internal_error(exc, "review").to_dict()))
    return out


def _games(paths: tuple[str, ...], settings: Settings,
           unreadable: list[str]) -> Iterator[_Game]:
    """Every document of every input, planned (its rounds still to review)."""
    from recorder.parse import iter_path

    for path in paths:
        try:
            for item in iter_path(path):
                where = path if item.line is None else f"{path}:{item.line}"
                if item.error is not None:
                    yield _Game(where, item.doc, Plan("invalid", 0, []), [],
                                review=refused(item.doc, settings, item.error.to_dict()))
                    continue
                try:
                    plan = plan_review(item.doc)
                except Exception as exc:  # a bug of the replay: this game fails alone
                    log.exception("planning the review of %s failed", where)
                    error = internal_error(exc, "review").to_dict()
                    yield _Game(where, item.doc, Plan("invalid", 0, [], error), [],
                                review=refused(item.doc, settings, error), failed=True)
                    continue
                review = refused(item.doc, settings, plan.error) \
                    if plan.error is not None else None
                game = _Game(where, item.doc, plan, [[] for _ in plan.before], review=review)
                if review is None and not any(plan.moves):
                    game.finish(settings)  # no decision to value: its rounds are empty
                yield game
        except InputError as exc:
            click.echo(f"recorder: cannot read {path}: {exc.message}", err=True)
            unreadable.append(path)
        except OSError as exc:
            click.echo(f"recorder: cannot read {path}: {exc.strerror or exc}", err=True)
            unreadable.append(path)


def reviews(paths: tuple[str, ...], settings: Settings, workers: int,
            unreadable: list[str]) -> Iterator[_Game]:
    """Every game of ``paths`` reviewed, in input order (``review`` set)."""
    from recorder.pool import ordered_map

    #: for each job handed out, in order: its game, its round (0: none), and whether it
    #: is the game's last
    tags: deque[tuple[_Game, int, bool]] = deque()

    def jobs() -> Iterator[list[tuple[Any, int, int, int]]]:
        for game in _games(paths, settings, unreadable):
            if game.review is not None:
                tags.append((game, 0, True))
                yield []  # nothing to review; the game still takes its turn in the output
                continue
            points = game.plan.points()
            for n, (r, move_no, index) in enumerate(points, 1):
                tags.append((game, r, n == len(points)))
                yield [(game.doc, r, move_no, index)]

    results = ordered_map(_decision_job, jobs(), workers, initializer=_start,
                          initargs=(settings,))
    try:
        for chunk in results:
            game, round_no, last = tags.popleft()
            for status, value in chunk:
                if status == "ok":
                    game.works[round_no - 1].append(value)
                elif not game.failed:
                    game.failed = True
                    game.review = refused(game.doc, settings, value)
            if last:
                game.finish(settings)
                yield game
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()


def review_round_by(doc: Any, plan: Plan, round_no: int, settings: Settings,
                    workers: int) -> dict[str, Any]:
    """Round ``round_no`` of a planned log, its decisions valued by ``workers``
    processes as ``recorder review`` values them: the same object as
    :func:`recorder.review.review_round` (for the review benchmark's wall clock)."""
    from recorder.pool import ordered_map

    jobs = ([(doc, r, move_no, index)] for r, move_no, index in plan.points([round_no]))
    works = []
    for chunk in ordered_map(_decision_job, jobs, workers, initializer=_start,
                             initargs=(settings,)):
        for status, value in chunk:
            if status != "ok":
                raise RuntimeError(f"reviewing round {round_no} failed: {value}")
            works.append(value)
    return finish_round(round_no, works, settings)


def ids_of(doc: Any) -> list[str]:
    """The players' ids of a log, as its report names them."""
    players = doc.get("players") if isinstance(doc, dict) else None
    out = []
    for i, p in enumerate(players if isinstance(players, list) else []):
        pid = p.get("id") if isinstance(p, dict) else None
        out.append(pid if isinstance(pid, str) else f"seat {i}")
    return out


def run(paths: tuple[str, ...], settings: Settings, workers: int, as_json: bool,
        progress: bool) -> int:
    """Review and print every game of ``paths``; the exit code."""
    from tqdm import tqdm

    unreadable: list[str] = []
    invalid = failed = False
    bar = tqdm(desc="review", unit=" games", file=sys.stderr, mininterval=0.5,
               dynamic_ncols=True, disable=None if progress else True)
    try:
        for game in reviews(paths, settings, workers, unreadable):
            review = game.review
            assert review is not None
            invalid |= review["status"] == "invalid"
            failed |= game.failed
            if as_json:
                text = json.dumps(review, ensure_ascii=False)
            else:
                text = report_text(review, ids_of(game.doc), game.where)
            bar.clear()
            click.echo(text)
            bar.update(1)
    finally:
        bar.close()
    if failed:
        return EXIT_FAILED
    if unreadable:
        return EXIT_UNREADABLE
    return EXIT_INVALID if invalid else EXIT_OK


__all__ = ["RecorderError", "ids_of", "review_round_by", "reviews", "run"]
