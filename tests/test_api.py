"""The HTTP API on a real SQLite file: tokens, upload shapes, limits, every filter, errors."""

from __future__ import annotations

import copy
import gzip
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import break_game, export_rows, json_lines, make_game

from recorder import storage
from recorder.ingest import import_upload
from recorder.replay import replay
from recorder.tokens import create_token
from webui import create_app

Cli = Callable[..., Result]
Games = Callable[[int], list[dict[str, Any]]]


def jsonl(docs: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(d) + "\n" for d in docs).encode()


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """Every error has one shape: ok false, the status, a code and a message."""
    assert response.status_code == status, response.get_data(as_text=True)
    assert response.mimetype == "application/json"
    body = response.get_json()
    assert body["ok"] is False and body["status"] == status
    assert set(body) == {"ok", "status", "error"}
    assert isinstance(body["error"]["code"], str) and body["error"]["code"]
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code
    return dict(body["error"])


def games_count(db_path: Path) -> int:
    db = storage.connect(db_path)
    count = db["games"].count
    db.close()
    return count


# ---------------------------------------------------------------------------------------
# Tokens.


def test_uploads_need_a_token(client: Any, db_path: Path) -> None:
    response = client.post("/api/games", data=jsonl([make_game(1)]))
    assert_error(response, 401, "auth/missing-token")
    assert response.headers["WWW-Authenticate"].startswith("Bearer")
    response = client.post("/api/games", data=jsonl([make_game(1)]),
                           headers={"Authorization": "Bearer rec_not-a-token"})
    assert_error(response, 401, "auth/unknown-token")
    response = client.post("/api/games", data=jsonl([make_game(1)]),
                           headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert_error(response, 401, "auth/missing-token")
    assert games_count(db_path) == 0


def test_a_revoked_token_gets_403(client: Any, cli: Cli, db_path: Path) -> None:
    made = cli("token", "create", "spilop", "--frontend", "test-frontend")
    assert made.exit_code == 0
    secret = made.stdout.strip()
    headers = {"Authorization": f"Bearer {secret}"}
    assert client.post("/api/games", data=jsonl([make_game(1)]), headers=headers).status_code == 200
    revoked = cli("token", "revoke", "spilop")
    assert revoked.exit_code == 0 and "revoked 1 token" in revoked.stdout
    error = assert_error(
        client.post("/api/games", data=jsonl([make_game(2)]), headers=headers), 403,
        "auth/revoked-token",
    )
    assert "spilop" in error["message"]
    assert games_count(db_path) == 1


def test_token_commands(cli: Cli) -> None:
    first = cli("token", "create", "spilop").stdout.strip()
    cli("token", "create", "other")
    listed = cli("token", "list", "--json")
    rows = json_lines(listed.stdout)
    assert [(r["name"], r["active"]) for r in rows] == [("spilop", True), ("other", True)]
    assert first not in listed.stdout and rows[0]["prefix"] == first[:12]
    assert "spilop" in cli("token", "list").stdout
    assert cli("token", "revoke", "--id", str(rows[1]["id"])).exit_code == 0
    assert [r["active"] for r in json_lines(cli("token", "list", "--json").stdout)] == [
        True, False]
    missing = cli("token", "revoke", "nobody")
    assert missing.exit_code == 1 and "no live tokens of 'nobody'" in missing.output
    assert cli("token", "revoke").exit_code == 2


def test_reading_can_be_made_to_need_a_token(db_path: Path, token: str) -> None:
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "READS_NEED_TOKEN": True})
    client = app.test_client()
    assert_error(client.get("/api/games"), 401)
    ok = client.get("/api/games", headers={"Authorization": f"Bearer {token}"})
    assert ok.status_code == 200


def test_configuration_comes_from_the_instance_file_then_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RECORDER_DB", raising=False)
    monkeypatch.delenv("RECORDER_READS_NEED_TOKEN", raising=False)
    (tmp_path / "instance").mkdir()
    (tmp_path / "instance" / "config.py").write_text(
        f"DATABASE = {str(tmp_path / 'from-file.db')!r}\nREADS_NEED_TOKEN = True\n")
    app = create_app()
    assert app.config["DATABASE"] == str(tmp_path / "from-file.db")
    assert app.config["READS_NEED_TOKEN"] is True
    monkeypatch.setenv("RECORDER_DB", str(tmp_path / "from-env.db"))
    monkeypatch.setenv("RECORDER_READS_NEED_TOKEN", "false")
    app = create_app()
    assert app.config["DATABASE"] == str(tmp_path / "from-env.db")
    assert app.config["READS_NEED_TOKEN"] is False
    assert (tmp_path / "from-env.db").exists()


