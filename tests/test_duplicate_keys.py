"""Duplicate keys: a log that writes a key twice in one object is refused, everywhere.

orjson (like most parsers) keeps the last value of a key written twice, SQLite's
``json_extract`` the first: such a log could be checked as one game and stored as another.
Every path refuses it with ``input/duplicate-key`` and the pointer of the key: the parser
(every upload shape), ``recorder import|validate|replay`` on a real file, and a real
server's ``POST /api/games``, ``POST /api/frames``, ``/watch`` and the upload form.
"""

from __future__ import annotations

import gzip
import json
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env
from hypothesis import given, settings
from hypothesis import strategies as st

from recorder.parse import iter_documents
from recorder.tokens import create_token

CODE = "input/duplicate-key"


def with_duplicate(text: str, where: str, key: str, value: str) -> str:
    """``text`` with ``"key": value`` written again right after the first ``where``."""
    at = text.index(where) + len(where)
    return text[:at] + f'"{key}": {value}, ' + text[at:]


def one(data: bytes) -> Any:
    (parsed,) = list(iter_documents(data))
    return parsed


# ---------------------------------------------------------------------------------------
# The parser.


def test_a_key_written_twice_is_refused_with_its_pointer() -> None:
    doc = make_game(3, ruleset="classic", players=2)
    text = json.dumps(doc)
    cases = {
        # the top level: validated as one game id, stored (and read by SQL) as the other
        '{': ("game_id", '"another-game"', "/game_id", 0, 0),
        '"frontend": {': ("name", '"victim-app"', "/frontend/name", 0, 0),
        '"moves": [{': ("tile", '"0-0"', "/rounds/0/moves/0/tile", 1, 1),
        '"players": [{': ("id", '"mallory"', "/players/0/id", 0, 0),
    }
    for where, (key, value, pointer, rnd, move) in cases.items():
        parsed = one(with_duplicate(text, where, key, value).encode())
        assert parsed.doc is None and parsed.error is not None, where
        error = parsed.error.to_dict()
        assert (error["code"], error["pointer"], error["round"], error["move"]) == \
            (CODE, pointer, rnd, move), where
        assert f'has the key "{key}" twice' in error["message"]
        assert error["message"].startswith(f"at {pointer}:")


def test_the_format_written_twice_cannot_pass_as_version_1() -> None:
    text = '{"format": "domino-log/1", "format": "domino-log/2", "ruleset": "spilop", ' \
           '"players": [{"id": "a"}], "rounds": []}'
    error = one(text.encode()).error
    assert (error.code, error.pointer) == (CODE, "/format")


@pytest.mark.parametrize("text", [
    '{"a" : 1, "a" : 2}',                      # a colon after white space
    '{"a":1,\n"a"\n:\n2}',
    '{"s": "\\u003a", "a": 1, "a": 2}',         # a colon written as an escape
    '{"s": "\\"", "a\\"": 1, "a\\"": 2}',       # escaped quotes in keys and strings
    '{"t": "12:00:00", "x": {"y": {"z": 1, "z": 2}}}',  # deep, beside colons in strings
    '{"x": [{"k": 1}, {"k": 1, "k": 2}]}',
    '{"a": {"b": 1}, "a": 2}',                 # the value dropped is an object
])
def test_every_way_of_writing_a_duplicate_is_caught(text: str) -> None:
    assert one(text.encode()).error.code == CODE


@pytest.mark.parametrize("text", [
    '{"t": "12:00:00", "n": ":x", "b": "{[", "k": {"a": 1}}',
    '{"a": "\\u003a", "b": "\\u003A\\u003a"}',
    '{"a": 1, "A": 2, "a\\u0000": 3}',
    '{"x": [{"k": 1}, {"k": 2}], "y": {"k": 3}}',
    '{"": 1, " ": 2}',
])
def test_texts_that_look_like_a_duplicate_but_are_not_are_read(text: str) -> None:
    parsed = one(text.encode())
    assert parsed.error is None and parsed.doc == json.loads(text)


def test_every_shape_of_upload_refuses_the_one_document() -> None:
    good = json.dumps(make_game(1))
    bad = with_duplicate(json.dumps(make_game(2)), '"moves": [{', "player", "1")
    for body in (f"{good}\n{bad}\n{good}\n".encode(), f"[{good}, {bad}, {good}]".encode(),
                 gzip.compress(f"{good}\n{bad}\n{good}\n".encode())):
        results = list(iter_documents(body))
        assert [r.error is None for r in results] == [True, False, True]
        assert results[1].error.code == CODE
        assert results[1].error.pointer == "/rounds/0/moves/0/player"


