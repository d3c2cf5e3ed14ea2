"""null is the same as absent for every optional field of a log.

Frontends in typed languages (Jackson, System.Text.Json, encoding/json) often write
an unset field as ``null``. Wherever a field is optional, the recorder reads such a
log exactly like the one that leaves the field out: the same answer, the same
identity. Required fields stay non-null, and so does the tile of a play.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from recorder import ingest, storage
from recorder.ingest import DUPLICATE, content_hash, identity_key
from recorder.replay import replay
from recorder.schema import _fast_valid, check_document, is_valid
from recorder.schema_errors import VALIDATOR
from recorder.simulate import simulate_game

GAME_OPTIONAL = ("game_id", "frontend", "seed", "started_at", "result")
ROUND_RESULT = ("winners", "points", "bonus", "blocked", "pips_left", "ended_by")
MOVE_OPTIONAL = {
    "play": ("end", "ms"),
    "draw": ("tile", "end", "ms"),
    "pass": ("tile", "end", "ms"),
}


def with_nulls(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` with every optional field it leaves out written as null."""
    out = copy.deepcopy(doc)
    for key in GAME_OPTIONAL:
        out.setdefault(key, None)
    if isinstance(out["ruleset"], dict):
        out["ruleset"].setdefault("options", None)
    if isinstance(out["frontend"], dict):
        out["frontend"].setdefault("version", None)
    if isinstance(out["result"], dict):
        out["result"].setdefault("scores", None)
        out["result"].setdefault("winners", None)
    for player in out["players"]:
        player.setdefault("name", None)
    for rnd in out["rounds"]:
        rnd.setdefault("seed", None)
        rnd.setdefault("deal", None)
        rnd.setdefault("result", None)
        if isinstance(rnd["result"], dict):
            for key in ROUND_RESULT:
                rnd["result"].setdefault(key, None)
        for move in rnd["moves"]:
            for key in MOVE_OPTIONAL[move["action"]]:
                move.setdefault(key, None)
    return out


