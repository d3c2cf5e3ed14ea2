"""The JavaScript library (clients/js) end to end, with node and the real recorder.

- 500 games played by a small bot and logged through the library replay as valid,
  finished games whose claimed scores the engine confirms;
- the uploader against a real recorder service: the answer to the first send is lost
  on the way back, the uploader retries, and the game is stored once (the resend is a
  duplicate).

node is needed: outside CI a missing node skips these tests (saying so); under CI=true
it is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from recorder.replay import replay

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "clients" / "js"
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def node() -> str:
    if NODE is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is missing, and CI=true needs the JavaScript client tested")
        pytest.skip("node is missing: the JavaScript client is not tested here")
    return NODE


def test_500_bot_games_logged_by_the_library_are_valid(node: str) -> None:
    out = subprocess.run([node, str(JS / "tools" / "bot-games.js"), "500"], check=True,
                         capture_output=True, text=True, timeout=300).stdout
    docs = [json.loads(line) for line in out.splitlines()]
    assert len(docs) == 500
    assert len({d["game_id"] for d in docs}) == 500
    presets = {(d["ruleset"]["preset"], len(d["players"])) for d in docs}
    assert {("spilop", 2), ("spilop", 3), ("spilop", 4), ("classic", 2), ("classic", 3),
            ("classic", 4)} <= presets
    for doc in docs:
        answer = replay(doc)
        assert answer["status"] == "finished", (doc["game_id"], answer.get("error"))
        assert "mismatches" not in answer, (doc["game_id"], answer["mismatches"])
    bonus = sum(b for d in docs for r in d["rounds"] for b in r["result"]["bonus"])
    assert bonus > 0


class LosesFirstAnswer:
    """A TCP relay to the service that drops the service's first answer.

    The first request reaches the service (which stores the game) but the client
    sees the connection close without an answer, as when a network fails on the
    way back. Later connections are relayed whole.
    """

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            drop = self.connections == 1
            threading.Thread(target=self._relay, args=(client, drop), daemon=True).start()

    def _relay(self, client: socket.socket, drop: bool) -> None:
        with client, socket.create_connection(("127.0.0.1", self.target)) as upstream:
            request = _read_request(client)
            upstream.sendall(request)
            answer = _read_all(upstream)
            if not drop:
                client.sendall(answer)

    def close(self) -> None:
        self.sock.close()


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    while len(body) < length:
        body += conn.recv(65536)
    # one request a connection: ask the service to close after answering
    head = b"\r\n".join(x for x in head.split(b"\r\n")
                        if not x.lower().startswith(b"connection:"))
    return head + b"\r\nConnection: close\r\n\r\n" + body


def _read_all(conn: socket.socket) -> bytes:
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data


@pytest.fixture
def service(start_server: Callable[..., str], db_path: Path, token: str) -> Iterator[Any]:
    url = start_server(db_path)
    yield url, token


UPLOAD = """
import {{ upload }} from {lib};
import {{ readFileSync }} from "node:fs";
const doc = JSON.parse(readFileSync({path}, "utf8"));
const retries = [];
const report = await upload(doc, {{ url: {url}, token: {token}, backoffMs: 50,
  onRetry: (r) => retries.push(r.error ? r.error.message : null) }});
console.log(JSON.stringify({{ report, retries }}));
"""


def _upload(node: str, url: str, token: str, path: Path) -> dict[str, Any]:
    script = UPLOAD.format(lib=json.dumps((JS / "index.js").as_uri()), path=json.dumps(str(path)),
                           url=json.dumps(url), token=json.dumps(token))
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_resend_after_a_lost_answer_is_a_duplicate_not_a_second_game(
        node: str, service: tuple[str, str], tmp_path: Path, db_path: Path) -> None:
    from recorder import storage
    from recorder.tokens import create_token

    url, _ = service
    db = storage.connect(db_path)
    token = create_token(db, "js-bots", ["upload"])[1]  # the frontend the bot games name
    db.close()
    out = subprocess.run([node, str(JS / "tools" / "bot-games.js"), "1", "upload"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    path = tmp_path / "game.json"
    path.write_text(out)
    port = int(url.rsplit(":", 1)[1])
    relay = LosesFirstAnswer(port)
    try:
        first = _upload(node, f"http://127.0.0.1:{relay.port}", token, path)
    finally:
        relay.close()
    assert len(first["retries"]) == 1 and "cannot reach" in first["retries"][0]
    assert first["report"]["summary"] == {"accepted": 0, "duplicate": 1,
                                          "superseded": 0, "refused": 0}
    again = _upload(node, url, token, path)
    assert again["retries"] == []
    assert again["report"]["summary"] == {"accepted": 0, "duplicate": 1,
                                          "superseded": 0, "refused": 0}
    with urllib.request.urlopen(f"{url}/api/games") as response:
        assert json.loads(response.read())["meta"]["total"] == 1
    from recorder import storage

    database = storage.connect(db_path)
    try:
        assert database["games"].count == 1
    finally:
        database.close()


def test_a_refused_token_is_not_retried(node: str, service: tuple[str, str],
                                        tmp_path: Path) -> None:
    url, _ = service
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "domino-log/1"}))
    script = UPLOAD.format(lib=json.dumps((JS / "index.js").as_uri()), path=json.dumps(str(path)),
                           url=json.dumps(url), token=json.dumps("not-a-token"))
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0
    assert "the recorder answered 401" in done.stderr