# ---------------------------------------------------------------------------------------
# Upload shapes.


def test_one_document(client: Any, auth: dict[str, str], db_path: Path) -> None:
    doc = make_game(1)
    response = client.post("/api/games", json=doc, headers=auth)
    assert response.status_code == 200
    body = response.get_json()
    assert body["ok"] is True
    assert body["data"]["summary"] == {"accepted": 1, "duplicate": 0, "superseded": 0, "refused": 0}
    (game,) = body["data"]["games"]
    assert game["game_id"] == doc["game_id"] and game["status"] == "accepted"
    assert game["id"] == 1 and game["error"] is None
    again = client.post("/api/games", json=doc, headers=auth).get_json()
    assert again["data"]["games"][0]["status"] == "duplicate"
    assert games_count(db_path) == 1


def test_an_array_json_lines_and_gzip(client: Any, auth: dict[str, str], games: Games,
                                      db_path: Path) -> None:
    docs = games(8)
    r = client.post("/api/games", data=json.dumps(docs[:2]), headers=auth,
                    content_type="application/json")
    assert r.get_json()["data"]["summary"]["accepted"] == 2
    r = client.post("/api/games", data=jsonl(docs[2:4]), headers=auth,
                    content_type="application/x-ndjson")
    assert r.get_json()["data"]["summary"]["accepted"] == 2
    r = client.post("/api/games", data=gzip.compress(jsonl(docs[4:6])),
                    headers={**auth, "Content-Encoding": "gzip"},
                    content_type="application/x-ndjson")
    assert r.get_json()["data"]["summary"]["accepted"] == 2
    r = client.post("/api/games", data=gzip.compress(json.dumps(docs[6:]).encode()),
                    headers={**auth, "Content-Encoding": "gzip"})
    assert r.get_json()["data"]["summary"]["accepted"] == 2
    assert games_count(db_path) == 8


def test_a_body_sent_as_a_form_by_curl_is_still_read(client: Any, auth: dict[str, str],
                                                     games: Games) -> None:
    """``curl --data-binary @games.jsonl`` labels the body as a form; it is read as sent."""
    response = client.post("/api/games", data=jsonl(games(2)), headers=auth,
                           content_type="application/x-www-form-urlencoded")
    assert response.get_json()["data"]["summary"]["accepted"] == 2


def test_the_report_locates_a_refused_game(client: Any, auth: dict[str, str], games: Games,
                                           db_path: Path) -> None:
    docs = games(2)
    body = jsonl([docs[0], break_game(docs[1])])
    data = client.post("/api/games", data=body, headers=auth).get_json()["data"]
    assert data["summary"] == {"accepted": 1, "duplicate": 0, "superseded": 0, "refused": 1}
    refused = data["games"][1]
    assert refused["status"] == "refused" and refused["line"] == 2
    error = refused["error"]
    assert (error["round"], error["move"]) == (1, 2)
    # and why: break_game gave move 2 to the opener, out of turn
    to_move = docs[1]["players"][docs[1]["rounds"][0]["moves"][1]["player"]]["id"]
    assert (error["code"], error["pointer"]) == ("move/illegal", "/rounds/0/moves/1")
    assert f": not this player's turn: {to_move} is to move;" in error["message"]
    assert games_count(db_path) == 1


def test_an_unreadable_body_stores_nothing(client: Any, auth: dict[str, str], games: Games,
                                           db_path: Path) -> None:
    damaged = gzip.compress(jsonl(games(3)))[:-30]
    error = assert_error(client.post("/api/games", data=damaged, headers=auth), 400,
                         "input/unreadable")
    assert "the gzip data is cut off" in error["message"]
    error = assert_error(client.post("/api/games", data=b"", headers=auth), 400, "input/empty")
    assert "the body is empty" in error["message"]
    error = assert_error(client.post("/api/games", data=b"\xff\xfe{", headers=auth), 400,
                         "input/unreadable")
    assert "UTF-16" in error["message"] and "UTF-8" in error["message"]
    error = assert_error(
        client.post("/api/games", data=jsonl(games(1)),
                    headers={**auth, "Content-Encoding": "br"}), 415, "http/unsupported-encoding")
    assert "'br' is not supported" in error["message"]
    assert games_count(db_path) == 0


