"""The service's commands: ``import``, ``serve``, ``token create|revoke|list`` and
``stats rebuild``.

They are mounted on the main ``recorder`` group by :func:`register`. Every one takes
``--db PATH`` (or ``RECORDER_DB``); without either they use ``instance/recorder.db``
under the current directory, the same file ``recorder serve`` and ``webui.create_app``
use. Library errors become clean CLI errors here, at the edge, and nowhere else.
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import click
from sqlite_utils import Database
from tqdm import tqdm

from recorder import storage
from recorder.ingest import DEFAULT_BATCH, REFUSED, import_paths
from recorder.pool import WorkerFailed, default_workers
from recorder.tokens import SCOPES, create_token, list_tokens, revoke_tokens

F = TypeVar("F", bound=Callable[..., Any])

EXIT_REFUSED = 1
EXIT_UNREADABLE = 2
EXIT_FAILED = 3
"""The recorder itself failed: on one document (its refusal says ``internal/...``), or
the database failed (full, read-only, locked) and the import stopped."""
SAMPLES_DIR = "sample_games"


def db_option(func: F) -> F:
    """``--db PATH`` with ``RECORDER_DB`` as its environment variable."""
    return click.option(
        "--db",
        "db_path",
        type=click.Path(dir_okay=False, path_type=Path),
        envvar=storage.DB_ENVVAR,
        show_envvar=True,
        help="SQLite database file [default: instance/recorder.db under the current folder]",
    )(func)


@contextmanager
def open_db(db_path: Path | None) -> Iterator[Database]:
    """The database for a command, with SQLite's failures turned into CLI errors."""
    path = storage.resolve_db_path(db_path)
    try:
        db = storage.connect(path)
    except sqlite3.Error as exc:
        raise DatabaseFailed(f"cannot open the database {path}: "
                             f"{storage.explain_failure(exc)}") from exc
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot open the database {path}: {exc}") from exc
    try:
        yield db
    except sqlite3.Error as exc:
        raise DatabaseFailed(f"the database {path} failed: {storage.explain_failure(exc)}") \
            from exc
    finally:
        db.close()


class DatabaseFailed(click.ClickException):
    """The database failed in the middle of a command: exit 3, as any failure of ours."""

    exit_code = EXIT_FAILED


def workers_option(func: F) -> F:
    """``--workers N``: how many processes do the per-game work."""
    return click.option(
        "--workers", type=click.IntRange(0, 256), default=None, metavar="N",
        help="Worker processes for parsing and replaying [default: one per core; "
             "0: all in this process]",
    )(func)


def resolve_workers(workers: int | None) -> int:
    """``--workers`` as given, else one per core."""
    return default_workers() if workers is None else workers


@contextmanager
def worker_failure() -> Iterator[None]:
    """A worker that died: exit 3, saying that running the import again completes it."""
    try:
        yield
    except WorkerFailed as exc:
        raise DatabaseFailed(
            f"{exc}; the games reported before it are stored: run the same import again "
            "to store the others (those stored come back as duplicates)") from exc


# ---------------------------------------------------------------------------------------
# import


@click.command("import")
@click.argument("paths", nargs=-1, required=True, type=click.Path(allow_dash=True))
@db_option
@click.option("--json", "as_json", is_flag=True,
              help="One JSON line per game, then one line of counts (for scripts).")
@click.option("--batch-size", type=click.IntRange(1, 100_000), default=DEFAULT_BATCH,
              show_default=True, help="Games per transaction, at most.")
