"""Binding: an upload token sends the games of one frontend, and only those.

Each token that may upload is bound to one frontend's name (``recorder token create NAME
--scope upload`` binds it to ``NAME``, ``--frontend F`` to ``F``; in the normal form of
:mod:`recorder.names`). A log it sends must name that frontend or none:

* a log that names another frontend is refused, and with it the whole body it came in
  (HTTP 403 ``auth/frontend``, nothing stored): a token of ``mallory-app`` cannot store
  games as ``victim-app``, nor take the ``game_id`` of one of victim-app's games;
* a log that names none is stored as the token's frontend's: ``"frontend": {"name":
  "<the token's frontend>"}`` is written into the log (as its first field; the rest of
  its text stays as it came), and that log is the one judged, hashed and stored. So the
  ``frontend`` column, the log that ``GET /api/games/<id>/log`` and the exports give back,
  and the content hash all name the frontend, and the same game sent again with its
  frontend written out is a duplicate, not a second game.

Logs imported from the command line are not bound: each keeps the frontend it names.
"""

from __future__ import annotations

import json
from typing import Any

from recorder import identity, names
from recorder.errors import RecorderError

__all__ = ["WrongFrontend", "refusal", "with_frontend"]


class WrongFrontend(RecorderError):
    """A log names another frontend than the one its upload token is bound to."""

    code = "auth/frontend"

    def __init__(self, message: str, *, index: int | None = None,
                 line: int | None = None) -> None:
        super().__init__(message, pointer="/frontend/name")
        self.index = index
        self.line = line


def refusal(doc: Any, frontend: str, *, index: int | None = None,
            line: int | None = None) -> WrongFrontend | None:
    """Why a token bound to ``frontend`` may not send ``doc``; None when it may.

    A log that names no acceptable frontend name is not refused here: one that names
    none takes the token's, and a name the schema refuses is refused by the schema.
    """
    named = identity.frontend_name(doc)
    if named is None or named == frontend:
        return None
    written = doc["frontend"]["name"]
    where = ""
    if line is not None:
        where = f" (line {line})"
    elif index is not None:
        where = f" (document {index + 1} of the body)"
    return WrongFrontend(
        f"this log{where} names the frontend {names.quoted(written)}, but the token it was "
        f"sent with uploads the games of {names.quoted(frontend)} only; send it with that "
        "frontend's token, or leave the frontend out to store it as this token's",
        index=index, line=line,
    )


def with_frontend(doc: Any, text: str, frontend: str) -> tuple[Any, str]:
    """``doc`` and its text naming ``frontend`` when ``doc`` names no frontend; else both
    unchanged. The text keeps every byte it had, with ``"frontend": {...}`` put first."""
    if type(doc) is not dict or not doc or doc.get("frontend") is not None:
        return doc, text
    member = json.dumps({"name": frontend}, ensure_ascii=False, separators=(",", ":"))
    if "frontend" in doc:  # "frontend": null, somewhere among the fields: replace it
        start, end = _value_span(text, "frontend")
        text = text[:start] + member + text[end:]
        return {**doc, "frontend": {"name": frontend}}, text
    brace = text.index("{")
    text = f'{text[:brace + 1]}"frontend":{member},{text[brace + 1:]}'
    return {"frontend": {"name": frontend}, **doc}, text


_DECODER = json.JSONDecoder()


def _value_span(text: str, key: str) -> tuple[int, int]:
    """Where the value of the top-level ``key`` of the JSON object ``text`` is written.

    ``text`` is a document the parser read (valid JSON, no duplicate keys): the object's
    members are stepped over one by one, each value read by the stdlib's decoder.
    """
    ws = " \t\r\n"
    pos = text.index("{") + 1
    while True:
        while text[pos] in ws or text[pos] == ",":
            pos += 1
        name, pos = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
        while text[pos] in ws:
            pos += 1
        pos += 1  # the colon
        while text[pos] in ws:
            pos += 1
        _, end = _DECODER.raw_decode(text, pos)
        if name == key:
            return pos, end
        pos = end
