"""The service's limits: one set of numbers, stated once (docs/service.md), obeyed everywhere.

Every request does bounded work whatever it carries:

* bytes as sent (``MAX_CONTENT_LENGTH``, also given to waitress as its body limit), bytes
  once gzip is undone (``PARSE_LIMITS.max_input_bytes``) and documents
  (``MAX_DOCUMENTS``), each counted against one budget per request, however many files
  a form carries (:class:`Budget`);
* Flask's own form limits follow from the documented ones: a text field may hold what
  the watch page takes pasted (``MAX_FORM_MEMORY_SIZE``), a form as many parts as the
  upload form takes files (``UPLOAD_MAX_FILES``, and so ``MAX_FORM_PARTS``); the form's
  files are streamed, never held whole, and its report carries at most
  ``UPLOAD_REPORT_TEXT_BYTES`` of refused documents' text;
* the frames of a log that is not stored (``WATCH_MAX_MOVES``, ``WATCH_MAX_BYTES``), and
  of a stored game (``FRAMES_MAX_MOVES``, ``FRAMES_MAX_BYTES``);
* requests that need no token are rate-limited per client address (flask-limiter, in
  memory unless ``RATELIMIT_STORAGE_URI`` names a shared store): ``RATELIMIT_READS``
  for every page and API read, ``RATELIMIT_REPLAYS`` for the replay of a posted log,
  ``RATELIMIT_EXPORTS`` for the streamed exports, ``RATELIMIT_REVIEWS`` for a game's
  review; and the requests a token opens are limited by their refusals:
  ``RATELIMIT_SIGNINS`` for refused sign-ins, ``RATELIMIT_REFUSED_UPLOADS`` for uploads
  refused for their token (none, unknown, revoked, not for uploading);
* a game's review: a request waits at most ``REVIEW_BUDGET_SECONDS`` for it, then is
  answered as queued; at most ``REVIEW_QUEUE`` games wait for their review at once.

A limit that is reached is answered before the work it bounds: 413 (or 429) with a
message that names the limit, in the error envelope under ``/api`` and on the page
elsewhere.
"""

from __future__ import annotations

import ipaddress
import math
import os
import time
from dataclasses import dataclass, replace
from typing import Any

from flask import Flask, current_app, g, request
from flask_limiter import Limiter

from recorder import parse
from recorder.errors import TooLarge, TooManyDocuments
from recorder.parse import Limits

KiB = 1024
MiB = 1024 * KiB

DEFAULTS: dict[str, Any] = {
    "MAX_CONTENT_LENGTH": 32 * MiB,
    "PARSE_LIMITS": None,  # a recorder.parse.Limits; None: Limits(), 64 MiB expanded
    "MAX_DOCUMENTS": 10_000,
    "UPLOAD_MAX_FILES": 1000,
    "MAX_FORM_MEMORY_SIZE": 1 * MiB,
    "UPLOAD_REPORT_TEXT_BYTES": 4 * MiB,
    "FRAMES_MAX_MOVES": 20_000,
    "FRAMES_MAX_BYTES": 64 * MiB,
    "WATCH_MAX_MOVES": 5_000,
    "WATCH_MAX_BYTES": 16 * MiB,
    "RATELIMIT_ENABLED": True,
    "RATELIMIT_STORAGE_URI": "memory://",
    "RATELIMIT_READS": "600 per minute",
    "RATELIMIT_REPLAYS": "30 per minute",
    "RATELIMIT_EXPORTS": "30 per minute",
    "RATELIMIT_REVIEWS": "60 per minute",
    "RATELIMIT_SIGNINS": "10 per minute",
    "RATELIMIT_REFUSED_UPLOADS": "30 per minute",
    "REVIEW_BUDGET_SECONDS": 1.5,
    "REVIEW_QUEUE": 16,
    "REVIEW_RETRY_SECONDS": 2,
}
"""Every limit's default, by its setting's name (docs/service.md, *Limits*)."""