def test_too_large_a_body_gets_413(db_path: Path, token: str, games: Games) -> None:
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "MAX_CONTENT_LENGTH": 2000})
    client = app.test_client()
    response = client.post("/api/games", data=jsonl(games(3)),
                           headers={"Authorization": f"Bearer {token}"})
    error = assert_error(response, 413, "http/too-large")
    assert "2000" in error["message"]
    assert games_count(db_path) == 0


def test_the_default_body_limit_is_32_mib(db_path: Path, token: str) -> None:
    """Without any setting a server refuses a body over 32 MiB before reading it."""
    from webui import DEFAULT_MAX_CONTENT_LENGTH

    assert DEFAULT_MAX_CONTENT_LENGTH == 32 * 1024 * 1024
    app = create_app({"TESTING": True, "DATABASE": str(db_path)})
    assert app.config["MAX_CONTENT_LENGTH"] == DEFAULT_MAX_CONTENT_LENGTH
    body = b" " * (DEFAULT_MAX_CONTENT_LENGTH + 1)
    response = app.test_client().post("/api/games", data=body,
                                      headers={"Authorization": f"Bearer {token}"})
    error = assert_error(response, 413, "http/too-large")
    assert str(DEFAULT_MAX_CONTENT_LENGTH) in error["message"]
    # just under the limit is read (and refused for what it is, not for its size)
    response = app.test_client().post("/api/games", data=body[:-2],
                                      headers={"Authorization": f"Bearer {token}"})
    assert_error(response, 400, "input/empty")
    assert games_count(db_path) == 0


def test_too_large_once_decompressed_gets_413(db_path: Path, token: str) -> None:
    from recorder.parse import Limits

    app = create_app({"TESTING": True, "DATABASE": str(db_path),
                      "PARSE_LIMITS": Limits(max_input_bytes=50_000)})
    bomb = gzip.compress(b"[" + b" " * 2_000_000 + b"]")
    response = app.test_client().post(
        "/api/games", data=bomb,
        headers={"Authorization": f"Bearer {token}", "Content-Encoding": "gzip"})
    error = assert_error(response, 413, "input/too-large")
    assert "the gzip data expands to more than" in error["message"]
    assert len(bomb) < 50_000


# ---------------------------------------------------------------------------------------
# Reading.


