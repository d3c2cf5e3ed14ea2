"""Scale benchmark: ``recorder batch facts`` with 1 and 2 workers beside ``recorder import``.

    python bench/scale.py                                # 1M and 10M rounds (hours)
    python bench/scale.py --rounds 1000000 --workers 1 --workers 2
    python bench/scale.py --rounds 100000 --no-import    # a quick look
    python bench/scale.py --json                         # the same figures as JSON
    python bench/scale.py --worker 20000                 # one worker's CPU a round, by step
    python bench/scale.py --warehouse 10000000 --sqlite 10000000   # the stats URLs' p95

(``--warehouse``: the dashboards on DuckDB over generated Parquet facts, beside the SQLite
store of the same games; see ``bench/scale_warehouse.py``.)

1. Generates the corpus once into ``bench/out/scale/<rounds>/`` (gitignored): games made
   by ``recorder simulate`` (every preset of the mix, 2-4 players) until 100,000 rounds,
   then the same games again under new ``game_id`` values, so that 10M rounds cost
   minutes, not hours, to make; each line is still a distinct game to the recorder.
   The corpus is files of about 1M rounds each (``part-0000.jsonl``, ...): an archive is
   many files, and batch cuts each into shards.
2. For each size, side by side in one run: ``recorder batch facts CORPUS --out NEW --workers
   N`` and ``recorder import CORPUS --db NEW.db --workers N`` for each ``--workers`` value,
   each the real command in a child process, timed from here (the whole command: the
   cluster's start, planning, the commit and publishing included). The machine's load
   average is recorded beside every figure: on a shared machine a busy minute shows.
3. Checks every output (the games and rounds stored) and prints rounds/s, the speed-up of
   batch from 1 to 2 workers (target at least 1.8x), and the bytes a round costs in each
   store.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "bench" / "out" / "scale"
BASE_ROUNDS = 100_000
FILE_ROUNDS = 1_000_000
TARGET_SPEEDUP = 1.8
MIX: list[tuple[str, list[str], int]] = [
    ("spilop", [], 2), ("spilop", [], 3), ("spilop", [], 4), ("spilop", ["bonus=true"], 3),
    ("classic", [], 2), ("classic", [], 4), ("kozel", [], 3), ("italian", [], 2),
    ("italian", [], 4), ("norwegian", [], 2),
]
GAMES_PER_CALL = 40


def _recorder(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "recorder.cli", *args], env=env,
                          text=True, **kw)


def corpus(rounds: int) -> tuple[list[Path], dict[str, int]]:
    """The cached corpus of at least ``rounds`` rounds (made now if missing)."""
    folder = CACHE / str(rounds)
    meta_path = folder / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        return [folder / name for name in meta["files"]], meta
    base = _base_games()
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    names: list[str] = []
    games = total = copy = 0
    out = None
    in_file = FILE_ROUNDS
    while total < rounds:
        for text, n in base:
            if in_file >= FILE_ROUNDS:
                if out is not None:
                    out.close()
                names.append(f"part-{len(names):04d}.jsonl")
                out = (tmp / names[-1]).open("w")
                in_file = 0
            assert out is not None
            out.write('{"game_id":' + json.dumps(f"scale-{copy}-{games}") + "," + text[1:])
            games += 1
            total += n
            in_file += n
            if total >= rounds:
                break
        copy += 1
    if out is not None:
        out.close()
    meta = {"games": games, "rounds": total, "files": names,
            "bytes": sum((tmp / n).stat().st_size for n in names)}
    (tmp / "meta.json").write_text(json.dumps(meta))
    tmp.rename(folder)
    return [folder / name for name in names], meta


def _base_games() -> list[tuple[str, int]]:
    """``recorder simulate`` games (without their game_id) until BASE_ROUNDS rounds."""
    path = CACHE / "base.jsonl"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        started = time.monotonic()
        lines: list[str] = []
        total = call = 0
        while total < BASE_ROUNDS:
            preset, options, players = MIX[call % len(MIX)]
            args = ["simulate", "--preset", preset, "--players", str(players),
                    "--games", str(GAMES_PER_CALL), "--seed", f"scale-{call}"]
            for option in options:
                args += ["-o", option]
            done = _recorder(*args, capture_output=True, check=True)
            for line in done.stdout.splitlines():
                doc = json.loads(line)
                doc.pop("game_id", None)
                lines.append(json.dumps(doc, separators=(",", ":")) + "\n")
                total += len(doc["rounds"])
            call += 1
        tmp = path.with_suffix(".tmp")
        tmp.write_text("".join(lines))
        tmp.rename(path)
        print(f"made {len(lines)} games, {total} rounds with recorder simulate in "
              f"{time.monotonic() - started:.0f}s", file=sys.stderr)
    out = []
    for line in path.read_text().splitlines(keepends=True):
        out.append((line, len(json.loads(line)["rounds"])))
    return out


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _timed(args: list[str], cwd: Path) -> tuple[float, float, str, str, str]:
    """Wall seconds, CPU seconds (the command and every process it waited for: its
    workers), its summary line, its steps line (batch), and the load when it started."""
    load = _load()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    started = time.monotonic()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "recorder.cli", *args], env=env,
                                cwd=cwd, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.monotonic() - started
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"recorder {' '.join(args[:2])} failed ({code}): {stderr[-2000:]}")
    steps = next((line for line in stderr.splitlines() if line.startswith("seconds: ")), "")
    return (seconds, usage.ru_utime + usage.ru_stime, stdout.strip().splitlines()[-1],
            steps.removeprefix("seconds: "), load)


def run_batch(files: list[Path], meta: dict[str, int], workers: int,
              shard_bytes: int | None) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        out = Path(tmp) / "facts"
        args = ["batch", "facts", *map(str, files), "--out", str(out), "--workers",
                str(workers)]
        if shard_bytes:
            args += ["--shard-bytes", str(shard_bytes)]
        seconds, cpu, summary, steps, load = _timed(args, Path(tmp))
        import pyarrow.parquet as pq

        games = rounds = 0
        for path in (out / "games").rglob("*.parquet"):
            table = pq.read_table(path, columns=["rounds_count"])
            games += table.num_rows
            rounds += sum(table.column("rounds_count").to_pylist())
        size = sum(p.stat().st_size for p in out.rglob("*.parquet"))
    if games != meta["games"] or rounds != meta["rounds"]:
        raise SystemExit(f"batch wrote {games} games / {rounds} rounds; expected {meta}")
    return {"command": "batch facts", "workers": workers, "seconds": round(seconds, 1),
            "rounds_per_s": round(meta["rounds"] / seconds), "cpu_seconds": round(cpu, 1),
            "rounds_per_cpu_s": round(meta["rounds"] / cpu),
            "bytes_per_round": round(size / meta["rounds"]), "load": load,
            "summary": summary, "steps": steps}


def run_import(files: list[Path], meta: dict[str, int], workers: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        db = Path(tmp) / "bench.db"
        seconds, cpu, summary, _, load = _timed(["import", "--db", str(db), "--workers",
                                                 str(workers), *map(str, files)], Path(tmp))
        import sqlite3

        with sqlite3.connect(db) as conn:
            games, rounds = conn.execute(
                "SELECT count(*), coalesce(sum(rounds_count), 0) FROM games").fetchone()
        size = db.stat().st_size
    if games != meta["games"] or rounds != meta["rounds"]:
        raise SystemExit(f"import stored {games} games / {rounds} rounds; expected {meta}")
    return {"command": "import", "workers": workers, "seconds": round(seconds, 1),
            "rounds_per_s": round(meta["rounds"] / seconds), "cpu_seconds": round(cpu, 1),
            "rounds_per_cpu_s": round(meta["rounds"] / cpu),
            "bytes_per_round": round(size / meta["rounds"]), "load": load,
            "summary": summary, "steps": ""}


def bench_commit(games: int, shards: int = 100) -> dict[str, Any]:
    """The commit alone (``recorder.batch.decide``: DuckDB over the staged identities) for
    ``games`` staged games in ``shards`` shards, a tenth of them copies, in this process:
    the one step of a run that does not spread over the workers."""
    import hashlib

    import pyarrow as pa

    from recorder import batch, parquet

    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        fs, root = parquet.filesystem(tmp)
        batch.open_state(fs, root, "facts")
        plan = [batch.Shard(f"{tmp}/logs-{i}.jsonl", "0:0", "lines", False, 0, None, i)
                for i in range(shards)]
        per = -(-games // shards)
        for shard in plan:
            n = shard.ordinal * per
            keys = [(n + i) % int(games * 0.9) for i in range(per)]  # some copies
            hashes = [hashlib.sha256(str(k).encode()).hexdigest() for k in keys]
            data = pa.table({
                "pos": pa.array(range(per), pa.int32()), "line": pa.array(range(1, per + 1)),
                "index": pa.array(range(per)), "hash": hashes,
                "key_frontend": ["bench"] * per, "key_game_id": [f"g-{k}" for k in keys],
                "game_id": [f"g-{k}" for k in keys], "preset": ["spilop"] * per,
                "kind": pa.array([1] * per, pa.int8())}, schema=batch.STAGING["ids"])
            with parquet.FileWriter(fs, f"{root}/_batch/staging/{shard.id}/ids.parquet",
                                    data.schema) as writer:
                writer.write(data)
        started = time.perf_counter()
        commit = batch.decide(fs, root, plan, {s.id: [0, 0] for s in plan}, "2026-12-01")
        seconds = time.perf_counter() - started
    return {"games": games, "seconds": round(seconds, 2),
            "games_per_s": round(games / seconds), "accepted": commit["counts"]["accept"]}


def bench_worker(rounds: int, shard_bytes: int | None, profile: str | None,
                 keep: str | None) -> dict[str, Any]:
    """One worker's tasks run in this process, without Dask: every shard processed, the
    commit, every shard published, each step timed in CPU seconds (steadier than the
    clock on a shared machine). The per-round cost of the work the cluster spreads, with
    no scheduler, no cluster start and no waiting in it. ``shard_bytes``: shards of
    exactly that many bytes (``--shard-bytes 33554432``: the default's, as a large
    archive is cut), else as ``batch`` cuts the corpus's files. ``profile``: a cProfile of the
    processing and the publishing into that file; ``keep``: write the datasets there (to
    compare runs) instead of a temporary folder."""
    from recorder import batch, parquet
    from recorder.parse import Limits

    files, meta = corpus(rounds)
    limits = Limits()
    profiler = None
    if profile:
        import cProfile

        profiler = cProfile.Profile()
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        out = keep or str(Path(tmp) / "facts")
        if keep:
            shutil.rmtree(keep, ignore_errors=True)
        fs, root = parquet.filesystem(out)
        batch.open_state(fs, root, "facts")
        sources = batch.expand_sources([str(f) for f in files])
        shards: list[Any] = []
        for source in sources:
            if shard_bytes:  # shards of exactly that size, as a large archive's are
                planned = [batch.Shard(source.url, source.stamp, "lines", False, start,
                                       min(start + shard_bytes, source.size))
                           for start in range(0, source.size, shard_bytes)]
            else:
                planned = batch.plan_file(source, batch.DEFAULT_SHARD_BYTES, limits)
            for shard in planned:
                shards.append(batch.Shard(**{**batch.asdict(shard), "ordinal": len(shards)}))
        cpu: dict[str, float] = {}

        def timed(name: str, work: Any) -> Any:
            started = time.process_time()
            if profiler is not None and name != "commit":
                profiler.enable()
            try:
                return work()
            finally:
                if profiler is not None:
                    profiler.disable()
                cpu[name] = cpu.get(name, 0.0) + time.process_time() - started

        records = {}
        for shard in shards:
            result = timed("process", lambda s=shard: batch.process_shard(
                s, out, "facts", limits))
            records[shard.id] = result
        now = "2026-12-02T00:00:00Z"
        commit = timed("commit", lambda: batch.decide(
            fs, root, shards, batch.line_bases(shards, records), now))
        for shard in shards:
            timed("publish", lambda s=shard: batch.publish_shard(
                s, commit["bases"][s.id], out, "facts", now))
        timed("commit", lambda: batch._roll_up(fs, root, shards, commit))
        games = sum(r.games for r in records.values())
        total = sum(r.rounds for r in records.values())
        size = sum(p.stat().st_size for p in Path(out).rglob("*.parquet")
                   if "_batch" not in p.parts)
    if profiler is not None:
        profiler.dump_stats(profile)
    if games != meta["games"] or total != meta["rounds"]:
        raise SystemExit(f"the worker staged {games} games / {total} rounds; expected {meta}")
    return {"rounds": total, "games": games, "shards": len(shards),
            "us_per_round": {k: round(v / total * 1e6, 1) for k, v in cpu.items()},
            "cpu_seconds": {k: round(v, 2) for k, v in cpu.items()},
            "bytes_per_round": round(size / total), "load": _load()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, action="append",
                        help="corpus sizes (repeatable) [default: 1M and 10M]")
    parser.add_argument("--workers", type=int, action="append",
                        help="worker counts (repeatable) [default: 1 and 2]")
    parser.add_argument("--no-import", action="store_true",
                        help="measure batch alone (the import takes longest)")
    parser.add_argument("--shard-bytes", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--commit", type=int, action="append", metavar="GAMES",
                        help="time the commit alone for GAMES staged games (repeatable), "
                             "and nothing else")
    parser.add_argument("--warehouse", type=int, action="append", metavar="ROUNDS",
                        help="p95 of every stats URL, DuckDB over generated Parquet facts "
                             "of ROUNDS rounds (repeatable), and nothing of the batch")
    parser.add_argument("--sqlite", type=int, action="append", metavar="ROUNDS",
                        help="with --warehouse: the SQLite store of the same games beside it")
    parser.add_argument("--check", action="store_true",
                        help="with --warehouse: count the generated archive again game by "
                             "game, as the batch does, and compare every counters dataset")
    parser.add_argument("--pool", type=int, default=None, metavar="N",
                        help="with --warehouse: the copies' players drawn from N players")
    parser.add_argument("--base", type=int, default=None, metavar="ROUNDS",
                        help="with --warehouse: rounds of simulated games the copies are "
                             "made of [default: 100,000]")
    parser.add_argument("--no-moves", action="store_true",
                        help="with --warehouse: generate no moves (no stats URL reads them)")
    parser.add_argument("--facts", action="store_true",
                        help="with --warehouse: also time figures summed from the facts at "
                             "query time (the alternative to the counters; needs the moves)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="with --warehouse: times each ask is timed [default: 3]")
    parser.add_argument("--worker", type=int, action="append", metavar="ROUNDS",
                        help="one worker's tasks in this process on the corpus of ROUNDS "
                             "rounds: CPU microseconds a round of processing, the commit "
                             "and publishing, and nothing else")
    parser.add_argument("--profile", metavar="FILE",
                        help="with --worker: a cProfile of processing and publishing")
    parser.add_argument("--keep", metavar="DIR",
                        help="with --worker: write the datasets to DIR and keep them")
    args = parser.parse_args(argv)
    if args.worker:
        CACHE.mkdir(parents=True, exist_ok=True)
        for rounds in args.worker:
            row = bench_worker(rounds, args.shard_bytes, args.profile, args.keep)
            us = row["us_per_round"]
            print(f"one worker, {row['rounds']:,} rounds ({row['games']:,} games, "
                  f"{row['shards']} shards): CPU us a round: process {us['process']}, "
                  f"commit {us['commit']}, publish {us['publish']}, total "
                  f"{round(sum(us.values()), 1)}; {row['bytes_per_round']} bytes a round; "
                  f"load {row['load']}")
            if args.json:
                print(json.dumps(row))
        return 0
    if args.warehouse:
        return warehouse_main(args)
    if args.commit:
        CACHE.mkdir(parents=True, exist_ok=True)
        for games in args.commit:
            row = bench_commit(games)
            print(f"commit of {row['games']:,} staged games: {row['seconds']} s "
                  f"({row['games_per_s']:,} games/s), {row['accepted']:,} accepted; "
                  f"load {_load()}")
        return 0
    sizes = args.rounds or [1_000_000, 10_000_000]
    workers = args.workers or [1, 2]
    results: list[dict[str, Any]] = []
    print(f"uptime at start: {_load()}", file=sys.stderr)
    for rounds in sizes:
        files, meta = corpus(rounds)
        for n in workers:
            for command in (["batch"] if args.no_import else ["batch", "import"]):
                row = run_batch(files, meta, n, args.shard_bytes) if command == "batch" \
                    else run_import(files, meta, n)
                row.update(rounds=meta["rounds"], games=meta["games"],
                           mb=round(meta["bytes"] / 1e6))
                results.append(row)
                print(f"{row['command']:<12} {meta['rounds']:>10,} rounds  workers {n}  "
                      f"{row['seconds']:>8.1f}s  {row['rounds_per_s']:>7,} rounds/s  "
                      f"load {row['load']}", file=sys.stderr)
    if args.json:
        print(json.dumps({"results": results, "load_at_end": _load()}, indent=2))
        return 0
    print("\n| rounds | command | workers | seconds | rounds/s | CPU s | rounds per CPU s "
          "| bytes a round | load (1, 5, 15 min) |\n"
          "| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for r in results:
        print(f"| {r['rounds']:,} | `{r['command']}` | {r['workers']} | {r['seconds']:,} | "
              f"{r['rounds_per_s']:,} | {r['cpu_seconds']:,} | {r['rounds_per_cpu_s']:,} | "
              f"{r['bytes_per_round']:,} | {r['load']} |")
    for r in results:
        if r["steps"]:
            print(f"\n{r['rounds']:,} rounds, batch facts, {r['workers']} workers, seconds "
                  f"of each step: {r['steps']}")
    for rounds in sizes:
        rate = {r["workers"]: r["rounds_per_s"] for r in results
                if r["command"] == "batch facts" and r["rounds"] >= rounds and
                r["rounds"] < rounds + BASE_ROUNDS}
        if 1 in rate and 2 in rate:
            speedup = rate[2] / rate[1]
            verdict = "meets" if speedup >= TARGET_SPEEDUP else "misses"
            print(f"\nbatch facts at {rounds:,} rounds: {speedup:.2f}x from 1 to 2 workers "
                  f"({verdict} the {TARGET_SPEEDUP}x target)")
    print(f"\nuptime at end: {_load()}")
    return 0


def warehouse_main(args: argparse.Namespace) -> int:
    """``--warehouse``: generate each archive (cached), check it if asked, load the
    SQLite store beside it if asked, check that both answer alike, and time them."""
    sys.path.insert(0, str(ROOT / "bench"))
    sys.path.insert(0, str(ROOT))
    import scale_warehouse as wh

    base = args.base or wh.BASE_ROUNDS
    sqlite = set(args.sqlite or ())
    results: dict[str, Any] = {"uptime_at_start": _load(), "runs": []}
    print(f"uptime at start: {_load()}", file=sys.stderr)
    for rounds in args.warehouse:
        out = wh.generate(rounds, pool=args.pool, moves=not args.no_moves, base_rounds=base)
        meta = json.loads((out / "_batch" / "generated.json").read_text())
        if args.check:
            print(f"check: {wh.check(out)} rows, the same as counted from the rows",
                  file=sys.stderr)
        if args.facts:
            facts = wh.facts_at_query_time(out)
            results.setdefault("facts_at_query_time", {})[meta["rounds"]] = facts
            for label, seconds in facts.items():
                print(f"facts at query time, {meta['rounds']:,} rounds: {label}: "
                      f"{seconds} s (best of 3), load {_load()}")
        db = wh.sqlite_store(out) if rounds in sqlite else out.with_name("empty.db")
        if rounds not in sqlite:
            from recorder import storage

            storage.connect(db).close()
        clients = {"duckdb": wh.client(db, out)}
        if rounds in sqlite:
            clients["sqlite"] = wh.client(db, None)
            print(f"{wh.same_answers(clients)} asks answered alike by both stores",
                  file=sys.stderr)
        else:  # warm the files' metadata once, as a served folder is after its first ask
            for url, flt in wh.asks():
                clients["duckdb"].get(url, query_string=flt)
        timed = wh.measure(clients, args.repeat)
        results["runs"].append({"rounds": meta["rounds"], "games": meta["games"],
                                "pool": args.pool, "base_rounds": meta["base_rounds"],
                                "bytes": sum(meta["bytes"].values()), "p": timed})
        for name, urls in timed.items():
            load = urls.pop("_load")
            worst = max(v["p95"] for v in urls.values())
            print(f"\n{name} at {meta['rounds']:,} rounds ({meta['games']:,} games), "
                  f"load {load['min']}-{load['max']}: worst p95 {worst} ms "
                  f"(target {wh.TARGET_MS:.0f} ms)")
            print("| URL | asks | p50 ms | p95 ms | max ms |\n| --- | ---: | ---: | ---: | ---: |")
            for url, v in urls.items():
                print(f"| `{url}` | {v['asks']} | {v['p50']} | {v['p95']} | {v['max']} |")
            urls["_load"] = load
    results["uptime_at_end"] = _load()
    if args.json:
        print(json.dumps(results, indent=2))
    print(f"\nuptime at end: {_load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