ENVIRONMENT = {
    "MAX_CONTENT_LENGTH": "RECORDER_MAX_CONTENT_LENGTH",
    "MAX_DOCUMENTS": "RECORDER_MAX_DOCUMENTS",
    "RATELIMIT_ENABLED": "RECORDER_RATELIMIT_ENABLED",
    "RATELIMIT_STORAGE_URI": "RECORDER_RATELIMIT_STORAGE_URI",
    "RATELIMIT_READS": "RECORDER_RATELIMIT_READS",
    "RATELIMIT_REPLAYS": "RECORDER_RATELIMIT_REPLAYS",
    "RATELIMIT_EXPORTS": "RECORDER_RATELIMIT_EXPORTS",
    "RATELIMIT_REVIEWS": "RECORDER_RATELIMIT_REVIEWS",
    "RATELIMIT_SIGNINS": "RECORDER_RATELIMIT_SIGNINS",
    "RATELIMIT_REFUSED_UPLOADS": "RECORDER_RATELIMIT_REFUSED_UPLOADS",
    "REVIEW_BUDGET_SECONDS": "RECORDER_REVIEW_BUDGET_SECONDS",
    "REVIEW_QUEUE": "RECORDER_REVIEW_QUEUE",
}
"""The settings the environment may set (it wins over ``instance/config.py``)."""

MAX_REVIEW_BUDGET = 30.0
"""The longest a review request may wait for its review (a thread of the server waits)."""

FORM_FIELDS = 8
"""Parts a form may carry besides the upload form's files (its token, and room)."""


def from_environment(app: Flask) -> None:
    """The ``RECORDER_*`` variables of :data:`ENVIRONMENT` that are set, checked."""
    for setting, name in ENVIRONMENT.items():
        raw = os.environ.get(name)
        if raw is None or not raw.strip():
            continue
        default = DEFAULTS[setting]
        value: Any = raw.strip()
        if isinstance(default, bool):
            value = value.lower() in {"1", "true", "yes", "on"}
        elif isinstance(default, int):
            try:
                value = int(value)
            except ValueError:
                raise ValueError(f"{name} must be a whole number, not {raw!r}") from None
        elif isinstance(default, float):
            try:
                value = float(value)
            except ValueError:
                raise ValueError(f"{name} must be a number of seconds, not {raw!r}") from None
        app.config[setting] = value


def settle(app: Flask) -> None:
    """Make Flask's own limits agree with the documented ones, and check them."""
    config = app.config
    for name in ("MAX_CONTENT_LENGTH", "MAX_DOCUMENTS", "UPLOAD_MAX_FILES",
                 "MAX_FORM_MEMORY_SIZE", "UPLOAD_REPORT_TEXT_BYTES", "WATCH_MAX_MOVES",
                 "WATCH_MAX_BYTES", "FRAMES_MAX_BYTES"):
        value = config[name]
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive whole number, not {value!r}")
    for name in ("REVIEW_QUEUE", "REVIEW_RETRY_SECONDS"):
        value = config[name]
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive whole number, not {value!r}")
    budget = config["REVIEW_BUDGET_SECONDS"]
    if not isinstance(budget, int | float) or isinstance(budget, bool) or \
            not 0 <= budget <= MAX_REVIEW_BUDGET:
        raise ValueError(f"REVIEW_BUDGET_SECONDS must be a number of seconds from 0 to "
                         f"{MAX_REVIEW_BUDGET:g}, not {budget!r}")
    # Flask's own form limits follow ours (its defaults, 500,000 bytes and 1,000 parts,
    # contradicted them)
    config["MAX_FORM_PARTS"] = config["UPLOAD_MAX_FILES"] + FORM_FIELDS


def parse_limits() -> Limits:
    """The parser's limits of this app (``PARSE_LIMITS``, else the parser's defaults)."""
    limits = current_app.config.get("PARSE_LIMITS")
    return limits if isinstance(limits, Limits) else parse.DEFAULT_LIMITS


def max_documents() -> int:
    return int(current_app.config["MAX_DOCUMENTS"])


def size(n: int) -> str:
    """A byte count as the messages and the docs write it: ``32 MiB``, ``1.5 KiB``."""
    return parse._size(n)


def exact_size(n: int) -> str:
    """A limit in a message: ``32 MiB (33554432 bytes)``, or ``1000 bytes``."""
    return f"{size(n)} ({n} bytes)" if n >= KiB else f"{n} bytes"


# ---------------------------------------------------------------------------------------
# One budget per request.


