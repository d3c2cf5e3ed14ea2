"""``recorder review --db PATH``: review the stored games that need it, resumably.

Called by ``recorder review`` when it is given ``--db``. A game needs a review when none
is stored with the settings asked for, or only part of one (an interrupted run, or the
service's review of it still going on), or one made by another version of the review
(``recorder.review.VERSION``). Each game is committed on its own, so an interrupted run
keeps what it finished and the next run goes on from there.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from tqdm import tqdm

from recorder import reviews, storage
from recorder.cli_service import open_db, resolve_workers, worker_failure
from recorder.review import Settings


def review_db(db_path: str | None, files: tuple[str, ...], settings: Settings,
              workers: int | None, *, as_json: bool = False, progress: bool = True) -> int:
    """Review the stored games of ``db_path`` that need it; returns the exit code."""
    if db_path is None:
        raise click.UsageError("give the FILES to review, or --db PATH")
    if files:
        raise click.UsageError("give FILES or --db PATH, not both")
    if as_json:
        raise click.UsageError("--json prints the reviews of FILES; --db stores them "
                               "(GET /api/games/<id>/review reads them)")
    started = time.monotonic()
    with open_db(Path(db_path)) as db, worker_failure():
        bar = tqdm(desc="review", unit=" games", file=sys.stderr, mininterval=0.5,
                   dynamic_ncols=True, disable=not progress)

        def total(n: int) -> None:
            bar.total = n
            bar.refresh()

        tally = reviews.Tally()
        seen = 0
        with bar:
            for tally in reviews.review_database(db, settings, workers=resolve_workers(workers),
                                                 progress=total):
                done = tally.reviewed + len(tally.refused)
                bar.update(done - seen)
                seen = done
                bar.set_postfix(rounds=tally.rounds, refresh=False)
        for game_pk, why in tally.refused:
            click.echo(f"recorder: game #{game_pk} was not reviewed: {why}", err=True)
        elapsed = time.monotonic() - started
        click.echo(f"{tally.reviewed} games reviewed ({tally.rounds} rounds) in {elapsed:.1f}s, "
                   f"{reviews.settings_key(settings)} -> {storage.resolve_db_path(Path(db_path))}")
    return 1 if tally.refused else 0
