"""An unfinished game can be continued: the longer log replaces the stored one.

A frontend that saves a game as it goes sends it again and again under one game_id. Each
log that continues the stored unfinished game (recorder.continuation) replaces it in
place (its id stays), its rows and its contribution to the statistics' counters replaced
in the same transaction, and the report says ``superseded``. Anything else under a stored
game_id is still a conflict, and a broken continuation is refused for its own fault.
"""

from __future__ import annotations

import copy
import json
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env
from conftest import stats_counters as counters

from recorder import storage
from recorder.continuation import extends
from recorder.replay import replay
from recorder.tokens import create_token


def saved_at(doc: dict[str, Any], rounds: int, moves: int) -> dict[str, Any]:
    """What a frontend saves after ``moves`` moves of round ``rounds``: the rounds before
    whole, that round cut, no claimed result."""
    part = copy.deepcopy(doc)
    part["rounds"] = part["rounds"][:rounds]
    last = part["rounds"][-1]
    last["moves"] = last["moves"][:moves]
    last.pop("result", None)
    part.pop("result", None)
    assert replay(part)["status"] == "unfinished"
    return part


def long_game(seed: int = 1) -> dict[str, Any]:
    for n in range(seed, seed + 50):
        doc = make_game(n, ruleset="classic", players=2,
                        started_at="2026-11-30T18:00:00Z")
        if len(doc["rounds"]) >= 3 and replay(doc)["status"] == "finished":
            return doc
    raise AssertionError("no game of three rounds")


@pytest.fixture
def server(tmp_path: Path, start_server: Any) -> tuple[str, str, Path]:
    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    secret = create_token(db, "test-frontend", ["upload"])[1]
    db.close()
    return start_server(db_path), secret, db_path


