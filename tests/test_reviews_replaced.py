"""Old reviews are replaced, not kept beside the new: storing a game's review deletes its
rows made by another version of the review or with settings no longer used (earlier
limits), in ``round_reviews`` and ``review_seats`` alike, so reviewing a store again after
the review changed leaves it the size it was. Reviews with other current settings stay."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_reviews import FAST, SMALL_BLOCK, games_of, small_game, stored_games

from recorder import review, reviews, storage
from recorder.review import Settings

PERFECT = Settings(view="perfect")
EARLIER_LIMITS = reviews.settings_key(FAST).replace("round_positions=", "round_positions=5")
"""FAST's settings string as an earlier default of the round's limit would have written it."""


def keys(db: Any, table: str = "round_reviews") -> dict[tuple[int, str, int], int]:
    """Rows per (game, settings, version)."""
    return {(g, s, v): n for g, s, v, n in db.execute(
        f"SELECT game, settings, version, count(*) FROM {table} GROUP BY 1, 2, 3")}


def copy_review(db: Any, game: int, key: str, from_key: str, version: int) -> None:
    """The game's rows of ``from_key`` again, as if written with ``key`` by ``version``."""
    with storage.write_transaction(db):
        db.execute("INSERT INTO round_reviews SELECT game, ?, round, ?, rounds, decisions, "
                   "reviewed_at, body FROM round_reviews WHERE game = ? AND settings = ?",
                   [key, version, game, from_key])
        db.execute("INSERT INTO review_seats SELECT game, ?, round, seat, ?, decisions, "
                   "loss_sum, loss_sq, best, marked, range_sum FROM review_seats "
                   "WHERE game = ? AND settings = ?", [key, version, game, from_key])


def review_db(cli: Any, tmp_path: Path, *args: str) -> None:
    result = cli("review", "--db", str(tmp_path / "recorder.db"), "--workers", "0",
                 "--no-progress", *args)
    assert result.exit_code == 0, result.output


def test_the_current_settings_strings_are_those_the_commands_write() -> None:
    for settings in (Settings(), PERFECT, FAST, Settings(samples=7, seed="a b=c")):
        assert reviews.is_current(reviews.settings_key(settings))
    for settings in (Settings(positions=5), Settings(round_positions=7),
                     Settings(max_decisions=3)):
        assert not reviews.is_current(reviews.settings_key(settings))
    assert not reviews.is_current(EARLIER_LIMITS)
    assert not reviews.is_current("player samples=0 seed=x " + reviews.settings_key(
        PERFECT).removeprefix("perfect "))
    assert not reviews.is_current("something positions=1")


def test_reviewing_again_replaces_old_versions_and_old_limits_and_keeps_the_other_view(
        cli: Any, db: Any, tmp_path: Path) -> None:
    stored_games(cli, tmp_path, [small_game(SMALL_BLOCK, 2, f"replaced-{i}") for i in range(3)])
    review_db(cli, tmp_path, "--samples", "3")
    review_db(cli, tmp_path, "--view", "perfect")
    first, second, third = sorted(games_of(db))
    fast, perfect = reviews.settings_key(FAST), reviews.settings_key(PERFECT)
    wanted = keys(db)
    seats = keys(db, "review_seats")
    assert {k[1] for k in wanted} == {fast, perfect}
    # the first game's FAST review: by the version before, and with earlier limits; the
    # second's perfect one by the version before, beside its current one
    with storage.write_transaction(db):
        db.execute("DELETE FROM round_reviews WHERE game = ? AND settings = ?", [first, fast])
        db.execute("DELETE FROM review_seats WHERE game = ? AND settings = ?", [first, fast])
    copy_review(db, first, fast, perfect, review.VERSION - 1)
    copy_review(db, first, EARLIER_LIMITS, perfect, review.VERSION)
    copy_review(db, second, "perfect old", perfect, review.VERSION - 1)
    copy_review(db, third, perfect.replace("decisions=", "decisions=9"), perfect,
                review.VERSION)
    assert reviews.needing_review(db, FAST) == [first]
    old = keys(db)
    review_db(cli, tmp_path, "--samples", "3")
    for table, before in (("round_reviews", wanted), ("review_seats", seats)):
        now = keys(db, table)
        # the first game's old rows replaced, none beside them
        assert {k: n for k, n in now.items() if k[0] == first} == \
            {k: n for k, n in before.items() if k[0] == first}
    assert {k: n for k, n in keys(db).items() if k[0] != first} == \
        {k: n for k, n in old.items() if k[0] != first}  # not reviewed: left as they were
    # the others are replaced once their game is reviewed with current settings
    sampled = Settings(samples=2)
    review_db(cli, tmp_path, "--samples", "2")
    got = keys(db)
    assert {(g, s) for g, s, _ in got} == {(g, s) for g in (first, second, third)
                                          for s in (fast, perfect, reviews.settings_key(sampled))}
    assert {v for _, _, v in got} == {review.VERSION}
    assert {(g, s, v) for g, s, v in keys(db, "review_seats")} == set(got)


def test_after_the_version_changes_one_run_leaves_the_store_its_size(
        cli: Any, db: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    stored_games(cli, tmp_path, [small_game(SMALL_BLOCK, 2, f"bumped-{i}") for i in range(2)])
    review_db(cli, tmp_path, "--samples", "3")
    review_db(cli, tmp_path, "--view", "perfect")
    rows = reviews.count_stored(db)
    monkeypatch.setattr(reviews, "VERSION", review.VERSION + 1)
    review_db(cli, tmp_path, "--samples", "3")  # one view reviewed again: the other goes
    fast = reviews.settings_key(FAST)
    assert {(s, v) for _, s, v in keys(db)} == {(fast, review.VERSION + 1)}
    assert {(s, v) for _, s, v in keys(db, "review_seats")} == {(fast, review.VERSION + 1)}
    review_db(cli, tmp_path, "--view", "perfect")
    assert reviews.count_stored(db) == rows


def test_a_review_with_other_limits_leaves_the_current_ones(cli: Any, db: Any,
                                                           tmp_path: Path) -> None:
    stored_games(cli, tmp_path, [small_game(SMALL_BLOCK, 2, "limits")])
    review_db(cli, tmp_path, "--samples", "3")
    before = keys(db)
    (pk,) = games_of(db)
    limited = Settings(samples=3, positions=50)
    planned = reviews.plan_log(reviews.log_of(db, pk) or "")
    reviews.store_rounds(db, pk, limited, planned.total,
                         [planned.review(r, limited) for r in range(1, planned.total + 1)])
    assert reviews.load(db, pk, limited).complete
    assert {k: v for k, v in keys(db).items() if k in before} == before
