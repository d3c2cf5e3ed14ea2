"""The HTTP API's contract as an OpenAPI 3.1 document: ``GET /api/openapi.json``.

It describes every address the service answers, the JSON API and the pages alike: each
parameter with the values it takes, each answer with its status, its media type and
(for JSON) its schema, and the headers every answer carries. The error envelope is one
schema, used by every error of the API. The limits and the codes come from the code
(``webui.limits``, ``webui.api``), so the document cannot drift from them; a copy is kept
in ``docs/openapi.json`` (``python -m webui.openapi > docs/openapi.json`` writes it, and a
test holds the two equal). ``tests/test_openapi.py`` fuzzes the running service from it.
"""

from __future__ import annotations

import json
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from recorder import ingest, storage
from webui import limits

Schema = dict[str, Any]

JSON = "application/json"
NDJSON = "application/x-ndjson"
HTML = "text/html"


def _version() -> str:
    try:
        return version("domino-recorder")
    except PackageNotFoundError:  # pragma: no cover - a checkout that is not installed
        return "0"


# ---------------------------------------------------------------------------------------
# Schemas.

NULLABLE_STRING: Schema = {"type": ["string", "null"]}
NUMBER: Schema = {"type": "number"}
COUNT: Schema = {"type": "integer", "minimum": 0}


def obj(required: dict[str, Schema], optional: dict[str, Schema] | None = None,
        **extra: Any) -> Schema:
    """An object with these properties (the required ones listed); others may follow."""
    return {"type": "object", "required": sorted(required),
            "properties": {**required, **(optional or {})}, **extra}


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def array(items: Schema) -> Schema:
    return {"type": "array", "items": items}


ERROR = obj(
    {"code": {"type": "string", "pattern": "^[a-z]+/[a-z-]+$",
              "description": "Stable, for programs (docs/service.md, Errors)."},
     "message": {"type": "string", "minLength": 1,
                 "description": "A sentence for the person who has to act on it."}},
    {"round": COUNT, "move": COUNT, "pointer": {"type": "string"}},
)

