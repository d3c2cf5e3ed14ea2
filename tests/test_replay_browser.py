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
import urllib.request
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, BrowserPage, Servers, break_game, make_game

from recorder import ingest, storage
from recorder.replay import MoveEvent, RoundEnd, RoundStart, number, walk
from recorder.simulate import simulate_game

pytestmark = pytest.mark.browser

SAMPLES = ROOT / "sample_games"
HOSTILE = "<img src=x onerror=alert(1)>"
LAPTOP = {"width": 1366, "height": 800}
SMALL_LAPTOP = {"width": 1280, "height": 800}
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
    # the rules the page tells apart: a target reached mid-round, draw one, a match of one
    # hand, the bonus; a double-nine partnership game with long names; a long game
    for name in ("all-fives", "classic-draw-one-3p", "openspiel-block", "spilop-bonus-3p"):
        docs += read_jsonl(SAMPLES / f"{name}.jsonl")[:2]
    teams = simulate_game({"preset": "classic", "options": {"max_pip": 9,
                                                            "partnerships": True}},
                          4, "teams-1", game_id="d9-teams")
    teams["players"] = [
        {"id": "maxi", "name": "Maximiliana Wilhelmina Oberschwarzenbergerova"},
        {"id": "bart", "name": "Bartholomew Fitzwilliam-Smythe III"},
        {"id": "club/ann", "name": "Ann"},
        {"id": "averyveryveryverylongplayeridwithoutanyspaces"},
    ]
    docs.append(teams)
    docs.append(simulate_game({"preset": "spilop", "options": {"bonus": True, "target": 1500}},
                              4, "long-7", game_id="long-game"))
    _, outcomes = ingest.import_upload(db, "".join(json.dumps(d) + "\n" for d in docs).encode())
    ids = {o.game_id: o.id for o in outcomes if o.id is not None}
    assert len(ids) == len(docs), [o.to_json() for o in outcomes if o.id is None]
    db.close()

    # every replay asks for its game's review: these pages are opened faster than the
    # reviews are made, so their queue and rate limit are made room for here
    servers = Servers(tmp)
    url = servers(db_path, env={"RECORDER_REVIEW_QUEUE": "10000",
                                "RECORDER_REVIEW_BUDGET_SECONDS": "0",
                                "RECORDER_RATELIMIT_REVIEWS": "10000 per minute"})
    try:
        yield {"url": url, "ids": ids, "docs": {d["game_id"]: d for d in docs}, "tmp": tmp}
    finally:
        servers.stop()


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
    p = BrowserPage(browser)
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
    p = BrowserPage(browser)
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
    p = BrowserPage(browser)
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
    p = BrowserPage(browser)
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
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{game_pk}#r1m{by_seat[1]}")
    page.get_by_role("button", name="What could have been played").click()
    choices = page.locator("#choices")
    assert choices.locator("li").count() > 0  # every hand face up: the choices are listed
    # seen from seat 0, whose name is markup: seat 1's move is not seen, said in words
    page.get_by_label("Point of view").select_option(index=1)
    assert choices.inner_text() == f"Another player's hand: not seen from {HOSTILE}'s seat."
    assert choices.locator("img").count() == 0 and page.locator("img").count() == 0
    # seen from seat 1, shown by its id "<b>bold</b>": seat 0's move
    page.evaluate(f"location.hash = '#r1m{by_seat[0]}+choices'")  # the panel stays open
    page.wait_for_function(
        f"() => document.getElementById('replay').dataset.move === '{by_seat[0]}'")
    page.get_by_label("Point of view").select_option(index=2)
    assert choices.inner_text() == "Another player's hand: not seen from <b>bold</b>'s seat."
    assert choices.locator("b").count() == 0 and choices.locator("*").count() == 1
    p.close()


def test_an_unfinished_game_opens_like_any_other(browser: Any, site: dict[str, Any]) -> None:
    doc = site["docs"]["cut-off"]
    table = moments(doc)
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{site['ids']['cut-off']}")
    check_moment(page, doc, table)
    page.keyboard.press("End")
    assert page.evaluate("location.hash") == "#r3m5"
    check_moment(page, doc, table)
    # the game's summary says how far it went, with the scores of the rounds complete and
    # no winner, never a "score 0" for a game nobody won
    summary = page.locator("#game-summary")
    assert summary.is_visible()
    assert summary.locator("h2").inner_text() == "The game is not finished"
    assert "The log ends in round 3, after move 5. 2 rounds are complete; nobody has won." \
        in summary.inner_text()
    assert summary.locator(".rounds-table tbody tr").count() == 2
    assert summary.locator(".won-mark").count() == 0
    assert "unfinished (2 rounds complete)" in page.locator("#meta").inner_text()
    assert not page.locator("#refusal").is_visible()
    p.close()


def test_the_layout_never_overlaps_and_halves_match(browser: Any, site: dict[str, Any]) -> None:
    """Every round of two games of each sample file, laid out at three table sizes."""
    docs = [d for f in sorted(SAMPLES.glob("*.jsonl")) for d in read_jsonl(f)[:2]]
    boards = [board for doc in docs for board in final_boards(doc)]
    p = BrowserPage(browser)
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
    for name, viewport in (("laptop", LAPTOP), ("small-laptop", SMALL_LAPTOP), ("phone", PHONE)):
        p = BrowserPage(browser, viewport)
        page = p.open(f"{site['url']}/games/{game_pk}#r2m30")
        tiles = page.locator("#board .tile")
        assert tiles.count() == 30 - _non_plays(site, game_pk, 2, 30)
        # nothing wider than the screen, and the table and the controls on it; on a laptop
        # the move list lies beside the board, on a phone under the controls
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        box = page.locator("#board").bounding_box()
        moves = page.locator("#moves").bounding_box()
        if viewport is PHONE:
            assert box["width"] > viewport["width"] * 0.9 and box["height"] > 200
            assert moves["y"] > box["y"] + box["height"]
        else:
            assert box["width"] > viewport["width"] * 0.45 and box["height"] > 300
            assert moves["x"] >= box["x"] + box["width"] and moves["y"] < box["y"] + 100
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


