"""Ingest on real SQLite files: import, dedup, refusals that leave no row, the CLI report."""

from __future__ import annotations

import copy
import gzip
import json
import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import break_game, json_lines, make_game, stats_counters, write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st

from recorder import ingest, storage
from recorder.analysis import game_facts
from recorder.replay import replay

Cli = Callable[..., Result]
Games = Callable[[int], list[dict[str, Any]]]


def expected_rows(docs: list[dict[str, Any]]) -> dict[str, int]:
    """The rows the given valid games must become, computed from the engine directly."""
    counts = {"games": len(docs), "players": 0, "rounds": 0, "moves": 0}
    for doc in docs:
        facts = game_facts(doc)
        counts["players"] += len(facts.players)
        counts["rounds"] += len(facts.rounds)
        counts["moves"] += len(facts.moves)
    return counts


def table_counts(db_path: Path) -> dict[str, int]:
    db = storage.connect(db_path)
    counts = storage.count_rows(db)
    db.close()
    counts.pop("tokens")
    return counts


def test_import_stores_every_game_with_its_facts(
    cli: Cli, games: Games, tmp_path: Path, db_path: Path
) -> None:
    docs = games(6)
    result = cli("import", str(write_jsonl(tmp_path / "g.jsonl", docs)))
    assert result.exit_code == 0, result.output
    assert "6 accepted, 0 duplicate, 0 refused" in result.output
    assert table_counts(db_path) == expected_rows(docs)

    db = storage.connect(db_path)
    for doc in docs:
        row = db.execute("SELECT * FROM games WHERE game_id = ?", [doc["game_id"]]).fetchone()
        cols = [d[0] for d in db.execute("SELECT * FROM games LIMIT 0").description]
        game = dict(zip(cols, row, strict=True))
        assert json.loads(storage.log_text(game["log"])) == doc
        assert json.loads(game["answer"]) == replay(doc)
        assert game["frontend"] == "test-frontend"
        assert game["rounds_count"] == len(replay(doc)["rounds"])
        players = list(db["players"].rows_where("game = ?", [game["id"]], order_by="seat"))
        assert [p["player_id"] for p in players] == [p["id"] for p in doc["players"]]
        moves = list(db["moves"].rows_where("game = ?", [game["id"]]))
        assert all(m["legal_count"] >= 1 and m["best_score"] >= m["score"] for m in moves)
    db.close()


def test_the_log_is_kept_verbatim(cli: Cli, tmp_path: Path, db_path: Path) -> None:
    doc = make_game(3)
    pretty = json.dumps(doc, indent=3, sort_keys=True)
    (tmp_path / "pretty.json").write_text(pretty + "\n")
    line = json.dumps(make_game(4), ensure_ascii=False)
    (tmp_path / "lines.jsonl").write_text("\n" + line + "  \r\n")
    array = [make_game(5), make_game(6)]
    element = json.dumps(array[1], indent=1)
    (tmp_path / "array.json").write_text("[" + json.dumps(array[0]) + ",\n" + element + "]")
    for name in ("pretty.json", "lines.jsonl", "array.json"):
        assert cli("import", str(tmp_path / name)).exit_code == 0
    db = storage.connect(db_path)
    stored = [storage.log_text(r["log"]) for r in db["games"].rows_where(order_by="id")]
    assert stored[0].strip() == pretty
    assert stored[1].strip() == line
    assert stored[3].strip() == element
    db.close()


def test_importing_the_same_file_twice_changes_nothing_and_says_so(
    cli: Cli, games: Games, tmp_path: Path, db_path: Path
) -> None:
    path = write_jsonl(tmp_path / "g.jsonl", games(5))
    assert cli("import", str(path)).exit_code == 0
    before = table_counts(db_path)
    again = cli("import", "--json", str(path))
    assert again.exit_code == 0
    lines = json_lines(again.stdout)
    assert [line["status"] for line in lines[:-1]] == ["duplicate"] * 5
    assert lines[-1] == {"accepted": 0, "duplicate": 5, "superseded": 0, "refused": 0}
    assert table_counts(db_path) == before
    assert "0 accepted, 5 duplicate" in cli("import", str(path)).output


