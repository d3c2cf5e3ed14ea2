"""The games list, the replay and watch routes, without a browser, on a real SQLite file.

The list's filters, sorting and keyset paging are checked against what the stored rows
say (read back independently with plain SQL), so a filter that selected the wrong games
or a page that skipped or repeated a row would fail.
"""

from __future__ import annotations

import html
import io
import json
import re
import shutil
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from conftest import break_game

from recorder import storage
from recorder.ingest import import_upload

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory,
             game_pool: list[dict[str, Any]]) -> tuple[Path, list[dict[str, Any]]]:
    """Twenty-four games of mixed presets and sizes, with dates and one hostile name,
    stored once; each test works on its own copy of the file."""
    docs = []
    for i, doc in enumerate(game_pool[:24]):
        doc = json.loads(json.dumps(doc))
        doc["started_at"] = f"2026-11-{1 + i % 12:02d}T1{i % 10}:00:00Z"
        if i == 5:
            doc["players"][0]["name"] = HOSTILE
        if i == 6:
            doc["players"][1]["name"] = "Inga Åsen"
        docs.append(doc)
    path = tmp_path_factory.mktemp("list") / "template.db"
    db = storage.connect(path)
    tally, _ = import_upload(db, "".join(json.dumps(d) + "\n" for d in docs).encode())
    assert tally.accepted == 24
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return path, docs


@pytest.fixture
def db_path(tmp_path: Path, template: tuple[Path, list[dict[str, Any]]]) -> Path:
    path = tmp_path / "recorder.db"
    shutil.copy(template[0], path)
    return path


