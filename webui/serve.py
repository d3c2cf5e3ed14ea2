"""Serve: the app under waitress, as ``recorder serve`` runs it (and production may).

waitress reads each request before the app sees it and answers some requests itself: a
malformed one (400), a body over its limit (413), headers over its limit (431), an
application that failed before its first byte (500). Here waitress's limit on bodies is
the app's own (``MAX_CONTENT_LENGTH``), so a body too large is refused before it is
received, never spooled to disk first; and waitress's own answers carry the headers
every answer of the app carries (``webui.SECURITY_HEADERS``), in the app's error
envelope under ``/api``. ``waitress-serve --call webui:create_app`` cannot do the last
part: behind it, the reverse proxy adds the headers (docs/service.md).
"""

from __future__ import annotations

import json
import signal
import threading
from typing import Any

from flask import Flask
from waitress.channel import HTTPChannel
from waitress.server import create_server
from waitress.task import ErrorTask

from webui import review_queue, security_headers
from webui.limits import exact_size

CONNECTION_LIMIT = 100
"""Connections waitress holds open at once (its ``connection_limit``); past it, new ones
wait in the listen backlog. It counts none per address: a proxy in front must."""
CHANNEL_TIMEOUT = 30
"""Seconds a connection may stay idle (no request under way) before waitress closes it
(its ``channel_timeout``; waitress's own default is 120)."""


WAITRESS_CODES = {
    400: "http/bad-request",
    413: "http/too-large",
    431: "http/headers-too-large",
    500: "http/internal",
}
"""The error codes of waitress's own answers, in the app's words."""


class RecorderErrorTask(ErrorTask):
    """waitress's answer to a request it refused itself, with the app's headers (and,
    under ``/api``, the app's error envelope)."""

    def execute(self) -> None:
        error = self.request.error
        path = getattr(self.request, "path", None) or ""  # none before the request line
        if path == "/api" or path.startswith("/api/"):
            message = str(error.body).strip() or error.reason
            if error.code == 413:
                most = self.channel.server.adj.max_request_body_size
                message = (f"the request is larger than {exact_size(most)}, the most this "
                           "server takes in one request")
            body = (json.dumps({"ok": False, "status": error.code, "error": {
                "code": WAITRESS_CODES.get(error.code, f"http/{error.code}"),
                "message": message}}) + "\n").encode()
            headers = [("Content-Type", "application/json")]
        else:
            _, headers, body = error.to_response(self.channel.server.adj.ident)
        self.status = f"{error.code} {error.reason}"
        self.response_headers.extend([*headers, *security_headers()])
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


def serve(app: Flask, *, host: str, port: int, threads: int,
          connection_limit: int = CONNECTION_LIMIT, channel_timeout: int = CHANNEL_TIMEOUT,
          **options: Any) -> None:
    """Serve ``app`` until interrupted: Ctrl-C (or SIGINT) stops it and returns.

    Idle connections are looked for every ``channel_timeout`` seconds (at most 30, as
    waitress does), so one is closed between one and two timeouts after its last byte.
    """
    if threading.current_thread() is threading.main_thread():
        # a process started with SIGINT ignored (a shell's background job, a parent that
        # ignores it) inherits that, and Python then never raises KeyboardInterrupt
        signal.signal(signal.SIGINT, signal.default_int_handler)
    HTTPChannel.error_task_class = RecorderErrorTask  # this process serves nothing else
    server = create_server(app, host=host, port=port, threads=threads,
                           max_request_body_size=int(app.config["MAX_CONTENT_LENGTH"]),
                           connection_limit=connection_limit, channel_timeout=channel_timeout,
                           cleanup_interval=max(1, min(30, channel_timeout)), **options)
    try:
        server.run()
    finally:
        review_queue.close_all()