SCHEMAS: dict[str, Schema] = {
    "Error": ERROR,
    "ErrorEnvelope": obj({"ok": {"const": False}, "status": {"type": "integer",
                                                             "minimum": 400, "maximum": 599},
                          "error": ref("Error")},
                         {"data": {"type": "object", "description":
                                   "With internal/documents: the report of every document."}},
                         description="Every error of the API."),
    "Player": obj({"id": {"type": "string"}}, {"name": NULLABLE_STRING}),
    "Summary": obj(
        {"id": {"type": "integer", "minimum": 1}, "game_id": NULLABLE_STRING,
         "frontend": NULLABLE_STRING, "frontend_version": NULLABLE_STRING,
         "preset": {"type": "string"}, "players": array(ref("Player")),
         "player_count": {"type": "integer", "minimum": 1},
         "status": {"enum": list(storage.STATUSES)},
         "winners": array({"type": "integer", "minimum": 0}),
         "scores": array(NUMBER), "rounds_count": COUNT, "blocked_rounds": COUNT,
         "moves_count": COUNT,
         "started_at": {"type": ["string", "null"], "format": "date-time"},
         "imported_at": {"type": "string", "format": "date-time"},
         "content_hash": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
         "source": NULLABLE_STRING, "played_at": {"type": "string", "format": "date-time"},
         "winner_score": {"type": ["number", "null"]}},
        description="One stored game, as the list shows it (docs/service.md, The tables)."),
    "Outcome": obj(
        {"game_id": NULLABLE_STRING, "status": {"enum": list(ingest.STATUSES)},
         "error": {"oneOf": [{"type": "null"}, ref("Error")]},
         "id": {"type": ["integer", "null"]}, "index": {"type": ["integer", "null"]},
         "line": {"type": ["integer", "null"]}},
        {"result": {"enum": list(storage.STATUSES)}, "source": NULLABLE_STRING},
        description="What became of one document of an upload."),
    "Report": obj({"summary": obj({s: COUNT for s in ingest.STATUSES}),
                   "games": array(ref("Outcome"))}),
    "Frames": obj(
        {"format": {"const": "domino-frames/1"},
         "game": obj({"id": {"type": ["integer", "null"]}, "game_id": NULLABLE_STRING,
                      "frontend": NULLABLE_STRING, "started_at": NULLABLE_STRING,
                      "players": array(ref("Player")),
                      "status": {"enum": [*storage.STATUSES, "invalid"]},
                      "scores": array(NUMBER), "winners": array(COUNT)}),
         "rounds": array(obj({"round": {"type": "integer", "minimum": 1},
                              "frames": array({"type": "object"})})),
         "error": {"oneOf": [{"type": "null"}, ref("Error")]}},
        description="The table after every move (docs/frames.md)."),
    "Review": obj(
        {"format": {"const": "domino-review/1"}, "version": {"type": "integer", "minimum": 1},
         "game_id": NULLABLE_STRING, "status": {"enum": [*storage.STATUSES, "invalid"]},
         "view": {"enum": ["player", "perfect"]}, "samples": {"type": "integer", "minimum": 1},
         "seed": {"type": "string"},
         "rounds": array(obj({"round": {"type": "integer", "minimum": 1},
                              "decisions": array({"type": "object"})})),
         "players": array(obj({"seat": COUNT, "decisions": COUNT,
                               "mean_loss": {"type": ["number", "null"]},
                               "best_share": {"type": ["number", "null"]}})),
         "error": {"oneOf": [{"type": "null"}, ref("Error")]}},
        {"evaluation": array(obj({"round": {"type": "integer", "minimum": 1},
                                  "seats": array(array({"type": "object"})),
                                  "lines": array(COUNT)}))},
        description="A game's review: every decision's choices and values, and the graph "
                    "of each seat's expected margin (docs/review.md)."),
    "ReviewQueued": obj(
        {"state": {"enum": ["queued", "running"]}, "game": COUNT, "position": COUNT,
         "rounds_done": COUNT, "rounds_total": {"type": ["integer", "null"], "minimum": 0},
         "review": ref("Review"), "evaluation": {"type": "array"}},
        description="A review being computed: how far, and the rounds done so far."),
    "StatsIndex": obj({"endpoints": array(obj({"url": {"type": "string"},
                                                "title": {"type": "string"},
                                                "description": {"type": "string"}})),
                       "filters": {"type": "object"}, "metrics": array({"type": "object"})}),
    "StatsBonus": obj({"filters": {"type": "object"}, "plays": COUNT, "bonus_plays": COUNT,
                       "bonus_points": NUMBER, "share": {"type": ["number", "null"]},
                       "values": {"type": "array"}, "by_variant": {"type": "array"},
                       "by_players": {"type": "array"}, "by_move": {"type": "array"},
                       "top_scorers": {"type": "array"}, "missed": {"type": "object"}}),
    "StatsBlocked": obj({"filters": {"type": "object"}, "rounds": COUNT, "blocked": COUNT,
                         "share": {"type": ["number", "null"]}, "by_rules": {"type": "array"},
                         "over_time": {"type": "array"}, "margins": {"type": "array"},
                         "enders": {"type": "array"}}),
    "StatsPlayers": obj({"filters": {"type": "object"}, "metrics": {"type": "array"},
                         "players": {"type": "array"}}),
    "StatsVariants": obj({"filters": {"type": "object"}, "variants": {"type": "array"}}),
    "StatsCompare": obj({"filters": {"type": "object"}}),
    "StatsPeople": obj({"q": {"type": "string"}, "limit": COUNT,
                        "players": array(obj({"id": {"type": "string"},
                                              "name": NULLABLE_STRING, "games": COUNT}))}),
    "StatsPlayer": obj({"filters": {"type": "object"}, "player": {"type": "object"},
                        "metrics": {"type": "object"}, "population": {"type": "object"},
                        "score_history": {"type": "array"},
                        "recent_games": {"type": "array"}}),
}