@pytest.fixture
def stored(template: tuple[Path, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return template[1]


def ids_on(page: str) -> list[int]:
    return [int(x) for x in re.findall(r'<tr data-id="(\d+)">', page)]


def rows(db_path: Path, sql: str, *params: Any) -> list[tuple[Any, ...]]:
    conn = sqlite3.connect(db_path)
    try:
        return conn.execute(sql, params).fetchall()
    finally:
        conn.close()


def all_pages(client: Any, url: str) -> list[int]:
    """Follow the "Next page" links from ``url``; the ids of every page in order."""
    seen: list[int] = []
    while url:
        page = client.get(url).get_data(as_text=True)
        seen += ids_on(page)
        m = re.search(r'<a href="([^"]+)" rel="next">', page)
        url = html.unescape(m.group(1)) if m else ""
    return seen


def test_the_home_page_is_the_list(client: Any, stored: list[dict[str, Any]]) -> None:
    page = client.get("/")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "24 games" in text
    assert len(ids_on(text)) == 24
    assert 'href="/upload"' in text and 'href="/games/' in text
    assert client.get("/games").get_data(as_text=True).count("<tr data-id=") == 24


def test_names_are_text_not_markup(client: Any, stored: list[dict[str, Any]]) -> None:
    text = client.get("/games?q=onerror").get_data(as_text=True)
    assert HOSTILE not in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert len(ids_on(text)) == 1


@pytest.mark.parametrize(("query", "sql", "params"), [
    ("preset=kozel", "preset = ?", ("kozel",)),
    ("frontend=test-frontend", "frontend = ?", ("test-frontend",)),
    ("players=3", "player_count = ?", (3,)),
    ("status=finished", "status = ?", ("finished",)),
    ("blocked=true", "blocked_rounds > 0", ()),
    ("blocked=false", "blocked_rounds = 0", ()),
    ("since=2026-11-05&until=2026-11-08",
     "started_at >= '2026-11-05' AND started_at < '2026-11-09'", ()),
    ("preset=spilop&players=2", "preset = 'spilop' AND player_count = 2", ()),
])
def test_filters_select_what_the_rows_say(client: Any, db_path: Path,
                                          stored: list[dict[str, Any]], query: str, sql: str,
                                          params: tuple[Any, ...]) -> None:
    expected = {r[0] for r in rows(db_path, f"SELECT id FROM games WHERE {sql}", *params)}
    page = client.get(f"/games?{query}")
    assert page.status_code == 200
    assert set(ids_on(page.get_data(as_text=True))) == expected


def matching(docs: list[dict[str, Any]], q: str) -> set[str]:
    """Game ids with a player whose id or name holds ``q``, ASCII case folded as SQLite's
    LIKE folds it."""
    q = q.lower()
    return {d["game_id"] for d in docs
            if any(q in p["id"].lower() or q in (p.get("name") or "").lower()
                   for p in d["players"])}


def game_ids_on(client: Any, db_path: Path, **query: str) -> set[str]:
    found = ids_on(client.get("/games", query_string=query).get_data(as_text=True))
    names = dict(rows(db_path, "SELECT id, game_id FROM games"))
    return {names[i] for i in found}


@pytest.mark.parametrize("q", ["INGA", "bent", "Åsen", "an", "onerror="])
def test_search_by_player_id_or_name(client: Any, db_path: Path,
                                     stored: list[dict[str, Any]], q: str) -> None:
    expected = matching(stored, q)
    assert expected
    assert game_ids_on(client, db_path, q=q) == expected


def test_search_takes_wildcards_literally(client: Any, stored: list[dict[str, Any]]) -> None:
    assert ids_on(client.get("/games?q=%25").get_data(as_text=True)) == []
    assert ids_on(client.get("/games?q=_").get_data(as_text=True)) == []


@pytest.mark.parametrize(("sort", "column"), [
    ("date", "played_at"), ("rounds", "rounds_count"), ("moves", "moves_count"),
    ("score", "winner_score"),
])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting_and_keyset_paging(app: Any, client: Any, db_path: Path,
                                   stored: list[dict[str, Any]], sort: str, column: str,
                                   order: str) -> None:
    app.config["PAGE_SIZE"] = 5
    direction = order.upper()
    expected = [r[0] for r in rows(
        db_path, f"SELECT id FROM games ORDER BY {column} {direction}, id {direction}")]
    assert all_pages(client, f"/games?sort={sort}&order={order}") == expected


def test_pages_are_stable_when_games_arrive(app: Any, client: Any, db: Any,
                                            stored: list[dict[str, Any]]) -> None:
    """A page boundary is a row, not an offset: a game stored meanwhile on an earlier page
    does not shift the next one."""
    app.config["PAGE_SIZE"] = 6
    first = client.get("/games?sort=rounds&order=desc").get_data(as_text=True)
    next_url = html.unescape(re.search(r'<a href="([^"]+)" rel="next">', first).group(1))
    before = ids_on(client.get(next_url).get_data(as_text=True))
    longest = max(stored, key=lambda d: len(d["rounds"]))
    again = json.loads(json.dumps(longest))
    again["game_id"] = "arrived-meanwhile"
    tally, outcomes = import_upload(db, json.dumps(again).encode())
    assert tally.accepted == 1
    assert ids_on(client.get("/games?sort=rounds&order=desc").get_data(as_text=True))[0] \
        == outcomes[0].id  # it sorts first
    assert ids_on(client.get(next_url).get_data(as_text=True)) == before


def test_previous_page_goes_back(app: Any, client: Any, stored: list[dict[str, Any]]) -> None:
    app.config["PAGE_SIZE"] = 5
    first = client.get("/games?sort=moves").get_data(as_text=True)
    second_url = html.unescape(re.search(r'<a href="([^"]+)" rel="next">', first).group(1))
    second = client.get(second_url).get_data(as_text=True)
    prev_url = html.unescape(re.search(r'<a href="([^"]+)" rel="prev">', second).group(1))
    assert "before=" in prev_url
    assert ids_on(client.get(prev_url).get_data(as_text=True)) == ids_on(first)
    assert 'rel="prev"' not in first


def test_the_address_keeps_the_filters(app: Any, client: Any,
                                       stored: list[dict[str, Any]]) -> None:
    app.config["PAGE_SIZE"] = 3
    page = client.get("/games?preset=spilop&sort=score&order=asc").get_data(as_text=True)
    next_url = html.unescape(re.search(r'<a href="([^"]+)" rel="next">', page).group(1))
    params = parse_qs(urlsplit(next_url).query)
    assert params["preset"] == ["spilop"] and params["sort"] == ["score"]
    assert params["order"] == ["asc"] and "after" in params
    # the form's empty fields are left out of the address
    r = client.get("/games?q=&preset=spilop&frontend=&players=")
    assert r.status_code == 302 and r.headers["Location"].endswith("/games?preset=spilop")


@pytest.mark.parametrize(("query", "words"), [
    ("players=many", "players must be a whole number"),
    ("status=lost", "status must be one of"),
    ("blocked=maybe", "blocked must be true or false"),
    ("since=yesterday", "since must be an ISO 8601 date"),
    ("sort=winner", "sort must be one of"),
    ("order=up", "order must be asc or desc"),
    ("after=banana", "after must be a sort value and a game number"),
    ("sort=rounds&after=x,3", "after does not start with a rounds value"),
    ("after=2026-11-01T00:00:00Z,1&before=2026-11-01T00:00:00Z,2", "not both"),
    ("colour=red", "unknown parameter colour"),
    ("q=" + "x" * 201, "q must be at most 200 characters"),
])
def test_bad_query_values_are_a_400_page(client: Any, stored: list[dict[str, Any]],
                                         query: str, words: str) -> None:
    r = client.get(f"/games?{query}")
    assert r.status_code == 400
    text = r.get_data(as_text=True)
    assert words in html.unescape(text)
    assert "<form class=\"filters\"" in text  # the form stays, to fix the filter


def test_an_old_file_gets_the_new_columns(tmp_path: Path,
                                          game_pool: list[dict[str, Any]]) -> None:
    """A store from before the list: the migration fills date and winner's score."""
    path = tmp_path / "old.db"
    db = storage.connect(path)
    import_upload(db, json.dumps(game_pool[0]).encode())
    db.execute("UPDATE games SET played_at = NULL, winner_score = NULL")
    db.execute("DELETE FROM _sqlite_migrations WHERE name = 'm004_game_list'")
    db.conn.commit()
    db.close()
    db = storage.connect(path)
    played, score, scores, winners = db.execute(
        "SELECT played_at, winner_score, scores, winners FROM games").fetchone()
    assert played is not None
    assert score == json.loads(scores)[json.loads(winners)[0]]
    db.close()


def test_winner_score_of_an_unfinished_game_is_the_leaders() -> None:
    assert storage.winner_score("spilop", [10, 40, 25], []) == 40
    assert storage.winner_score("kozel", [10, 40, 25], []) == 10  # reaching the target loses
    assert storage.winner_score("spilop", [10, 40], [0]) == 10
    assert storage.winner_score({"preset": "nope"}, [3, 4], []) == 4


# ---------------------------------------------------------------------------------------
# The replay and watch routes.


def test_the_replay_page_of_a_stored_game(client: Any, stored: list[dict[str, Any]],
                                          db_path: Path) -> None:
    pk = rows(db_path, "SELECT id FROM games WHERE game_id = ?", stored[5]["game_id"])[0][0]
    r = client.get(f"/games/{pk}")
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    assert f'data-frames-url="/api/games/{pk}/frames"' in text
    assert 'id="frames-data"' not in text
    assert HOSTILE not in text


def test_a_missing_game_is_a_404_page(client: Any) -> None:
    r = client.get("/games/4242")
    assert r.status_code == 404
    assert r.mimetype == "text/html"
    assert "There is no game #4242." in r.get_data(as_text=True)


def test_watch_a_pasted_log(client: Any, db: Any, game_pool: list[dict[str, Any]]) -> None:
    assert client.get("/watch").status_code == 200
    doc = json.loads(json.dumps(game_pool[3]))
    doc["players"][0]["name"] = HOSTILE
    r = client.post("/watch", data={"log": json.dumps(doc)})
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    block = re.search(r'<script type="application/json" id="frames-data">(.*?)</script>',
                      text, re.S)
    assert block is not None
    frames = json.loads(block.group(1))
    assert frames["game"]["players"][0]["name"] == HOSTILE
    assert "<img" not in block.group(1)  # escaped inside the JSON block
    assert "data-frames-url" not in text
    assert db["games"].count == 24  # the stored games only: nothing was added


def test_watch_a_refused_file_by_index(client: Any, game_pool: list[dict[str, Any]]) -> None:
    body = json.dumps(game_pool[0]) + "\n" + json.dumps(break_game(game_pool[1])) + "\n"
    r = client.post("/watch", data={"file": (io.BytesIO(body.encode()), "two.jsonl"),
                                    "index": "1"}, content_type="multipart/form-data")
    assert r.status_code == 200
    block = re.search(r'id="frames-data">(.*?)</script>', r.get_data(as_text=True), re.S)
    frames = json.loads(block.group(1))
    assert frames["error"]["round"] == 1 and frames["error"]["move"] == 2
    assert [f["m"] for f in frames["rounds"][0]["frames"]] == [0, 1]


@pytest.mark.parametrize(("form", "words"), [
    ({"log": ""}, "Paste a log or choose a file."),
    ({"log": "{broken"}, "The log cannot be read"),
    ({"log": "{}", "index": "3"}, "there is no document 3"),
    ({"log": "{}", "index": "minus one"}, "The document number must be a whole number"),
])
def test_watch_refuses_what_it_cannot_read(client: Any, form: dict[str, str],
                                           words: str) -> None:
    r = client.post("/watch", data=form)
    assert r.status_code == 400
    text = html.unescape(r.get_data(as_text=True))
    assert words in text
    assert '<form class="watch"' in text


def test_the_upload_report_without_javascript_links_refusals_to_watch(
        client: Any, token: str, game_pool: list[dict[str, Any]]) -> None:
    body = json.dumps(game_pool[30]) + "\n" + json.dumps(break_game(game_pool[31])) + "\n"
    r = client.post("/upload", data={
        "token": token, "files": (io.BytesIO(body.encode()), "two.jsonl"),
    }, content_type="multipart/form-data")
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    forms = re.findall(r'<form class="watch-error" method="post" action="/watch">(.*?)</form>',
                       text, re.S)
    assert len(forms) == 1
    value = re.search(r'name="log" value="([^"]*)"', forms[0]).group(1)
    sent = html.unescape(value)
    assert json.loads(sent) == break_game(game_pool[31])
    watched = client.post("/watch", data={"log": sent})
    assert watched.status_code == 200 and "frames-data" in watched.get_data(as_text=True)
    assert 'href="/games/' in text  # the accepted game opens its replay


@pytest.mark.parametrize("by_filter", [False, True])
@pytest.mark.parametrize("sort", ["date", "score"])
def test_both_query_plans_page_alike(db: Any, db_path: Path, stored: list[dict[str, Any]],
                                     by_filter: bool, sort: str) -> None:
    """Walking the sort index or sorting the filter's matches gives the same pages."""
    flt = storage.GameFilter(status="finished")
    column = storage.SORTS[sort]
    expected = [r[0] for r in rows(db_path, f"SELECT id FROM games WHERE status = 'finished' "
                                            f"ORDER BY {column} DESC, id DESC")]
    seen: list[int] = []
    after = None
    while True:
        page = storage.page_games(db, flt, sort=sort, after=after, limit=4,
                                  by_filter=by_filter)
        if not page:
            break
        seen += [r["id"] for r in page]
        after = (page[-1][column], page[-1]["id"])
    assert seen == expected
    ninth = rows(db_path, f"SELECT {column}, id FROM games WHERE id = ?", expected[8])[0]
    back = storage.page_games(db, flt, sort=sort, before=ninth, limit=4, by_filter=by_filter)
    assert [r["id"] for r in back] == expected[4:8]


def test_few_enough() -> None:
    assert storage.few_enough(3000, 200_000) and not storage.few_enough(3300, 200_000)


def test_the_api_list_takes_the_same_search_and_player_count(
        client: Any, db_path: Path, stored: list[dict[str, Any]]) -> None:
    page = ids_on(client.get("/games?q=inga&players=3").get_data(as_text=True))
    api = client.get("/api/games?q=inga&players=3&order=desc&limit=1000").get_json()
    assert api["ok"] and {g["id"] for g in api["data"]} == set(page)
    assert all(g["player_count"] == 3 for g in api["data"])
    assert {"played_at", "winner_score"} <= set(api["data"][0])
    bad = client.get("/api/games?players=x")
    assert bad.status_code == 400 and bad.get_json()["error"]["code"] == "query/invalid"


def test_pages_answer_errors_with_a_page(tmp_path: Path, client: Any) -> None:
    from webui import create_app

    for url in ("/games/abc", "/no/such/page"):
        r = client.get(url)
        assert r.status_code == 404 and r.mimetype == "text/html"
        assert f"There is nothing at {url}." in r.get_data(as_text=True)
        assert 'href="/upload"' in r.get_data(as_text=True)  # the navigation is there
    r = client.delete("/watch")
    assert r.status_code == 405 and "/watch does not take DELETE." in r.get_data(as_text=True)
    small = create_app({"TESTING": True, "DATABASE": str(tmp_path / "s.db"),
                        "MAX_CONTENT_LENGTH": 1000})
    r = small.test_client().post("/watch", data={"log": "x" * 5000})
    assert r.status_code == 413 and \
        "larger than 1000 bytes, the most this server takes in one request" in \
        r.get_data(as_text=True)
    assert client.get("/api/nothing").get_json()["error"]["code"] == "http/not-found"


# ---------------------------------------------------------------------------------------
# The list and the statistics: the same filters, and links both ways.


def test_the_search_finds_a_game_by_its_game_id(client: Any, db_path: Path,
                                                stored: list[dict[str, Any]]) -> None:
    assert game_ids_on(client, db_path, q="game-13") == {"game-13"}
    assert game_ids_on(client, db_path, q="GAME-2") == {d["game_id"] for d in stored
                                                         if d["game_id"].startswith("game-2")}


def test_the_list_filters_by_variant_and_by_rule(client: Any, db_path: Path,
                                                 stored: list[dict[str, Any]]) -> None:
    variants = dict(rows(db_path, "SELECT id, variant FROM games"))
    one = sorted(set(variants.values()))[0]
    page = client.get("/games", query_string={"variant": one})
    assert page.status_code == 200
    assert set(ids_on(page.get_data(as_text=True))) == {i for i, v in variants.items()
                                                       if v == one}
    # the form offers every stored variant, named as the statistics name it
    assert f'<option value="{one}" selected>' in page.get_data(as_text=True)
    # rule=bonus: the variants whose rules have a bonus (none of these), as the bonus
    # statistics count them
    from recorder import figures

    with_bonus = {i for i, v in variants.items() if figures.in_scope(v, "bonus")}
    assert set(ids_on(client.get("/games?rule=bonus").get_data(as_text=True))) == with_bonus
    bad = client.get("/games?rule=colour")
    assert bad.status_code == 400 and "rule must be one of bonus, target" in bad.get_data(
        as_text=True)
    api = client.get("/api/games", query_string={"variant": one}).get_json()
    assert {g["id"] for g in api["data"]} == {i for i, v in variants.items() if v == one}
    assert all(g["variant"] == one for g in api["data"])


def test_player_names_link_to_their_statistics(client: Any,
                                               stored: list[dict[str, Any]]) -> None:
    page = client.get("/games?q=game-6").get_data(as_text=True)
    doc = next(d for d in stored if d["game_id"] == "game-6")
    for p in doc["players"]:
        assert f'href="/stats/players/{p["id"]}"' in page
    assert "Inga Åsen</a>" in page
    # a player's games say whose they are, with a link back and a way out
    pid = doc["players"][1]["id"]
    page = client.get(f"/games?player={pid}").get_data(as_text=True)
    assert f'games of <a href="/stats/players/{pid}"' in page
    assert 'aria-label="Show every player\'s games"' in page


def test_the_count_says_filters_only_when_there_are_some(client: Any,
                                                         stored: list[dict[str, Any]]) -> None:
    def said(url: str) -> str:
        text = client.get(url).get_data(as_text=True)
        return re.search(r'<p class="hint" id="list-total">([^.]*\.)', text).group(1)

    assert said("/games") == "24 games stored."
    assert said("/games?sort=moves&order=asc") == "24 games stored."
    assert said("/games?players=3").endswith(" match these filters.")
    assert said("/games?q=game-13") == "1 game matches these filters."
