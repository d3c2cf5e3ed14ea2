"""``recorder batch review`` on a real Dask cluster (a LocalCluster of two worker processes)
over real files: the reviews ``recorder review --json`` prints, byte for byte, beside the
facts of ``batch facts``; runs again, over the same or overlapping sources, change
nothing; runs killed (the client, a worker) and run again give the same datasets;
reviews with other settings are kept apart."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

from archives import batch_command, datasets, files, kill_client_midway, kill_worker_midway
from archives import cluster as cluster  # the module's cluster (a fixture)
from click.testing import CliRunner
from conftest import break_game, subprocess_env

from recorder import batch, parquet
from recorder.cli import main
from recorder.review import Settings
from recorder.reviews import settings_key
from recorder.simulate import simulate_game

PERFECT = Settings(view="perfect")
SMALL = {"preset": "classic", "options": {"hand_size": 4, "draw": "none", "target": 25}}
"""Small block games: a round is reviewed in milliseconds, in either view."""
SHARD = 4096
"""Bytes per shard: a game or two each."""


LARGER = {"preset": "classic", "options": {"hand_size": 6, "draw": "none", "target": 60}}
"""Two-player games of these take a tenth of a second to review with 8 deals."""


def small_games(
    first: int, n: int, *, rules: Any = SMALL, three: bool = True
) -> list[dict[str, Any]]:
    """Two-player games, and with ``three`` every other one for three players."""
    return [
        simulate_game(
            rules, 2 + i % 2 * three, f"batch-review-{i}", game_id=f"batch-review-{i}", max_rounds=6
        )
        for i in range(first, first + n)
    ]


def write_lines(path: Path, lines: list[str]) -> str:
    path.write_text("".join(line + "\n" for line in lines))
    return str(path)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Two files: valid games, a copy of one, a game the engine refuses, a line that is
    not JSON, a game with no round."""
    folder = tmp_path_factory.mktemp("archive")
    games = small_games(0, 12)
    empty = dict(games[0], game_id="batch-review-empty", rounds=[])
    a = [json.dumps(g) for g in games[:7]] + [
        json.dumps(break_game(games[11])),
        "{not json",
        json.dumps(empty),
    ]
    b = [json.dumps(g) for g in games[7:11]] + [json.dumps(games[2])]
    return [write_lines(folder / "a.jsonl", a), write_lines(folder / "b.jsonl", b)]


def _run(
    cluster: Any,
    sources: list[str],
    out: Path,
    settings: Settings = PERFECT,
    kind: str = "review",
    **kw: Any,
) -> batch.Report:
    return batch.run(
        sources, str(out), kind, client=cluster, shard_bytes=SHARD, settings=settings, **kw
    )


def _cli_reviews(sources: list[str], *args: str) -> dict[str, str]:
    """``recorder review --json`` of the sources: each game's line, by game_id."""
    result = CliRunner().invoke(
        main, ["review", "--json", "--workers", "0", "--no-progress", *args, *sources]
    )
    lines = [json.loads(line) for line in result.output.splitlines()]
    return {
        d["game_id"]: json.dumps(d, ensure_ascii=False) for d in lines if d["status"] != "invalid"
    }


def _batch_reviews(out: Path, settings: Settings) -> dict[str, str]:
    reviews = batch.reviews_of(str(out), settings)
    games = {
        g["id"]: g["game_id"]
        for g in parquet.read_dataset(str(out), "games", ["id", "game_id"]).to_pylist()
    }
    assert len({games[g] for g in reviews}) == len(reviews)  # one review a game
    return {games[g]: json.dumps(r, ensure_ascii=False) for g, r in reviews.items()}


def _all_files(out: Path) -> dict[str, bytes]:
    return {
        **files(out),
        **{
            str(p.relative_to(out)): p.read_bytes()
            for name in parquet.REVIEW_DATASETS
            for p in sorted((out / name).rglob("*.parquet"))
        },
    }


def _review_rows(out: Path) -> dict[str, list[tuple[Any, ...]]]:
    """The review datasets' rows, sorted, without the time of publishing."""
    rows = {}
    for name in parquet.REVIEW_DATASETS:
        cols = [c for c in parquet.REVIEW_SCHEMAS[name].names if c != "reviewed_at"]
        data = parquet.read_dataset(str(out), name, cols)
        rows[name] = sorted(
            zip(*(data.column(c).to_pylist() for c in cols), strict=True),
            key=lambda r: tuple((v is not None, v) for v in r),
        )
    return rows