def success(data: Schema, meta: Schema | None = None) -> Schema:
    required: dict[str, Schema] = {"ok": {"const": True}, "data": data}
    if meta is not None:
        required["meta"] = meta
    return obj(required)


# ---------------------------------------------------------------------------------------
# Answers.

HEADERS = {
    "Content-Security-Policy": {"required": True, "schema": {"type": "string"},
                                "description": "No inline script, no framing."},
    "X-Content-Type-Options": {"required": True, "schema": {"const": "nosniff"}},
    "Referrer-Policy": {"required": True, "schema": {"const": "same-origin"}},
    "Retry-After": {"required": True, "schema": {"type": "integer", "minimum": 1},
                    "description": "Seconds until this address may come back."},
    "Location": {"required": True, "schema": {"type": "string"}},
}
"""Headers of the answers, by name (components/headers)."""
LOCKED_HEADERS = {name: {"$ref": f"#/components/headers/{name}"}
                  for name in ("Content-Security-Policy", "X-Content-Type-Options",
                               "Referrer-Policy")}
"""The headers every answer carries, pages and API alike."""

WHY = {
    400: "A bad parameter or body; the message names it.",
    401: "No token, or an unknown one (WWW-Authenticate: Bearer).",
    403: "A revoked token, one without the scope, or (an upload) a log of another "
         "frontend than the token's (auth/frontend).",
    404: "No such game, player or address.",
    405: "A method this address does not take (Allow lists those it does).",
    413: "Too large: the body, its expanded bytes, its documents, a form's files or "
         "pasted text, or frames (the message names the limit).",
    415: "A Content-Encoding other than gzip.",
    429: "Too many requests from this address (Retry-After says when to come back).",
    500: "A failure inside the recorder (logged); with data when some documents of an "
         "upload were handled.",
    503: "The database failed while storing (full, read-only, locked) or reading (a "
         "damaged, unreadable or busy file); a review: the queue of reviews is full, or the "
         "review failed (Retry-After says when to ask again).",
}


def api_error(status: int) -> Schema:
    answer: Schema = {"description": WHY[status], "headers": dict(LOCKED_HEADERS),
                      "content": {JSON: {"schema": ref("ErrorEnvelope")}}}
    if status in (429, 503):
        answer["headers"]["Retry-After"] = {"$ref": "#/components/headers/Retry-After"}
    return answer


def api_ok(schema: Schema, description: str, media: str = JSON) -> Schema:
    return {"description": description, "headers": dict(LOCKED_HEADERS),
            "content": {media: {"schema": schema}}}


def page(description: str) -> Schema:
    return {"description": description, "headers": dict(LOCKED_HEADERS),
            "content": {HTML: {"schema": {"type": "string"}}}}


def api_answers(ok: dict[str, Schema], *errors: int) -> dict[str, Schema]:
    """The answers of an API address: its successes, its errors, and the errors every
    read may meet (a token needed with READS_NEED_TOKEN, the rate limit, a failure)."""
    out = dict(ok)
    for status in sorted({*errors, 401, 403, 429, 500, 503}):
        out[str(status)] = api_error(status)
    return out


SIGN_IN_FIRST: Schema = {
    "description": "With READS_NEED_TOKEN and no read token: the sign-in page, which comes "
                   "back here after signing in (/signin?next=...).",
    "headers": {**LOCKED_HEADERS, "Location": {"$ref": "#/components/headers/Location"}}}


