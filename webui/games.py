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
from werkzeug.exceptions import RequestEntityTooLarge
from werkzeug.wrappers import Response

from recorder import figures, stats, storage
from webui import limits
from webui.api import (
    FILTER_PARAMS,
    ApiError,
    UnreadableLog,
    check_frames_size,
    game_filter,
    max_documents,
    pick_document,
    sentence,
    watched_frames,
)
from webui.db import get_db
from webui.replay import pointer_excerpt, stored_header, watched_header
from webui.stats import plotly_url

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
    db = get_db()
    game = storage.get_summary(db, game_pk)
    if game is None:
        kept = storage.merged_into(get_db(), game_pk)
        if kept is not None:  # a twin merged into another game: its links lead there
            return redirect(url_for("games.replay", game_pk=kept), 301)
        return not_found(f"There is no game #{game_pk}.")
    return render_template(
        "replay.html", title=replay_title(game), game=game,
        head=stored_header(db, game_pk, game),
        frames_url=url_for("api.game_frames", game_pk=game_pk), frames_inline=None,
        player_url=url_for("stats.player", player_id="PLAYER"), plotly_url=plotly_url(),
        review_url=url_for("api.game_review", game_pk=game_pk),
    )


# ---------------------------------------------------------------------------------------
# Watching a log without storing it.


@bp.get("/watch")
def watch_page() -> str:
    return render_template("watch.html", problem=None, text="", index=0, refusal=None)


def _watch_problem(message: str, text: str, index: int, status: int = 400,
                   refusal: dict[str, Any] | None = None) -> tuple[str, int]:
    return render_template("watch.html", problem=message, text=text, index=index,
                           refusal=refusal), status


@bp.post("/watch")
def watch() -> tuple[str, int] | str:
    """Replay a log sent by the form (pasted text or a file); nothing is stored."""
    try:
        raw_index = (request.form.get("index") or "0").strip()
        text = request.form.get("log") or ""
        upload: FileStorage | None = request.files.get("file")
    except RequestEntityTooLarge:  # the body, or the pasted text: the message says which
        return _watch_problem(sentence(limits.too_large_message()), "", 0, 413)
    shown = text if len(text) <= 200_000 else ""
    most = max_documents()
    try:
        index = int(raw_index)
        if not 0 <= index < most:
            raise ValueError
    except ValueError:
        return _watch_problem(
            f"The document number must be a whole number from 0 to {most - 1}, "
            f"not {raw_index[:40]!r}.", shown, 0)
    if upload is not None and upload.filename:
        data = upload.read()
    else:
        data = text.encode("utf-8", "surrogatepass")
        if len(data) > int(current_app.config["MAX_FORM_MEMORY_SIZE"]):
            # however it was sent (the page sends it as multipart, where Flask counts it)
            return _watch_problem(sentence(limits.pasted_too_large()), "", index, 413)
    if not data.strip():
        return _watch_problem("Paste a log or choose a file.", shown, index)
    try:
        doc = pick_document(data, index, limits.parse_limits())
        check_frames_size(doc)
        frames = watched_frames(doc)
    except UnreadableLog as exc:
        what = "is too long to watch" if exc.code in {"input/too-many-moves",
                                                       "frames/too-large"} \
            else "cannot be read"
        return _watch_problem(f"The log {what}: {exc.message}", shown, index,
                              413 if exc.status == 413 else 400)
    error = frames["error"]
    if error is not None and not any(r["frames"] for r in frames["rounds"]):
        # refused before its first move (its shape, its rules, its first deal): nothing
        # to play, so the form again, with the reason and the part of the log it names
        if str(error.get("code")).startswith("log/"):  # its message names the pointer
            message = f"The log does not have the shape of domino-log/1: {error['why']}"
        else:
            r = error.get("round") or 0
            message = "The log is refused before its first move: " + (
                f"round {r}: " if r else "") + error["why"]
        pointer = error.get("pointer")
        return _watch_problem(message, shown, index, 200, refusal={
            "pointer": pointer, "code": error.get("code"),
            "excerpt": pointer_excerpt(doc, pointer)})
    game = dict(frames["game"])
    title = replay_title(game)
    return render_template(
        "replay.html", title=f"Watching {title}" if title != "Replay" else "Watching a log",
        game=game, head=watched_header(frames), frames_url=None, frames_inline=frames,
        player_url=None, plotly_url=plotly_url(),
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
    if not sep or not (pk.isascii() and pk.isdigit()) or int(pk) > storage.MAX_INTEGER:
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
            if abs(parsed) > storage.MAX_INTEGER:
                raise ValueError
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
    args = _list_args()
    db = get_db()
    options = {
        "presets": storage.distinct_values(db, "preset"),
        "variants": [(v, stats.variant_label(v)) for v in storage.distinct_values(db, "variant")],
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
                               links={}, sort_links={}, labels=SORT_LABELS,
                               filtered=_filtered(args), player_name=None,
                               rule_label=_rule_label(args.get("rule")),
                               without=_without(args)), 400
    if len(args) < len(request.args):
        # an empty field of the filter form filters nothing: the address leaves it out,
        # so a shared link names only the filters in force (a bad value is said first)
        return redirect(request.path + (f"?{urlencode(args)}" if args else ""))

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
        "games.html", rows=[_row(r) for r in rows], problem=None,
        args=args, options=options, total=total, sort=sort, order=order, links=links,
        sort_links=sort_links, labels=SORT_LABELS, filtered=_filtered(args),
        player_name=stats.names(db, [flt.player]).get(flt.player) if flt.player else None,
        rule_label=_rule_label(args.get("rule")), without=_without(base),
    )


def _rule_label(rule: str | None) -> str:
    scope = figures.SCOPES.get(rule or "")
    return f"variants {scope.short}" if scope else ""


def _without(base: dict[str, str]) -> dict[str, str]:
    """The list's address without each of the filters shown apart (player, rule)."""
    out = {}
    for key in ("player", "rule"):
        kept = {k: v for k, v in base.items() if k != key}
        out[key] = url_for("games.games_list") + (f"?{urlencode(kept)}" if kept else "")
    return out


def _filtered(args: dict[str, str]) -> bool:
    """Whether a filter is in force (a sort or a page of the whole list is not one)."""
    return any(k in FILTER_PARAMS for k in args)


def _row(row: dict[str, Any]) -> dict[str, Any]:
    """A games row as the table shows it: names for seats (each a link to the player's
    page), the variant in words, the date without seconds."""
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
        "variant_label": stats.variant_label(row["variant"]) if row.get("variant")
        else row.get("preset"),
        "date": played[:16].replace("T", " "),
        "score_text": _points(row.get("winner_score")),
    }


def _points(value: Any) -> str:
    if value is None:
        return ""
    number = float(value)
    return str(int(number)) if number.is_integer() else f"{number:.2f}"
