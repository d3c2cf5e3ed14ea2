"""Several processes upload through real servers at once: every game is stored exactly once.

Two waitress servers (four threads each) share one database file, and four client
processes each upload every game, in their own order and batch sizes, so the same
game reaches the file through different processes and threads at the same moment.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from conftest import subprocess_env

from recorder import ingest, storage
from recorder.tokens import create_token

CLIENTS = 4
CLIENT = r"""
import json, random, sys, urllib.request

url, token, path, seed = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lines = open(path).read().splitlines()
rng = random.Random(seed)
rng.shuffle(lines)
reports, i = [], 0
while i < len(lines):
    size = rng.randint(1, 6)
    body = ("\n".join(lines[i:i + size]) + "\n").encode()
    i += size
    request = urllib.request.Request(url + "/api/games", data=body, method="POST", headers={
        "Authorization": "Bearer " + token, "Content-Type": "application/x-ndjson"})
    with urllib.request.urlopen(request, timeout=120) as response:
        reports.extend(json.load(response)["data"]["games"])
print(json.dumps(reports))
"""


def test_parallel_uploads_store_every_game_once(
    tmp_path: Path, db_path: Path, game_pool: list[dict[str, Any]], start_server: Any
) -> None:
    docs = game_pool[:30]
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    db = storage.connect(db_path)
    _, secret = create_token(db, "load", frontend="test-frontend")
    db.close()
    urls = [start_server(db_path), start_server(db_path)]

    clients = [
        subprocess.Popen(
            [sys.executable, "-c", CLIENT, urls[n % len(urls)], secret, str(path), str(n)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=subprocess_env(), text=True,
        )
        for n in range(CLIENTS)
    ]
    reports: list[dict[str, Any]] = []
    for proc in clients:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        reports += json.loads(out)

    statuses = Counter(r["status"] for r in reports)
    assert statuses.get("refused", 0) == 0, [r for r in reports if r["status"] == "refused"]
    assert statuses == {"accepted": len(docs), "duplicate": len(docs) * (CLIENTS - 1)}
    accepted_ids = Counter(r["game_id"] for r in reports if r["status"] == "accepted")
    assert set(accepted_ids.values()) == {1}

    db = storage.connect(db_path)
    assert storage.integrity_check(db) == "ok"
    stored = {row["content_hash"]: row["id"] for row in db["games"].rows}
    assert set(stored) == {ingest.content_hash(d) for d in docs}
    # Every report of a game names the one row that holds it.
    by_game = {d["game_id"]: stored[ingest.content_hash(d)] for d in docs}
    assert all(r["id"] == by_game[r["game_id"]] for r in reports)
    orphans = db.execute(
        "SELECT count(*) FROM rounds WHERE game NOT IN (SELECT id FROM games)").fetchone()[0]
    assert orphans == 0
    per_game = db.execute(
        "SELECT count(*) FROM games g WHERE rounds_count != "
        "(SELECT count(*) FROM rounds r WHERE r.game = g.id)").fetchone()[0]
    assert per_game == 0
    db.close()
