"""Ingest benchmark: rounds/s and peak memory of ``recorder import`` on generated JSON Lines.

    python bench/ingest.py --rounds 100000 --rounds 400000 [--workers 1 --workers 2]
                           [--seed 1] [--breakdown]

1. Builds (once, cached in bench/out/) a JSON Lines file of at least ``--rounds`` rounds:
   complete games of every preset from ``recorder.simulate.simulate_game``. Past the first
   100,000 rounds the file repeats those games under new ``game_id`` values, so that a
   large file costs seconds to make; each line is still a distinct game to the recorder.
2. Runs the real command, ``recorder import FILE --db NEW.db --workers N``, in a child
   process per size and per ``--workers`` value (default 1 and 2, side by side), timed
   from the parent. Memory: the peak RSS of the largest process (``wait4`` reports the
   child's, or its largest worker's), and the peak of all of them together, sampled
   every 50 ms as PSS (pages shared by forked workers counted once).
3. Checks the database (games and rounds stored, ``PRAGMA integrity_check``) and prints
   rounds/s, games/s, the CPU seconds of all the processes and of the main one alone
   (``main``: the writer, sampled every 50 ms; the workers used the rest), the cores
   kept busy on average (``cores``: all the CPU seconds over the wall-clock time),
   memory and the database's bytes per round per run, against the
   targets: >= 10,000 rounds/s with the default workers, >= 6,000 with one, memory under
   200 MB whatever the size, and at most 1,400 bytes a round.

4. Runs the peer on the same file, timed the same way: ``sqlite-utils insert DB games
   FILE --nl``, the library's own command, which stores each line as a row and checks
   nothing (``--no-peer`` leaves it out). The import's rounds/s and bytes a round as a
   share of the peer's are printed last: the price of replaying, identifying and
   analysing every game over storing it unread, on this machine in this run.

``--breakdown`` also times each stage on the first 2,000 lines in this process (parse,
identity, replay + facts, the rows with the packed moves and the compressed log, the
statistics' counters, the insert), with the size of the database, to show where an
import spends its time; and what the layout before a round's moves were one row would
cost: SQLite inserting nothing but a row per move, built beforehand, into a bare table.
``bench/instructions.py --stages`` counts the same stages' instructions, which repeat
on a busy machine.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT_DIR = ROOT / "bench" / "out"
BASE_ROUNDS = 100_000
TARGET_RATE = 10_000
TARGET_RATE_ONE = 6_000
TARGET_RSS_MB = 200
TARGET_BYTES_PER_ROUND = 1_400
MIX: list[tuple[Any, int]] = [
    ("spilop", 2), ("spilop", 3), ("spilop", 4),
    ({"preset": "spilop", "options": {"bonus": True}}, 3),
    ("classic", 2), ("classic", 4), ("kozel", 3), ("italian", 2), ("italian", 4),
    ("norwegian", 2),
]

sys.path.insert(0, str(ROOT))


def build_corpus(rounds: int, seed: int) -> tuple[Path, dict[str, int]]:
    """The JSON Lines file of at least ``rounds`` rounds, and its games/rounds counts.

    Made by a child process when it is not cached: the games it holds while writing
    would stay in this process's memory, and an import started from here would count
    them in its own peak RSS (a child's RSS includes its parent's pages until it runs
    its own program).
    """
    path = OUT_DIR / f"ingest-{rounds}-s{seed}.jsonl"
    meta_path = path.with_suffix(".meta.json")
    if not (path.exists() and meta_path.exists()):
        subprocess.run([sys.executable, __file__, "--build-corpus", str(rounds),
                        "--seed", str(seed)], check=True)
    return path, json.loads(meta_path.read_text())


def _write_corpus(rounds: int, seed: int) -> None:
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    path = OUT_DIR / f"ingest-{rounds}-s{seed}.jsonl"
    meta_path = path.with_suffix(".meta.json")
    from recorder.simulate import simulate_game

    base: list[tuple[str, int]] = []  # (line without game_id, rounds)
    total = 0
    i = 0
    started = time.monotonic()
    while total < min(rounds, BASE_ROUNDS):
        ruleset, players = MIX[i % len(MIX)]
        doc = simulate_game(ruleset, players, f"bench-{seed}-{i}",
                            started_at=f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T12:00:00Z")
        doc.pop("game_id", None)
        base.append((json.dumps(doc, separators=(",", ":")), len(doc["rounds"])))
        total += len(doc["rounds"])
        i += 1
    games = total = 0
    tmp = path.with_suffix(".tmp")
    with tmp.open("w") as out:
        copy = 0
        while total < rounds:
            for text, n in base:
                game_id = f"bench-{seed}-{copy}-{games}"
                out.write('{"game_id":' + json.dumps(game_id) + "," + text[1:] + "\n")
                games += 1
                total += n
                if total >= rounds:
                    break
            copy += 1
    tmp.rename(path)
    meta = {"games": games, "rounds": total, "bytes": path.stat().st_size}
    meta_path.write_text(json.dumps(meta))
    print(f"built {path.name}: {games} games, {total} rounds, "
          f"{meta['bytes'] / 1e6:.0f} MB in {time.monotonic() - started:.0f}s", file=sys.stderr)


def _tree_pss_kb(pid: int) -> int:
    """The PSS of a process and its children, in KiB (0 once it is gone)."""
    total = 0
    pids = [pid]
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            pids += [int(c) for c in (task / "children").read_text().split()]
    except OSError:
        return 0
    for p in pids:
        try:
            for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
                    break
        except OSError:
            pass
    return total


def _cpu_seconds(pid: int) -> float | None:
    """The CPU seconds (user and system) one process has used so far, its children's
    not counted; None once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _sample_pss(pid: int, peak: list[int], done: threading.Event, main_cpu: list[float]
                ) -> None:
    """Every 50 ms: the peak PSS of the process tree, and the CPU the main process (the
    writer, with workers) has used, its last reading kept: what the workers used is the
    rest of the total that ``wait4`` reports."""
    while not done.wait(0.05):
        peak[0] = max(peak[0], _tree_pss_kb(pid))
        cpu = _cpu_seconds(pid)
        if cpu is not None:
            main_cpu[0] = cpu


