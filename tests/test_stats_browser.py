"""The statistics dashboards in a real headless Chromium against a real server.

One database is built per module through the real import path: a mix of presets and
player counts, bonus games of two and three players, all-fives games (some decided on the
target), two classic partnership variants, two months of dates, a player whose name is
markup, a player with a long name, a newcomer with one game (too small a sample for any
metric) and a player whose logs carry no date, in several variants. One server runs on that
file for the module; each test reads the charts' plotly data back from the page, to compare
it with what the JSON URL named by the chart's "JSON" link answers, and with counts made
here from the stored rows.
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

DASH = "\N{EN DASH}"
"""Between the ends of an interval, as the pages write it."""
HOSTILE = '<b>Mal</b> <img src=x onerror="window.__owned=1"> & "co"'
LONG = "Maximiliana Wolkenstein-Oberhausen von Trapp zu Sankt Johann"
SIZES = {"wide": (1366, 800), "phone": (390, 844)}
HISTORIAN = "historian"
"""A player whose logs carry no date: their games are stored in one second."""


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
    docs += [make_game(f"duel-{i}", ruleset={"preset": "spilop", "options": {"bonus": True}},
                       players=2, started_at=f"2026-10-{10 + i:02d}T18:00:00Z")
             for i in range(4)]
    docs += [make_game(f"fives-{i}", ruleset="all-fives", players=2,
                       started_at=f"2026-11-{2 + i:02d}T09:00:00Z") for i in range(8)]
    for options in ({"partnerships": True}, {"partnerships": True, "max_pip": 9}):
        docs += [make_game(f"teams-{len(docs)}-{i}", ruleset={"preset": "classic",
                                                            "options": options},
                           players=4, started_at=f"2026-11-2{i}T20:00:00Z") for i in range(2)]
    docs[-1]["players"][2] = {"id": "maximiliana", "name": LONG}
    docs[-1]["game_id"] = "long-3"
    for i, ruleset in enumerate(["kozel", "kozel", {"preset": "spilop",
                                                    "options": {"target": 500}},
                                 "kozel", "classic", "classic"]):
        doc = make_game(f"undated-{i}", ruleset=ruleset, players=2 + (i < 2))
        doc["players"][0] = {"id": HISTORIAN, "name": "Historian"}
        docs.append(doc)
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

    def layout(self, figure: str) -> dict[str, Any]:
        """A chart's layout as plotly holds it (its shapes and axes)."""
        return self.page.evaluate(
            """(id) => {
                const plot = document.querySelector(`#${id} .js-plotly-plot`);
                return plot ? JSON.parse(JSON.stringify(plot.layout)) : null;
            }""", figure)

    def errors_of(self, figure: str) -> list[dict[str, Any]]:
        """Each trace's error bars (the intervals drawn)."""
        return self.page.evaluate(
            """(id) => {
                const plot = document.querySelector(`#${id} .js-plotly-plot`);
                return plot.data.map((t) => ({x: t.error_x ?? null, y: t.error_y ?? null}));
            }""", figure)

    def goto(self, url: str) -> Any:
        """A page the server renders whole (the games list): loaded, no script to wait for."""
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        return self.page

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

    heat, thin = w.traces("chart-rules")
    assert heat["type"] == thin["type"] == "heatmap"
    # the coloured cells are the rows with enough rounds; the others are drawn grey, apart
    drawn = sorted(v for row in heat["z"] for v in row if v is not None)
    assert drawn == pytest.approx(sorted(r["share"] for r in data["by_rules"]
                                         if not r["thin"]))
    assert sum(v is not None for row in thin["z"] for v in row) == sum(
        r["thin"] for r in data["by_rules"]) > 0
    share = w.traces("chart-time")[1]
    db = storage.connect(stats_db)
    months = [r[0] for r in db.execute(
        "SELECT DISTINCT substr(played_at, 1, 7) FROM games ORDER BY 1")]
    db.close()
    # the undated games count on the day they were stored
    assert share["x"] == [r["period"] for r in data["over_time"]] == months
    assert months[:2] == ["2026-10", "2026-11"]
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
    assert w.traces("chart-time")[1]["x"] == months[1:]


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
    assert win.get_attribute("title") == f"{definitions['win_rate']} Higher is better."

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
        # where the player stands, in words that say which way is good
        standing = card.locator(".metric-percentile").inner_text()
        if mine["better"]:
            assert standing.startswith(f"better than {round(mine['better_than'])}% of ")
        else:
            assert standing.startswith(f"higher than {round(mine['percentile'])}% of ")
        better = {"higher": "Higher is better.", "lower": "Lower is better.",
                  None: "Neither higher nor lower is better."}[mine["better"]]
        assert card.locator(".metric-better").inner_text() == better
    assert shown >= 3

    # one history chart per variant, each with that variant's games
    variants = [v["variant"] for v in data["history_variants"]][:6]
    for i, variant in enumerate(variants):
        (history,) = w.traces(f"chart-history-{i}")
        games = [g for g in data["score_history"] if g["variant"] == variant]
        assert history["y"] == [g["score"] for g in games]
        assert history["x"] == [g["sequence"] for g in games]
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


