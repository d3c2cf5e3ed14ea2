"""The games list and the replay pages.

``/`` and ``/games`` list the stored games, filtered and sorted by the query string, so
a list is a link that can be shared. ``/games/<id>`` is the replay of one game: the page
fetches its frames from ``/api/games/<id>/frames``. ``/watch`` replays a pasted or chosen
log without storing it, and hands the page the frames inline.
"""

from __future__ import annotations

import json
from typing import Any

from flask import Blueprint, current_app, render_template, request, url_for
from werkzeug.datastructures import FileStorage

from recorder import storage
from recorder.frames import build_frames
from webui.api import UnreadableLog, pick_document
from webui.db import get_db

bp = Blueprint("games", __name__)


def not_found(message: str) -> tuple[str, int]:
    """The HTML page for something that is not there."""
    return render_template("error.html", title="Not found", message=message), 404


def bad_request(message: str) -> tuple[str, int]:
    return render_template("error.html", title="Bad request", message=message), 400


# ---------------------------------------------------------------------------------------
# Replay.


def summary_of(row: dict[str, Any]) -> dict[str, Any]:
    """A stored game's summary for the replay page's header (no log, no answer)."""
    return storage.decode_row({c: row.get(c) for c in storage.SUMMARY_COLUMNS})


def replay_title(game: dict[str, Any]) -> str:
    """The page's heading: the frontend's id for the game, else the store's number."""
    if game.get("game_id"):
        return str(game["game_id"])
    if game.get("id") is not None:
        return f"Game #{game['id']}"
    return "Replay"


@bp.get("/games/<int:game_pk>")
def replay(game_pk: int) -> tuple[str, int] | str:
    """The replay of a stored game; the page loads its frames from the API."""
    row = storage.get_game(get_db(), game_pk)
    if row is None:
        return not_found(f"There is no game #{game_pk}.")
    game = summary_of(row)
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
    except UnreadableLog as exc:
        return _watch_problem(f"The log cannot be read: {exc.message}", shown, index,
                              413 if exc.status == 413 else 400)
    frames = build_frames(doc)
    game = dict(frames["game"])
    title = replay_title(game)
    return render_template(
        "replay.html", title=f"Watching {title}" if title != "Replay" else "Watching a log",
        game=game, frames_url=None, frames_inline=frames,
    )


def dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


# ---------------------------------------------------------------------------------------
# The list.


@bp.get("/games")
def games_list() -> tuple[str, int] | str:
    rows = list(storage.select_games(get_db(), storage.GameFilter(), limit=50,
                                     descending=True))
    return render_template("games.html", rows=rows)
