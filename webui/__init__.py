"""The recorder's web service: the JSON API under ``/api`` and the upload page.

``create_app`` is the application factory: ``flask --app webui run`` for development,
``recorder serve`` for the same with the database set up, and
``waitress-serve --call webui:create_app`` in production.

Configuration, lowest precedence first: the defaults below and the limits'
(``webui.limits.DEFAULTS``), ``instance/config.py``, then ``RECORDER_*`` environment
variables (``RECORDER_DB``, ``RECORDER_READS_NEED_TOKEN`` and the limits' own, such as
``RECORDER_MAX_CONTENT_LENGTH``); ``test_config`` replaces the file and the environment.
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask
from werkzeug.routing import IntegerConverter
from werkzeug.wrappers import Response

from recorder import storage
from webui import limits

DEFAULT_MAX_CONTENT_LENGTH = limits.DEFAULTS["MAX_CONTENT_LENGTH"]
"""Largest request body (as sent, before gzip is undone); larger ones are answered 413."""


def _env_flag(name: str) -> bool | None:
    value = os.environ.get(name)
    if value is None:
        return None
    return value.strip().lower() in {"1", "true", "yes", "on"}


CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    # plotly.js writes its own <style> rules at run time; scripts stay strict
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
))
"""No inline script and no framing: every page works with its scripts served by the app."""


def security_headers() -> list[tuple[str, str]]:
    """The locked-down headers every answer carries (and ``recorder serve`` gives the
    answers waitress makes itself)."""
    return [("Content-Security-Policy", CONTENT_SECURITY_POLICY),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "same-origin")]


def _security_headers(response: Response) -> Response:
    """The same locked-down headers on every answer, pages and API alike."""
    for name, value in security_headers():
        response.headers.setdefault(name, value)
    return response


class GameNumber(IntegerConverter):
    """``<int:...>`` in every address: a whole number that fits SQLite's INTEGER.

    A larger one (``/api/games/99999999999999999999999``) names no game, so the address
    matches nothing (404) instead of reaching SQLite, which cannot bind it.
    """

    def __init__(self, map: Any, fixed_digits: int = 0, min: int | None = None,
                 max: int | None = None, signed: bool = False) -> None:
        super().__init__(map, fixed_digits, min,
                         storage.MAX_INTEGER if max is None else max, signed)


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: config, database, blueprints, error handlers."""
    app = Flask(
        __name__,
        instance_path=str(storage.default_instance_path()),
        instance_relative_config=True,
    )
    app.config.from_mapping(
        DATABASE=str(storage.default_db_path()),
        READS_NEED_TOKEN=False,
        PAGE_SIZE=50,
        MAX_PAGE_SIZE=1000,
        FRAMES_CACHE_BYTES=64 * 1024 * 1024,  # built frames kept for stored games; 0: none
        **limits.DEFAULTS,
        SIGNIN_DAYS=30,  # how long the sign-in cookie lasts (READS_NEED_TOKEN)
        SIGNIN_COOKIE_SECURE=None,  # None: Secure when the request came over HTTPS
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        if os.environ.get(storage.DB_ENVVAR):
            app.config["DATABASE"] = os.environ[storage.DB_ENVVAR]
        limits.from_environment(app)
        reads = _env_flag("RECORDER_READS_NEED_TOKEN")
        if reads is not None:
            app.config["READS_NEED_TOKEN"] = reads
        secure = _env_flag("RECORDER_SIGNIN_COOKIE_SECURE")
        if secure is not None:
            app.config["SIGNIN_COOKIE_SECURE"] = secure
    else:
        app.config.from_mapping(test_config)
    limits.settle(app)

    app.url_map.converters["int"] = GameNumber  # before any address is added below

    from webui import api, api_stats, compress, db, games, signin, stats, upload

    db.init_app(app)
    signin.init_app(app)
    compress.init_app(app)
    for blueprint in (api.bp, api_stats.bp, games.bp, stats.bp, upload.bp):
        app.register_blueprint(blueprint)
    api.register_error_handlers(app)
    limits.init_rate_limits(app)
    app.after_request(_security_headers)

    app.add_url_rule("/", "index", games.games_list)

    return app