def page_answers(ok: str, *errors: int) -> dict[str, Schema]:
    out = {"200": page(ok), "302": SIGN_IN_FIRST}
    for status in sorted({*errors, 429, 500, 503}):
        out[str(status)] = page(WHY[status])
    out["429"]["headers"] = {**LOCKED_HEADERS,
                             "Retry-After": {"$ref": "#/components/headers/Retry-After"}}
    return out


# ---------------------------------------------------------------------------------------
# Parameters.


def query(name: str, schema: Schema, description: str) -> Schema:
    return {"name": name, "in": "query", "required": False, "schema": schema,
            "description": description}


def path(name: str, schema: Schema, description: str) -> Schema:
    return {"name": name, "in": "path", "required": True, "schema": schema,
            "description": description}


GAME_NUMBER = path("game_pk", {"type": "integer", "minimum": 0,
                               "maximum": storage.MAX_INTEGER},
                   "The game's number in this database (games.id).")
PLAYER_ID = path("player_id", {"type": "string", "minLength": 1}, "A player's id.")
DATE = {"type": "string", "description": "An ISO 8601 date or date-time (2026-11-29, "
        "2026-11-29T18:00:00Z) between the years 0001 and 9999 once in UTC."}

FILTERS = [
    query("player", {"type": "string"}, "Games with a player of this id."),
    query("q", {"type": "string", "maxLength": 200},
          "Games with a player whose id or name contains this text."),
    query("players", {"type": "integer", "minimum": 1, "maximum": 100},
          "Games of this many players."),
    query("preset", {"type": "string"}, "Games of this preset."),
    query("variant", {"type": "string"}, "Games of this variant: a preset with its options "
          "(classic draw=one)."),
    query("rule", {"enum": ["bonus", "target"]},
          "Games whose rules make the figures of this rule (the variants with a bonus rule, "
          "or with the target checked after every play)."),
    query("frontend", {"type": "string"}, "Games sent by this frontend."),
    query("status", {"enum": list(storage.STATUSES)}, "Finished or unfinished games."),
    query("blocked", {"type": "string"},
          "true (1, yes): with a blocked round; false (0, no): with none."),
    query("since", DATE, "Games started (else imported) at or after this."),
    query("until", DATE, "Games started (else imported) at or before this; a bare "
          "date covers its whole day."),
]

STATS_FILTERS = [
    query("preset", {"type": "string", "minLength": 1}, "Every variant of this preset."),
    query("variant", {"type": "string", "minLength": 1},
          "A preset with its options (classic draw=one)."),
    query("frontend", {"type": "string", "minLength": 1}, "The frontend's name."),
    query("players", {"type": "integer", "minimum": 1, "maximum": 8},
          "The number of players."),
    query("player", {"type": "string", "minLength": 1}, "A player's id."),
    query("since", DATE, "From this day (UTC), inclusive."),
    query("until", DATE, "To this day (UTC), inclusive."),
]

COMPARED = [
    {**query(side, {"type": "string", "minLength": 1},
             f"Variant {side.upper()} of the two compared (classic draw=one)."),
     "required": True}
    for side in ("a", "b")
]

PAGE_FILTERS = [
    query("sort", {"enum": ["date", "rounds", "moves", "score"]}, "The column sorted by."),
    query("order", {"enum": ["desc", "asc"]}, "Newest (largest) first, or the other way."),
    query("after", {"type": "string"},
          "The next page: <sort value>,<game number> of the last game shown."),
    query("before", {"type": "string"},
          "The previous page: <sort value>,<game number> of the first game shown."),
]

ENCODINGS: Schema = {"enum": ["gzip", "x-gzip", "identity", ""],
                     "description": "gzip, or nothing (the gzip magic bytes are recognised "
                                    "either way); any other is a 415."}


def form_field(parameter: Schema) -> Schema:
    """A parameter of a page's form: empty is the same as not given (the games list then
    answers with the address without it, 302)."""
    return {**parameter, "schema": {"anyOf": [parameter["schema"], {"const": ""}]}}