@workers_option
def import_command(paths: tuple[str, ...], db_path: Path | None, as_json: bool,
                   batch_size: int, workers: int | None) -> None:
    """Import game logs from files, folders, JSON Lines, gzip or - (standard input).

    Every game is accepted, a duplicate (already stored: nothing changes), superseded
    (it continues an unfinished game stored under its frontend and game_id, which it
    replaces) or refused (with where and why; nothing of it is stored). Exit code 0 when
    nothing was
    refused, 1 when a game was refused, 2 when an input could not be read at all,
    3 when the recorder failed (on one document, or the database failed).

    Worker processes (--workers, one per core by default) parse and replay the games
    and build their rows; this process alone stores them, in input order.

    \b
    Examples:
      recorder import sample_games/                 a folder, with a progress bar
      recorder import --json games.jsonl.gz         one JSON line per game, for scripts
      recorder simulate --games 100 | recorder import -
      recorder import --workers 0 games.jsonl       all in one process (for a debugger)
    """
    missing = [p for p in paths if p != "-" and not os.path.exists(p)]
    if missing:
        raise click.BadParameter(
            "no such file or folder: " + ", ".join(missing), param_hint="PATHS"
        )
    unreadable = failed = False
    with open_db(db_path) as db, worker_failure(), ExitStack() as stack:
        importer, all_outcomes = import_paths(db, paths, batch_size=batch_size,
                                              workers=resolve_workers(workers))
        outcomes = stack.enter_context(closing(all_outcomes))
        if as_json:
            for outcome in outcomes:
                unreadable |= outcome.index is None and outcome.status == REFUSED
                failed |= outcome.internal
                click.echo(json.dumps(outcome.to_json(), ensure_ascii=False))
            click.echo(json.dumps(importer.tally.as_dict()))
        else:
            started = time.monotonic()
            tally = importer.tally
            with tqdm(desc="import", unit=" games", file=sys.stderr, mininterval=0.5,
                      dynamic_ncols=True) as bar:
                for outcome in outcomes:
                    failed |= outcome.internal
                    if outcome.status == REFUSED:
                        unreadable |= outcome.index is None
                        bar.write(outcome.describe(), file=sys.stderr)
                    bar.set_postfix(accepted=tally.accepted, duplicate=tally.duplicate,
                                    superseded=tally.superseded, refused=tally.refused,
                                    refresh=False)
                    bar.update(1)
            elapsed = time.monotonic() - started
            click.echo(
                f"{tally.total} games in {elapsed:.1f}s: {tally.accepted} accepted, "
                f"{tally.duplicate} duplicate, "
                + (f"{tally.superseded} superseded, " if tally.superseded else "")
                + f"{tally.refused} refused "
                f"-> {storage.resolve_db_path(db_path)}"
            )
    if failed:
        sys.exit(EXIT_FAILED)
    if unreadable:
        sys.exit(EXIT_UNREADABLE)
    if importer.tally.refused:
        sys.exit(EXIT_REFUSED)


# ---------------------------------------------------------------------------------------
# serve


def samples_dir() -> Path | None:
    """``sample_games/`` of the current folder, else of the source tree, if there is one."""
    for candidate in (Path.cwd() / SAMPLES_DIR, Path(__file__).resolve().parents[1] / SAMPLES_DIR):
        if candidate.is_dir():
            return candidate
    return None


def import_samples(db: Database) -> str | None:
    """Import ``sample_games/`` (a first start shows games, not an empty page)."""
    folder = samples_dir()
    if folder is None:
        return None
    importer, outcomes = import_paths(db, [str(folder)])
    for _ in outcomes:
        pass
    t = importer.tally
    return (f"imported {folder}: {t.accepted} accepted, {t.duplicate} duplicate, "
            f"{t.refused} refused")


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=5000, show_default=True)
@db_option
@click.option("--threads", type=click.IntRange(1, 256), default=4, show_default=True,
              help="Requests served at once.")
@click.option("--connection-limit", type=click.IntRange(1, 100_000), default=100,
              show_default=True,
              help="Connections held open at once (waitress's connection_limit); more wait. "
                   "None is counted per address: in public, a proxy in front limits each "
                   "address (docs/service.md).")
@click.option("--channel-timeout", type=click.IntRange(1, 86_400), default=30,
              show_default=True, metavar="SECONDS",
              help="Close a connection idle this long, no request under way (waitress's "
                   "channel_timeout).")
@click.option("--debug", is_flag=True,
              help="Flask's development server with its debugger and reloader instead "
                   "(never in public).")
@click.option("--samples/--no-samples", default=True, show_default=True,
              help="On first start (a new database), import sample_games/.")
@click.option("--warehouse", "warehouse", metavar="DIR", envvar="RECORDER_WAREHOUSE",
              show_envvar=True, default=None,
              help="Read the statistics (every /api/stats URL and stats page) with DuckDB "
                   "from the Parquet datasets in DIR, written by 'recorder batch facts' or "
                   "'recorder export --parquet' (a path or an fsspec URL); the games, "
                   "replays and uploads stay on the database.")
