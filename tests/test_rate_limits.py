"""Requests that need no token are rate-limited per client address, on a real server:
reads, the replay of a posted log, the streamed exports, each with its own count; a 429
in the error envelope (a page elsewhere) that says the limit and when to come back."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game
from test_bounded import envelope_error, http

from recorder import storage
from recorder.tokens import create_token


@pytest.fixture
def token(db_path: Path) -> str:
    db = storage.connect(db_path)
    try:
        return create_token(db, "limits", frontend="test-frontend")[1]
    finally:
        db.close()


def limited(start_server: Any, db_path: Path, args: tuple[str, ...] = (), **limits: str
            ) -> str:
    env = {f"RECORDER_RATELIMIT_{name.upper()}": value for name, value in limits.items()}
    return start_server(db_path, env=env, args=args)


def test_reads_of_one_address_share_one_limit(start_server: Any, db_path: Path,
                                              token: str) -> None:
    url = limited(start_server, db_path, reads="5 per minute")
    for path in ("/api/games", "/games", "/api/stats", "/stats", "/upload"):
        assert http(url + path)[0] == 200, path
    status, headers, body = http(url + "/api/games/1")
    assert status == 429
    error = envelope_error(body, 429)
    assert error["code"] == "http/too-many-requests"
    assert error["message"].startswith(
        "too many requests from this address (at most 5 per 1 minute); try again in ")
    assert 1 <= int(headers["Retry-After"]) <= 60
    status, headers, page = http(url + "/games")
    assert status == 429 and headers["Content-Type"].startswith("text/html")
    assert "Too many requests from this address (at most 5 per 1 minute)" in page.decode()
    assert headers["Content-Security-Policy"]  # a page like any other
    # files of the pages are not counted, nor are uploads, which need a token
    assert http(url + "/static/style.css")[0] == 200
    status, _, body = http(url + "/api/games", json.dumps(make_game(1)).encode(),
                           {"Authorization": f"Bearer {token}"})
    assert status == 200 and json.loads(body)["data"]["summary"]["accepted"] == 1


def test_replays_of_posted_logs_have_their_own_limit(start_server: Any,
                                                     db_path: Path) -> None:
    url = limited(start_server, db_path, replays="2 per minute")
    text = json.dumps(make_game(2)).encode()
    assert [http(url + "/api/frames", text)[0] for _ in range(3)] == [200, 200, 429]
    status, _, body = http(url + "/api/frames", text)
    assert status == 429 and "at most 2 per 1 minute" in envelope_error(body, 429)["message"]
    assert http(url + "/api/games")[0] == 200  # reads are counted apart


def test_streamed_exports_have_their_own_limit(start_server: Any, db_path: Path) -> None:
    url = limited(start_server, db_path, exports="2 per minute")
    codes = [http(url + "/api/games?format=logs")[0] for _ in range(3)]
    assert codes == [200, 200, 429]
    assert http(url + "/api/games?format=jsonl")[0] == 429
    assert http(url + "/api/games", headers={"Accept": "application/x-ndjson"})[0] == 429
    assert http(url + "/api/games")[0] == 200  # the paged list is a read like others


def test_behind_a_trusted_proxy_each_client_is_counted_apart(start_server: Any,
                                                             db_path: Path) -> None:
    """waitress told to trust the proxy's X-Forwarded-For gives the app the client's
    address, which the limit counts (docs/service.md, behind a reverse proxy)."""
    url = limited(start_server, db_path, ("--trusted-proxy=127.0.0.1",
                                          "--trusted-proxy-headers=x-forwarded-for"),
                  reads="2 per minute")

    def read(client: str) -> int:
        return http(url + "/api/games", headers={"X-Forwarded-For": client})[0]

    assert [read("203.0.113.7") for _ in range(3)] == [200, 200, 429]
    assert read("203.0.113.8") == 200
    # one IPv6 host is usually given a whole /64: it is counted as one address
    assert [read("2001:db8:1:2::1"), read("2001:db8:1:2::ffff")] == [200, 200]
    assert read("2001:db8:1:2:aaaa::3") == 429
    assert read("2001:db8:1:3::1") == 200


def test_the_limits_can_be_turned_off(start_server: Any, db_path: Path) -> None:
    url = limited(start_server, db_path, reads="1 per minute", enabled="0")
    assert [http(url + "/api/games")[0] for _ in range(3)] == [200, 200, 200]


def test_the_defaults() -> None:
    from webui.limits import DEFAULTS

    assert DEFAULTS["RATELIMIT_READS"] == "600 per minute"
    assert DEFAULTS["RATELIMIT_REPLAYS"] == "30 per minute"
    assert DEFAULTS["RATELIMIT_EXPORTS"] == "30 per minute"
    assert DEFAULTS["RATELIMIT_STORAGE_URI"] == "memory://"
    assert DEFAULTS["RATELIMIT_SIGNINS"] == "10 per minute"
    assert DEFAULTS["RATELIMIT_REFUSED_UPLOADS"] == "30 per minute"


def test_refused_sign_ins_are_limited_with_a_page(start_server: Any, db_path: Path) -> None:
    """Sign-ins were not limited at all: read tokens could be guessed at any speed."""
    db = storage.connect(db_path)
    reader = create_token(db, "reader", ["read"])[1]
    db.close()
    url = limited(start_server, db_path, signins="3 per minute")
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    codes = [http(f"{url}/signin", f"token=guess-{i}".encode(), form)[0] for i in range(3)]
    assert codes == [401, 401, 401]
    status, headers, page = http(f"{url}/signin", f"token={reader}".encode(), form)
    assert status == 429 and headers["Content-Type"].startswith("text/html")
    assert "Too many requests from this address (at most 3 per 1 minute)" in page.decode()
    assert 1 <= int(headers["Retry-After"]) <= 60
    assert http(f"{url}/signin")[0] == 200  # the page itself is a read like others


def test_a_sign_in_that_succeeds_is_not_counted(start_server: Any, db_path: Path) -> None:
    db = storage.connect(db_path)
    reader = create_token(db, "reader", ["read"])[1]
    db.close()
    url = limited(start_server, db_path, signins="2 per minute")
    form = {"Content-Type": "application/x-www-form-urlencoded"}

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args: Any, **kwargs: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect)
    for _ in range(4):
        try:
            opener.open(urllib.request.Request(f"{url}/signin", f"token={reader}".encode(),
                                               form), timeout=60)
            raise AssertionError("a sign-in redirects")
        except urllib.error.HTTPError as exc:
            assert exc.code == 302  # signed in, sent on


def test_uploads_refused_for_their_token_are_limited(start_server: Any, db_path: Path,
                                                     token: str) -> None:
    """Token-less POST /api/games and POST /upload were not limited: each took a body of up
    to 32 MiB to answer 401, from any address, as often as it liked."""
    from test_bounded import multipart

    url = limited(start_server, db_path, refused_uploads="3 per minute")
    game = json.dumps(make_game(5)).encode()
    assert http(f"{url}/api/games", game)[0] == 401
    assert http(f"{url}/api/games", game, {"Authorization": "Bearer guess"})[0] == 401
    form, headers = multipart({"token": "guess"}, [("files", "g.json", game)])
    assert http(f"{url}/upload", form, headers)[0] == 401  # the form counts with the API
    status, answer_headers, body = http(f"{url}/api/games", game)
    assert status == 429
    error = envelope_error(body, 429)
    assert error["code"] == "http/too-many-requests"
    assert "at most 3 per 1 minute" in error["message"]
    assert 1 <= int(answer_headers["Retry-After"]) <= 60
    status, page_headers, page = http(f"{url}/upload", form, headers)
    assert status == 429 and page_headers["Content-Type"].startswith("text/html")
    assert "Too many requests from this address (at most 3 per 1 minute)" in page.decode()


def test_uploads_with_a_valid_token_are_never_counted(start_server: Any, db_path: Path,
                                                      token: str) -> None:
    url = limited(start_server, db_path, refused_uploads="2 per minute")
    auth = {"Authorization": f"Bearer {token}"}
    for seed in range(4):
        status, _, body = http(f"{url}/api/games", json.dumps(make_game(seed)).encode(), auth)
        assert status == 200, body
    assert http(f"{url}/api/games", b"{}")[0] == 401  # refusals are counted from here
