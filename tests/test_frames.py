"""Replay frames without a browser: they agree with the table at every move.

For every preset and option in ``sample_games/`` the frames are held to what
``recorder replay --json`` answers (round results, running scores) and, move by move, to
a table kept here from the log alone by the words of docs/rules.md and docs/format.md,
not by the engine (:class:`Table`: the hands from the deal or the contract's shuffle, the
tiles played and drawn, the ends, the open-end sum and its bonus, every choice the mover
had and what it would have scored). Refused and unfinished logs, and the HTTP endpoints,
are covered too.
"""

from __future__ import annotations

import copy
import gzip
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import break_game, json_lines
from logs import canonical, deal, dealt, highest_double, log, pips, shuffled

from recorder.cli import main
from recorder.frames import build_frames
from recorder.parse import iter_documents
from recorder.replay import replay
from recorder.rules import PRESETS, Ruleset
from recorder.shuffle import shuffle

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


END_NAMES = ("left", "right", "up", "down")


def low_high(tile: str) -> str:
    a, b = (int(x) for x in tile.split("-"))
    return f"{min(a, b)}-{max(a, b)}"


def contract_deal(rules: Ruleset, players: int, seed: str) -> tuple[list[list[str]], list[str]]:
    """The hands and boneyard a seed deals, by the contract's words (docs/format.md, "The
    seeded shuffle"): shuffle the canonical list, seat s takes its slice, the rest is the
    boneyard; redeal on the same stream while the opening needs a double nobody holds."""
    each = rules.tiles_each(players)
    order, stream = shuffled(seed, rules.max_pip, rules.sets)
    hands, boneyard = dealt(order, players, each)
    redeal = rules.no_double == "redeal" and rules.opening_for(players) in (
        "highest-double", "double-zero-first")
    while redeal and highest_double(hands) is None:
        hands, boneyard = dealt(shuffle(canonical(rules.max_pip, rules.sets), stream),
                                players, each)
    return hands, boneyard


class Table:
    """The table of one round as docs/rules.md describes it, kept from the log alone.

    Not the engine: a few lines of bookkeeping that give what every frame must show.
    The hands are the deal, less the tiles played, plus the tiles drawn (the next of the
    boneyard); the ends are those of the line (a spinner's arms once open, docs/rules.md
    "Openings"), each showing the outer half of its last tile; the open-end sum is the
    six steps of "The bonus".
    """

    def __init__(self, rules: Ruleset, hands: list[list[str]], boneyard: list[str]) -> None:
        self.rules = rules
        self.hands = [Counter(low_high(t) for t in h) for h in hands]
        self.boneyard = [low_high(t) for t in boneyard]
        self.drawn = 0
        self.board: list[tuple[int, int]] = []  # (the half that touches, the outer half)
        self.value: dict[str, int | None] = dict.fromkeys(END_NAMES)
        self.double = dict.fromkeys(END_NAMES, False)  # a crosswise double at that end
        self.covered = dict.fromkeys(END_NAMES, False)  # a tile lies on that side
        self.arms_open = False
        self.spinner: int | None = None  # the opening double's number, when it spins
        self.opening_double: int | None = None
        self.shut_pips = 0
        self.bonus = [0] * len(hands)

    def copy(self) -> Table:
        other = copy.copy(self)
        other.hands = [Counter(h) for h in self.hands]
        other.board = list(self.board)
        other.bonus = list(self.bonus)
        for name in ("value", "double", "covered"):
            setattr(other, name, dict(getattr(self, name)))
        return other

    def open_ends(self) -> dict[str, int]:
        return {e: v for e, v in self.value.items() if v is not None}

    def end_sum(self) -> int:
        if not self.board:
            return 0
        total = self.shut_pips
        for e, v in self.open_ends().items():
            if e in ("left", "right") or self.covered[e]:
                total += 2 * v if self.double[e] else v
        if self.opening_double is not None and not (self.covered["left"]
                                                    or self.covered["right"]):
            total -= 2 * self.opening_double  # both line ends are the one double: once
        return total

    def fits(self, tile: str) -> list[str]:
        halves = {int(x) for x in tile.split("-")}
        return [e for e, v in self.open_ends().items() if v in halves]

    def draw(self, seat: int) -> str:
        tile = self.boneyard[self.drawn]
        self.drawn += 1
        self.hands[seat][tile] += 1
        return tile

    def play(self, seat: int, tile: str, end: str | None, closed: bool) -> int:
        """Place the tile; the bonus it scores (credited to the player's side)."""
        self.hands[seat][low_high(tile)] -= 1
        assert self.hands[seat][low_high(tile)] >= 0, (seat, tile)
        a, b = (int(x) for x in tile.split("-"))
        rules = self.rules
        if not self.board:  # the opening tile: left shows its first half, right the other
            self.value["left"], self.value["right"] = a, b
            self.board.append((a, b))
            if a == b:
                self.opening_double = a
                self.double["left"] = self.double["right"] = True
                if rules.spinner:
                    self.spinner = a
                    if rules.spinner_arms == "always":
                        self.value["up"] = self.value["down"] = a
                        self.arms_open = True
        else:
            assert end is not None and self.value[end] in (a, b), (tile, end, self.value)
            shown = self.value[end]
            outer = b if shown == a else a
            self.board.append((shown, outer))
            self.value[end] = outer
            self.double[end] = a == b
            self.covered[end] = True
            if closed:  # the end ends here; the double's halves stay in the sum
                self.value[end] = None
                self.double[end] = False
                self.shut_pips += 2 * outer
            if self.spinner is not None and not self.arms_open and \
                    self.covered["left"] and self.covered["right"]:
                self.value["up"] = self.value["down"] = self.spinner
                self.arms_open = True
            if self.spinner is not None and rules.spinner_max_arms == 3 and \
                    sum(self.covered.values()) == 3:
                last = next(e for e in END_NAMES if not self.covered[e])
                self.value[last] = None  # the side still without a tile closes
        points = self.end_sum() if rules.bonus else 0
        if points <= 0 or points % rules.bonus_multiple:
            return 0
        for side in rules.sides(len(self.hands)):
            if seat in side:
                for member in side:
                    self.bonus[member] += points
        return points


