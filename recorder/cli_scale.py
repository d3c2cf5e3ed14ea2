"""The archive's commands: ``batch facts|replay|review`` (on Dask) and ``export --parquet``.

They need the ``scale`` extra (dask[distributed], pyarrow, duckdb, fsspec), imported
only when one of them runs: without it they say in one line what to install, and every
other command works as before.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

EXIT_REFUSED, EXIT_UNREADABLE, EXIT_FAILED = 1, 2, 3
SCALE_MODULES = ("dask", "distributed", "pyarrow", "duckdb", "fsspec")
INSTALL_HINT = "pip install 'domino-recorder[scale]'"


class MissingExtra(click.ClickException):
    """The scale extra is not installed: exit 3, as for any installation that lacks a part."""

    exit_code = EXIT_FAILED

    def show(self, file: Any = None) -> None:
        click.echo(f"recorder: {self.message}", err=True)


class StoppedRun(click.ClickException):
    """A run that could not go on: exit 3, as for any failure of the recorder's own."""

    exit_code = EXIT_FAILED


def missing_scale_module() -> str | None:
    """The first module of the scale extra that cannot be imported, if any."""
    for name in SCALE_MODULES:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found or sys.modules.get(name, True) is None:
            return name
    return None


def scale_missing_message(what: str) -> str | None:
    """``what needs the scale extra (... is missing): pip install ...``, or None when the
    extra is installed."""
    name = missing_scale_module()
    if name is None:
        return None
    return f"{what} needs the scale extra ({name} is missing): {INSTALL_HINT}"


def require_scale(command: str) -> None:
    """Stop with one line naming the install when a module of the extra is missing."""
    message = scale_missing_message(command)
    if message is not None:
        raise MissingExtra(message)


def _bars() -> tuple[Callable[..., Any], list[Any]]:
    """A progress bar per step of a run, on standard error."""
    from tqdm import tqdm

    opened: list[Any] = []

    def open_bar(step: str, total: int, _: dict[str, Any]) -> Callable[..., None]:
        for bar in opened:
            bar.close()
        unit = " files" if step == "plan" else " shards"
        bar = tqdm(total=total, desc=step, unit=unit, file=sys.stderr, mininterval=0.5,
                   dynamic_ncols=True)
        started = time.monotonic()
        opened.append(bar)

        def update(n: int = 1, **postfix: Any) -> None:
            if "rounds" in postfix:
                elapsed = max(time.monotonic() - started, 1e-6)
                postfix["rounds_s"] = f"{postfix['rounds'] / elapsed:,.0f}"
            if postfix:
                bar.set_postfix(postfix, refresh=False)
            bar.update(n)

        return update

    return open_bar, opened


