"""Make ``identity-v1.db.gz``: a database as the recorder of 2026-12-01 left it.

Run with that recorder on the path (it is kept so that the file can be made again and
read); the file it writes is what ``tests/test_rehash.py`` opens with today's recorder,
which must bring it to the current identity rules:

    RECORDER_PURE=1 PYTHONPATH=<a checkout of 2026-12-01> \\
        python tests/data/make_identity_v1_db.py OUT.db

What it holds, besides ordinary games (every one with its counters):

* ``twin-*``: the same game stored twice under frontend names that differ only by case
  (``Victim-App`` and ``victim-app``), and a game without frontend or ``game_id`` stored
  twice, once with ``"ms": 764`` and once with ``"ms": 764.0``: one game each today;
* ``clash``: two different games under ``spilop-app`` and ``Spilop-App `` with the
  ``game_id`` ``g-7``: one ``game_id`` today;
* tokens: ``test-frontend`` (both scopes, sent test-frontend's games), ``ci`` (upload,
  sent spilop-app's games only), ``Kozel-App`` (upload, sent nothing), ``mixed`` (upload,
  sent games of two frontends), ``dash`` (read only).
"""

from __future__ import annotations

import copy
import gzip
import json
import sys
from pathlib import Path
from typing import Any

from recorder import storage
from recorder.ingest import import_upload
from recorder.simulate import simulate_game
from recorder.tokens import create_token


def game(seed: str, rules: str = "classic", players: int = 2, *, frontend: str | None,
         game_id: str | None) -> dict[str, Any]:
    doc = simulate_game(rules, players, seed, game_id=game_id or seed)
    if game_id is None:
        doc.pop("game_id", None)
    if frontend is None:
        doc.pop("frontend", None)
    else:
        doc["frontend"] = {"name": frontend, "version": "1"}
    return doc


def send(db: Any, docs: list[dict[str, Any]], token: Any) -> None:
    body = "".join(json.dumps(d) + "\n" for d in docs).encode()
    tally, _ = import_upload(db, body, source=f"api:{token.name}", uploaded_by=token.id)
    assert tally.accepted == len(docs), tally


def main(out: Path) -> None:
    db = storage.connect(out)
    tokens = {name: create_token(db, name, scopes)[0] for name, scopes in (
        ("test-frontend", None), ("ci", ["upload"]), ("Kozel-App", ["upload"]),
        ("mixed", ["upload"]), ("dash", ["read"]))}
    send(db, [game(f"plain-{i}", ("classic", "spilop")[i % 2], 2 + i % 2,
                   frontend="test-frontend", game_id=f"plain-{i}") for i in range(4)],
         tokens["test-frontend"])
    send(db, [game("ci-1", frontend="spilop-app", game_id="ci-1"),
              game("ci-2", "spilop", frontend="spilop-app", game_id="ci-2")], tokens["ci"])
    send(db, [game("mixed-1", frontend="one-app", game_id="mixed-1"),
              game("mixed-2", frontend="two-app", game_id="mixed-2")], tokens["mixed"])
    twin = game("twin-case", "spilop", 3, frontend="Victim-App", game_id="twin-1")
    other = copy.deepcopy(twin)
    other["frontend"]["name"] = "victim-app"
    send(db, [twin], tokens["mixed"])
    send(db, [other], tokens["mixed"])
    timed = game("twin-ms", frontend=None, game_id=None)
    timed["rounds"][0]["moves"][0]["ms"] = 764
    floated = copy.deepcopy(timed)
    floated["rounds"][0]["moves"][0]["ms"] = 764.0
    send(db, [timed], tokens["test-frontend"])
    send(db, [floated], tokens["test-frontend"])
    send(db, [game("clash-a", frontend="spilop-app", game_id="g-7")], tokens["ci"])
    send(db, [game("clash-b", "spilop", 3, frontend="Spilop-App ", game_id="g-7")],
         tokens["mixed"])
    db.close()


if __name__ == "__main__":
    target = Path(sys.argv[1])
    main(target)
    # the WAL folded in, then the file gzipped beside the script
    import sqlite3

    conn = sqlite3.connect(target)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.execute("PRAGMA journal_mode = DELETE")
    conn.execute("VACUUM")
    conn.close()
    packed = Path(__file__).with_name("identity-v1.db.gz")
    packed.write_bytes(gzip.compress(target.read_bytes(), mtime=0))
    print(f"wrote {packed} ({packed.stat().st_size} bytes)")
