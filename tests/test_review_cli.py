"""``recorder review``: the report, the JSON Lines, the workers, the exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from recorder.cli import main
from recorder.review import Settings, review_game
from recorder.simulate import simulate_game

SMALL = {"preset": "classic", "options": {"hand_size": 4, "draw": "none", "target": 25}}


def games(n: int) -> list[dict[str, Any]]:
    return [simulate_game(SMALL, 2, f"cli-review-{i}", game_id=f"cli-review-{i}",
                          max_rounds=3) for i in range(n)]


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in games(3)))
    return path


def test_json_lines_are_the_review_of_each_game_in_order(game_file: Path) -> None:
    result = CliRunner().invoke(main, ["review", "--json", "--view", "perfect",
                                       "--workers", "0", str(game_file)])
    assert result.exit_code == 0, result.output
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    docs = [json.loads(x) for x in game_file.read_text().splitlines()]
    assert [r["game_id"] for r in lines] == [d["game_id"] for d in docs]
    assert lines == [review_game(d, Settings(view="perfect")) for d in docs]


def test_the_workers_give_the_same_output_as_one_process(game_file: Path) -> None:
    """Real worker processes (the rounds of a game reviewed apart) print the very
    bytes one process prints."""
    def run(workers: str) -> bytes:
        done = subprocess.run(
            [sys.executable, "-m", "recorder.cli", "review", "--json", "--samples", "3",
             "--seed", "w", "--no-progress", "--workers", workers, str(game_file)],
            capture_output=True, check=True, timeout=300)
        return done.stdout

    one = run("0")
    assert one.count(b"\n") == 3
    assert run("2") == one


def test_the_report_names_each_player_and_the_biggest_mistakes(game_file: Path) -> None:
    result = CliRunner().invoke(main, ["review", "--view", "perfect", "--workers", "0",
                                       "--no-progress", str(game_file)])
    assert result.exit_code == 0, result.output
    out = result.stdout
    doc = json.loads(game_file.read_text().splitlines()[0])
    for p in doc["players"]:
        assert p["id"] in out
    assert "decisions" in out and "mean loss" in out
    assert "biggest mistakes:" in out and "best " in out and " lost, " in out


def test_an_invalid_game_is_reported_and_exits_1(tmp_path: Path) -> None:
    doc = games(1)[0]
    moves = next(r["moves"] for r in doc["rounds"] if len(r["moves"]) > 1)
    moves[1]["tile"] = moves[0]["tile"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(main, ["review", "--json", "--workers", "0", str(path)])
    assert result.exit_code == 1
    answer = json.loads(result.stdout)
    assert answer["status"] == "invalid" and answer["error"]["message"]


def test_an_unreadable_input_exits_2_after_the_others(game_file: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["review", "--json", "--view", "perfect",
                                       "--workers", "0", str(tmp_path / "missing.json"),
                                       str(game_file)])
    assert result.exit_code == 2
    assert "cannot read" in result.stderr
    assert len(result.stdout.splitlines()) == 3


@pytest.mark.parametrize("args", [["--samples", "0"], ["--view", "oracle"]])
def test_bad_settings_are_refused_before_any_work(game_file: Path, args: list[str]) -> None:
    result = CliRunner().invoke(main, ["review", *args, str(game_file)])
    assert result.exit_code == 2
    assert result.stdout == ""
