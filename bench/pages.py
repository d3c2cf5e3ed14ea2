"""How long the statistics pages take to draw in a real browser, and what plotly.js weighs.

Starts the app under waitress on a database (``--db``; by default a fresh one filled with
``--games`` simulated games through the real import path), opens every stats page in
headless Chromium at a laptop's and a phone's size, and prints the median time from
navigation to the last chart drawn, with plotly.js already in the browser's cache (the
usual visit) and on a first visit (cache empty), next to each other.

    python bench/pages.py                       # 300 simulated games
    python bench/pages.py --db instance/recorder.db --runs 5
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import tempfile
import urllib.parse
import urllib.request
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server import start_server  # noqa: E402

from recorder import ingest, storage  # noqa: E402
from recorder.simulate import simulate_game  # noqa: E402

PAGES = ("/stats", "/stats/bonus", "/stats/blocked", "/stats/players")
SIZES = {"1280x800": (1280, 800), "390x844": (390, 844)}
DRAWN = "body[data-rendered], body[data-state='empty'], body[data-state='error']"


def fill(db_path: Path, games: int) -> None:
    """Simulated games of several presets and player counts, imported as the CLI does."""
    specs = [("spilop", {"bonus": True}, 3), ("classic", {"draw": "one"}, 3), ("classic", {}, 2),
             ("kozel", {}, 4), ("italian", {}, 2), ("spilop", {}, 2)]
    docs = []
    for i in range(games):
        preset, options, n = specs[i % len(specs)]
        doc = simulate_game({"preset": preset, "options": options}, n, f"pages-{i}",
                            game_id=f"pages-{i}")
        doc["started_at"] = f"2026-{6 + i % 6:02d}-{1 + i % 28:02d}T12:00:00Z"
        docs.append(doc)
    source = db_path.with_suffix(".jsonl")
    source.write_text("".join(json.dumps(d) + "\n" for d in docs))
    db = storage.connect(db_path)
    _importer, outcomes = ingest.import_paths(db, [str(source)])
    assert all(o.status == "accepted" for o in outcomes)
    db.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", type=Path, help="an existing database (default: a fresh one)")
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        db_path = args.db
        if db_path is None:
            db_path = Path(tmp) / "pages.db"
            fill(db_path, args.games)
        plotly = (resources.files("plotly") / "package_data" / "plotly.min.js").read_bytes()
        print(f"plotly.js: {len(plotly):,} bytes, {len(gzip.compress(plotly, 6)):,} gzipped")
        proc, url = start_server(db_path)
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                            args=["--headless", "--no-sandbox", "--disable-gpu"])
                with urllib.request.urlopen(f"{url}/api/stats/players") as answer:
                    player = json.load(answer)["data"]["players"][0]["id"]
                pages = [*PAGES, f"/stats/players/{urllib.parse.quote(player, safe='')}"]
                print(f"{'page':<28} {'size':<9} {'cached ms':>10} {'first visit ms':>15}")
                for size, (w, h) in SIZES.items():
                    for path in pages:
                        cached, cold = [], []
                        for _ in range(args.runs):
                            fresh = browser.new_context(viewport={"width": w, "height": h})
                            page = fresh.new_page()
                            for sink in (cold, cached):  # first visit, then the same again
                                page.goto(url + path)
                                page.wait_for_selector(DRAWN, state="attached")
                                sink.append(page.evaluate("performance.now()"))
                            fresh.close()
                        print(f"{path[:28]:<28} {size:<9} {statistics.median(cached):>10.0f} "
                              f"{statistics.median(cold):>15.0f}")
                browser.close()
        finally:
            proc.terminate()
            proc.wait()


if __name__ == "__main__":
    main()