@pytest.fixture(scope="module")
def library_file(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """Sixteen games that differ in every filtered way, uploaded once per module into a
    file of their own; returns it and the games with their answers."""
    docs = []
    for i in range(16):
        doc = make_game(
            i,
            frontend=("spilop-app", "tablet", None)[i % 3],
            started_at=None if i % 5 == 4 else f"2016-11-{10 + i:02d}T18:00:00+01:00",
        )
        if i % 7 == 3:  # a few unfinished games
            doc["rounds"] = doc["rounds"][:1]
            doc.pop("result", None)
        docs.append(doc)
    path = tmp_path_factory.mktemp("library") / "library.db"
    db = storage.connect(path)
    # each frontend's games with its own token (a token uploads one frontend's games);
    # the games that name none from the command line, where they stay without one
    tokens = {name: create_token(db, name, ["upload"])[1] for name in ("spilop-app", "tablet")}
    client = create_app({"TESTING": True, "DATABASE": str(path)}).test_client()
    for doc in docs:
        name = (doc.get("frontend") or {}).get("name")
        if name is None:
            assert import_upload(db, jsonl([doc]))[0].accepted == 1
            continue
        response = client.post("/api/games", data=jsonl([doc]),
                               headers={"Authorization": f"Bearer {tokens[name]}"})
        assert response.get_json()["data"]["summary"]["accepted"] == 1
    db.close()
    return path, [{"doc": d, "answer": replay(d), "id": i + 1} for i, d in enumerate(docs)]


@pytest.fixture
def library(client: Any, auth: dict[str, str], db_path: Path,
            library_file: tuple[Path, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """The sixteen games stored in this test's database, which keeps its own token.

    The upload is made once per module and copied (SQLite's backup), so that each of
    the many read tests costs a file copy rather than sixteen replays.
    """
    path, games = library_file
    target = sqlite3.connect(db_path)
    tokens = target.execute("SELECT * FROM tokens").fetchall()
    source = sqlite3.connect(path)
    source.backup(target)
    source.close()
    with target:
        target.execute("DELETE FROM tokens")
        marks = ", ".join("?" * len(tokens[0])) if tokens else ""
        target.executemany(f"INSERT INTO tokens VALUES ({marks})", tokens)
    target.close()
    return copy.deepcopy(games)

def ids(client: Any, query: str) -> list[int]:
    """Ids of a filtered list, following every page, checked against the stream."""
    out: list[int] = []
    url = f"/api/games?{query}&limit=3" if query else "/api/games?limit=3"
    while url:
        body = client.get(url).get_json()
        assert body["ok"] is True, body
        out += [g["id"] for g in body["data"]]
        url = body["meta"]["next"]
        assert body["meta"]["total"] >= len(out)
    streamed = client.get(f"/api/games?{query}&format=jsonl")
    assert streamed.mimetype == "application/x-ndjson"
    assert [g["id"] for g in export_rows(streamed.get_data(as_text=True))] == out
    return out


def preset(doc: dict[str, Any]) -> str:
    return str(storage.preset_of(doc["ruleset"]))


Predicate = Callable[[dict[str, Any], str], bool]


def _started_before(day: str) -> Predicate:
    return lambda g, _: "started_at" in g["doc"] and g["doc"]["started_at"] < day


def _started_since(day: str) -> Predicate:
    """Games without a start count from their import, which is after any day of 2016."""
    return lambda g, _: g["doc"].get("started_at", "9999") >= day


FILTERS: dict[str, Predicate] = {
    "player=": lambda g, player: any(p["id"] == player for p in g["doc"]["players"]),
    "preset=classic": lambda g, _: preset(g["doc"]) == "classic",
    "frontend=tablet": lambda g, _: g["doc"].get("frontend", {}).get("name") == "tablet",
    "status=unfinished": lambda g, _: g["answer"]["status"] == "unfinished",
    "status=finished": lambda g, _: g["answer"]["status"] == "finished",
    "blocked=true": lambda g, _: any(r["blocked"] for r in g["answer"]["rounds"]),
    "blocked=false": lambda g, _: not any(r["blocked"] for r in g["answer"]["rounds"]),
    "since=2016-11-20": _started_since("2016-11-20"),
    "until=2016-11-13": _started_before("2016-11-14"),
    "until=2016-11-14T16:59:59Z": _started_before("2016-11-14"),
    "since=2016-11-12T17:00:00Z&until=2016-11-15": lambda g, _: "2016-11-12"
    <= g["doc"].get("started_at", "") < "2016-11-16",
}


@pytest.mark.parametrize("query", list(FILTERS))
def test_every_filter(client: Any, library: list[dict[str, Any]], query: str) -> None:
    player = library[0]["doc"]["players"][0]["id"]
    expected = [g["id"] for g in library if FILTERS[query](g, player)]
    got = ids(client, query + player if query == "player=" else query)
    assert got == expected
    assert 0 < len(got) < len(library), f"{query} should select some games, not all"


def test_filters_combine_and_order(client: Any, library: list[dict[str, Any]]) -> None:
    expected = [g["id"] for g in library
                if preset(g["doc"]) == "spilop" and g["answer"]["status"] == "finished"]
    assert ids(client, "preset=spilop&status=finished") == expected
    newest = client.get("/api/games?order=desc&limit=5").get_json()
    assert [g["id"] for g in newest["data"]] == [16, 15, 14, 13, 12]
    assert client.get("/api/games?order=desc&cursor=12&limit=2").get_json()["data"][0]["id"] == 11
    assert ids(client, "") == [g["id"] for g in library]


def test_since_without_a_start_falls_back_to_the_import_time(
    client: Any, library: list[dict[str, Any]]
) -> None:
    no_start = {g["id"] for g in library if "started_at" not in g["doc"]}
    assert no_start
    assert no_start <= set(ids(client, "since=2017-01-01"))
    assert no_start.isdisjoint(ids(client, "until=2017-01-01"))
    now = storage.utc_now()
    assert no_start.isdisjoint(ids(client, f"since={now[:4]}-12-31T23:59:59Z"))


def test_summaries_decode_json_columns(client: Any, library: list[dict[str, Any]]) -> None:
    first = client.get("/api/games?limit=1").get_json()["data"][0]
    doc, answer = library[0]["doc"], library[0]["answer"]
    assert first["players"] == doc["players"]
    assert first["scores"] == answer["scores"] and first["winners"] == answer["winners"]
    assert first["started_at"] == "2016-11-10T17:00:00Z"
    assert "log" not in first


def test_export_of_logs_reimports_as_the_same_games(
    client: Any, library: list[dict[str, Any]], tmp_path: Path
) -> None:
    from recorder import ingest

    export = client.get("/api/games?format=logs&preset=kozel").get_data(as_text=True)
    docs = export_rows(export)
    assert docs == [g["doc"] for g in library if preset(g["doc"]) == "kozel"]
    other = storage.connect(tmp_path / "other.db")
    tally, _ = ingest.import_upload(other, export.encode())
    assert tally.accepted == len(docs)
    other.close()


def test_streaming_by_accept_header(client: Any, library: list[dict[str, Any]]) -> None:
    response = client.get("/api/games?preset=italian",
                          headers={"Accept": "application/x-ndjson"})
    assert response.mimetype == "application/x-ndjson"
    assert len(export_rows(response.get_data(as_text=True))) == sum(
        preset(g["doc"]) == "italian" for g in library)


def test_one_game_with_its_log_and_answer(client: Any, library: list[dict[str, Any]]) -> None:
    game = library[5]
    body = client.get(f"/api/games/{game['id']}").get_json()
    assert body["ok"] is True
    assert body["data"]["log"] == game["doc"]
    assert body["data"]["answer"] == game["answer"]
    assert body["data"]["game_id"] == game["doc"]["game_id"]
    raw = client.get(f"/api/games/{game['id']}/log")
    assert raw.mimetype == "application/json"
    assert json.loads(raw.get_data(as_text=True)) == game["doc"]


# ---------------------------------------------------------------------------------------
# Errors: one envelope for every one of them.


@pytest.mark.parametrize(
    ("method", "url", "status"),
    [
        ("get", "/api/games/999", 404),
        ("get", "/api/nothing-here", 404),
        ("get", "/api/games/abc", 404),
        ("delete", "/api/games", 405),
        ("put", "/api/games/1", 405),
        ("get", "/api/games?limit=0", 400),
        ("get", "/api/games?limit=lots", 400),
        ("get", "/api/games?status=invalid", 400),
        ("get", "/api/games?blocked=maybe", 400),
        ("get", "/api/games?since=last-week", 400),
        ("get", "/api/games?format=xml", 400),
        ("get", "/api/games?order=sideways", 400),
        ("get", "/api/games?players=x", 400),
        ("post", "/api/games", 401),
    ],
)
def test_every_error_has_the_same_shape(client: Any, method: str, url: str,
                                        status: int) -> None:
    assert_error(getattr(client, method)(url), status)


def test_a_crash_inside_the_api_is_a_json_500(db_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    app = create_app({"DATABASE": str(db_path)})  # not TESTING: errors are handled, not raised

    def boom(*_: Any, **__: Any) -> None:
        raise RuntimeError("simulated")

    monkeypatch.setattr(storage, "count_games", boom)
    error = assert_error(app.test_client().get("/api/games"), 500, "http/internal")
    assert "simulated" not in error["message"]


def test_the_405_says_what_is_allowed(client: Any) -> None:
    response = client.delete("/api/games")
    assert "GET" in response.headers["Allow"]
    assert "POST" in response.get_json()["error"]["message"]


# ---------------------------------------------------------------------------------------
# The upload page without JavaScript posts the same form to the server.


def test_the_upload_page_renders(client: Any) -> None:
    page = client.get("/upload")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'id="upload-form"' in html and "upload.js" in html
    assert 'href="/upload"' in client.get("/").get_data(as_text=True)  # from every page


def test_the_form_without_javascript(client: Any, token: str, games: Games,
                                     db_path: Path) -> None:
    import io

    docs = games(2)
    data = {
        "token": token,
        "files": [
            (io.BytesIO(jsonl([docs[0], break_game(docs[1])])), "mixed.jsonl"),
            (io.BytesIO(b"not json"), "junk.json"),
        ],
    }
    page = client.post("/upload", data=data, content_type="multipart/form-data")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert 'data-file="mixed.jsonl"' in html and 'data-status="accepted"' in html
    assert 'data-status="refused"' in html and "round 1, move 2" in html
    assert 'data-file="junk.json"' in html
    assert games_count(db_path) == 1
    refused = client.post("/upload", data={"token": "", "files": []},
                          content_type="multipart/form-data")
    assert refused.status_code == 401


# ---------------------------------------------------------------------------------------
# recorder serve: the first command sets everything up.


def test_serve_imports_the_samples_on_first_start_only(tmp_path: Path,
                                                       game_pool: list[dict[str, Any]]) -> None:
    import subprocess
    import sys
    import urllib.request

    from conftest import free_port, subprocess_env, wait_for_port

    (tmp_path / "sample_games").mkdir()
    (tmp_path / "sample_games" / "few.jsonl").write_bytes(jsonl(game_pool[:3]))

    def serve_once(*extra: str) -> dict[str, Any]:
        port = free_port()
        command = [sys.executable, "-c", "from recorder.cli import main; main()", "serve",
                   "--port", str(port), *extra]
        with subprocess.Popen(command, cwd=tmp_path, env=subprocess_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as proc:
            try:
                wait_for_port(port, proc)
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/games") as response:
                    return dict(json.load(response))
            finally:
                proc.terminate()
                proc.wait(timeout=10)

    first = serve_once()
    assert first["meta"]["total"] == 3
    db_file = tmp_path / "instance" / "recorder.db"
    assert db_file.exists()
    db = storage.connect(db_file)
    db.execute("DELETE FROM moves WHERE game = 1")
    db.execute("DELETE FROM rounds WHERE game = 1")
    db.execute("DELETE FROM players WHERE game = 1")
    db.execute("DELETE FROM games WHERE id = 1")
    db.close()
    assert serve_once()["meta"]["total"] == 2  # not a first start: nothing imported again
    other = tmp_path / "other.db"
    assert serve_once("--db", str(other), "--no-samples")["meta"]["total"] == 0


def test_the_docs_name_every_command_parameter_and_error_code() -> None:
    import re

    from recorder.cli import main
    from webui.api import _HTTP_CODES, LIST_PARAMS

    docs = (Path(__file__).resolve().parents[1] / "docs" / "service.md").read_text()
    for command in ("import", "serve", "token create", "token list", "token revoke"):
        assert f"recorder {command}" in docs, command
        assert command.split()[0] in main.commands
    for param in LIST_PARAMS:
        assert re.search(rf"`{param}`", docs), param
    for status in _HTTP_CODES:
        assert f"| {status} |" in docs, status
    for code in ("auth/missing-token", "auth/unknown-token", "auth/revoked-token",
                 "game/conflict", "game/not-found", "query/invalid", "input/empty"):
        assert code in docs, code


def test_the_upload_report_says_which_claims_differ(client: Any, auth: dict[str, str]) -> None:
    """A frontend that reads only the upload report still sees its scoring go wrong."""
    doc = make_game(11, ruleset="classic", players=2)
    doc["rounds"][0]["result"]["points"] = [99, 0]
    good = make_game(12, ruleset="classic", players=2)
    body = client.post("/api/games", data=jsonl([doc, good]), headers=auth).get_json()
    bad_report, good_report = body["data"]["games"]
    assert bad_report["status"] == "accepted"
    assert bad_report["mismatches"] == replay(doc)["mismatches"]
    assert bad_report["mismatches"][0]["round"] == 1
    assert bad_report["mismatches"][0]["field"] == "points"
    assert bad_report["mismatches"][0]["claimed"] == [99, 0]
    assert "mismatches" not in good_report