def _batch_options(func: Callable[..., Any]) -> Callable[..., Any]:
    options = [
        click.argument("sources", nargs=-1, required=True),
        click.option("--out", "out", required=True, metavar="DIR",
                     help="The datasets' folder (a path, or any fsspec URL the workers "
                          "can write to)."),
        click.option("--scheduler", metavar="ADDRESS", default=None,
                     help="A running Dask scheduler (tcp://host:8786) [default: a local "
                          "cluster of --workers processes]."),
        click.option("--workers", type=click.IntRange(1, 256), default=None, metavar="N",
                     help="Worker processes of the local cluster [default: one per core]."),
        click.option("--shard-bytes", type=click.IntRange(4096), default=None, metavar="N",
                     help="Bytes of JSON Lines per task [default: 32 MiB; 16 KiB for "
                          "'batch review']."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.group("batch")
def batch_group() -> None:
    """Run the per-game work over archives on Dask, into Parquet datasets.

    \b
    Examples:
      recorder batch facts logs/ --out facts/                    a local cluster
      recorder batch facts 's3://bucket/logs/*.jsonl.gz' --out s3://bucket/facts \\
          --scheduler tcp://scheduler:8786
      recorder batch replay archive.jsonl --out verdicts/       verdicts, no facts
      recorder batch review archive.jsonl --out facts/ --view perfect    and reviews
    """


@batch_group.command("facts")
@_batch_options
def batch_facts(sources: tuple[str, ...], out: str, scheduler: str | None,
                workers: int | None, shard_bytes: int | None) -> None:
    """Every game's rows (games, players, rounds, moves) and every refusal, as Parquet.

    SOURCES are files, folders or globs of JSON Lines (gzip or not), local or any
    fsspec URL (s3://... with s3fs). Running it again over the same or overlapping
    sources changes nothing; a run that was stopped finishes where it was. Exit code 0
    when nothing was refused, 1 when a game was refused, 2 when an input could not be
    read, 3 when the recorder failed.

    \b
    Examples:
      recorder batch facts logs/ archive/2026-*.jsonl.gz --out facts/
      recorder batch facts s3://logs/2026/ --out s3://warehouse/facts \\
          --scheduler tcp://scheduler.internal:8786
    """
    _batch("facts", sources, out, scheduler, workers, shard_bytes)


@batch_group.command("replay")
@_batch_options
def batch_replay(sources: tuple[str, ...], out: str, scheduler: str | None,
                 workers: int | None, shard_bytes: int | None) -> None:
    """Every game's verdict (the games dataset, with the engine's answer) and every
    refusal, as Parquet, without the per-move facts: the archive checked again.

    SOURCES and exit codes as for 'batch facts'.

    \b
    Examples:
      recorder batch replay archive/ --out verdicts/ --workers 2
    """
    _batch("replay", sources, out, scheduler, workers, shard_bytes)


@batch_group.command("review")
@_batch_options
@click.option("--view", type=click.Choice(["player", "perfect"]), default="player",
              show_default=True, help="What the mover is taken to know, as for 'recorder "
              "review': their hand and the table (player), or every hand (perfect).")
@click.option("--samples", type=click.IntRange(1, 1000), default=None, metavar="N",
              help="Deals solved per decision, at most, in the player view [default: 24].")
@click.option("--seed", default="review", show_default=True,
              help="Seeds the player view's deals: the same seed, the same review.")
def batch_review(sources: tuple[str, ...], out: str, scheduler: str | None,
                 workers: int | None, shard_bytes: int | None, view: str,
                 samples: int | None, seed: str) -> None:
    """Every game's review (what 'recorder review --json' gives) as Parquet, beside
    its facts: the datasets of 'batch facts', and reviews and review_decisions.

    SOURCES and exit codes as for 'batch facts', whose folder it writes to: a game
    whose review with the same settings, by the same version of the review, is in the
    folder gets no second one; reviews with other settings are kept beside, apart
    (docs/scale.md).

    \b
    Examples:
      recorder batch review archive/ --out facts/ --workers 2
      recorder batch review logs.jsonl.gz --out facts/ --view perfect
      recorder batch review s3://logs/2026/ --out s3://warehouse/facts --samples 64 \\
          --scheduler tcp://scheduler.internal:8786
    """
    require_scale("recorder batch review")
    from recorder.review import DEFAULT_SAMPLES, Settings

    settings = Settings(view=view, samples=samples or DEFAULT_SAMPLES, seed=seed)
    _batch("review", sources, out, scheduler, workers, shard_bytes, settings)


def _batch(kind: str, sources: tuple[str, ...], out: str, scheduler: str | None,
           workers: int | None, shard_bytes: int | None, settings: Any = None) -> None:
    require_scale(f"recorder batch {kind}")
    from distributed.scheduler import KilledWorker

    from recorder import batch
    from recorder.pool import default_workers

    default_bytes = batch.DEFAULT_REVIEW_SHARD_BYTES if kind == "review" \
        else batch.DEFAULT_SHARD_BYTES
    open_bar, bars = _bars()
    try:
        report = batch.run(
            sources, out, kind, scheduler=scheduler,
            workers=workers if workers is not None else default_workers(),
            shard_bytes=shard_bytes or default_bytes, progress=open_bar, settings=settings)
    except batch.BatchError as exc:
        raise click.ClickException(str(exc)) from exc
    except (OSError, RuntimeError, ValueError, KilledWorker) as exc:
        # a task that failed three times (the disk full, a source gone, a worker that dies
        # on it), or the cluster itself: what is done is kept
        raise StoppedRun(f"the batch stopped: {type(exc).__name__}: {exc}; what was done is "
                         "kept: run the same command again to finish") from exc
    finally:
        for bar in bars:
            bar.close()
    tally = report.tally
    for refusal in report.refusals:
        where = refusal["source"] + (f":{refusal['line']}" if refusal["line"] else "")
        name = f" {refusal['game_id']}" if refusal["game_id"] else ""
        click.echo(f"{where}{name}: refused: {refusal['message']}", err=True)
    if tally.refused > len(report.refusals):
        click.echo(f"... {tally.refused - len(report.refusals)} more refusals: see the "
                   f"refused dataset in {out}", err=True)
    rate = tally.rounds / report.seconds if report.seconds else 0.0
    click.echo(
        f"{tally.total} games in {report.seconds:.1f}s ({rate:,.0f} rounds/s): "
        f"{tally.accepted} accepted, {tally.duplicate} duplicate, {tally.refused} refused; "
        f"{tally.shards} shards, {tally.skipped} done before -> {out}")
    if kind == "review":
        click.echo(f"{tally.reviewed} games' reviews published ({tally.reviewed_rounds} "
                   "rounds reviewed)")
    click.echo("seconds: " + ", ".join(f"{step} {t:.1f}" for step, t in report.steps.items()),
               err=True)
    if tally.internal:
        sys.exit(EXIT_FAILED)
    if tally.unreadable:
        sys.exit(EXIT_UNREADABLE)
    if tally.refused:
        sys.exit(EXIT_REFUSED)


@click.command("export")
@click.option("--parquet", "parquet_dir", required=True, metavar="DIR",
              help="Write the store as the Parquet datasets of 'recorder batch' under DIR "
                   "(new or empty; a path or an fsspec URL).")
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              envvar="RECORDER_DB", show_envvar=True,
              help="SQLite database file [default: instance/recorder.db under the current "
                   "folder]")
def export_command(parquet_dir: str, db_path: Path | None) -> None:
    """Write every stored game and its facts as Parquet, without reading the logs again.

    The datasets are those of 'recorder batch facts' (games, players, rounds, moves,
    refused), with the store's ids and import times, and the stored reviews as the
    datasets of 'recorder batch review' (reviews, review_decisions: each whole review
    of this version with current settings); 'recorder batch facts' can add games to the
    folder afterwards.

    \b
    Examples:
      recorder export --parquet facts/
      recorder export --parquet s3://bucket/facts --db /srv/recorder/recorder.db
    """
    require_scale("recorder export --parquet")
    from tqdm import tqdm

    from recorder import storage
    from recorder.cli_service import open_db
    from recorder.export import ExportError, export_parquet

    path = storage.resolve_db_path(db_path)
    if not path.exists():
        raise click.ClickException(f"no database at {path}")
    started = time.monotonic()
    with open_db(path) as db:
        total = db.execute("SELECT count(*) FROM games").fetchone()[0]
        try:
            with tqdm(total=total, desc="export", unit=" games", file=sys.stderr,
                      mininterval=0.5, dynamic_ncols=True) as bar:
                report = export_parquet(db, parquet_dir, progress=bar.update)
        except ExportError as exc:
            raise click.ClickException(str(exc)) from exc
    rows = ", ".join(f"{n} {name}" for name, n in report.rows.items())
    click.echo(f"exported {rows} in {time.monotonic() - started:.1f}s -> {parquet_dir}")
