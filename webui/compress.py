"""gzip for the JSON API: an answer under ``/api`` is compressed when the client accepts it.

JSON compresses well (the frames of a long game, about 3.8 MB, go down to about 5% of
that), and the browser undoes it at no cost, so every JSON answer of 1 KiB or more is sent
gzip-compressed to a client whose ``Accept-Encoding`` takes gzip, JSON Lines streams
included (compressed as they are sent, chunk by chunk). Smaller answers and other clients
get the bytes as they are; every answer that could be compressed says ``Vary:
Accept-Encoding`` so a cache keeps the two apart. The pages and the static files are left
alone (plotly.js comes gzipped on its own, ``webui.stats``).

``python bench/server.py`` and docs/benchmarks.md give the sizes before and after.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterable, Iterator
from typing import Any

from flask import Flask, request
from werkzeug.wrappers import Response

MIN_BYTES = 1024
"""Answers smaller than this are sent as they are: gzip would save next to nothing."""
LEVEL = 6
"""zlib's default: most of the gain of 9 at a third of its time."""
COMPRESSIBLE = frozenset({"application/json", "application/x-ndjson"})


def accepts_gzip() -> bool:
    """Whether the request's ``Accept-Encoding`` takes gzip (``q=0`` refuses it)."""
    return request.accept_encodings.quality("gzip") > 0


def gzip_bytes(body: bytes) -> bytes:
    """``body`` gzip-compressed, the same bytes every time (no timestamp in the header)."""
    return gzip.compress(body, compresslevel=LEVEL, mtime=0)


def _wanted(response: Response) -> bool:
    path = request.path
    return (path == "/api" or path.startswith("/api/")) \
        and response.mimetype in COMPRESSIBLE and "Content-Encoding" not in response.headers


def _gzip_stream(chunks: Iterable[Any]) -> Iterator[bytes]:
    """A streamed answer compressed as it goes; the stream is closed when this is."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, 16 + zlib.MAX_WBITS)  # gzip framing
    try:
        for chunk in chunks:
            data = chunk.encode() if isinstance(chunk, str) else chunk
            out = packer.compress(data)
            if out:
                yield out
        yield packer.flush()
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()


def compress_answer(response: Response) -> Response:
    """The ``after_request`` hook: gzip a JSON answer for a client that accepts it."""
    if not _wanted(response):
        return response
    response.vary.add("Accept-Encoding")
    if not accepts_gzip() or request.method == "HEAD" or response.status_code in (204, 304):
        return response
    if response.is_streamed:
        response.response = _gzip_stream(response.response)
        response.headers.pop("Content-Length", None)
        response.headers["Content-Encoding"] = "gzip"
        return response
    body = response.get_data()
    if len(body) < MIN_BYTES:
        return response
    response.set_data(gzip_bytes(body))
    response.headers["Content-Encoding"] = "gzip"
    return response


def precompressed(packed: bytes, *, mimetype: str = "application/json") -> Response:
    """An answer kept gzip-compressed (the frames cache): as it is for a client that
    accepts gzip, decompressed for one that does not."""
    from flask import current_app

    if accepts_gzip() and request.method != "HEAD":
        response = current_app.response_class(packed, mimetype=mimetype)
        response.headers["Content-Encoding"] = "gzip"
    else:
        response = current_app.response_class(gzip.decompress(packed), mimetype=mimetype)
    response.vary.add("Accept-Encoding")
    return response


def init_app(app: Flask) -> None:
    app.after_request(compress_answer)
