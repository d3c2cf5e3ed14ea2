"""gzip for the JSON API: compressed for a client that takes it, the same bytes once undone.

On the app's test client and on a real waitress server (what a browser gets), for the
frames of a long game (the answer that needs it most), the frames cache, a JSON Lines
stream, and the answers left alone (small ones, pages, clients that refuse gzip).
"""

from __future__ import annotations

import gzip
import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game

from recorder import ingest, storage

GZIP = {"Accept-Encoding": "gzip, deflate, br"}


@pytest.fixture
def long_game(db: Any) -> int:
    """A long game (a spilop to 500, bonus on, four players) stored; its number."""
    doc = make_game("long", ruleset={"preset": "spilop", "options": {"bonus": True,
                                                                     "target": 500}},
                    players=4)
    _, outcomes = ingest.import_upload(db, json.dumps(doc).encode())
    assert outcomes[0].id is not None
    return int(outcomes[0].id)


def test_frames_are_gzipped_for_a_client_that_takes_gzip(client: Any, long_game: int) -> None:
    url = f"/api/games/{long_game}/frames"
    plain = client.get(url)
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    assert "Accept-Encoding" in plain.headers["Vary"]
    packed = client.get(url, headers=GZIP)  # a cache hit: the bytes kept compressed
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["Vary"]
    assert gzip.decompress(packed.data) == plain.data
    assert len(plain.data) > 500_000
    assert len(packed.data) < len(plain.data) / 10
    again = client.get(url)  # and a client without gzip still gets the plain bytes
    assert again.data == plain.data and "Content-Encoding" not in again.headers


def test_frames_are_gzipped_without_the_cache_too(tmp_path: Path) -> None:
    from webui import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "r.db"),
                      "FRAMES_CACHE_BYTES": 0})
    db = storage.connect(tmp_path / "r.db")
    _, outcomes = ingest.import_upload(db, json.dumps(make_game(5)).encode())
    db.close()
    client = app.test_client()
    url = f"/api/games/{outcomes[0].id}/frames"
    packed = client.get(url, headers=GZIP)
    assert packed.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(packed.data) == client.get(url).data
    body = client.post("/api/frames", data=json.dumps(make_game(6)), headers=GZIP)
    assert body.headers["Content-Encoding"] == "gzip"
    assert json.loads(gzip.decompress(body.data))["ok"] is True


@pytest.mark.parametrize("accept", ["identity", "gzip;q=0", "br", ""])
def test_a_client_that_refuses_gzip_gets_the_bytes_as_they_are(
    client: Any, long_game: int, accept: str,
) -> None:
    answer = client.get(f"/api/games/{long_game}/frames", headers={"Accept-Encoding": accept})
    assert "Content-Encoding" not in answer.headers
    assert answer.get_json()["ok"] is True


def test_a_json_lines_export_is_compressed_as_it_streams(client: Any, db: Any) -> None:
    docs = [make_game(i) for i in range(6)]
    ingest.import_upload(db, "".join(json.dumps(d) + "\n" for d in docs).encode())
    plain = client.get("/api/games?format=logs")
    packed = client.get("/api/games?format=logs", headers=GZIP)
    assert packed.headers["Content-Encoding"] == "gzip"
    assert "Content-Length" not in packed.headers
    assert gzip.decompress(packed.data) == plain.data
    lines = plain.data.splitlines()
    assert len(lines) == 7  # six logs and the end line of a complete export
    assert json.loads(lines[-1]) == {"ok": True, "end": True, "games": 6}


def test_small_answers_and_pages_are_left_alone(client: Any, long_game: int) -> None:
    missing = client.get("/api/games/999999", headers=GZIP)  # an error envelope, < 1 KiB
    assert missing.status_code == 404 and "Content-Encoding" not in missing.headers
    assert missing.get_json()["error"]["code"] == "game/not-found"
    page = client.get(f"/games/{long_game}", headers=GZIP)  # pages are not JSON answers
    assert page.status_code == 200 and "Content-Encoding" not in page.headers
    log = client.get(f"/api/games/{long_game}/log", headers=GZIP)  # byte for byte, undone
    assert gzip.decompress(log.data) == client.get(f"/api/games/{long_game}/log").data


def test_a_real_server_sends_the_frames_compressed(start_server: Any, db_path: Path,
                                                   long_game: int) -> None:
    url = start_server(db_path) + f"/api/games/{long_game}/frames"
    with urllib.request.urlopen(url) as answer:
        plain = answer.read()
        assert answer.headers.get("Content-Encoding") is None
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"})
    with urllib.request.urlopen(request) as answer:
        packed = answer.read()
        assert answer.headers["Content-Encoding"] == "gzip"
        assert int(answer.headers["Content-Length"]) == len(packed)
    assert gzip.decompress(packed) == plain
    assert json.loads(plain)["data"]["game"]["id"] == long_game
