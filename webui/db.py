"""The request's database connection, opened on first use and closed at teardown.

One connection per request (on ``flask.g``) rather than one per process: SQLite
connections are cheap to open, must not be shared between threads, and a short-lived
connection never holds a WAL snapshot longer than the request that needs it.
"""

from __future__ import annotations

from flask import Flask, current_app, g
from sqlite_utils import Database

from recorder import storage


def get_db() -> Database:
    """This request's connection to the configured database (schema already migrated)."""
    if "db" not in g:
        g.db = storage.connect(current_app.config["DATABASE"], migrate=False)
    db: Database = g.db
    return db


def close_db(_exc: BaseException | None = None) -> None:
    """Close the request's connection, if it opened one."""
    db: Database | None = g.pop("db", None)
    if db is not None:
        db.close()


def init_app(app: Flask) -> None:
    """Bring the file's schema up to date once, and close connections after each request."""
    storage.connect(app.config["DATABASE"], migrate=True).close()
    app.teardown_appcontext(close_db)
