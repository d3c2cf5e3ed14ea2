"""Load benchmark: the production server under concurrent uploaders and readers.

    python bench/load.py --uploaders 16 --readers 16 --seconds 30 [--threads 8] [--json]

1. Starts the production server, ``waitress-serve --call webui:create_app``, in a child
   process on the loopback address (a free port) with a new database in a temporary
   folder, and makes an upload token.
2. Runs ``--uploaders`` and ``--readers`` client threads at once for ``--seconds``
   (bounded: each client stops at the deadline, and the whole run is killed after twice
   that). Uploaders send bodies of 1 to 4 games (JSON Lines), each game its own
   ``game_id``; one body in eight re-sends games another uploader sends too, so that
   duplicates race. Readers page through ``GET /api/games``, fetch single games, and
   stream a filtered export.
3. Checks what the server stored: every game answered ``accepted`` is stored exactly
   once, no game is lost or duplicated, ``PRAGMA integrity_check`` is ok, and no answer
   was a 5xx. Prints requests per second and the p50/p95/max latency of each kind.

It is also the engine of ``tests/test_load.py``, which runs it for a few seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from server import start_server  # noqa: E402

POOL = 40
"""Distinct simulated games; each upload sends one under a new game_id (a new game)."""


@dataclass
class Tally:
    """What the clients saw; shared by the threads, guarded by ``lock``."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    sent: set[str] = field(default_factory=set)
    accepted: Counter[str] = field(default_factory=Counter)
    duplicate: int = 0

    def record(self, kind: str, seconds: float, status: int) -> None:
        with self.lock:
            self.latencies[kind].append(seconds)
            self.statuses[status] += 1


def request(tally: Tally, kind: str, url: str, *, data: bytes | None = None,
            token: str | None = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    req = urllib.request.Request(url, data=data, headers=headers,
                                 method="POST" if data is not None else "GET")
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(req, timeout=60) as response:
            body = response.read()
            status = response.status
    except urllib.error.HTTPError as exc:
        body, status = exc.read(), exc.code
    except OSError as exc:  # refused, reset, timed out: counted as a failed request
        with tally.lock:
            tally.errors.append(f"{kind}: {exc}")
        return 0, b""
    tally.record(kind, time.perf_counter() - started, status)
    if status >= 500:
        with tally.lock:
            tally.errors.append(f"{kind}: {status} {body[:200]!r}")
    return status, body


def uploader(n: int, url: str, token: str, pool: list[str], until: float,
             tally: Tally, rng: random.Random) -> None:
    i = 0
    while time.monotonic() < until:
        lines = []
        for _ in range(rng.randint(1, 4)):
            i += 1
            game_id = f"load-{n}-{i}"
            if rng.random() < 0.125:  # a game another uploader sends as well
                game_id = f"shared-{rng.randint(1, 50)}"
            doc = json.loads(pool[rng.randrange(len(pool))])
            doc["game_id"] = game_id
            doc["frontend"] = {"name": "load"}
            if game_id.startswith("shared-"):  # the same content whoever sends it
                doc = json.loads(pool[int(game_id.split("-")[1]) % len(pool)])
                doc["game_id"], doc["frontend"] = game_id, {"name": "load"}
            lines.append(json.dumps(doc))
        status, body = request(tally, "upload", url + "/api/games",
                               data=("\n".join(lines) + "\n").encode(), token=token)
        if status != 200:
            continue
        games = json.loads(body)["data"]["games"]
        with tally.lock:
            for game in games:
                tally.sent.add(game["game_id"])
                if game["status"] == "accepted":
                    tally.accepted[game["game_id"]] += 1
                elif game["status"] == "duplicate":
                    tally.duplicate += 1
                else:
                    tally.errors.append(f"refused: {game['error']}")


def reader(url: str, until: float, tally: Tally, rng: random.Random) -> None:
    while time.monotonic() < until:
        choice = rng.random()
        if choice < 0.5:
            status, body = request(tally, "list", url + "/api/games?limit=20&order=desc")
            if status == 200:
                rows = json.loads(body)["data"]
                if rows:
                    request(tally, "game", f"{url}/api/games/{rng.choice(rows)['id']}")
        elif choice < 0.8:
            request(tally, "list", f"{url}/api/games?limit=50&preset=classic")
        else:
            request(tally, "export", url + "/api/games?format=jsonl&preset=kozel")


def make_pool(size: int) -> list[str]:
    from recorder.simulate import simulate_game

    presets = ["spilop", "classic", "kozel", "italian"]
    return [json.dumps(simulate_game(presets[i % 4], 2 + i % 3, f"load-{i}", max_rounds=6))
            for i in range(size)]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def run(*, uploaders: int, readers: int, seconds: float, threads: int,
        folder: Path, seed: int = 1) -> dict[str, Any]:
    """One bounded run against a fresh server; returns the figures and the checks."""
    from recorder import storage
    from recorder.tokens import create_token

    db_path = folder / "load.db"
    db = storage.connect(db_path)
    _, token = create_token(db, "load")
    db.close()
    pool = make_pool(POOL)
    proc, url = start_server(db_path, threads=threads, extra=["--connection-limit=200"])
    tally = Tally()
    try:
        until = time.monotonic() + seconds
        workers = [threading.Thread(target=uploader, args=(n, url, token, pool, until, tally,
                                                           random.Random(seed * 1000 + n)))
                   for n in range(uploaders)]
        workers += [threading.Thread(target=reader, args=(url, until, tally,
                                                          random.Random(seed * 2000 + n)))
                    for n in range(readers)]
        started = time.monotonic()
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=seconds * 2 + 60)
        elapsed = time.monotonic() - started
        stuck = sum(w.is_alive() for w in workers)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
    db = storage.connect(db_path)
    stored = Counter(r["game_id"] for r in db["games"].rows)
    integrity = storage.integrity_check(db)
    db.close()
    total = sum(len(v) for v in tally.latencies.values())
    return {
        "uploaders": uploaders, "readers": readers, "threads": threads,
        "seconds": round(elapsed, 2), "requests": total,
        "requests_per_s": round(total / elapsed, 1),
        "by_kind": {
            kind: {"count": len(v), "p50_ms": round(statistics.median(v) * 1000, 1),
                   "p95_ms": round(percentile(v, 0.95) * 1000, 1),
                   "max_ms": round(max(v) * 1000, 1)}
            for kind, v in sorted(tally.latencies.items())
        },
        "p95_ms": round(percentile([x for v in tally.latencies.values() for x in v], 0.95)
                        * 1000, 1),
        "statuses": dict(sorted(tally.statuses.items())),
        "games_sent": len(tally.sent),
        "games_stored": sum(stored.values()),
        "accepted_twice": sorted(g for g, n in tally.accepted.items() if n > 1),
        "stored_twice": sorted(g for g, n in stored.items() if n > 1),
        "lost": sorted(tally.sent - set(stored)),
        "not_sent_but_stored": sorted(set(stored) - tally.sent),
        "duplicates_answered": tally.duplicate,
        "server_errors": sum(n for s, n in tally.statuses.items() if s >= 500),
        "client_errors": tally.errors[:10],
        "stuck_clients": stuck,
        "integrity": integrity,
    }