def test_a_refused_log_opens_at_its_refused_move(browser: Any, site: dict[str, Any],
                                                tmp_path: Path) -> None:
    """/watch opens where the log breaks; the reason is said once, with the page's names."""
    doc = read_jsonl(SAMPLES / "classic-2p.jsonl")[0]
    bad = break_game(doc)  # move 2 of round 1 played by the opener again
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    before = stored_games(site)
    p = BrowserPage(browser)
    page = p.page
    page.goto(f"{site['url']}/watch")
    page.set_input_files("input[type=file]", str(path))
    page.locator("form button[type=submit], form input[type=submit]").first.click()
    page.wait_for_selector('#replay[data-ready="true"]')
    names = {pl["id"]: pl["name"] for pl in doc["players"]}
    opener = doc["rounds"][0]["moves"][0]["player"]
    other = doc["players"][1 - opener]["name"]  # the one whose turn it was
    banner = page.locator("#refusal-text")
    text = banner.text_content()
    assert text.startswith("Refused at round 1, move 2 (")
    assert text.count("round 1, move 2") == 1  # said once, not "...: round 1, move 2 (..."
    assert f"not this player's turn: {other} is to move" in text
    assert not any(pid in text for pid in names)  # players as the page calls them
    # it opens at the refused move: the frame before it, with the reason above the table,
    # shown there only (the banner with the way back appears once the page moves away)
    assert page.evaluate("location.hash") == "#r1m1"
    here = page.locator("#refusal-here")
    assert here.is_visible() and here.locator("p").inner_text() == text
    assert not page.locator("#refusal").is_visible()
    assert shown(page)["move"] == 1 and len(shown(page)["board"]) == 1
    assert "refused by the engine" in page.locator("#meta").inner_text()
    page.keyboard.press("Home")
    assert not here.is_visible() and page.locator("#refusal").is_visible()
    page.get_by_role("button", name="Go to the refused move").click()
    assert here.is_visible() and page.evaluate("location.hash") == "#r1m1"
    assert not page.locator("#refusal").is_visible()
    p.close()
    assert stored_games(site) == before  # watching stores nothing


def test_a_log_refused_before_its_first_move_shows_why_not_an_empty_replay(
    browser: Any, site: dict[str, Any],
) -> None:
    doc = read_jsonl(SAMPLES / "classic-2p.jsonl")[0]
    before = stored_games(site)
    p = BrowserPage(browser)
    page = p.page
    # a log that fails the schema: the error, its pointer and the part of the log it names
    broken = copy.deepcopy(doc)
    broken["rounds"][1]["moves"][2]["action"] = "fly"
    sent = json.dumps(broken)
    page.goto(f"{site['url']}/watch")
    page.fill("textarea", sent)
    page.locator("form button[type=submit]").first.click()
    page.wait_for_load_state()
    assert page.locator("#replay").count() == 0  # no replay shell with dead controls
    problem = page.locator("#problem")
    assert problem.is_visible()
    assert "does not have the shape of domino-log/1" in problem.inner_text()
    assert '"fly" is not an action' in problem.inner_text()
    assert page.locator("#problem-pointer").inner_text() == "/rounds/1/moves/2/action"
    assert page.locator("#problem-excerpt").inner_text() == '"fly"'
    assert page.input_value("textarea") == sent  # kept, to be fixed and sent again
    # a preset that does not exist: refused before any deal
    page.fill("textarea", json.dumps({**doc, "ruleset": "nope"}))
    page.locator("form button[type=submit]").first.click()
    page.wait_for_load_state()
    assert page.locator("#replay").count() == 0
    assert '"nope" is not a preset' in page.locator("#problem-text").inner_text()
    assert page.locator("#problem-pointer").inner_text() == "/ruleset"
    assert page.locator("#problem-excerpt").inner_text() == '"nope"'
    p.close()
    assert stored_games(site) == before


def test_list_filters_live_in_the_address(browser: Any, site: dict[str, Any]) -> None:
    p = BrowserPage(browser)
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
    again = BrowserPage(browser)
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


# ---------------------------------------------------------------------------------------
# The page tells the truth: how a round ended, the ends that count, why a player passed,
# the rules of the game and its teams. Every sentence about the rules is the frames' own.


def find_frame(frames: dict[str, Any], want: Any) -> tuple[int, dict[str, Any]]:
    """The (round, frame) of the first frame for which ``want(round, frame)`` holds."""
    return next((r["round"], f) for r in frames["rounds"] for f in r["frames"] if want(r, f))