def check_against_the_table(doc: dict[str, Any], frames: dict[str, Any],
                            answer: dict[str, Any]) -> None:
    """Hold every frame to a :class:`Table` kept from ``doc``, and the running scores
    to the round results of ``answer`` (the engine's answer, ``recorder replay --json``)."""
    rules = Ruleset.from_spec(doc["ruleset"])
    n = len(doc["players"])
    before = [0.0] * n
    for r, (rdoc, rframes) in enumerate(zip(doc["rounds"], frames["rounds"], strict=False), 1):
        assert rframes["round"] == r
        if rdoc.get("deal"):
            hands, boneyard = rdoc["deal"]["hands"], rdoc["deal"].get("boneyard", [])
        else:
            hands, boneyard = contract_deal(rules, n, rdoc.get("seed") or f"{doc['seed']}/{r}")
        table = Table(rules, hands, boneyard)
        fl = rframes["frames"]
        assert [f["m"] for f in fl] == list(range(len(rdoc["moves"]) + 1))
        assert fl[0]["move"] is None and fl[0]["choices"] == []
        assert [Counter(map(low_high, h)) for h in fl[0]["hands"]] == table.hands
        drew_last: int | None = None  # the seat whose last move was a draw
        for m, mdoc in enumerate(rdoc["moves"], 1):
            f = fl[m]
            seat, action = mdoc["player"], mdoc["action"]
            closed = mdoc.get("closed") is True
            ahead = table.copy()
            choices = f["choices"]
            assert sum(c["played"] for c in choices) == 1
            played = next(c for c in choices if c["played"])
            assert (played["player"], played["action"]) == (seat, action)
            # the choices the mover had: every tile of the hand on every end it fits
            if table.board:
                plays = {(tile, e) for tile, k in table.hands[seat].items() if k
                         for e in table.fits(tile)}
                listed = {(c["tile"], c["end"]) for c in choices
                          if c["action"] == "play" and not c["closed"]}
                assert listed == plays, (r, m, listed, plays)
                assert all(c["tile"].split("-")[0] == c["tile"].split("-")[1]
                           for c in choices if c["closed"])
                for c in choices:
                    if c["action"] == "play" and not c["closed"]:
                        trial = table.copy()
                        assert c["score"] == trial.play(seat, c["tile"], c["end"], False), c
                if not plays:
                    may_draw = (rules.draw != "none"
                                and len(table.boneyard) - table.drawn > rules.stock_floor
                                and not (rules.draw == "one" and drew_last == seat))
                    assert [c["action"] for c in choices] == ["draw" if may_draw else "pass"]
            else:  # the opening: tiles of the mover's hand, on no end
                assert all(c["end"] is None and table.hands[seat][c["tile"]]
                           for c in choices if c["action"] == "play")
            # the move, applied to the table
            gained = 0
            if action == "play":
                end = f["move"]["end"]
                if mdoc.get("end") is not None:
                    assert end == mdoc["end"]
                gained = table.play(seat, mdoc["tile"], end, closed)
                placed = f["board"][-1]
                assert (placed["a"], placed["b"]) == table.board[-1]
                assert placed["end"] == end and placed["closed"] == closed
                assert (played["tile"], played["end"]) == (low_high(mdoc["tile"]), end)
                assert played["score"] == gained
                drew_last = None
            elif action == "draw":
                tile = table.draw(seat)
                if mdoc.get("tile") is not None:
                    assert low_high(mdoc["tile"]) == tile
                assert f["move"]["tile"] == tile  # the frame names the tile drawn
                drew_last = seat
            else:
                drew_last = None
            assert f["move"]["player"] == seat and f["move"]["action"] == action
            # what the frame shows after it
            assert [Counter(map(low_high, h)) for h in f["hands"]] == table.hands
            assert f["boneyard"] == len(table.boneyard) - table.drawn
            assert len(f["board"]) == len(table.board)
            assert {k: v for k, v in f["ends"].items() if v is not None} == table.open_ends()
            if rules.bonus:
                assert f["end_sum"] == table.end_sum()
            assert (f["bonus"] or {}).get("points", 0) == gained
            assert f["round_bonus"] == table.bonus
            if f["ended"] is None:
                assert close(f["scores"], [b + x for b, x in zip(before, table.bonus,
                                                                   strict=True)])
            assert ahead.hands != table.hands or action == "pass"
        if r <= len(answer["rounds"]):
            ranswer = answer["rounds"][r - 1]
            assert ranswer["bonus"] == table.bonus
            assert ranswer["pips_left"] == [sum(pips(t) * k for t, k in h.items())
                                            for h in table.hands]
            before = [b + p + x for b, p, x in zip(before, ranswer["points"], ranswer["bonus"],
                                                   strict=True)]
            assert close(fl[-1]["scores"], before)


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
    check_against_the_table(doc, frames, answer)


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
    check_against_the_table(doc, frames, replay(doc))


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


