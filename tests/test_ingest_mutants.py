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

import pytest
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
    # a refusal without an error (none is made so) names no game: none was stored
    assert Outcome(REFUSED, game_id="g").describe() == "input g: refused"
    assert Outcome(REFUSED, source="a.jsonl", line=2).describe() == "a.jsonl:2: refused"


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


@pytest.mark.parametrize("aggregates", [True, False])
def test_a_worker_prepares_every_kind_of_item_as_this_process_does(
        tmp_path: Path, db_path: Path, aggregates: bool) -> None:
    """What a worker process sends back (``import --workers``) is the very document this
    process would have prepared: identity, verdict, rows (the log's text as sent, the
    uploader) and statistics, under the import's own limits. Run here, in this process,
    so that each step of the trip is checked on its own.

    Each side stamps ``imported_at`` when it prepares a game, so the two stamps may
    differ by a second: each is held to the moments before and after its own side
    prepared it, and the rest is compared whole. The games are dated, so that neither
    ``played_at`` nor the statistics' day follows the clock."""
    from recorder import ingest
    from recorder.parse import Limits
    from recorder.tokens import create_token

    def game(seed: int, **kw: Any) -> dict[str, Any]:
        return make_game(seed, started_at="2026-05-01T10:00:00Z", **kw)

    limits = Limits(max_depth=16)
    db = storage.connect(db_path)
    create_token(db, "uploader")
    uploader = int(db.execute("SELECT id FROM tokens").fetchone()[0])
    stored = write_jsonl(tmp_path / "a.jsonl", [game(1, game_id="shared")])
    first = list(ingest.import_paths(db, [str(stored)])[1])
    assert [o.status for o in first] == [ACCEPTED]
    lines = [json.dumps(game(6), indent=None, separators=(" ,", ":  ")), "{not json",
             json.dumps(game(1, game_id="shared")), json.dumps(game(2)),
             json.dumps(break_game(game(3))), json.dumps(game(4, game_id="shared")),
             "[" * 20 + "]" * 20, json.dumps(game(5))]
    path = tmp_path / "b.jsonl"
    path.write_text("\n".join(lines) + "\n")

    importer = ingest.Importer(db, uploaded_by=uploader, aggregates=aggregates)
    here_from = storage.utc_now()
    here = [importer._prepare(source, parsed)
            for source, parsed in ingest.iter_sources([str(path)], limits=limits)]
    here_until = storage.utc_now()
    wire = [ingest._item_to_wire(source, item) for source, item in
            ingest._iter_inputs([str(path)], limits, unparsed=True)]
    # the first two lines tell the file's shape and come parsed; the others as lines
    assert [w[0] for w in wire] == ["doc", "refused"] + ["line"] * 6
    ingest._start_worker(str(db_path), uploader, aggregates, ingest._limits_args(limits))
    there_from = storage.utc_now()
    try:
        sent = ingest._prepare_chunk(wire)
    finally:
        there_until = storage.utc_now()
        assert ingest._worker is not None
        ingest._worker.db.close()
        ingest._worker = None
    back = [ingest._pending_from_wire(w) for w in sent]

    def unclocked(row: dict[str, Any], since: str, until: str) -> dict[str, Any]:
        assert since <= row["imported_at"] <= until, (row["imported_at"], since, until)
        assert row["played_at"] == row["started_at"] == "2026-05-01T10:00:00Z"
        return {k: v for k, v in row.items() if k != "imported_at"}

    assert len(back) == len(here) == len(lines)
    for mine, theirs in zip(here, back, strict=True):
        assert (theirs.source, theirs.index, theirs.line, theirs.game_id, theirs.content_hash,
                theirs.key, theirs.result, theirs.outcome) == \
            (mine.source, mine.index, mine.line, mine.game_id, mine.content_hash,
             mine.key, mine.result, mine.outcome)
        assert (mine.record is None) == (theirs.record is None)
        if mine.record is not None and theirs.record is not None:
            assert unclocked(theirs.record.game, there_from, there_until) == \
                unclocked(mine.record.game, here_from, here_until)
            assert (theirs.record.players, theirs.record.rounds, theirs.record.moves,
                    theirs.record.stats) == \
                (mine.record.players, mine.record.rounds, mine.record.moves, mine.record.stats)
    assert back[0].record is not None
    assert storage.log_text(back[0].record.game["log"]) == lines[0]
    assert back[0].record.game["uploaded_by"] == uploader
    assert (back[0].record.stats is not None) == aggregates
    assert isinstance(back[2].key, tuple) and back[2].key == ("test-frontend", "shared")

    reports = [o.to_json() for o in ingest.Importer(db).store(iter(back))]
    assert [(r["line"], r["status"]) for r in reports] == [
        (1, ACCEPTED), (2, REFUSED), (3, DUPLICATE), (4, ACCEPTED), (5, REFUSED),
        (6, REFUSED), (7, REFUSED), (8, ACCEPTED)]
    assert reports[2]["id"] == first[0].id
    assert reports[1]["error"]["code"] == reports[6]["error"]["code"] == "input/unreadable"
    assert "more than 16 levels deep" in reports[6]["error"]["message"]
    assert reports[4]["error"]["code"] == "move/illegal"
    assert reports[5]["error"]["code"] == "game/conflict"
    assert storage.count_rows(db)["games"] == 4
    db.close()