def test_each_round_ending_is_named_as_what_it_is(browser: Any, site: dict[str, Any]) -> None:
    pk = site["ids"]["all-fives-sample-1"]
    frames = frames_of(site, pk)
    last = frames["rounds"][-1]
    summary = last["summary"]
    assert summary["how"] == "target"  # the sample's last round ends on the target
    ender = frames["game"]["players"][summary["ended_by"]]["id"]
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r{last['round']}m{last['frames'][-1]['m']}")
    seat = page.locator(f'#seats .seat[data-seat="{summary["ended_by"]}"]')
    assert seat.locator(".badge.target").inner_text() == "reaches the target"
    assert page.locator("#seats .badge.out").count() == 0  # no "domino!" with tiles in hand
    assert int(seat.locator(".count").get_attribute("data-count")) > 0
    heading = page.locator(".round-summary h2").inner_text()
    assert heading == f"Round {last['round']}: {ender} reaches the target"
    events = page.locator("#events").inner_text()
    assert "Domino" not in events
    assert f"{ender} reaches {summary['scores'][summary['ended_by']]}, the target (305)" in events
    assert f"Game over: {ender} reaches the target of 305." in events
    # the round list names each round's ending too, as its summary says
    for r in frames["rounds"]:
        info = page.locator(f'#moves .move-round[data-round="{r["round"]}"] .round-info')
        words = {"domino": "domino by", "blocked": "blocked", "target": "reaches the target"}
        assert words[r["summary"]["how"]] in info.inner_text()
    # a domino, and a blocked round, elsewhere
    domino_round, _ = find_frame(frames, lambda r, f: f["ended"] == "domino")
    page.evaluate(f"location.hash = '#r{domino_round}m999'")
    page.wait_for_function(
        f"() => document.getElementById('replay').dataset.round === '{domino_round}'")
    assert "domino by" in page.locator(".round-summary h2").inner_text()
    assert page.locator("#seats .badge.out").inner_text() == "domino!"
    assert "plays the last tile and goes out" in page.locator("#events").inner_text()
    # a match of one hand is over when its hand is played, whatever the scores
    block = site["ids"]["openspiel-block-sample-1"]
    page = p.open(f"{site['url']}/games/{block}#r1m999")
    assert "Game over: the match of 1 hand is played." in page.locator("#events").inner_text()
    assert page.locator(".round-summary .game-over-line").inner_text() == \
        "Game over: the match of 1 hand is played."
    p.close()