def sql(stats_db: Path, query: str, *params: Any) -> list[tuple[Any, ...]]:
    db = storage.connect(stats_db)
    try:
        return db.execute(query, list(params)).fetchall()
    finally:
        db.close()


def bonus_variants(stats_db: Path) -> list[str]:
    """The stored variants whose rules have a bonus, read from each game's own ruleset."""
    from recorder.rules import Ruleset

    return sorted({v for v, ruleset in sql(stats_db, "SELECT variant, ruleset FROM games")
                   if Ruleset.from_spec(json.loads(ruleset)).bonus})


def test_the_bonus_figures_count_only_the_variants_with_a_bonus_rule(
    watch: Any, site: str, stats_db: Path,
) -> None:
    """2.8% of plays scored a bonus, where the bonus variants score a quarter: no more."""
    w = watch()
    page = w.open(f"{site}/stats/bonus")
    data = api(f"{site}/api/stats/bonus")[1]["data"]
    with_bonus = bonus_variants(stats_db)
    assert with_bonus == ["all-fives", "spilop bonus=true"]
    marks = ", ".join("?" for _ in with_bonus)
    plays, scored = sql(stats_db, "SELECT count(*), sum(m.score > 0) FROM moves m JOIN games g "
                        f"ON g.id = m.game WHERE m.action = 'play' AND g.variant IN ({marks})",
                        *with_bonus)[0]
    every = sql(stats_db, "SELECT count(*) FROM moves WHERE action = 'play'")[0][0]
    assert (data["plays"], data["bonus_plays"], data["all_plays"]) == (plays, scored, every)
    assert data["share"] == pytest.approx(scored / plays) and plays < every
    # the headline says it, with its interval and what it counted over
    headline = page.inner_text("#share")
    assert f"{scored / plays * 100:.1f}%" in headline
    assert f"95% CI {data['low'] * 100:.1f}% {DASH} {data['high'] * 100:.1f}%" in headline
    note = page.inner_text("#scope-note")
    assert f"Counted over {plays:,} plays of the 2 variants with a bonus rule" in note
    assert f"Left out: {every - plays:,} plays of" in note
    # no bar for a variant that cannot score a bonus; every bar has its interval
    bars = w.traces("chart-variant")[0]
    assert bars["y"] == [r["label"] for r in reversed(data["by_variant"])] == [
        "spilop (bonus: true)", "all-fives"]
    (errors,) = w.errors_of("chart-variant")
    assert errors["x"]["array"] == pytest.approx([r["high"] - r["share"]
                                                 for r in reversed(data["by_variant"])])
    assert w.traces("chart-players")[0]["x"] == ["2 players", "3 players"]
    assert all(r["share"] > 0.05 for r in data["by_players"])


