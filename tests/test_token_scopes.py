"""Token scopes and READS_NEED_TOKEN, end to end: tokens made with the real command, a
real waitress server, requests over HTTP."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env

from recorder import storage
from recorder.tokens import create_token


def token_create(db_path: Path, name: str, *scopes: str) -> str:
    """``recorder token create NAME [--scope S]...`` in its own process; the secret. A token
    that may upload uploads the games of test-frontend, the frontend of ``make_game``."""
    args = [arg for scope in scopes for arg in ("--scope", scope)]
    if not scopes or "upload" in scopes:
        args += ["--frontend", "test-frontend"]
    result = subprocess.run(
        [sys.executable, "-c", "from recorder.cli import main; main()", "token", "create",
         name, *args, "--db", str(db_path)],
        capture_output=True, text=True, env=subprocess_env(), check=True, timeout=60)
    assert f"may {' and '.join(scopes or ('upload', 'read'))}" in result.stderr
    return result.stdout.strip()


def call(url: str, token: str | None = None, body: bytes | None = None) -> tuple[int, Any]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(url, data=body, headers=headers,
                                     method="POST" if body is not None else "GET")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


@pytest.fixture
def tokens(db_path: Path) -> dict[str, str]:
    return {
        "upload": token_create(db_path, "frontend", "upload"),
        "read": token_create(db_path, "dashboard", "read"),
        "both": token_create(db_path, "operator"),
    }


def test_reads_need_a_read_token_and_uploads_an_upload_token(
        db_path: Path, tokens: dict[str, str], start_server: Any) -> None:
    url = start_server(db_path, env={"RECORDER_READS_NEED_TOKEN": "1"})
    body = json.dumps(make_game(1)).encode()

    status, answer = call(url + "/api/games", body=body, token=tokens["read"])
    assert (status, answer["error"]["code"]) == (403, "auth/scope")
    assert "may read, not upload" in answer["error"]["message"]
    assert "--scope upload" in answer["error"]["message"]
    status, answer = call(url + "/api/games", body=body, token=tokens["upload"])
    assert status == 200 and answer["data"]["summary"]["accepted"] == 1

    for path in ("/api/games", "/api/games/1", "/api/games/1/log"):
        status, answer = call(url + path)
        assert (status, answer["error"]["code"]) == (401, "auth/missing-token"), path
        assert "reading this server needs a token" in answer["error"]["message"]
        status, answer = call(url + path, token=tokens["upload"])
        assert (status, answer["error"]["code"]) == (403, "auth/scope"), path
        assert "may upload, not read" in answer["error"]["message"]
    status, answer = call(url + "/api/games", token=tokens["read"])
    assert status == 200 and [g["game_id"] for g in answer["data"]] == ["game-1"]
    status, answer = call(url + "/api/games/1", token=tokens["both"])
    assert status == 200 and answer["data"]["game_id"] == "game-1"
    status, answer = call(url + "/api/games", body=json.dumps(make_game(2)).encode(),
                          token=tokens["both"])
    assert status == 200 and answer["data"]["summary"]["accepted"] == 1
    status, answer = call(url + "/api/games", token="rec_not-a-token")
    assert (status, answer["error"]["code"]) == (401, "auth/unknown-token")


def test_reads_are_open_without_the_setting(
        db_path: Path, tokens: dict[str, str], start_server: Any) -> None:
    url = start_server(db_path)
    status, answer = call(url + "/api/games")
    assert status == 200 and answer["data"] == []
    status, answer = call(url + "/api/games", body=json.dumps(make_game(3)).encode())
    assert (status, answer["error"]["code"]) == (401, "auth/missing-token")


def test_a_read_token_may_not_upload_when_reads_are_open(
        db_path: Path, tokens: dict[str, str], start_server: Any) -> None:
    """Scopes hold whatever READS_NEED_TOKEN says: with reads open to all, a token made
    for reading still cannot store a game (and the upload form refuses it too)."""
    url = start_server(db_path)
    body = json.dumps(make_game(4)).encode()
    status, answer = call(url + "/api/games", body=body, token=tokens["read"])
    assert status == 403, answer
    assert answer["error"]["code"] == "auth/scope"
    assert "may read, not upload" in answer["error"]["message"]
    status, answer = call(url + "/api/games")
    assert status == 200 and answer["data"] == []  # nothing was stored
    form = urllib.request.Request(url + "/upload", data=b"token=" + tokens["read"].encode(),
                                  headers={"Content-Type": "application/x-www-form-urlencoded"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(form, timeout=60)
    assert refused.value.code == 403
    assert "may only read" in refused.value.read().decode()
    status, answer = call(url + "/api/games", body=body, token=tokens["upload"])
    assert status == 200 and answer["data"]["summary"]["accepted"] == 1
    status, answer = call(url + "/api/games", body=body, token=tokens["both"])
    assert status == 200 and answer["data"]["summary"]["duplicate"] == 1


def test_the_upload_form_refuses_a_read_token(client: Any, db: Any) -> None:
    _, secret = create_token(db, "dashboard", ["read"])
    response = client.post("/upload", data={"token": secret}, content_type="multipart/form-data")
    assert response.status_code == 403
    assert "may only read" in response.get_data(as_text=True)


def test_token_list_shows_scopes_and_unknown_scopes_are_refused(
        db_path: Path, tokens: dict[str, str], cli: Any) -> None:
    listed = [json.loads(x) for x in cli("token", "list", "--json").output.splitlines()]
    assert {t["name"]: t["scopes"] for t in listed} == {
        "frontend": ["upload"], "dashboard": ["read"], "operator": ["upload", "read"]}
    assert "upload,read" in cli("token", "list").output
    bad = cli("token", "create", "x", "--scope", "admin")
    assert bad.exit_code == 2 and "'admin' is not one of 'upload', 'read'" in bad.output


def test_tokens_made_before_scopes_may_do_everything(db_path: Path) -> None:
    """A database from before scopes: its tokens keep every right they had."""
    db = storage.connect(db_path)
    _, secret = create_token(db, "old")
    db.execute("ALTER TABLE tokens DROP COLUMN scopes")
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm005_token_scopes'")
    db.conn.commit()
    db.close()
    db = storage.connect(db_path)
    from recorder.tokens import check_token

    token = check_token(db, secret).token
    assert token is not None and token.scopes == ("upload", "read")
    db.close()
