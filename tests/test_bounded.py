"""Every command does bounded work whatever the file holds: memory stays flat on a gzip
bomb of blank lines, and the documents around it are answered.

Run on real files in child processes, whose peak RSS the kernel reports (``wait4``).
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env

GiB = 1 << 30
MiB = 1 << 20


def run_measured(args: list[str], cwd: Path) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak RSS in bytes of the process and its children)."""
    out, err = cwd / "out.txt", cwd / "err.txt"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-c", "from recorder.cli import main; main()",
                                 *args], cwd=cwd, env=subprocess_env(), stdout=stdout,
                                stderr=stderr)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, out.read_text(), err.read_text(), usage.ru_maxrss * 1024


@pytest.fixture(scope="module")
def newline_bomb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A 1 MB ``.gz``: one game, 1 GiB of newlines, two more games.

    gzip members may follow each other in one file, so the gigabyte is one compressed
    MiB of newlines repeated: the file is written in milliseconds.
    """
    games = [make_game(seed) for seed in (11, 12, 13)]
    lines = [json.dumps(game).encode() + b"\n" for game in games]
    blank = gzip.compress(b"\n" * MiB, 9)
    path = tmp_path_factory.mktemp("bomb") / "bomb.jsonl.gz"
    with open(path, "wb") as f:
        f.write(gzip.compress(lines[0]))
        for _ in range(GiB // MiB):
            f.write(blank)
        f.write(gzip.compress(lines[1] + lines[2]))
    assert path.stat().st_size < 2 * MiB
    return path, games


FLAT = 300 * MiB
"""The most a command may take on the bomb: it holds three games (about 70 MB is a
command's own size); reading the gigabyte of newlines into memory took 1.05 GB."""


def test_import_of_a_newline_bomb_stays_flat_and_stores_the_three_games(
        newline_bomb: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    path, games = newline_bomb
    code, out, err, peak = run_measured(
        ["import", "--json", "--db", str(tmp_path / "r.db"), str(path)], tmp_path)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(r["game_id"], r["status"]) for r in lines[:-1]] == \
        [(g["game_id"], "accepted") for g in games]
    assert lines[-1] == {"accepted": 3, "duplicate": 0, "refused": 0}
    assert [r["line"] for r in lines[:3]] == [1, GiB + 2, GiB + 3]
    assert peak < FLAT, f"peak RSS {peak / MiB:.0f} MiB"


@pytest.mark.parametrize("command", ["validate", "replay"])
def test_validate_and_replay_of_a_newline_bomb_stay_flat(
        newline_bomb: tuple[Path, list[dict[str, Any]]], tmp_path: Path, command: str) -> None:
    path, games = newline_bomb
    args = [command, "--json", str(path)] if command == "replay" else [command, str(path)]
    code, out, err, peak = run_measured(args, tmp_path)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 3
    for line, game in zip(lines, games, strict=True):
        if command == "replay":
            assert json.loads(line)["game_id"] == game["game_id"]
            assert json.loads(line)["status"] == "finished"
        else:
            assert line.startswith(f"{game['game_id']}: ok")
    assert peak < FLAT, f"peak RSS {peak / MiB:.0f} MiB"


@pytest.mark.parametrize(("text", "expected"), [
    # (what the file holds, with B for more blank lines than the input limit, and what
    # comes out: a document's game_id, or "!" for a line refused)
    (b'{"game_id": "a"}\nB{"game_id": "b"}\n{"game_id": "c"}\n', ["a", "b", "c"]),
    (b'{"game_id": "a"}\nB', ["a"]),
    (b'B{"game_id": "a"}\n{"game_id": "b"}\n', ["a", "b"]),
    (b'{"game_id": \nB{"game_id": "b"}\n{"game_id": "c"}\n', ["!", "b", "c"]),
    (b'{"game_id":\nB"a"}\n', "too large"),
])
def test_blank_lines_beyond_the_input_limit_are_never_kept(
        tmp_path: Path, text: bytes, expected: list[str] | str) -> None:
    from recorder.errors import TooLarge
    from recorder.parse import Limits, iter_path

    limits = Limits(max_input_bytes=4096)
    path = tmp_path / "blank.jsonl"
    path.write_bytes(text.replace(b"B", b"\n \r\n\t\n" * 5000))
    if expected == "too large":
        with pytest.raises(TooLarge):
            list(iter_path(str(path), limits=limits))
        return
    got = ["!" if p.error else p.doc["game_id"] for p in iter_path(str(path), limits=limits)]
    assert got == expected