def test_a_filter_that_leaves_no_bonus_rule_says_why(watch: Any, site: str) -> None:
    w = watch()
    page = w.open(f"{site}/stats/bonus?preset=classic")
    assert page.evaluate("document.body.dataset.state") == "empty"
    text = page.inner_text("#empty")
    assert "Nothing to count under these filters." in text
    assert "classic has no bonus rule in any of its" in text
    assert "No games match" not in text
    assert page.locator(".js-plotly-plot").count() == 0
    # and where to look instead: the variants that have one, with the other filters kept
    links = page.locator("#empty-reason a")
    assert [links.nth(i).inner_text() for i in range(links.count())] == [
        "all-fives", "spilop (bonus: true)"]
    links.nth(1).click()
    w.settled()
    assert page.url.endswith("/stats/bonus?variant=spilop+bonus%3Dtrue")
    assert page.evaluate("document.body.dataset.state") == "ready"
    # the overview's card says it too, instead of 0.0%
    page = w.open(f"{site}/stats?preset=kozel")
    page.wait_for_function(
        "() => document.querySelector('[data-card=bonus] .card-detail').textContent !== ''")
    assert "kozel has no bonus rule" in page.inner_text("[data-card='bonus']")


def test_the_score_history_is_in_the_order_played_one_chart_a_variant(
    watch: Any, site: str, stats_db: Path,
) -> None:
    """Logs without a date are all stored in the same second: ordered by time they were one
    vertical line. Here each game has its place in the player's history, and each variant
    its own chart and target (kozel's is one to avoid)."""
    w = watch()
    page = w.open(f"{site}/stats/players/{HISTORIAN}")
    data = api(f"{site}/api/stats/players/{HISTORIAN}")[1]["data"]
    history = data["score_history"]
    stored = [pk for (pk,) in sql(stats_db, "SELECT p.game FROM players p WHERE p.player_id = ? "
                                  "ORDER BY p.game", HISTORIAN)]
    assert [g["game"] for g in history] == stored  # undated: in the order stored
    assert [g["sequence"] for g in history] == list(range(1, len(stored) + 1))
    assert not any(g["dated"] for g in history)
    variants = data["history_variants"]
    assert [(v["variant"], v["games"]) for v in variants] == [
        ("kozel", 3), ("classic", 2), ("spilop target=500", 1)]
    charts = page.locator("#history-charts figure.chart")
    assert charts.count() == 3
    for i, v in enumerate(variants):
        (trace,) = w.traces(f"chart-history-{i}")
        games = [g for g in history if g["variant"] == v["variant"]]
        assert trace["x"] == [g["sequence"] for g in games]  # numbers, not dates
        assert trace["y"] == [g["score"] for g in games]
        shapes = w.layout(f"chart-history-{i}")["shapes"]
        assert [s["y0"] for s in shapes] == [v["target"]]
        assert w.layout(f"chart-history-{i}")["xaxis"]["range"] == [0, len(history) + 1]
    assert "Target 101: reaching it loses" in charts.nth(0).inner_text()
    assert "Target 500: reaching it wins" in charts.nth(2).inner_text()
    # the hover says there was no date, rather than inventing one
    (trace,) = w.traces("chart-history-0")
    assert trace["customdata"][0][3].startswith("no date in the log")