def upload(server: tuple[str, str, Path], *docs: Any) -> dict[str, Any]:
    url, secret, _ = server
    body = "".join(json.dumps(d) + "\n" for d in docs).encode()
    request = urllib.request.Request(url + "/api/games", data=body,
                                     headers={"Authorization": f"Bearer {secret}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        data: dict[str, Any] = json.load(response)["data"]
        return data


def facts(db_path: Path, game: int) -> dict[str, Any]:
    with sqlite3.connect(db_path) as conn:
        return {table: conn.execute(f"SELECT * FROM {table} WHERE game = ?", [game]).fetchall()
                for table in ("players", "rounds", "moves")}


def test_each_save_replaces_the_last_and_the_counters_follow(
        server: tuple[str, str, Path], tmp_path: Path) -> None:
    doc = long_game()
    saves = [saved_at(doc, 1, 5), saved_at(doc, 2, 3), saved_at(doc, 3, 1), doc]
    first = upload(server, saves[0])["games"][0]
    assert (first["status"], first["result"]) == ("accepted", "unfinished")
    for save in saves[1:]:
        report = upload(server, save)
        game = report["games"][0]
        assert (game["status"], game["id"]) == ("superseded", first["id"]), game
        assert report["summary"] == {"accepted": 0, "duplicate": 0, "superseded": 1,
                                     "refused": 0}
    assert game["result"] == "finished"
    url, _, db_path = server
    with urllib.request.urlopen(f"{url}/api/games/{first['id']}", timeout=60) as response:
        summary = json.load(response)["data"]
    assert summary["status"] == "finished" and summary["log"] == doc
    assert summary["moves_count"] == sum(len(r["moves"]) for r in doc["rounds"])
    # the rows and counters are those of the whole game, as if stored at once
    alone = tmp_path / "alone.db"
    path = tmp_path / "whole.json"
    path.write_text(json.dumps(doc))
    result = subprocess.run(
        [sys.executable, "-c", "from recorder.cli import main; main()", "import", str(path),
         "--db", str(alone)], capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert result.returncode == 0, result.stderr
    assert facts(db_path, first["id"]) == facts(alone, 1)
    assert counters(db_path) == counters(alone)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 1
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_saves_in_one_body_and_again_are_answered_in_order(
        server: tuple[str, str, Path]) -> None:
    doc = long_game(10)
    report = upload(server, saved_at(doc, 1, 4), saved_at(doc, 2, 2), doc, doc)
    assert [g["status"] for g in report["games"]] == \
        ["accepted", "superseded", "superseded", "duplicate"]
    assert len({g["id"] for g in report["games"]}) == 1


def test_what_does_not_continue_the_stored_game_is_a_conflict(
        server: tuple[str, str, Path]) -> None:
    doc = long_game(20)
    part = saved_at(doc, 2, 3)
    upload(server, part)
    retimed = copy.deepcopy(doc)
    retimed["rounds"][0]["moves"][0]["ms"] = 1 + (retimed["rounds"][0]["moves"][0].get("ms")
                                                  or 0)
    shorter = saved_at(doc, 1, 6)
    for other in (retimed, shorter, make_game(99, game_id=doc["game_id"])):
        game = upload(server, other)["games"][0]
        assert game["status"] == "refused" and game["error"]["code"] == "game/conflict"
    # a broken continuation is refused for its own fault, and the save stays
    broken = copy.deepcopy(doc)
    move = broken["rounds"][2]["moves"][1]
    move["player"] = broken["rounds"][2]["moves"][0]["player"]
    game = upload(server, broken)["games"][0]
    assert (game["status"], game["error"]["code"]) == ("refused", "move/illegal")
    # the whole game continues the save; a finished game is not continued
    assert upload(server, doc)["games"][0]["status"] == "superseded"
    game = upload(server, {**doc, "x-note": "saved again"})["games"][0]
    assert game["error"]["code"] == "game/conflict"


def test_the_command_line_continues_too_with_or_without_workers(tmp_path: Path) -> None:
    doc = long_game(30)
    path = tmp_path / "saves.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in (saved_at(doc, 1, 3), doc)))
    for workers in ("0", "2"):
        db_path = tmp_path / f"w{workers}.db"
        result = subprocess.run(
            [sys.executable, "-c", "from recorder.cli import main; main()", "import",
             "--json", "--workers", workers, str(path), "--db", str(db_path)],
            capture_output=True, text=True, env=subprocess_env(), timeout=120)
        assert result.returncode == 0, result.stderr
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        assert [line["status"] for line in lines[:-1]] == ["accepted", "superseded"]
        assert lines[1]["id"] == lines[0]["id"] and lines[1]["result"] == "finished"
        assert lines[-1] == {"accepted": 1, "duplicate": 0, "superseded": 1, "refused": 0}
        text = subprocess.run(
            [sys.executable, "-c", "from recorder.cli import main; main()", "import",
             str(path), "--db", str(tmp_path / f"t{workers}.db")],
            capture_output=True, text=True, env=subprocess_env(), timeout=120)
        assert "1 accepted, 0 duplicate, 1 superseded, 0 refused" in text.stdout


def test_what_extends_means() -> None:
    doc = long_game(40)
    part = saved_at(doc, 2, 3)
    assert extends(part, doc) and not extends(doc, part) and not extends(doc, doc)
    assert extends(part, saved_at(doc, 2, 4))
    # a new round dealt, none of its moves made yet, is more
    dealt = saved_at(doc, 2, len(doc["rounds"][1]["moves"]))
    dealt["rounds"].append({**doc["rounds"][2], "moves": []})
    assert extends(saved_at(doc, 2, len(doc["rounds"][1]["moves"])), dealt)
    # claims, the start time, the frontend's version and its own fields may change
    claimed = copy.deepcopy(doc)
    claimed["rounds"][0]["result"] = {"winners": [0]}
    claimed.update({"started_at": "2026-12-01T00:00:00Z", "x-saved": 3})
    claimed["frontend"]["version"] = "2"
    assert extends(part, claimed)
    # layout, nulls and tile orientation (but the opening's) do not count
    relaid = json.loads(json.dumps(doc, indent=2))
    relaid["rounds"][0]["moves"][3]["end"] = relaid["rounds"][0]["moves"][3].get("end")
    assert extends(part, relaid)
    # the game's rules, players or seed may not
    for key, value in (("ruleset", "italian"), ("seed", "other"),
                       ("players", list(reversed(doc["players"])))):
        assert not extends(part, {**doc, key: value}), key
    # nor a round's deal or seed, nor a move made before
    reseeded = copy.deepcopy(doc)
    reseeded["rounds"][1]["seed"] = "other"
    assert not extends(part, reseeded)
    changed = copy.deepcopy(doc)
    changed["rounds"][1]["moves"][2]["ms"] = -1
    assert not extends(part, changed)
    # and a finished round cannot grow
    grown = copy.deepcopy(part)
    grown["rounds"][0]["moves"].append({"player": 0, "action": "pass"})
    assert not extends(part, grown)
