"""``recorder batch`` on a real Dask cluster (a LocalCluster of two worker processes) over
real files: the same facts as ``recorder import``, row for row; runs killed (the client,
a worker) and run again give the same datasets; a run again over the same or overlapping
sources changes nothing; without the scale extra, one line says what to install."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

from archives import (
    SHARD,
    batch_command,
    batch_refusals,
    columns,
    datasets,
    files,
    import_refusals,
    kill_client_midway,
    kill_worker_midway,
    ordered,
    parquet_rows,
    sqlite_rows,
    write_archive,
)
from archives import cluster as cluster  # the module's cluster (a fixture)
from click.testing import CliRunner
from conftest import make_game, subprocess_env

from recorder import batch, parquet
from recorder.batch import LOOPBACK
from recorder.cli import main


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    return write_archive(tmp_path_factory.mktemp("archive"))


@pytest.fixture(scope="module")
def imported(archive: list[str], tmp_path_factory: pytest.TempPathFactory
             ) -> tuple[Path, list[dict[str, Any]]]:
    """The archive through ``recorder import --json``: the database and every outcome."""
    db = tmp_path_factory.mktemp("import") / "recorder.db"
    result = CliRunner().invoke(main, ["import", "--json", *archive],
                                env={"RECORDER_DB": str(db)}, catch_exceptions=False)
    assert result.exit_code == 2, result.output  # d.jsonl.gz is cut off
    return db, [json.loads(line) for line in result.output.splitlines()]


def _run(cluster: Any, sources: list[str], out: Path, kind: str = "facts",
         **kw: Any) -> batch.Report:
    return batch.run(sources, str(out), kind, client=cluster, shard_bytes=SHARD, **kw)


def _same_as_sqlite(out: Path, db: Path) -> None:
    for table in ("games", "players", "rounds", "moves"):
        cols = columns(table)
        assert parquet_rows(out, table, cols) == sqlite_rows(db, table, cols), table


def test_batch_facts_gives_the_facts_of_the_import_row_for_row(
        cluster: Any, archive: list[str], imported: tuple[Path, list[dict[str, Any]]],
        tmp_path: Path) -> None:
    db, outcomes = imported
    report = _run(cluster, archive, tmp_path / "out")
    assert report.tally.shards > 2 * len(archive)  # the files were cut, work spread
    _same_as_sqlite(tmp_path / "out", db)  # ids too: identity decided in the import's order
    assert batch_refusals(tmp_path / "out") == import_refusals(outcomes)
    counts = outcomes[-1]
    assert (report.tally.accepted, report.tally.duplicate, report.tally.refused) == \
        (counts["accepted"], counts["duplicate"], counts["refused"])
    assert report.tally.unreadable == 1
    codes = {r[4] for r in batch_refusals(tmp_path / "out")}
    assert {"game/conflict", "move/illegal", "log/schema", "input/unreadable"} <= codes
    games = parquet.read_dataset(str(tmp_path / "out"), "games").to_pylist()
    assert {g["imported_at"] for g in games} == {games[0]["imported_at"]}
    assert all(g["played_at"] == (g["started_at"] or g["imported_at"]) for g in games)
    leftovers = [p for p in (tmp_path / "out").rglob("*") if p.name.startswith(".")
                 or "staging" in p.parts or "commit" in p.parts]
    assert not leftovers


def test_the_command_with_two_workers_matches_the_import(
        archive: list[str], imported: tuple[Path, list[dict[str, Any]]],
        tmp_path: Path) -> None:
    db, outcomes = imported
    out = tmp_path / "facts"
    done = subprocess.run(
        [sys.executable, "-m", "recorder.cli", "batch", "facts", *archive, "--out",
         str(out), "--workers", "2", "--shard-bytes", str(SHARD)],
        cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr  # an input was cut off, as for the import
    last = done.stdout.strip().splitlines()[-1]
    counts = outcomes[-1]
    assert f"{counts['accepted']} accepted, {counts['duplicate']} duplicate, " \
           f"{counts['refused']} refused" in last
    assert "d.jsonl.gz: refused: the gzip data is cut off before its end" in done.stderr
    _same_as_sqlite(out, db)
    assert batch_refusals(out) == import_refusals(outcomes)


def test_running_again_over_the_same_or_overlapping_sources_changes_nothing(
        cluster: Any, archive: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out"
    first = _run(cluster, archive[:2], out)
    before = files(out)
    again = _run(cluster, archive[:2], out)
    assert again.tally.skipped == again.tally.shards == first.tally.shards
    assert again.tally.total == 0
    assert files(out) == before
    # another file: copies of games stored, a refused document sent again, one new game
    overlap = tmp_path / "overlap.jsonl"
    new_game = make_game(300)
    overlap.write_text("\n".join([json.dumps(make_game(0)), json.dumps(make_game(1)),
                                  "{not json", json.dumps(make_game(22)),
                                  json.dumps(new_game)]) + "\n")
    third = _run(cluster, [archive[1], str(overlap)], out)
    assert (third.tally.accepted, third.tally.duplicate, third.tally.refused) == (1, 3, 1)
    after = files(out)
    assert {k: v for k, v in after.items() if k in before} == before
    added = sorted(set(after) - set(before))
    assert added and all(k.startswith(("games/", "players/", "rounds/", "moves/"))
                         for k in added)
    games = parquet.read_dataset(str(out), "games", ["id", "game_id"]).to_pylist()
    assert max(games, key=lambda g: g["id"])["game_id"] == new_game["game_id"]
    assert len({g["id"] for g in games}) == len(games)


def _clean(cluster: Any, sources: list[str], out: Path) -> dict[str, Any]:
    _run(cluster, sources, out)
    return datasets(out)


@pytest.fixture(scope="module")
def big_clean(cluster: Any, big: list[str], tmp_path_factory: pytest.TempPathFactory
              ) -> dict[str, Any]:
    """The datasets of ``big`` from a run nobody stopped."""
    return _clean(cluster, big, tmp_path_factory.mktemp("big-clean"))


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Enough games that a run takes seconds: time to kill it halfway."""
    folder = tmp_path_factory.mktemp("big")
    paths = []
    for part in range(2):
        path = folder / f"part{part}.jsonl"
        path.write_text("".join(json.dumps(make_game(1000 + part * 100 + i)) + "\n"
                                for i in range(45)))
        paths.append(str(path))
    return paths