def test_every_rate_shows_its_interval_and_thin_heatmap_cells_are_grey(
    watch: Any, site: str, stats_db: Path,
) -> None:
    w = watch()
    page = w.open(f"{site}/stats/blocked")
    data = api(f"{site}/api/stats/blocked")[1]["data"]
    assert f"95% CI {data['low'] * 100:.1f}% {DASH} {data['high'] * 100:.1f}%" in \
        page.inner_text("#share")
    heat, thin = w.traces("chart-rules")
    # variants of one preset are rows of their own
    labels = set(heat["y"])
    assert {"classic", "classic (partnerships: true)",
            "classic (max_pip: 9, partnerships: true)"} <= labels
    for row in data["by_rules"]:
        i, j = heat["y"].index(row["label"]), heat["x"].index(f"{row['players']} players")
        rounds = sql(stats_db, "SELECT sum(rounds_count) FROM games WHERE variant = ? AND "
                     "player_count = ?", row["variant"], row["players"])[0][0]
        assert row["rounds"] == rounds and row["thin"] == (rounds < data["min_sample"])
        # a cell of few rounds is not coloured by its share: it is grey, and says "few"
        if row["thin"]:
            assert heat["z"][i][j] is None and thin["z"][i][j] == 0
        else:
            assert heat["z"][i][j] == pytest.approx(row["share"]) and thin["z"][i][j] is None
    assert "fewer than 30 rounds" in page.inner_text("#chart-rules .chart-thin")
    (_, line) = w.errors_of("chart-time")
    assert line["y"]["array"] == pytest.approx([r["high"] - r["share"]
                                               for r in data["over_time"]])


def test_a_chart_bar_or_cell_opens_the_games_behind_it(
    watch: Any, site: str, stats_db: Path,
) -> None:
    w = watch()
    page = w.open(f"{site}/stats/bonus?since=2026-10-01")
    data = api(f"{site}/api/stats/bonus?since=2026-10-01")[1]["data"]
    bars = page.locator("#chart-variant .point path")
    assert bars.count() == len(data["by_variant"])
    # plotly's drag layer takes the pointer: a click where the bar is drawn, as a hand would
    bars.first.scroll_into_view_if_needed()
    box = bars.first.bounding_box()  # drawn bottom-up: the last row of the JSON
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.wait_for_url("**/games?**")
    row = data["by_variant"][-1]
    assert page.url.endswith(row["games_url"])
    want = sql(stats_db, "SELECT count(*) FROM games WHERE variant = ? AND played_at >= ?",
               row["variant"], "2026-10-01T00:00:00Z")[0][0]
    assert page.inner_text("#list-total").startswith(f"{want} game")
    assert page.locator("table.game-list tbody tr").count() == min(want, 50)

    page = w.open(f"{site}/stats/blocked?players=4")
    data = api(f"{site}/api/stats/blocked?players=4")[1]["data"]
    cell = next(r for r in data["by_rules"] if not r["thin"] and r["blocked"])
    heat = w.traces("chart-rules")[0]
    y = heat["y"].index(cell["label"])
    # click the middle of that cell
    page.locator("#chart-rules .nsewdrag").scroll_into_view_if_needed()
    box = page.locator("#chart-rules .nsewdrag").bounding_box()
    rows, cols = len(heat["y"]), len(heat["x"])
    at = (box["x"] + box["width"] * (heat["x"].index("4 players") + 0.5) / cols,
          box["y"] + box["height"] * (rows - y - 0.5) / rows)
    page.mouse.move(*at)
    page.mouse.click(*at)
    page.wait_for_url("**/games?**")
    assert page.url.endswith(cell["games_url"])
    want = sql(stats_db, "SELECT count(*) FROM games WHERE variant = ? AND player_count = 4 "
               "AND blocked_rounds > 0", cell["variant"])[0][0]
    assert page.inner_text("#list-total").startswith(f"{want} game")


def test_the_pages_link_to_each_other(watch: Any, site: str, stats_db: Path) -> None:
    w = watch()
    # the games list names players as links to their statistics
    game_id = "long-3"
    page = w.goto(f"{site}/games?q={game_id}")
    assert page.locator("table.game-list tbody tr").count() == 1  # found by its game_id
    link = page.locator("td.players a.player", has_text="Maximiliana")
    assert link.inner_text() == LONG
    link.click()
    w.settled()
    assert page.url.endswith("/stats/players/maximiliana")
    assert page.inner_text("#player-name") == LONG
    data = api(f"{site}/api/stats/players/maximiliana")[1]["data"]
    # the recent games are named as the list names them
    assert page.locator("#recent-games a.replay-link").first.inner_text() == game_id
    # the player page opens all their games in the list
    page.click("#all-games")
    page.wait_for_url("**/games?player=maximiliana")
    games = sql(stats_db, "SELECT count(*) FROM players WHERE player_id = 'maximiliana'")[0][0]
    assert data["player"]["games"] == games
    assert page.inner_text("#list-total").startswith(
        f"{games} game{'s' if games > 1 else ''} match")
    assert LONG in page.inner_text(".f-scope")
    # a variant is a filter of the list
    page = w.goto(f"{site}/games?variant=classic+max_pip%3D9+partnerships%3Dtrue")
    subs = page.locator("td.game .sub").all_inner_texts()
    assert subs and all(t.startswith("classic (max_pip: 9, partnerships: true)") for t in subs)


