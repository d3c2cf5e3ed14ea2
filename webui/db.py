"""The request's database connection, opened on first use and closed at teardown.

One connection per request (on ``flask.g``) rather than one per process: SQLite
connections are cheap to open, must not be shared between threads, and a short-lived
connection never holds a WAL snapshot longer than the request that needs it.

The statistics ask :func:`get_stats`: the same connection, or, when the app is given a
warehouse (``WAREHOUSE``, ``RECORDER_WAREHOUSE``), the app's one DuckDB database over
the Parquet datasets (:mod:`recorder.warehouse`), opened with the app; the review
statistics ask :func:`get_reviews`, the warehouse's reviews in the same way.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, g
from sqlite_utils import Database

from recorder import query, storage

WAREHOUSE_KEY = "recorder.warehouse"
"""Where the app keeps its warehouse (``app.extensions``), when it has one."""


def get_db() -> Database:
    """This request's connection to the configured database (schema already migrated)."""
    if "db" not in g:
        g.db = storage.connect(current_app.config["DATABASE"], migrate=False)
    db: Database = g.db
    return db


def get_stats() -> query.Backend:
    """What this request's statistics are read from: the warehouse if the app has one,
    else the SQLite store."""
    warehouse = current_app.extensions.get(WAREHOUSE_KEY)
    if warehouse is not None:
        backend: query.Backend = warehouse
        return backend
    return query.SQLiteBackend(get_db())


def get_reviews() -> Any:
    """What the review statistics (:mod:`recorder.review_stats`) are read from: the
    warehouse's reviews (``recorder batch review``) if the app has a warehouse that holds
    some, else the SQLite store's."""
    warehouse = current_app.extensions.get(WAREHOUSE_KEY)
    if warehouse is not None:
        from recorder.warehouse_reviews import review_tables

        tables = review_tables(warehouse)
        if tables is not None:
            return tables
    return get_db()


def close_db(_exc: BaseException | None = None) -> None:
    """Close the request's connection, if it opened one."""
    db: Database | None = g.pop("db", None)
    if db is not None:
        db.close()


def init_app(app: Flask) -> None:
    """Bring the file's schema up to date once, open the warehouse if one is configured,
    and close connections after each request."""
    storage.connect(app.config["DATABASE"], migrate=True).close()
    if app.config.get("WAREHOUSE"):
        from recorder.cli_scale import scale_missing_message

        missing = scale_missing_message("WAREHOUSE (RECORDER_WAREHOUSE, --warehouse)")
        if missing is not None:
            raise RuntimeError(missing)
        from recorder.warehouse import open_warehouse

        app.extensions[WAREHOUSE_KEY] = open_warehouse(
            str(app.config["WAREHOUSE"]),
            memory_limit=str(app.config.get("WAREHOUSE_MEMORY") or "1GB"))
    app.teardown_appcontext(close_db)