@dataclass
class Budget:
    """What the files of one request may still make the parser read, all together.

    A form may carry many files; each is streamed against what the ones before it left,
    so a request costs at most one body's worth of expanded bytes and documents
    however it is cut into files (100 gzip files of 63 MiB of newlines each would
    otherwise cost 100 times the work of one).
    """

    limits: Limits
    max_documents: int
    bytes_left: int
    documents_left: int

    @classmethod
    def of_request(cls) -> Budget:
        limits = parse_limits()
        documents = max_documents()
        return cls(limits, documents, limits.max_input_bytes, documents)

    @property
    def fresh(self) -> bool:
        return self.bytes_left == self.limits.max_input_bytes and \
            self.documents_left == self.max_documents

    def file_limits(self) -> Limits:
        """The parser's limits for the next file: what the files before it left of the
        expanded bytes, which its streamed read may not pass (``max_stream_bytes``), nor
        a shape read whole (``max_input_bytes``); raises :class:`TooLarge` when nothing
        is left."""
        if self.bytes_left < 1:
            raise self._spent_bytes()
        return replace(self.limits, max_stream_bytes=self.bytes_left,
                       max_input_bytes=min(self.limits.max_input_bytes, self.bytes_left))

    def spent(self, expanded: int) -> None:
        """A file was read: ``expanded`` bytes once gzip was undone."""
        self.bytes_left -= expanded

    def too_large(self, exc: TooLarge, fresh: bool, expanded: int) -> TooLarge:
        """The parser's refusal, worded for the whole request when the files before this
        one took what it ran past (it read ``expanded`` bytes)."""
        if fresh or expanded <= self.bytes_left:
            return exc  # this file alone is too large, or one of its documents is
        return self._spent_bytes()

    def documents(self) -> int:
        """How many documents the next file may hold."""
        if self.documents_left < 1:
            raise self._spent_documents()
        return self.documents_left

    def took(self, documents: int) -> None:
        self.documents_left -= documents

    def too_many(self, exc: TooManyDocuments, fresh: bool) -> TooManyDocuments:
        """The parser's refusal, worded for the whole request when files came before."""
        return exc if fresh else self._spent_documents()

    def _spent_bytes(self) -> TooLarge:
        return TooLarge(
            f"the files of one upload may expand to {size(self.limits.max_input_bytes)} "
            "together (once gzip is undone), and the files before this one took the "
            "rest; send it in another upload")

    def _spent_documents(self) -> TooManyDocuments:
        return TooManyDocuments(
            f"the files of one upload may hold {self.max_documents:,} documents together, "
            "and the files before this one took the rest; send it in another upload")


# ---------------------------------------------------------------------------------------
# What a 413 says.


def too_large_message() -> str:
    """Why Flask refused a request as too large (413), naming the true limit.

    Flask says only "too large"; the cause is one of three limits: the body
    (``MAX_CONTENT_LENGTH``), a form's text field (``MAX_FORM_MEMORY_SIZE``: the watch
    page's pasted log) or a form's parts (``MAX_FORM_PARTS``: the upload form's files).
    """
    config = current_app.config
    body = int(config["MAX_CONTENT_LENGTH"])
    length = request.content_length
    if length is None or length > body or request.endpoint not in {"games.watch",
                                                                   "upload.form_upload"}:
        return (f"the request is larger than {exact_size(body)}, the most this server "
                "takes in one request")
    if request.endpoint == "games.watch":
        return pasted_too_large()
    return too_many_files()


def pasted_too_large() -> str:
    most = int(current_app.config["MAX_FORM_MEMORY_SIZE"])
    body = int(current_app.config["MAX_CONTENT_LENGTH"])
    return (f"the pasted log is larger than {size(most)}, the most the page takes pasted; "
            f"choose the file instead (up to {size(body)})")


def too_many_files() -> str:
    most = int(current_app.config["UPLOAD_MAX_FILES"])
    return (f"the form sends more than {most:,} files at once, the most it takes; send "
            "fewer at a time, or use the page with JavaScript on, which sends each file "
            "by itself")


# ---------------------------------------------------------------------------------------
# Rate limits.


