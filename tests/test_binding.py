"""One frontend per token: an upload token sends its own frontend's games and no other's.

Tokens made with the real command, a real waitress server, requests over HTTP: a token of
mallory-app cannot store games as victim-app (403, nothing of the body stored), so
victim-app's own upload of its game is never refused as a conflict; a log that names no
frontend is stored as the token's, written into the log that is judged, hashed and stored;
the command line keeps each log's own frontend.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env

from recorder import identity

RECORDER = [sys.executable, "-c", "from recorder.cli import main; main()"]


def recorder(db_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*RECORDER, *args, "--db", str(db_path)], capture_output=True,
                          text=True, env=subprocess_env(), timeout=120)


def token(db_path: Path, *args: str) -> str:
    made = recorder(db_path, "token", "create", *args)
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


def call(url: str, secret: str, body: bytes) -> tuple[int, Any]:
    request = urllib.request.Request(url + "/api/games", data=body,
                                     headers={"Authorization": f"Bearer {secret}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def jsonl(*docs: Any) -> bytes:
    return "".join(json.dumps(d) + "\n" for d in docs).encode()


def rows(db_path: Path, sql: str) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db_path) as conn:
        return conn.execute(sql).fetchall()


@pytest.fixture
def site(tmp_path: Path, start_server: Any) -> dict[str, Any]:
    db_path = tmp_path / "r.db"
    victim = token(db_path, "victim-app", "--scope", "upload")
    mallory = token(db_path, "mallory-app", "--scope", "upload")
    return {"url": start_server(db_path), "db": db_path, "victim": victim, "mallory": mallory}


def test_a_token_cannot_send_another_frontends_games(site: dict[str, Any]) -> None:
    genuine = make_game(1, frontend="victim-app", game_id="v-1")
    forged = make_game(2, frontend="Victim-App", game_id="v-1")
    own = make_game(3, frontend="mallory-app", game_id="m-1")
    status, answer = call(site["url"], site["mallory"], jsonl(own, forged, own))
    assert status == 403
    error = answer["error"]
    assert (error["code"], error["index"], error["line"], error["pointer"]) == \
        ("auth/frontend", 1, 2, "/frontend/name")
    assert 'names the frontend "Victim-App"' in error["message"]
    assert 'uploads the games of "mallory-app" only' in error["message"]
    assert "nothing of this upload was stored" in error["message"]
    assert rows(site["db"], "SELECT count(*) FROM games") == [(0,)]
    # the victim's own game is stored, not refused as a conflict with a forgery
    status, answer = call(site["url"], site["victim"], jsonl(genuine))
    assert status == 200 and answer["data"]["games"][0]["status"] == "accepted"
    assert rows(site["db"], "SELECT frontend, game_id FROM games") == [("victim-app", "v-1")]


def test_a_log_that_names_no_frontend_is_stored_as_the_tokens(site: dict[str, Any]) -> None:
    doc = make_game(4, frontend=None, game_id="m-4")
    text = json.dumps(doc, indent=1)
    status, answer = call(site["url"], site["mallory"], text.encode())
    game = answer["data"]["games"][0]
    assert status == 200 and game["status"] == "accepted"
    assert rows(site["db"], "SELECT frontend, game_id FROM games") == [("mallory-app", "m-4")]
    with urllib.request.urlopen(f"{site['url']}/api/games/{game['id']}/log", timeout=60) as r:
        stored = r.read().decode()
    # the log as sent, with the frontend written in as its first field
    assert stored == '{"frontend":{"name":"mallory-app"},' + text[1:]
    named = json.loads(stored)
    assert named == {"frontend": {"name": "mallory-app"}, **doc}
    assert rows(site["db"], "SELECT content_hash FROM games") == \
        [(identity.content_hash(named),)]
    # the same game with its frontend written out, or null, is the same game
    for again in ({**doc, "frontend": {"name": "mallory-app"}}, {"frontend": None, **doc}):
        status, answer = call(site["url"], site["mallory"], jsonl(again))
        assert answer["data"]["games"][0]["status"] == "duplicate", again.get("frontend")
    # a null frontend is replaced where it is written
    other = make_game(5, frontend=None, game_id="m-5")
    text = json.dumps({"format": other.pop("format"), "frontend": None, **other})
    status, answer = call(site["url"], site["mallory"], text.encode())
    game = answer["data"]["games"][0]
    with urllib.request.urlopen(f"{site['url']}/api/games/{game['id']}/log", timeout=60) as r:
        assert r.read().decode() == text.replace('"frontend": null',
                                                 '"frontend": {"name":"mallory-app"}')


def test_the_command_line_keeps_each_logs_own_frontend(tmp_path: Path) -> None:
    db_path = tmp_path / "r.db"
    path = tmp_path / "games.jsonl"
    path.write_bytes(jsonl(make_game(6, frontend="victim-app"), make_game(7, frontend=None)))
    result = recorder(db_path, "import", "--json", str(path))
    assert result.returncode == 0, result.stderr
    assert rows(db_path, "SELECT frontend FROM games ORDER BY id") == [("victim-app",), (None,)]


def test_token_create_binds_and_token_list_shows_it(tmp_path: Path) -> None:
    db_path = tmp_path / "r.db"
    made = recorder(db_path, "token", "create", "CI Runner", "--scope", "upload",
                    "--frontend", "Spilop-App")
    assert made.returncode == 0 and "uploads the games of spilop-app" in made.stderr
    token(db_path, "Kozel-App", "--scope", "upload")
    token(db_path, "dashboard", "--scope", "read")
    listed = [json.loads(line) for line in
              recorder(db_path, "token", "list", "--json").stdout.splitlines()]
    assert {t["name"]: t["frontend"] for t in listed} == {
        "CI Runner": "spilop-app", "Kozel-App": "kozel-app", "dashboard": None}
    table = recorder(db_path, "token", "list").stdout
    assert "frontend" in table.splitlines()[0] and "spilop-app" in table
    bad = recorder(db_path, "token", "create", "reader", "--scope", "read", "--frontend", "x")
    assert bad.returncode == 2 and "only a token that may upload" in bad.stderr
    bad = recorder(db_path, "token", "create", "evil\u202eapp", "--scope", "upload")
    assert bad.returncode == 2 and "U+202E" in bad.stderr


def test_the_upload_form_holds_a_token_to_its_frontend(site: dict[str, Any]) -> None:
    boundary = "----binding"
    forged = json.dumps(make_game(8, frontend="victim-app")).encode()
    body = (f'--{boundary}\r\nContent-Disposition: form-data; name="token"\r\n\r\n'
            f'{site["mallory"]}\r\n--{boundary}\r\nContent-Disposition: form-data; '
            f'name="files"; filename="forged.json"\r\nContent-Type: application/json\r\n\r\n'
            ).encode() + forged + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        site["url"] + "/upload", data=body,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        page = response.read().decode()
    assert "names the frontend &#34;victim-app&#34;" in page
    assert "nothing of this file was stored" in page
    assert rows(site["db"], "SELECT count(*) FROM games") == [(0,)]


def test_a_token_bound_to_no_frontend_uploads_nothing(site: dict[str, Any]) -> None:
    with sqlite3.connect(site["db"]) as conn:
        conn.execute("UPDATE tokens SET frontend = NULL WHERE name = 'mallory-app'")
    status, answer = call(site["url"], site["mallory"], jsonl(make_game(9, frontend=None)))
    assert (status, answer["error"]["code"]) == (403, "auth/frontend")
    assert "bound to no frontend" in answer["error"]["message"]
