"""Replay frames without a browser: they agree with the engine's answer at every move.

For every preset and option in ``sample_games/`` the frames are held to what
``recorder replay --json`` answers (round results, running scores) and, move by move, to
an independent replay that applies each logged move with the engine's checked
``Round.apply`` (who moved, the ends, the bonus, the legal moves). Refused and
unfinished logs, and the HTTP endpoints, are covered too.
"""

from __future__ import annotations

import copy
import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import break_game, json_lines
from logs import deal, log

from recorder.cli import main
from recorder.engine import Match, Move
from recorder.frames import build_frames
from recorder.parse import iter_documents
from recorder.rules import PRESETS, Ruleset

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = sorted((ROOT / "sample_games").iterdir())
PER_FILE = 2  # games checked per sample file (each file is one preset and option set)


def sample_games() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """The shortest games of every sample file, each with the CLI's answer for it."""
    out = []
    for path in SAMPLES:
        result = CliRunner().invoke(main, ["replay", "--json", str(path)],
                                    catch_exceptions=False)
        answers = json_lines(result.output)
        docs = [p.doc for p in iter_documents(path.read_bytes())]
        assert len(answers) == len(docs)
        pairs = sorted(zip(docs, answers, strict=True),
                       key=lambda da: sum(len(r["moves"]) for r in da[0]["rounds"]))
        out += [(f"{path.name}#{d['game_id']}", d, a) for d, a in pairs[:PER_FILE]]
    return out


SAMPLE_GAMES = sample_games()