def shown_ends(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
        const el = document.getElementById("ends");
        const terms = [...el.querySelectorAll(".term")].map((t) => ({
          kind: t.classList[1], text: t.textContent, points: Number(t.dataset.points),
          ends: t.dataset.ends}));
        return {text: el.textContent, sum: el.dataset.sum === undefined ? null
                : Number(el.dataset.sum), terms,
                legend: document.getElementById("ends-legend").textContent};
    }""")


def test_the_ends_shown_add_up_to_the_sum_shown(browser: Any, site: dict[str, Any]) -> None:
    pk = site["ids"]["spilop-bonus-1"]
    frames = frames_of(site, pk)
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r1m1")
    for f in frames["rounds"][0]["frames"][1:]:  # every move of round 1, with the keys
        ends = shown_ends(page)
        counted = [t for t in ends["terms"] if t["kind"] in ("counts", "closed")]
        assert sum(t["points"] for t in ends["terms"]) == ends["sum"] == f["end_sum"]
        assert ends["text"].rstrip().endswith(f"= {f['end_sum']}") or " · " in ends["text"]
        assert len(counted) == sum(1 for t in f["sum_terms"] if t["kind"] in ("counts",
                                                                              "closed"))
        for shown_term, term in zip(ends["terms"], f["sum_terms"], strict=True):
            if len(term["halves"]) == 2:  # a double shows both halves, and the legend says why
                assert f"{term['halves'][0]}|{term['halves'][1]}" in shown_term["text"]
                assert "both halves count" in ends["legend"]
            if term["kind"] == "empty-arm":  # open, counts nothing, and said so
                assert shown_term["points"] == 0 and "open" in shown_term["text"]
                assert "counts nothing" in ends["legend"]
        page.keyboard.press("ArrowRight")
    # the spinner alone on the table: one double for both line ends, the arms not counted
    first = frames["rounds"][0]["frames"][1]
    page.evaluate("location.hash = '#r1m1'")
    page.wait_for_function("() => document.getElementById('replay').dataset.move === '1'")
    if first["board"][0]["spinner"]:
        ends = shown_ends(page)
        a = first["board"][0]["a"]
        assert ends["terms"][0]["text"] == f"left & right {a}|{a}"
        assert ends["terms"][0]["points"] == 2 * a == ends["sum"]
        assert [t["kind"] for t in ends["terms"][1:]] == ["empty-arm", "empty-arm"]
    # all-fives: a closed double counts both halves, takes no tile, and the legend says so
    af = site["ids"]["all-fives-sample-1"]
    r, f = find_frame(frames_of(site, af), lambda r, f: any(
        t["kind"] == "closed" for t in f["sum_terms"] or []))
    page = p.open(f"{site['url']}/games/{af}#r{r}m{f['m']}")
    ends = shown_ends(page)
    assert sum(t["points"] for t in ends["terms"]) == ends["sum"] == f["end_sum"]
    closed = [t for t in ends["terms"] if t["kind"] == "closed"]
    assert closed and all(t["text"].startswith("■ ") for t in closed)
    assert "closed double (black frame on the table): takes no tile" in ends["legend"]
    assert page.locator("#board .tile.closed").count() == len(closed)
    # without the bonus rule the ends are the numbers a tile must match, nothing added up
    plain = site["ids"]["classic-duel-1"]
    page = p.open(f"{site['url']}/games/{plain}#r1m3")
    ends = shown_ends(page)
    assert ends["sum"] is None and ends["terms"] == [] and ends["text"].startswith("Ends: ")
    p.close()


def test_a_pass_under_draw_one_says_the_player_drew_already(
    browser: Any, site: dict[str, Any],
) -> None:
    pk = site["ids"]["classic-draw-one-1"]
    r, f = find_frame(frames_of(site, pk), lambda r, f: f["move"] is not None
                      and f["move"]["action"] == "pass" and f["boneyard"] > 0)
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r{r}m{f['m']}")
    why = page.locator("#events .event.pass[data-code]")
    assert why.get_attribute("data-code") == "drew-one"
    text = why.inner_text()
    assert "already drew the one tile allowed this turn" in text
    assert f"({f['boneyard']} left in the boneyard)" in text
    assert "cannot draw" not in page.locator("#events").inner_text()
    p.close()


def test_the_header_says_the_rules_that_differ_and_the_teams(
    browser: Any, site: dict[str, Any],
) -> None:
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{site['ids']['d9-teams']}")
    meta = page.locator("#meta").inner_text()
    assert meta.startswith("classic · double-nine · partnerships · 4 players · ")
    teams = page.locator("#teams")
    assert teams.inner_text() == ("Teams: Maximiliana Wilhelmina Oberschwarzenbergerova & Ann "
                                  "against Bartholomew Fitzwilliam-Smythe III & "
                                  "averyveryveryverylongplayeridwithoutanyspaces")
    hrefs = teams.locator("a").evaluate_all("(links) => links.map((a) => a.pathname)")
    assert hrefs == ["/stats/players/maxi", "/stats/players/club/ann", "/stats/players/bart",
                     "/stats/players/averyveryveryverylongplayeridwithoutanyspaces"]
    page = p.open(f"{site['url']}/games/{site['ids']['classic-duel-1']}")
    assert page.locator("#meta").inner_text().startswith("classic · 2 players · ")
    assert page.locator("#teams").count() == 0
    page = p.open(f"{site['url']}/games/{site['ids']['spilop-bonus-1']}")
    assert page.locator("#meta").inner_text().startswith(
        "spilop · bonus on multiples of 5 · 3 players")
    p.close()


def word_breaks(page: Any, selector: str) -> list[str]:
    """The words (between spaces and hyphens) of the elements at ``selector`` that are split
    across lines: a name may wrap between its words, never inside one that fits a line."""
    return page.evaluate("""(selector) => {
        const broken = [];
        for (const el of document.querySelectorAll(selector)) {
          const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
          const width = el.getBoundingClientRect().width;
          for (let text = walker.nextNode(); text; text = walker.nextNode()) {
            const re = /[^\\s-]+/g;
            for (let m = re.exec(text.data); m; m = re.exec(text.data)) {
              const range = document.createRange();
              range.setStart(text, m.index);
              range.setEnd(text, m.index + m[0].length);
              const rects = [...range.getClientRects()].filter((r) => r.width > 0);
              const lines = new Set(rects.map((r) => Math.round(r.top)));
              // a word wider than its box has to be broken; any other must stay whole
              const wide = rects.reduce((w, r) => w + r.width, 0) > width;
              if (lines.size > 1 && !wide) broken.push(m[0]);
            }
          }
        }
        return broken;
    }""", selector)


def test_the_summaries_fit_their_cards_and_names_wrap_between_words(
    browser: Any, site: dict[str, Any],
) -> None:
    p = BrowserPage(browser)  # 1366 x 800
    for game_id in ("kozel-four-1", "d9-teams"):
        page = p.open(f"{site['url']}/games/{site['ids'][game_id]}")
        page.keyboard.press("End")
        assert page.evaluate("document.documentElement.scrollWidth") <= LAPTOP["width"]
        for card in (".round-summary", "#game-summary"):
            fits = page.evaluate("""(sel) => {
                const card = document.querySelector(sel);
                return [...card.querySelectorAll("table")].every(
                  (t) => t.getBoundingClientRect().right <= card.getBoundingClientRect().right);
            }""", card)
            assert fits, (game_id, card)
        assert word_breaks(page, ".round-summary th, .rounds-table th, #seats .name, "
                                 "#teams, .replay h1, .replay h2, .round-summary p") == []
    p.close()
    phone = BrowserPage(browser, PHONE)
    page = phone.open(f"{site['url']}/games/{site['ids']['d9-teams']}#r1m999")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert word_breaks(page, ".round-summary th, #seats .name, #teams, #hand-here .name") == []
    phone.close()


# ---------------------------------------------------------------------------------------
# The keys: never trapped in a picker; space plays after a click.


def hash_of(page: Any) -> str:
    return str(page.evaluate("location.hash"))


def choose_with_the_mouse(page: Any, label: str, option: str) -> None:
    """A picker chosen as a mouse does: pressed, then an option picked from its list."""
    picker = page.get_by_label(label)
    picker.focus()  # a press on a picker gives it the focus
    picker.dispatch_event("pointerdown")
    picker.select_option(option)


def test_the_arrow_keys_are_never_trapped_in_a_picker(browser: Any, site: dict[str, Any]) -> None:
    pk = site["ids"]["spilop-duel-1"]
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r2m3")
    # View chosen with the mouse: → steps, the point of view stays
    choose_with_the_mouse(page, "Point of view", "1")
    assert page.evaluate("document.activeElement.id") != "view"  # it let go of the keys
    page.keyboard.press("ArrowRight")
    assert hash_of(page) == "#r2m4"
    assert page.get_by_label("Point of view").input_value() == "1"
    page.keyboard.press("ArrowDown")  # ↑ ↓ are the page's again: the next round
    assert hash_of(page) == "#r3m0"
    assert page.get_by_label("Point of view").input_value() == "1"
    # Round chosen with the mouse: → steps within it, ↓ goes on to the next round
    choose_with_the_mouse(page, "Jump to a round", "Round 5")
    assert hash_of(page) == "#r5m0"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert hash_of(page) == "#r5m2"
    page.keyboard.press("ArrowDown")
    assert hash_of(page) == "#r6m0"
    assert page.get_by_label("Jump to a round").input_value() == "5"  # index of round 6
    # Speed chosen with the mouse: the arrows step, the speed stays
    choose_with_the_mouse(page, "Speed", "2")
    page.keyboard.press("ArrowLeft")
    assert hash_of(page) == "#r5m" + str(frames_of(site, pk)["rounds"][4]["frames"][-1]["m"])
    assert page.get_by_label("Speed").input_value() == "2"
    # a picker reached with the keyboard keeps ↑ ↓ for its options (the page leaves them
    # to it: no round change), but ← → still step
    page.get_by_label("Point of view").focus()
    before = hash_of(page)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Escape")  # a picker that opened its list on ↓ closes it
    assert hash_of(page) == before
    page.keyboard.press("ArrowRight")
    assert hash_of(page) != before
    p.close()


def test_space_plays_and_pauses_after_clicking_next(browser: Any, site: dict[str, Any]) -> None:
    pk = site["ids"]["spilop-duel-1"]
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r1m0")
    page.get_by_role("button", name="Step forward").click()
    assert hash_of(page) == "#r1m1"
    page.keyboard.press(" ")  # not a second click of Next: play
    assert page.get_by_role("button", name="Pause", exact=True).is_visible()
    assert hash_of(page) == "#r1m1"
    page.wait_for_function("() => location.hash !== '#r1m1'", timeout=5000)
    page.keyboard.press(" ")
    assert page.get_by_role("button", name="Play", exact=True).is_visible()
    stopped = hash_of(page)
    page.wait_for_timeout(1300)
    assert hash_of(page) == stopped
    # a button reached with the keyboard is pressed by space, as any button is
    page.get_by_role("button", name="Step back").click()
    back = hash_of(page)
    page.keyboard.press("Tab")  # Play
    page.keyboard.press("Tab")  # Step forward, with the keyboard's focus
    assert page.evaluate("document.activeElement.id") == "next"
    page.keyboard.press(" ")
    assert hash_of(page) != back
    assert page.get_by_role("button", name="Play", exact=True).is_visible()
    p.close()


# ---------------------------------------------------------------------------------------
# Connected: the move list, the links to players and to a missed bonus, the score chart.


def list_state(page: Any) -> dict[str, Any]:
    return page.evaluate("""() => {
        const list = document.getElementById("moves");
        const current = list.querySelector("[aria-current]");
        return {
          entries: [...list.querySelectorAll(".move-entry")].map((a) => ({
            m: Number(a.dataset.m), first: Number(a.dataset.first), last: Number(a.dataset.last),
            text: a.textContent, marks: (a.dataset.marks || "").split(" ").filter(Boolean),
            href: a.getAttribute("href")})),
          current: current ? current.getAttribute("href") : null,
          focused: document.activeElement === current,
          open: [...list.querySelectorAll(".move-round.open")].map((r) => r.dataset.round),
          scrollTop: list.scrollTop, pageScroll: window.scrollY,
        };
    }""")


def test_the_move_list_follows_the_game_and_steps_with_its_keys(
    browser: Any, site: dict[str, Any],
) -> None:
    pk = site["ids"]["long-game"]
    frames = frames_of(site, pk)
    # a round with a run of draws by one player, a bonus and a missed bonus in it
    def draws_twice(r: dict[str, Any]) -> bool:
        moves = [f["move"] for f in r["frames"][1:]]
        return any(a["action"] == b["action"] == "draw" and a["player"] == b["player"]
                   for a, b in pairwise(moves))

    ri, rnd = next((i, r) for i, r in enumerate(frames["rounds"]) if draws_twice(r)
        and any(f["bonus"] for f in r["frames"])
        and any(m["kind"] == "missed-bonus" for f in r["frames"] for m in f["marks"]))
    fl = rnd["frames"]
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r{rnd['round']}m0")
    state = list_state(page)
    assert state["open"] == [str(rnd["round"])]  # the round under way, the others closed
    assert state["current"] == f"#r{rnd['round']}m0"  # the deal: the round's heading
    entries = state["entries"]
    # every move is in the list once: each entry covers the frames after the one before
    assert [e["first"] for e in entries] == [1] + [e["last"] + 1 for e in entries[:-1]]
    assert entries[-1]["last"] == len(fl) - 1
    for e in entries:
        moves = [fl[i]["move"] for i in range(e["first"], e["last"] + 1)]
        if len(moves) > 1:  # a run of draws by one player, collapsed into one entry
            assert {m["action"] for m in moves} == {"draw"}
            assert len({m["player"] for m in moves}) == 1
            assert f"draws {len(moves)}" in e["text"]
            assert " ".join(m["tile"] for m in moves) in e["text"]  # all hands face up
        else:
            move = moves[0]
            name = frames["game"]["players"][move["player"]]["name"]
            assert name in e["text"] and (move["action"] != "play" or move["tile"] in e["text"])
        want = [m["kind"] for i in range(e["first"], e["last"] + 1) for m in fl[i]["marks"]]
        assert e["marks"] == want
    assert any("bonus" in e["marks"] for e in entries)
    assert any("missed-bonus" in e["marks"] for e in entries)
    # a click opens the moment; the keys of the list step through it, the focus following
    target = entries[3]
    page.locator(f'#moves a[href="{target["href"]}"]').click()
    assert hash_of(page) == target["href"]
    check_moment(page, site["docs"]["long-game"], moments(site["docs"]["long-game"]))
    assert list_state(page)["current"] == target["href"] and list_state(page)["focused"]
    page.keyboard.press("ArrowDown")  # the next entry (the first move of a run of draws)
    assert hash_of(page) == f"#r{rnd['round']}m{fl[entries[4]['first']]['m']}"
    assert list_state(page)["current"] == entries[4]["href"] and list_state(page)["focused"]
    page.keyboard.press("ArrowUp")
    assert hash_of(page) == target["href"]
    # stepping with → through a run of draws keeps its entry current, saying which draw
    run = next(e for e in entries if e["last"] > e["first"])
    page.evaluate(f"location.hash = '#r{rnd['round']}m{fl[run['first']]['m']}'")
    page.wait_for_function(f"() => document.getElementById('replay').dataset.move === "
                           f"'{fl[run['first']]['m']}'")
    current = page.locator("#moves [aria-current]")
    assert current.get_attribute("href") == run["href"]
    assert f"1 of {run['last'] - run['first'] + 1}" in current.inner_text()
    page.keyboard.press("ArrowRight")
    assert f"2 of {run['last'] - run['first'] + 1}" in current.inner_text()
    # the last entry, then ↓ in the list: the next round's deal, its moves listed instead
    last = page.locator(f'#moves a[href="{entries[-1]["href"]}"]')
    last.click()
    page.keyboard.press("ArrowDown")
    nxt = frames["rounds"][ri + 1]["round"]
    assert hash_of(page) == f"#r{nxt}m0"
    state = list_state(page)
    assert state["open"] == [str(nxt)] and state["current"] == f"#r{nxt}m0" and state["focused"]
    # the list scrolls itself to the current move; the page does not move
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_role("button", name="Last move").click()
    state = list_state(page)
    assert state["pageScroll"] == 0 and state["scrollTop"] > 0
    box = page.locator("#moves").bounding_box()
    cur = page.locator("#moves [aria-current]").bounding_box()
    assert box["y"] <= cur["y"] and cur["y"] + cur["height"] <= box["y"] + box["height"] + 1
    # Tab reaches the list at its current entry: one stop, not one per move
    page.get_by_role("button", name="Last move").focus()
    for _ in range(12):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.closest('#moves') !== null"):
            break
    assert list_state(page)["focused"]
    p.close()


def test_from_another_seat_the_list_hides_what_was_not_seen(
    browser: Any, site: dict[str, Any],
) -> None:
    pk = site["ids"]["long-game"]
    frames = frames_of(site, pk)
    r, f = find_frame(frames, lambda r, f: f["move"] is not None
                      and f["move"]["action"] == "draw" and f["move"]["player"] != 0)
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r{r}m{f['m']}")
    drawn = f["move"]["tile"]
    entry = page.locator("#moves [aria-current]")
    assert drawn in entry.inner_text()
    page.get_by_label("Point of view").select_option("0")  # seat 0 did not see that tile
    entry = page.locator("#moves [aria-current]")
    assert drawn not in entry.inner_text() and "draws" in entry.inner_text()
    seen = {m for e in list_state(page)["entries"] for m in e["marks"]}
    own = {m["kind"] for rr in frames["rounds"] if rr["round"] == r for ff in rr["frames"]
           for m in ff["marks"] if m["kind"] == "missed-bonus" and ff["move"]["player"] == 0}
    assert "missed-bonus" not in seen or own  # another's missed bonus tells of their hand
    p.close()


def test_a_missed_bonus_link_opens_the_move_with_what_it_could_have_scored(
    browser: Any, site: dict[str, Any],
) -> None:
    pk = site["ids"]["long-game"]
    frames = frames_of(site, pk)
    r, f = find_frame(frames, lambda r, f: any(m["kind"] == "missed-bonus" for m in f["marks"]))
    mark = next(m for m in f["marks"] if m["kind"] == "missed-bonus")
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r{r}m{f['m']}+choices")
    assert (shown(page)["round"], shown(page)["move"]) == (r, f["m"])
    panel = page.locator("#choices")
    assert panel.is_visible()  # open, not a closed panel to find
    assert page.get_by_role("button", name="What could have been played").get_attribute(
        "aria-expanded") == "true"
    assert panel.locator(".missed-line").inner_text() == mark["text"]
    assert f"could have scored +{mark['points']}" in mark["text"]
    best = panel.locator("li[data-best='true']")
    assert best.count() >= 1 and f"+{mark['points']}" in best.first.inner_text()
    assert panel.locator("li[data-played='true']").count() == 1
    # the flag stays in the address while the panel is open, and goes when it closes
    page.keyboard.press("ArrowRight")
    assert hash_of(page).endswith("+choices")
    page.get_by_role("button", name="What could have been played").click()
    assert not panel.is_visible() and not hash_of(page).endswith("+choices")
    # the missed-bonus table of the statistics links to moments that are missed bonuses
    with urllib.request.urlopen(f"{site['url']}/api/stats/bonus") as answer:
        examples = json.load(answer)["data"]["missed"]["examples"]
    assert examples
    for ex in examples[:5]:
        game = frames_of(site, ex["game"])
        rr = next(x for x in game["rounds"] if x["round"] == ex["round"])
        ff = next(x for x in rr["frames"] if x["m"] == ex["move"])
        assert any(m["kind"] == "missed-bonus" and m["points"] == ex["best"]
                   for m in ff["marks"]), ex
        assert ex["url"].split("#")[1].startswith(f"r{ex['round']}m{ex['move']}")
    p.close()


def test_player_names_link_to_their_pages(browser: Any, site: dict[str, Any]) -> None:
    pk = site["ids"]["d9-teams"]
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{pk}#r1m999")
    links = page.locator("#seats .seat .name")
    hrefs = links.evaluate_all("(as) => as.map((a) => a.tagName === 'A' ? a.pathname : null)")
    assert hrefs == ["/stats/players/maxi", "/stats/players/bart", "/stats/players/club%2Fann",
                     "/stats/players/averyveryveryverylongplayeridwithoutanyspaces"]
    table = page.locator(".round-summary tbody th a")
    assert table.count() == 4
    # the link opens that player's page, slashes in the id and all
    page.locator('#seats .seat[data-seat="2"] a.name').click()
    page.wait_for_load_state()
    assert page.url.endswith("/stats/players/club%2Fann")
    assert "club/ann" in page.content()
    # a watched log is not stored: its names are not links
    p.page.goto(f"{site['url']}/watch")
    p.page.fill("textarea", json.dumps(site["docs"]["d9-teams"]))
    p.page.locator("form button[type=submit]").first.click()
    p.page.wait_for_selector('#replay[data-ready="true"]')
    assert p.page.locator("#seats a.name").count() == 0
    assert p.page.locator("#seats .name").count() == 4
    p.close()


def test_the_game_summary_charts_the_scores_and_keeps_a_long_table_readable(
    browser: Any, site: dict[str, Any],
) -> None:
    pk = site["ids"]["long-game"]
    frames = frames_of(site, pk)
    rounds = frames["rounds"]
    assert len(rounds) > 70
    p = BrowserPage(browser)
    responses: list[Any] = []
    p.page.on("response", lambda r: responses.append(r) if "/frames" in r.url else None)
    page = p.open(f"{site['url']}/games/{pk}")
    assert responses and responses[0].headers.get("content-encoding") == "gzip"
    assert not page.locator("#game-summary").is_visible()  # the end is not told before it
    page.keyboard.press("End")
    summary = page.locator("#game-summary")
    assert summary.is_visible()
    page.wait_for_selector('#score-chart[data-state="drawn"]', timeout=15000)
    traces = page.evaluate("""() => document.getElementById("score-chart").data.map(
        (t) => ({name: t.name, x: t.x, y: t.y}))""")
    names = [pl["name"] for pl in frames["game"]["players"]]
    assert [t["name"] for t in traces] == names  # no partnerships: one line a player
    for seat, trace in enumerate(traces):
        assert trace["x"] == [0] + [r["round"] for r in rounds]
        assert trace["y"] == [0] + [r["summary"]["scores"][seat] for r in rounds]
    shapes = page.evaluate("document.getElementById('score-chart').layout.shapes")
    assert shapes[0]["y0"] == 1500  # the target
    # the table: a row a round, its header kept in view as it scrolls
    rows = summary.locator(".rounds-table tbody tr")
    assert rows.count() == len(rounds)
    wrap = summary.locator("#rounds-table-wrap")
    assert wrap.evaluate("(w) => w.scrollHeight > w.clientHeight")  # it scrolls, not the page
    wrap.evaluate("(w) => { w.scrollTop = w.scrollHeight; }")
    head = summary.locator(".rounds-table thead th").first.bounding_box()
    assert abs(head["y"] - wrap.bounding_box()["y"]) < 3
    last = rows.last
    assert last.locator("td.score-cell").nth(0).get_attribute("data-score") == str(
        rounds[-1]["summary"]["scores"][0]) or last.locator("td.score-cell").count() == 4
    assert int(last.locator("td.score-cell").nth(1).get_attribute("data-score")) == \
        rounds[-1]["summary"]["scores"][1]
    # a round's row opens that round's end
    rows.nth(9).locator("a").click()
    page.wait_for_function("() => document.getElementById('replay').dataset.round === '10'")
    assert not summary.is_visible()
    p.close()
    # partners share a score: the chart and the table have a column a team
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{site['ids']['d9-teams']}")
    page.keyboard.press("End")
    page.wait_for_selector('#score-chart[data-state="drawn"]', timeout=15000)
    assert page.evaluate("document.getElementById('score-chart').data.length") == 2
    heads = page.locator(".rounds-table thead th.player-col")
    assert heads.count() == 2 and " & " in heads.first.inner_text()
    assert page.locator(".rounds-table .won-mark").count() == 1
    p.close()


# ---------------------------------------------------------------------------------------
# The phone: the board and the hand in view together, taps and swipes, the scrubbers.


def swipe(page: Any, x0: float, y0: float, x1: float, y1: float) -> None:
    """A finger drawn across the screen (real touch events, through Chromium's input)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart",
                                          "touchPoints": [{"x": x0, "y": y0}]})
    for k in range(1, 6):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x0 + (x1 - x0) * k / 5, "y": y0 + (y1 - y0) * k / 5}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_the_phone_replay_shows_board_and_hand_and_steps_by_touch(
    browser: Any, site: dict[str, Any],
) -> None:
    pk = site["ids"]["long-game"]
    frames = frames_of(site, pk)
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site['url']}/games/{pk}#r3m6")
    page.wait_for_selector('#replay[data-ready="true"]')
    # the board and the hand of the seat to move, together on the screen
    board = page.locator("#board").bounding_box()
    hand = page.locator("#hand-here .hand").bounding_box()
    assert board["y"] >= 0 and hand["y"] > board["y"] + board["height"] - 1
    assert hand["y"] + hand["height"] <= PHONE["height"]
    frame = next(f for f in frames["rounds"][2]["frames"] if f["m"] == 6)
    seat = frame["turn"]
    here = page.locator("#hand-here .seat")
    assert here.get_attribute("data-seat") == str(seat)
    assert here.locator(".hand .tile").evaluate_all(
        "(ts) => ts.map((t) => t.dataset.tile)") == frame["hands"][seat]
    # from a seat's point of view, that seat's hand is the one shown
    page.get_by_label("Point of view").select_option("2")
    assert page.locator("#hand-here .seat").get_attribute("data-seat") == "2"
    assert page.locator("#hand-here .hand .tile[data-tile]").count() == len(frame["hands"][2])
    # a tap on the right half steps on, on the left half back; swipes do the same
    page.touchscreen.tap(board["x"] + board["width"] * 0.8, board["y"] + board["height"] / 2)
    assert hash_of(page) == "#r3m7"
    page.touchscreen.tap(board["x"] + board["width"] * 0.2, board["y"] + board["height"] / 2)
    assert hash_of(page) == "#r3m6"
    mid = board["y"] + board["height"] / 2
    swipe(page, board["x"] + board["width"] * 0.8, mid, board["x"] + board["width"] * 0.2, mid)
    page.wait_for_function("() => location.hash === '#r3m7'")
    swipe(page, board["x"] + board["width"] * 0.2, mid, board["x"] + board["width"] * 0.8, mid)
    page.wait_for_function("() => location.hash === '#r3m6'")
    # a vertical drag scrolls the page, it does not step
    swipe(page, board["x"] + 100, mid + 100, board["x"] + 100, mid - 100)
    page.wait_for_timeout(200)
    assert hash_of(page) == "#r3m6"
    # the scrubbers: one jumps by round (usable for a game of 1,600 moves), one by move
    rounds = page.locator("#round-scrubber")
    assert rounds.is_visible()
    assert rounds.get_attribute("max") == str(len(frames["rounds"]) - 1)
    width = rounds.bounding_box()["width"]
    assert width / len(frames["rounds"]) >= 3  # a few pixels a round under the thumb
    rounds.evaluate("(r) => { r.value = '40'; r.dispatchEvent(new Event('input')); }")
    assert hash_of(page) == f"#r{frames['rounds'][40]['round']}m0"
    moves = page.locator("#scrubber")
    assert moves.get_attribute("max") == str(len(frames["rounds"][40]["frames"]) - 1)
    moves.evaluate("(r) => { r.value = '5'; r.dispatchEvent(new Event('input')); }")
    assert hash_of(page) == f"#r{frames['rounds'][40]['round']}m5"
    assert page.locator("#scrub-value").inner_text() == \
        f"5 of {frames['rounds'][40]['frames'][-1]['m']}"
    # the move slider's arrows go on into the next round, as the page's do
    moves.focus()
    page.keyboard.press("End")
    last_m = frames["rounds"][40]["frames"][-1]["m"]
    assert hash_of(page) == f"#r{frames['rounds'][40]['round']}m{last_m}"
    page.keyboard.press("ArrowRight")
    assert hash_of(page) == f"#r{frames['rounds'][41]['round']}m0"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    assert errors == []
    context.close()