@pytest.mark.parametrize("collecting", [True, False])
def test_a_worker_pauses_the_collector_for_a_chunk_and_puts_it_back(
        db_path: Path, collecting: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cyclic collector is off while a worker prepares a chunk (its documents are
    trees that reference counting frees) and as it was before once the chunk is done, also
    when a database error stops the chunk."""
    import gc
    import sqlite3

    from recorder import ingest
    from recorder.parse import Limits

    storage.connect(db_path).close()
    ingest._start_worker(str(db_path), None, True, ingest._limits_args(Limits()))
    seen: list[bool] = []
    prepare = ingest.Importer._prepare

    def watched(self: Any, source: Any, parsed: Any) -> Any:
        seen.append(gc.isenabled())
        return prepare(self, source, parsed)

    monkeypatch.setattr(ingest.Importer, "_prepare", watched)
    first, second = (json.dumps(make_game(seed)).encode() for seed in (1, 2))
    wire = [("line", "a.jsonl", 0, 1, 0, first),
            ("line", "a.jsonl", 1, 2, len(first) + 1, second)]
    was = gc.isenabled()
    try:
        gc.enable() if collecting else gc.disable()
        sent = ingest._prepare_chunk(wire)
        assert [item[7] for item in sent] == [None, None]  # prepared, for the writer to store
        assert all(item[8] is not None for item in sent)
        assert seen == [False, False]
        assert gc.isenabled() == collecting

        def failing(db: Any, content_hash: str) -> Any:
            raise sqlite3.OperationalError("disk I/O error")

        monkeypatch.setattr(ingest.storage, "find_by_hash", failing)
        with pytest.raises(sqlite3.OperationalError):
            ingest._prepare_chunk(wire)
        assert gc.isenabled() == collecting
    finally:
        gc.enable() if was else gc.disable()
        assert ingest._worker is not None
        ingest._worker.db.close()
        ingest._worker = None


def stored_games(db_path: Path) -> int:
    """Games another connection sees: what is committed, not what is in flight."""
    other = storage.connect(db_path)
    try:
        return int(other["games"].count)
    finally:
        other.close()


def test_games_are_committed_by_batches_of_the_given_size(db_path: Path) -> None:
    """Each outcome is reported once its batch is in the file, and a batch holds at most
    ``batch_size`` games: a killed import loses at most that many."""
    from recorder import ingest
    from recorder.parse import iter_documents

    docs = [make_game(i) for i in range(5)]
    db = storage.connect(db_path)
    outcomes = ingest.Importer(db, batch_size=2).run(
        (None, p) for p in iter_documents(jsonl_bytes(docs)))
    seen = []
    for outcome in outcomes:
        seen.append((outcome.status, stored_games(db_path)))
    assert seen == [(ACCEPTED, 2), (ACCEPTED, 2), (ACCEPTED, 4), (ACCEPTED, 4), (ACCEPTED, 5)]
    db.close()


@pytest.mark.parametrize("extra", [0, 1])
def test_a_batch_also_ends_at_its_rounds(db_path: Path, extra: int) -> None:
    """Long games make short batches: a batch ends once it holds ``batch_rounds`` rounds
    (here: reached exactly by the second game, or by one more round than the first has)."""
    from recorder import ingest
    from recorder.parse import iter_documents

    docs = [make_game(i) for i in range(4)]
    rounds = [len(d["rounds"]) for d in docs]
    assert min(rounds) > 1
    limit = rounds[0] + 1 if extra else rounds[0] + rounds[1]
    db = storage.connect(db_path)
    outcomes = ingest.Importer(db, batch_rounds=limit).run(
        (None, p) for p in iter_documents(jsonl_bytes(docs)))
    committed = [stored_games(db_path) for _ in outcomes]
    assert committed[:2] == [2, 2] and committed[-1] == 4
    db.close()


def test_stopping_the_report_closes_what_feeds_it(db_path: Path) -> None:
    """A reader that stops early (a client gone, an error) closes the documents' source
    at once: with ``--workers``, that stops the worker processes."""
    from recorder import ingest
    from recorder.parse import iter_documents

    closed = []

    def prepared() -> Any:
        importer = ingest.Importer(db)
        try:
            for p in iter_documents(jsonl_bytes([make_game(i) for i in range(3)])):
                yield importer._prepare(None, p)
        finally:
            closed.append(True)

    db = storage.connect(db_path)
    source = prepared()
    outcomes = ingest.Importer(db, batch_size=1).store(source)
    assert next(outcomes).status == ACCEPTED
    assert closed == []
    outcomes.close()
    assert closed == [True]
    assert stored_games(db_path) == 1
    db.close()


def jsonl_bytes(docs: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(d) + "\n" for d in docs).encode()


def test_a_file_that_cannot_be_opened_is_one_refusal_that_names_it(tmp_path: Path) -> None:
    """A file gone between the command's check and its reading is refused as an input,
    with the system's reason, and the other inputs still go in."""
    from recorder import ingest

    gone = tmp_path / "gone.jsonl"
    good = write_jsonl(tmp_path / "good.jsonl", [make_game(1)])
    items = list(ingest.iter_sources([str(gone), str(good)]))
    assert [source for source, _ in items] == [str(gone), str(good)]
    failure = items[0][1]
    assert failure.error is not None and failure.index is None
    assert failure.error.to_dict() == {
        "round": 0, "move": 0, "code": "input/unreadable",
        "message": f"cannot read {gone}: No such file or directory"}
    assert items[1][1].error is None and items[1][1].doc == make_game(1)


def test_standard_input_is_named_as_such(cli: Cli) -> None:
    docs = [make_game(1), break_game(make_game(2))]
    result = cli("import", "--json", "-", input=jsonl_bytes(docs))
    assert [(r.get("source"), r["status"]) for r in json_lines(result.stdout)[:2]] == [
        ("<stdin>", ACCEPTED), ("<stdin>", REFUSED)]
    result = cli("import", "-", input=jsonl_bytes([break_game(make_game(3))]))
    assert "<stdin> #1 game-3: refused: round 1, move 2 (" in result.stderr
