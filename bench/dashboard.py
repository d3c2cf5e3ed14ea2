"""Statistics dashboards on a large store: every stats JSON URL's p95, and the import's cost.

    python bench/dashboard.py --rounds 1000000            # generate, import once, measure
    python bench/dashboard.py --rounds 1000000 --urls-only

1. Generates games with ``recorder simulate`` (a mix of presets, options and player
   counts; each game gets a ``started_at`` spread over a year and one of a few frontend
   names, so that every filter has something to select) into JSON Lines under
   ``bench/out/``, until the file holds ``--rounds`` rounds. Cached.
2. Imports that file once with ``recorder import`` (the real import path, aggregates
   included) into ``bench/out/dashboard-<rounds>.db``. Cached.
3. Asks every stats JSON URL with several filter combinations through the Flask app
   (``--repeat`` times each) and prints p50/p95/max per URL; the target is p95 <= 100 ms.
4. Imports a slice of the same file (``--import-rounds``) into fresh databases with and
   without the aggregates, interleaved (``--import-repeat`` times each, best kept), and
   prints the rates and the slowdown; the target is at most 20% slower.

Run it with ``nice`` on a shared machine: the first run generates and imports for long.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "bench" / "out"
RECORDER = [sys.executable, "-m", "recorder.cli"]

MIX: tuple[tuple[str, tuple[str, ...], int], ...] = (
    ("classic", (), 2),
    ("classic", (), 3),
    ("classic", (), 4),
    ("classic", ("draw=one",), 2),
    ("classic", ("draw=one",), 3),
    ("classic", ("draw=none",), 2),
    ("classic", ("draw=none",), 4),
    ("spilop", ("bonus=true",), 2),
    ("spilop", ("bonus=true",), 3),
    ("spilop", ("bonus=true",), 4),
    ("spilop", (), 2),
    ("kozel", (), 2),
    ("kozel", ("partnerships=true",), 4),
    ("italian", (), 2),
    ("italian", (), 3),
    ("norwegian", (), 2),
)
"""What the store holds: (preset, options, players), one chunk of games of each in turn."""

FRONTENDS = ("recorder-simulate", "table-app", "web-client")
CHUNK_GAMES = 100
FIRST_DAY = datetime(2025, 12, 1, tzinfo=UTC)


def simulate_chunk(index: int, preset: str, options: tuple[str, ...], players: int
                   ) -> Iterator[dict[str, Any]]:
    """One chunk of games of one mix entry, from ``recorder simulate``."""
    cmd = [*RECORDER, "simulate", "--preset", preset, "--players", str(players),
           "--games", str(CHUNK_GAMES), "--seed", f"dash{index}"]
    for opt in options:
        cmd += ["-o", opt]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, cwd=ROOT) as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            yield json.loads(line)
    if proc.returncode:
        raise SystemExit(f"recorder simulate failed: {' '.join(cmd)}")


def generate(path: Path, rounds: int) -> None:
    """Write games until ``rounds`` rounds, spread over a year and three frontend names."""
    tmp = path.with_suffix(".part")
    total = games = 0
    started = time.perf_counter()
    with tmp.open("w", encoding="utf-8") as out:
        index = 0
        while total < rounds:
            preset, options, players = MIX[index % len(MIX)]
            for doc in simulate_chunk(index, preset, options, players):
                games += 1
                day = FIRST_DAY + timedelta(minutes=(games * 7919) % (365 * 24 * 60))
                doc["started_at"] = day.strftime("%Y-%m-%dT%H:%M:%SZ")
                doc["frontend"] = {"name": FRONTENDS[games % len(FRONTENDS)], "version": "1"}
                out.write(json.dumps(doc, separators=(",", ":")) + "\n")
                total += len(doc["rounds"])
            index += 1
            elapsed = time.perf_counter() - started
            print(f"\rgenerated {games:,} games, {total:,} rounds ({total / elapsed:,.0f}/s)",
                  end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    tmp.replace(path)


def corpus(rounds: int) -> Path:
    path = OUT / f"dashboard-{rounds}.jsonl"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        generate(path, rounds)
    return path


def imported(path: Path, rounds: int) -> Path:
    """The corpus stored by ``recorder import`` (the real path, aggregates included).

    An interrupted import is resumed: the import skips the games already stored (they
    are duplicates), and a batch is all or nothing.
    """
    db = OUT / f"dashboard-{rounds}.db"
    done = db.with_suffix(".done")
    if not done.exists():
        started = time.perf_counter()
        subprocess.run([*RECORDER, "import", "--db", str(db), str(path)], check=True,
                       cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        done.write_text(f"{time.perf_counter() - started:.1f}\n")
    return db


FILTERS: tuple[dict[str, str], ...] = (
    {},
    {"preset": "classic"},
    {"variant": "spilop bonus=true"},
    {"players": "3"},
    {"frontend": "table-app"},
    {"player": "ingaan"},
    {"since": "2026-03-15", "until": "2026-08-20"},
    {"preset": "kozel", "players": "4", "since": "2026-01-01"},
    {"player": "kfnielsen", "until": "2026-06-30", "frontend": "web-client"},
)
URLS = ("/api/stats", "/api/stats/bonus", "/api/stats/blocked", "/api/stats/variants",
        "/api/stats/compare", "/api/stats/players", "/api/stats/players/ingaan",
        "/api/stats/people")
PAGE_PARAMS = {"/api/stats/compare": {"a": "classic", "b": "spilop bonus=true"},
               "/api/stats/people": {"q": "in"}}
"""What an URL needs besides the filters (the two variants compared; the text searched)."""
NO_FILTERS = {"/api/stats", "/api/stats/people"}


YARDSTICK = "/api/games"
"""Measured beside the stats URLs, interleaved: a page of the game list (``limit=1``), what
any small answer of the app costs on the machine at that moment."""


def measure_urls(db: Path, repeat: int) -> list[tuple[str, float, float, float, int]]:
    """(url, p50, p95, max in ms, answers) per URL over every filter, ``repeat`` times.

    The asks go round-robin (every URL and filter once, then again), so that every URL
    shares the same spells of machine noise; the yardstick is asked in every round too.
    """
    from webui import create_app

    app = create_app({"TESTING": True, "DATABASE": str(db)})
    client = app.test_client()
    asks = [(url, {**flt, **PAGE_PARAMS.get(url, {})}) for url in URLS
            for flt in (FILTERS if url not in NO_FILTERS else ({},))
            if not (url.startswith("/api/stats/players/") and "player" in flt)
            and not (url == "/api/stats/compare" and "variant" in flt)]
    asks += [(YARDSTICK, {"limit": "1"})] * len(FILTERS)
    times: dict[str, list[float]] = {}
    for _ in range(repeat):
        for url, flt in asks:
            started = time.perf_counter()
            response = client.get(url, query_string=flt)
            times.setdefault(url, []).append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, (url, flt, response.get_data()[:300])
    out = []
    for url, got in times.items():
        got.sort()
        p95 = got[min(len(got) - 1, round(0.95 * (len(got) - 1)))]
        out.append((url, statistics.median(got), p95, got[-1], len(got)))
    return out


def slice_of(path: Path, rounds: int) -> Path:
    """The first games of the corpus that hold ``rounds`` rounds."""
    part = OUT / f"dashboard-slice-{rounds}.jsonl"
    if not part.exists():
        total = 0
        with path.open(encoding="utf-8") as src, part.open("w", encoding="utf-8") as out:
            for line in src:
                out.write(line)
                total += line.count('"moves":')
                if total >= rounds:
                    break
    return part


def measure_import(part: Path, repeat: int) -> dict[bool, tuple[float, float]]:
    """Best (CPU, wall) rounds/s of an in-process import into a new file, with and without
    the aggregates, interleaved.

    The verdict is on CPU time (``time.process_time``: this process, SQLite included, since
    it runs in process): on a shared machine the wall clock mostly measures the neighbours.
    """
    from recorder import storage
    from recorder.ingest import Importer, iter_sources

    rounds = sum(line.count('"moves":') for line in part.open(encoding="utf-8"))
    best = {True: (0.0, 0.0), False: (0.0, 0.0)}
    with tempfile.TemporaryDirectory(dir=OUT) as tmp:
        for i in range(repeat):
            for aggregates in (False, True):
                db = storage.connect(Path(tmp) / f"import-{i}-{aggregates}.db")
                importer = Importer(db, aggregates=aggregates)
                cpu, wall = time.process_time(), time.perf_counter()
                for _ in importer.run(iter_sources([str(part)])):
                    pass
                cpu_rate = rounds / (time.process_time() - cpu)
                wall_rate = rounds / (time.perf_counter() - wall)
                db.close()
                best[aggregates] = (max(best[aggregates][0], cpu_rate),
                                    max(best[aggregates][1], wall_rate))
                print(f"  import {'with' if aggregates else 'without'} aggregates: "
                      f"{cpu_rate:,.0f} rounds per CPU second, {wall_rate:,.0f} rounds/s",
                      file=sys.stderr)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="asks of each URL and filter")
    parser.add_argument("--import-rounds", type=int, default=20_000)
    parser.add_argument("--import-repeat", type=int, default=3)
    parser.add_argument("--generate-only", action="store_true")
    parser.add_argument("--urls-only", action="store_true")
    parser.add_argument("--import-only", action="store_true",
                        help="only the import's rate with and without the aggregates")
    parser.add_argument("--as-stored", action="store_true",
                        help="measure the store as it is, without finishing its import")
    args = parser.parse_args(argv)
    path = corpus(args.rounds)
    print(f"corpus: {path.name} ({path.stat().st_size / 1e6:,.0f} MB)")
    if args.generate_only:
        return 0
    if args.import_only:
        return compare_imports(path, args)
    db = OUT / f"dashboard-{args.rounds}.db" if args.as_stored else imported(path, args.rounds)
    done = db.with_suffix(".done")
    import sqlite3

    with sqlite3.connect(db) as conn:
        games, rounds = conn.execute("SELECT count(*), sum(rounds_count) FROM games").fetchone()
        moves = conn.execute("SELECT count(*) FROM moves").fetchone()[0]
    took = f"imported in {done.read_text().strip()} s" if done.exists() else "import unfinished"
    print(f"store: {db.name}: {games:,} games, {rounds:,} rounds, {moves:,} moves, "
          f"{db.stat().st_size / 1e9:.2f} GB; {took}")
    figures = measure_urls(db, args.repeat)
    print("\n| URL | asks | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|")
    for url, p50, p95, top, n in figures:
        name = f"`{url}`" + (" (yardstick, `limit=1`)" if url == YARDSTICK else "")
        print(f"| {name} | {n} | {p50:.1f} | {p95:.1f} | {top:.1f} |")
    worst = max(f[2] for f in figures if f[0] != YARDSTICK)
    print(f"\nworst p95: {worst:.1f} ms (target <= 100 ms): "
          f"{'met' if worst <= 100 else 'NOT met'}")
    if args.urls_only:
        return 0
    return compare_imports(path, args)


def compare_imports(path: Path, args: argparse.Namespace) -> int:
    part = slice_of(path, args.import_rounds)
    best = measure_import(part, args.import_repeat)
    (cpu_without, wall_without), (cpu_with, wall_with) = best[False], best[True]
    slower = 1 - cpu_with / cpu_without
    print(f"\nimport of {part.name}, best of {args.import_repeat}:")
    print("| import | rounds per CPU second | rounds/s (wall) |\n|---|---|---|")
    print(f"| without aggregates | {cpu_without:,.0f} | {wall_without:,.0f} |")
    print(f"| with aggregates | {cpu_with:,.0f} | {wall_with:,.0f} |")
    print(f"\nwith aggregates: {slower:.1%} slower in CPU time (target <= 20%): "
          f"{'met' if slower <= 0.2 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
