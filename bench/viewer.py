"""Replay page benchmark: navigation to the first drawn frame, and the frames endpoint.

    python bench/viewer.py [--runs 15] [--json]

1. Builds a fresh SQLite store in a temporary directory with every sample game and one
   simulated spilop game of exactly 10 rounds (4 players, a spinner), and starts the app
   under waitress in a child process, as in production.
2. With Debian's Chromium (Playwright), opens ``/games/<id>`` of the 10-round game
   ``--runs`` times, each in a fresh browser context (cold cache: the page, its modules,
   its stylesheet and the frames all fetched), then as many reloads in one context (warm
   cache), and as many times a link to round 5, move 10 (a table with tiles to lay out).
   The page marks ``performance.mark("first-frame")`` once the first frame is drawn; the
   figure is that mark's time from the navigation's start. Beside it, in the same run:
   the upload page's load event (a page of the same app with one small module), the
   yardstick for what any page costs here.
3. Times ``GET /api/games/<id>/frames`` for the 10-round game (what the page waits for)
   and for the sample game with the most moves (HTTP, the server as above), the latter
   also gzip-compressed as a browser asks for it (``Accept-Encoding: gzip``: the bytes on
   the wire, and the time to have them and undo the gzip), beside ``GET /api/games/<id>``
   for the latter (the stored answer), and ``recorder.frames.build_frames`` of the latter
   in this process.
4. Prints median and p95 of each, and whether the target holds: first frame within 200 ms.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server import start_server  # noqa: E402

from recorder import ingest, storage  # noqa: E402
from recorder.frames import build_frames  # noqa: E402
from recorder.simulate import simulate_game  # noqa: E402

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update"]
TARGET_MS = 200.0


def ten_round_game() -> dict[str, Any]:
    """The first simulated 4-player spilop game (fixed seeds) that lasts exactly 10 rounds."""
    for n in range(500):
        doc = simulate_game("spilop", 4, f"viewer-bench-{n}", game_id=f"viewer-bench-{n}")
        if len(doc["rounds"]) == 10:
            return doc
    raise RuntimeError("no 10-round game in 500 seeds")


def sample_docs() -> list[dict[str, Any]]:
    out = []
    for path in sorted((ROOT / "sample_games").glob("*.jsonl")):
        out += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return out


def moves_of(doc: dict[str, Any]) -> int:
    return sum(len(r["moves"]) for r in doc["rounds"])


def stats(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return {"median": statistics.median(ordered), "p95": p95, "min": ordered[0],
            "runs": len(ordered)}


def first_frame(page: Any, url: str) -> tuple[float, float]:
    """Navigation start to the first frame drawn, and the drawing part of it (ms)."""
    page.goto(url)
    page.wait_for_selector('#replay[data-ready="true"]')
    loaded, drawn = page.evaluate("""() => ["frames-loaded", "first-frame"].map(
        (name) => performance.getEntriesByName(name)[0].startTime)""")
    tiles = page.locator("#seats .hand .tile").count()
    assert tiles >= 4, "the first frame shows no hand"
    if "#" in url:
        assert page.locator("#board .tile").count() >= 1, "the linked frame shows no tile"
    return float(drawn), float(drawn - loaded)


def load_event(page: Any, url: str) -> float:
    page.goto(url)
    return float(page.evaluate(
        "performance.getEntriesByType('navigation')[0].loadEventEnd"))


def http_ms(url: str, *, packed: bool = False) -> tuple[float, int]:
    """The time to get an answer (and undo its gzip, when asked for one) and its bytes on
    the wire."""
    headers = {"Accept-Encoding": "gzip"} if packed else {}
    start = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers)) as answer:
        body = answer.read()
        assert (answer.headers.get("Content-Encoding") == "gzip") == packed
    wire = len(body)
    if packed:
        body = gzip.decompress(body)
    ms = (time.perf_counter() - start) * 1000
    assert json.loads(body)["ok"] is True
    return ms, wire


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    bench_doc = ten_round_game()
    samples = sample_docs()
    longest = max(samples, key=moves_of)
    results: dict[str, Any] = {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
                   f"Python {platform.python_version()}",
        "game": {"game_id": bench_doc["game_id"], "rounds": len(bench_doc["rounds"]),
                 "moves": moves_of(bench_doc)},
        "longest_sample": {"game_id": longest["game_id"], "rounds": len(longest["rounds"]),
                           "moves": moves_of(longest)},
    }
    with tempfile.TemporaryDirectory(prefix="viewer-bench-") as tmp:
        db_path = Path(tmp) / "recorder.db"
        db = storage.connect(db_path)
        body = "".join(json.dumps(d) + "\n" for d in [bench_doc, *samples]).encode()
        _, outcomes = ingest.import_upload(db, body)
        db.close()
        ids = {o.game_id: o.id for o in outcomes}
        proc, base = start_server(db_path)
        try:
            replay_url = f"{base}/games/{ids[bench_doc['game_id']]}"
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                first_frame(browser.new_page(), replay_url)  # warm the server up
                cold, drawing, linked, upload_cold = [], [], [], []
                for _ in range(args.runs):  # interleaved: all share the machine's noise
                    ctx = browser.new_context()
                    total, draw = first_frame(ctx.new_page(), replay_url)
                    cold.append(total)
                    drawing.append(draw)
                    ctx.close()
                    ctx = browser.new_context()  # a link to a moment with tiles on the table
                    linked.append(first_frame(ctx.new_page(), f"{replay_url}#r5m10")[0])
                    ctx.close()
                    ctx = browser.new_context()
                    upload_cold.append(load_event(ctx.new_page(), f"{base}/upload"))
                    ctx.close()
                ctx = browser.new_context()
                page = ctx.new_page()
                first_frame(page, replay_url)
                warm = [first_frame(page, replay_url)[0] for _ in range(args.runs)]
                ctx.close()
                browser.close()
            pk = ids[longest["game_id"]]
            frames_http, answer_http, bench_http, packed_http = [], [], [], []
            size = answer_size = bench_size = packed_size = 0
            for _ in range(args.runs):
                ms, packed_size = http_ms(f"{base}/api/games/{pk}/frames", packed=True)
                packed_http.append(ms)
                ms, bench_size = http_ms(f"{base}/api/games/{ids[bench_doc['game_id']]}/frames")
                bench_http.append(ms)
                ms, size = http_ms(f"{base}/api/games/{pk}/frames")
                frames_http.append(ms)
                ms, answer_size = http_ms(f"{base}/api/games/{pk}")
                answer_http.append(ms)
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    in_process = []
    for _ in range(args.runs):
        start = time.perf_counter()
        build_frames(longest)
        in_process.append((time.perf_counter() - start) * 1000)

    results["first_frame_cold_ms"] = stats(cold)
    results["drawing_ms"] = stats(drawing)
    results["first_frame_linked_cold_ms"] = stats(linked)
    results["first_frame_warm_ms"] = stats(warm)
    results["upload_page_load_cold_ms"] = stats(upload_cold)
    results["frames_endpoint_ms"] = {**stats(frames_http), "bytes": size}
    results["frames_endpoint_gzip_ms"] = {**stats(packed_http), "bytes": packed_size}
    results["frames_endpoint_10_rounds_ms"] = {**stats(bench_http), "bytes": bench_size}
    results["game_answer_endpoint_ms"] = {**stats(answer_http), "bytes": answer_size}
    results["build_frames_in_process_ms"] = stats(in_process)
    results["target_ms"] = TARGET_MS
    results["target_met"] = results["first_frame_cold_ms"]["median"] <= TARGET_MS
    if args.json:
        print(json.dumps(results, indent=2))
        return
    g, lg = results["game"], results["longest_sample"]
    print(f"machine: {results['machine']}")
    print(f"replay page: {g['game_id']} ({g['rounds']} rounds, {g['moves']} moves), "
          f"{args.runs} runs each")
    print(f"frames: {lg['game_id']} ({lg['rounds']} rounds, {lg['moves']} moves), the "
          "longest sample game")
    print()
    print(f"{'figure':<52} {'median':>9} {'p95':>9}")
    rows = [
        ("navigation -> first frame, cold cache", "first_frame_cold_ms"),
        ("  of which drawing (frames parsed -> frame drawn)", "drawing_ms"),
        ("a link to round 5, move 10 -> that frame, cold cache", "first_frame_linked_cold_ms"),
        ("navigation -> first frame, warm cache", "first_frame_warm_ms"),
        ("upload page, navigation -> load, cold (yardstick)", "upload_page_load_cold_ms"),
        (f"GET frames, the 10-round game ({bench_size:,} bytes)",
         "frames_endpoint_10_rounds_ms"),
        (f"GET frames, the longest sample game ({size:,} bytes)", "frames_endpoint_ms"),
        (f"  the same, gzip ({packed_size:,} bytes on the wire)", "frames_endpoint_gzip_ms"),
        (f"GET the stored answer ({answer_size:,} bytes, yardstick)",
         "game_answer_endpoint_ms"),
        ("build_frames in process", "build_frames_in_process_ms"),
    ]
    for label, key in rows:
        s = results[key]
        print(f"{label:<52} {s['median']:>7.1f}ms {s['p95']:>7.1f}ms")
    met = "met" if results["target_met"] else "NOT met"
    print(f"\ntarget: first frame (cold, median) within {TARGET_MS:.0f} ms: {met}")


if __name__ == "__main__":
    main()
