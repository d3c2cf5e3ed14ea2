"""The games list and the replay pages.

``/`` and ``/games`` list the stored games, filtered and sorted by the query string, so
a list is a link that can be shared. ``/games/<id>`` is the replay of one game: the page
fetches its frames from ``/api/games/<id>/frames``. ``/watch`` replays a pasted or chosen
log without storing it, and hands the page the frames inline.
"""

from __future__ import annotations

import math
from typing import Any
from urllib.parse import urlencode

from flask import Blueprint, current_app, redirect, render_template, request, url_for
from werkzeug.datastructures import FileStorage
from werkzeug.wrappers import Response

from recorder import storage
from recorder.frames import build_frames
from webui.api import (
    FILTER_PARAMS,
    ApiError,
    UnreadableLog,
    check_frames_size,
    game_filter,
    pick_document,
)
from webui.db import get_db

bp = Blueprint("games", __name__)


def not_found(message: str) -> tuple[str, int]:
    """The HTML page for something that is not there."""
    return render_template("error.html", title="Not found", message=message), 404


# ---------------------------------------------------------------------------------------
# Replay.


def replay_title(game: dict[str, Any]) -> str:
    """The page's heading: the frontend's id for the game, else the store's number."""
    if game.get("game_id"):
        return str(game["game_id"])
    if game.get("id") is not None:
        return f"Game #{game['id']}"
    return "Replay"


@bp.get("/games/<int:game_pk>")
def replay(game_pk: int) -> Response | tuple[str, int] | str:
    """The replay of a stored game; the page loads its frames from the API."""
    game = storage.get_summary(get_db(), game_pk)
    if game is None:
        kept = storage.merged_into(get_db(), game_pk)
        if kept is not None:  # a twin merged into another game: its links lead there
            return redirect(url_for("games.replay", game_pk=kept), 301)
        return not_found(f"There is no game #{game_pk}.")
    return render_template(
        "replay.html", title=replay_title(game), game=game,
        frames_url=url_for("api.game_frames", game_pk=game_pk), frames_inline=None,
    )


# ---------------------------------------------------------------------------------------
# Watching a log without storing it.


@bp.get("/watch")
def watch_page() -> str:
    return render_template("watch.html", problem=None, text="", index=0)


def _watch_problem(message: str, text: str, index: int, status: int = 400) -> tuple[str, int]:
    return render_template("watch.html", problem=message, text=text, index=index), status


@bp.post("/watch")
def watch() -> tuple[str, int] | str:
    """Replay a log sent by the form (pasted text or a file); nothing is stored."""
    raw_index = (request.form.get("index") or "0").strip()
    text = request.form.get("log") or ""
    upload: FileStorage | None = request.files.get("file")
    shown = text if len(text) <= 200_000 else ""
    try:
        index = int(raw_index)
        if index < 0:
            raise ValueError
    except ValueError:
        return _watch_problem(
            f"The document number must be a whole number from 0, not {raw_index[:40]!r}.",
            shown, 0)
    if upload is not None and upload.filename:
        data = upload.read()
    else:
        data = text.encode("utf-8", "surrogatepass")
    if not data.strip():
        return _watch_problem("Paste a log or choose a file.", shown, index)
    try:
        doc = pick_document(data, index, current_app.config.get("PARSE_LIMITS"))
        check_frames_size(doc)
    except UnreadableLog as exc:
        what = "is too long to watch" if exc.code == "input/too-many-moves" \
            else "cannot be read"
        return _watch_problem(f"The log {what}: {exc.message}", shown, index,
                              413 if exc.status == 413 else 400)
    frames = build_frames(doc)
    game = dict(frames["game"])
    title = replay_title(game)
    return render_template(
        "replay.html", title=f"Watching {title}" if title != "Replay" else "Watching a log",
        game=game, frames_url=None, frames_inline=frames,
    )


# ---------------------------------------------------------------------------------------
# The list.

PAGE_PARAMS = frozenset({"sort", "order", "after", "before"})
LIST_PAGE_PARAMS = FILTER_PARAMS | PAGE_PARAMS
SORT_LABELS = {"date": "Date", "rounds": "Rounds", "moves": "Moves", "score": "Winner's score"}


class BadQuery(Exception):
    """A query value the list cannot use; the page says which and why (400)."""