def retry_after() -> int | None:
    """Seconds until the limit this request broke lets its address in again."""
    limiter = current_app.extensions.get("recorder.limiter")
    if limiter is not None:
        current = limiter.current_limit
        if current is not None and current.breached:
            return max(1, math.ceil(current.window[0] - time.time()))
    return None


def rate_limited_message(exc: Exception) -> str:
    """What a 429 says: the limit reached, and when it lets this address in again."""
    limit = getattr(exc, "description", None) or "the limit"
    wait = retry_after()
    again = f"; try again in {wait} s" if wait is not None else ""
    return f"too many requests from this address (at most {limit}){again}"


REPLAYS = ("api.frames_of_body", "games.watch")
"""The addresses that replay a log sent in the body (a few hundred ms of CPU each)."""
EXPORTS = ("api.list_games",)
"""The address whose streamed formats read every matching game."""
REVIEWS = ("api.game_review",)
"""The address that may review a game (seconds of CPU) or wait for its review."""
SIGNINS = ("signin.sign_in",)
"""The sign-in, whose refusals are counted (a token guessed is a token tried)."""
UPLOADS = ("api.upload_games", "upload.form_upload")
"""The uploads, whose refusals for their token are counted, together."""


def refuse_token() -> None:
    """Mark this request as refused for its token, for the limit of such refusals (a
    valid token is never throttled: it is revoked)."""
    g.token_refused = True


def _refused_for_token(_response: Any) -> bool:
    return bool(g.get("token_refused"))


def _refused(response: Any) -> bool:
    return int(response.status_code) >= 400


def client_address() -> str:
    """Whom a rate limit counts: the client's address, or its /64 for IPv6 (one host
    is usually given a whole /64). Behind a reverse proxy this is the proxy's address
    unless the server is told to trust its ``X-Forwarded-For`` (docs/service.md)."""
    remote = request.remote_addr or ""
    try:
        address = ipaddress.ip_address(remote)
    except ValueError:
        return remote
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


def _not_a_read() -> bool:
    return request.method not in {"GET", "HEAD"}


def _not_a_stream() -> bool:
    fmt = request.args.get("format")
    if fmt is None:
        return request.accept_mimetypes.best != "application/x-ndjson"
    return fmt not in {"jsonl", "logs"}


def init_rate_limits(app: Flask) -> Limiter:
    """This app's own limiter (its counters are its own: two apps in one process, as in
    the tests, do not share them); the limits are read from the config on every request."""
    config = app.config
    limiter = Limiter(
        client_address,
        # one count for every read of this address, whatever the page or API address
        application_limits=[lambda: str(current_app.config["RATELIMIT_READS"])],
        application_limits_exempt_when=_not_a_read,
        headers_enabled=False,  # Retry-After goes on a 429 only (webui.api)
        storage_uri=str(config["RATELIMIT_STORAGE_URI"]),
        enabled=bool(config["RATELIMIT_ENABLED"]),
    )
    limiter.init_app(app)
    app.extensions["recorder.limiter"] = limiter  # the views' wrappers hold it weakly
    for endpoint in REPLAYS:
        app.view_functions[endpoint] = limiter.limit(
            lambda: str(current_app.config["RATELIMIT_REPLAYS"]))(app.view_functions[endpoint])
    for endpoint in REVIEWS:
        app.view_functions[endpoint] = limiter.limit(
            lambda: str(current_app.config["RATELIMIT_REVIEWS"]))(app.view_functions[endpoint])
    for endpoint in SIGNINS:
        app.view_functions[endpoint] = limiter.limit(
            lambda: str(current_app.config["RATELIMIT_SIGNINS"]), deduct_when=_refused,
            methods=["POST"])(app.view_functions[endpoint])
    refused_uploads = limiter.shared_limit(
        lambda: str(current_app.config["RATELIMIT_REFUSED_UPLOADS"]), "refused-uploads",
        deduct_when=_refused_for_token)
    for endpoint in UPLOADS:
        app.view_functions[endpoint] = refused_uploads(app.view_functions[endpoint])
    for endpoint in EXPORTS:
        app.view_functions[endpoint] = limiter.limit(
            lambda: str(current_app.config["RATELIMIT_EXPORTS"]), exempt_when=_not_a_stream,
            override_defaults=False)(app.view_functions[endpoint])
    return limiter
