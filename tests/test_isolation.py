"""One bad document never costs the others their answer, on any path.

Two kinds of bad document: logs that are wrong in ways nobody foresaw (an action
written as an array crashed the wording of the schema error once), and documents on
which the recorder itself fails. The second kind has no natural example left once the
bugs are fixed, so the tests plant one: a round seed marked ``boom`` makes the engine
raise an exception that no code path expects, in round 2. Every path must answer that
document with an ``internal/...`` refusal located as far as known, answer the others
as usual, store nothing of it, and say through its exit code or status that something
went wrong.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import json_lines, make_game, write_jsonl

from recorder import storage
from recorder.cli import main
from recorder.replay import replay

BOOM = "boom"


@pytest.fixture
def planted_bug(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine raises a KeyError when it deals round 2 of a game seeded ``boom``.

    Planted in ``hashlib.sha256``, which the seeded stream of every round calls with
    ``"<seed>:"``: a seam that both builds of the engine (compiled and pure) look up at
    run time, and that forked worker processes inherit.
    """
    _boom_game()  # simulated before the bug is planted
    original = hashlib.sha256
    round_two = re.compile(rb".*" + BOOM.encode() + rb".*/2:\d*")

    def sha256(data: bytes = b"", **kwargs: Any) -> Any:
        if round_two.fullmatch(data):
            raise KeyError("planted")
        return original(data, **kwargs)

    monkeypatch.setattr(hashlib, "sha256", sha256)


@functools.cache
def _boom_game() -> str:
    doc = make_game(f"{BOOM}1", ruleset="classic", game_id="boom-1")
    assert len(doc["rounds"]) >= 2 and "seed" not in doc["rounds"][1]
    return json.dumps(doc)


def boom_game() -> dict[str, Any]:
    """A valid game of several rounds (seed ``test-boom1``) whose round 2 hits the bug."""
    return json.loads(_boom_game())


def three(tmp_path: Path) -> Path:
    """good, boom, good as JSON Lines."""
    return write_jsonl(tmp_path / "three.jsonl", [make_game(1), boom_game(), make_game(2)])


def run(*args: str, db: Path | None = None, stdin: bytes | None = None) -> Any:
    env = {"RECORDER_DB": str(db)} if db else {}
    return CliRunner().invoke(main, list(args), env=env, input=stdin, catch_exceptions=False)


# ---------------------------------------------------------------------- the reported crash


@pytest.mark.parametrize("action", [["play"], {"a": 1}, ["draw", "pass"]])
def test_move_without_player_whose_action_is_not_a_string_is_refused(action: Any) -> None:
    doc = make_game(1)
    doc["rounds"][0]["moves"][0] = {"action": action}
    answer = replay(doc)
    assert answer["status"] == "invalid"
    error = answer["error"]
    assert error["code"] == "log/schema"
    assert error["pointer"] == "/rounds/0/moves/0"
    assert (error["round"], error["move"]) == (1, 1)
    assert '"player"' in error["message"] and "needs" in error["message"]


def test_replay_json_answers_every_line_after_the_reported_crash(tmp_path: Path) -> None:
    bad = make_game(1)
    bad["rounds"][0]["moves"][0] = {"action": ["play"]}
    path = write_jsonl(tmp_path / "g.jsonl", [make_game(3), bad, make_game(4)])
    result = run("replay", "--json", str(path))
    answers = json_lines(result.output)
    assert [a["status"] for a in answers] == ["finished", "invalid", "finished"]
    assert "needs" in answers[1]["error"]["message"]
    assert result.exit_code == 1


# ---------------------------------------------------------------------- a planted bug


def test_replay_answers_an_internal_failure_with_its_round(planted_bug: None) -> None:
    answer = replay(boom_game())
    assert answer["status"] == "invalid"
    error = answer["error"]
    assert error["code"] == "internal/replay"
    assert (error["round"], error["pointer"]) == (2, "/rounds/1")
    assert "KeyError" in error["message"] and "bug in the recorder" in error["message"]
    assert len(answer["rounds"]) == 1  # the round before the failure is answered


@pytest.mark.parametrize("json_flag", [True, False])
def test_cli_replay_goes_on_and_exits_3(planted_bug: None, tmp_path: Path,
                                        json_flag: bool) -> None:
    result = run("replay", *(["--json"] if json_flag else []), str(three(tmp_path)))
    assert result.exit_code == 3
    if json_flag:
        answers = json_lines(result.output)
        assert [a["status"] for a in answers] == ["finished", "invalid", "finished"]
        assert answers[1]["error"]["code"] == "internal/replay"
    else:
        assert result.output.count("finished:") == 2
        assert "the recorder failed while replaying this document at round 2" in result.output


def test_cli_validate_goes_on_and_exits_3(planted_bug: None, tmp_path: Path) -> None:
    result = run("validate", str(three(tmp_path)))
    lines = result.stdout.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith("game-1: ok (finished")
    assert lines[1].startswith("boom-") and ": invalid: the recorder failed while replaying" \
        in lines[1]
    assert lines[2].startswith("game-2: ok (finished")
    assert result.exit_code == 3


def test_cli_import_stores_the_others_and_exits_3(planted_bug: None, tmp_path: Path,
                                                  db_path: Path) -> None:
    result = run("import", "--json", str(three(tmp_path)), db=db_path)
    *outcomes, tally = json_lines(result.output)
    assert [o["status"] for o in outcomes] == ["accepted", "refused", "accepted"]
    assert outcomes[1]["error"]["code"] == "internal/replay"
    assert tally == {"accepted": 2, "duplicate": 0, "superseded": 0, "refused": 1}
    assert result.exit_code == 3
    db = storage.connect(db_path)
    assert {r["game_id"] for r in db["games"].rows} == {"game-1", "game-2"}
    db.close()