BEARER: list[dict[str, list[str]]] = [{"bearer": []}]
READ: list[dict[str, list[str]]] = [{}, {"bearer": []}, {"signin": []}]
"""Reading needs no token unless the server sets READS_NEED_TOKEN: then a read token, sent
as a bearer token or kept by the sign-in page in its cookie."""


# ---------------------------------------------------------------------------------------
# The document.


def _upload_body() -> Schema:
    described = (f"One log, a JSON array of logs, or JSON Lines; gzip or not. At most "
                 f"{limits.size(limits.DEFAULTS['MAX_CONTENT_LENGTH'])} as sent, "
                 "64 MiB once gzip is undone, "
                 f"{limits.DEFAULTS['MAX_DOCUMENTS']:,} documents (docs/service.md, Limits).")
    # any bytes are a body: the answer says what could not be read (400), never a
    # schema the bytes could violate on the wire
    return {"required": True, "description": described, "content": {
        JSON: {"schema": {}},
        NDJSON: {"schema": {"description": "One JSON document a line."}},
        "application/gzip": {"schema": {"description": "Any of the above, gzip-compressed "
                                                       "(the magic bytes tell it)."}},
    }}


def paths() -> dict[str, Any]:
    games_list = {
        "get": {
            "tags": ["games"], "operationId": "listGames", "summary": "Stored games",
            "description": "A page of summaries, or with format=jsonl|logs every match "
                           "streamed, one a line, ended by the end line "
                           '{"ok":true,"end":true,"games":N} (the error envelope instead '
                           "when the stream fails midway).",
            "security": READ,
            "parameters": [
                *FILTERS,
                query("limit", {"type": "integer", "minimum": 1, "maximum": 1000},
                      "Games a page (default 50)."),
                query("cursor", {"type": "integer", "minimum": 0,
                                 "maximum": storage.MAX_INTEGER},
                      "The next page: games past this number."),
                query("order", {"enum": ["asc", "desc"]}, "By game number."),
                query("format", {"enum": ["json", "jsonl", "logs"]},
                      "json: pages; jsonl: every summary streamed; logs: every stored log "
                      "streamed, which recorder import reads back."),
            ],
            "responses": api_answers({"200": {
                "description": "A page of games, or the stream.",
                "headers": dict(LOCKED_HEADERS),
                "content": {
                    JSON: {"schema": success(array(ref("Summary")), obj({
                        "total": COUNT, "limit": {"type": "integer", "minimum": 1},
                        "next": NULLABLE_STRING}))},
                    NDJSON: {"schema": {"type": "string"}},
                }}}, 400),
        },
        "post": {
            "tags": ["games"], "operationId": "uploadGames", "summary": "Upload games",
            "description": "Store the games of the body; 200 with a report per document "
                           "whenever the body could be read.",
            "security": BEARER,
            "parameters": [{"name": "Content-Encoding", "in": "header", "required": False,
                            "schema": ENCODINGS}],
            "requestBody": _upload_body(),
            "responses": api_answers({"200": api_ok(success(ref("Report")),
                                                    "What became of every document.")},
                                     400, 413, 415, 503),
        },
    }
    frames_query = query("index", {"type": "integer", "minimum": 0,
                                   "maximum": limits.DEFAULTS["MAX_DOCUMENTS"] - 1},
                         "The document of the body to replay (from 0).")
    return {
        "/api/openapi.json": {"get": {
            "tags": ["api"], "operationId": "openapi", "summary": "This document",
            "security": READ,
            "responses": api_answers({"200": api_ok({"type": "object", "required": [
                "openapi", "paths"]}, "The OpenAPI document.")}),
        }},
        "/api/games": games_list,
        "/api/games/{game_pk}": {"get": {
            "tags": ["games"], "operationId": "getGame", "summary": "One game",
            "security": READ, "parameters": [GAME_NUMBER],
            "responses": api_answers({"200": api_ok(success({"allOf": [
                ref("Summary"), obj({"log": {}, "answer": {"type": "object"}})]}),
                "Its summary, its log and the engine's answer.")}, 404),
        }},
        "/api/games/{game_pk}/log": {"get": {
            "tags": ["games"], "operationId": "getLog", "summary": "A game's log as received",
            "security": READ, "parameters": [GAME_NUMBER],
            "responses": api_answers({"200": api_ok({}, "The log, byte for byte.")}, 404),
        }},
        "/api/games/{game_pk}/frames": {"get": {
            "tags": ["frames"], "operationId": "getFrames", "summary": "A stored game's frames",
            "security": READ, "parameters": [GAME_NUMBER],
            "responses": api_answers({"200": api_ok(success(ref("Frames")), "The frames.")},
                                     404, 413),
        }},
        "/api/games/{game_pk}/review": {"get": {
            "tags": ["games"], "operationId": "getReview", "summary": "A stored game's review",
            "description": "The stored review, or one computed within "
                           f"{limits.DEFAULTS['REVIEW_BUDGET_SECONDS']:g} s, else 202: it is "
                           "being computed (ask again after Retry-After). At most "
                           f"{limits.DEFAULTS['REVIEW_QUEUE']} games wait for their review "
                           "(503 past that).",
            "security": READ,
            "parameters": [GAME_NUMBER, query("view", {"enum": ["player", "perfect"]},
                                              "What the mover knew (player, the default) or "
                                              "every hand (perfect).")],
            "responses": api_answers({
                "200": api_ok(success(ref("Review"), obj({
                    "state": {"enum": ["stored", "computed"]},
                    "settings": {"type": "string"}})), "The review."),
                "202": {"description": "Being computed: how far, and the rounds done so far.",
                        "headers": {**LOCKED_HEADERS, "Retry-After": {
                            "$ref": "#/components/headers/Retry-After"}},
                        "content": {JSON: {"schema": success(ref("ReviewQueued"), obj({
                            "state": {"enum": ["queued", "running"]},
                            "settings": {"type": "string"},
                            "retry_after": {"type": "integer", "minimum": 1}}))}}},
            }, 400, 404, 503),
        }},
        "/api/frames": {"post": {
            "tags": ["frames"], "operationId": "postFrames",
            "summary": "The frames of a log in the body (nothing stored, no token)",
            "description": f"At most {limits.DEFAULTS['WATCH_MAX_MOVES']:,} moves and "
                           f"{limits.size(limits.DEFAULTS['WATCH_MAX_BYTES'])} of frames.",
            "parameters": [frames_query,
                           {"name": "Content-Encoding", "in": "header", "required": False,
                            "schema": ENCODINGS}],
            "requestBody": _upload_body(),
            "responses": api_answers({"200": api_ok(success(ref("Frames")),
                                                    "The frames, up to a refused move.")},
                                     400, 413, 415),
        }},
        "/api/stats": {"get": {
            "tags": ["stats"], "operationId": "statsIndex", "summary": "The statistics' URLs",
            "security": READ, "parameters": STATS_FILTERS,
            "responses": api_answers({"200": api_ok(success(ref("StatsIndex")),
                                                    "URLs, filters and metrics.")}, 400),
        }},
        "/api/stats/bonus": _stats("statsBonus", "Bonus frequency", "StatsBonus"),
        "/api/stats/blocked": _stats("statsBlocked", "Blocked rounds", "StatsBlocked"),
        "/api/stats/variants": _stats("statsVariants", "Every variant's figures",
                                      "StatsVariants"),
        "/api/stats/compare": {"get": {
            "tags": ["stats"], "operationId": "statsCompare", "summary": "Two variants compared",
            "security": READ,
            "parameters": [*COMPARED, *(p for p in STATS_FILTERS if p["name"] != "variant")],
            "responses": api_answers({"200": api_ok(success(ref("StatsCompare")),
                                                    "Two variants compared")}, 400, 404),
        }},
        "/api/stats/people": {"get": {
            "tags": ["stats"], "operationId": "statsPeople",
            "summary": "Players found by id or name", "security": READ,
            "parameters": [query("q", {"type": "string", "maxLength": 200},
                                 "Text the player's id or name contains, in any case.")],
            "responses": api_answers({"200": api_ok(success(ref("StatsPeople")),
                                                    "Players found by id or name")}, 400),
        }},
        "/api/stats/players": _stats("statsPlayers", "Player tendencies", "StatsPlayers"),
        "/api/stats/players/{player_id}": _stats("statsPlayer", "One player", "StatsPlayer",
                                                 [PLAYER_ID], 404),
        **_pages(),
    }