def turn(tile: Any) -> Any:
    """``"6-3"`` -> ``"3-6"``."""
    if isinstance(tile, str) and "-" in tile:
        a, b = tile.split("-")
        return f"{b}-{a}"
    return tile


def reformat(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The same game written differently: keys shuffled, every tile turned around but the
    opening tile of each round, whose written order places it on the board."""
    openings = {id(next((m for m in r["moves"] if m.get("action") == "play"), None))
                for r in doc["rounds"]}

    def shuffle(value: Any) -> Any:
        if isinstance(value, dict):
            items = list(value.items())
            rng.shuffle(items)
            opening = id(value) in openings
            return {k: (v if opening else turn(v)) if k == "tile" else shuffle(v)
                    for k, v in items}
        if isinstance(value, list):
            return [shuffle(v) for v in value]
        return value

    return shuffle(doc)


def test_a_reformatted_copy_is_a_duplicate(cli: Cli, tmp_path: Path, db_path: Path) -> None:
    doc = make_game(5)
    write_jsonl(tmp_path / "a.jsonl", [doc])
    copy_text = json.dumps(reformat(doc, random.Random(1)), indent=1)
    (tmp_path / "b.json").write_text(copy_text)
    assert cli("import", str(tmp_path / "a.jsonl")).exit_code == 0
    result = cli("import", "--json", str(tmp_path / "b.json"))
    first = json_lines(result.stdout)[0]
    assert first["status"] == "duplicate" and first["id"] == 1
    assert table_counts(db_path)["games"] == 1


def test_same_frontend_and_game_id_with_other_content_is_refused(
    cli: Cli, tmp_path: Path, db_path: Path
) -> None:
    write_jsonl(tmp_path / "a.jsonl", [make_game(1, game_id="shared")])
    other = make_game(2, game_id="shared")
    write_jsonl(tmp_path / "b.jsonl", [other])
    assert cli("import", str(tmp_path / "a.jsonl")).exit_code == 0
    result = cli("import", "--json", str(tmp_path / "b.jsonl"))
    assert result.exit_code == 1
    line = json_lines(result.stdout)[0]
    assert line["status"] == "refused"
    assert line["error"]["code"] == "game/conflict"
    assert "'shared'" in line["error"]["message"] and "game #1" in line["error"]["message"]
    # Another frontend may use the same game_id, and so may a log without a frontend.
    write_jsonl(tmp_path / "c.jsonl", [make_game(2, game_id="shared", frontend="elsewhere"),
                                       make_game(4, game_id="shared", frontend=None)])
    assert cli("import", str(tmp_path / "c.jsonl")).exit_code == 0
    assert table_counts(db_path)["games"] == 3


def test_a_refused_game_leaves_no_row_and_the_others_go_in(
    cli: Cli, games: Games, tmp_path: Path, db_path: Path
) -> None:
    good = games(3)
    bad = break_game(good[1])
    bad["game_id"] = "broken"
    path = write_jsonl(tmp_path / "mixed.jsonl", [good[0], bad, good[2]])
    result = cli("import", "--json", str(path))
    assert result.exit_code == 1
    lines = json_lines(result.stdout)
    assert [line["status"] for line in lines[:-1]] == ["accepted", "refused", "accepted"]
    error = lines[1]["error"]
    assert (error["round"], error["move"]) == (1, 2)
    # why: break_game gave move 2 to the opener, out of turn
    second = good[1]["rounds"][0]["moves"][1]
    to_move = good[1]["players"][second["player"]]["id"]
    assert (error["code"], error["pointer"]) == ("move/illegal", "/rounds/0/moves/1")
    assert f": not this player's turn: {to_move} is to move;" in error["message"]
    assert lines[1]["game_id"] == "broken" and lines[1]["line"] == 2
    assert lines[-1] == {"accepted": 2, "duplicate": 0, "superseded": 0, "refused": 1}
    assert table_counts(db_path) == expected_rows([good[0], good[2]])


def test_the_human_report_names_each_refused_game(
    cli: Cli, games: Games, tmp_path: Path
) -> None:
    docs = games(2)
    path = write_jsonl(tmp_path / "m.jsonl", [docs[0], break_game(docs[1])])
    result = cli("import", str(path))
    assert result.exit_code == 1
    to_move = docs[1]["players"][docs[1]["rounds"][0]["moves"][1]["player"]]["id"]
    assert "m.jsonl:2 game-1: refused: round 1, move 2 (" in result.stderr
    assert f"): not this player's turn: {to_move} is to move;" in result.stderr
    assert "2 games in" in result.output and "1 accepted, 0 duplicate, 1 refused" in result.output


def test_a_failing_insert_rolls_back_only_that_game(
    db: storage.Database, games: Games, monkeypatch: pytest.MonkeyPatch
) -> None:
    docs = games(3)
    real_insert = storage.insert_game

    def flaky(database: storage.Database, record: storage.GameRecord) -> int:
        game_pk = real_insert(database, record)
        if record.game["game_id"] == docs[1]["game_id"]:
            # The game's rows are written; the failure must take all of them back.
            raise sqlite3.IntegrityError("simulated failure after the rows were written")
        return game_pk

    monkeypatch.setattr(storage, "insert_game", flaky)
    _tally, outcomes = ingest.import_upload(db, "\n".join(map(json.dumps, docs)).encode())
    assert [o.status for o in outcomes] == ["accepted", "refused", "accepted"]
    assert outcomes[1].error is not None and outcomes[1].error["code"] == "storage/constraint"
    assert outcomes[1].error["message"] == ("the game could not be stored: simulated failure "
                                            "after the rows were written")
    counts = storage.count_rows(db)
    counts.pop("tokens")
    assert counts == expected_rows([docs[0], docs[2]])


def test_each_game_of_a_batch_is_decided_as_in_a_batch_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The writer looks a batch's hashes and keys up once, then keeps what it found up to
    date as it stores: a duplicate, a continuation, a conflict and a failure at write
    inside one batch are answered and stored as when every game has its own transaction,
    and the counters are those of the games stored."""
    doc = next(d for d in (make_game(n, ruleset="classic", players=2) for n in range(40, 90))
               if len(d["rounds"]) >= 2)
    part = copy.deepcopy(doc)  # what a frontend saves halfway: the first round, cut
    part["rounds"] = part["rounds"][:1]
    part["rounds"][0]["moves"] = part["rounds"][0]["moves"][:2]
    part["rounds"][0].pop("result", None)
    part.pop("result", None)
    other, failing = make_game(31), make_game(33)
    clash = make_game(32, game_id=other["game_id"])
    docs = [part, part, doc, part, doc, other, clash, failing, failing, make_game(34)]
    body = "\n".join(map(json.dumps, docs)).encode()
    real_insert = storage.insert_game

    def answers(batch_size: int) -> tuple[list[tuple[Any, ...]], Path]:
        failed: list[int] = []

        def insert_once_failing(database: storage.Database, record: storage.GameRecord) -> int:
            game_pk = real_insert(database, record)
            if record.game["game_id"] == failing["game_id"] and not failed:
                failed.append(game_pk)  # the rows are written: the savepoint takes them back
                raise ValueError("planted after the rows were written")
            return game_pk

        monkeypatch.setattr(storage, "insert_game", insert_once_failing)
        path = tmp_path / f"b{batch_size}.db"
        database = storage.connect(path)
        importer = ingest.Importer(database, batch_size=batch_size)
        outcomes = list(importer.run(
            (None, d) for d in ingest.upload_documents(body, limits=ingest.Limits())))
        assert storage.integrity_check(database) == "ok"
        database.close()
        return [(o.status, o.id, (o.error or {}).get("code")) for o in outcomes], path

    alone, alone_db = answers(1)
    together, together_db = answers(64)
    assert together == alone
    assert [status for status, _, _ in together] == [
        "accepted", "duplicate", "superseded", "refused", "duplicate", "accepted", "refused",
        "refused", "accepted", "accepted"]
    assert [code for _, _, code in together if code] == [
        "game/conflict", "game/conflict", "internal/storage"]
    assert together[0][1] == together[1][1] == together[2][1] == together[4][1]
    assert table_counts(together_db) == table_counts(alone_db) == \
        expected_rows([doc, other, failing, docs[-1]])
    assert stats_counters(together_db) == stats_counters(alone_db)

    # the counters are those of the stored games imported on their own
    monkeypatch.setattr(storage, "insert_game", real_insert)
    fresh = storage.connect(tmp_path / "fresh.db")
    list(ingest.Importer(fresh).run((None, d) for d in ingest.upload_documents(
        "\n".join(map(json.dumps, [doc, other, failing, docs[-1]])).encode(),
        limits=ingest.Limits())))
    fresh.close()
    assert stats_counters(together_db) == stats_counters(tmp_path / "fresh.db")


def test_an_unfinished_game_is_kept_as_unfinished(cli: Cli, tmp_path: Path,
                                                  db_path: Path) -> None:
    doc = make_game(8, ruleset="spilop", players=2)
    assert len(doc["rounds"]) > 1
    doc["rounds"] = doc["rounds"][:1]
    doc.pop("result", None)
    write_jsonl(tmp_path / "u.jsonl", [doc])
    lines = json_lines(cli("import", "--json", str(tmp_path / "u.jsonl")).stdout)
    assert lines[0]["status"] == "accepted" and lines[0]["result"] == "unfinished"
    db = storage.connect(db_path)
    (game,) = db["games"].rows
    assert game["status"] == "unfinished" and json.loads(game["winners"]) == []
    db.close()


def test_folders_gzip_and_standard_input(cli: Cli, games: Games, tmp_path: Path,
                                         db_path: Path) -> None:
    docs = games(6)
    folder = tmp_path / "in"
    (folder / "deeper").mkdir(parents=True)
    write_jsonl(folder / "a.jsonl", docs[:2])
    write_jsonl(folder / "deeper" / "b.jsonl.gz", docs[2:4], compress=True)
    (folder / "notes.txt").write_text("not a log")
    result = cli("import", "--json", str(folder))
    assert json_lines(result.stdout)[-1] == {"accepted": 4, "duplicate": 0,
                                             "superseded": 0, "refused": 0}
    piped = "".join(json.dumps(d) + "\n" for d in docs[4:])
    result = cli("import", "--json", "-", input=piped)
    assert json_lines(result.stdout)[-1] == {"accepted": 2, "duplicate": 0,
                                             "superseded": 0, "refused": 0}
    gz = gzip.compress(json.dumps(docs[:3]).encode())
    (tmp_path / "array.json.gz").write_bytes(gz)
    result = cli("import", "--json", str(tmp_path / "array.json.gz"))
    assert json_lines(result.stdout)[-1] == {"accepted": 0, "duplicate": 3,
                                             "superseded": 0, "refused": 0}
    assert table_counts(db_path)["games"] == 6


def test_an_unreadable_input_is_reported_and_the_others_still_go_in(
    cli: Cli, games: Games, tmp_path: Path, db_path: Path
) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", games(2))
    (tmp_path / "bad.json.gz").write_bytes(b"\x1f\x8b\x08\x00broken")
    result = cli("import", "--json", str(tmp_path / "bad.json.gz"), str(good))
    assert result.exit_code == 2
    lines = json_lines(result.stdout)
    assert lines[0]["status"] == "refused" and lines[0]["source"].endswith("bad.json.gz")
    assert lines[0]["error"] == {"round": 0, "move": 0, "code": "input/unreadable",
                                 "message": "the gzip data is cut off before its end"}
    assert lines[-1] == {"accepted": 2, "duplicate": 0, "superseded": 0, "refused": 1}
    assert table_counts(db_path)["games"] == 2


def test_a_missing_path_is_a_usage_error_before_anything_is_imported(
    cli: Cli, games: Games, tmp_path: Path, db_path: Path
) -> None:
    good = write_jsonl(tmp_path / "good.jsonl", games(1))
    result = cli("import", str(good), str(tmp_path / "nope.jsonl"))
    assert result.exit_code == 2
    assert "no such file or folder" in result.output
    assert table_counts(db_path)["games"] == 0


def test_a_document_that_is_not_a_log_is_refused_with_its_place(
    cli: Cli, tmp_path: Path, db_path: Path
) -> None:
    path = tmp_path / "odd.jsonl"
    path.write_text('{"format": "domino-log/9"}\n[1, 2]\n{"format": "domino-log/1"}\n')
    result = cli("import", "--json", str(path))
    lines = json_lines(result.stdout)
    assert [line["status"] for line in lines[:-1]] == ["refused"] * 3
    assert [line["line"] for line in lines[:-1]] == [1, 2, 3]
    assert [(e["round"], e["move"], e["code"], e["pointer"], e["message"])
            for e in (line["error"] for line in lines[:-1])] == [
        (0, 0, "log/unknown-format", "/format",
         'unknown format "domino-log/9": this recorder reads domino-log/1'),
        (0, 0, "log/schema", "", "the document must be a JSON object, got an array"),
        (0, 0, "log/schema", "", 'the document needs a "ruleset", like "spilop"'),
    ]
    assert table_counts(db_path)["games"] == 0


# ---------------------------------------------------------------------------------------
# Identity.


def test_the_content_hash_ignores_layout_key_order_and_tile_orientation() -> None:
    doc = make_game(11, ruleset="classic", players=3)
    text = json.dumps(doc, indent=2)
    assert ingest.content_hash(json.loads(text)) == ingest.content_hash(doc)
    assert ingest.content_hash(reformat(doc, random.Random(3))) == ingest.content_hash(doc)
    changed = copy.deepcopy(doc)
    changed["rounds"][0]["moves"][0]["ms"] = 1 + changed["rounds"][0]["moves"][0].get("ms", 0)
    assert ingest.content_hash(changed) != ingest.content_hash(doc)


def test_explicit_deals_are_normalized_too() -> None:
    from recorder.simulate import simulate_game

    doc = simulate_game("classic", 2, "deal-seed", explicit_deal=True)
    turned = copy.deepcopy(doc)
    deal = turned["rounds"][0]["deal"]
    deal["hands"] = [[ "-".join(reversed(t.split("-"))) for t in h] for h in deal["hands"]]
    deal["boneyard"] = ["-".join(reversed(t.split("-"))) for t in deal["boneyard"]]
    assert ingest.content_hash(turned) == ingest.content_hash(doc)


@settings(max_examples=40)
@given(seed=st.integers(0, 10_000), layout=st.integers(0, 10_000))
def test_any_rewriting_of_a_game_has_the_same_identity(seed: int, layout: int) -> None:
    doc = make_game(seed % 25)
    rewritten = reformat(doc, random.Random(layout))
    assert ingest.canonical_json(rewritten) == ingest.canonical_json(doc)


@pytest.mark.parametrize(("tile", "expected"), [
    ("6-3", "3-6"), ("3-6", "3-6"), ("12-10", "10-12"), ("0-0", "0-0"), ("x-1", "x-1"), (7, 7),
])
def test_tiles_are_written_low_high(tile: Any, expected: Any) -> None:
    assert ingest.normalize_tile(tile) == expected


@pytest.mark.parametrize("workers", ["0", "2"])
def test_import_json_reports_each_games_differing_claims(
        cli: Cli, tmp_path: Path, workers: str) -> None:
    doc = make_game(21, ruleset="kozel", players=3)
    doc["rounds"][0]["result"]["bonus"] = [5, 0, 0]
    path = write_jsonl(tmp_path / "claims.jsonl", [doc, make_game(22)])
    lines = json_lines(cli("import", "--json", "--workers", workers, str(path)).stdout)
    assert lines[0]["status"] == "accepted"
    assert lines[0]["mismatches"] == replay(doc)["mismatches"]
    assert lines[0]["mismatches"][0]["field"] == "bonus"
    assert "mismatches" not in lines[1]


@given(st.lists(st.one_of(st.integers(), st.booleans(), st.floats(allow_nan=False),
                          st.none()), max_size=6))
@settings(max_examples=200, deadline=None)
def test_a_round_rows_lists_are_the_stdlib_text(values: list[Any]) -> None:
    """The rounds rows write a list of ints themselves; any other list, by the JSON
    writer: the text is the stdlib's either way (bools and floats are not ints)."""
    from recorder import packing
    from recorder.analysis import RoundFact

    r = RoundFact(2, 1, "3-4", values, values, [], bool(values), values, 0, moves=5,
                  draws=1, passes=0, boneyard_left=3, block_certain=None, ending="domino")
    (row,) = packing.round_rows([r], storage.to_json)
    text = json.dumps(values, separators=(",", ":"), ensure_ascii=False)
    assert row == (2, 1, "3-4", text, text, "[]", 1 if values else 0, text, 0, 5, 1, 0, 3,
                   None, "domino")
    assert len(row) == len(storage.ROUND_COLUMNS)
