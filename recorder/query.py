"""The filters every list and statistic takes, written once as SQL for every table.

Each page narrows the stored games the same way: by preset, variant, frontend, number of
players, a player, dates, and on the games list by status, blocked rounds and a search.
The tables that answer differ in how they name those facts: the games table has
``player_count`` and a ``played_at`` moment, the counters ``players`` and a ``day``; a
preset is a column of ``games`` but only the first word of a counter row's variant key;
a player is a column of the counters but a row of ``players`` for a game. A
:class:`Source` says how one table answers each filter, and :func:`where` writes the
condition from a :class:`Filter` for any of them, so the five places that filter (the
games list, the statistics' counters, a player's games, the missed-bonus examples and the
comparison of two variants) say the same thing the same way.

What differs between SQL engines is in a :class:`Dialect`, one object per engine: the
statistics are to be asked of DuckDB over Parquet files with the same tables and columns,
and a second dialect (``ILIKE`` where SQLite's ``LIKE`` already ignores case, ...) is then
all that changes, not the questions. A :class:`Backend` runs the SQL: SQLite's wraps a
``sqlite_utils.Database``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol

# ---------------------------------------------------------------------------------------
# Dialects.


class Dialect:
    """SQL as SQLite writes it; another engine overrides what it writes differently.

    DuckDB, for one, would override :meth:`contains` (its ``LIKE`` is case-sensitive:
    ``ILIKE``). Identifiers in double quotes, ``?`` parameters, ``substr``, ``IN`` lists
    and ``SUM`` are standard and shared.
    """

    name = "sqlite"

    def quote(self, identifier: str) -> str:
        """A column or table name as an identifier (any character, quotes doubled)."""
        return '"' + identifier.replace('"', '""') + '"'

    def contains(self, expr: str, text: str) -> tuple[str, list[Any]]:
        """``expr`` contains ``text``, ignoring case; ``%`` and ``_`` in it are literal.

        SQLite's ``LIKE`` ignores the case of ASCII letters, as the search has always done.
        """
        return f"{expr} LIKE ? ESCAPE '\\'", ["%" + like_escape(text) + "%"]

    def starts_with(self, expr: str, text: str) -> tuple[str, list[Any]]:
        """``expr`` begins with ``text``, exactly (case included)."""
        return f"substr({expr}, 1, ?) = ?", [len(text), text]

    def one_of(self, expr: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """``expr`` is one of ``values``; none at all matches no row."""
        if not values:
            return "0 = 1", []
        return f"{expr} IN ({', '.join('?' for _ in values)})", list(values)


SQLITE = Dialect()


def like_escape(text: str) -> str:
    """``text`` matched literally inside a LIKE pattern (escape character ``\\``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


class Backend(Protocol):
    """What the statistics need of a database: its dialect, and rows for a query."""

    dialect: Dialect

    def rows(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Sequence[Any]]: ...


class SQLiteBackend:
    """The recorder's SQLite file (through sqlite-utils) as a :class:`Backend`."""

    dialect = SQLITE

    def __init__(self, db: Any) -> None:
        self.db = db

    def rows(self, sql: str, params: Sequence[Any] = ()) -> Iterable[Sequence[Any]]:
        return self.db.execute(sql, list(params))


# ---------------------------------------------------------------------------------------
# Filters.


@dataclass(frozen=True)
class Filter:
    """What a list or a statistic is narrowed to; a field left None is not applied.

    ``since`` and ``until`` are inclusive: a bare date (``2026-11-29``) means that whole
    day, a moment (``2026-11-29T18:00:00Z``, UTC as stored) that second. ``variants`` is
    a set of variant keys, for a figure counted over the variants whose rules can make it
    (``None``: any variant; empty: none). ``search`` finds games with a player whose id or
    name contains it, or whose ``game_id`` does (any case).
    """

    preset: str | None = None
    variant: str | None = None
    frontend: str | None = None
    players: int | None = None
    player: str | None = None
    since: str | None = None
    until: str | None = None
    status: str | None = None
    blocked: bool | None = None
    search: str | None = None
    variants: tuple[str, ...] | None = field(default=None)

    def applied(self) -> dict[str, Any]:
        """The filters in force, by name (``variants`` as a list)."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None:
                out[f.name] = list(value) if isinstance(value, tuple) else value
        return out

    def but(self, **changes: Any) -> Filter:
        """The same filter with some fields changed (``player=None`` drops the player)."""
        return replace(self, **changes)


@dataclass(frozen=True)
class Source:
    """One table as the filters see it: the column (or way) that answers each filter.

    ``None`` for a filter the table cannot answer: asking it is a programming error, not
    an empty answer. ``preset`` None means the preset is the first word of ``variant``
    (the counters keep only the variant key). ``game`` names the column of the game's
    number where a player, or a search, is found through the ``players`` table.
    """

    alias: str = ""
    preset: str | None = None
    variant: str | None = "variant"
    frontend: str | None = "frontend"
    players: str | None = "players"
    player: str | None = None
    game: str | None = None
    date: str | None = None
    date_is_day: bool = False
    status: str | None = None
    blocked_rounds: str | None = None
    game_id: str | None = None

    def column(self, name: str) -> str:
        return f"{self.alias}.{name}" if self.alias else name


GAMES = Source(preset="preset", players="player_count", game="id", date="played_at",
               status="status", blocked_rounds="blocked_rounds", game_id="game_id")
"""The ``games`` table: one row a game; a player or a search through ``players``."""
COUNTERS = Source(player="player")
"""The statistics' counter tables (``stats_players``, ``stats_rounds``, ``stats_hist``,
``stats_seats``): dates are their grains and periods, which :mod:`recorder.stats` reads."""
MISSED = Source(alias="m", player="player", date="day", date_is_day=True)
"""``stats_missed``, the kept missed-bonus moments, read as ``m``."""


def games_as(alias: str) -> Source:
    """:data:`GAMES` read under another name (``g`` in a join)."""
    return replace(GAMES, alias=alias)


def _bound(value: str, *, end: bool, day: bool) -> str:
    """A ``since``/``until`` value in the form of the column it is compared with."""
    if day:
        return value[:10]
    if len(value) == 10:  # a whole day, as moments are stored (UTC, to the second)
        return f"{value}T{'23:59:59' if end else '00:00:00'}Z"
    return value


def where(flt: Filter, source: Source, dialect: Dialect = SQLITE) -> tuple[str, list[Any]]:
    """The SQL condition (``"1"`` when nothing applies) and its parameters.

    ``variant`` wins over ``preset`` (a variant names its preset); ``variants`` is added
    to either, so a scoped figure under ``preset=spilop`` is the spilop variants in scope.
    """
    clauses: list[str] = []
    params: list[Any] = []

    def add(sql: str, values: Sequence[Any]) -> None:
        clauses.append(sql)
        params.extend(values)

    def need(name: str, column: str | None) -> str:
        if column is None:
            raise ValueError(f"the filter {name} does not apply to this table")
        return source.column(column)

    if flt.variant is not None:
        add(f"{need('variant', source.variant)} = ?", [flt.variant])
    elif flt.preset is not None:
        if source.preset is not None:
            add(f"{source.column(source.preset)} = ?", [flt.preset])
        else:
            # the variant key is the preset, or the preset, a space and the options
            column = need("preset", source.variant)
            sql, values = dialect.starts_with(column, flt.preset + " ")
            add(f"({column} = ? OR {sql})", [flt.preset, *values])
    if flt.variants is not None:
        add(*dialect.one_of(need("variant", source.variant), sorted(flt.variants)))
    if flt.frontend is not None:
        add(f"{need('frontend', source.frontend)} = ?", [flt.frontend])
    if flt.players is not None:
        add(f"{need('players', source.players)} = ?", [flt.players])
    if flt.player is not None:
        if source.player is not None:
            add(f"{source.column(source.player)} = ?", [flt.player])
        else:
            add(f"{need('player', source.game)} IN "
                "(SELECT game FROM players WHERE player_id = ?)", [flt.player])
    if flt.search is not None:
        game = need("search", source.game)
        by_id, id_params = dialect.contains("player_id", flt.search)
        by_name, name_params = dialect.contains("name", flt.search)
        by_game, game_params = dialect.contains(need("search", source.game_id), flt.search)
        add(f"({game} IN (SELECT game FROM players WHERE {by_id} OR {by_name}) "
            f"OR {by_game})", [*id_params, *name_params, *game_params])
    if flt.status is not None:
        add(f"{need('status', source.status)} = ?", [flt.status])
    if flt.blocked is not None:
        column = need("blocked", source.blocked_rounds)
        clauses.append(f"{column} > 0" if flt.blocked else f"{column} = 0")
    if flt.since is not None:
        add(f"{need('since', source.date)} >= ?",
            [_bound(flt.since, end=False, day=source.date_is_day)])
    if flt.until is not None:
        add(f"{need('until', source.date)} <= ?",
            [_bound(flt.until, end=True, day=source.date_is_day)])
    return (" AND ".join(clauses) or "1"), params


def to_args(flt: Filter | Mapping[str, Any]) -> dict[str, str]:
    """A filter as query-string arguments (``variants`` left out: it has no field)."""
    applied = flt.applied() if isinstance(flt, Filter) else dict(flt)
    out: dict[str, str] = {}
    for key, value in applied.items():
        if key == "variants" or value is None:
            continue
        out[key] = ("true" if value else "false") if isinstance(value, bool) else str(value)
    return out
