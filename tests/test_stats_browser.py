"""The statistics dashboards in a real headless Chromium against a real server.

One database is built per module through the real import path: a mix of presets and
player counts, bonus games, two months of dates, a player whose name is markup and a
newcomer with one game (too small a sample for any metric). One server runs on that
file for the module; each test reads the charts' plotly data back from the page, to compare it
with what the JSON URL named by the chart's "JSON" link answers.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import free_port, make_game, subprocess_env, wait_for_port, write_jsonl

from recorder import ingest, storage

pytestmark = pytest.mark.browser

HOSTILE = '<b>Mal</b> <img src=x onerror="window.__owned=1"> & "co"'
SIZES = {"wide": (1280, 800), "phone": (390, 844)}


@pytest.fixture(scope="module")
def stats_db(tmp_path_factory: pytest.TempPathFactory,
             game_pool: list[dict[str, Any]]) -> Path:
    """The module's database, imported once; tests only read it."""
    docs = copy.deepcopy(game_pool[:24])
    for i, doc in enumerate(docs):
        doc["started_at"] = f"2026-{10 + i % 2}-{1 + i % 27:02d}T12:00:00Z"
    docs += [make_game(f"bonus-{i}", ruleset={"preset": "spilop", "options": {"bonus": True}},
                       players=3, started_at=f"2026-11-{10 + i:02d}T18:00:00Z")
             for i in range(10)]
    newcomer = make_game("newcomer", players=2, started_at="2026-11-20T10:00:00Z")
    newcomer["players"][1] = {"id": "newcomer", "name": "Newcomer"}
    docs.append(newcomer)
    # One regular gets a name made of markup in every game (so it is the name on record).
    marked = docs[0]["players"][0]["id"]
    for doc in docs:
        for player in doc["players"]:
            if player["id"] == marked:
                player["name"] = HOSTILE

    folder = tmp_path_factory.mktemp("stats")
    path = folder / "stats.db"
    db = storage.connect(path)
    _importer, outcomes = ingest.import_paths(db, [str(write_jsonl(folder / "g.jsonl", docs))])
    statuses = [o.status for o in outcomes]
    db.close()
    assert statuses == ["accepted"] * len(docs)
    return path


@pytest.fixture(scope="module")
def site(stats_db: Path) -> Iterator[str]:
    """One waitress server on the module's database, as ``start_server`` runs it.

    Module-wide rather than per test so that the browser's cache keeps plotly.js (5 MB
    to parse) between tests: the pages load in a fraction of a second after the first.
    """
    port = free_port()
    log = open(stats_db.parent / "server.log", "wb")  # noqa: SIM115 (closed by the child)
    proc = subprocess.Popen(
        [sys.executable, "-m", "waitress", "--host=127.0.0.1", f"--port={port}",
         "--threads=4", "--call", "webui:create_app"],
        cwd=stats_db.parent, env=subprocess_env(RECORDER_DB=str(stats_db)), stdout=log,
        stderr=log,
    )
    log.close()
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def contexts(browser: Any) -> Iterator[dict[str, Any]]:
    """A browser context per screen size, shared by the module's tests (and its cache)."""
    made = {size: browser.new_context(viewport={"width": w, "height": h})
            for size, (w, h) in SIZES.items()}
    yield made
    for context in made.values():
        context.close()