def check(report: dict[str, Any]) -> list[str]:
    """What went wrong in a run, in words; empty when nothing did."""
    problems = []
    for key in ("accepted_twice", "stored_twice", "lost", "not_sent_but_stored",
                "client_errors"):
        if report[key]:
            problems.append(f"{key}: {report[key][:5]}")
    if report["server_errors"]:
        problems.append(f"{report['server_errors']} answers were 5xx")
    if report["stuck_clients"]:
        problems.append(f"{report['stuck_clients']} clients did not finish")
    if report["integrity"] != "ok":
        problems.append(f"integrity_check: {report['integrity']}")
    if report["games_stored"] != report["games_sent"]:
        problems.append(f"{report['games_sent']} games sent, {report['games_stored']} stored")
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploaders", type=int, default=16)
    parser.add_argument("--readers", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--threads", type=int, default=8, help="waitress worker threads")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="recorder-load-") as tmp:
        report = run(uploaders=args.uploaders, readers=args.readers, seconds=args.seconds,
                     threads=args.threads, folder=Path(tmp), seed=args.seed)
    problems = check(report)
    if args.json:
        print(json.dumps({**report, "problems": problems}, indent=2))
        return 1 if problems else 0
    print(f"{platform.python_implementation()} {platform.python_version()}, "
          f"{os.cpu_count()} cores; waitress with {report['threads']} threads on 127.0.0.1")
    print(f"{report['uploaders']} uploaders + {report['readers']} readers for "
          f"{report['seconds']} s: {report['requests']} requests, "
          f"{report['requests_per_s']} requests/s, p95 {report['p95_ms']} ms")
    print(f"{'kind':8} {'count':>7} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for kind, k in report["by_kind"].items():
        print(f"{kind:8} {k['count']:>7} {k['p50_ms']:>8} {k['p95_ms']:>8} {k['max_ms']:>8}")
    print(f"games: {report['games_sent']} sent, {report['games_stored']} stored, "
          f"{report['duplicates_answered']} answered duplicate; statuses "
          f"{report['statuses']}; integrity {report['integrity']}")
    print("problems: " + ("; ".join(problems) if problems else "none"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