def test_the_player_field_finds_a_player_by_name(watch: Any, site: str) -> None:
    w = watch()
    page = w.open(f"{site}/stats/blocked")
    field = page.locator("input[name=player]")
    field.fill("Histo")
    page.wait_for_function(
        "() => document.querySelectorAll('#player-choices option').length > 0")
    options = page.eval_on_selector_all("#player-choices option",
                                        "os => os.map(o => [o.value, o.label])")
    assert options[0][0] == HISTORIAN and options[0][1].startswith("Historian · 6 games")
    # a whole name, typed and sent, is taken as that player's id
    field.fill("historian")
    field.fill("Historian")
    field.press("Enter")
    page.wait_for_selector(f"body[data-rendered='/api/stats/blocked?player={HISTORIAN}']",
                           state="attached")
    assert page.url.endswith(f"/stats/blocked?player={HISTORIAN}")
    assert field.input_value() == HISTORIAN


def test_the_games_list_says_filters_only_when_there_are_some(
    watch: Any, site: str, stats_db: Path,
) -> None:
    w = watch()
    total = sql(stats_db, "SELECT count(*) FROM games")[0][0]
    page = w.goto(f"{site}/games")
    assert page.inner_text("#list-total").startswith(f"{total} games stored.")
    page = w.goto(f"{site}/games?sort=moves&order=asc")
    assert page.inner_text("#list-total").startswith(f"{total} games stored.")
    page = w.goto(f"{site}/games?rule=bonus")
    with_bonus = bonus_variants(stats_db)
    want = sql(stats_db, f"SELECT count(*) FROM games WHERE variant IN "
               f"({', '.join('?' for _ in with_bonus)})", *with_bonus)[0][0]
    assert page.inner_text("#list-total").startswith(f"{want} games match these filters.")
    assert "variants with a bonus" in page.inner_text(".f-scope")


def test_long_names_wrap_between_words_and_tables_stay_in_their_cards(
    watch: Any, site: str,
) -> None:
    """No word of a long name is split across lines (a line may end at a space or after a
    hyphen, as text does), and no table makes the page wider than the screen (a wide table
    scrolls inside its card)."""
    words_split = """(selector) => {
        const out = [];
        for (const node of document.querySelectorAll(selector)) {
            const text = node.firstChild;
            if (!text || text.nodeType !== 3) continue;
            let at = 0;
            for (const word of text.textContent.split(/(?<=-)|\\s/)) {
                const range = document.createRange();
                range.setStart(text, at);
                range.setEnd(text, at + word.length);
                const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                if (lines.size > 1) out.push(word);
                const next = text.textContent[at + word.length] ?? "";
                at += word.length + (/\\s/.test(next) ? 1 : 0);
            }
        }
        return out;
    }"""
    for size, (width, _) in SIZES.items():
        w = watch(size)
        page = w.goto(f"{site}/games?q=Maximiliana")
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert page.evaluate(words_split, "td.players a.player") == [], size
        for path in ("/stats/players/maximiliana", "/stats/players", "/stats/variants",
                     "/stats/compare?a=classic&b=kozel", "/stats/blocked"):
            page = w.open(site + path)
            assert page.evaluate("document.documentElement.scrollWidth") <= width, (path, size)
        page = w.open(f"{site}/stats/players/maximiliana")
        assert page.evaluate(words_split, "#player-name") == [], size


