"""The command line: output shapes and exit codes of the contract."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from recorder.cli import main
from recorder.replay import replay
from recorder.simulate import simulate_game

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


@pytest.fixture
def game_file(tmp_path: Path) -> Path:
    doc = simulate_game({"preset": "spilop", "options": {"bonus": True}}, 2, "cli-1",
                        game_id="cli-1", max_rounds=3)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    return path


def broken(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    doc["game_id"] = "broken"
    first = doc["rounds"][0]["moves"][0]
    first["player"] = 1 - first["player"]
    return doc


def test_replay_json_prints_one_answer_per_game(runner: CliRunner, game_file: Path) -> None:
    result = runner.invoke(main, ["replay", "--json", str(game_file)])
    assert result.exit_code == 0, result.output
    answer = json.loads(result.output)
    assert answer["game_id"] == "cli-1"
    assert answer["status"] in ("finished", "unfinished")
    assert set(answer["rounds"][0]) == {"winners", "points", "bonus", "blocked", "pips_left",
                                        "ended_by"}


def test_replay_transcript_is_readable(runner: CliRunner, game_file: Path) -> None:
    doc = json.loads(game_file.read_text())
    ids = [p["id"] for p in doc["players"]]
    result = runner.invoke(main, ["replay", str(game_file)])
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == f"cli-1: spilop, 2 players ({ids[0]}, {ids[1]})"
    assert lines[1].startswith("round 1 (seeded deal, boneyard 14)")
    # every logged move has its line, numbered, with who did what
    moves = doc["rounds"][0]["moves"]
    verbs = {"play": "plays", "draw": "draws", "pass": "passes"}
    for n, move in enumerate(moves, 1):
        expected = f"{n:3}. {ids[move['player']]} {verbs[move['action']]}"
        if move["action"] != "pass":
            expected += f" {move['tile']}"
        assert any(line.strip().startswith(expected.strip()) for line in lines), expected
    answer = json.loads(runner.invoke(main, ["replay", "--json", str(game_file)]).output)
    scores = " ".join(f"{s:.2f}" if isinstance(s, float) else str(s) for s in answer["scores"])
    assert lines[-1].endswith(f"scores {scores}")


def test_invalid_game_exits_1_and_says_where(runner: CliRunner, game_file: Path,
                                            tmp_path: Path) -> None:
    good = json.loads(game_file.read_text())
    bad = broken(good)
    path = tmp_path / "bad.jsonl"
    path.write_text(game_file.read_text() + "\n" + json.dumps(bad) + "\n")
    result = runner.invoke(main, ["replay", "--json", str(path)])
    assert result.exit_code == 1
    lines = [json.loads(x) for x in result.output.splitlines()]
    assert [x["status"] for x in lines] == ["finished", "invalid"]
    error = lines[1]["error"]
    assert (error["round"], error["move"]) == (1, 1)
    # and why: the opening belongs to the other seat, which the message names
    first = good["rounds"][0]["moves"][0]
    ids = [p["id"] for p in good["players"]]
    reason = (f"round 1, move 1 ({ids[1 - first['player']]} plays {first['tile']}): not "
              f"this player's turn: {ids[first['player']]} opens with {first['tile']}")
    assert (error["code"], error["pointer"]) == ("move/illegal", "/rounds/0/moves/0")
    assert error["message"].startswith(reason)
    human = runner.invoke(main, ["validate", str(path)])
    assert human.exit_code == 1
    assert f"broken: invalid: {reason}" in human.output


def test_unreadable_input_exits_2(runner: CliRunner, tmp_path: Path) -> None:
    path = tmp_path / "garbage.json.gz"
    path.write_bytes(b"\x1f\x8b not really gzip")
    result = runner.invoke(main, ["replay", "--json", str(path)])
    assert result.exit_code == 2
    missing = runner.invoke(main, ["validate", str(tmp_path / "nope.json")])
    assert missing.exit_code == 2
    assert "cannot read" in missing.output


def test_stdin_gzip_and_arrays(runner: CliRunner, game_file: Path) -> None:
    doc = json.loads(game_file.read_text())
    packed = gzip.compress(json.dumps([doc, doc]).encode())
    result = runner.invoke(main, ["replay", "--json", "-"], input=packed)
    assert result.exit_code == 0, result.output
    assert len(result.output.splitlines()) == 2


def test_validate_summarises(runner: CliRunner, game_file: Path) -> None:
    result = runner.invoke(main, ["validate", str(game_file)])
    assert result.exit_code == 0
    assert "cli-1: ok" in result.output


def test_simulate_writes_games_that_replay(runner: CliRunner, tmp_path: Path) -> None:
    result = runner.invoke(main, ["simulate", "--preset", "classic", "-o", "draw=one",
                                  "--players", "3", "--games", "3", "--seed", "t"])
    assert result.exit_code == 0, result.output
    docs = [json.loads(x) for x in result.output.splitlines()]
    assert [d["game_id"] for d in docs] == ["t-1", "t-2", "t-3"]
    assert docs[0]["ruleset"] == {"preset": "classic", "options": {"draw": "one"}}
    path = tmp_path / "sim.jsonl"
    path.write_text(result.output)
    replayed = runner.invoke(main, ["replay", "--json", str(path)])
    assert replayed.exit_code == 0, replayed.output
    answers = [json.loads(x) for x in replayed.output.splitlines()]
    assert [a["game_id"] for a in answers] == ["t-1", "t-2", "t-3"]
    for doc, answer in zip(docs, answers, strict=True):
        assert answer["status"] == "finished" and "mismatches" not in answer
        assert answer["scores"] == doc["result"]["scores"]
        assert len(answer["rounds"]) == len(doc["rounds"])


def test_simulate_refuses_bad_options(runner: CliRunner) -> None:
    result = runner.invoke(main, ["simulate", "-o", "bonsu=true"])
    assert result.exit_code == 2
    assert 'unknown option "bonsu"' in result.output
    assert 'did you mean "bonus"' in result.output
    result = runner.invoke(main, ["simulate", "--preset", "norwegian", "--players", "3"])
    assert result.exit_code == 2
    assert "norwegian is played by 2 players" in result.output


def test_every_command_has_help_with_an_example(runner: CliRunner) -> None:
    top = runner.invoke(main, ["--help"])
    assert "Examples:" in top.output
    for name in main.commands:
        group = main.commands[name]
        sub = getattr(group, "commands", None)
        for cmd in ([name] if not sub else [f"{name} {s}" for s in sub]):
            out = runner.invoke(main, [*cmd.split(), "--help"])
            assert out.exit_code == 0, cmd
            assert "Example" in out.output, f"recorder {cmd} --help shows no example"


def test_sample_games_are_all_valid(runner: CliRunner) -> None:
    files = sorted(str(p) for p in (ROOT / "sample_games").iterdir()
                   if p.suffix in (".json", ".jsonl"))
    result = runner.invoke(main, ["replay", "--json", *files])
    assert result.exit_code == 0, result.output[-2000:]
    answers = [json.loads(x) for x in result.output.splitlines()]
    assert len(answers) >= 100
    assert all(a["status"] != "invalid" for a in answers)


def test_transcript_shows_the_worked_bonus_examples(runner: CliRunner) -> None:
    result = runner.invoke(main, ["replay", str(ROOT / "sample_games" / "bonus-examples.json")])
    assert result.exit_code == 0
    out = result.output
    assert "kfnielsen plays 6-4 right   L6 R4 U6 D6  sum 16\n" in out
    assert "ingaan plays 4-6 down       L1 R3 U5 D6  sum 15   bonus +15" in out
    assert "ingaan plays 3-3 right      L6 R3 U6 D6  sum 18\n" in out
    assert "ingaan plays 5-5            L5 R5 U5 D5  sum 10   bonus +10" in out
    assert out.count("round cut off after") == 4


def test_deal_shows_the_hands_and_boneyard_of_a_round(runner: CliRunner) -> None:
    from recorder.engine import seeded_deal
    from recorder.rules import find
    from recorder.tiles import tile_set

    result = runner.invoke(main, ["deal", "abc", "--round", "1", "--preset", "spilop",
                                  "--players", "2"])
    assert result.exit_code == 0, result.output
    dealt, _ = seeded_deal(find("spilop"), 2, "abc/1")
    tiles = tile_set(6, 1)
    lines = result.output.splitlines()
    assert lines[0] == 'deal of seed "abc/1": spilop, 2 players, 7 tiles each'
    assert lines[1] == "  seat 0: " + " ".join(dealt.hand_names(tiles)[0])
    assert lines[3] == "  boneyard (14, in draw order): " + " ".join(dealt.boneyard_names(tiles))
    assert "opens: seat" in result.output
    same = runner.invoke(main, ["deal", "abc/1", "--preset", "spilop", "--players", "2"])
    assert same.output.splitlines()[:4] == lines[:4]


def test_deal_json_with_options_redeal_and_lot(runner: CliRunner) -> None:
    vectors = json.loads((ROOT / "schemas" / "vectors" / "deal-sha256-fy-1.json").read_text())
    for vector in vectors["deals"]:
        if not (vector["redeals"] or vector["lot"] is not None):
            continue
        args = ["deal", vector["game_seed"], "--round", str(vector["round"]), "--preset",
                vector["preset"], "--players", str(vector["players"])]
        for name, value in vector["options"].items():
            args += ["-o", f"{name}={json.dumps(value)}"]
        result = runner.invoke(main, [*args, "--json"])
        assert result.exit_code == 0, result.output
        shown = json.loads(result.output)
        for key in ("seed", "hands", "boneyard", "redeals", "lot", "opens"):
            assert shown[key] == vector[key], key
        text = runner.invoke(main, args).output
        assert ("redealt" in text) == bool(vector["redeals"])
        assert ("lot: seat" in text) == (vector["lot"] is not None)


def test_deal_refuses_bad_rules(runner: CliRunner) -> None:
    result = runner.invoke(main, ["deal", "x", "--preset", "norwegian", "--players", "3"])
    assert result.exit_code == 2
    assert "norwegian is played by 2 players" in result.output
    result = runner.invoke(main, ["deal", "x", "--players", "2", "-o", "sets=3"])
    assert result.exit_code == 2 and "sets" in result.output


@pytest.mark.parametrize(("args", "line"), [
    (["x", "--round", "1", "--preset", "openspiel-block", "--players", "2"],
     "  opens: seat 0 (or the round's opener), with any tile"),
    (["x", "--round", "1", "--preset", "italian", "--players", "3"],
     "  opens: any player, with any tile"),
    (["vector-no-double-104", "--round", "1", "--preset", "spilop", "--players", "2"],
     "  opens: nobody holds a double; the players draw in turn from seat 0 until one draws "
     "a double"),
    (["vector-everyone-draws-132", "--round", "1", "--preset", "all-fives", "--players", "2"],
     "  opens: nobody holds a double; each player draws one tile, from seat 0, until a hand "
     "holds one"),
])
def test_deal_says_who_opens(runner: CliRunner, args: list[str], line: str) -> None:
    result = runner.invoke(main, ["deal", *args])
    assert result.exit_code == 0, result.output
    assert line in result.output.splitlines()


# ---------------------------------------------------------------------------------------
# The answer's text: written by orjson where it can be, always the stdlib's bytes.

_NUMBERS = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=False),
                     st.sampled_from([1e-05, 2.5e-07, 1e16, 0.1, -0.0, 1e300]))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    game_id=st.text(max_size=30),
    rounds=st.lists(st.fixed_dictionaries({
        "winners": st.lists(st.integers(0, 7), max_size=3),
        "points": st.lists(_NUMBERS, max_size=4),
        "blocked": st.booleans(),
        "ended_by": st.one_of(st.none(), st.integers(0, 7)),
    }), max_size=4),
    scores=st.lists(_NUMBERS, max_size=4),
)
def test_answer_json_is_the_stdlib_text(game_id: str, rounds: list[dict[str, Any]],
                                        scores: list[Any]) -> None:
    from recorder.cli import answer_json

    for answer in (
        {"game_id": game_id, "status": "finished", "rounds": rounds, "scores": scores,
         "winners": [0]},
        {"game_id": game_id, "status": "invalid", "error": {"message": f"a, b: {game_id}"}},
    ):
        assert answer_json(answer) == json.dumps(answer, ensure_ascii=False)


def test_answer_json_of_every_sample_game_is_the_stdlib_text() -> None:
    from recorder.cli import answer_json
    from recorder.parse import iter_path

    fast = 0
    for path in sorted((ROOT / "sample_games").glob("*.json*")):
        for parsed in iter_path(str(path)):
            answer = replay(parsed.doc)
            assert answer_json(answer) == json.dumps(answer, ensure_ascii=False), path
            fast += answer["status"] != "invalid"
    assert fast > 50


def test_service_commands_start_without_numpy(tmp_path: Path, game_file: Path) -> None:
    """sqlite-utils would import numpy at every command's start; the recorder never needs it.

    Run in a fresh interpreter, since this one may have numpy loaded already. numpy stays
    importable afterwards, for the commands (batch, the warehouse) whose libraries use it.
    """
    pytest.importorskip("numpy")
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from recorder.cli import main\n"
        "r = CliRunner().invoke(main, ['import', '--db', 'g.db', sys.argv[1]])\n"
        "print(r.exit_code, 'numpy' in sys.modules)\n"
        "import numpy, sqlite_utils.db\n"
        "print(numpy.int64(3) + 1, sqlite_utils.db.np is None)\n"
    )
    out = subprocess.run([sys.executable, "-c", code, str(game_file)], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "0 False"
    assert out[1] == "4 True"
    assert (tmp_path / "g.db").exists()