def _stats(operation: str, summary: str, schema: str, extra: list[Schema] | None = None,
           *errors: int) -> dict[str, Any]:
    return {"get": {
        "tags": ["stats"], "operationId": operation, "summary": summary, "security": READ,
        "parameters": [*(extra or []), *STATS_FILTERS],
        "responses": api_answers({"200": api_ok(success(ref(schema)), summary)}, 400, *errors),
    }}


def _pages() -> dict[str, Any]:
    listing = {
        "tags": ["pages"], "parameters": [form_field(p) for p in [*FILTERS, *PAGE_FILTERS]],
        "responses": {**page_answers("The games, filtered, sorted and paged.", 400),
                      "302": {"description": "An empty field of the form: the same address "
                                             "without it.",
                              "headers": {**LOCKED_HEADERS, "Location": {
                                  "$ref": "#/components/headers/Location"}}}},
    }
    stats_pages = {
        f"/stats{tail}": {"get": {"tags": ["pages"], "operationId": f"statsPage{name}",
                                  "summary": f"The {name.lower() or 'overview'} dashboard",
                                  "parameters": [*params, *[
                                      {**p, "schema": {"type": "string"}}
                                      for p in STATS_FILTERS]],
                                  "responses": page_answers("The dashboard.",
                                                            *([404] if params else []))}}
        for tail, name, params in (("", "", []), ("/bonus", "Bonus", []),
                                   ("/blocked", "Blocked", []), ("/players", "Players", []),
                                   ("/variants", "Variants", []),
                                   ("/compare", "Compare", [
                                       {**p, "required": False, "schema": {"type": "string"}}
                                       for p in COMPARED]),
                                   ("/players/{player_id}", "Player", [PLAYER_ID]))
    }
    return {
        "/": {"get": {**listing, "operationId": "home", "summary": "The games list"}},
        "/games": {"get": {**listing, "operationId": "gamesPage", "summary": "The games list"}},
        "/games/{game_pk}": {"get": {
            "tags": ["pages"], "operationId": "replayPage", "summary": "A game's replay",
            "parameters": [GAME_NUMBER], "responses": page_answers("The replay page.", 404)}},
        "/watch": {
            "get": {"tags": ["pages"], "operationId": "watchForm", "summary": "Watch a log",
                    "responses": page_answers("The form.")},
            "post": {
                "tags": ["pages"], "operationId": "watch",
                "summary": "Replay a pasted or chosen log (nothing stored, no token)",
                "requestBody": {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "properties": {
                        "log": {"type": "string", "description": "Pasted, at most "
                                f"{limits.size(limits.DEFAULTS['MAX_FORM_MEMORY_SIZE'])}."},
                        "file": {"type": "string", "format": "binary"},
                        "index": {"type": "string", "description": "The document's number, "
                                  "from 0."}}}}}},
                "responses": page_answers("The replay, or the form with the reason.",
                                          400, 413)},
        },
        "/upload": {
            "get": {"tags": ["pages"], "operationId": "uploadForm", "summary": "Upload games",
                    "responses": page_answers("The form.")},
            "post": {
                "tags": ["pages"], "operationId": "uploadPage",
                "summary": "The upload form without JavaScript",
                "requestBody": {"required": True, "content": {"multipart/form-data": {
                    "schema": {"type": "object", "properties": {
                        "token": {"type": "string"},
                        "files": {"type": "array", "maxItems":
                                  limits.DEFAULTS["UPLOAD_MAX_FILES"],
                                  "items": {"type": "string", "format": "binary"}}}}}}},
                "responses": page_answers("The report of every file.", 400, 401, 403, 413,
                                          503)},
        },
        **stats_pages,
        "/signin": {
            "get": {"tags": ["pages"], "operationId": "signInForm", "summary": "Sign in",
                    "security": [{}],
                    "parameters": [{**query("next", {"type": "string"},
                                            "The page to come back to.")}],
                    "responses": {"200": page("The form."), "429": page(WHY[429]),
                                  "500": page(WHY[500])}},
            "post": {
                "tags": ["pages"], "operationId": "signIn",
                "summary": "Sign in with a read token: kept in an HttpOnly, SameSite=Lax "
                           "cookie (docs/service.md, Tokens, frontends and reading)",
                "security": [{}],
                "requestBody": {"required": True, "content": {
                    "application/x-www-form-urlencoded": {"schema": {
                        "type": "object", "properties": {"token": {"type": "string"},
                                                         "next": {"type": "string"}}}}}},
                "responses": {
                    "302": {"description": "Signed in: back to the page asked for (a path "
                                           "of this server only), with the cookie.",
                            "headers": {**LOCKED_HEADERS, "Location": {
                                "$ref": "#/components/headers/Location"}}},
                    **{str(s): page(w) for s, w in (
                        (400, "No token given."), (401, "An unknown token."),
                        (403, "A revoked token, one that may not read, or a sign-in "
                              "another site's page sent."),
                        (429, WHY[429]), (500, WHY[500]))}}},
        },
        "/signout": {"post": {
            "tags": ["pages"], "operationId": "signOut", "summary": "Forget the sign-in",
            "security": [{}],
            "responses": {
                "302": {"description": "Signed out: the sign-in page.",
                        "headers": {**LOCKED_HEADERS, "Location": {
                            "$ref": "#/components/headers/Location"}}},
                **{str(s): page(w) for s, w in (
                    (403, "A sign-out another site's page sent."), (429, WHY[429]),
                    (500, WHY[500]))}}}},
    }


