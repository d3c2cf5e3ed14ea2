"""The JSON API: upload games, list and export them, fetch one with its answer.

Every answer is one of two envelopes, so a client needs one code path for each:

    {"ok": true, "data": ..., "meta": {...}}            success (meta when there is any)
    {"ok": false, "status": 404, "error": {"code": "...", "message": "..."}}

Uploads need ``Authorization: Bearer <token>`` of a token with the ``upload`` scope
(``recorder token create NAME``); reading is open unless ``READS_NEED_TOKEN`` is set,
and then needs a token with the ``read`` scope.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from typing import Any, NoReturn
from urllib.parse import urlencode

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    render_template,
    request,
    stream_with_context,
)
from werkzeug.exceptions import HTTPException, InternalServerError

from recorder import figures, names, reviews, storage
from recorder.binding import WrongFrontend
from recorder.errors import InputError, TooLarge
from recorder.frames import build_frames, move_count
from recorder.ingest import import_upload
from recorder.parse import Limits, Parsed, end_line, iter_documents_raw, parse_line
from recorder.review import Settings
from recorder.tokens import Token, Verdict, check_token
from webui import limits, openapi, review_queue
from webui.compress import accepts_gzip, gzip_bytes, precompressed
from webui.db import get_db

bp = Blueprint("api", __name__, url_prefix="/api")

JSONL_MIMETYPE = "application/x-ndjson"
FILTER_PARAMS = frozenset({
    "player", "q", "preset", "variant", "rule", "frontend", "players", "status", "blocked",
    "since", "until",
})
"""The game filters, the same on the API's list and on the games page."""
LIST_PARAMS = FILTER_PARAMS | {"limit", "cursor", "order", "format"}
FORMATS = ("json", "jsonl", "logs")
ERROR_STATUSES = (400, 401, 403, 404, 405, 413, 415, 429, 500, 503)