def test_a_run_whose_client_is_killed_finishes_when_run_again(
        cluster: Any, big: list[str], big_clean: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    command = batch_command("facts", *big, "--out", str(out), "--workers", "2",
                            "--shard-bytes", str(SHARD))
    # the client, its scheduler and its workers, at once
    done_before = kill_client_midway(command, tmp_path, out, after=3)
    assert done_before >= 3
    total = len([s for src in batch.expand_sources(big) for s in
                 batch.plan_file(src, SHARD, batch.Limits())])
    assert done_before < total, "the run ended before it could be killed"
    again = subprocess.run(command, cwd=tmp_path, env=subprocess_env(), capture_output=True,
                           text=True, timeout=300)
    assert again.returncode == 0, again.stderr
    assert f"{total} shards, " in again.stdout
    skipped = int(again.stdout.split(" shards, ")[1].split()[0])
    assert skipped >= done_before  # what was done is not done again
    assert datasets(out) == big_clean


def test_a_worker_killed_mid_task_is_retried_and_the_datasets_are_the_same(
        cluster: Any, big: list[str], big_clean: dict[str, Any], tmp_path: Path) -> None:
    out = tmp_path / "out"
    run = kill_worker_midway(
        cluster, batch_command("facts", *big, "--out", str(out), "--scheduler",
                               cluster.scheduler.address, "--shard-bytes", str(SHARD)),
        tmp_path, out, task="recorder-facts-", after=2)
    assert run.pid is not None, "no task was seen running"
    assert run.returncode == 0, run.stderr
    cluster.wait_for_workers(2, timeout=60)
    assert run.pid not in cluster.run(os.getpid).values()  # the nanny started a new one
    assert "0 done before" in run.stdout
    assert datasets(out) == big_clean


def test_a_run_stopped_while_publishing_is_published_as_decided(
        cluster: Any, archive: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out"

    def progress(step: str, total: int, _: dict[str, Any]) -> Any:
        def update(n: int = 1, **__: Any) -> None:
            if step == "publish":
                raise KeyboardInterrupt  # the operator's Ctrl-C, one shard published

        return update

    with pytest.raises(KeyboardInterrupt):
        _run(cluster, archive, out, progress=progress)
    commit = json.loads((out / batch.MANIFEST / "commit.json").read_text())
    published = [r for r in batch.read_records(*parquet.filesystem(str(out))).values()
                 if r.status == "published"]
    assert 0 < len(published) < len(commit["shards"])
    again = _run(cluster, archive, out)
    assert again.tally.skipped == again.tally.shards
    assert not (out / batch.MANIFEST / "commit.json").exists()
    assert datasets(out) == _clean(cluster, archive, tmp_path / "clean")
    times = {g["imported_at"] for g in parquet.read_dataset(str(out), "games").to_pylist()}
    assert times == {commit["time"]}


def test_batch_replay_writes_the_verdicts_and_no_facts(
        cluster: Any, archive: list[str], tmp_path: Path) -> None:
    _run(cluster, archive, tmp_path / "facts")
    _run(cluster, archive, tmp_path / "verdicts", kind="replay")
    facts, verdicts = datasets(tmp_path / "facts"), datasets(tmp_path / "verdicts")
    assert verdicts["games"] == facts["games"]
    assert verdicts["refused"] == facts["refused"]
    assert verdicts["players"] == verdicts["rounds"] == verdicts["moves"] == []
    with pytest.raises(batch.BatchError, match="'batch replay'"):
        _run(cluster, archive, tmp_path / "facts", kind="replay")


def test_urls_of_fsspec_file_systems_are_sources(
        cluster: Any, archive: list[str], tmp_path: Path) -> None:
    urls = [Path(p).as_uri() for p in archive]
    _run(cluster, urls, tmp_path / "by-url")
    _run(cluster, archive, tmp_path / "by-path")
    by_url = datasets(tmp_path / "by-url")
    by_path = datasets(tmp_path / "by-path")
    assert by_url["games"] == by_path["games"]
    # the same refusals, each under its source as given (an input that cannot be read
    # is known by its source: its hash differs)
    assert ordered(r[1:-1] for r in by_url["refused"]) == \
        ordered(r[1:-1] for r in by_path["refused"])
    assert {r[0] for r in by_url["refused"]} == set(urls)  # each source has a refusal


def test_a_run_all_in_memory_urls_on_a_cluster_of_threads(tmp_path: Path) -> None:
    import fsspec
    from distributed import Client, LocalCluster

    fs = fsspec.filesystem("memory")
    logs = "".join(json.dumps(make_game(i)) + "\n" for i in range(12)).encode()
    fs.pipe("/logs/games.jsonl", logs)
    (tmp_path / "games.jsonl").write_bytes(logs)
    try:
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                          dashboard_address=LOOPBACK, silence_logs=logging.ERROR) as local, \
                Client(local) as client:
            batch.run(["memory://logs/"], "memory://facts", "facts", client=client,
                      shard_bytes=SHARD)
            _run(client, [str(tmp_path / "games.jsonl")], tmp_path / "local")
        in_memory = {name: ordered(parquet.rows_of([parquet.read_dataset(
            "memory://facts", name, columns(name))])) for name in parquet.DATASETS}
        assert in_memory == datasets(tmp_path / "local")
        assert len(in_memory["games"]) == 12
    finally:
        for folder in ("/logs", "/facts"):
            if fs.exists(folder):
                fs.rm(folder, recursive=True)


@pytest.mark.parametrize("command", [["batch", "facts", "x.jsonl", "--out", "o"],
                                     ["batch", "replay", "x.jsonl", "--out", "o"],
                                     ["export", "--parquet", "o"]])
def test_without_the_scale_extra_one_line_says_what_to_install(
        tmp_path: Path, command: list[str]) -> None:
    code = ("import sys\n"
            "for name in ('pyarrow', 'dask', 'distributed'):\n"
            "    sys.modules[name] = None\n"
            "from recorder.cli import main\n"
            f"main({command!r})\n")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=subprocess_env(),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 3
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1
    assert "pip install 'domino-recorder[scale]'" in lines[0]
    assert not list(tmp_path.iterdir())


def test_a_source_that_names_nothing_stops_the_run_before_it_starts(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["batch", "facts", str(tmp_path / "none.jsonl"),
                                       "--out", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "no such file or folder" in result.output
    assert not (tmp_path / "out").exists()

