"""The API's decisions pinned exactly: status codes, error codes, filters, the stream's
cursor (each test kills mutants that the broader tests of tests/test_api.py let through:
see docs/testing.md). A real SQLite file, the app in this process."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import export_rows, make_game

from recorder.errors import TooLarge
from recorder.parse import Limits, iter_documents
from webui import create_app
from webui.api import FramesCache


def jsonl(docs: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(d) + "\n" for d in docs).encode()


@pytest.fixture
def four(client: Any, auth: dict[str, str]) -> list[dict[str, Any]]:
    """Four stored games (ids 1 to 4, in this order)."""
    docs = [make_game(i) for i in range(4)]
    docs[2]["game_id"] = "partie-é"  # streamed as UTF-8, as every answer is
    answer = client.post("/api/games", data=jsonl(docs), headers=auth).get_json()
    assert [g["id"] for g in answer["data"]["games"]] == [1, 2, 3, 4]
    return docs


def error_of(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.get_data(as_text=True)
    body = response.get_json()
    assert body["ok"] is False and body["status"] == status
    return dict(body["error"])


def ids(response: Any) -> list[int]:
    assert response.status_code == 200, response.get_data(as_text=True)
    return [row["id"] for row in response.get_json()["data"]]


@pytest.mark.parametrize(("word", "same_as"), [
    ("1", "true"), ("yes", "true"), ("YES", "true"), (" True ", "true"),
    ("0", "false"), ("no", "false"), ("NO", "false"), ("False", "false"),
])
def test_blocked_takes_every_spelling_of_yes_and_no(
        client: Any, four: list[dict[str, Any]], word: str, same_as: str) -> None:
    expected = ids(client.get(f"/api/games?blocked={same_as}"))
    assert ids(client.get(f"/api/games?blocked={word}")) == expected
    # and the two answers split the games between them
    other = "false" if same_as == "true" else "true"
    assert sorted(expected + ids(client.get(f"/api/games?blocked={other}"))) == [1, 2, 3, 4]


@pytest.mark.parametrize(("query", "message"), [
    ("blocked=maybe", "blocked must be true or false, not 'maybe'"),
    ("since=last-week", "since must be an ISO 8601 date or date-time (2026-11-29, "
                        "2026-11-29T18:00:00Z), not 'last-week'"),
    ("until=2016-13-01", "until must be an ISO 8601 date or date-time (2026-11-29, "
                         "2026-11-29T18:00:00Z), not '2016-13-01'"),
])
def test_a_bad_filter_value_is_a_query_error(client: Any, db: Any, query: str,
                                             message: str) -> None:
    error = error_of(client.get(f"/api/games?{query}"), 400)
    assert error == {"code": "query/invalid", "message": message}


def test_the_stream_starts_after_its_cursor_in_either_order(
        client: Any, four: list[dict[str, Any]]) -> None:
    def streamed(query: str) -> list[int]:
        response = client.get(f"/api/games?format=jsonl&{query}")
        assert response.status_code == 200
        return [row["id"] for row in export_rows(response.get_data(as_text=True))]

    assert streamed("cursor=2") == [3, 4]
    assert streamed("order=desc") == [4, 3, 2, 1]
    assert streamed("order=desc&cursor=3") == [2, 1]
    raw = client.get("/api/games?format=logs&order=desc&cursor=4").get_data()
    assert "partie-é".encode() in raw
    logs = raw.decode()
    assert export_rows(logs) == [four[2], four[1], four[0]]
    assert "partie-é".encode() in client.get("/api/games?format=jsonl").get_data()
    # one compact line per log: what `recorder import` reads back, no larger than needed
    assert logs.splitlines()[0] == json.dumps(four[2], ensure_ascii=False, separators=(",", ":"))


@pytest.mark.parametrize("path", ["/api/games/99", "/api/games/99/log",
                                  "/api/games/99/frames"])
def test_a_missing_game_is_a_404_that_names_it(client: Any, db: Any, path: str) -> None:
    assert error_of(client.get(path), 404) == {
        "code": "game/not-found", "message": "there is no game #99"}


def test_a_partial_failure_answers_500_with_its_sentence(
        client: Any, auth: dict[str, str], db: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """One document the recorder fails on (not the log's fault): 500, and the report."""
    from recorder import ingest

    real = ingest.log_text

    def failing(parsed: Any) -> str:
        if isinstance(parsed.doc, dict) and parsed.doc.get("game_id") == "game-2":
            raise RuntimeError("planted")
        return str(real(parsed))

    monkeypatch.setattr(ingest, "log_text", failing)
    docs = [make_game(1), make_game(2), make_game(3)]
    docs[0]["game_id"] = "søren-1"
    response = client.post("/api/games", data=jsonl(docs), headers=auth)
    body = json.loads(response.get_data())
    assert response.status_code == 500 and body["status"] == 500 and body["ok"] is False
    assert body["error"] == {
        "code": "internal/documents",
        "message": "the recorder failed on 1 of the 3 documents (their reports say "
                   "internal/...); the error is logged. The other documents were handled "
                   "as usual: see data.games",
    }
    assert [g["status"] for g in body["data"]["games"]] == ["accepted", "refused", "accepted"]
    assert body["data"]["games"][1]["error"]["code"] == "internal/import"
    # written as UTF-8 like every other answer, not as \\u escapes
    assert '"game_id": "søren-1"'.encode() in response.get_data()
    assert db["games"].count == 2


def test_the_frames_cache_holds_exactly_its_budget() -> None:
    """The cache's byte count stays exact through replacing and dropping answers (it is
    the bound on the memory the service spends on frames)."""
    cache = FramesCache()
    cache.put(("db", 1, "a"), b"x" * 60, 100)
    cache.put(("db", 2, "b"), b"y" * 40, 100)  # 100 bytes: exactly the budget, both kept
    assert cache.get(("db", 1, "a")) == b"x" * 60
    assert cache.get(("db", 2, "b")) == b"y" * 40
    cache.put(("db", 2, "b"), b"y" * 40, 100)  # the same answer again counts once
    assert cache.get(("db", 1, "a")) == b"x" * 60  # read: b is now the oldest
    cache.put(("db", 3, "c"), b"z" * 10, 100)  # 110 bytes: b goes, and only b
    assert cache.get(("db", 2, "b")) is None
    assert cache.get(("db", 1, "a")) == b"x" * 60 and cache.get(("db", 3, "c")) == b"z" * 10

    whole = FramesCache()
    whole.put(("db", 1, "a"), b"x" * 100, 100)  # exactly the budget: kept
    assert whole.get(("db", 1, "a")) == b"x" * 100

    rolling = FramesCache()
    for key, size in (("a", 50), ("b", 40), ("c", 30)):  # 120: a goes, 70 are left
        rolling.put(("db", 0, key), b"z" * size, 100)
    assert rolling.get(("db", 0, "a")) is None
    rolling.put(("db", 0, "d"), b"z" * 45, 100)  # 115: b goes (c was not read since)
    assert rolling.get(("db", 0, "b")) is None
    assert rolling.get(("db", 0, "c")) is not None and rolling.get(("db", 0, "d")) is not None


@pytest.mark.parametrize(("body", "index", "message"), [
    (jsonl([make_game(1)]), 1, "there is no document 1: the body holds 1 document (index 0)"),
    (jsonl([make_game(1), make_game(2)]), 2,
     "there is no document 2: the body holds 2 documents (index 0 to 1)"),
    (jsonl([make_game(1), make_game(2), make_game(3)]), 7,
     "there is no document 7: the body holds 3 documents (index 0 to 2)"),
])
def test_frames_of_a_body_say_which_documents_it_holds(
        client: Any, body: bytes, index: int, message: str) -> None:
    error = error_of(client.post(f"/api/frames?index={index}", data=body), 400)
    assert error == {"code": "input/no-such-document", "message": message}


def test_frames_of_an_unreadable_document_give_its_own_error(client: Any) -> None:
    body = jsonl([make_game(1)]) + b'{"format": \n' + jsonl([make_game(2)])
    expected = [p.error for p in iter_documents(body, limits=Limits())]
    assert expected[0] is None and expected[1] is not None
    error = error_of(client.post("/api/frames?index=1", data=body), 400)
    assert error == {"code": expected[1].code, "message": expected[1].message}
    assert client.post("/api/frames?index=2", data=body).status_code == 200


def test_frames_of_a_body_over_the_servers_limits_get_413(tmp_path: Any) -> None:
    limits = Limits(max_input_bytes=2000)
    body = json.dumps([make_game(1), make_game(2)]).encode()
    with pytest.raises(TooLarge) as refused:
        list(iter_documents(body, limits=limits))
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "r.db"),
                      "PARSE_LIMITS": limits})
    error = error_of(app.test_client().post("/api/frames", data=body), 413)
    assert error == {"code": refused.value.code, "message": refused.value.message}