def serve_command(host: str, port: int, db_path: Path | None, threads: int,
                  connection_limit: int, channel_timeout: int, debug: bool,
                  samples: bool, warehouse: str | None) -> None:
    """Run the web service under waitress until Ctrl-C.

    Sets everything up: creates the database (with sample_games/ imported on first
    start) and serves the pages and the API, with waitress's body limit set to the
    app's (MAX_CONTENT_LENGTH) and waitress's own error answers given the app's
    headers. See docs/service.md for production.

    \b
    Examples:
      recorder serve                                http://127.0.0.1:5000/
      recorder serve --host 0.0.0.0 --port 8080 --threads 8 --db /srv/recorder.db
      recorder serve --connection-limit 200 --channel-timeout 15
      recorder serve --warehouse facts/             the statistics from Parquet
    """
    from webui import create_app  # the web layer is needed only by this command

    if warehouse:
        from recorder.cli_scale import require_scale

        require_scale("recorder serve --warehouse")
        from recorder import parquet
        from recorder.warehouse import WarehouseError, check_folder

        try:  # before the database is made: a folder the pages cannot read changes nothing
            check_folder(*parquet.filesystem(warehouse), warehouse)
        except WarehouseError as exc:
            raise click.ClickException(str(exc)) from exc
    path = storage.resolve_db_path(db_path).resolve()
    first_start = not path.exists()
    with open_db(path) as db:
        if first_start and samples:
            message = import_samples(db)
            if message:
                click.echo(message, err=True)
        games = db["games"].count
    # The app (and the reloader's child process) find the file through the environment.
    os.environ[storage.DB_ENVVAR] = str(path)
    if warehouse:  # the reloader's child process finds it the same way
        os.environ["RECORDER_WAREHOUSE"] = warehouse
        try:
            app = create_app()
        except WarehouseError as exc:  # the folder is not one the pages can read
            raise click.ClickException(str(exc)) from exc
    else:
        app = create_app()
    server = "Flask's debugger" if debug else f"waitress, {threads} threads"
    stats = f"; statistics from the warehouse {warehouse}" if warehouse else ""
    click.echo(f"{games} games in {path}{stats}; serving on http://{host}:{port}/ "
               f"({server}; Ctrl-C stops)", err=True)
    if debug:
        app.run(host=host, port=port, debug=True, use_reloader=True)
        return
    from webui.serve import serve

    serve(app, host=host, port=port, threads=threads, connection_limit=connection_limit,
          channel_timeout=channel_timeout)


# ---------------------------------------------------------------------------------------
# token


@click.group("token")
def token_group() -> None:
    """Upload tokens: one per frontend, shown once, stored only as a hash.

    \b
    Examples:
      recorder token create spilop-app
      recorder token list
      recorder token revoke spilop-app
    """


@token_group.command("create")
@click.argument("name")
@click.option("--scope", "scopes", multiple=True, type=click.Choice(SCOPES),
              help="What the token may do (repeatable): upload games, or read the API when "
                   "the server has READS_NEED_TOKEN. Default: both.")
@click.option("--frontend", metavar="F",
              help="The frontend whose games the token uploads (default: NAME). A log it "
                   "sends must name this frontend or none.")
@db_option
def token_create(name: str, scopes: tuple[str, ...], frontend: str | None,
                 db_path: Path | None) -> None:
    """Make a token for NAME (a frontend) and print it; it is shown only this once.

    A token that may upload is bound to one frontend, NAME unless --frontend says
    another: it uploads that frontend's games only, and a log that names no frontend
    is stored as that frontend's.

    \b
    Examples:
      TOKEN=$(recorder token create spilop-app --scope upload)
      curl -H "Authorization: Bearer $TOKEN" --data-binary @games.jsonl \\
           http://127.0.0.1:5000/api/games
      recorder token create ci-runner --scope upload --frontend spilop-app
      recorder token create dashboard --scope read
    """
    with open_db(db_path) as db:
        try:
            token, secret = create_token(db, name, scopes, frontend=frontend)
        except ValueError as exc:
            hint = "--frontend" if frontend is not None else "NAME"
            raise click.BadParameter(str(exc), param_hint=hint) from exc
    bound = f", uploads the games of {token.frontend}" if token.frontend else ""
    click.echo(f"token #{token.id} for {token.name}, may {' and '.join(token.scopes)}{bound} "
               "(shown once; keep it secret):", err=True)
    click.echo(secret)


