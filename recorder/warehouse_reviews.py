"""The review statistics from Parquet: ``review_seats`` over the ``reviews`` datasets.

The accuracy figures (:mod:`recorder.review_stats`: a player's, and each variant's) add
up the SQLite store's ``review_seats``, each seat's sums of each reviewed round. A
folder of ``recorder batch review`` holds the same reviews as Parquet (``reviews``, one
row a round; ``review_decisions``, one row a decision), so the same sums are a DuckDB
view over them, named and shaped as the table: the statistics' own SQL then runs on the
warehouse unchanged, and gives the same answers as the store holding the same reviews.

Every seat of a game has a row for each reviewed round, a round without a decision of
its own included, as ``recorder.reviews.seat_sums`` writes them (the figures count
mistakes per round over those rows).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

from recorder import parquet
from recorder.reviews import MARKED

REVIEW_SEATS: Final = (
    "game",
    "settings",
    "round",
    "seat",
    "version",
    "decisions",
    "loss_sum",
    "loss_sq",
    "best",
    "marked",
    "range_sum",
)
"""The columns of the store's ``review_seats``, in its order."""


def review_seats_sql(reviews: str, decisions: str) -> str:
    """The body of the ``review_seats`` view over the files ``reviews`` and
    ``decisions`` (DuckDB ``read_parquet`` arguments) and the ``games`` view."""
    marked = ", ".join(f"'{c}'" for c in MARKED)
    return (
        "SELECT r.game, r.settings, r.round, s.seat::INTEGER AS seat, r.version, "
        "count(d.loss) AS decisions, coalesce(sum(d.loss), 0) AS loss_sum, "
        "coalesce(sum(d.loss * d.loss), 0) AS loss_sq, "
        "count(d.loss) FILTER (WHERE d.class = 'best') AS best, "
        f"count(d.loss) FILTER (WHERE d.class IN ({marked})) AS marked, "
        "coalesce(sum(d.best_value - d.worst_value), 0) AS range_sum "
        f"FROM read_parquet({reviews}, hive_partitioning = false) r "
        "JOIN games g ON g.id = r.game "
        "CROSS JOIN LATERAL (SELECT range AS seat FROM range(g.player_count)) s "
        f"LEFT JOIN (SELECT * FROM read_parquet({decisions}, hive_partitioning = false) "
        "WHERE class IS NOT NULL) d ON d.game = r.game AND d.settings = r.settings "
        "AND d.version = r.version AND d.round = r.round AND d.player = s.seat "
        "WHERE r.round <> 0 GROUP BY ALL"
    )


_MADE: Final = "_review_seats_over_files"
"""Set on a warehouse once its ``review_seats`` view reads the folder's review files."""


def review_tables(warehouse: Any) -> ReviewTables | None:
    """The warehouse's reviews as the review statistics read a database, or None when its
    folder holds none (a folder of ``batch facts``: the statistics then read the SQLite
    store's reviews, as before). Looked for at each call until found, so reviews that
    ``batch review`` adds while the server runs are read without a restart."""
    if not getattr(warehouse, _MADE, False):
        fs, root = parquet.filesystem(warehouse.url)
        if not (
            parquet.dataset_files(fs, root, "reviews")
            and parquet.dataset_files(fs, root, "review_decisions")
        ):
            return None
        base = root if parquet.is_local(fs) else fs.unstrip_protocol(root)
        body = review_seats_sql(
            _literal(f"{base}/reviews/*/*.parquet"),
            _literal(f"{base}/review_decisions/*/*.parquet"),
        )
        warehouse.rows(f"CREATE OR REPLACE VIEW review_seats AS {body}")
        setattr(warehouse, _MADE, True)
    return ReviewTables(warehouse)


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class _Rows:
    """A query's rows, read as a sqlite3 cursor is (``fetchone``, ``fetchall``, iteration)."""

    def __init__(self, rows: list[tuple[Any, ...]]) -> None:
        self._rows = rows
        self._at = 0

    def fetchone(self) -> tuple[Any, ...] | None:
        if self._at >= len(self._rows):
            return None
        self._at += 1
        return self._rows[self._at - 1]

    def fetchall(self) -> list[tuple[Any, ...]]:
        rest = self._rows[self._at :]
        self._at = len(self._rows)
        return rest

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.fetchall())


class ReviewTables:
    """The warehouse as :mod:`recorder.review_stats` asks a database: ``execute(sql,
    params)`` over its views (``review_seats``, ``games``, ``players``)."""

    def __init__(self, warehouse: Any) -> None:
        self.warehouse = warehouse

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Rows:
        return _Rows(list(self.warehouse.rows(sql, params)))