def close(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(abs(float(x) - float(y)) < 1e-9 for x, y in zip(a, b,
                                                                                     strict=True))


def expected_how(blocked: bool, pips_left: list[int], ended_by: int) -> str:
    """A round ends blocked, by a domino (the ender's hand is empty) or, under
    ``target_check: play``, by a play that reaches the target (the ender still holds tiles)."""
    if blocked:
        return "blocked"
    return "target" if pips_left[ended_by] else "domino"


def check_against_engine(doc: dict[str, Any], frames: dict[str, Any]) -> None:
    """Replay ``doc`` with the checked engine and compare every frame with it."""
    rules = Ruleset.from_spec(doc["ruleset"])
    match = Match(rules, len(doc["players"]))
    seed = doc.get("seed")
    for r, (rdoc, rframes) in enumerate(zip(doc["rounds"], frames["rounds"], strict=False), 1):
        assert rframes["round"] == r
        opener = rdoc.get("opener")
        state = match.new_round(deal=rdoc["deal"], opener=opener) if rdoc.get("deal") else \
            match.new_round(seed=rdoc.get("seed") or f"{seed}/{r}", opener=opener)
        before = list(match.scores)
        fl = rframes["frames"]
        assert [f["m"] for f in fl] == list(range(len(rdoc["moves"]) + 1))
        assert fl[0]["move"] is None and fl[0]["choices"] == []
        assert fl[0]["hands"] == [state.tiles.mask_names(h) for h in state.hands]
        for m, mdoc in enumerate(rdoc["moves"], 1):
            move = Move(mdoc["player"], mdoc["action"], mdoc.get("tile"), mdoc.get("end"),
                        closed=mdoc.get("closed") is True)
            legal = state.legal_moves(move.player)
            ends_before = state.open_ends()
            bonus_before = list(state.bonus)
            state.apply(move)
            f = fl[m]
            # who moved, and what
            assert f["move"]["player"] == move.player
            assert f["move"]["action"] == move.action
            # the ends and the board
            shown = {k: v for k, v in f["ends"].items() if v is not None}
            assert shown == state.open_ends()
            assert len(f["board"]) == len(state.board)
            if move.action == "play":
                placed = f["board"][-1]
                assert sorted((placed["a"], placed["b"])) == sorted(
                    int(x) for x in move.tile.split("-"))
                if placed["end"] is not None:  # a tile on an end matches what it showed
                    assert placed["a"] == ends_before[placed["end"]]
                    # the end shows the outer half, unless a closed double shut it
                    assert f["ends"][placed["end"]] == (None if placed["closed"]
                                                        else placed["b"])
                    assert f["move"]["end"] == placed["end"]
                    if move.end is not None:
                        assert move.end == placed["end"]
            # hands and boneyard
            assert f["hands"] == [state.tiles.mask_names(h) for h in state.hands]
            assert f["boneyard"] == state.boneyard_left()
            # bonus and running scores
            assert f["round_bonus"] == list(state.bonus)
            gained = state.bonus[move.player] - bonus_before[move.player]
            assert (f["bonus"] or {}).get("points", 0) == gained
            if state.result is None:
                assert close(f["scores"], [before[p] + state.bonus[p]
                                           for p in range(len(before))])
                assert f["ended"] is None and f["turn"] == state.turn
            else:
                res = state.result
                assert close(f["scores"], [before[p] + res.points[p] + res.bonus[p]
                                           for p in range(len(before))])
                assert f["ended"] == expected_how(res.blocked, res.pips_left, res.ended_by)
                assert f["turn"] is None and f["movers"] == []
            # the choices: every legal move, the played one exactly once
            choices = f["choices"]
            assert len(choices) == len(legal)
            assert sum(c["played"] for c in choices) == 1
            for option in legal:
                hits = [c for c in choices if c["action"] == option.action
                        and c["tile"] == option.tile and c["closed"] == option.closed
                        and (option.end is None or c["end"] == option.end)]
                assert len(hits) == 1, (option, choices)
            played = next(c for c in choices if c["played"])
            assert played["action"] == move.action
            if move.action == "play":
                assert played["end"] == f["move"]["end"]
                assert played["tile"] == state.tiles.kind_name[
                    state.tiles.parse(move.tile)[0]]
                assert played["score"] == gained
                assert played["ends_round"] == f["ended"]
        if state.result is not None:
            match.finish_round(state.result)


@pytest.mark.parametrize(("name", "doc", "answer"), SAMPLE_GAMES,
                         ids=[g[0] for g in SAMPLE_GAMES])
def test_frames_agree_with_the_engine(name: str, doc: dict[str, Any],
                                      answer: dict[str, Any]) -> None:
    frames = build_frames(doc)
    assert frames["error"] is None
    game = frames["game"]
    assert game["status"] == answer["status"]
    assert close(game["scores"], answer["scores"])
    assert game["winners"] == answer["winners"]
    assert [p["id"] for p in game["players"]] == [p["id"] for p in doc["players"]]
    finished = [r for r in frames["rounds"] if r["summary"] is not None]
    assert len(finished) == len(answer["rounds"])
    running = [0.0] * len(doc["players"])
    for rframes, ranswer in zip(finished, answer["rounds"], strict=True):
        summary = rframes["summary"]
        for key in ("winners", "blocked", "pips_left", "ended_by"):
            assert summary[key] == ranswer[key]
        assert close(summary["points"], ranswer["points"])
        assert close(summary["bonus"], ranswer["bonus"])
        running = [s + p + b for s, p, b in zip(running, ranswer["points"], ranswer["bonus"],
                                                strict=True)]
        assert close(summary["scores"], running)
        assert close(rframes["frames"][-1]["scores"], running)
        assert summary["how"] == expected_how(ranswer["blocked"], ranswer["pips_left"],
                                              ranswer["ended_by"])
    check_against_engine(doc, frames)


def test_every_option_of_the_samples_is_covered() -> None:
    """The sample files span every preset, and the options the page draws differently."""
    seen: set[str] = set()
    for _, doc, _ in SAMPLE_GAMES:
        rules = Ruleset.from_spec(doc["ruleset"])
        seen.add(rules.preset)
        for flag in ("spinner", "bonus", "partnerships"):
            if getattr(rules, flag):
                seen.add(flag)
        if rules.sets == 2:
            seen.add("two sets")
        if rules.draw == "one":
            seen.add("draw one")
        if rules.closed_doubles:
            seen.add("closed doubles")
        if rules.target_check == "play":
            seen.add("target at a play")
    assert set(PRESETS) | {"spinner", "bonus", "partnerships", "two sets", "draw one",
                           "closed doubles", "target at a play"} <= seen


# ---------------------------------------------------------------------------------------
# Placement, bonus and summary on a hand-made game.


def spinner_game() -> dict[str, Any]:
    """spilop with bonus (spinner arms open at once): 6-6, 1-6 right, 4-6 left, 1-1 right."""
    return log({"preset": "spilop", "options": {"bonus": True}}, 2, [{
        "deal": deal("6-6 4-6 0-1 0-2 0-3 0-4 0-5", "1-6 1-1 1-2 1-3 1-4 1-5 2-2"),
        "moves": ["0 play 6-6", "1 play 1-6 right", "0 play 4-6 left", "1 play 1-1 right"],
    }])


def test_placed_tiles_face_their_ends() -> None:
    frames = build_frames(spinner_game())
    fl = frames["rounds"][0]["frames"]
    assert frames["game"]["spinner"] is True
    opening = fl[1]["board"][0]
    assert opening == {"seq": 0, "tile": "6-6", "a": 6, "b": 6, "end": None, "double": True,
                       "spinner": True, "closed": False}
    assert fl[2]["board"][1] == {"seq": 1, "tile": "6-1", "a": 6, "b": 1, "end": "right",
                                 "double": False, "spinner": False, "closed": False}
    assert fl[2]["ends"] == {"left": 6, "right": 1, "up": 6, "down": 6}
    assert fl[3]["board"][2]["a"] == 6 and fl[3]["board"][2]["b"] == 4
    assert fl[3]["ends"]["left"] == 4
    assert fl[4]["board"][3]["double"] is True
    assert fl[4]["move"]["text"] == "kfnielsen plays 1-1 right"


def test_bonus_frames_carry_the_open_end_sum() -> None:
    # Worked out by hand (RULES.md, "Bonus points"): after 6-6 the sum is 12 (the opening
    # double once, both halves). After 1-6 right: the left end is still the spinner, a
    # crosswise double (12), the right shows 1: 13; arms without a tile count nothing.
    # After 4-6 left: 4 + 1 = 5, a multiple of 5: seat 0 scores 5.
    frames = build_frames(spinner_game())
    fl = frames["rounds"][0]["frames"]
    assert fl[1]["end_sum"] == 12 and fl[1]["bonus"] is None
    assert fl[2]["end_sum"] == 13 and fl[2]["bonus"] is None
    assert fl[3]["end_sum"] == 5
    assert fl[3]["bonus"] == {"seat": 0, "points": 5, "end_sum": 5}
    assert fl[3]["round_bonus"] == [5, 0] and fl[3]["scores"] == [5, 0]
    played = [c for c in fl[3]["choices"] if c["played"]]
    assert played == [{"player": 0, "action": "play", "tile": "4-6", "end": "left",
                       "closed": False, "score": 5, "ends_round": None, "played": True}]


# ---------------------------------------------------------------------------------------
# Refused and unfinished logs.


def test_a_refused_log_stops_before_the_error(game_pool: list[dict[str, Any]]) -> None:
    bad = break_game(game_pool[0])
    frames = build_frames(bad)
    assert frames["game"]["status"] == "invalid"
    assert frames["error"]["round"] == 1 and frames["error"]["move"] == 2
    assert frames["error"]["code"] == "move/illegal"
    assert "round 1, move 2" in frames["error"]["message"]
    rounds = frames["rounds"]
    assert len(rounds) == 1
    assert [f["m"] for f in rounds[0]["frames"]] == [0, 1]
    assert rounds[0]["summary"] is None


def test_a_refused_move_in_a_later_round(game_pool: list[dict[str, Any]]) -> None:
    doc = next(copy.deepcopy(g) for g in game_pool if len(g["rounds"]) >= 3)
    moves = doc["rounds"][2]["moves"]
    moves[3]["player"] = (moves[3]["player"] + 1) % len(doc["players"])  # out of turn
    frames = build_frames(doc)
    err = frames["error"]
    assert err is not None and err["round"] == 3 and err["move"] == 4, err
    assert [r["summary"] is not None for r in frames["rounds"]] == [True, True, False]
    assert [f["m"] for f in frames["rounds"][2]["frames"]] == [0, 1, 2, 3]


def test_an_error_at_a_deal_gives_that_round_no_frames(
        game_pool: list[dict[str, Any]]) -> None:
    doc = next(copy.deepcopy(g) for g in game_pool if len(g["rounds"]) >= 2)
    doc["rounds"][1]["deal"] = {"hands": [["0-0"]], "boneyard": []}
    frames = build_frames(doc)
    assert frames["error"]["round"] == 2 and frames["error"]["move"] == 0
    assert frames["error"]["code"] == "round/deal"
    assert frames["rounds"][0]["summary"] is not None
    assert frames["rounds"][1] == {"round": 2, "frames": [], "summary": None}


def test_an_unfinished_game_plays_as_far_as_it_goes(game_pool: list[dict[str, Any]]) -> None:
    doc = copy.deepcopy(game_pool[1])
    doc["rounds"] = doc["rounds"][:2]
    cut = doc["rounds"][1]["moves"]
    doc["rounds"][1]["moves"] = cut[:5]
    doc.pop("result", None)
    for r in doc["rounds"]:
        r.pop("result", None)
    frames = build_frames(doc)
    assert frames["error"] is None
    assert frames["game"]["status"] == "unfinished"
    assert frames["rounds"][0]["summary"] is not None
    assert frames["rounds"][1]["summary"] is None
    assert [f["m"] for f in frames["rounds"][1]["frames"]] == [0, 1, 2, 3, 4, 5]
    check_against_engine(doc, frames)


def test_a_document_that_is_no_log() -> None:
    for doc in ({}, [], 7, {"format": "domino-log/1", "ruleset": "nope", "players": [],
                            "rounds": []}):
        frames = build_frames(doc)
        assert frames["game"]["status"] == "invalid"
        assert frames["rounds"] == []
        assert frames["error"]["round"] == 0 and frames["error"]["message"]


def test_frames_are_plain_json(game_pool: list[dict[str, Any]]) -> None:
    """Split scores (fractions) come out as numbers; the whole answer survives JSON."""
    for doc in game_pool[:6]:
        frames = build_frames(doc)
        assert json.loads(json.dumps(frames)) == frames


# ---------------------------------------------------------------------------------------
# The endpoints.


def test_get_frames_of_a_stored_game(client: Any, auth: dict[str, str],
                                     game_pool: list[dict[str, Any]]) -> None:
    doc = game_pool[2]
    up = client.post("/api/games", data=json.dumps(doc), headers=auth)
    game_pk = up.get_json()["data"]["games"][0]["id"]
    r = client.get(f"/api/games/{game_pk}/frames")
    assert r.status_code == 200
    data = r.get_json()["data"]
    assert data["game"]["id"] == game_pk
    assert data == json.loads(json.dumps(build_frames(doc, game_pk=game_pk)))
    missing = client.get("/api/games/99999/frames")
    assert missing.status_code == 404
    assert missing.get_json()["error"]["code"] == "game/not-found"


def test_post_frames_stores_nothing(client: Any, db: Any,
                                    game_pool: list[dict[str, Any]]) -> None:
    body = "".join(json.dumps(d) + "\n" for d in game_pool[:3]).encode()
    r = client.post("/api/frames?index=2", data=gzip.compress(body),
                    headers={"Content-Type": "application/gzip"})
    assert r.status_code == 200
    assert r.get_json()["data"]["game"]["game_id"] == game_pool[2]["game_id"]
    assert r.get_json()["data"]["game"]["id"] is None
    assert db["games"].count == 0
    refused = client.post("/api/frames", data=json.dumps(break_game(game_pool[0])))
    assert refused.status_code == 200
    assert refused.get_json()["data"]["error"]["move"] == 2


@pytest.mark.parametrize(("query", "body", "status", "code"), [
    ("", b"", 400, "input/empty"),
    ("", b"{not json", 400, "input/unreadable"),
    ("", b"\x1f\x8b broken gzip", 400, "input/unreadable"),
    ("?index=5", b'{"format": "domino-log/1"}', 400, "input/no-such-document"),
    ("?index=-1", b"{}", 400, "query/invalid"),
    ("?index=two", b"{}", 400, "query/invalid"),
    ("?token=x", b"{}", 400, "query/unknown-parameter"),
])
def test_post_frames_refuses_what_it_cannot_read(client: Any, query: str, body: bytes,
                                                 status: int, code: str) -> None:
    r = client.post(f"/api/frames{query}", data=body)
    assert r.status_code == status
    payload = r.get_json()
    assert payload["ok"] is False and payload["error"]["code"] == code


def test_post_frames_size_limit(tmp_path: Path, game_pool: list[dict[str, Any]]) -> None:
    from webui import create_app

    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "r.db"),
                      "MAX_CONTENT_LENGTH": 1000})
    r = app.test_client().post("/api/frames", data=json.dumps(game_pool[0]))
    assert r.status_code == 413
    assert r.get_json()["ok"] is False