@token_group.command("revoke")
@click.argument("name", required=False)
@click.option("--id", "token_id", type=int, help="Revoke only the token with this id.")
@db_option
def token_revoke(name: str | None, token_id: int | None, db_path: Path | None) -> None:
    """Withdraw every live token of NAME (or the one with --id); uploads with it get 403.

    \b
    Examples:
      recorder token revoke spilop-app              every live token of spilop-app
      recorder token revoke --id 3                  just token #3
    """
    if (name is None) == (token_id is None):
        raise click.UsageError("give a NAME or --id, not both")
    with open_db(db_path) as db:
        count = revoke_tokens(db, name, token_id=token_id)
    what = f"token #{token_id}" if token_id is not None else f"tokens of {name!r}"
    if not count:
        raise click.ClickException(f"no live {what} to revoke")
    click.echo(f"revoked {count} {'token' if count == 1 else 'tokens'} ({what})")


@token_group.command("list")
@db_option
@click.option("--json", "as_json", is_flag=True, help="One JSON line per token.")
def token_list(db_path: Path | None, as_json: bool) -> None:
    """Every token: id, name, prefix, scopes, its frontend, when it was made and revoked.

    \b
    Examples:
      recorder token list
      recorder token list --json
    """
    with open_db(db_path) as db:
        tokens = list_tokens(db)
    if as_json:
        for token in tokens:
            click.echo(json.dumps(token.as_dict()))
        return
    if not tokens:
        click.echo("no tokens; make one with: recorder token create NAME")
        return
    click.echo(f"{'id':>4}  {'name':<20} {'prefix':<14} {'scopes':<12} {'frontend':<20} "
               f"{'created':<21} revoked")
    for t in tokens:
        click.echo(f"{t.id:>4}  {t.name:<20} {t.prefix + '…':<14} {','.join(t.scopes):<12} "
                   f"{t.frontend or '-':<20} {t.created_at:<21} {t.revoked_at or '-'}")


# ---------------------------------------------------------------------------------------
# stats


@click.group("stats")
def stats_group() -> None:
    """The statistics' aggregates.

    \b
    Examples:
      recorder stats rebuild
    """


@stats_group.command("rebuild")
@db_option
@click.option("--from-logs/--from-facts", default=True, show_default=True,
              help="Re-derive every game's facts from its log first, or make the statistics "
                   "from the stored facts (much faster; enough when only the statistics "
                   "changed).")
def stats_rebuild(db_path: Path | None, from_logs: bool) -> None:
    """Re-derive every game's facts from its stored log, and the statistics from them.

    Run it after an upgrade that changes what the statistics count: new databases keep
    them up to date at import. The pages show partial figures while it runs.

    \b
    Examples:
      recorder stats rebuild
      recorder stats rebuild --from-facts --db /srv/recorder/recorder.db
    """
    from recorder import stats

    with open_db(db_path) as db:
        total = db.execute("SELECT count(*) FROM games").fetchone()[0]
        started = time.perf_counter()
        with tqdm(total=total, desc="rebuild", unit=" games", file=sys.stderr,
                  mininterval=0.5, disable=None) as bar:
            done = stats.rebuild(db, from_logs=from_logs, progress=bar.update)
        elapsed = time.perf_counter() - started
        click.echo(f"{done} games rebuilt in {elapsed:.1f}s -> {storage.resolve_db_path(db_path)}")


def register(cli: click.Group) -> None:
    """Mount the service's commands on the main ``recorder`` group."""
    cli.add_command(import_command, "import")
    cli.add_command(serve_command, "serve")
    cli.add_command(token_group, "token")
    cli.add_command(stats_group, "stats")
    from recorder.cli_scale import batch_group, export_command

    cli.add_command(batch_group, "batch")
    cli.add_command(export_command, "export")