def test_screenshots_of_every_changed_page(browser: Any, site: dict[str, Any],
                                           tmp_path: Path) -> None:
    """The replay at the moments that changed, the watch page's refusals and the upload
    page, at laptop and phone size; set RECORDER_SCREENSHOTS to keep them, and look."""
    out = Path(os.environ.get("RECORDER_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    af = frames_of(site, site["ids"]["all-fives-sample-1"])
    r, f = find_frame(af, lambda r, f: any(m["kind"] == "missed-bonus" for m in f["marks"])
                      and any(t["kind"] == "closed" for t in f["sum_terms"]))
    moments_to_take = {
        "replay-all-fives-choices": f"/games/{site['ids']['all-fives-sample-1']}"
                                    f"#r{r}m{f['m']}+choices",
        "replay-teams-end": f"/games/{site['ids']['d9-teams']}#r99m999",
        "replay-long-middle": f"/games/{site['ids']['long-game']}#r30m12",
    }
    bad = copy.deepcopy(site["docs"]["classic-duel-1"])
    bad["rounds"][0]["moves"][5]["tile"] = "6-6"
    shape = copy.deepcopy(site["docs"]["classic-duel-1"])
    shape["rounds"][1]["moves"][2]["action"] = "fly"
    for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        p = BrowserPage(browser, viewport)
        page = p.page
        for title, path in moments_to_take.items():
            p.open(site["url"] + path)
            page.wait_for_timeout(400)  # the landing animations
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.screenshot(path=str(out / f"{title}-{name}.png"))
        # the long game's end: the summary, its chart drawn
        p.open(f"{site['url']}/games/{site['ids']['long-game']}")
        page.keyboard.press("End")
        page.wait_for_selector('#score-chart[data-state="drawn"]', timeout=15000)
        page.locator("#game-summary").scroll_into_view_if_needed()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(out / f"replay-long-summary-{name}.png"))
        page.screenshot(path=str(out / f"replay-long-summary-{name}-full.png"), full_page=True)
        for title, doc in (("watch-refused-move", bad), ("watch-refused-shape", shape)):
            page.goto(f"{site['url']}/watch")
            page.fill("textarea", json.dumps(doc))
            page.locator("form button[type=submit]").first.click()
            page.wait_for_load_state()
            page.wait_for_timeout(400)
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            page.screenshot(path=str(out / f"{title}-{name}.png"))
        page.goto(f"{site['url']}/upload")
        page.screenshot(path=str(out / f"upload-{name}.png"))
        p.close()
    taken = {f"{t}-{v}.png" for v in ("laptop", "phone") for t in (
        *moments_to_take, "replay-long-summary", "replay-long-summary", "watch-refused-move",
        "watch-refused-shape", "upload")}
    assert all((out / name).stat().st_size > 5_000 for name in taken)