def api(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as error:
        return error.code, json.load(error)


class Watch:
    """A page, and every script error or failed load on it."""

    def __init__(self, context: Any) -> None:
        self.page = context.new_page()
        self.errors: list[str] = []
        self.refusals: list[str] = []
        """URLs the test expects the API to refuse (the page shows the refusal)."""
        self.page.on("pageerror", lambda exc: self.errors.append(f"page error: {exc}"))
        self.page.on("console", self._console)

    def _console(self, message: Any) -> None:
        where = (message.location or {}).get("url", "")
        # The browser asks for /favicon.ico on its own; there is none.
        expected = where.endswith("/favicon.ico") or any(u in where for u in self.refusals)
        if message.type == "error" and not expected:
            self.errors.append(f"console: {message.text} ({where})")

    def open(self, url: str) -> Any:
        self.page.goto(url)
        return self.settled()

    def settled(self) -> Any:
        """Wait until the page has drawn an answer, said there is none, or shown an error."""
        self.page.wait_for_selector(
            "body[data-rendered], body[data-state='empty'], body[data-state='error']",
            state="attached")
        return self.page

    def traces(self, figure: str) -> list[dict[str, Any]]:
        """The plotly traces drawn in a chart, as plotly holds them."""
        return self.page.evaluate(
            """(id) => {
                const plot = document.querySelector(`#${id} .js-plotly-plot`);
                return plot ? plot.data.map((t) => ({
                    type: t.type, x: t.x, y: t.y, z: t.z, customdata: t.customdata,
                })) : null;
            }""", figure)

    def close(self) -> None:
        self.page.close()


@pytest.fixture
def watch(contexts: dict[str, Any]) -> Iterator[Any]:
    opened: list[Watch] = []

    def make(size: str = "wide") -> Watch:
        opened.append(Watch(contexts[size]))
        return opened[-1]

    yield make
    for w in opened:
        w.close()
    assert [e for w in opened for e in w.errors] == []


def rendered_url(page: Any) -> str:
    return page.evaluate("document.body.dataset.rendered")


def approx(values: list[Any]) -> list[Any]:
    return [pytest.approx(v) if isinstance(v, float) else v for v in values]


# ---------------------------------------------------------------------------------------


def test_bonus_dashboard_draws_the_api_numbers_and_a_filter_redraws(
    watch: Any, site: str, stats_db: Path,
) -> None:
    w = watch()
    page = w.open(f"{site}/stats/bonus")
    assert rendered_url(page) == "/api/stats/bonus"
    status, body = api(f"{site}/api/stats/bonus")
    data = body["data"]
    assert status == 200 and data["plays"] > 0 and data["bonus_plays"] > 0

    values = w.traces("chart-values")[0]
    assert values["x"] == [str(v["value"]) for v in data["values"]]
    assert values["y"] == [v["count"] for v in data["values"]]
    # The first bonus value is a multiple of five: the stored facts, not made-up ones.
    assert all(v["value"] % 5 == 0 for v in data["values"])

    by_players = w.traces("chart-players")[0]
    assert by_players["y"] == approx([r["share"] for r in data["by_players"]])
    assert by_players["x"] == [f"{r['players']} players" for r in data["by_players"]]
    by_variant = w.traces("chart-variant")[0]
    assert by_variant["x"] == approx([r["share"] for r in reversed(data["by_variant"])])
    plays, share = w.traces("chart-move")
    assert plays["y"] == [r["plays"] for r in data["by_move"]]
    assert share["y"] == approx([r["share"] for r in data["by_move"]])

    headline = page.inner_text("#share")
    assert f"{data['share'] * 100:.1f}%" in headline
    assert f"{data['plays']:,} plays" in headline
    # Every JSON link names the URL the charts were drawn from.
    assert {a.get_attribute("href") for a in page.locator("a.json").all()} == {
        "/api/stats/bonus"}

    scorers = page.locator("#top-scorers tbody tr")
    assert scorers.count() == len(data["top_scorers"])
    first = data["top_scorers"][0]
    assert scorers.first.locator("td").nth(2).inner_text() == f"{first['bonus_points']:,}"
    moments = page.locator("#missed-bonus tbody a.replay-link")
    assert moments.count() == len(data["missed"]["examples"]) > 0
    example = data["missed"]["examples"][0]
    assert moments.first.get_attribute("href") == \
        f"/games/{example['game']}#r{example['round']}m{example['move']}"
    # The moment is a page of the replay viewer.
    assert page.request.get(f"{site}/games/{example['game']}").status == 200

    # A filter: the address changes, the charts are redrawn from the filtered answer.
    page.select_option("select[name=players]", "3")
    page.wait_for_selector("body[data-rendered='/api/stats/bonus?players=3']", state="attached")
    assert page.url.endswith("/stats/bonus?players=3")
    _, filtered = api(f"{site}/api/stats/bonus?players=3")
    assert filtered["data"]["plays"] < data["plays"]
    assert w.traces("chart-players")[0]["x"] == ["3 players"]
    assert w.traces("chart-values")[0]["y"] == [v["count"] for v in filtered["data"]["values"]]
    assert page.locator("a.json").first.get_attribute("href") == "/api/stats/bonus?players=3"
    # The tabs carry the filter to the other dashboards.
    assert page.get_attribute(".stats-tabs a[href^='/stats/blocked']", "href") == \
        "/stats/blocked?players=3"

    # Back: the address and the charts return to the unfiltered answer.
    page.go_back()
    page.wait_for_selector("body[data-rendered='/api/stats/bonus']", state="attached")
    assert page.input_value("select[name=players]") == ""
    assert w.traces("chart-values")[0]["y"] == [v["count"] for v in data["values"]]


def test_blocked_dashboard_draws_the_api_numbers(
    watch: Any, site: str, stats_db: Path,
) -> None:
    w = watch()
    page = w.open(f"{site}/stats/blocked")
    _, body = api(f"{site}/api/stats/blocked")
    data = body["data"]
    db = storage.connect(stats_db)
    assert data["rounds"] == db["rounds"].count
    assert data["blocked"] == db.execute(
        "SELECT count(*) FROM rounds WHERE blocked").fetchone()[0] > 0
    db.close()

    heat = w.traces("chart-rules")[0]
    assert heat["type"] == "heatmap"
    drawn = sorted(v for row in heat["z"] for v in row if v is not None)
    assert drawn == pytest.approx(sorted(r["share"] for r in data["by_rules"]))
    share = w.traces("chart-time")[1]
    assert share["x"] == [r["period"] for r in data["over_time"]] == ["2026-10", "2026-11"]
    assert share["y"] == approx([r["share"] for r in data["over_time"]])
    assert w.traces("chart-margins")[0]["y"] == [r["count"] for r in data["margins"]]
    assert w.traces("chart-certain")[0]["y"] == [r["count"] for r in data["certain_before_end"]]
    enders = w.traces("chart-enders")[0]
    assert enders["x"] == [r["count"] for r in reversed(data["enders"][:15])]
    assert f"{data['blocked']:,} of {data['rounds']:,} rounds" in page.inner_text("#share")

    page.fill("input[name=since]", "2026-11-01")
    page.locator("input[name=since]").dispatch_event("change")
    page.wait_for_selector("body[data-rendered='/api/stats/blocked?since=2026-11-01']",
                           state="attached")
    assert "since=2026-11-01" in page.url
    assert w.traces("chart-time")[1]["x"] == ["2026-11"]


def test_markup_in_a_name_is_text_everywhere(watch: Any, site: str) -> None:
    w = watch()
    page = w.open(f"{site}/stats/blocked")
    _, body = api(f"{site}/api/stats/blocked")
    assert HOSTILE in [r["name"] for r in body["data"]["enders"]]
    # plotly draws the label as the characters of the name, not as bold text or an image.
    ticks = page.locator("#chart-enders .ytick text").all_text_contents()
    assert HOSTILE in ticks
    assert page.locator("#chart-enders b, #chart-enders img, #chart-enders tspan[style*=bold]"
                        ).count() == 0

    page = w.open(f"{site}/stats/players")
    link = page.locator("#players-table tbody a", has_text="<b>Mal</b>")
    assert link.inner_text() == HOSTILE
    assert page.locator("#players-table b, #players-table img").count() == 0
    link.click()
    w.settled()
    assert page.inner_text("#player-name") == HOSTILE
    assert page.title().startswith(HOSTILE)
    assert page.evaluate("window.__owned") is None

    page = w.open(f"{site}/stats/bonus")
    assert page.locator("#top-scorers b, #missed-bonus b, img").count() == 0


def test_players_list_sorts_by_any_metric_and_greys_thin_samples(
    watch: Any, site: str,
) -> None:
    w = watch()
    page = w.open(f"{site}/stats/players")
    _, body = api(f"{site}/api/stats/players")
    data = body["data"]
    rows = page.locator("#players-table tbody tr")
    assert rows.count() == len(data["players"])
    definitions = {m["key"]: m["definition"] for m in data["metrics"]}
    win = page.locator("button.sort[data-sort='win_rate']")
    assert win.get_attribute("title") == definitions["win_rate"]

    # Too small a sample: the newcomer's cell is greyed and says its sample.
    newcomer = page.locator("#players-table tbody tr[data-player='newcomer']")
    thin = newcomer.locator("td.thin").first
    assert "n 1" in thin.inner_text()
    entry = next(p for p in data["players"] if p["id"] == "newcomer")
    assert entry["metrics"]["win_rate"]["value"] is None

    def column(key: str) -> list[float | None]:
        index = [m["key"] for m in data["metrics"]].index(key) + 3
        return [None if v is None else float(v) for v in page.eval_on_selector_all(
            "#players-table tbody tr",
            f"rows => rows.map(r => r.children[{index}].dataset.value ?? null)")]

    win.click()
    assert "sort=win_rate" in page.url and "order=desc" in page.url
    assert page.get_attribute("th:has(button[data-sort='win_rate'])", "aria-sort") == \
        "descending"
    values = column("win_rate")
    known = [v for v in values if v is not None]
    assert known == sorted(known, reverse=True) and len(known) >= 2
    assert values[-1] is None  # hidden values sort last
    # The keyboard: the focused header again, with Enter, turns the order round.
    page.focus("button.sort[data-sort='win_rate']")
    page.keyboard.press("Enter")
    known = [v for v in column("win_rate") if v is not None]
    assert known == sorted(known)
    assert page.get_attribute("th:has(button[data-sort='win_rate'])", "aria-sort") == \
        "ascending"
    # The sort is part of the address, not of the API's query.
    assert rendered_url(page) == "/api/stats/players"
    page.reload()
    w.settled()
    assert [v for v in column("win_rate") if v is not None] == known


def test_player_page_shows_each_metric_against_the_population(
    watch: Any, site: str,
) -> None:
    w = watch()
    _, listing = api(f"{site}/api/stats/players")
    regular = listing["data"]["players"][0]["id"]
    page = w.open(f"{site}/stats/players/{regular}?preset=spilop")
    assert rendered_url(page) == f"/api/stats/players/{regular}?preset=spilop"
    _, body = api(f"{site}/api/stats/players/{regular}?preset=spilop")
    data = body["data"]
    metrics = listing["data"]["metrics"]
    cards = page.locator("#metrics figure.metric")
    assert cards.count() == len(metrics)
    shown = 0
    for i, metric in enumerate(metrics):
        mine = data["metrics"][metric["key"]]
        spread = data["population"][metric["key"]]
        traces = w.traces(f"chart-metric-{i}")
        card = cards.nth(i)
        assert card.locator(".chart-title").get_attribute("title") == metric["definition"]
        if mine["value"] is None:
            assert "too small a sample" in card.inner_text()
            continue
        shown += 1
        band, median, dot = traces
        assert band["x"] == [pytest.approx(spread["p90"] - spread["p10"])]
        assert median["x"] == [pytest.approx(spread["p50"])]
        assert dot["x"] == [pytest.approx(mine["value"])]
        assert f"{round(mine['percentile'])}" in card.locator(".metric-percentile").inner_text()
    assert shown >= 3

    history = w.traces("chart-history")[0]
    assert history["y"] == [g["score"] for g in data["score_history"]]
    links = page.locator("#recent-games tbody a.replay-link")
    assert links.count() == len(data["recent_games"])
    assert links.first.get_attribute("href") == data["recent_games"][0]["url"]


def test_empty_filters_errors_and_unknown_players_say_so(watch: Any, site: str) -> None:
    w = watch()
    w.refusals += ["/api/stats/blocked?players=many", "/api/stats/players/nobody-at-all"]
    page = w.open(f"{site}/stats/bonus?since=2030-01-01")
    assert page.is_visible("#empty")
    assert "No games match" in page.inner_text("#empty")
    assert page.locator(".js-plotly-plot").count() == 0

    page = w.open(f"{site}/stats/blocked?players=many")
    assert page.is_visible("#problem")
    assert "players" in page.inner_text("#problem")
    assert not page.is_visible("#dashboard")

    page = w.open(f"{site}/stats/players/nobody-at-all")
    assert "nobody-at-all" in page.inner_text("#problem")


def test_every_page_reads_at_both_sizes(
    watch: Any, site: str, tmp_path: Path,
) -> None:
    """Screenshots at 1280x800 and 390x844; nothing wider than the screen on a phone."""
    pages = {"overview": "/stats", "bonus": "/stats/bonus", "blocked": "/stats/blocked",
             "players": "/stats/players", "player": "/stats/players/newcomer",
             "empty": "/stats/bonus?players=8"}
    _, listing = api(f"{site}/api/stats/players")
    pages["player"] = f"/stats/players/{listing['data']['players'][0]['id']}"
    keep = os.environ.get("RECORDER_SCREENSHOT_DIR")
    for size, (width, _height) in SIZES.items():
        w = watch(size)
        for name, path in pages.items():
            page = w.open(site + path)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (name, size)
            shot = tmp_path / f"stats-{name}-{size}.png"
            page.screenshot(path=str(shot), full_page=True)
            if keep:
                shutil.copy(shot, Path(keep) / shot.name)
        state = w.open(f"{site}/stats").evaluate("document.body.dataset.state")
        assert state == "ready"
        assert w.page.inner_text("[data-card='bonus'] .card-figure").endswith("%")


def test_a_fresh_database_says_no_games_match(
    watch: Any, start_server: Any, tmp_path: Path,
) -> None:
    url = start_server(tmp_path / "fresh.db")
    w = watch()
    for path in ("/stats", "/stats/bonus", "/stats/blocked", "/stats/players"):
        page = w.open(url + path)
        assert page.evaluate("document.body.dataset.state") == "empty", path
        assert page.is_visible("#empty") and not page.is_visible("#dashboard")
        assert page.locator(".js-plotly-plot").count() == 0
