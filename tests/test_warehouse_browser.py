"""The statistics pages drawn from a warehouse, in a real headless Chromium.

``recorder serve --warehouse DIR`` runs as a real process on a store of the sample games
and the folder ``recorder export --parquet`` made of it; then games are imported into the
store alone, so that the store and the folder differ: the pages must draw the folder's
figures (the games list stays the store's). Every stats page loads with no script error
and draws what the warehouse's JSON answers.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("duckdb")

from click.testing import CliRunner
from conftest import free_port, make_game, subprocess_env, wait_for_port, write_jsonl

from recorder.cli import main

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
PAGES = ("/stats/bonus", "/stats/blocked", "/stats/variants", "/stats/players",
         "/stats/players/ingaan", "/stats/compare?a=classic&b=classic+draw%3Done")
"""Every stats page that draws from a JSON answer."""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("warehouse-site")
    db = folder / "recorder.db"
    for args in (["import", "--db", str(db), str(ROOT / "sample_games")],
                 ["export", "--parquet", str(folder / "facts"), "--db", str(db)]):
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
    later = [make_game(f"later-{i}", ruleset="classic", players=2,
                       started_at="2026-11-20T10:00:00Z") for i in range(5)]
    result = CliRunner().invoke(main, ["import", "--db", str(db),
                                       str(write_jsonl(folder / "later.jsonl", later))])
    assert result.exit_code == 0, result.output
    port = free_port()
    log = open(folder / "server.log", "wb")  # noqa: SIM115 (closed by the child)
    proc = subprocess.Popen(
        [sys.executable, "-m", "recorder.cli", "serve", "--db", str(db), "--port", str(port),
         "--warehouse", str(folder / "facts")],
        cwd=folder, env=subprocess_env(RECORDER_RATELIMIT_ENABLED="0"), stdout=log,
        stderr=log)
    log.close()
    try:
        wait_for_port(port, proc)
        yield {"url": f"http://127.0.0.1:{port}", "db": db, "later": later,
               "log": folder / "server.log"}
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def api(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url) as answer:
        data: dict[str, Any] = json.load(answer)["data"]
        return data


def test_the_stats_pages_draw_the_warehouse_and_the_games_list_the_store(
        browser: Any, site: dict[str, Any]) -> None:
    import sqlite3

    base = site["url"]
    with sqlite3.connect(site["db"]) as conn:
        stored = conn.execute("SELECT count(*) FROM rounds").fetchone()[0]
    blocked = api(f"{base}/api/stats/blocked")
    later = sum(len(d["rounds"]) for d in site["later"])
    assert blocked["rounds"] == stored - later > 0  # the folder's rounds, not the store's
    assert "statistics from the warehouse" in site["log"].read_text()

    context = browser.new_context(viewport={"width": 1366, "height": 800})
    errors: list[str] = []
    page = context.new_page()
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("console", lambda m: errors.append(f"console: {m.text}")
            if m.type == "error" and not (m.location or {}).get("url", "").endswith(
                "/favicon.ico") else None)
    try:
        for url in PAGES:
            page.goto(base + url)
            page.wait_for_selector("body[data-rendered]", state="attached", timeout=30_000)
            assert page.evaluate("document.body.dataset.rendered").startswith("/api/stats"), url
        page.goto(f"{base}/stats/blocked")
        page.wait_for_selector("body[data-rendered]", state="attached")
        shown = page.inner_text("#share")
        assert f"{blocked['blocked']:,} of {blocked['rounds']:,} rounds" in shown
        page.goto(f"{base}/games?q=later-")
        page.wait_for_load_state("load")
        assert "later-0" in page.inner_text("body")  # the list is the store's
    finally:
        context.close()
    assert errors == []
