"""A bulk import killed with SIGKILL midway leaves a sound file, and a re-run completes it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import make_game, subprocess_env

from recorder import storage

GAMES = 400
BATCH = 10
KILL_AFTER = 60  # outcomes reported (so committed) before the kill


def _children(pid: int) -> list[int]:
    """The processes ``pid`` started (Linux; none found elsewhere)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_midway_then_rerun(tmp_path: Path, db_path: Path) -> None:
    path = tmp_path / "big.jsonl"
    with path.open("w") as out:
        for i in range(GAMES):
            out.write(json.dumps(make_game(i, game_id=f"crash-{i}")) + "\n")
    command = [sys.executable, "-c", "from recorder.cli import main; main()", "import",
               "--json", "--batch-size", str(BATCH), "--workers", "2", "--db", str(db_path),
               str(path)]

    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          env=subprocess_env(), cwd=tmp_path, text=True) as proc:
        assert proc.stdout is not None
        reported = 0
        for line in proc.stdout:
            if json.loads(line).get("status") == "accepted":
                reported += 1
            if reported >= KILL_AFTER:
                break
        workers = _children(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    if Path("/proc").is_dir():  # the workers do not outlive the writer
        assert len(workers) == 2, workers
        deadline = time.monotonic() + 10
        while any(_alive(w) for w in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(w) for w in workers), "a worker outlived the killed import"

    db = storage.connect(db_path)
    assert storage.integrity_check(db) == "ok"
    kept = db["games"].count
    assert KILL_AFTER <= kept < GAMES, "the kill should land in the middle of the import"
    db.close()

    rerun = subprocess.run(command, capture_output=True, env=subprocess_env(), cwd=tmp_path,
                           text=True, timeout=600, check=False)
    assert rerun.returncode == 0, rerun.stderr
    last = json.loads(rerun.stdout.splitlines()[-1])
    assert last == {"accepted": GAMES - kept, "duplicate": kept, "superseded": 0, "refused": 0}

    db = storage.connect(db_path)
    assert storage.integrity_check(db) == "ok"
    assert db["games"].count == GAMES
    assert {r["game_id"] for r in db["games"].rows} == {f"crash-{i}" for i in range(GAMES)}
    for table in ("players", "rounds", "moves"):
        orphans = db.execute(
            f"SELECT count(*) FROM {table} WHERE game NOT IN (SELECT id FROM games)"
        ).fetchone()[0]
        assert orphans == 0, table
    half_written = db.execute(
        "SELECT count(*) FROM games g WHERE rounds_count != "
        "(SELECT count(*) FROM rounds r WHERE r.game = g.id) OR player_count != "
        "(SELECT count(*) FROM players p WHERE p.game = g.id)"
    ).fetchone()[0]
    assert half_written == 0
    db.close()
