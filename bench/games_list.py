"""The games list on a large store: keyset pages against OFFSET pages, at several depths.

Builds (once, cached in ``bench/out/``) a database of ``--games`` games by storing the
sample games through the real import and then cloning their ``games`` rows with fresh
ids, hashes, dates and scores, so every sort column holds spread-out values. Then times
``GET /games`` through the Flask app (template included) for the first page, a page in
the middle and the last page, each reached by keyset (the list's ``after=`` links), and
beside it the same page fetched with SQL ``OFFSET`` (what a page number would cost).

    python bench/games_list.py --games 200000
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from recorder import storage  # noqa: E402
from recorder.ingest import import_upload  # noqa: E402
from webui import create_app  # noqa: E402

OUT = ROOT / "bench" / "out"


def build(path: Path, games: int) -> None:
    """The sample games, stored for real, then their rows cloned up to ``games``."""
    db = storage.connect(path)
    for f in sorted((ROOT / "sample_games").iterdir()):
        import_upload(db, f.read_bytes())
    base = db.execute("SELECT * FROM games").fetchall()
    names = [d[0] for d in db.execute("SELECT * FROM games LIMIT 0").description]
    rng = random.Random(1)
    have = len(base)
    columns = [n for n in names if n != "id"]
    sql = (f"INSERT INTO games ({', '.join(columns)}) VALUES "
           f"({', '.join('?' for _ in columns)})")
    batch = []
    with storage.write_transaction(db):
        for i in range(have, games):
            row = dict(zip(names, rng.choice(base), strict=True))
            row["content_hash"] = f"bench-{i}"
            row["game_id"] = f"bench-{i}"
            day = rng.randrange(365)
            row["started_at"] = row["played_at"] = time.strftime(
                "%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_735_689_600 + day * 86400
                                                  + rng.randrange(86400)))
            row["winner_score"] = float(rng.randrange(100, 400))
            batch.append([row[c] for c in columns])
            if len(batch) == 5000:
                db.conn.executemany(sql, batch)
                batch.clear()
        if batch:
            db.conn.executemany(sql, batch)
    db.execute("ANALYZE")
    db.close()


def timed(fn: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"games-list-{args.games}.db"
    if not path.exists():
        t = time.perf_counter()
        build(path, args.games)
        print(f"built {path.name} in {time.perf_counter() - t:.1f}s", file=sys.stderr)
    app = create_app({"DATABASE": str(path), "TESTING": True})
    client = app.test_client()
    page_size = app.config["PAGE_SIZE"]
    db = storage.connect(path)
    total = db["games"].count
    results = []
    cases = (
        ("date", "desc", "", storage.GameFilter()),
        ("score", "asc", "", storage.GameFilter()),
        ("moves", "desc", "&players=3", storage.GameFilter(players=3)),
        ("date", "desc", "&frontend=hand-made", storage.GameFilter(frontend="hand-made")),
        ("date", "desc", "&preset=norwegian&players=3",
         storage.GameFilter(preset="norwegian", players=3)),
    )
    for sort, order, query, flt in cases:
        column = storage.SORTS[sort]
        where, params = flt.where()
        matches = storage.count_games(db, flt)
        narrow = bool(query) and storage.few_enough(matches, total)
        for label, fraction in (("first", 0.0), ("middle", 0.5), ("last", 1.0)):
            if label != "first" and matches <= page_size:
                continue
            offset = min(int(matches * fraction), max(matches - page_size, 0))
            # the keyset boundary of that page: the row just before it
            if offset:
                prev = db.execute(
                    f"SELECT {column}, id FROM games WHERE {where} ORDER BY {column} "
                    f"{order}, id {order} LIMIT 1 OFFSET ?", [*params, offset - 1]).fetchone()
                after = f"&after={prev[0]},{prev[1]}"
            else:
                after = ""
            url = f"/games?sort={sort}&order={order}{query}{after}"
            response = client.get(url)
            assert response.status_code == 200, response.data[:300]
            keyset = timed(lambda u=url: client.get(u), args.repeat)
            sql = (f"SELECT {', '.join(storage.SUMMARY_COLUMNS)} FROM games WHERE {where} "
                   f"ORDER BY {column} {order}, id {order} LIMIT ? OFFSET ?")
            by_offset = timed(lambda s=sql, o=offset, ps=params: db.execute(
                s, [*ps, page_size, o]).fetchall(), args.repeat)
            bound = prev if offset else None
            by_keyset_sql = timed(
                lambda s=sort, p=bound, f=flt, d=order == "desc", n=narrow: storage.page_games(
                    db, f, sort=s, descending=d, after=p, limit=page_size, by_filter=n),
                args.repeat)
            results.append({"sort": f"{sort} {order}{' ' + query[1:] if query else ''}",
                            "page": label, "offset": offset, "matches": matches,
                            "page_ms": keyset, "keyset_sql_ms": by_keyset_sql,
                            "offset_sql_ms": by_offset})
    db.close()
    if args.json:
        print(json.dumps({"games": total, "results": results}))
        return
    print(f"{total:,} games, {page_size} a page; median of {args.repeat}")
    print("| sort | page | row | GET /games (ms) | keyset query (ms) | OFFSET query (ms) |")
    print("|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['sort']} | {r['page']} | {r['offset']:,} of {r['matches']:,} | "
              f"{r['page_ms']:.1f} | {r['keyset_sql_ms']:.2f} | {r['offset_sql_ms']:.2f} |")


if __name__ == "__main__":
    main()
