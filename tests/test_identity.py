"""What is stored is what was checked: the content hash keeps what changes the game, and a
log is judged before its identity is compared.

The opening tile's written order decides which end is left, so a log whose opening tile is
turned around is another game (valid or not), never a duplicate of its twin. The normal
form removes only what neither the schema nor the engine can see, which is what lets a
known hash be answered ``duplicate`` without a replay; a log that breaks the rules is never
answered ``duplicate`` or ``game/conflict``. Checked on a real server and a real file.
"""

from __future__ import annotations

import copy
import json
import random
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env
from hypothesis import given, settings
from hypothesis import strategies as st

from recorder import identity, storage
from recorder.replay import replay
from recorder.tokens import create_token


def opening(rnd: dict[str, Any]) -> dict[str, Any]:
    """A round's first play: its opening tile."""
    move: dict[str, Any] = next(m for m in rnd["moves"] if m["action"] == "play")
    return move


def turned(tile: str) -> str:
    a, b = tile.split("-")
    return f"{b}-{a}"


def mirrored(doc: dict[str, Any]) -> dict[str, Any]:
    """The same game seen in a mirror: every opening tile turned, left and right swapped.
    Valid whenever ``doc`` is (a ruleset without a spinner)."""
    out = copy.deepcopy(doc)
    for rnd in out["rounds"]:
        first = opening(rnd)
        first["tile"] = turned(first["tile"])
        for move in rnd["moves"]:
            if move.get("end") in ("left", "right"):
                move["end"] = "right" if move["end"] == "left" else "left"
    return out


@pytest.fixture
def server(tmp_path: Path, start_server: Any) -> tuple[str, str, Path]:
    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    token = create_token(db, "test-frontend", ["upload"])[1]
    db.close()
    return start_server(db_path), token, db_path


def upload(server: tuple[str, str, Path], *docs: Any, raw: bytes | None = None
           ) -> tuple[int, dict[str, Any]]:
    url, token, _ = server
    body = raw if raw is not None else "".join(json.dumps(d) + "\n" for d in docs).encode()
    request = urllib.request.Request(url + "/api/games", data=body,
                                     headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


def stored(server: tuple[str, str, Path]) -> int:
    with sqlite3.connect(server[2]) as conn:
        return int(conn.execute("SELECT count(*) FROM games").fetchone()[0])


def a_game_opened_by_a_non_double(seed: int = 0) -> dict[str, Any]:
    """A valid italian game (free opening) whose round 1 opens with a tile that is not a
    double, so that turning it around opens another board."""
    for n in range(seed, seed + 200):
        doc = make_game(f"mirror-{n}", ruleset="italian", players=2)
        tile = opening(doc["rounds"][0])["tile"]
        a, b = tile.split("-")
        if a != b and replay(mirrored(doc))["status"] != "invalid":
            return doc
    raise AssertionError("no such game among 200 seeds")


# ---------------------------------------------------------------------------------------
# The tile "²-3".


def test_a_superscript_digit_in_a_tile_is_refused_not_a_crash(
        server: tuple[str, str, Path], tmp_path: Path) -> None:
    doc = make_game(2)
    doc["rounds"][0]["moves"][1]["tile"] = "\u00b2-3"
    status, answer = upload(server, doc)
    assert status == 200, answer
    game = answer["data"]["games"][0]
    assert game["status"] == "refused"
    assert (game["error"]["code"], game["error"]["pointer"]) == \
        ("log/schema", "/rounds/0/moves/1/tile")
    assert stored(server) == 0
    path = tmp_path / "superscript.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-c", "from recorder.cli import main; main()", "import", "--json",
         str(path), "--db", str(tmp_path / "cli.db")],
        capture_output=True, text=True, env=subprocess_env(), timeout=120)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert json.loads(result.stdout.splitlines()[0])["error"]["code"] == "log/schema"


@pytest.mark.parametrize("tile", ["\u00b2-3", "\u0663-6", "06-3", "6-03", "x-1", 7, None])
def test_the_hash_of_any_tile_is_taken_without_error(tile: Any) -> None:
    doc = make_game(2)
    doc["rounds"][0]["moves"][1]["tile"] = tile
    assert len(identity.content_hash(doc)) == 64


# ---------------------------------------------------------------------------------------
# The opening tile.


def turned_opening(doc: dict[str, Any]) -> dict[str, Any]:
    """``doc`` with its first opening tile turned around: another board, here a broken
    game (its next play no longer fits)."""
    broken = copy.deepcopy(doc)
    first = opening(broken["rounds"][0])
    first["tile"] = turned(first["tile"])
    return broken


