"""The replay page in a real headless Chromium against a real server and a real database.

What the page shows at a move (tiles on the table, open ends, hands, scores) is held to
the engine's own state at that move, walked here with ``recorder.replay.walk``; the
layout of the line is checked for what a table needs (no tile on another, touching
halves showing the same number) on every round of the sample games.

Skipped only where Chromium is missing and CI is not set; under CI a missing browser is
a failure.
"""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, break_game, free_port, make_game, subprocess_env, wait_for_port

from recorder import ingest, storage
from recorder.replay import MoveEvent, RoundEnd, RoundStart, number, walk

pytestmark = pytest.mark.browser

SAMPLES = ROOT / "sample_games"
HOSTILE = "<img src=x onerror=alert(1)>"
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ---------------------------------------------------------------------------------------
# The engine's view of a game, move by move.


def snapshot(state: Any, scores: list[Any]) -> dict[str, Any]:
    tiles = state.tiles
    board = []
    for a, b, _ in state.board:
        board.append(f"{min(a, b)}-{max(a, b)}")
    return {
        "hands": [tiles.mask_names(h) for h in state.hands],
        "board": board,
        "ends": {name: v for name, v in zip(("left", "right", "up", "down"), state.value,
                                            strict=True) if v >= 0},
        "scores": [float(number(s)) for s in scores],
        "boneyard": state.boneyard_left(),
    }


def moments(doc: dict[str, Any]) -> dict[tuple[int, int], dict[str, Any]]:
    """(round, m) -> the table after move m (0: after the deal), by the engine's own walk."""
    from recorder.replay import open_game

    game = open_game(doc)
    out: dict[tuple[int, int], dict[str, Any]] = {}
    before: list[Any] = []
    for event in walk(doc, game):
        if isinstance(event, RoundStart):
            before = list(game.match.scores)
        if isinstance(event, RoundStart | MoveEvent):
            state = event.state
            m = 0 if isinstance(event, RoundStart) else event.move_no - 1
            out[(event.round, m)] = snapshot(
                state, [s + b for s, b in zip(before, state.bonus, strict=True)])
        if isinstance(event, RoundEnd):
            out[(event.round, event.state.moves)] = snapshot(event.state, list(game.match.scores))
    if isinstance(event, MoveEvent):  # the log stops in the middle of a round
        state = event.state
        out[(event.round, state.moves)] = snapshot(
            state, [s + b for s, b in zip(before, state.bonus, strict=True)])
    return out