def _run_timed(what: str, command: list[str], cwd: str) -> tuple[float, Any, int, float]:
    """A child process, timed from the parent: wall seconds, its ``wait4`` usage, the
    peak PSS of its tree (KiB) and the main process's CPU seconds; what it printed is
    shown only if it fails."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            env=env, cwd=cwd)
    peak, done, main_cpu = [0], threading.Event(), [0.0]
    sampler = threading.Thread(target=_sample_pss, args=(proc.pid, peak, done, main_cpu))
    if Path("/proc/self/smaps_rollup").exists():
        sampler.start()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.monotonic() - started
    done.set()
    if sampler.is_alive():
        sampler.join()
    summary = proc.stdout.read().decode().strip() if proc.stdout else ""
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"{what} failed ({code}): {summary}")
    return seconds, usage, peak[0], main_cpu[0]


def _figures(label: str, workers: int | str, meta: dict[str, int], games: int, rounds: int,
             moves: int, seconds: float, usage: Any, peak_kb: int, main_cpu: float,
             size: int) -> dict[str, Any]:
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "file": label, "workers": workers, "file_mb": round(meta["bytes"] / 1e6, 1),
        "games": games,
        "rounds": rounds, "moves": moves, "seconds": round(seconds, 2),
        "rounds_per_s": round(rounds / seconds), "games_per_s": round(games / seconds),
        "cpu_seconds": round(cpu, 2),
        "rounds_per_cpu_s": round(rounds / cpu),
        "main_cpu_seconds": round(main_cpu, 2),
        "cores_busy": round(cpu / seconds, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "peak_pss_all_mb": round(peak_kb / 1024, 1) or None, "db_mb": round(size / 1e6, 1),
        "bytes_per_round": round(size / rounds),
    }


def run_import(path: Path, meta: dict[str, int], workers: int) -> dict[str, Any]:
    """``recorder import`` in a child process: wall time, peak memory, checks."""
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "bench.db"
        command = [sys.executable, "-c", "from recorder.cli import main; main()", "import",
                   "--db", str(db_path), "--workers", str(workers), str(path)]
        seconds, usage, peak, main_cpu = _run_timed("import", command, tmp)
        from recorder import storage

        db = storage.connect(db_path)
        games = db["games"].count
        rounds = db.execute("SELECT coalesce(sum(rounds_count), 0) FROM games").fetchone()[0]
        moves = db["moves"].count
        ok = storage.integrity_check(db)
        db.close()
        size = db_path.stat().st_size
    if games != meta["games"] or rounds != meta["rounds"] or ok != "ok":
        raise SystemExit(f"stored {games} games / {rounds} rounds ({ok}); expected {meta}")
    return _figures(path.name, workers, meta, games, rounds, moves, seconds, usage, peak,
                    main_cpu, size)


def run_peer(path: Path, meta: dict[str, int]) -> dict[str, Any]:
    """The peer on the same file: ``sqlite-utils insert DB games FILE --nl``, the
    library's own command, which stores each line as a row (its nested values as JSON
    text) and checks nothing: no replay, no identity, no facts, no counters. What the
    import costs above it is what checking and analysing a game costs."""
    with tempfile.TemporaryDirectory() as tmp:
        db_path = Path(tmp) / "peer.db"
        command = [sys.executable, "-m", "sqlite_utils", "insert", str(db_path), "games",
                   str(path), "--nl"]
        seconds, usage, peak, main_cpu = _run_timed("the peer", command, tmp)
        import sqlite_utils

        db = sqlite_utils.Database(db_path)
        games = db["games"].count
        db.close()
        size = db_path.stat().st_size
    if games != meta["games"]:
        raise SystemExit(f"the peer stored {games} games; expected {meta['games']}")
    return _figures("peer: sqlite-utils insert", "-", meta, games, meta["rounds"], 0,
                    seconds, usage, peak, main_cpu, size)


def _stdlib_hash(doc: Any) -> str:
    """The identity hash as it was computed before orjson: the stdlib writes the text."""
    import hashlib

    from recorder import ingest, jsontext

    text = jsontext.stdlib_dumps(ingest.normalized(doc), sort_keys=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def breakdown(path: Path, lines: int = 2000) -> dict[str, float]:
    """Rounds per CPU second of each stage alone, on the first ``lines`` games, in this
    process (CPU time, not wall time: on a shared machine it is the steadier figure)."""
    from recorder import ingest, stats, storage
    from recorder.analysis import analyse

    with path.open() as f:
        texts = list(itertools.islice(f, lines))
    docs = [json.loads(t) for t in texts]
    rounds = sum(len(d["rounds"]) for d in docs)
    rates: dict[str, float] = {}

    def timed(name: str, fn: Any) -> list[Any]:
        started = time.process_time()
        out = [fn(x) for x in (texts if name == "json parse" else docs)]
        rates[name] = round(rounds / (time.process_time() - started))
        return out

    timed("json parse", json.loads)
    timed("identity (hash), stdlib json", _stdlib_hash)
    timed("identity (hash)", ingest.content_hash)
    walked = timed("replay + facts (one walk)", analyse)
    started = time.process_time()
    records = [storage.build_record(doc, log=text.encode("utf-8"), answer=answer,
                                    facts=fact, content_hash=ingest.content_hash(doc))
               for doc, (answer, fact), text in zip(docs, walked, texts, strict=True)]
    rates["rows, packed moves, compressed log"] = round(
        rounds / (time.process_time() - started))
    started = time.process_time()
    for record, (_, fact) in zip(records, walked, strict=True):
        record.stats = stats.contribution(record.game, fact)
    rates["counters"] = round(rounds / (time.process_time() - started))
    for _ in range(3):  # best of 3
        with tempfile.TemporaryDirectory() as tmp:
            db_path = Path(tmp) / "b.db"
            db = storage.connect(db_path)
            started = time.process_time()
            with storage.write_transaction(db):
                acc = stats.Accumulator()
                for record in records:
                    acc.add(storage.insert_game(db, record), record.stats)
                acc.flush(db)
            rate = round(rounds / (time.process_time() - started))
            rates["insert with counters"] = max(rate, int(rates.get("insert with counters", 0)))
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            db.close()
            rates["database bytes a round"] = round(db_path.stat().st_size / rounds)
    rates["insert floor, a row per move alone (the old layout)"] = _moves_floor(records, rounds)
    return rates


def _moves_floor(records: list[Any], rounds: int) -> int:
    """Rounds per CPU second when SQLite does nothing but insert a row per move, built
    beforehand, into a bare ``WITHOUT ROWID`` table (no foreign key, no other table): the
    writer's ceiling while every move was a row (before ``m012_round_moves``). Best of
    three."""
    import sqlite3

    rows = [[(game, *row) for row in record.moves] for game, record in enumerate(records, 1)]
    columns = ", ".join(f"c{i}" for i in range(len(rows[0][0])))
    best = 0
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            conn = sqlite3.connect(Path(tmp) / "floor.db", isolation_level=None)
            conn.execute("PRAGMA journal_mode=wal")
            conn.execute(f"CREATE TABLE moves ({columns}, PRIMARY KEY (c0, c1, c2)) "
                         "WITHOUT ROWID")
            sql = f"INSERT INTO moves VALUES ({', '.join('?' * len(rows[0][0]))})"
            started = time.process_time()
            conn.execute("BEGIN")
            for game_rows in rows:
                conn.executemany(sql, game_rows)
            conn.execute("COMMIT")
            best = max(best, round(rounds / (time.process_time() - started)))
            conn.close()
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, action="append",
                        help="rounds in a file (repeat for several sizes) [100000]")
    parser.add_argument("--workers", type=int, action="append",
                        help="recorder import --workers N (repeat to compare) [1 and 2]")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--breakdown", action="store_true", help="time each stage too")
    parser.add_argument("--no-peer", action="store_true",
                        help="leave out the peer run (sqlite-utils insert --nl)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--build-corpus", type=int, metavar="ROUNDS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.build_corpus:  # the child process of build_corpus
        _write_corpus(args.build_corpus, args.seed)
        return
    sizes = sorted(args.rounds or [BASE_ROUNDS])
    counts = args.workers or [1, 2]
    machine = (f"{platform.python_implementation()} {platform.python_version()}, "
               f"{os.cpu_count()} cores, {platform.machine()}")
    if not args.json:
        print(f"recorder import ({machine}); memory: peak RSS of the largest process, "
              "peak PSS of all of them")
        print(f"{'file':<28} {'workers':>7} {'MB':>6} {'games':>7} {'rounds':>8} {'s':>7} "
              f"{'rounds/s':>9} {'games/s':>8} {'CPU s':>7} {'main':>5} {'cores':>5} "
              f"{'r/CPU s':>8} {'RSS MB':>7} {'PSS all':>8} {'B/round':>8}", flush=True)
    results: list[dict[str, Any]] = []
    peers: dict[str, dict[str, Any]] = {}  # by the file it stored
    for n in sizes:
        path, meta = build_corpus(n, args.seed)
        # side by side, on the same file; None: the peer
        for run in [*counts, *([] if args.no_peer else [None])]:
            r = run_peer(path, meta) if run is None else run_import(path, meta, run)
            if run is None:
                peers[path.name] = r
            else:
                results.append(r)
            workers = r["workers"]
            if not args.json:
                print(f"{r['file']:<28} {workers:>7} {r['file_mb']:>6} {r['games']:>7} "
                      f"{r['rounds']:>8} {r['seconds']:>7} {r['rounds_per_s']:>9} "
                      f"{r['games_per_s']:>8} {r['cpu_seconds']:>7} "
                      f"{r['main_cpu_seconds']:>5} {r['cores_busy']:>5} "
                      f"{r['rounds_per_cpu_s']:>8} {r['peak_rss_mb']:>7} "
                      f"{r['peak_pss_all_mb'] or '-':>8} {r['bytes_per_round']:>8}",
                      flush=True)
    report: dict[str, Any] = {"machine": machine, "runs": results,
                              "peers": list(peers.values())}
    default = max(counts)
    rate = min(r["rounds_per_s"] for r in results if r["workers"] == default)
    one = [r["rounds_per_s"] for r in results if r["workers"] == 1]
    largest = max(max(r["peak_rss_mb"], r["peak_pss_all_mb"] or 0) for r in results)
    per_round = max(r["bytes_per_round"] for r in results)
    report["targets_met"] = {
        "rounds_per_s": rate >= TARGET_RATE, "peak_rss": largest < TARGET_RSS_MB,
        "bytes_per_round": per_round <= TARGET_BYTES_PER_ROUND,
    }
    if one:
        report["targets_met"]["rounds_per_s_one_worker"] = min(one) >= TARGET_RATE_ONE
    if not args.json:
        print(f"target >= {TARGET_RATE} rounds/s with {default} workers: "
              f"{'met' if rate >= TARGET_RATE else 'NOT met'} (slowest {rate})")
        if one:
            print(f"target >= {TARGET_RATE_ONE} rounds/s with 1 worker: "
                  f"{'met' if min(one) >= TARGET_RATE_ONE else 'NOT met'} (slowest {min(one)})")
        print(f"target memory < {TARGET_RSS_MB} MB: "
              f"{'met' if largest < TARGET_RSS_MB else 'NOT met'} (largest {largest})")
        print(f"target <= {TARGET_BYTES_PER_ROUND} bytes a round: "
              f"{'met' if per_round <= TARGET_BYTES_PER_ROUND else 'NOT met'} "
              f"(largest {per_round})", flush=True)
    if peers and not args.json:
        for r in results:
            peer = peers[r["file"]]
            print(f"{r['file']} with {r['workers']} worker{'s' if r['workers'] > 1 else ''}: "
                  f"{r['rounds_per_s'] / peer['rounds_per_s']:.0%} of the peer's rounds/s, "
                  f"{r['bytes_per_round'] / peer['bytes_per_round']:.0%} of its bytes a round")
    if args.breakdown:
        report["breakdown_rounds_per_s"] = breakdown(build_corpus(sizes[0], args.seed)[0])
        if not args.json:
            print("stages alone, rounds per CPU second (and database sizes):", ", ".join(
                f"{k} {v}" for k, v in report["breakdown_rounds_per_s"].items()))
    if args.json:
        print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
