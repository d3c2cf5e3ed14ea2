"""The recorder's web service: the JSON API under ``/api`` and the upload page.

``create_app`` is the application factory: ``flask --app webui run`` for development,
``recorder serve`` for the same with the database set up, and
``waitress-serve --call webui:create_app`` in production.

Configuration, lowest precedence first: the defaults below, ``instance/config.py``,
then ``RECORDER_*`` environment variables (``RECORDER_DB``,
``RECORDER_MAX_CONTENT_LENGTH``, ``RECORDER_READS_NEED_TOKEN``); ``test_config``
replaces the file and the environment.
"""

from __future__ import annotations

import os
from typing import Any

from flask import Flask
from werkzeug.wrappers import Response

from recorder import storage

DEFAULT_MAX_CONTENT_LENGTH = 32 * 1024 * 1024
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


def _security_headers(response: Response) -> Response:
    """The same locked-down headers on every answer, pages and API alike."""
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CONTENT_SECURITY_POLICY)
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "same-origin")
    return response


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app: config, database, blueprints, error handlers."""
    app = Flask(
        __name__,
        instance_path=str(storage.default_instance_path()),
        instance_relative_config=True,
    )
    app.config.from_mapping(
        DATABASE=str(storage.default_db_path()),
        MAX_CONTENT_LENGTH=DEFAULT_MAX_CONTENT_LENGTH,
        READS_NEED_TOKEN=False,
        PARSE_LIMITS=None,  # a recorder.parse.Limits; None uses the parser's defaults
        PAGE_SIZE=50,
        MAX_PAGE_SIZE=1000,
        FRAMES_CACHE_BYTES=64 * 1024 * 1024,  # built frames kept for stored games; 0: none
        FRAMES_MAX_MOVES=20_000,  # longest log whose frames are built; 0: no limit
        SIGNIN_DAYS=30,  # how long the sign-in cookie lasts (READS_NEED_TOKEN)
        SIGNIN_COOKIE_SECURE=None,  # None: Secure when the request came over HTTPS
    )
    if test_config is None:
        app.config.from_pyfile("config.py", silent=True)
        if os.environ.get(storage.DB_ENVVAR):
            app.config["DATABASE"] = os.environ[storage.DB_ENVVAR]
        if os.environ.get("RECORDER_MAX_CONTENT_LENGTH"):
            app.config["MAX_CONTENT_LENGTH"] = int(os.environ["RECORDER_MAX_CONTENT_LENGTH"])
        reads = _env_flag("RECORDER_READS_NEED_TOKEN")
        if reads is not None:
            app.config["READS_NEED_TOKEN"] = reads
        secure = _env_flag("RECORDER_SIGNIN_COOKIE_SECURE")
        if secure is not None:
            app.config["SIGNIN_COOKIE_SECURE"] = secure
    else:
        app.config.from_mapping(test_config)

    from webui import api, api_stats, db, games, signin, stats, upload

    db.init_app(app)
    signin.init_app(app)
    for blueprint in (api.bp, api_stats.bp, games.bp, stats.bp, upload.bp):
        app.register_blueprint(blueprint)
    api.register_error_handlers(app)
    app.after_request(_security_headers)

    app.add_url_rule("/", "index", games.games_list)

    return app
