"""Archives for the batch and export tests: real files of JSON Lines (plain, gzip, cut
off), the games and the faults in them, and the comparisons of Parquet with SQLite."""

from __future__ import annotations

import copy
import gzip
import json
import logging
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from conftest import break_game, make_game, subprocess_env

from recorder import parquet, storage

SKIP_TIME = ("imported_at", "played_at", "refused_at")
SHARD = 20_000
"""Bytes per shard in the tests: every file of the archive is cut into many."""


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    """Two worker processes, one thread each, as ``recorder batch --workers 2`` starts
    (a test module that imports this fixture gets its own, closed after its tests)."""
    from distributed import Client, LocalCluster

    from recorder.batch import LOOPBACK

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=LOOPBACK, silence_logs=logging.ERROR) as local, \
            Client(local) as client:
        yield client
"""The columns that say when a game was stored: equal only within one store."""


def write_archive(folder: Path) -> list[str]:
    """Four inputs with everything a real archive holds; returns their paths in order.

    ``a.jsonl``: a BOM, CRLF lines then LF lines, blank lines, a line that is not JSON, an
    invalid game, a copy of an earlier game, a game that takes another's frontend +
    game_id, a document that is not a log; ``b.jsonl.gz``: games that overlap a's, new
    ones, a log without a ruleset; ``c.json``: a JSON array, one game of it invalid;
    ``d.jsonl.gz``: gzip cut off after some of its games.
    """
    folder.mkdir(parents=True, exist_ok=True)
    games = [make_game(i) for i in range(40)]
    lines: list[str] = []
    for i, game in enumerate(games[:25]):
        lines.append(json.dumps(game))
        if i == 3:
            lines.append("")
        if i == 5:
            lines.append("{not json")
        if i == 7:
            lines.append(json.dumps(break_game(games[30])))
        if i == 9:
            lines.append(json.dumps(games[2]))
        if i == 11:
            other = copy.deepcopy(games[4])
            other["players"][0]["name"] = "Someone else"
            lines.append(json.dumps(other))
        if i == 13:
            lines.append("   \t ")
        if i == 15:
            lines.append(json.dumps([1, 2]))
    text = "\ufeff" + "\r\n".join(lines[:12]) + "\r\n" + "\n".join(lines[12:]) + "\n"
    (folder / "a.jsonl").write_text(text, encoding="utf-8")
    b = [json.dumps(g) for g in games[20:40]] + ['{"format": "domino-log/1"}',
                                                  json.dumps(games[0])]
    (folder / "b.jsonl.gz").write_bytes(gzip.compress(("\n".join(b) + "\n").encode()))
    (folder / "c.json").write_text(json.dumps(
        [make_game(100), make_game(101), break_game(make_game(102))]))
    whole = gzip.compress(("\n".join(json.dumps(make_game(200 + i)) for i in range(10))
                           + "\n").encode())
    (folder / "d.jsonl.gz").write_bytes(whole[: len(whole) * 2 // 3])
    return [str(folder / name) for name in ("a.jsonl", "b.jsonl.gz", "c.json", "d.jsonl.gz")]


def ordered(rows: Any) -> list[tuple[Any, ...]]:
    """Rows sorted, nulls first in each column (None does not compare with a value)."""
    return sorted(rows, key=lambda row: tuple((v is not None, v) for v in row))


def sqlite_rows(db_path: Path, table: str, columns: list[str]) -> list[tuple[Any, ...]]:
    """The rows as a dataset holds them: the log as the text received (the store keeps
    it compressed)."""
    with sqlite3.connect(db_path) as db:
        names = ", ".join(f"[{c}]" for c in columns)
        rows = db.execute(f"SELECT {names} FROM [{table}]").fetchall()
    if table == "games" and "log" in columns:
        at = columns.index("log")
        rows = [(*r[:at], storage.log_text(r[at]), *r[at + 1:]) for r in rows]
    return ordered(rows)


def parquet_rows(out: str | Path, dataset: str, columns: list[str]) -> list[tuple[Any, ...]]:
    data = parquet.read_dataset(str(out), dataset, columns)
    return ordered(zip(*(data.column(c).to_pylist() for c in columns), strict=True))


def columns(dataset: str, *, skip: tuple[str, ...] = SKIP_TIME) -> list[str]:
    return [c for c in parquet.SCHEMAS[dataset].names if c not in skip]


def datasets(out: str | Path, *, skip: tuple[str, ...] = SKIP_TIME
             ) -> dict[str, list[tuple[Any, ...]]]:
    """Every dataset's rows, sorted, without the columns in ``skip`` (and without the
    time a conflict's message names, when ``skip`` leaves times out)."""
    out_rows = {name: parquet_rows(out, name, columns(name, skip=skip))
                for name in parquet.DATASETS}
    if "imported_at" in skip:
        at = columns("refused", skip=skip).index("message")
        out_rows["refused"] = ordered((*r[:at], without_time(r[at]), *r[at + 1:])
                                      for r in out_rows["refused"])
    return out_rows


def files(out: Path) -> dict[str, bytes]:
    """Every data file of the datasets, by path, with its bytes."""
    return {str(p.relative_to(out)): p.read_bytes()
            for name in parquet.DATASETS for p in sorted((out / name).rglob("*.parquet"))}


_AT = re.compile(r" on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)")


def without_time(message: str) -> str:
    """A conflict's message names when the other game was stored: not comparable."""
    return _AT.sub(")", message)


def import_refusals(outcomes: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The refusals of ``recorder import --json`` as the refused dataset keeps them."""
    return ordered(
        (o["source"], o["line"], o["index"], o["game_id"], o["error"]["code"],
         o["error"].get("pointer"), without_time(o["error"]["message"]),
         o["error"]["round"], o["error"]["move"])
        for o in outcomes if o.get("status") == "refused")


def batch_refusals(out: str | Path) -> list[tuple[Any, ...]]:
    rows = parquet_rows(out, "refused", ["source", "line", "index", "game_id", "code",
                                         "pointer", "message", "round", "move"])
    return ordered((*r[:6], without_time(r[6]), *r[7:]) for r in rows)


# ---------------------------------------------------------------------------------------
# Runs killed half way.

KILL_WAIT: Final = 240
"""Seconds a run may take to reach the point where it is killed (a loaded machine)."""


def records(out: Path) -> int:
    """Shards the run into ``out`` has recorded as done so far."""
    from recorder.batch import MANIFEST

    folder = out / MANIFEST / "shards"
    return len(list(folder.glob("*.json"))) if folder.exists() else 0


def batch_command(*args: str) -> list[str]:
    """``recorder batch ...`` as a child process runs it."""
    return [sys.executable, "-m", "recorder.cli", "batch", *args]


def kill_client_midway(command: Sequence[str], cwd: Path, out: Path, after: int) -> int:
    """Start ``command`` (a batch run that starts its own cluster) in a session of its
    own and kill it, with its scheduler and workers, at once once ``after`` shards are
    recorded; returns the shards recorded by then (the run may have ended first: the
    caller checks that some were left)."""
    proc = subprocess.Popen(list(command), cwd=cwd, env=subprocess_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + KILL_WAIT
        while records(out) < after and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=30)
    return records(out)


@dataclass
class KilledWorker:
    """What :func:`kill_worker_midway` saw: the worker process it killed (None: no task
    was seen running) and how the run ended."""

    pid: int | None
    returncode: int
    stdout: str
    stderr: str


def kill_worker_midway(cluster: Any, command: Sequence[str], cwd: Path, out: Path, *,
                       task: str, after: int) -> KilledWorker:
    """Run ``command`` (a batch run on ``cluster``'s scheduler) and SIGKILL the worker
    process running a task whose key starts with ``task`` once ``after`` shards are
    recorded, then let the run finish (Dask retries the task elsewhere)."""
    pids = cluster.run(os.getpid)
    proc = subprocess.Popen(list(command), cwd=cwd, env=subprocess_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    killed = None
    try:
        deadline = time.monotonic() + KILL_WAIT
        while killed is None and proc.poll() is None and time.monotonic() < deadline:
            for worker, keys in cluster.processing().items():
                if any(str(k).startswith(task) for k in keys) and records(out) >= after:
                    killed = pids[worker]
                    os.kill(killed, signal.SIGKILL)
                    break
            time.sleep(0.02)
        stdout, stderr = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return KilledWorker(killed, proc.returncode, stdout, stderr)