def test_the_compare_page_shows_the_numbers_of_its_json(watch: Any, site: str) -> None:
    w = watch()
    page = w.open(f"{site}/stats/compare?a=all-fives&b=classic")
    url = "/api/stats/compare?a=all-fives&b=classic"
    assert rendered_url(page) == url
    data = api(site + url)[1]["data"]
    rows = page.locator("#compare tbody tr")
    assert rows.count() == len(data["rows"])
    for i, row in enumerate(data["rows"]):
        tr = rows.nth(i)
        assert tr.get_attribute("data-key") == row["key"]
        assert tr.locator(".figure-label").get_attribute("title") == row["definition"]
        for side in ("a", "b"):
            cell = tr.locator(f"td.side-{side}")
            if row[side]["value"] is None:
                assert cell.get_attribute("data-value") is None
            else:
                assert float(cell.get_attribute("data-value")) == pytest.approx(
                    row[side]["value"])
                assert cell.locator(".ci").inner_text() != ""
        diff = tr.locator("td.difference").get_attribute("data-value")
        assert (diff == "") == (row["difference"]["value"] is None)
        if diff:
            assert float(diff) == pytest.approx(row["difference"]["value"])
        assert tr.locator("td.sentence").inner_text() == row["sentence"]
        assert ("clear" in tr.get_attribute("class").split()) == row["significant"]
    rows_by_key = {r["key"]: r for r in data["rows"]}
    assert rows_by_key["bonus_share"]["sentence"] == "classic has no bonus rule."
    assert rows_by_key["target_share"]["a"]["value"] is not None
    # the distributions, as shares, one trace a variant
    a, b = w.traces("chart-round-moves")
    for trace, side in ((a, "all-fives"), (b, "classic")):
        dist = data["distributions"]["round_moves"][side]
        assert trace["x"] == [d["value"] for d in dist]
        assert trace["y"] == approx([d["share"] for d in dist])
    # round wins by turn, with the even share drawn
    (a, b) = w.traces("chart-turns-2")
    turns = [s for s in data["a"]["seats"] if s["players"] == 2 and s["kind"] == "turn"]
    assert a["y"] == approx([s["round_wins"]["value"] for s in turns])
    assert w.layout("chart-turns-2")["shapes"][0]["y0"] == pytest.approx(0.5)
    # another pair, from the form: the address and the numbers follow
    page.select_option("#compare-form select[name=b]", "kozel")
    page.click("#compare-form button")
    page.wait_for_selector("body[data-rendered='/api/stats/compare?a=all-fives&b=kozel']",
                           state="attached")
    assert page.url.endswith("/stats/compare?a=all-fives&b=kozel")
    assert page.inner_text("#compare thead .side-b") == "B: kozel"


def test_the_variants_page_draws_its_json_and_opens_a_comparison(
    watch: Any, site: str,
) -> None:
    w = watch()
    page = w.open(f"{site}/stats/variants")
    data = api(f"{site}/api/stats/variants")[1]["data"]
    rows = sorted(data["variants"], key=lambda r: r["label"])
    domino, blocked, target = w.traces("chart-ends")
    assert blocked["x"] == approx([r["figures"]["blocked_share"]["value"] or 0
                                   for r in reversed(rows)])
    assert domino["y"] == [r["label"] for r in reversed(rows)]
    assert domino["x"] == approx([r["figures"]["domino_share"]["value"] or 0
                                  for r in reversed(rows)])
    assert target["x"] == approx([r["figures"]["target_share"]["value"] or 0
                                  for r in reversed(rows)])
    assert page.locator("#variants tbody tr").count() == len(rows)
    first = w.traces("chart-first")
    shown = [r for r in rows if r["figures"]["first_round_wins"]["value"] is not None]
    assert first[0]["x"] == approx([r["figures"]["first_round_wins"]["value"]
                                    for r in reversed(shown)])
    assert first[1]["x"] == approx([r["figures"]["first_round_wins"]["even"]
                                    for r in reversed(shown)])
    page.select_option("#compare-form select[name=a]", "kozel")
    page.select_option("#compare-form select[name=b]", "classic")
    page.click("#compare-form button")
    page.wait_for_url("**/stats/compare?a=kozel&b=classic")
    w.settled()
    assert rendered_url(page) == "/api/stats/compare?a=kozel&b=classic"