# ---------------------------------------------------------------------------------------
# What the page says: the ends that count, why a player passed, how a round and the game
# ended, the marks of the move list, the refusal in the page's words.


def sample_docs(name: str) -> list[dict[str, Any]]:
    return [p.doc for p in iter_documents((ROOT / "sample_games" / name).read_bytes())]


def all_frames(frames: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [(r["round"], f) for r in frames["rounds"] for f in r["frames"]]


def test_the_sum_terms_are_the_open_end_sum_taken_apart() -> None:
    fl = build_frames(spinner_game())["rounds"][0]["frames"]
    assert fl[0]["sum_terms"] == []  # the deal: nothing on the table
    # 6-6 alone: one term for both line ends (the opening double, once); the arms are
    # open for play but hold no tile, so they add nothing
    assert fl[1]["sum_terms"] == [
        {"ends": ["left", "right"], "halves": [6, 6], "points": 12, "kind": "counts"},
        {"ends": ["up"], "halves": [], "points": 0, "kind": "empty-arm"},
        {"ends": ["down"], "halves": [], "points": 0, "kind": "empty-arm"},
    ]
    # 1-6 right: the spinner is still the left end (both halves) and the right shows 1
    assert [(t["ends"], t["halves"], t["kind"]) for t in fl[2]["sum_terms"]] == [
        (["left"], [6, 6], "counts"), (["right"], [1], "counts"),
        (["up"], [], "empty-arm"), (["down"], [], "empty-arm")]
    assert fl[4]["sum_terms"][1] == {"ends": ["right"], "halves": [1, 1], "points": 2,
                                     "kind": "counts"}  # 1-1 lies across the right end
    # without the bonus rule there is no sum to take apart
    plain = build_frames(sample_docs("spilop-2p.jsonl")[0])
    assert all(f["sum_terms"] is None for _, f in all_frames(plain))


@pytest.mark.parametrize("name", ["spilop-bonus-3p.jsonl", "spilop-two-sets-4p.jsonl",
                                  "all-fives.jsonl", "bonus-examples.json"])
def test_the_sum_terms_always_add_up(name: str) -> None:
    kinds: set[str] = set()
    for doc in sample_docs(name)[:3]:
        for _, f in all_frames(build_frames(doc)):
            terms = f["sum_terms"]
            assert sum(t["points"] for t in terms) == f["end_sum"]
            for t in terms:
                kinds.add(t["kind"])
                assert t["points"] == sum(t["halves"])
                if t["kind"] in ("counts", "empty-arm"):  # an open end, as `ends` lists it
                    assert all(f["ends"][e] is not None for e in t["ends"])
                else:  # closed for good: no tile may go there
                    assert all(f["ends"][e] is None for e in t["ends"])
            closed = sum(1 for p in f["board"] if p["closed"])
            assert closed == sum(1 for t in terms if t["kind"] == "closed")
    if name == "all-fives.jsonl":  # closed doubles and the spinner's shut side
        assert {"closed", "shut", "empty-arm", "counts"} <= kinds


def test_a_pass_and_a_draw_say_why() -> None:
    seen: dict[str, list[dict[str, Any]]] = {}
    for name in ("classic-draw-one-3p.jsonl", "classic-2p.jsonl", "norwegian-2p.jsonl",
                 "openspiel-block.jsonl", "spilop-2p.jsonl"):
        for doc in sample_docs(name)[:4]:
            frames = build_frames(doc)
            for r in frames["rounds"]:
                fl = r["frames"]
                for i, f in enumerate(fl[1:], 1):
                    move = f["move"]
                    if move["action"] == "play":
                        assert move["why"] is None
                        continue
                    why = move["why"]
                    assert why is not None, (name, r["round"], f["m"])
                    seen.setdefault(why["code"], []).append(f)
                    before = fl[i - 1]
                    if why["code"] == "drew-one":  # the draw just before, by the same seat
                        assert before["move"]["action"] == "draw"
                        assert before["move"]["player"] == move["player"]
                        assert f["boneyard"] > 0 or "0 left" in why["text"]
                        assert "already drew the one tile allowed" in why["text"]
                    elif why["code"] == "boneyard-empty":
                        assert f["boneyard"] == 0
                    elif why["code"] == "stock-floor":
                        assert 0 < f["boneyard"] <= 2 and "2 or fewer" in why["text"]
                    elif why["code"] == "no-drawing":
                        assert "these rules have no drawing" in why["text"]
                    elif why["code"] == "draws":
                        assert f["boneyard"] == before["boneyard"] - 1
                    if why["code"] != "draw-for-double":  # it names the numbers that fit
                        for n in set(before["ends"].values()) - {None}:
                            assert f"a {n}" in why["text"]
    assert {"drew-one", "boneyard-empty", "stock-floor", "no-drawing", "draws"} <= set(seen)
    # draw: one with tiles left in the boneyard is the case the page used to get wrong
    assert any(f["boneyard"] > 0 for f in seen["drew-one"])


def test_a_round_that_ends_on_the_target_is_not_a_domino() -> None:
    doc = next(d for d in sample_docs("all-fives.jsonl") if d["game_id"] == "all-fives-sample-1")
    frames = build_frames(doc)
    last_round = frames["rounds"][-1]
    summary = last_round["summary"]
    assert summary["how"] == "target" and summary["pips_left"][summary["ended_by"]] > 0
    ender = frames["game"]["players"][summary["ended_by"]]["id"]
    marks = last_round["frames"][-1]["marks"]
    kinds = [m["kind"] for m in marks]
    assert "target" in kinds and "domino" not in kinds and kinds[-1] == "game-over"
    target = next(m for m in marks if m["kind"] == "target")
    assert target["text"].startswith(f"{ender} reaches {summary['scores'][summary['ended_by']]}")
    assert summary["game_over"] == {"why": "target", "target": 305, "target_mode": "reach-wins",
                                    "reached": [summary["ended_by"]]}
    assert frames["game"]["game_over"] == summary["game_over"]
    # every other round of the samples ends as its summary says
    for name in ("classic-2p.jsonl", "kozel-4p.jsonl", "openspiel-block.jsonl"):
        for d in sample_docs(name)[:3]:
            for r in build_frames(d)["rounds"]:
                end = [m["kind"] for m in r["frames"][-1]["marks"]
                       if m["kind"] in ("domino", "blocked", "target")]
                assert end == [r["summary"]["how"]]


def test_a_match_of_hands_is_over_when_its_hands_are_played() -> None:
    doc = sample_docs("openspiel-block.jsonl")[0]
    frames = build_frames(doc)
    assert frames["game"]["game_over"] == {"why": "hands", "hands": 1}
    last = frames["rounds"][-1]["frames"][-1]["marks"][-1]
    assert last == {"kind": "game-over", "label": "game over",
                    "text": "Game over: the match of 1 hand is played."}
    kozel = build_frames(sample_docs("kozel-3p.jsonl")[0])  # reaching the target loses
    over = kozel["game"]["game_over"]
    assert over["why"] == "target" and over["target_mode"] == "reach-loses"
    assert all(s >= 101 for s in (kozel["game"]["scores"][p] for p in over["reached"]))
    assert "Reaching it loses" in kozel["rounds"][-1]["frames"][-1]["marks"][-1]["text"]
    # the rounds before the last do not end the game
    assert all(r["summary"]["game_over"] is None for r in kozel["rounds"][:-1])


def test_missed_bonus_marks_are_the_statistics_missed_chances() -> None:
    from recorder.analysis import game_facts

    checked = 0
    for doc in sample_docs("spilop-bonus-3p.jsonl")[:3] + sample_docs("all-fives.jsonl")[:1]:
        frames = build_frames(doc)
        marked = {(r, f["m"]): m for r, f in all_frames(frames) for m in f["marks"]
                  if m["kind"] == "missed-bonus"}
        facts = game_facts(doc)
        missed = {(m.round, m.move): m for m in facts.moves
                  if m.action == "play" and m.best_score > m.score}
        assert set(marked) == set(missed)
        for key, mark in marked.items():
            assert (mark["points"], mark["scored"]) == (missed[key].best_score,
                                                        missed[key].score)
            assert f"could have scored +{mark['points']}" in mark["text"]
            checked += 1
        bonus = {(r, f["m"]) for r, f in all_frames(frames) if f["bonus"]}
        assert bonus == {(r, f["m"]) for r, f in all_frames(frames)
                         for m in f["marks"] if m["kind"] == "bonus"}
    assert checked > 10


def test_the_rules_a_log_changed_and_its_teams() -> None:
    doc = log({"preset": "classic", "options": {"max_pip": 9, "partnerships": True,
                                                "draw": "until-playable"}}, 4, [])
    game = build_frames(doc)["game"]
    # draw: until-playable is classic's own rule: not a change
    assert game["changed"] == {"max_pip": 9, "partnerships": True}
    assert game["sides"] == [[0, 2], [1, 3]]
    plain = build_frames(sample_docs("classic-2p.jsonl")[0])["game"]
    assert plain["changed"] == {} and plain["sides"] == [[0], [1]]


def test_a_refusal_names_the_players_as_the_page_does() -> None:
    doc = sample_docs("classic-2p.jsonl")[0]
    error = build_frames(break_game(doc))["error"]
    ids = [p["id"] for p in doc["players"]]
    names = [p["name"] for p in doc["players"]]
    opener = doc["rounds"][0]["moves"][0]["player"]
    assert error["message"].startswith(f"round 1, move 2 ({ids[opener]} plays ")  # the contract
    assert error["what"].startswith(f"{names[opener]} plays ")
    assert error["why"].startswith(f"not this player's turn: {names[1 - opener]} is to move; "
                                   f"legal here: {names[1 - opener]} to move: ")
    assert not any(i in error["why"] for i in ids)
    # errors of a whole round or of the document keep their words, without the location
    late = copy.deepcopy(doc)
    late["rounds"].append(copy.deepcopy(late["rounds"][0]))
    error = build_frames(late)["error"]
    assert error["what"] is None and error["why"].startswith("the game ended after round")
    assert error["message"] == f"round {error['round']}: {error['why']}"


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


def test_frames_of_a_stored_game_are_capped_by_bytes(
        tmp_path: Path, game_pool: list[dict[str, Any]]) -> None:
    """The moves limit let a stored game's frames grow with its tiles (each frame holds
    every hand): FRAMES_MAX_BYTES caps what is sent and kept, as WATCH_MAX_BYTES does for
    a log that is not stored."""
    from recorder import storage
    from recorder.ingest import import_upload
    from webui import create_app

    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    import_upload(db, json.dumps(game_pool[8]).encode())
    db.close()
    app = create_app({"TESTING": True, "DATABASE": str(db_path), "FRAMES_CACHE_BYTES": 0})
    client = app.test_client()
    whole = client.get("/api/games/1/frames")
    assert whole.status_code == 200
    size = len(whole.get_data())
    app.config["FRAMES_CACHE_BYTES"] = 64 * 1024 * 1024
    app.config["FRAMES_MAX_BYTES"] = size - 1
    for _ in range(2):  # refused, and not kept to be served from the cache instead
        r = client.get("/api/games/1/frames")
        assert r.status_code == 413
        error = r.get_json()["error"]
        assert error["code"] == "frames/too-large"
        assert error["message"].startswith("the frames of game #1 are ")
        assert "of frames is sent for a stored game" in error["message"]
    app.config["FRAMES_MAX_BYTES"] = size
    assert client.get("/api/games/1/frames").status_code == 200
