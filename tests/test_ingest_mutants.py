"""The importer's decisions and words, pinned exactly (each test kills mutants that the
broader tests of tests/test_ingest.py let through: see docs/testing.md).

Every test runs the real importer on a real SQLite file; the expected values are written
out or taken from the engine's own answer for the same document, never from the importer.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from click.testing import Result
from conftest import break_game, json_lines, make_game, write_jsonl

from recorder import storage
from recorder.ingest import (
    ACCEPTED,
    DUPLICATE,
    REFUSED,
    Outcome,
    locate,
)
from recorder.replay import replay

Cli = Callable[..., Result]


def refusals() -> list[dict[str, Any]]:
    """Four refused games whose errors sit at a move, a round, the game, and a move again
    (a schema error, whose message does not start with its place)."""
    moved = break_game(make_game(1))
    schema_move = copy.deepcopy(make_game(2))
    schema_move["rounds"][0]["moves"][1] = {"action": ["play"], "player": "x"}
    deal = copy.deepcopy(make_game(3))
    deal["rounds"][0]["deal"] = {"hands": [["0-0"]]}
    players = copy.deepcopy(make_game(4))
    players["players"] = []
    del players["game_id"]
    return [moved, schema_move, deal, players]


def test_the_report_line_of_each_refusal_starts_with_its_place(
        cli: Cli, tmp_path: Path, db_path: Path) -> None:
    docs = refusals()
    errors = [replay(doc)["error"] for doc in docs]
    # what the engine says, so that the report's words are checked, not the engine's
    assert [(e["round"], e["move"]) for e in errors] == [(1, 2), (1, 2), (1, 0), (0, 0)]
    assert errors[0]["message"].startswith("round 1, move 2 (")
    assert errors[1]["message"].startswith("at /rounds/0/moves/1")
    path = write_jsonl(tmp_path / "bad.jsonl", [make_game(9), *docs])
    result = cli("import", str(path))
    assert result.exit_code == 1
    lines = [line for line in result.stderr.splitlines() if ": refused: " in line]
    assert lines == [
        f"{path}:2 game-1: refused: {errors[0]['message']}",
        f"{path}:3 game-2: refused: round 1, move 2: {errors[1]['message']}",
        f"{path}:4 game-3: refused: round 1: {errors[2]['message']}",
        f"{path}:5: refused: {errors[3]['message']}",
    ]
    assert storage.count_rows(storage.connect(db_path))["games"] == 1


def test_a_refusal_in_an_array_is_named_by_its_place_in_the_array(
        cli: Cli, tmp_path: Path) -> None:
    bad = break_game(make_game(5))
    message = replay(bad)["error"]["message"]
    path = tmp_path / "games.json"
    path.write_text(json.dumps([make_game(6), make_game(7), bad]))
    result = cli("import", str(path))
    assert result.exit_code == 1
    assert f"{path} #3 game-5: refused: {message}\n" in result.stderr


def test_a_round_level_message_is_not_located_twice(cli: Cli, tmp_path: Path) -> None:
    doc = make_game(1)
    doc["rounds"].append(copy.deepcopy(doc["rounds"][0]))
    error = replay(doc)["error"]
    assert (error["round"], error["move"]) == (len(doc["rounds"]), 0)
    assert error["message"].startswith(f"round {len(doc['rounds'])}: ")
    result = cli("import", str(write_jsonl(tmp_path / "long.jsonl", [doc])))
    # a file of one line is one document, named by its place like an array's
    assert f"long.jsonl #1 game-1: refused: {error['message']}\n" in result.stderr


def test_locate_without_a_place_or_with_a_move_only() -> None:
    assert locate({"round": 0, "move": 0, "message": "no players"}) == "no players"
    assert locate({"round": None, "move": None, "message": "x"}) == "x"
    assert locate({"message": "x"}) == "x"
    assert locate({"round": 2, "move": 5, "message": "x"}) == "round 2, move 5: x"
    assert locate({"round": 2, "message": "x"}) == "round 2: x"


def test_every_kind_of_outcome_has_its_line() -> None:
    assert Outcome(DUPLICATE, game_id="g", id=4, source="a.jsonl", line=3).describe() \
        == "a.jsonl:3 g: duplicate of game #4"
    assert Outcome(ACCEPTED, id=7, source="a.json", index=0).describe() \
        == "a.json #1: accepted as game #7"
    assert Outcome(ACCEPTED, id=7, index=4).describe() == "input #5: accepted as game #7"
    assert Outcome(ACCEPTED, game_id="g", id=8).describe() == "input g: accepted as game #8"
    # a refusal without an error (none is made so) is worded like the other outcomes
    assert Outcome(REFUSED, game_id="g").describe() == "input g: refused as game #None"


def test_a_game_id_conflict_is_refused_at_the_game_id(
        cli: Cli, tmp_path: Path, db_path: Path) -> None:
    assert cli("import", str(write_jsonl(tmp_path / "a.jsonl",
                                         [make_game(1, game_id="shared")]))).exit_code == 0
    db = storage.connect(db_path)
    stored = db.execute("SELECT id, imported_at FROM games").fetchone()
    db.close()
    other = write_jsonl(tmp_path / "b.jsonl", [make_game(2, game_id="shared")])
    result = cli("import", "--json", str(other))
    assert result.exit_code == 1
    error = json_lines(result.stdout)[0]["error"]
    assert error == {
        "round": 0,
        "move": 0,
        "code": "game/conflict",
        "pointer": "/game_id",
        "message": (
            f"frontend 'test-frontend' already sent a different game with game_id 'shared' "
            f"(stored as game #{stored[0]} on {stored[1]}); a game_id must name one game: "
            "give this game its own game_id, or send the stored game unchanged"
        ),
    }
    result = cli("import", str(other))
    assert f"b.jsonl #1 shared: refused: {error['message']}\n" in result.stderr
