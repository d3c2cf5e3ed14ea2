"""Faults of the machine, each on a real SQLite file with a real process: a full disk,
a read-only database file, a database locked by another process, a server killed in
the middle of an upload. Each gives a clear error, leaves a file that passes
``PRAGMA integrity_check``, and a retry stores exactly the missing games."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env

from recorder import storage
from recorder.tokens import create_token

GAMES = 48


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """GAMES valid games as JSON Lines, each with its own game_id."""
    path = tmp_path_factory.mktemp("faults") / "games.jsonl"
    with path.open("w") as out:
        for i in range(GAMES):
            out.write(json.dumps(make_game(i, game_id=f"fault-{i}")) + "\n")
    return path


def recorder(*args: str, env: dict[str, str] | None = None,
             timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``recorder ARGS`` in its own process."""
    return subprocess.run(
        [sys.executable, "-c", "from recorder.cli import main; main()", *args],
        capture_output=True, text=True, timeout=timeout, check=False,
        env=subprocess_env(**(env or {})),
    )


def outcomes(stdout: str) -> tuple[list[dict[str, Any]], dict[str, int] | None]:
    """The per-game lines of ``import --json``, and its counts line if it got there."""
    lines = [json.loads(x) for x in stdout.splitlines() if x.strip()]
    if lines and "accepted" in lines[-1] and "status" not in lines[-1]:
        return lines[:-1], lines[-1]
    return lines, None


def stored(db_path: Path) -> set[str]:
    db = storage.connect(db_path)
    try:
        assert storage.integrity_check(db) == "ok"
        ids = {r["game_id"] for r in db["games"].rows}
        games = {r["id"] for r in db["games"].rows}
        for table in ("players", "rounds"):  # no row of a game that is not stored
            assert {r["game"] for r in db[table].rows} <= games, table
        return ids
    finally:
        db.close()


def retry_completes(db_path: Path, corpus: Path, kept: set[str]) -> None:
    """Importing the same file again stores exactly the games that are missing."""
    again = recorder("import", "--json", "--db", str(db_path), str(corpus))
    assert again.returncode == 0, again.stderr
    _, tally = outcomes(again.stdout)
    assert tally == {"accepted": GAMES - len(kept), "duplicate": len(kept),
                     "superseded": 0, "refused": 0}
    assert stored(db_path) == {f"fault-{i}" for i in range(GAMES)}


# ---------------------------------------------------------------------- a full disk


def test_a_full_database_stops_the_import_with_a_clear_error(
        tmp_path: Path, corpus: Path) -> None:
    db_path = tmp_path / "full.db"
    storage.connect(db_path).close()
    size = db_path.stat().st_size
    # room for a few batches of 8 games, not for all of them: measured on a probe file
    probe = tmp_path / "probe.db"
    head = tmp_path / "head.jsonl"
    head.write_text("".join(corpus.read_text().splitlines(keepends=True)[:8]))
    assert recorder("import", "--db", str(probe), str(head)).returncode == 0
    db = storage.connect(probe)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    limit = size + int((probe.stat().st_size - size) * 2.5)
    first = recorder("import", "--json", "--batch-size", "8", "--db", str(db_path), str(corpus),
                     env={"RECORDER_MAX_DB_BYTES": str(limit)})
    assert first.returncode == 3, first.stderr
    assert "database or disk is full" in first.stderr
    assert "make room" in first.stderr and "nothing of the failed batch was stored" \
        in first.stderr
    assert "Traceback" not in first.stderr
    reported, tally = outcomes(first.stdout)
    assert tally is None  # the import stopped
    kept = stored(db_path)
    assert 0 < len(kept) < GAMES
    # every game reported accepted is stored, and nothing else
    assert kept == {o["game_id"] for o in reported if o["status"] == "accepted"}
    retry_completes(db_path, corpus, kept)


# ---------------------------------------------------------------------- a read-only file