def _cursor(name: str, text: str, sort: str) -> tuple[Any, int]:
    """A page boundary from the address: ``<sort value>,<id>`` of the row it is next to."""
    value, sep, pk = text.rpartition(",")
    if not sep or not pk.isdigit():
        raise BadQuery(f"{name} must be a sort value and a game number, like "
                       f"2026-11-30T18:00:00Z,42; not {text[:60]!r}")
    parsed: Any
    try:
        if sort == "date":
            if storage.normalize_timestamp(value) != value:
                raise ValueError
            parsed = value
        elif sort == "score":
            parsed = float(value)
            if not math.isfinite(parsed):
                raise ValueError
        else:
            parsed = int(value)
    except ValueError:
        raise BadQuery(f"{name} does not start with a {SORT_LABELS[sort].lower()} value: "
                       f"{value[:60]!r}") from None
    return parsed, int(pk)


def _cursor_text(row: dict[str, Any], sort: str) -> str:
    return f"{row[storage.SORTS[sort]]},{row['id']}"


def _list_args() -> dict[str, str]:
    return {k: v for k, v in request.args.items() if v.strip()}


@bp.get("/games")
def games_list() -> Response | tuple[str, int] | str:
    """The stored games: searched, filtered, sorted and paged by the query string."""
    if any(not v.strip() for v in request.args.values()):
        # an empty field of the filter form filters nothing: the address leaves it out,
        # so a shared link names only the filters in force
        kept = _list_args()
        return redirect(request.path + (f"?{urlencode(kept)}" if kept else ""))
    args = _list_args()
    db = get_db()
    options = {
        "presets": storage.distinct_values(db, "preset"),
        "frontends": storage.distinct_values(db, "frontend"),
        "player_counts": storage.distinct_values(db, "player_count"),
    }
    try:
        flt = game_filter(args, LIST_PAGE_PARAMS)
        sort = args.get("sort", "date")
        if sort not in storage.SORTS:
            raise BadQuery(f"sort must be one of {', '.join(storage.SORTS)}, not {sort!r}")
        order = args.get("order", "desc")
        if order not in ("asc", "desc"):
            raise BadQuery(f"order must be asc or desc, not {order!r}")
        if "after" in args and "before" in args:
            raise BadQuery("give after or before, not both")
        after = _cursor("after", args["after"], sort) if "after" in args else None
        before = _cursor("before", args["before"], sort) if "before" in args else None
    except (ApiError, BadQuery) as exc:
        message = exc.message if isinstance(exc, ApiError) else str(exc)
        return render_template("games.html", rows=[], problem=message, args=args,
                               options=options, total=None, sort="date", order="desc",
                               links={}, sort_links={}, labels=SORT_LABELS), 400

    limit = int(current_app.config["PAGE_SIZE"])
    total = storage.count_games(db, flt)
    narrow = flt != storage.GameFilter() and storage.few_enough(
        total, storage.count_games(db, storage.GameFilter()))
    rows = storage.page_games(db, flt, sort=sort, descending=order == "desc", after=after,
                              before=before, limit=limit + 1, by_filter=narrow)
    if before is not None:
        has_prev, has_next = len(rows) > limit, True
        rows = rows[-limit:]
    else:
        has_prev, has_next = after is not None, len(rows) > limit
        rows = rows[:limit]
    base = {k: v for k, v in args.items() if k not in ("after", "before")}

    def link(**extra: str) -> str:
        params = {**base, **extra}
        return url_for("games.games_list") + (f"?{urlencode(params)}" if params else "")

    links = {
        "first": link() if has_prev else None,
        "prev": link(before=_cursor_text(rows[0], sort)) if has_prev and rows else None,
        "next": link(after=_cursor_text(rows[-1], sort)) if has_next and rows else None,
    }
    sort_links = {}
    for key in storage.SORTS:
        flip = "asc" if key == sort and order == "desc" else "desc"
        params = {k: v for k, v in base.items() if k not in ("sort", "order")}
        params.update(sort=key, order=flip)
        sort_links[key] = url_for("games.games_list") + "?" + urlencode(params)
    return render_template(
        "games.html", rows=[_row(r) for r in rows], problem=None, args=args, options=options,
        total=total, sort=sort, order=order, links=links,
        sort_links=sort_links, labels=SORT_LABELS,
    )


def _row(row: dict[str, Any]) -> dict[str, Any]:
    """A games row as the table shows it: names for seats, the date without seconds."""
    players = row.get("players") or []
    names = [(p.get("name") or p.get("id") or "?") if isinstance(p, dict) else str(p)
             for p in players]
    winners = [names[w] for w in row.get("winners") or [] if 0 <= w < len(names)]
    played = row.get("played_at") or ""
    return {
        **row,
        "names": names,
        "ids": [p.get("id") if isinstance(p, dict) else None for p in players],
        "winner_names": winners,
        "date": played[:16].replace("T", " "),
        "score_text": _points(row.get("winner_score")),
    }


def _points(value: Any) -> str:
    if value is None:
        return ""
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:.2f}"