def stripped(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` without the optional fields that do not decide the game:
    the game's id, frontend, start and claims, names, thinking times, drawn tiles."""
    out = copy.deepcopy(doc)
    for key in ("game_id", "frontend", "started_at", "result"):
        out.pop(key, None)
    for player in out["players"]:
        player.pop("name", None)
    for rnd in out["rounds"]:
        rnd.pop("result", None)
        for move in rnd["moves"]:
            move.pop("ms", None)
            if move["action"] == "draw":
                move.pop("tile", None)
    return out


GAMES = [
    pytest.param({"preset": "spilop"}, 2, False, id="spilop-2p"),
    pytest.param({"preset": "spilop", "options": {"sets": 2}}, 3, False, id="spilop-sets2-3p"),
    pytest.param("classic", 3, True, id="classic-3p-explicit-deal"),
    pytest.param({"preset": "classic", "options": {"draw": "one"}}, 4, False,
                 id="classic-draw-one-4p"),
    pytest.param("kozel", 3, False, id="kozel-3p"),
    pytest.param("italian", 2, True, id="italian-2p-explicit-deal"),
    pytest.param("norwegian", 2, False, id="norwegian-2p"),
]


def _game(ruleset: Any, players: int, explicit_deal: bool) -> dict[str, Any]:
    name = ruleset if isinstance(ruleset, str) else ruleset["preset"]
    return simulate_game(ruleset, players, f"nulls-{name}-{players}", game_id=f"g-{name}",
                         explicit_deal=explicit_deal, started_at="2026-11-29T18:00:00Z")


def _outcome(answer: dict[str, Any]) -> tuple[Any, ...]:
    return answer["status"], answer["rounds"], answer["scores"], answer["winners"]


@pytest.mark.parametrize(("ruleset", "players", "explicit_deal"), GAMES)
def test_a_game_with_every_left_out_field_null_replays_the_same(
    ruleset: Any, players: int, explicit_deal: bool
) -> None:
    doc = _game(ruleset, players, explicit_deal)
    original = replay(doc)
    assert original["status"] == "finished" and len(original["rounds"]) >= 1
    assert "mismatches" not in original

    nulls = with_nulls(doc)
    check_document(nulls)
    assert replay(nulls) == original

    # Null in place of every field that does not decide the game: the same figures,
    # and no claim is compared (a null claim claims nothing).
    bare = stripped(doc)
    nulled = with_nulls(bare)
    assert nulled["game_id"] is None and nulled["rounds"][0]["result"] is None
    assert _outcome(replay(nulled)) == _outcome(original) == _outcome(replay(bare))
    assert "mismatches" not in replay(nulled)
    assert replay(nulled)["game_id"] is None


@pytest.mark.parametrize(("ruleset", "players", "explicit_deal"), GAMES)
def test_null_variants_hash_like_the_original(
    ruleset: Any, players: int, explicit_deal: bool
) -> None:
    doc = _game(ruleset, players, explicit_deal)
    assert content_hash(with_nulls(doc)) == content_hash(doc)
    assert content_hash(with_nulls(stripped(doc))) == content_hash(stripped(doc))
    assert content_hash(stripped(doc)) != content_hash(doc)
    assert identity_key(with_nulls(doc)) == identity_key(doc) == ("recorder-simulate",
                                                                  doc["game_id"])
    assert identity_key(with_nulls(stripped(doc))) is None


def test_a_round_seed_with_a_null_deal_and_a_deal_with_a_null_seed() -> None:
    doc = _game("classic", 2, False)
    seeded = copy.deepcopy(doc)
    for r, rnd in enumerate(seeded["rounds"], 1):
        rnd["seed"] = f"{doc['seed']}/{r}"  # the deal the game seed gives, written out
        rnd["deal"] = None
    seeded["seed"] = None
    assert replay(seeded) == replay(doc)

    dealt = _game("classic", 2, True)
    for rnd in dealt["rounds"]:
        rnd["seed"] = None
    dealt["seed"] = None
    assert _outcome(replay(dealt)) == _outcome(replay(_game("classic", 2, True)))


def test_a_round_with_neither_seed_nor_deal_needs_the_game_seed() -> None:
    doc = with_nulls(_game("kozel", 2, False))
    doc["seed"] = None
    answer = replay(doc)
    assert answer["status"] == "invalid"
    assert answer["error"]["round"] == 1 and answer["error"]["move"] == 0
    assert "no seed or deal" in answer["error"]["message"]


def test_a_round_with_both_seed_and_deal_is_still_refused() -> None:
    doc = _game("classic", 2, True)
    doc["rounds"][1]["seed"] = "x"
    answer = replay(doc)
    assert answer["status"] == "invalid"
    assert answer["error"]["pointer"] == "/rounds/1"
    assert "not both" in answer["error"]["message"]


def _first(doc: dict[str, Any], action: str, after: int = 0) -> tuple[int, int]:
    """(round index, move index) of the first move of ``action`` from round ``after`` on."""
    for r, rnd in enumerate(doc["rounds"][after:], after):
        for m, move in enumerate(rnd["moves"]):
            if move["action"] == action and m > 0:
                return r, m
    raise AssertionError(f"no {action} in the game")


@pytest.mark.parametrize("variant", [lambda d: d, with_nulls], ids=["plain", "nulls"])
def test_a_play_with_a_null_tile_is_refused_at_that_move(variant: Any) -> None:
    doc = variant(_game({"preset": "spilop"}, 2, False))
    r, m = _first(doc, "play", after=1)
    doc["rounds"][r]["moves"][m]["tile"] = None
    answer = replay(doc)
    assert answer["status"] == "invalid"
    error = answer["error"]
    assert (error["round"], error["move"]) == (r + 1, m + 1)
    assert error["pointer"] == f"/rounds/{r}/moves/{m}/tile"
    assert error["code"] == "log/schema"
    assert error["message"] == (
        f"at /rounds/{r}/moves/{m}/tile: null is not a tile, and a play needs one; "
        'write it as "a-b", like "6-3"'
    )
    assert not is_valid(doc)
    assert _fast_valid(doc) is VALIDATOR.is_valid(doc) is False


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("tile", "6-6", 'a pass has no tile; remove "tile"'),
        ("end", "left", 'a pass has no end; remove "end"'),
    ],
)
def test_a_pass_may_carry_null_but_not_a_tile_or_an_end(
    field: str, value: Any, message: str
) -> None:
    doc = with_nulls(_game("kozel", 3, False))
    r, m = _first(doc, "pass")
    assert doc["rounds"][r]["moves"][m]["tile"] is None
    check_document(doc)
    doc["rounds"][r]["moves"][m][field] = value
    answer = replay(doc)
    assert answer["status"] == "invalid"
    assert answer["error"]["message"] == f"at /rounds/{r}/moves/{m}/{field}: {message}"
    assert (answer["error"]["round"], answer["error"]["move"]) == (r + 1, m + 1)


def test_a_draw_may_have_a_null_end_but_no_end() -> None:
    doc = with_nulls(_game("classic", 2, False))
    r, m = _first(doc, "draw")
    check_document(doc)
    doc["rounds"][r]["moves"][m]["end"] = "right"
    answer = replay(doc)
    assert answer["error"]["message"] == f'at /rounds/{r}/moves/{m}/end: a draw has no end; ' \
        'remove "end"'


def test_a_null_drawn_tile_is_not_checked_but_a_wrong_one_is() -> None:
    doc = with_nulls(_game("classic", 2, False))
    r, m = _first(doc, "draw")
    doc["rounds"][r]["moves"][m]["tile"] = None
    assert replay(doc)["status"] == "finished"
    doc["rounds"][r]["moves"][m]["tile"] = "9-9"
    assert replay(doc)["status"] == "invalid"


@pytest.mark.parametrize(("pointer", "what"), [
    ("/format", "a format name"), ("/ruleset", "a ruleset"), ("/players", "a list of players"),
    ("/players/0", "a player"), ("/players/0/id", "a player id"),
    ("/rounds", "a list of rounds"), ("/rounds/0", "a round"),
    ("/rounds/0/moves", "a list of moves"), ("/rounds/0/moves/0", "a move"),
    ("/rounds/0/moves/0/player", "a seat number"), ("/rounds/0/moves/0/action", "an action"),
    ("/rounds/0/moves/0/tile", "a tile, and a play needs one"),
    ("/frontend/name", "a frontend name"), ("/ruleset/preset", "a preset"),
    ("/rounds/0/deal/hands", "a list of hands"), ("/rounds/0/deal/boneyard", "a boneyard"),
    ("/rounds/0/deal/hands/0", "a hand"), ("/rounds/0/deal/boneyard/0", "a tile"),
])
def test_required_fields_may_not_be_null(pointer: str, what: str) -> None:
    doc = _game({"preset": "classic"}, 2, True)
    *parents, last = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]
    target: Any = doc
    for part in parents:
        target = target[part]
    target[last] = None
    assert not is_valid(doc)
    assert _fast_valid(doc) is VALIDATOR.is_valid(doc) is False
    answer = replay(doc)
    assert answer["status"] == "invalid"
    error = answer["error"]
    # where: the null itself, in the round and move that hold it; why: null is not what
    # belongs there, named, with how to write it
    in_round = pointer.startswith("/rounds/0")
    in_move = pointer.startswith("/rounds/0/moves/0")
    assert (error["round"], error["move"]) == (int(in_round), int(in_move))
    assert (error["code"], error["pointer"]) == ("log/schema", pointer)
    assert error["message"].startswith(f"at {pointer}: null is not {what}"), error
    assert "write" in error["message"] or "expected one of" in error["message"]


def test_the_null_variant_imports_as_a_duplicate(tmp_path: Path) -> None:
    db = storage.connect(tmp_path / "r.db")
    doc = _game({"preset": "spilop"}, 3, False)
    bare = stripped(_game("kozel", 2, False))
    _, outcomes = ingest.import_upload(db, storage.to_json(doc).encode())
    assert [o.status for o in outcomes] == ["accepted"]
    _, outcomes = ingest.import_upload(db, storage.to_json(with_nulls(bare)).encode())
    assert [o.status for o in outcomes] == ["accepted"]
    null_id = outcomes[0].id

    row = storage.get_game(db, null_id)
    assert row is not None
    assert (row["game_id"], row["frontend"], row["frontend_version"], row["started_at"]) == (
        None, None, None, None)
    assert row["seed"] == bare["seed"]
    names = [p["name"] for p in db["players"].rows_where("game = ?", [null_id])]
    assert names == [None, None]
    assert outcomes[0].game_id is None

    again = [with_nulls(doc), bare, doc]
    _, outcomes = ingest.import_upload(
        db, "".join(storage.to_json(d) + "\n" for d in again).encode())
    assert [o.status for o in outcomes] == [DUPLICATE] * 3
    assert [o.id for o in outcomes] == [1, null_id, 1]
    assert storage.count_rows(db)["games"] == 2
    db.close()


def test_the_contract_example_with_nulls_everywhere_optional() -> None:
    doc = {
        "format": "domino-log/1", "game_id": None, "frontend": None,
        "ruleset": {"preset": "spilop", "options": None},
        "players": [{"id": "ingaan", "name": None}, {"id": "kfnielsen"}],
        "seed": "0f3c9a1e-game-seed", "started_at": None,
        "rounds": [{"seed": None, "deal": None, "result": None, "moves": [
            {"player": 0, "action": "play", "tile": "6-6", "end": None, "ms": None},
            {"player": 1, "action": "draw", "tile": None, "end": None, "ms": None},
            {"player": 1, "action": "pass", "tile": None, "end": None, "ms": None},
        ]}],
        "result": None,
    }
    assert VALIDATOR.is_valid(doc) and _fast_valid(doc)
    check_document(doc)
    doc["frontend"] = {"name": "spilop", "version": None}
    doc["result"] = {"scores": None, "winners": None}
    doc["rounds"][0]["result"] = dict.fromkeys(ROUND_RESULT)
    assert VALIDATOR.is_valid(doc) and _fast_valid(doc)


def test_a_null_claim_is_not_compared() -> None:
    doc = _game("italian", 2, False)
    original = replay(doc)
    claims = copy.deepcopy(doc)
    for rnd in claims["rounds"]:
        rnd["result"] = dict.fromkeys(ROUND_RESULT)
    claims["result"] = {"scores": None, "winners": None}
    assert replay(claims) == original
    claims["rounds"][0]["result"]["points"] = [999, 999]
    claims["result"]["winners"] = [0, 1]
    assert replay(claims)["mismatches"] == [
        {"round": 1, "field": "points", "claimed": [999, 999],
         "computed": original["rounds"][0]["points"]},
        {"round": 0, "field": "winners", "claimed": [0, 1], "computed": original["winners"]},
    ]


def test_only_the_formats_optional_fields_are_dropped_when_null() -> None:
    doc = _game("classic", 2, False)
    assert content_hash({**doc, "x-note": None}) != content_hash(doc)
    moves = doc["rounds"][0]["moves"]
    moves[0] = {**moves[0], "x-note": None}
    assert '"x-note":null' in ingest.canonical_json(doc)
    # a string that merely looks like a null value changes nothing
    doc["players"][0]["name"] = 'a":null'
    assert ingest.canonical_json(doc) == ingest.canonical_json(with_nulls(doc))