def test_batch_review_writes_what_recorder_review_prints_beside_the_facts(
    cluster: Any, archive: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    report = _run(cluster, archive, out)
    assert report.tally.shards > len(archive)  # the files were cut
    assert (report.tally.accepted, report.tally.duplicate, report.tally.refused) == (12, 1, 2)
    assert report.tally.reviewed == 12
    expected = _cli_reviews(archive, "--view", "perfect")
    assert len(expected) == 12
    assert _batch_reviews(out, PERFECT) == expected  # the same bytes, game by game
    # the facts are those of batch facts, the refusals too
    _run(cluster, archive, tmp_path / "facts", kind="facts")
    assert datasets(out) == datasets(tmp_path / "facts")
    codes = {r["code"] for r in parquet.read_dataset(str(out), "refused").to_pylist()}
    assert codes == {"move/illegal", "input/unreadable"}
    # a game without a round has its one row of round 0
    reviews = parquet.read_dataset(str(out), "reviews").to_pylist()
    assert [r["rounds"] for r in reviews if r["round"] == 0] == [0]
    assert {r["settings"] for r in reviews} == {settings_key(PERFECT)}
    decisions = parquet.read_dataset(str(out), "review_decisions").to_pylist()
    assert len(decisions) == sum(r["decisions"] for r in reviews) > 0
    leftovers = [
        p
        for p in out.rglob("*")
        if p.name.startswith(".") or "staging" in p.parts or "commit" in p.parts
    ]
    assert not leftovers


def test_the_decisions_dataset_gives_each_players_accuracy_in_duckdb(
    cluster: Any, archive: list[str], tmp_path: Path
) -> None:
    import duckdb

    out = tmp_path / "out"
    _run(cluster, archive, out)
    reviews = batch.reviews_of(str(out), PERFECT)
    expected = sorted(
        (game, p["seat"], p["decisions"], p["mean_loss"], p["best_share"])
        for game, r in reviews.items()
        for p in r["players"]
        if p["decisions"]
    )
    got = duckdb.sql(
        "SELECT game, player, count(*), round(avg(loss), 4), "
        "round(avg((class = 'best')::INTEGER), 4) FROM read_parquet(?) "
        "WHERE class IS NOT NULL GROUP BY game, player ORDER BY ALL",
        params=[str(out / "review_decisions" / "*" / "*.parquet")],
    ).fetchall()
    assert [tuple(r) for r in got] == expected
    rows = duckdb.sql(
        "SELECT played_value, best_value, worst_value, loss FROM "
        "read_parquet(?) WHERE class IS NOT NULL",
        params=[str(out / "review_decisions" / "*" / "*.parquet")],
    ).fetchall()
    assert all(w <= p <= b and abs(b - p - loss) < 1e-9 for p, b, w, loss in rows)


def test_running_again_over_the_same_or_overlapping_sources_changes_nothing(
    cluster: Any, archive: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    first = _run(cluster, archive, out)
    before = _all_files(out)
    again = _run(cluster, archive, out)
    assert again.tally.skipped == again.tally.shards == first.tally.shards
    assert again.tally.reviewed == again.tally.reviewed_rounds == 0
    assert _all_files(out) == before
    # another file: copies of reviewed games, and one new game
    new = small_games(40, 1)
    old = small_games(0, 2)
    overlap = write_lines(
        tmp_path / "overlap.jsonl", [json.dumps(old[0]), json.dumps(new[0]), json.dumps(old[1])]
    )
    third = _run(cluster, [archive[1], overlap], out)
    assert (third.tally.accepted, third.tally.duplicate, third.tally.reviewed) == (1, 2, 1)
    after = _all_files(out)
    assert {k: v for k, v in after.items() if k in before} == before
    assert _batch_reviews(out, PERFECT) == _cli_reviews([*archive, overlap], "--view", "perfect")


def test_reviews_with_other_settings_are_kept_apart_in_a_folder_of_facts(
    cluster: Any, archive: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    _run(cluster, archive, out, kind="facts")
    facts = datasets(out)
    sampled = Settings(view="player", samples=2, seed="s1")
    for settings in (PERFECT, sampled):
        report = _run(cluster, archive, out, settings=settings)
        assert report.tally.accepted == 0 and report.tally.reviewed == 12
    assert datasets(out) == facts  # the games were there: nothing new but reviews
    assert _batch_reviews(out, PERFECT) == _cli_reviews(archive, "--view", "perfect")
    assert _batch_reviews(out, sampled) == _cli_reviews(archive, "--samples", "2", "--seed", "s1")
    keys = {r["settings"] for r in parquet.read_dataset(str(out), "reviews").to_pylist()}
    assert keys == {settings_key(PERFECT), settings_key(sampled)}
    before = _all_files(out)
    assert _run(cluster, archive, out, settings=sampled).tally.reviewed == 0
    assert _all_files(out) == before


def test_a_folder_of_batch_replay_is_refused_and_left_as_it_was(
    cluster: Any, archive: list[str], tmp_path: Path
) -> None:
    out = tmp_path / "verdicts"
    _run(cluster, archive, out, kind="replay")
    before = {str(p): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    with pytest.raises(batch.BatchError, match="'batch replay'"):
        _run(cluster, archive, out)
    after = {str(p): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before


def test_bad_options_say_why_and_write_nothing(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "g.jsonl", [json.dumps(g) for g in small_games(0, 1)])
    for args, message in (
        (["--samples", "0"], "0 is not in the range"),
        (["--view", "all"], "'all' is not one of"),
    ):
        result = CliRunner().invoke(
            main, ["batch", "review", path, "--out", str(tmp_path / "out"), *args]
        )
        assert result.exit_code == 2 and message in result.output, result.output
    result = CliRunner().invoke(
        main, ["batch", "review", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 1 and "no such file or folder" in result.output
    assert not (tmp_path / "out").exists()


def test_without_the_scale_extra_one_line_says_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "for name in ('pyarrow', 'dask', 'distributed'):\n"
        "    sys.modules[name] = None\n"
        "from recorder.cli import main\n"
        "main(['batch', 'review', 'x.jsonl', '--out', 'o'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 3
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        "recorder: recorder batch review needs the scale extra (dask is missing): "
        "pip install 'domino-recorder[scale]'"
    ]
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------------------------------
# Runs killed half way.


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Enough reviewing that a run takes seconds: time to kill it halfway."""
    folder = tmp_path_factory.mktemp("big")
    parts = [small_games(100 + part * 100, 16, rules=LARGER, three=False) for part in range(2)]
    return [
        write_lines(folder / f"part{i}.jsonl", [json.dumps(g) for g in games])
        for i, games in enumerate(parts)
    ]


@pytest.fixture(scope="module")
def big_clean(
    cluster: Any, big: list[str], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """The datasets of ``big`` from a run nobody stopped."""
    out = tmp_path_factory.mktemp("big-clean")
    _run(cluster, big, out, settings=BIG)
    return {**datasets(out), **_review_rows(out)}


BIG = Settings(view="player", samples=8)
"""Sampled: a shard takes a while."""
BIG_ARGS = ["--samples", "8", "--shard-bytes", str(SHARD)]


def test_a_run_whose_client_is_killed_finishes_when_run_again(
    big: list[str], big_clean: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    command = batch_command("review", *big, "--out", str(out), "--workers", "2", *BIG_ARGS)
    # the client, its scheduler and workers
    done_before = kill_client_midway(command, tmp_path, out, after=2)
    total = len(
        [
            s
            for src in batch.expand_sources(big)
            for s in batch.plan_file(src, SHARD, batch.Limits())
        ]
    )
    assert 2 <= done_before < total, "the run ended before it could be killed"
    again = subprocess.run(
        command, cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stderr
    assert f"{total} shards, " in again.stdout
    skipped = int(again.stdout.split(" shards, ")[1].split()[0])
    assert skipped >= done_before  # what was done is not done again
    assert "32 games' reviews published" in again.stdout
    assert {**datasets(out), **_review_rows(out)} == big_clean


def test_a_worker_killed_mid_review_is_retried_and_the_datasets_are_the_same(
    cluster: Any, big: list[str], big_clean: dict[str, Any], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    command = batch_command(
        "review", *big, "--out", str(out), "--scheduler", cluster.scheduler.address, *BIG_ARGS
    )
    run = kill_worker_midway(cluster, command, tmp_path, out, task="recorder-review-", after=1)
    assert run.pid is not None, "no task was seen running"
    assert run.returncode == 0, run.stderr
    cluster.wait_for_workers(2, timeout=60)
    assert "0 done before" in run.stdout
    assert "review" in run.stderr  # the progress bar of the reviewing step
    assert {**datasets(out), **_review_rows(out)} == big_clean