def document() -> dict[str, Any]:
    """The whole document, as served and as written to docs/openapi.json."""
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "domino-recorder",
            "version": _version(),
            "summary": "Upload, list, replay and count domino games written as domino-log/1.",
            "description": "Every API answer is one of two envelopes: {\"ok\": true, "
                           "\"data\": ...} or the error envelope. Every address answers "
                           "405 (http/method-not-allowed, with Allow) to a method it does "
                           "not take. Limits, codes and the pages are described in "
                           "docs/service.md.",
        },
        "tags": [{"name": "games"}, {"name": "frames"}, {"name": "stats"},
                 {"name": "api"}, {"name": "pages", "description": "HTML pages."}],
        "paths": paths(),
        "components": {
            "schemas": SCHEMAS,
            "headers": HEADERS,
            "securitySchemes": {
                "bearer": {
                    "type": "http", "scheme": "bearer",
                    "description": "recorder token create NAME [--scope upload|read] "
                                   "[--frontend F]; an upload token sends its frontend's "
                                   "games only"},
                "signin": {
                    "type": "apiKey", "in": "cookie", "name": "recorder_read",
                    "description": "A read token kept by the sign-in page (/signin); "
                                   "taken for reading only, never for an upload"}},
        },
    }


def text() -> str:
    """The document as docs/openapi.json holds it."""
    return json.dumps(document(), indent=2, ensure_ascii=False) + "\n"


if __name__ == "__main__":
    sys.stdout.write(text())