class ApiError(Exception):
    """An error answered with the error envelope; ``code`` is stable, for programs."""

    def __init__(self, status: int, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra


def fail(status: int, code: str, message: str, **extra: Any) -> NoReturn:
    raise ApiError(status, code, message, **extra)


def envelope(data: Any, *, status: int = 200, meta: dict[str, Any] | None = None,
             compact: bool = False) -> Response:
    """The success envelope; ``compact`` drops the spaces (large answers such as frames)."""
    body: dict[str, Any] = {"ok": True, "data": data}
    if meta is not None:
        body["meta"] = meta
    separators = (",", ":") if compact else None
    return current_app.response_class(
        json.dumps(body, ensure_ascii=False, separators=separators) + "\n", status=status,
        mimetype="application/json",
    )


def error_envelope(status: int, code: str, message: str, **extra: Any) -> Response:
    """The error envelope; 401 also says which scheme to use."""
    error: dict[str, Any] = {"code": code, "message": message, **extra}
    response = current_app.response_class(
        json.dumps({"ok": False, "status": status, "error": error}, ensure_ascii=False) + "\n",
        status=status,
        mimetype="application/json",
    )
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Bearer realm="recorder"'
    return response


_HTTP_CODES = {
    400: ("http/bad-request", "the request is malformed"),
    401: ("auth/required", "this needs an upload token: send 'Authorization: Bearer <token>'"),
    403: ("auth/forbidden", "this token may not do that"),
    404: ("http/not-found", "there is nothing at this address"),
    405: ("http/method-not-allowed", "this address does not take that method"),
    413: ("http/too-large", "the request body is too large"),
    415: ("http/unsupported-media-type", "the body's encoding is not supported"),
    429: ("http/too-many-requests", "too many requests from this address"),
    500: ("http/internal", "the recorder failed on this request; the error is logged"),
}


STORAGE_RETRY_SECONDS = 30
"""The ``Retry-After`` of a 503 for a database that failed under a read or an upload."""


def _retry_after(response: Response, status: int) -> None:
    if status == 429:
        wait = limits.retry_after()
        if wait is not None:
            response.headers["Retry-After"] = str(wait)


def sentence(text: str) -> str:
    """A message of the API written for a page: capitalised, with its full stop."""
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") else ".")


def register_error_handlers(app: Flask) -> None:
    """JSON errors for everything under /api, whichever part of Flask raised them.

    Registered on the app rather than the blueprint: a 404 or 405 is raised while
    routing, before any blueprint is chosen, so a blueprint handler would never see it.
    Pages outside /api keep Flask's own error pages.
    """

    def wants_json() -> bool:
        return request.path == "/api" or request.path.startswith("/api/")

    def on_api_error(exc: ApiError) -> Response:
        response = error_envelope(exc.status, exc.code, exc.message, **exc.extra)
        if exc.code == "storage/failed":  # an upload the database failed under
            response.headers["Retry-After"] = str(STORAGE_RETRY_SECONDS)
        return response

    def on_http_error(exc: HTTPException) -> Response | HTTPException:
        if not wants_json():
            return html_error(exc)
        status = exc.code or 500
        code, default = _HTTP_CODES.get(status, (f"http/{status}", exc.name))
        message = default
        if status == 413:
            message = limits.too_large_message()
        elif status == 429:
            message = limits.rate_limited_message(exc)
        elif status == 405:
            allowed = dict(exc.get_headers()).get("Allow", "").split(", ")
            methods = ", ".join(m for m in allowed if m not in {"HEAD", "OPTIONS"})
            message = f"{request.path} does not take {request.method}; it takes {methods}"
        elif status == 404:
            message = f"there is nothing at {request.path}"
        response = error_envelope(status, code, message)
        _retry_after(response, status)
        for key, value in exc.get_headers():
            if key.lower() == "allow":
                response.headers[key] = value
        return response

    def html_error(exc: HTTPException) -> HTTPException | Response:
        """A page's own error page (with the navigation) for what a visitor can cause."""
        status = exc.code or 500
        if status == 404:
            message = f"There is nothing at {request.path}."
        elif status == 405:
            message = f"{request.path} does not take {request.method}."
        elif status == 413:
            message = sentence(limits.too_large_message())
        elif status == 429:
            message = sentence(limits.rate_limited_message(exc))
        else:
            return exc
        page = current_app.make_response(
            (render_template("error.html", title=exc.name, message=message), status))
        _retry_after(page, status)
        return page

    def on_storage_failure(exc: sqlite3.Error) -> Response:
        """503 for a database that fails under a request (a damaged, unreadable or busy
        file): the operator's problem, not a bug, so one line in the log and no traceback
        in the answer. Uploads say so in their own words (their batch was not stored)."""
        current_app.logger.error("the database failed on %s %s: %s: %s", request.method,
                                 request.path, type(exc).__name__, exc)
        message = (f"the database could not be read ({exc}): the file is damaged, "
                   "unreadable or busy; its operator has to look at it. Try again later")
        if wants_json():
            response = error_envelope(503, "storage/failed", message)
        else:
            response = current_app.make_response((render_template(
                "error.html", title="Service Unavailable", message=sentence(message)), 503))
        response.headers["Retry-After"] = str(STORAGE_RETRY_SECONDS)
        return response

    def on_unexpected(exc: Exception) -> Response | HTTPException:
        if isinstance(exc, HTTPException):
            return on_http_error(exc)
        current_app.logger.exception("unhandled error on %s %s", request.method, request.path)
        if not wants_json():
            return InternalServerError(original_exception=exc)
        return error_envelope(500, *_HTTP_CODES[500])

    app.register_error_handler(ApiError, on_api_error)
    app.register_error_handler(sqlite3.Error, on_storage_failure)
    app.register_error_handler(HTTPException, on_http_error)
    app.register_error_handler(Exception, on_unexpected)


# ---------------------------------------------------------------------------------------
# Tokens.


def bearer() -> str | None:
    """The token of an ``Authorization: Bearer ...`` header, if there is one."""
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


def authenticate(presented: str | None, scope: str) -> Token:
    """The live token presented, allowed ``scope``, or the 401/403 that says what is wrong
    (counted against the limit of refusals where one applies: ``limits.UPLOADS``)."""
    check = check_token(get_db(), presented)
    if check.verdict is not Verdict.OK or check.token is None or \
            not check.token.may(scope):
        limits.refuse_token()
    if check.verdict is Verdict.MISSING:
        doing = "uploads need" if scope == "upload" else "reading this server needs"
        fail(401, "auth/missing-token",
             f"{doing} a token: send 'Authorization: Bearer <token>' "
             "(the server's operator makes one with 'recorder token create NAME')")
    if check.verdict is Verdict.UNKNOWN:
        fail(401, "auth/unknown-token", "this token is not known to this server")
    if check.verdict is Verdict.REVOKED:
        assert check.token is not None
        fail(403, "auth/revoked-token",
             f"this token (of {check.token.name!r}) was revoked on {check.token.revoked_at}; "
             "ask the server's operator for a new one")
    assert check.token is not None
    if not check.token.may(scope):
        fail(403, "auth/scope",
             f"this token (of {check.token.name!r}) may {' and '.join(check.token.scopes)}, "
             f"not {scope}; ask the server's operator for a token made with "
             f"'--scope {scope}'")
    return check.token


def bound_frontend(token: Token) -> str:
    """The frontend an upload token sends games of, or the 403 that says it has none."""
    if token.frontend is None:
        limits.refuse_token()
        fail(403, "auth/frontend",
             f"this token (of {token.name!r}) is bound to no frontend, so it cannot upload; "
             "ask the server's operator for a new one made with "
             "'recorder token create NAME --scope upload --frontend FRONTEND'")
    return token.frontend


# ---------------------------------------------------------------------------------------
# Upload.


def parse_limits() -> Limits:
    return limits.parse_limits()


def _too_large(exc: InputError) -> bool:
    """Whether the parser refused the body for its size (413) rather than its content (400)."""
    return isinstance(exc, TooLarge)


def upload_body() -> bytes:
    """The request body of an upload: gzip or plain, refused when empty."""
    encoding = request.headers.get("Content-Encoding", "identity").strip().lower()
    if encoding not in {"identity", "gzip", "x-gzip", ""}:
        fail(415, "http/unsupported-encoding",
             f"Content-Encoding {encoding!r} is not supported; send gzip or nothing")
    data = request.get_data(cache=False)
    if not data.strip():
        fail(400, "input/empty",
             "the body is empty; send one log, a JSON array of logs, or JSON Lines")
    return data


@bp.post("/games")
def upload_games() -> Response:
    """Store the games of one body (a document, an array, JSON Lines; gzip or not).

    200 with a report per game whenever the body could be read, whatever became of
    each game; 400 when it cannot be read at all (then nothing is stored).
    """
    token = authenticate(bearer(), "upload")
    frontend = bound_frontend(token)
    data = upload_body()
    try:
        tally, outcomes = import_upload(
            get_db(), data, limits=parse_limits(), max_documents=max_documents(),
            source=f"api:{token.name}", uploaded_by=token.id, frontend=frontend,
        )
    except WrongFrontend as exc:
        fail(403, exc.code, exc.message + "; nothing of this upload was stored",
             index=exc.index, line=exc.line, pointer=exc.pointer)
    except InputError as exc:
        status = 413 if _too_large(exc) else 400
        fail(status, exc.code, exc.message)
    except sqlite3.Error as exc:
        current_app.logger.exception("the database failed during an upload")
        fail(503, "storage/failed", "the database failed while storing this upload: "
             + storage.explain_failure(exc))
    data = {"summary": tally.as_dict(), "games": [outcome.to_json() for outcome in outcomes]}
    failed = sum(1 for outcome in outcomes if outcome.internal)
    if failed:
        return _partial_failure(failed, data)
    return envelope(data)


def _partial_failure(failed: int, data: dict[str, Any]) -> Response:
    """500 with the whole report: the recorder failed on some documents, not on all.

    The status says that something went wrong on our side; the report still says
    what became of every game (the others were stored or refused as usual), so a
    client retries only the games whose ``error.code`` starts with ``internal/``.
    """
    body = {
        "ok": False,
        "status": 500,
        "error": {
            "code": "internal/documents",
            "message": f"the recorder failed on {failed} of the {len(data['games'])} "
                       "documents (their reports say internal/...); the error is logged. "
                       "The other documents were handled as usual: see data.games",
        },
        "data": data,
    }
    return current_app.response_class(
        json.dumps(body, ensure_ascii=False) + "\n", status=500, mimetype="application/json")


# ---------------------------------------------------------------------------------------
# Reading.


def _boolean(name: str, value: str) -> bool:
    lowered = value.strip().lower()
    if lowered in {"1", "true", "yes"}:
        return True
    if lowered in {"0", "false", "no"}:
        return False
    fail(400, "query/invalid", f"{name} must be true or false, not {value!r}")


def _moment(name: str, value: str, *, end_of_day: bool) -> str:
    """A ``since``/``until`` value as stored timestamps are written (UTC, to the second).

    A bare date means the whole day: ``since`` from its first second, ``until`` to its last.
    """
    text = value.strip()
    if len(text) == 10:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            pass
        else:
            return f"{day.isoformat()}T{'23:59:59' if end_of_day else '00:00:00'}Z"
    moment = storage.normalize_timestamp(text)
    if moment is None and _iso_moment(text):
        fail(400, "query/invalid",
             f"{name} must fall between the years 0001 and 9999 once in UTC, as every "
             f"stored date does; {value!r} does not")
    if moment is None:
        fail(400, "query/invalid",
             f"{name} must be an ISO 8601 date or date-time (2026-11-29, "
             f"2026-11-29T18:00:00Z), not {value!r}")
    return moment


def _iso_moment(text: str) -> bool:
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _integer(name: str, value: str, *, low: int, high: int = storage.MAX_INTEGER) -> int:
    """A whole number of the query string within its range (every one is, at most, the
    largest INTEGER SQLite stores), or the 400 that says what it must be."""
    try:
        number = int(value)
    except ValueError:
        fail(400, "query/invalid", f"{name} must be a whole number, not {value[:40]!r}")
    if number < low or number > high:
        bound = f"at least {low}" if high == storage.MAX_INTEGER and number < low else \
            f"at most {high}" if high == storage.MAX_INTEGER else f"between {low} and {high}"
        shown = str(number) if len(value) <= 40 else f"a number of {len(value)} digits"
        fail(400, "query/invalid", f"{name} must be {bound}, not {shown}")
    return number


def frontend_filter(value: str | None) -> str | None:
    """A ``frontend`` filter in the normal form the names are stored in (recorder.names):
    ``Spilop-App`` finds the games of ``spilop-app``."""
    if value is not None and names.acceptable(value):
        return names.frontend_key(value)
    return value


def game_filter(args: Mapping[str, str] | None = None,
                allowed: frozenset[str] = LIST_PARAMS) -> storage.GameFilter:
    """The filters of the query string, each checked, with a 400 that names a bad one.

    ``args`` defaults to the request's query string; ``allowed`` is every parameter the
    address takes (the games page adds its sort and paging parameters).
    """
    if args is None:
        args = request.args
    unknown = sorted(set(args) - allowed)
    if unknown:
        fail(400, "query/unknown-parameter",
             f"unknown parameter {', '.join(unknown)}; this list takes "
             + ", ".join(sorted(allowed)))
    status = args.get("status")
    if status is not None and status not in storage.STATUSES:
        fail(400, "query/invalid",
             f"status must be one of {', '.join(storage.STATUSES)}, not {status!r} "
             "(invalid games are never stored)")
    search = args.get("q")
    if search is not None and len(search) > 200:
        fail(400, "query/invalid", "q must be at most 200 characters")
    return storage.GameFilter(
        player=args.get("player"),
        preset=args.get("preset"),
        variant=args.get("variant"),
        variants=_rule_variants(args["rule"]) if "rule" in args else None,
        frontend=frontend_filter(args.get("frontend")),
        status=status,
        blocked=_boolean("blocked", args["blocked"]) if "blocked" in args else None,
        since=_moment("since", args["since"], end_of_day=False) if "since" in args else None,
        until=_moment("until", args["until"], end_of_day=True) if "until" in args else None,
        players=_integer("players", args["players"], low=1, high=100)
        if "players" in args else None,
        search=search,
    )


def _rule_variants(rule: str) -> tuple[str, ...]:
    """The stored variants whose rules have ``rule`` (``bonus``, ``target``): the games a
    figure of the statistics that only those rules make is counted over."""
    if rule not in figures.SCOPES:
        fail(400, "query/invalid",
             f"rule must be one of {', '.join(figures.SCOPES)}, not {rule!r}")
    return tuple(v for v in storage.distinct_values(get_db(), "variant")
                 if figures.in_scope(v, rule))


def _format() -> str:
    fmt = request.args.get("format")
    if fmt is None:
        accept = request.accept_mimetypes
        fmt = "jsonl" if accept.best == JSONL_MIMETYPE else "json"
    if fmt not in FORMATS:
        fail(400, "query/invalid", f"format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return fmt


@bp.get("/openapi.json")
def openapi_document() -> Response:
    """The API's contract (OpenAPI 3.1): every address, parameter, answer and limit."""
    return current_app.response_class(openapi.text(), mimetype="application/json")


@bp.get("/games")
def list_games() -> Response:
    """Games matching the filters: a page of JSON, or every match streamed as JSON Lines.

    ``format=jsonl`` streams one summary a line; ``format=logs`` streams the stored logs
    themselves, one a line, which ``recorder import`` reads back.
    """
    flt = game_filter()
    fmt = _format()
    descending = request.args.get("order", "asc") == "desc"
    if request.args.get("order", "asc") not in {"asc", "desc"}:
        fail(400, "query/invalid", "order must be asc or desc")
    after = (
        _integer("cursor", request.args["cursor"], low=0) if "cursor" in request.args else None
    )
    page_size = current_app.config["PAGE_SIZE"]
    limit = _integer(  # checked for a stream too, which sends every match: a bad one is said
        "limit", request.args.get("limit", str(page_size)), low=1,
        high=current_app.config["MAX_PAGE_SIZE"],
    )
    db = get_db()
    if fmt != "json":
        return _stream(flt, fmt, after=after, descending=descending)
    rows = list(storage.select_games(db, flt, after=after, limit=limit + 1,
                                     descending=descending))
    more = len(rows) > limit
    rows = rows[:limit]
    next_url = None
    if more:
        params = {k: v for k, v in request.args.items() if k != "cursor"}
        params["cursor"] = str(rows[-1]["id"])
        next_url = f"{request.path}?{urlencode(params)}"
    meta = {"total": storage.count_games(db, flt), "limit": limit, "next": next_url}
    return envelope(rows, meta=meta)


def _stream(flt: storage.GameFilter, fmt: str, *, after: int | None,
            descending: bool) -> Response:
    """Every match, one JSON object a line, read from the cursor as it is sent.

    The first line is made before the answer starts, so a failure there is answered
    with the error envelope and its status, as any other request's. Once lines are
    sent the status cannot change: a failure then ends the stream with the error
    envelope as its last line, and a complete stream ends with :func:`end_line`
    instead, so that a reader can always tell a whole export from a cut one.
    """
    columns = ("id", "log") if fmt == "logs" else storage.SUMMARY_COLUMNS

    def line(row: dict[str, Any]) -> str:
        if fmt == "logs":
            return json.dumps(json.loads(row["log"]), ensure_ascii=False,
                              separators=(",", ":")) + "\n"
        return json.dumps(row, ensure_ascii=False) + "\n"

    # The stream's own connection: the request's is closed when the view returns,
    # before the answer is sent.
    db = storage.connect(current_app.config["DATABASE"], migrate=False)
    try:
        rows = storage.select_games(db, flt, columns=columns, after=after,
                                    descending=descending)
        first = next(rows, None)
        head = [] if first is None else [line(first)]
    except BaseException:
        db.close()
        raise

    def lines() -> Iterator[str]:
        sent = 0
        try:
            yield from head
            sent = len(head)
            for row in rows:
                text = line(row)
                yield text
                sent += 1
        except Exception:
            current_app.logger.exception("the export failed after %d lines", sent)
            yield json.dumps({"ok": False, "status": 500, "error": {
                "code": "http/internal",
                "message": f"the recorder failed after {sent} games of this export, which "
                           "is incomplete; the error is logged"}}) + "\n"
            return
        yield end_line(sent)

    response = Response(stream_with_context(lines()), mimetype=JSONL_MIMETYPE)
    response.call_on_close(db.close)
    return response


def not_found(game_pk: int) -> NoReturn:
    """404 for a game id; an id whose game was found to be another stored game's twin says
    which one it is now (``kept``)."""
    kept = storage.merged_into(get_db(), game_pk)
    if kept is not None:
        fail(404, "game/not-found", f"there is no game #{game_pk}: it was game #{kept} stored "
             f"twice, and is now /api/games/{kept}", kept=kept)
    fail(404, "game/not-found", f"there is no game #{game_pk}")


def _stored(game_pk: int) -> dict[str, Any]:
    row = storage.get_game(get_db(), game_pk)
    if row is None:
        not_found(game_pk)
    return row


@bp.get("/games/<int:game_pk>")
def get_game(game_pk: int) -> Response:
    """One game: its summary, its log (as JSON) and the engine's answer."""
    row = _stored(game_pk)
    data = storage.decode_row({k: v for k, v in row.items() if k not in {"log", "answer"}})
    data["log"] = json.loads(row["log"])
    data["answer"] = json.loads(row["answer"])
    return envelope(data)


@bp.get("/games/<int:game_pk>/log")
def get_log(game_pk: int) -> Response:
    """The log exactly as it was received, byte for byte of its text."""
    row = _stored(game_pk)
    return Response(row["log"], mimetype="application/json")


# ---------------------------------------------------------------------------------------
# Replay frames (docs/frames.md).


class FramesCache:
    """The answers of recent frames requests, up to a budget of bytes, newest kept.

    A stored game never changes (its id always names the same content), so its frames
    are built once and served again as the same bytes, kept gzip-compressed: opening a
    game a second time, or by a second viewer, costs a lookup instead of a replay. Keyed
    by the database file, the game and its content hash; emptied when the process
    restarts (as a new version of the recorder does).
    """

    def __init__(self) -> None:
        self._items: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
        self._size = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[str, int, str]) -> bytes | None:
        with self._lock:
            body = self._items.get(key)
            if body is not None:
                self._items.move_to_end(key)
            return body

    def put(self, key: tuple[str, int, str], body: bytes, budget: int) -> None:
        if len(body) > budget:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._size -= len(old)
            self._items[key] = body
            self._size += len(body)
            while self._size > budget:
                _, dropped = self._items.popitem(last=False)
                self._size -= len(dropped)


frames_cache = FramesCache()


def check_frames_size(doc: Any, *, stored: bool = False) -> None:
    """Refuse (413) a log too long to send as frames, before any is built: each frame
    repeats the board. A log sent to be watched (no token, nothing stored) is held to
    ``WATCH_MAX_MOVES``, a stored game to ``FRAMES_MAX_MOVES``."""
    setting = "FRAMES_MAX_MOVES" if stored else "WATCH_MAX_MOVES"
    limit = int(current_app.config.get(setting, 0))
    moves = move_count(doc)
    if limit and moves > limit:
        what = "" if stored else " of a log that is not stored"
        raise UnreadableLog(413, "input/too-many-moves",
                            f"the log has {moves:,} moves; frames{what} are built for at "
                            f"most {limit:,}")


def watched_frames(doc: Any) -> dict[str, Any]:
    """The frames of a log sent to be watched, or 413 when they would be larger than
    ``WATCH_MAX_BYTES`` as JSON (a frame holds every hand: a long game with many tiles
    makes large frames even under the moves limit)."""
    frames = build_frames(doc)
    most = int(current_app.config["WATCH_MAX_BYTES"])
    size = len(json.dumps(frames, ensure_ascii=False, separators=(",", ":")).encode())
    if size > most:
        raise UnreadableLog(413, "frames/too-large",
                            f"the frames of this log are {limits.size(size)}; at most "
                            f"{limits.size(most)} is sent for a log that is not stored")
    return frames


@bp.get("/games/<int:game_pk>/frames")
def game_frames(game_pk: int) -> Response:
    """The frames of a stored game: the table after every move, for the replay page."""
    db = get_db()
    found = db.execute("SELECT content_hash FROM games WHERE id = ?", [game_pk]).fetchone()
    if found is None:
        not_found(game_pk)
    budget = int(current_app.config.get("FRAMES_CACHE_BYTES", 0))
    key = (str(current_app.config["DATABASE"]), game_pk, str(found[0]))
    body = frames_cache.get(key) if budget else None
    if body is None:
        row = storage.get_game(db, game_pk)
        if row is None:  # pragma: no cover - removed between the two reads
            fail(404, "game/not-found", f"there is no game #{game_pk}")
        doc = json.loads(row["log"])
        try:
            check_frames_size(doc, stored=True)
        except UnreadableLog as exc:
            fail(exc.status, exc.code, exc.message)
        response = envelope(build_frames(doc, game_pk=game_pk), compact=True)
        size = response.content_length or len(response.get_data())
        most = int(current_app.config["FRAMES_MAX_BYTES"])
        if size > most:  # kept neither in the cache nor sent: a long game of many tiles
            fail(413, "frames/too-large",
                 f"the frames of game #{game_pk} are {limits.size(size)}; at most "
                 f"{limits.size(most)} of frames is sent for a stored game")
        if not budget:
            return response  # compressed on its way out, for a client that accepts gzip
        # kept gzip-compressed: a twentieth of the memory, and no compression per viewer
        packed = gzip_bytes(response.get_data())
        frames_cache.put(key, packed, budget)
        return precompressed(packed) if accepts_gzip() else response
    return precompressed(body)


class UnreadableLog(Exception):
    """A body, or the chosen document of it, that cannot be read as a log at all."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def pick_document(data: bytes, index: int, limits: Limits | None) -> Any:
    """Document ``index`` of an upload body, or :class:`UnreadableLog` saying why not.

    Shared by ``POST /api/frames`` and the watch page, so both read a body exactly as an
    upload does (one document, an array, JSON Lines; gzip or not) under the same limits,
    ``MAX_DOCUMENTS`` included. Of JSON Lines only the chosen line is parsed (and the
    first two, which tell the shape): the others are counted, not read.
    """
    lim = limits or Limits()
    seen = 0
    try:
        for item in iter_documents_raw(data, limits=lim, max_documents=max_documents()):
            seen += 1
            if item.index != index:
                continue
            parsed = item if isinstance(item, Parsed) else parse_line(item, lim)
            if parsed.error is not None:
                raise UnreadableLog(400, parsed.error.code, parsed.error.message)
            return parsed.doc
    except InputError as exc:
        raise UnreadableLog(413 if _too_large(exc) else 400, exc.code,
                            exc.message) from None
    if seen == 0:
        raise UnreadableLog(400, "input/empty", "the body holds no document")
    what = "1 document (index 0)" if seen == 1 else \
        f"{seen} documents (index 0 to {seen - 1})"
    raise UnreadableLog(400, "input/no-such-document",
                        f"there is no document {index}: the body holds {what}")


def max_documents() -> int:
    return limits.max_documents()


@bp.post("/frames")
def frames_of_body() -> Response:
    """The frames of a log sent in the body; nothing is stored and no token is needed.

    A refused log still answers 200: its frames go up to the move before the error,
    and ``error`` says what broke. Only a body that cannot be read is an error.
    """
    unknown = sorted(set(request.args) - {"index"})
    if unknown:
        fail(400, "query/unknown-parameter",
             f"unknown parameter {', '.join(unknown)}; this address takes index")
    index = _integer("index", request.args.get("index", "0"), low=0,
                     high=max_documents() - 1)
    data = upload_body()
    try:
        doc = pick_document(data, index, parse_limits())
        check_frames_size(doc)
        frames = watched_frames(doc)
    except UnreadableLog as exc:
        fail(exc.status, exc.code, exc.message)
    return envelope(frames, compact=True)


# ---------------------------------------------------------------------------------------
# Game review (docs/review.md).


def review_settings() -> Settings:
    """The review's settings of the query string: the view (player by default); the
    samples and the limits are the review's defaults, so every client shares one review."""
    unknown = sorted(set(request.args) - {"view"})
    if unknown:
        fail(400, "query/unknown-parameter",
             f"unknown parameter {', '.join(unknown)}; this address takes view")
    view = request.args.get("view", "player")
    if view not in ("player", "perfect"):
        fail(400, "query/invalid", f"view must be player or perfect, not {view!r}")
    return Settings(view=view)


@bp.get("/games/<int:game_pk>/review")
def game_review(game_pk: int) -> Response:
    """A stored game's review: stored, or computed now within the time budget, else queued.

    200: the review (``meta.state`` ``stored``, or ``computed`` by this request). 202:
    still being computed (``data`` says how far, with the rounds done so far; ask again
    after ``Retry-After`` seconds). 503: the queue is full, or the review failed.
    """
    settings = review_settings()
    db = get_db()
    if db.execute("SELECT 1 FROM games WHERE id = ?", [game_pk]).fetchone() is None:
        fail(404, "game/not-found", f"there is no game #{game_pk}")
    key = reviews.settings_key(settings)
    stored = reviews.load(db, game_pk, settings)
    if stored.complete:
        return _review_answer(db, game_pk, settings, stored, "stored")
    config = current_app.config
    work = review_queue.queue_for(str(config["DATABASE"]), int(config["REVIEW_QUEUE"]))
    job = work.submit(game_pk, settings)
    retry = int(config["REVIEW_RETRY_SECONDS"])
    if job is None:
        error = error_envelope(
            503, "review/queue-full",
            f"{work.size} games are waiting for their review already, the most this server "
            f"queues; ask again in {retry} s")
        error.headers["Retry-After"] = str(retry)
        return error
    if job.wait(float(config["REVIEW_BUDGET_SECONDS"])) and job.state == "done":
        return _review_answer(db, game_pk, settings, reviews.load(db, game_pk, settings),
                              "computed")
    if job.state == "failed":
        error = error_envelope(503, "review/failed",
                               f"{job.error or 'the review failed'}; ask again in {retry} s "
                               "to try once more")
        error.headers["Retry-After"] = str(retry)
        return error
    stored = reviews.load(db, game_pk, settings)
    partial = reviews.assembled(db, game_pk, settings, stored)
    data = {"state": job.state, "game": game_pk, "position": work.position(job),
            "rounds_done": len(stored.rounds), "rounds_total": job.rounds_total,
            "review": partial,
            "evaluation": reviews.evaluation(partial, reviews.sides_of(db, game_pk))}
    response = envelope(data, status=202, compact=True,
                        meta={"state": job.state, "settings": key, "retry_after": retry})
    response.headers["Retry-After"] = str(retry)
    return response


def _review_answer(db: Any, game_pk: int, settings: Settings, stored: reviews.Stored,
                   state: str) -> Response:
    """200 with a whole review, and the evaluation graph the replay page draws."""
    review = reviews.assembled(db, game_pk, settings, stored)
    review["evaluation"] = reviews.evaluation(review, reviews.sides_of(db, game_pk))
    return envelope(review, compact=True,
                    meta={"state": state, "settings": reviews.settings_key(settings)})