def opened_by_a_non_double(seeds: range) -> list[dict[str, Any]]:
    games = []
    for n in seeds:
        doc = make_game(n, ruleset="italian", players=2)
        a, b = opening(doc["rounds"][0])["tile"].split("-")
        if a != b and replay(turned_opening(doc))["status"] == "invalid":
            games.append(doc)
    return games


def test_a_log_with_its_opening_turned_is_judged_not_taken_for_its_twin(
        server: tuple[str, str, Path]) -> None:
    doc, other = opened_by_a_non_double(range(3, 40))[:2]
    broken = turned_opening(doc)
    verdict = replay(broken)
    assert verdict["error"]["code"] == "move/illegal"
    _, answer = upload(server, doc)
    assert answer["data"]["games"][0]["status"] == "accepted"
    _, answer = upload(server, broken)
    game = answer["data"]["games"][0]
    assert game["status"] == "refused", game
    assert game["error"]["code"] == "move/illegal"
    assert game["error"]["message"] == verdict["error"]["message"]
    # the same pair in one body: the twin is refused for what is wrong with it
    _, answer = upload(server, other, turned_opening(other))
    assert [g["status"] for g in answer["data"]["games"]] == ["accepted", "refused"]
    assert answer["data"]["games"][1]["error"]["code"] == "move/illegal"
    assert stored(server) == 2


def test_a_game_and_its_mirror_image_are_two_games(server: tuple[str, str, Path]) -> None:
    doc = a_game_opened_by_a_non_double()
    mirror = mirrored(doc)
    assert replay(mirror)["status"] == replay(doc)["status"] != "invalid"
    mirror["game_id"] = doc["game_id"] + "-mirror"
    assert identity.content_hash(mirror) != identity.content_hash(
        {**doc, "game_id": mirror["game_id"]})
    _, answer = upload(server, doc, mirror)
    assert [g["status"] for g in answer["data"]["games"]] == ["accepted", "accepted"]
    assert stored(server) == 2


def test_tiles_other_than_the_opening_one_may_be_written_either_way(
        server: tuple[str, str, Path]) -> None:
    doc = make_game(4)
    other = copy.deepcopy(doc)
    for rnd in other["rounds"]:
        first = opening(rnd)
        for move in rnd["moves"]:
            if move is not first and move.get("tile"):
                move["tile"] = turned(move["tile"])
    assert other != doc
    upload(server, doc)
    _, answer = upload(server, other)
    assert answer["data"]["games"][0]["status"] == "duplicate"


def test_a_tile_the_engine_refuses_is_never_the_twin_of_a_valid_one(
        server: tuple[str, str, Path]) -> None:
    doc = make_game(5)
    broken = copy.deepcopy(doc)
    second = [m for m in broken["rounds"][0]["moves"] if m["action"] == "play"][1]
    a, b = second["tile"].split("-")
    second["tile"] = f"0{a}-{b}"  # "06-3": the schema takes it, the engine does not
    upload(server, doc)
    _, answer = upload(server, broken)
    game = answer["data"]["games"][0]
    assert game["status"] == "refused" and game["error"]["code"] == "move/illegal"
    assert f'"0{a}-{b}" is not a tile of double-six' in game["error"]["message"]


# ---------------------------------------------------------------------------------------
# Judged before compared.


def test_a_broken_log_under_a_stored_game_id_is_refused_for_its_fault(
        server: tuple[str, str, Path]) -> None:
    doc = make_game(6)
    upload(server, doc)
    broken = copy.deepcopy(doc)
    broken["rounds"][0]["moves"][1]["player"] = broken["rounds"][0]["moves"][0]["player"]
    _, answer = upload(server, broken)
    game = answer["data"]["games"][0]
    assert game["status"] == "refused"
    assert game["error"]["code"] == "move/illegal", game["error"]
    assert (game["error"]["round"], game["error"]["move"]) == (1, 2)
    # a valid other game under the same id is still a conflict
    other = make_game(7, game_id=doc["game_id"])
    _, answer = upload(server, other)
    assert answer["data"]["games"][0]["error"]["code"] == "game/conflict"


# ---------------------------------------------------------------------------------------
# Written two ways, one game.