def final_boards(doc: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The line of tiles at the end of each round, as the frames list it (PLACED)."""
    out = []
    for event in walk(doc):
        if isinstance(event, RoundEnd):
            state = event.state
            out.append([
                {"seq": i, "tile": f"{a}-{b}", "a": a, "b": b,
                 "end": None if e < 0 else ("left", "right", "up", "down")[e],
                 "double": a == b, "spinner": i == 0 and bool(state.spinner)}
                for i, (a, b, e) in enumerate(state.board)
            ])
    return out


# ---------------------------------------------------------------------------------------
# One server for the module: the sample games, a hostile name, a refused log.


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("replay")
    db_path = tmp / "recorder.db"
    db = storage.connect(db_path)
    stored = ("spilop-2p", "kozel-4p", "kozel-3p", "classic-2p")  # enough for the filters
    docs = [d for name in stored for d in read_jsonl(SAMPLES / f"{name}.jsonl")]
    hostile = make_game(3, ruleset="spilop", players=2, game_id="hostile-names")
    hostile["players"][0]["name"] = HOSTILE
    hostile["players"][1]["id"] = "<b>bold</b>"
    hostile["players"][1].pop("name", None)  # shown by its id
    docs.append(hostile)
    cut = copy.deepcopy(docs[0])  # a game cut off in the middle of its third round
    cut["game_id"] = "cut-off"
    cut["rounds"] = cut["rounds"][:3]
    cut["rounds"][2]["moves"] = cut["rounds"][2]["moves"][:5]
    cut["rounds"][2].pop("result", None)
    cut.pop("result", None)
    docs.append(cut)
    _, outcomes = ingest.import_upload(db, "".join(json.dumps(d) + "\n" for d in docs).encode())
    ids = {o.game_id: o.id for o in outcomes if o.id is not None}
    assert len(ids) == len(docs), [o.to_json() for o in outcomes if o.id is None]
    db.close()

    port = free_port()
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 (closed by the child)
    proc = subprocess.Popen(
        [sys.executable, "-m", "waitress", "--host=127.0.0.1", f"--port={port}",
         "--threads=4", "--call", "webui:create_app"],
        cwd=tmp, env=subprocess_env(RECORDER_DB=str(db_path)), stdout=log, stderr=log,
    )
    log.close()
    try:
        wait_for_port(port, proc)
        yield {"url": f"http://127.0.0.1:{port}", "ids": ids,
               "docs": {d["game_id"]: d for d in docs}, "tmp": tmp}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


class Page:
    """A browser page that records every script error and console error it sees."""

    def __init__(self, browser: Any, viewport: dict[str, int] = LAPTOP) -> None:
        self.page = browser.new_page(viewport=viewport)
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("console", self._console)

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", dialog)

    def _console(self, msg: Any) -> None:
        if msg.type == "error" and not str(msg.location.get("url", "")).endswith("favicon.ico"):
            self.errors.append(f"console: {msg.text} at {msg.location}")

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.wait_for_selector('#replay[data-ready="true"]')
        return self.page

    def close(self) -> None:
        self.page.close()
        assert self.errors == []
        assert self.dialogs == []


def frames_of(site: dict[str, Any], game_pk: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"{site['url']}/api/games/{game_pk}/frames") as answer:
        body = json.load(answer)
    assert body["ok"] is True
    return body["data"]


def stored_games(site: dict[str, Any]) -> int:
    db = storage.connect(site["tmp"] / "recorder.db", migrate=False)
    try:
        return int(db["games"].count)
    finally:
        db.close()


def shown(page: Any) -> dict[str, Any]:
    """What the page shows now: tiles on the table, ends, hands, scores, boneyard."""
    return page.evaluate("""() => {
        const root = document.getElementById("replay");
        const ends = document.getElementById("ends").dataset;
        const seats = [...document.querySelectorAll("#seats .seat")];
        return {
          round: Number(root.dataset.round), move: Number(root.dataset.move),
          board: [...document.querySelectorAll("#board .tile")]
            .sort((a, b) => a.dataset.seq - b.dataset.seq).map((t) => t.dataset.tile),
          ends: Object.fromEntries(["left", "right", "up", "down"].filter((k) => k in ends)
            .map((k) => [k, Number(ends[k])])),
          hands: seats.map((s) => [...s.querySelectorAll(".hand .tile")]
            .map((t) => t.dataset.tile || null)),
          counts: seats.map((s) => Number(s.querySelector(".count").dataset.count)),
          scores: seats.map((s) => Number(s.querySelector(".score").dataset.score)),
          boneyard: Number(document.getElementById("boneyard").dataset.count),
          marks: Object.fromEntries([...document.querySelectorAll("#board .end-mark")]
            .map((m) => [m.dataset.end, Number(m.textContent)])),
        };
    }""")


def same_tiles(shown_names: list[str], engine_names: list[str]) -> bool:
    norm = ["-".join(sorted(t.split("-"), key=int)) for t in shown_names]
    return norm == engine_names


def check_moment(page: Any, doc: dict[str, Any], table: dict[tuple[int, int], Any]) -> None:
    now = shown(page)
    want = table[(now["round"], now["move"])]
    assert same_tiles(now["board"], want["board"]), (now, want)
    assert now["ends"] == want["ends"]
    # the table marks each open end with its number (a spinner's empty arm is not drawn)
    assert now["marks"].items() <= want["ends"].items()
    if want["board"]:
        assert {"left", "right"} <= now["marks"].keys()
    assert now["hands"] == want["hands"]
    assert now["scores"] == pytest.approx(want["scores"])
    assert now["boneyard"] == want["boneyard"]


def test_open_from_the_list_and_step_with_the_keys(browser: Any, site: dict[str, Any]) -> None:
    doc = site["docs"]["spilop-duel-1"]
    table = moments(doc)
    p = Page(browser)
    page = p.page
    page.goto(f"{site['url']}/games?player=ingaan")
    page.get_by_role("link", name="spilop-duel-1", exact=True).click()
    page.wait_for_selector('#replay[data-ready="true"]')
    assert page.url.split("#")[0].endswith(f"/games/{site['ids']['spilop-duel-1']}")
    check_moment(page, doc, table)
    last_m = max(m for (r, m) in table if r == 1)
    for step in range(1, last_m + 3):  # through the end of round 1 into round 2
        page.keyboard.press("ArrowRight")
        assert page.evaluate("location.hash") == (
            f"#r1m{step}" if step <= last_m else f"#r2m{step - last_m - 1}")
        check_moment(page, doc, table)
    page.keyboard.press("ArrowLeft")
    check_moment(page, doc, table)
    # up/down and the page keys move between rounds; Home and End go to either end
    page.keyboard.press("ArrowDown")
    assert page.evaluate("location.hash") == "#r3m0"
    page.keyboard.press("PageUp")
    assert page.evaluate("location.hash") == "#r2m0"
    page.keyboard.press("End")
    last = max(table)
    assert page.evaluate("location.hash") == f"#r{last[0]}m{last[1]}"
    check_moment(page, doc, table)
    assert page.locator(".game-summary").is_visible()
    assert page.locator(".round-summary").is_visible()
    page.keyboard.press("Home")
    assert page.evaluate("location.hash") == "#r1m0"
    # the buttons do the same, and they are named for a screen reader
    page.get_by_role("button", name="Step forward").click()
    page.get_by_role("button", name="Step forward").click()
    assert page.evaluate("location.hash") == "#r1m2"
    page.get_by_role("button", name="Step back").click()
    assert page.evaluate("location.hash") == "#r1m1"
    page.get_by_role("button", name="Last move").click()
    assert page.evaluate("location.hash") == f"#r{last[0]}m{last[1]}"
    page.get_by_role("button", name="First move").click()
    page.get_by_label("Jump to a round").select_option("Round 4")
    assert page.evaluate("location.hash") == "#r4m0"
    check_moment(page, doc, table)
    # play runs on its own and pause stops it
    page.get_by_label("Speed").select_option("4")
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_function("() => location.hash !== '#r4m0'", timeout=5000)
    page.get_by_role("button", name="Pause", exact=True).click()
    stopped = page.evaluate("location.hash")
    page.wait_for_timeout(700)
    assert page.evaluate("location.hash") == stopped
    check_moment(page, doc, table)
    p.close()


def test_a_link_lands_on_its_moment(browser: Any, site: dict[str, Any]) -> None:
    doc = site["docs"]["spilop-duel-1"]
    table = moments(doc)
    game_pk = site["ids"]["spilop-duel-1"]
    p = Page(browser)
    page = p.open(f"{site['url']}/games/{game_pk}#r2m14")
    now = shown(page)
    assert (now["round"], now["move"]) == (2, 14)
    check_moment(page, doc, table)
    assert len(now["board"]) == len(table[(2, 14)]["board"]) > 0
    # editing the address moves the page too
    page.evaluate("location.hash = '#r3m5'")
    page.wait_for_function("() => document.getElementById('replay').dataset.move === '5'")
    assert shown(page)["round"] == 3
    check_moment(page, doc, table)
    # the choices the mover had, with the one played marked
    page.get_by_role("button", name="What could have been played").click()
    played = page.locator("#choices li[data-played='true']")
    assert played.count() >= 1
    frames = frames_of(site, game_pk)
    frame = next(f for f in frames["rounds"][2]["frames"] if f["m"] == 5)
    assert page.locator("#choices li").count() == len(frame["choices"])
    move = frame["move"]
    assert move["tile"] in played.first.inner_text()
    p.close()


def test_point_of_view_hides_the_others_and_shows_what_they_lack(
    browser: Any, site: dict[str, Any],
) -> None:
    game_pk = site["ids"]["spilop-duel-1"]
    frames = frames_of(site, game_pk)
    # a moment where seat 0 knows seat 1 lacks something
    target = next(
        (r["round"], f["m"], f) for r in frames["rounds"] for f in r["frames"]
        if f["lacks"]["seats"][0][1] and f["phase"] != "over"
    )
    r, m, frame = target
    p = Page(browser)
    page = p.open(f"{site['url']}/games/{game_pk}#r{r}m{m}")
    page.get_by_label("Point of view").select_option(index=1)  # the first player's seat
    now = shown(page)
    assert now["hands"][0] == frame["hands"][0]  # the viewer sees their own tiles
    assert now["hands"][1] == [None] * len(frame["hands"][1])  # the other's are face down
    assert now["counts"] == [len(h) for h in frame["hands"]]
    lacks = page.locator('.seat[data-seat="1"] .lacks')
    numbers = frame["lacks"]["seats"][0][1]
    assert lacks.inner_text() == "has no " + ", ".join(str(n) for n in numbers)
    assert page.locator('.seat[data-seat="0"] .lacks').count() == 0
    # back to everyone's hands face up
    page.get_by_label("Point of view").select_option(index=0)
    assert shown(page)["hands"] == frame["hands"]
    assert page.locator(".seat .lacks").count() == 0
    # at the end of the round every hand is shown, as players show them to count pips
    page.get_by_label("Point of view").select_option(index=1)
    page.keyboard.press("PageDown")
    page.keyboard.press("ArrowLeft")  # the last move of round r
    end = frames["rounds"][r - 1]["frames"][-1]
    assert shown(page)["move"] == end["m"] and end["phase"] == "over"
    assert shown(page)["hands"] == end["hands"]
    p.close()


def test_names_from_a_log_are_text(browser: Any, site: dict[str, Any]) -> None:
    p = Page(browser)
    page = p.page
    page.goto(f"{site['url']}/games")
    assert page.get_by_text(HOSTILE).count() >= 1
    assert page.locator("img[src='x']").count() == 0
    p.open(f"{site['url']}/games/{site['ids']['hostile-names']}")
    assert page.locator('.seat[data-seat="0"] .name').inner_text() == HOSTILE
    assert page.locator('.seat[data-seat="1"] .name').inner_text() == "<b>bold</b>"
    page.get_by_label("Point of view").select_option(index=1)
    assert page.locator("img").count() == 0 and page.locator("#seats b").count() == 0
    page.keyboard.press("End")
    assert HOSTILE in page.locator("#summary").inner_text()
    assert page.locator("img").count() == 0
    p.close()


def test_names_are_text_in_the_choices_seen_from_another_seat(
        browser: Any, site: dict[str, Any]) -> None:
    """From a seat's point of view another player's choices are not listed: the panel
    names the viewer instead, and that name, from the log, stays text."""
    game_pk = site["ids"]["hostile-names"]
    frames = frames_of(site, game_pk)
    first = frames["rounds"][0]["frames"]
    by_seat = {seat: next(f["m"] for f in first if f["move"] and f["move"]["player"] == seat)
               for seat in (0, 1)}
    p = Page(browser)
    page = p.open(f"{site['url']}/games/{game_pk}#r1m{by_seat[1]}")
    page.get_by_role("button", name="What could have been played").click()
    choices = page.locator("#choices")
    assert choices.locator("li").count() > 0  # every hand face up: the choices are listed
    # seen from seat 0, whose name is markup: seat 1's move is not seen, said in words
    page.get_by_label("Point of view").select_option(index=1)
    assert choices.inner_text() == f"Another player's hand: not seen from {HOSTILE}'s seat."
    assert choices.locator("img").count() == 0 and page.locator("img").count() == 0
    # seen from seat 1, shown by its id "<b>bold</b>": seat 0's move
    page.evaluate(f"location.hash = '#r1m{by_seat[0]}'")
    page.wait_for_function(
        f"() => document.getElementById('replay').dataset.move === '{by_seat[0]}'")
    page.get_by_label("Point of view").select_option(index=2)
    assert choices.inner_text() == "Another player's hand: not seen from <b>bold</b>'s seat."
    assert choices.locator("b").count() == 0 and choices.locator("*").count() == 1
    p.close()


def test_an_unfinished_game_opens_like_any_other(browser: Any, site: dict[str, Any]) -> None:
    doc = site["docs"]["cut-off"]
    table = moments(doc)
    p = Page(browser)
    page = p.open(f"{site['url']}/games/{site['ids']['cut-off']}")
    check_moment(page, doc, table)
    page.keyboard.press("End")
    assert page.evaluate("location.hash") == "#r3m5"
    check_moment(page, doc, table)
    assert "not finished" in page.locator("#summary").inner_text()
    assert page.locator(".game-summary").count() == 0
    assert not page.locator("#refusal").is_visible()
    p.close()


def test_the_layout_never_overlaps_and_halves_match(browser: Any, site: dict[str, Any]) -> None:
    """Every round of two games of each sample file, laid out at three table sizes."""
    docs = [d for f in sorted(SAMPLES.glob("*.jsonl")) for d in read_jsonl(f)[:2]]
    boards = [board for doc in docs for board in final_boards(doc)]
    p = Page(browser)
    page = p.open(f"{site['url']}/games/{site['ids']['spilop-duel-1']}")
    problems = page.evaluate("""async (boards) => {
        const {layout} = await import("/static/replay/layout.js");
        const problems = [];
        for (const board of boards) {
          for (const [w, h] of [[856, 447], [366, 371], [1200, 300]]) {
            const lay = layout(board, w, h);
            const cells = [];
            for (const t of board) {
              const c = lay.cells.get(t.seq);
              for (const [x, y] of c) {
                for (const [x2, y2, s2] of cells) {
                  if (Math.abs(x - x2) < 0.99 && Math.abs(y - y2) < 0.99)
                    problems.push(`tile ${t.tile} lies on ${s2} (${w}x${h})`);
                }
              }
              for (const [x, y] of c) cells.push([x, y, t.tile]);
            }
            const last = {};
            const opening = board.find((t) => t.end === null);
            for (const t of board) {
              if (t.end === null) continue;
              const prev = last[t.end] || opening;
              const pc = lay.cells.get(prev.seq);
              const [ax, ay] = lay.cells.get(t.seq)[0];
              // the touching half sits next to the half of the tile before it on that end
              const near = pc.some(([x, y]) => Math.abs(x - ax) + Math.abs(y - ay) <= 1.5);
              const shows = last[t.end] ? prev.b : t.a;
              if (!near) problems.push(`${t.tile} does not touch ${prev.tile}`);
              if (shows !== t.a) problems.push(`${t.tile} shows ${t.a} against ${shows}`);
              last[t.end] = t;
            }
          }
        }
        return problems;
    }""", boards)
    assert len(boards) > 50
    assert problems == []
    p.close()


def test_screenshots_of_a_spinner_game(browser: Any, site: dict[str, Any],
                                       tmp_path: Path) -> None:
    game_pk = site["ids"]["spilop-duel-1"]
    out = Path(os.environ.get("RECORDER_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        p = Page(browser, viewport)
        page = p.open(f"{site['url']}/games/{game_pk}#r2m30")
        tiles = page.locator("#board .tile")
        assert tiles.count() == 30 - _non_plays(site, game_pk, 2, 30)
        # nothing wider than the screen, and the table and the controls on it
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        box = page.locator("#board").bounding_box()
        assert box["width"] > viewport["width"] * 0.6 and box["height"] > 200
        outside = page.evaluate("""() => {
            const b = document.getElementById("board").getBoundingClientRect();
            return [...document.querySelectorAll("#board .tile, #board .end-mark")]
              .map((t) => t.getBoundingClientRect())
              .filter((r) => r.left < b.left - 1 || r.right > b.right + 1
                             || r.top < b.top - 1 || r.bottom > b.bottom + 1).length;
        }""")
        assert outside == 0  # the whole line fits on the table
        page.screenshot(path=str(out / f"replay-spilop-{name}.png"))
        page.screenshot(path=str(out / f"replay-spilop-{name}-full.png"), full_page=True)
        p.close()
    assert (out / "replay-spilop-phone.png").stat().st_size > 10_000


def _non_plays(site: dict[str, Any], game_pk: int, r: int, m: int) -> int:
    frames = frames_of(site, game_pk)["rounds"][r - 1]["frames"]
    return sum(1 for f in frames[1:m + 1] if f["move"]["action"] != "play")


def test_a_refused_log_plays_up_to_its_error(browser: Any, site: dict[str, Any],
                                             tmp_path: Path) -> None:
    doc = read_jsonl(SAMPLES / "classic-2p.jsonl")[0]
    bad = break_game(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    before = stored_games(site)
    p = Page(browser)
    page = p.page
    page.goto(f"{site['url']}/watch")
    page.set_input_files("input[type=file]", str(path))
    page.locator("form button[type=submit], form input[type=submit]").first.click()
    page.wait_for_selector('#replay[data-ready="true"]')
    banner = page.locator("#refusal")
    assert banner.is_visible()
    assert "round 1, move 2" in banner.inner_text()
    assert not page.locator("#refusal-here").is_visible()
    page.keyboard.press("End")
    here = page.locator("#refusal-here")
    assert here.is_visible()
    assert "not this player's turn" in here.inner_text()
    assert shown(page)["move"] == 1
    assert shown(page)["board"] and len(shown(page)["board"]) == 1
    # a pasted log refused before its first deal: the reason, and nothing to play
    page.goto(f"{site['url']}/watch")
    page.fill("textarea", json.dumps({**doc, "ruleset": "nope"}))
    page.locator("form button[type=submit]").first.click()
    page.wait_for_selector('#replay[data-ready="true"]')
    assert '"nope" is not a preset' in page.locator("#refusal").inner_text()
    assert not page.locator("#table").is_visible()
    assert not page.locator("#error-jump").is_visible()
    p.close()
    assert stored_games(site) == before  # watching stores nothing


def test_list_filters_live_in_the_address(browser: Any, site: dict[str, Any]) -> None:
    p = Page(browser)
    page = p.page
    page.goto(f"{site['url']}/games")
    form = page.get_by_role("search", name="Filter the games")
    form.get_by_label("Preset").select_option("kozel")
    form.get_by_label("Players").select_option("4")
    form.get_by_role("button", name="Show").click()
    page.wait_for_url("**/games?*")
    assert "preset=kozel" in page.url and "players=4" in page.url
    rows = page.locator("table.game-list tbody tr")
    kozel4 = read_jsonl(SAMPLES / "kozel-4p.jsonl")
    assert rows.count() == len(kozel4)
    assert all("kozel" in rows.nth(i).inner_text() for i in range(rows.count()))
    # the address is the list: opening it again gives the same rows
    again = Page(browser)
    again.page.goto(page.url)
    assert again.page.locator("table.game-list tbody tr").count() == len(kozel4)
    again.close()
    # a search by name
    page.goto(f"{site['url']}/games")
    form = page.get_by_role("search", name="Filter the games")
    form.get_by_label("Player id or name").fill("Inga")
    form.get_by_role("button", name="Show").click()
    page.wait_for_url("**q=Inga*")
    rows = page.locator("table.game-list tbody tr")
    assert rows.count() > 0
    for i in range(rows.count()):  # each row has a player called so, or with such an id
        players = rows.nth(i).locator(".player")
        seen = [players.nth(k).inner_text() + " " + (players.nth(k).get_attribute("title") or "")
                for k in range(players.count())]
        assert any("inga" in text.lower() for text in seen), seen
    p.close()


def test_assets_are_served_by_the_app(site: dict[str, Any]) -> None:
    """No CDN: every script the page loads comes from the app itself."""
    game_pk = site["ids"]["spilop-duel-1"]
    with urllib.request.urlopen(f"{site['url']}/games/{game_pk}") as answer:
        html = answer.read().decode()
        csp = answer.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp
    assert "http" not in "".join(line for line in html.splitlines() if "<script" in line)
    assert "style=" not in html
    for module in ("main", "layout", "board", "svg", "hands", "controls", "panel", "text"):
        with urllib.request.urlopen(f"{site['url']}/static/replay/{module}.js") as answer:
            assert answer.status == 200
