"""The public API never shows a path on the server: a file import is known by its name."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import make_game, write_jsonl

from recorder.storage import public_source


def test_an_imported_file_is_stored_and_shown_by_its_name(
        tmp_path: Path, cli: Callable[..., Any], client: Any, db: Any) -> None:
    folder = tmp_path / "srv" / "secret-folder"
    folder.mkdir(parents=True)
    path = write_jsonl(folder / "games.jsonl", [make_game(1), make_game(2)])
    assert cli("import", str(path.resolve())).exit_code == 0
    assert {r["source"] for r in db["games"].rows} == {"games.jsonl"}
    listing = client.get("/api/games").get_data(as_text=True)
    one = client.get("/api/games/1").get_data(as_text=True)
    for text in (listing, one):
        assert '"source": "games.jsonl"' in text
        assert str(tmp_path) not in text and "secret-folder" not in text


def test_rows_stored_with_a_whole_path_are_shown_by_the_name(
        tmp_path: Path, cli: Callable[..., Any], client: Any, db: Any) -> None:
    write_jsonl(tmp_path / "old.jsonl", [make_game(3)])
    assert cli("import", str(tmp_path / "old.jsonl")).exit_code == 0
    db.execute("UPDATE games SET source = ?", ["/home/operator/private/old.jsonl"])
    db.conn.commit()
    data = client.get("/api/games").get_json()["data"]
    assert [g["source"] for g in data] == ["old.jsonl"]
    assert client.get("/api/games/1").get_json()["data"]["source"] == "old.jsonl"
    jsonl = client.get("/api/games?format=jsonl").get_data(as_text=True)
    assert "/home/operator" not in jsonl and '"source": "old.jsonl"' in jsonl


def test_public_source() -> None:
    assert public_source("api:spilop-app") == "api:spilop-app"
    assert public_source("upload:my games.json") == "upload:my games.json"
    assert public_source("<stdin>") == "<stdin>"
    assert public_source("/srv/data/x.json.gz") == "x.json.gz"
    assert public_source("C:\\Users\\op\\x.jsonl") == "x.jsonl"
    assert public_source("relative/dir/y.json") == "y.json"
    assert public_source("z.json") == "z.json"
    assert public_source(None) is None