@pytest.mark.parametrize(("query", "message"), [
    ("limit=0", "limit must be between 1 and 1000, not 0"),
    ("limit=1001", "limit must be between 1 and 1000, not 1001"),
    ("players=101", "players must be between 1 and 100, not 101"),
    ("cursor=-1", "cursor must be at least 0, not -1"),
    ("limit=ten", "limit must be a whole number, not 'ten'"),
])
def test_a_number_out_of_its_range_says_the_range(client: Any, db: Any, query: str,
                                                  message: str) -> None:
    assert error_of(client.get(f"/api/games?{query}"), 400) == {
        "code": "query/invalid", "message": message}


def test_the_ends_of_a_range_are_allowed(client: Any, four: list[dict[str, Any]]) -> None:
    assert ids(client.get("/api/games?limit=1000")) == [1, 2, 3, 4]
    assert ids(client.get("/api/games?limit=1")) == [1]
    assert ids(client.get("/api/games?players=100")) == []
    assert ids(client.get("/api/games?cursor=0&limit=2")) == [1, 2]


def test_errors_are_utf8_and_a_401_names_its_scheme(client: Any, db: Any) -> None:
    response = client.get("/api/games?status=fini")
    assert error_of(response, 400)["message"].endswith("not 'fini' (invalid games are "
                                                       "never stored)")
    response = client.get("/api/games?preset=x&status=é")
    assert "not 'é'".encode() in response.get_data()  # not \\u00e9
    response = client.post("/api/games", data=b"{}")
    assert error_of(response, 401)["code"] == "auth/missing-token"
    assert response.headers["WWW-Authenticate"] == 'Bearer realm="recorder"'


def test_unknown_parameters_and_formats_are_named(client: Any, db: Any) -> None:
    takes = ("blocked, cursor, format, frontend, limit, order, player, players, preset, q, "
             "rule, since, status, until, variant")
    assert error_of(client.get("/api/games?colour=red&Size=2"), 400) == {
        "code": "query/unknown-parameter",
        "message": f"unknown parameter Size, colour; this list takes {takes}"}
    assert error_of(client.get("/api/games?format=xml"), 400) == {
        "code": "query/invalid", "message": "format must be one of json, jsonl, logs, not 'xml'"}


def test_a_search_of_200_characters_is_the_longest(client: Any, db: Any) -> None:
    assert client.get("/api/games?q=" + "a" * 200).status_code == 200
    assert error_of(client.get("/api/games?q=" + "a" * 201), 400) == {
        "code": "query/invalid", "message": "q must be at most 200 characters"}


def test_an_unknown_status_names_the_stored_ones(client: Any, db: Any) -> None:
    assert error_of(client.get("/api/games?status=invalid"), 400) == {
        "code": "query/invalid",
        "message": "status must be one of finished, unfinished, not 'invalid' "
                   "(invalid games are never stored)"}