def test_a_stored_games_frames_are_built_once(client: Any, auth: dict[str, str],
                                              game_pool: list[dict[str, Any]],
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import webui.api

    up = client.post("/api/games", data=json.dumps(game_pool[7]), headers=auth)
    game_pk = up.get_json()["data"]["games"][0]["id"]
    first = client.get(f"/api/games/{game_pk}/frames")
    assert first.status_code == 200

    def no_build(*_: Any, **__: Any) -> Any:
        raise AssertionError("built again")

    monkeypatch.setattr(webui.api, "build_frames", no_build)
    again = client.get(f"/api/games/{game_pk}/frames")
    assert again.status_code == 200 and again.data == first.data
    assert again.mimetype == "application/json"


def test_the_frames_cache_keeps_to_its_budget() -> None:
    from webui.api import FramesCache

    cache = FramesCache()
    cache.put(("db", 1, "a"), b"x" * 60, 100)
    cache.put(("db", 2, "b"), b"y" * 30, 100)
    assert cache.get(("db", 1, "a")) is not None  # now the most recent
    cache.put(("db", 3, "c"), b"z" * 30, 100)  # 120 bytes: the oldest, game 2, goes
    assert cache.get(("db", 2, "b")) is None
    assert cache.get(("db", 1, "a")) == b"x" * 60 and cache.get(("db", 3, "c")) == b"z" * 30
    cache.put(("db", 4, "d"), b"w" * 101, 100)  # larger than the budget: not kept
    assert cache.get(("db", 4, "d")) is None


def test_frames_of_too_long_a_log_are_refused(tmp_path: Path,
                                              game_pool: list[dict[str, Any]]) -> None:
    from webui import create_app

    doc = game_pool[8]
    moves = sum(len(r["moves"]) for r in doc["rounds"])
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "r.db"),
                      "WATCH_MAX_MOVES": moves - 1})
    client = app.test_client()
    r = client.post("/api/frames", data=json.dumps(doc))
    assert r.status_code == 413
    assert r.get_json()["error"]["code"] == "input/too-many-moves"
    assert f"{moves:,} moves" in r.get_json()["error"]["message"]
    assert f"at most {moves - 1:,}" in r.get_json()["error"]["message"]
    page = client.post("/watch", data={"log": json.dumps(doc)})
    assert page.status_code == 413 and "too long to watch" in page.get_data(as_text=True)
    app.config["WATCH_MAX_MOVES"] = moves
    assert client.post("/api/frames", data=json.dumps(doc)).status_code == 200


def test_frames_of_a_stored_game_have_their_own_moves_limit(
        tmp_path: Path, game_pool: list[dict[str, Any]]) -> None:
    """A stored game came with a token and its frames are kept: it may be longer than a
    log sent to be watched by anybody (FRAMES_MAX_MOVES, not WATCH_MAX_MOVES)."""
    from recorder import storage
    from recorder.ingest import import_upload
    from webui import create_app

    doc = game_pool[8]
    moves = sum(len(r["moves"]) for r in doc["rounds"])
    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    import_upload(db, json.dumps(doc).encode())
    db.close()
    app = create_app({"TESTING": True, "DATABASE": str(db_path),
                      "WATCH_MAX_MOVES": moves - 1, "FRAMES_MAX_MOVES": moves})
    client = app.test_client()
    assert client.get("/api/games/1/frames").status_code == 200
    assert client.post("/api/frames", data=json.dumps(doc)).status_code == 413
    app.config["FRAMES_MAX_MOVES"] = moves - 1
    app.config["FRAMES_CACHE_BYTES"] = 0
    r = client.get("/api/games/1/frames")
    assert r.status_code == 413 and r.get_json()["error"]["code"] == "input/too-many-moves"