def _make_read_only(path: Path) -> bool:
    """Make ``path`` unwritable even for root (chattr +i); False where that cannot be."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        return True
    if shutil.which("chattr") is None:
        return False
    return subprocess.run(["chattr", "+i", str(path)], capture_output=True,
                          check=False).returncode == 0


def _make_writable(path: Path) -> None:
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], capture_output=True, check=False)
    path.chmod(0o644)


def test_a_read_only_database_is_refused_with_a_clear_error(
        tmp_path: Path, corpus: Path) -> None:
    db_path = tmp_path / "ro.db"
    head = tmp_path / "head.jsonl"
    head.write_text("".join(corpus.read_text().splitlines(keepends=True)[:10]))
    assert recorder("import", "--db", str(db_path), str(head)).returncode == 0
    if not _make_read_only(db_path):
        pytest.skip("cannot make a file read-only for root here (no chattr +i)")
    try:
        result = recorder("import", "--json", "--db", str(db_path), str(corpus))
        assert result.returncode == 3, (result.returncode, result.stderr)
        assert "readonly database" in result.stderr and "write access" in result.stderr
        assert "Traceback" not in result.stderr
        # reading still works on a read-only file
        listed = recorder("validate", str(head))
        assert listed.returncode == 0
    finally:
        _make_writable(db_path)
    kept = stored(db_path)
    assert len(kept) == 10
    retry_completes(db_path, corpus, kept)


# ---------------------------------------------------------------------- a locked database


HOLD_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


def test_a_locked_database_times_out_with_a_clear_error(tmp_path: Path, corpus: Path) -> None:
    db_path = tmp_path / "locked.db"
    storage.connect(db_path).close()
    with subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(db_path)],
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "locked"
        started = time.monotonic()
        result = recorder("import", "--json", "--db", str(db_path), str(corpus),
                          env={"RECORDER_BUSY_TIMEOUT_MS": "300"})
        waited = time.monotonic() - started
        holder.stdin.write("\n")
        holder.stdin.flush()
    assert result.returncode == 3, result.stderr
    assert "database is locked" in result.stderr and "write lock" in result.stderr
    assert "Traceback" not in result.stderr
    assert waited < 60
    kept = stored(db_path)
    assert kept == set()
    retry_completes(db_path, corpus, kept)


# ---------------------------------------------------------------------- a killed server


def _post(url: str, body: bytes, token: str, headers: dict[str, str] | None = None
          ) -> tuple[int, dict[str, Any]]:
    """POST an upload; ``headers``, when given, receives the answer's headers."""
    request = urllib.request.Request(url + "/api/games", data=body, method="POST",
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=300) as response:
            if headers is not None:
                headers.update(response.headers)
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        if headers is not None:
            headers.update(exc.headers)
        return exc.code, json.load(exc)


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_server_killed_during_an_upload_loses_only_the_batch_in_flight(
        tmp_path: Path, corpus: Path, start_server: Any) -> None:
    db_path = tmp_path / "killed.db"
    db = storage.connect(db_path)
    _, token = create_token(db, "faults", frontend="test-frontend")
    db.close()
    # several batches of 64 games: copies of the corpus under new game_ids
    docs = [json.loads(line) for line in corpus.read_text().splitlines()]
    ids = [f"{d['game_id']}-{k}" for k in range(4) for d in docs]
    body = "".join(json.dumps({**d, "game_id": f"{d['game_id']}-{k}"}) + "\n"
                   for k in range(4) for d in docs).encode()
    url = start_server(db_path, threads=2)
    proc = start_server.procs[-1]  # the waitress process of that server

    errors: list[BaseException] = []

    def upload() -> None:
        try:
            _post(url, body, token)
        except BaseException as exc:  # the connection dies with the server
            errors.append(exc)

    sender = threading.Thread(target=upload)
    sender.start()
    deadline = time.monotonic() + 120
    watcher = storage.connect(db_path)
    try:
        while watcher["games"].count == 0:  # the first batch is committed
            assert time.monotonic() < deadline, "no batch was committed in time"
            assert sender.is_alive(), "the upload ended before the kill"
            time.sleep(0.02)
    finally:
        watcher.close()
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    sender.join(timeout=60)
    assert errors, "the client should see the connection drop"

    kept = stored(db_path)
    assert 0 < len(kept) < len(ids), "the kill should land in the middle of the upload"
    assert kept == set(ids[: len(kept)]), "whole batches, in order"

    url = start_server(db_path, threads=2)
    status, answer = _post(url, body, token)
    assert status == 200, answer
    assert answer["data"]["summary"] == {"accepted": len(ids) - len(kept),
                                         "duplicate": len(kept), "superseded": 0, "refused": 0}
    assert stored(db_path) == set(ids)


def test_a_full_database_answers_an_upload_503_and_a_retry_completes(
        tmp_path: Path, corpus: Path, start_server: Any) -> None:
    db_path = tmp_path / "full-api.db"
    db = storage.connect(db_path)
    _, token = create_token(db, "faults", frontend="test-frontend")
    db.close()
    body = corpus.read_bytes()
    limit = db_path.stat().st_size + 8 * 4096
    url = start_server(db_path, threads=2, env={"RECORDER_MAX_DB_BYTES": str(limit)})
    headers: dict[str, str] = {}
    status, answer = _post(url, body, token, headers)
    assert status == 503, answer
    assert headers.get("Retry-After") == "30", headers  # as the OpenAPI document says
    assert answer["error"]["code"] == "storage/failed"
    assert "database or disk is full" in answer["error"]["message"]
    assert "make room" in answer["error"]["message"]
    assert str(tmp_path) not in json.dumps(answer)
    kept = stored(db_path)
    assert len(kept) < GAMES
    url = start_server(db_path, threads=2)
    status, answer = _post(url, body, token)
    assert status == 200, answer
    assert answer["data"]["summary"] == {"accepted": GAMES - len(kept),
                                         "duplicate": len(kept), "superseded": 0, "refused": 0}
    assert stored(db_path) == {f"fault-{i}" for i in range(GAMES)}


def test_a_bad_size_limit_is_named(tmp_path: Path) -> None:
    result = recorder("token", "list", "--db", str(tmp_path / "x.db"),
                      env={"RECORDER_MAX_DB_BYTES": "10MB"})
    assert not (tmp_path / "x.db").exists()
    assert result.returncode == 1
    assert "RECORDER_MAX_DB_BYTES must be a positive whole number, not '10MB'" in result.stderr