def test_intervals_are_written_out_where_there_is_no_hover(watch: Any, site: str) -> None:
    w = watch("phone")
    page = w.open(f"{site}/stats/players")
    data = api(f"{site}/api/stats/players")[1]["data"]
    regular = data["players"][0]
    win = regular["metrics"]["win_rate"]
    cell = page.locator(f"#players-table tr[data-player='{regular['id']}'] td").nth(2)
    assert cell.locator(".ci").is_visible()
    assert cell.locator(".ci").inner_text() == \
        f"{win['low'] * 100:.1f}%{DASH}{win['high'] * 100:.1f}%"
    assert "Hover" not in page.inner_text("main .hint")
    page = w.open(f"{site}/stats/players/{regular['id']}")
    card = page.locator("#metrics figure.metric:not(.thin)").first
    assert "95% CI" in card.locator(".metric-detail").inner_text()
    assert card.locator(".metric-detail").is_visible()


def test_the_player_is_compared_within_one_variant_and_broken_down_by_variant(
    watch: Any, site: str,
) -> None:
    w = watch()
    listing = api(f"{site}/api/stats/players")[1]["data"]
    regular = listing["players"][0]["id"]
    page = w.open(f"{site}/stats/players/{regular}")
    data = api(f"{site}/api/stats/players/{regular}")[1]["data"]
    within = data["comparison"]
    assert within["chosen"] == "most games"
    note = page.inner_text("#comparison-note")
    assert f"{within['label']}, {within['players']} players" in note
    rows = page.locator("#breakdown tbody tr")
    assert rows.count() == len(data["breakdown"])
    for i, r in enumerate(data["breakdown"]):
        tr = rows.nth(i)
        assert tr.get_attribute("data-variant") == r["variant"]
        assert tr.locator("a.games-link").get_attribute("href") == r["games_url"]
        value = r["metrics"]["win_rate"]["value"]
        shown = tr.locator("td").nth(2).get_attribute("data-value")
        assert (shown is None) == (value is None)
    # a row's "compare" compares within it
    other = page.locator("#breakdown a.compare-within").first
    target = data["breakdown"][1]
    other.click()
    w.settled()
    again = api(site + rendered_url(page))[1]["data"]
    assert (again["comparison"]["variant"], again["comparison"]["players"]) == (
        target["variant"], target["players"])
    assert again["comparison"]["chosen"] == "filters"


def test_every_page_reads_at_both_sizes(
    watch: Any, site: str, tmp_path: Path,
) -> None:
    """Screenshots at 1366x800 and 390x844; nothing wider than the screen."""
    pages = {"overview": "/stats", "bonus": "/stats/bonus", "blocked": "/stats/blocked",
             "players": "/stats/players", "player": "/stats/players/newcomer",
             "empty": "/stats/bonus?players=8", "no-bonus": "/stats/bonus?preset=classic",
             "variants": "/stats/variants", "compare": "/stats/compare?a=all-fives&b=classic",
             "compare-none": "/stats/compare", "historian": f"/stats/players/{HISTORIAN}"}
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
        for name, path in {"games": "/games", "games-of": f"/games?player={HISTORIAN}",
                           "games-long": "/games?q=Maximiliana"}.items():
            page = w.goto(site + path)
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
    for path in ("/stats", "/stats/bonus", "/stats/blocked", "/stats/variants",
                 "/stats/players"):
        page = w.open(url + path)
        assert page.evaluate("document.body.dataset.state") == "empty", path
        assert page.is_visible("#empty") and not page.is_visible("#dashboard")
        assert page.locator(".js-plotly-plot").count() == 0