@st.composite
def objects_with_a_duplicate(draw: Any) -> tuple[str, bool]:
    """A JSON text of nested objects, arrays and strings that may hold colons, braces and
    escapes, and whether one of its objects writes a key twice."""
    keys = st.sampled_from(["a", "b", "moves", "tile", "x:y", "{", '"', "\\", "\u00e9"])
    scalars = st.one_of(st.integers(-5, 5), st.sampled_from(["", ":", "a:b", "{}", "\"",
                                                             "\\u003a", "12:00"]))

    def render(value: Any, dup: bool) -> str:
        if isinstance(value, dict):
            members = [f"{json.dumps(k)}: {render(v, False)}" for k, v in value.items()]
            if dup and value:
                k = next(iter(value))
                members.append(f"{json.dumps(k)}: 0")
            return "{" + ", ".join(members) + "}"
        if isinstance(value, list):
            return "[" + ", ".join(render(v, False) for v in value) + "]"
        if isinstance(value, str) and value == "\\u003a":
            return '"\\u003a"'
        return json.dumps(value)

    value = draw(st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                              | st.dictionaries(keys, inner, min_size=1, max_size=3),
                              max_leaves=12))
    if not isinstance(value, dict):
        value = {"v": value}
    duplicate = draw(st.booleans())
    text = render(value, duplicate)
    return text, duplicate


@settings(max_examples=300)
@given(objects_with_a_duplicate())
def test_the_check_finds_a_duplicate_exactly_when_there_is_one(case: tuple[str, bool]) -> None:
    text, duplicate = case
    parsed = one(text.encode())
    if duplicate:
        assert parsed.error is not None and parsed.error.code == CODE, text
    else:
        assert parsed.error is None, text
        assert parsed.doc == json.loads(text)


# ---------------------------------------------------------------------------------------
# The command line, on a real file.


def test_recorder_import_validate_and_replay_refuse_it(tmp_path: Path) -> None:
    good = make_game(4)
    # validated with the first game_id, read back by SQL with the second: refused
    bad = with_duplicate(json.dumps(make_game(5)), "{", "game_id", '"game-4"')
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(good) + "\n" + bad + "\n")
    db = tmp_path / "r.db"
    recorder = [sys.executable, "-c", "from recorder.cli import main; main()"]
    for command in (["import", "--json", "--workers", "0", "--db", str(db)],
                    ["import", "--json", "--workers", "2", "--db", str(db)],
                    ["validate"], ["replay", "--json"]):
        result = subprocess.run([*recorder, *command, str(path)], capture_output=True,
                                text=True, env=subprocess_env(), timeout=120)
        assert result.returncode == 1, (command, result.stderr)
        said = result.stdout + result.stderr
        assert "line 2: at /game_id: the document has the key" in said, \
            (command, said)
        if command[0] != "validate":
            assert CODE in said, command
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT game_id FROM games").fetchall() == [("game-4",)]


# ---------------------------------------------------------------------------------------
# A real server.


def post(url: str, body: bytes, headers: dict[str, str] | None = None,
         content_type: str = "application/json") -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": content_type, **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def multipart(fields: dict[str, str], files: dict[str, tuple[str, bytes]]) -> tuple[bytes, str]:
    boundary = "----recorder-test-boundary"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     f"{value}\r\n".encode())
    for name, (filename, data) in files.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                     f'filename="{filename}"\r\nContent-Type: application/json\r\n\r\n'.encode()
                     + data + b"\r\n")
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), \
        f"multipart/form-data; boundary={boundary}"


def test_a_real_server_refuses_it_on_every_path(tmp_path: Path, start_server: Any) -> None:
    from recorder import storage

    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    token = create_token(db, "test-frontend", ["upload"])[1]
    db.close()
    url = start_server(db_path)
    # an illegal first move, hidden behind a legal one written first
    doc = make_game(6)
    first = doc["rounds"][0]["moves"][0]
    text = json.dumps(doc).replace(json.dumps(first), json.dumps(first)[:-1]
                                   + ', "tile": "9-9"}', 1)
    pointer = "/rounds/0/moves/0/tile"
    auth = {"Authorization": f"Bearer {token}"}

    status, body = post(url + "/api/games", text.encode(), auth)
    report = json.loads(body)
    assert status == 200 and report["data"]["summary"]["refused"] == 1
    error = report["data"]["games"][0]["error"]
    assert (error["code"], error["pointer"], error["round"], error["move"]) == \
        (CODE, pointer, 1, 1)

    status, body = post(url + "/api/frames", text.encode())
    answer = json.loads(body)
    assert (status, answer["error"]["code"]) == (400, CODE)
    assert pointer in answer["error"]["message"]

    form, kind = multipart({"log": text, "index": "0"}, {})
    status, body = post(url + "/watch", form, content_type=kind)
    assert status == 400 and "has the key &#34;tile&#34; twice" in body.decode()

    form, kind = multipart({"token": token}, {"files": ("dup.json", text.encode())})
    status, body = post(url + "/upload", form, content_type=kind)
    page = body.decode()
    assert status == 200 and "0 accepted" in page and "1 refused" in page
    assert "has the key &#34;tile&#34; twice" in page

    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0
