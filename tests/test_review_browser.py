"""The review on the replay page, in a real headless Chromium against a real server.

The evaluation graph, the marks of the mistakes (move list and scrubber), the values in
"What could have been played" and the line at the current move are held to the review
the server stored (``recorder.reviews``); a game without one says it is being computed
and shows it once the background worker is done.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import BrowserPage, Servers

from recorder import ingest, reviews, storage
from recorder.review import Settings
from recorder.simulate import simulate_game

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1366, "height": 800}
PHONE = {"width": 390, "height": 844}
SMALL_BLOCK = {"preset": "openspiel-block", "options": {"hand_size": 5, "hands": 2}}
MARKED = {"inaccuracy", "mistake", "blunder"}


def marked_game() -> dict[str, Any]:
    """A small game of random players with a marked decision in its first round."""
    from recorder.review import review_game

    for i in range(40):
        doc = simulate_game(SMALL_BLOCK, 2, f"review-page-{i}", bots=["random", "random"],
                            game_id=f"review-page-{i}", max_rounds=2)
        first = review_game(doc)["rounds"][0]["decisions"]
        if any(d["class"] in MARKED for d in first) and \
                any(d["class"] == "best" for d in first):
            return doc
    raise AssertionError("no small game with a mistake in its first round")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("review-page")
    db_path = tmp / "recorder.db"
    db = storage.connect(db_path)
    reviewed = marked_game()
    waiting = simulate_game(SMALL_BLOCK, 2, "review-page-waiting", game_id="waiting",
                            max_rounds=2)
    _, outcomes = ingest.import_upload(
        db, "".join(json.dumps(d) + "\n" for d in (reviewed, waiting)).encode())
    ids = {o.game_id: o.id for o in outcomes}
    reviews.store_rounds(db, ids[reviewed["game_id"]], Settings(),
                         *_reviewed(json.dumps(reviewed)))
    review = reviews.assembled(db, ids[reviewed["game_id"]], Settings(),
                               reviews.load(db, ids[reviewed["game_id"]], Settings()))
    db.close()
    servers = Servers(tmp)
    url = servers(db_path, env={"RECORDER_REVIEW_BUDGET_SECONDS": "0"})
    try:
        yield {"url": url, "reviewed": ids[reviewed["game_id"]],
               "waiting": ids["waiting"], "review": review, "doc": reviewed}
    finally:
        servers.stop()


def _reviewed(log_text: str) -> tuple[int, list[tuple[int, int, bytes]]]:
    total, rows, error = reviews.review_log(log_text, Settings())
    assert error is None
    return total, rows


def first_round(site: dict[str, Any]) -> dict[str, Any]:
    return site["review"]["rounds"][0]


def test_the_graph_draws_the_seat_in_views_margin_after_each_decision(
        browser: Any, site: dict[str, Any]) -> None:
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{site['reviewed']}#r1m1")
    page.wait_for_selector('#replay[data-review="ready"]', timeout=10000)
    page.wait_for_selector('#eval-chart[data-state="drawn"]', timeout=15000)
    valued = [d for d in first_round(site)["decisions"] if d["class"] is not None]
    chart = page.locator("#eval-chart")
    # every hand face up: one curve per side, a point at every valued decision each
    assert chart.get_attribute("data-seats") == "0 1"
    assert int(chart.get_attribute("data-points")) == 2 * len(valued)
    traces = page.evaluate("""() => document.getElementById("eval-chart").data
        .map((t) => ({x: t.x, y: t.y}))""")
    want0 = [(d["move"], d["choices"][d["played"]]["value"] * (1 if d["player"] == 0 else -1))
             for d in valued]
    assert traces[0]["x"] == [m for m, _ in want0]
    assert traces[0]["y"] == pytest.approx([v for _, v in want0])
    # from seat 1: its own curve alone
    page.select_option("#view", "1")
    page.wait_for_function(
        "document.getElementById('eval-chart').dataset.seats === '1'")
    page.wait_for_selector('#eval-chart[data-state="drawn"]')
    traces = page.evaluate("""() => document.getElementById("eval-chart").data
        .map((t) => ({x: t.x, y: t.y}))""")
    assert len(traces) == 1
    assert traces[0]["y"] == pytest.approx([-y for _, y in want0])
    p.close()


def test_mistakes_are_marked_on_the_move_list_and_the_scrubber_by_class(
        browser: Any, site: dict[str, Any]) -> None:
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{site['reviewed']}#r1m1")
    page.wait_for_selector('#replay[data-review="ready"]', timeout=10000)
    marked = [d for d in first_round(site)["decisions"] if d["class"] in MARKED]
    assert marked
    signs = page.evaluate("""() => [...document.querySelectorAll("#moves .review-mark")]
        .map((s) => ({m: Number(s.closest(".move-entry").dataset.m), cls: s.dataset.class,
                      text: s.textContent, title: s.title}))""")
    assert [(s["m"], s["cls"]) for s in signs] == [(d["move"], d["class"]) for d in marked]
    assert {s["text"] for s in signs} <= {"?!", "?", "??"}
    ticks = page.evaluate("""() => [...document.querySelectorAll("#scrub-marks rect")]
        .map((t) => ({m: Number(t.dataset.m), cls: t.dataset.class}))""")
    assert [(t["m"], t["cls"]) for t in ticks] == [(d["move"], d["class"]) for d in marked]
    # seen from one seat, only that seat's decisions are marked
    page.select_option("#view", "0")
    mine = [d["move"] for d in marked if d["player"] == 0]
    page.wait_for_function(f"document.querySelectorAll('#moves .review-mark').length "
                           f"=== {len(mine)}")
    assert int(page.locator("#scrub-marks").get_attribute("data-count")) == len(mine)
    p.close()


def test_the_choices_panel_shows_each_choices_value_and_the_best_at_the_move(
        browser: Any, site: dict[str, Any]) -> None:
    d = next(d for d in first_round(site)["decisions"] if d["class"] in MARKED)
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{site['reviewed']}#r1m{d['move']}+choices")
    page.wait_for_selector('#replay[data-review="ready"]', timeout=10000)
    page.wait_for_selector("#choices li[data-value]")
    values = page.evaluate("""() => [...document.querySelectorAll("#choices li")]
        .map((li) => ({move: li.dataset.move, value: li.dataset.value === undefined
          ? null : Number(li.dataset.value), best: li.dataset.bestValue === "true"}))""")

    def label(c: dict[str, Any]) -> str:
        text = f"{c['tile']} {c['end']}" if c["end"] else str(c["tile"])
        return text + (" closed" if c["closed"] else "")

    want = {label(c): c["value"] for c in d["choices"]}
    assert {v["move"]: v["value"] for v in values} == pytest.approx(want)
    assert [v["move"] for v in values if v["best"]] == [label(d["choices"][d["best"]])]
    here = page.locator("#review-here")
    assert here.get_attribute("data-class") == d["class"]
    best = d["choices"][d["best"]]
    text = here.text_content()
    assert f"best was {label(best)} (" in text
    assert f"lost {d['loss']:g}"[:8] in text or "lost" in text
    # a move that was the best says so
    good = next(x for x in first_round(site)["decisions"] if x["class"] == "best")
    page.evaluate(f"location.hash = '#r1m{good['move']}'")
    page.wait_for_function("document.getElementById('review-here').dataset.class === 'best'")
    assert page.locator("#review-here").text_content().startswith("Best move: ")
    p.close()


def test_a_game_without_a_review_says_it_is_computed_then_shows_it(
        browser: Any, site: dict[str, Any]) -> None:
    p = BrowserPage(browser)
    page = p.open(f"{site['url']}/games/{site['waiting']}#r1m1")
    page.wait_for_selector('#review[data-state="computing"]', timeout=5000)
    assert "being computed" in page.locator("#review-status").text_content()
    page.wait_for_selector('#replay[data-review="ready"]', timeout=90000)
    assert "Reviewed from what each player knew" in page.locator("#review-status").text_content()
    page.wait_for_selector('#eval-chart[data-state="drawn"]', timeout=15000)
    p.close()


def test_screenshots_of_the_review(browser: Any, site: dict[str, Any], tmp_path: Path) -> None:
    """The replay with its review at laptop and phone size; RECORDER_SCREENSHOTS keeps them."""
    out = Path(os.environ.get("RECORDER_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    d = next(d for d in first_round(site)["decisions"] if d["class"] in MARKED)
    for name, viewport in (("laptop", LAPTOP), ("phone", PHONE)):
        p = BrowserPage(browser, viewport)
        page = p.open(f"{site['url']}/games/{site['reviewed']}#r1m{d['move']}+choices")
        page.wait_for_selector('#eval-chart[data-state="drawn"]', timeout=15000)
        page.wait_for_timeout(400)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.screenshot(path=str(out / f"replay-review-{name}.png"))
        page.screenshot(path=str(out / f"replay-review-{name}-full.png"), full_page=True)
        p.close()
    for name in ("laptop", "phone"):
        assert (out / f"replay-review-{name}.png").stat().st_size > 5_000
