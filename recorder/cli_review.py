"""``recorder review``: every decision of the games in some files, judged (docs/review.md).

The main process reads the inputs in order, replays each game once (its verdict, where
its rounds and decisions fall: :func:`recorder.review.plan_review`) and hands its rounds
to the workers, one round a job: a round's review depends on nothing but the log and
the settings, so rounds of one long game are reviewed side by side, and the output is
the same whatever the number of workers. Each game is printed, whole, as soon as its
last round is back, in input order.
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
    plan_review,
    refused,
    report_text,
    review_round,
)

log = logging.getLogger(__name__)
EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE, EXIT_FAILED = 0, 1, 2, 3


@dataclass(slots=True)
class _Game:
    """A game read and planned, waiting for its rounds' reviews."""

    where: str
    doc: Any
    plan: Plan
    rounds: list[dict[str, Any]]
    review: dict[str, Any] | None = None  # set for a game with no round to review
    failed: bool = False


_settings = Settings()


def _start(settings: Settings) -> None:
    global _settings
    _settings = settings


def _round_job(chunk: list[tuple[Any, int, int]]) -> list[tuple[str, Any]]:
    """A worker's job: the reviews of a few rounds (``("ok", round)`` or
    ``("failed", message)`` when the recorder itself failed on one)."""
    out: list[tuple[str, Any]] = []
    for doc, round_no, skip in chunk:
        try:
            out.append(("ok", review_round(doc, round_no, _settings, skip=skip)))
        except Exception as exc:  # a bug: that game is reported, the others go on
            log.exception("reviewing round %d failed", round_no)
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
                if review is None and not plan.before:
                    review = assemble(item.doc, settings, plan, [])
                yield _Game(where, item.doc, plan, [], review=review)
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

    #: for each job handed out, in order: its game, and whether it is the game's last
    tags: deque[tuple[_Game, bool]] = deque()

    def jobs() -> Iterator[list[tuple[Any, int, int]]]:
        for game in _games(paths, settings, unreadable):
            if game.review is not None:
                tags.append((game, True))
                yield []  # nothing to review; the game still takes its turn in the output
                continue
            total = len(game.plan.before)
            for r in range(1, total + 1):
                tags.append((game, r == total))
                yield [(game.doc, r, game.plan.before[r - 1])]

    results = ordered_map(_round_job, jobs(), workers, initializer=_start,
                          initargs=(settings,))
    try:
        for chunk in results:
            game, last = tags.popleft()
            for status, value in chunk:
                if status == "ok":
                    game.rounds.append(value)
                elif not game.failed:
                    game.failed = True
                    game.review = refused(game.doc, settings, value)
            if last:
                if game.review is None:
                    game.review = assemble(game.doc, settings, game.plan, game.rounds)
                yield game
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()


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


__all__ = ["RecorderError", "ids_of", "reviews", "run"]