def rewrites(doc: dict[str, Any]) -> dict[str, Any]:
    """The ways of writing the same game that the normal form makes one."""
    out: dict[str, dict[str, Any]] = {}
    a = copy.deepcopy(doc)
    a["result"] = {**a.get("result", {}), "scores": None}
    if a["result"] == {"scores": None}:
        out["result with null scores"] = a
    b = copy.deepcopy(doc)
    for move in b["rounds"][0]["moves"]:
        if isinstance(move.get("ms"), int):
            move["ms"] = float(move["ms"])
    out["ms as a float"] = b
    d = copy.deepcopy(doc)
    d["rounds"][0]["moves"][0]["closed"] = False
    out["closed false"] = d
    e = copy.deepcopy(doc)
    e["ruleset"] = {"preset": doc["ruleset"], "options": {}}
    out["ruleset with no options"] = e
    f = copy.deepcopy(doc)
    f["rounds"][0]["opener"] = None
    f["started_at"] = None
    out["nulls"] = f
    return out


def test_each_way_of_writing_the_same_game_is_a_duplicate(
        server: tuple[str, str, Path]) -> None:
    doc = make_game(8)
    doc.pop("result", None)
    assert isinstance(doc["ruleset"], str)
    for move in doc["rounds"][0]["moves"][:3]:
        move["ms"] = 764
    _, answer = upload(server, doc)
    first = answer["data"]["games"][0]
    assert first["status"] == "accepted"
    for name, twin in rewrites(doc).items():
        assert replay(twin)["status"] != "invalid", name
        _, answer = upload(server, twin)
        game = answer["data"]["games"][0]
        assert (game["status"], game["id"]) == ("duplicate", first["id"]), (name, game)
    assert stored(server) == 1


# ---------------------------------------------------------------------------------------
# The normal form never joins a valid log with an invalid one.


def _variants(doc: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Edits of a valid game, some that keep it the same game and some that break it."""
    out = []
    for _ in range(12):
        v = copy.deepcopy(doc)
        rnd = rng.choice(v["rounds"])
        move = rng.choice(rnd["moves"])
        edit = rng.randrange(12)
        if edit == 0 and move.get("tile"):
            move["tile"] = turned(move["tile"])                       # maybe the opening
        elif edit == 1 and move.get("tile"):
            a, b = move["tile"].split("-")
            move["tile"] = f"0{a}-{b}"
        elif edit == 2:
            move["player"] = float(move["player"])                   # 1.0 is not a seat
        elif edit == 3:
            move["ms"] = rng.choice([764, 764.0, -1.0, 2.0**60, None])
        elif edit == 4:
            move["closed"] = rng.choice([False, None, True])
        elif edit == 5:
            v["game_id"] = rng.choice([" " + v["game_id"], v["game_id"] + "\u202e", "  ",
                                       v["game_id"].replace("-", "\u2010")])
        elif edit == 6:
            v["frontend"]["name"] = rng.choice(["TEST-frontend", "test-frontend\t", ""])
        elif edit == 7:
            rnd["result"] = rng.choice([{}, None, {"winners": None}, {"points": [1.0]}])
        elif edit == 8:
            v["ruleset"] = rng.choice([{"preset": v["ruleset"]} if isinstance(v["ruleset"], str)
                                       else v["ruleset"], {"preset": "chess"}, {}])
        elif edit == 9:
            rnd["opener"] = rng.choice([None, 0, 1.0])
        elif edit == 10 and move.get("tile"):
            move["tile"] = move["tile"].replace("3", "\u00b3")
        elif edit == 11:
            move["end"] = rng.choice([None, "left", "right"])
        out.append(v)
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 39), st.integers(0, 10**6))
def test_a_log_with_a_valid_games_hash_is_valid(game_pool: list[dict[str, Any]], n: int,
                                                seed: int) -> None:
    doc = game_pool[n]
    hashed = identity.content_hash(doc)
    for variant in _variants(doc, random.Random(seed)):
        if identity.content_hash(variant) == hashed:
            assert replay(variant)["status"] != "invalid", json.dumps(variant)[:300]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 39), st.integers(0, 10**6))
def test_the_quick_pass_writes_what_the_careful_one_writes(
        game_pool: list[dict[str, Any]], n: int, seed: int) -> None:
    """The hash's first pass leaves the moves' nulls, ``closed: false`` and whole floats
    for the careful pass, which runs whenever the text shows one: the canonical text is the
    careful normal form's, whichever pass wrote it."""
    rng = random.Random(seed)
    for variant in [game_pool[n], *_variants(game_pool[n], rng), *rewrites(game_pool[n]).values()]:
        careful = json.dumps(identity.normalized(variant), sort_keys=True,
                             separators=(",", ":"), ensure_ascii=False)
        assert identity.canonical_json(variant) == careful
