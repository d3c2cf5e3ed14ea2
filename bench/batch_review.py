"""``recorder batch review`` beside ``recorder review --json`` on the same logs, in one run.

    python bench/batch_review.py [--games 40] [--workers 1 2] [--view player|perfect]

Generates 2-player block games (classic, ``draw: none``, up to 4 rounds), reviews them
with each command and each number of workers, and prints the wall seconds, the CPU
seconds of the command and its processes (the cluster's workers included: they are its
children), and the rounds reviewed per CPU second; then checks that both give the same
reviews. CPU seconds compare fairly on a shared machine, wall seconds do not.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from recorder import batch  # noqa: E402
from recorder.review import DEFAULT_SAMPLES, Settings  # noqa: E402
from recorder.simulate import simulate_game  # noqa: E402

BLOCK = {"preset": "classic", "options": {"draw": "none"}}


def timed(command: list[str]) -> tuple[float, float, str]:
    """Wall and CPU seconds (user + system, of the command and its children), stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(command)} failed: {done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--view", choices=["player", "perfect"], default="player")
    parser.add_argument(
        "--shard-bytes",
        type=int,
        nargs="+",
        default=[0],
        help="batch review's shard sizes to run (0: its default)",
    )
    args = parser.parse_args()
    settings = Settings(view=args.view, samples=DEFAULT_SAMPLES)
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "block.jsonl"
        logs.write_text(
            "".join(
                json.dumps(
                    simulate_game(BLOCK, 2, f"bench-{i}", game_id=f"bench-{i}", max_rounds=4)
                )
                + "\n"
                for i in range(args.games)
            )
        )
        rounds = sum(len(json.loads(line)["rounds"]) for line in logs.read_text().splitlines())
        print(
            f"{args.games} games, {rounds} rounds, {args.view} view; load "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
        )
        print(f"{'command':34} {'workers':>7} {'wall s':>8} {'CPU s':>8} {'rounds/CPU s':>13}")
        cli = [sys.executable, "-m", "recorder.cli"]
        view = ["--view", args.view]
        outputs = {}
        for workers in args.workers:
            wall, cpu, text = timed(
                [
                    *cli,
                    "review",
                    "--json",
                    "--no-progress",
                    *view,
                    "--workers",
                    str(workers),
                    str(logs),
                ]
            )
            outputs["review"] = sorted(text.splitlines())
            print(
                f"{'recorder review --json':34} {workers:>7} {wall:8.1f} {cpu:8.1f} "
                f"{rounds / cpu:13.1f}"
            )
            for shard_bytes in args.shard_bytes:
                out = Path(tmp) / f"out-{workers}-{shard_bytes}"
                sized = ["--shard-bytes", str(shard_bytes)] if shard_bytes else []
                wall, cpu, _ = timed(
                    [
                        *cli,
                        "batch",
                        "review",
                        str(logs),
                        "--out",
                        str(out),
                        *view,
                        *sized,
                        "--workers",
                        str(workers),
                    ]
                )
                outputs["batch"] = sorted(
                    json.dumps(r, ensure_ascii=False)
                    for r in batch.reviews_of(str(out), settings).values()
                )
                name = f"recorder batch review ({shard_bytes // 1024 or 16} KiB)"
                print(f"{name:34} {workers:>7} {wall:8.1f} {cpu:8.1f} {rounds / cpu:13.1f}")
                if outputs["batch"] != outputs["review"]:
                    raise SystemExit("the two commands gave different reviews")
        print("the same reviews from both commands")


if __name__ == "__main__":
    main()