def test_a_failure_while_storing_leaves_no_row_of_that_game(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db_path: Path) -> None:
    """The game's rows are written, then the bug strikes: its savepoint undoes them all."""
    original = storage.insert_game

    def insert_game(db: Any, record: Any) -> int:
        new_id = original(db, record)
        if record.game["game_id"] == "game-5":
            raise ValueError("planted after the rows were written")
        return new_id

    monkeypatch.setattr(storage, "insert_game", insert_game)
    path = write_jsonl(tmp_path / "g.jsonl", [make_game(4), make_game(5), make_game(6)])
    result = run("import", "--json", str(path), db=db_path)
    *outcomes, _ = json_lines(result.output)
    assert [o["status"] for o in outcomes] == ["accepted", "refused", "accepted"]
    assert outcomes[1]["error"]["code"] == "internal/storage"
    assert result.exit_code == 3
    db = storage.connect(db_path)
    assert db["games"].count == 2
    stored = {r["id"] for r in db["games"].rows}
    for table in ("players", "rounds", "moves"):
        assert {r["game"] for r in db[table].rows} == stored, table
    assert storage.integrity_check(db) == "ok"
    db.close()


def test_a_parser_failure_on_one_file_costs_the_other_files_nothing(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, db_path: Path) -> None:
    from recorder import ingest, parse

    original = parse.iter_path_raw

    def iter_path_raw(path: str, **kwargs: Any) -> Any:
        if path.endswith("cursed.json"):
            raise MemoryError("planted")
        return original(path, **kwargs)

    monkeypatch.setattr(parse, "iter_path_raw", iter_path_raw)
    monkeypatch.setattr(ingest, "iter_path_raw", iter_path_raw)
    cursed = tmp_path / "cursed.json"
    cursed.write_text(json.dumps(make_game(7)))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(make_game(8)))
    result = run("replay", "--json", str(cursed), str(good))
    assert [a["game_id"] for a in json_lines(result.stdout)] == ["game-8"]
    assert "cannot read" in result.stderr and "MemoryError" in result.stderr
    assert result.exit_code == 3
    result = run("import", "--json", str(cursed), str(good), db=db_path)
    *outcomes, tally = json_lines(result.stdout)
    assert outcomes[0]["error"]["code"] == "internal/parse"
    assert outcomes[1]["status"] == "accepted"
    assert tally == {"accepted": 1, "duplicate": 0, "superseded": 0, "refused": 1}
    assert result.exit_code == 3


def test_api_answers_500_with_the_whole_report(planted_bug: None, client: Any,
                                               auth: dict[str, str], db: Any) -> None:
    body = b"".join(json.dumps(d).encode() + b"\n"
                    for d in [make_game(1), boom_game(), make_game(2)])
    response = client.post("/api/games", data=body, headers=auth)
    assert response.status_code == 500
    answer = response.get_json()
    assert answer["ok"] is False
    assert answer["error"]["code"] == "internal/documents"
    games = answer["data"]["games"]
    assert [g["status"] for g in games] == ["accepted", "refused", "accepted"]
    assert games[1]["error"]["code"] == "internal/replay"
    assert games[1]["error"]["round"] == 2
    assert db["games"].count == 2


def test_upload_page_answers_500_with_every_file_reported(
        planted_bug: None, client: Any, token: str, db: Any) -> None:
    response = client.post("/upload", data={
        "token": token,
        "files": [
            (io.BytesIO(json.dumps(boom_game()).encode()), "boom.json"),
            (io.BytesIO(json.dumps(make_game(9)).encode()), "fine.json"),
        ],
    }, content_type="multipart/form-data")
    assert response.status_code == 500
    page = response.get_data(as_text=True)
    assert "boom.json" in page and "fine.json" in page
    assert "the recorder failed while replaying this document" in page
    assert db["games"].count == 1


# ---------------------------------------------------------------------- JSON Lines, bad first line


DEEP = "[" * 5000 + "]" * 5000


@pytest.mark.parametrize("first", [DEEP, "[" * 5000, '{"a": ' * 200 + "1" + "}" * 200,
                                   '{"format": "domino-log/1",', "\ufeffnot json"])
def test_json_lines_with_a_refused_first_line_reads_the_others(
        first: str, tmp_path: Path, cli: Callable[..., Any], client: Any,
        auth: dict[str, str]) -> None:
    rest = [make_game(11), make_game(12)]
    text = first + "\n" + "".join(json.dumps(d) + "\n" for d in rest)
    path = tmp_path / "g.jsonl"
    path.write_text(text, encoding="utf-8")
    answers = json_lines(run("replay", "--json", str(path)).stdout)
    assert [a["status"] for a in answers] == ["invalid", "finished", "finished"]
    assert answers[0]["error"]["message"].startswith("line 1: ")
    result = cli("import", "--json", str(path))
    *outcomes, tally = json_lines(result.output)
    assert [o["line"] for o in outcomes] == [1, 2, 3]
    assert tally == {"accepted": 2, "duplicate": 0, "superseded": 0, "refused": 1}
    response = client.post("/api/games", data=text.encode(), headers=auth)
    assert response.status_code == 200
    assert response.get_json()["data"]["summary"] == {"accepted": 0, "duplicate": 2,
                                                      "superseded": 0,
                                                      "refused": 1}
