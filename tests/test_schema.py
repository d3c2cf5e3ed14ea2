"""The schema file, the shape check and its messages.

The schema is read by frontend developers and run by their own validators, and the
recorder checks it through a hand-written fast lane; these tests hold the three to
one meaning (the hypothesis test at the end proves the fast lane equivalent).
"""

from __future__ import annotations

import copy
import random
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from recorder import schema, schema_errors
from recorder.errors import RecorderError, SchemaError
from recorder.replay import invalid_answer, replay
from recorder.schema import SCHEMA, SCHEMA_PATH, check_document, is_valid
from recorder.schema_errors import VALIDATOR

ROOT = Path(__file__).resolve().parent.parent

# The example of docs/format.md, "A log document", verbatim.
CONTRACT_EXAMPLE: dict[str, Any] = {
    "format": "domino-log/1",
    "game_id": "spilop-2026-11-29-0001",
    "frontend": {"name": "spilop", "version": "4.2"},
    "ruleset": {"preset": "spilop", "options": {"bonus": True, "target": 150}},
    "players": [{"id": "ingaan", "name": "Inga"}, {"id": "kfnielsen"}],
    "seed": "0f3c9a1e-game-seed",
    "started_at": "2026-11-29T18:00:00Z",
    "rounds": [
        {
            "moves": [
                {"player": 0, "action": "play", "tile": "6-6"},
                {"player": 1, "action": "play", "tile": "6-3", "end": "right"},
                {"player": 0, "action": "draw"},
                {"player": 0, "action": "draw", "tile": "2-5"},
                {"player": 0, "action": "play", "tile": "3-5", "end": "right", "ms": 5400},
                {"player": 1, "action": "pass"},
            ],
            "result": {"winners": [0], "points": [23, 0], "bonus": [0, 0], "blocked": False},
        }
    ],
    "result": {"scores": [23, 0], "winners": [0]},
}


def make_log(rounds: int = 10, moves: int = 25) -> dict[str, Any]:
    """A log of the right shape (not a legal game): ``rounds`` x ``moves``, with every
    optional field somewhere, as a frontend would write it. The benchmark document."""
    kinds = [
        {"action": "play", "tile": "6-3", "end": "right", "ms": 5400},
        {"action": "draw", "ms": 800},
        {"action": "draw", "tile": "2-5", "ms": 650},
        {"action": "play", "tile": "5-5", "end": "left", "ms": 12000},
        {"action": "pass", "ms": 300},
    ]
    out_rounds = []
    for r in range(rounds):
        round_moves = [{"player": m % 2, **kinds[m % len(kinds)]} for m in range(moves)]
        round_moves[0] = {"player": 0, "action": "play", "tile": "6-6", "ms": 1500}
        out_round: dict[str, Any] = {
            "moves": round_moves,
            "result": {"winners": [r % 2], "points": [23, 0], "bonus": [0, 5],
                       "blocked": False, "pips_left": [0, 23], "ended_by": r % 2},
        }
        if r % 3 == 1:
            out_round["seed"] = f"round-seed-{r}"
        out_rounds.append(out_round)
    return {
        "format": "domino-log/1",
        "game_id": "spilop-2026-11-29-0001",
        "frontend": {"name": "spilop", "version": "4.2"},
        "ruleset": {"preset": "spilop", "options": {"bonus": True, "target": 150}},
        "players": [{"id": "ingaan", "name": "Inga"}, {"id": "kfnielsen"}],
        "seed": "0f3c9a1e-game-seed",
        "started_at": "2026-11-29T18:00:00Z",
        "rounds": out_rounds,
        "result": {"scores": [230, 50], "winners": [0]},
    }


def error_of(doc: Any) -> SchemaError:
    with pytest.raises(SchemaError) as info:
        check_document(doc)
    assert not is_valid(doc)
    return info.value


def changed(doc: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A deep copy of ``doc`` with the value at ``path`` (a JSON pointer) replaced,
    or removed when ``value`` is ``DELETE``."""
    out = copy.deepcopy(doc)
    *parents, last = [int(p) if p.isdigit() else p for p in path.strip("/").split("/")]
    target: Any = out
    for part in parents:
        target = target[part]
    if value is DELETE:
        del target[last]
    else:
        target[last] = value
    return out


DELETE = object()


# ---------------------------------------------------------------------------------------
# The schema file itself.


def test_schema_file_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert SCHEMA["$id"]
    assert SCHEMA_PATH.parent.name == "schemas"


def _schemas(node: Any, where: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    if isinstance(node, dict):
        yield where, node
        for key, child in node.items():
            if key in ("properties", "$defs"):
                for name, sub in child.items():
                    yield from _schemas(sub, f"{where}/{key}/{name}")
            elif key in ("items", "not", "if", "then", "else"):
                yield from _schemas(child, f"{where}/{key}")
            elif key in ("anyOf", "allOf", "oneOf"):
                for i, sub in enumerate(child):
                    yield from _schemas(sub, f"{where}/{key}/{i}")


def test_every_property_has_a_title_and_a_description() -> None:
    missing = [
        f"{where}/properties/{name}"
        for where, node in _schemas(SCHEMA)
        for name, sub in node.get("properties", {}).items()
        if isinstance(sub, dict) and not ({"title", "description"} <= sub.keys())
        # the conditions of if/then and not name no new property
        and not any(part in where for part in ("/if", "/then", "/not"))
    ]
    assert missing == []


CLOSED = {"Claimed game result", "Claimed round result"}
"""The objects whose fields are all listed: a claim under another name would go unread."""


def test_every_object_says_whether_it_takes_other_fields() -> None:
    closed = set()
    for where, node in _schemas(SCHEMA):
        types = node.get("type")
        if types == "object" or (isinstance(types, list) and "object" in types):
            description = node.get("description", "")
            if node.get("title") in CLOSED:
                closed.add(node["title"])
                assert node.get("additionalProperties") is False, where
                assert "closest known name" in description, where
                continue
            assert node.get("additionalProperties") is True, where
            # Say so: either "allowed and ignored", or (options) who checks them instead.
            assert "ignore" in description or "replay engine" in description, where
    assert closed == CLOSED


# ---------------------------------------------------------------------------------------
# Valid documents.


def test_the_contract_example_is_valid() -> None:
    check_document(CONTRACT_EXAMPLE)
    assert is_valid(CONTRACT_EXAMPLE)
    assert VALIDATOR.is_valid(CONTRACT_EXAMPLE)


def test_the_benchmark_log_is_valid() -> None:
    doc = make_log()
    check_document(doc)
    assert is_valid(doc)
    assert VALIDATOR.is_valid(doc)


def test_minimal_log_is_valid() -> None:
    check_document({"format": "domino-log/1", "ruleset": "kozel",
                    "players": [{"id": "a"}], "rounds": []})


@pytest.mark.parametrize("version", ["domino-log/1", "domino-log/1.0", "domino-log/1.12"])
def test_minor_versions_are_read(version: str) -> None:
    check_document({**CONTRACT_EXAMPLE, "format": version})


def test_frontends_may_add_fields_everywhere_but_in_claimed_results() -> None:
    doc = copy.deepcopy(CONTRACT_EXAMPLE)
    extra = {"x-frontend": {"deep": [1, {"two": None}]}}
    doc.update(extra)
    doc["frontend"].update(extra)
    doc["ruleset"].update(extra)
    doc["players"][0].update(extra)
    doc["rounds"][0].update(extra)
    doc["rounds"][0]["moves"][0].update(extra)
    doc["rounds"].append({"deal": {"hands": [["6-6"], ["1-1"]], "boneyard": [], **extra},
                          "moves": []})
    check_document(doc)
    for result in (doc["rounds"][0]["result"], doc["result"]):
        result.update(extra)
        assert not is_valid(doc)
        result.pop("x-frontend")
    check_document(doc)


@pytest.mark.parametrize(("where", "key", "message"), [
    (("rounds", 0, "result"), "pipsLeft",
     'at /rounds/0/result/pipsLeft: a round result has no field "pipsLeft" (did you mean '
     '"pips_left"?); a round result has winners, points, bonus, blocked, pips_left and '
     "ended_by"),
    (("rounds", 0, "result"), "endedBy", 'a round result has no field "endedBy" (did you mean '
     '"ended_by"?)'),
    (("rounds", 0, "result"), "Points", 'a round result has no field "Points" (did you mean '
     '"points"?)'),
    (("rounds", 0, "result"), "notes", 'at /rounds/0/result/notes: a round result has no '
     'field "notes"; a round result has winners'),
    (("result",), "Scores", 'at /result/Scores: a game result has no field "Scores" (did you '
     'mean "scores"?); a game result has scores and winners'),
])
def test_a_claim_under_an_unknown_name_is_refused_with_the_closest(
        where: tuple[Any, ...], key: str, message: str) -> None:
    doc = copy.deepcopy(CONTRACT_EXAMPLE)
    target: Any = doc
    for part in where:
        target = target[part]
    target[key] = [1, 2]
    with pytest.raises(SchemaError) as refused:
        check_document(doc)
    assert message in refused.value.message
    assert refused.value.pointer == "/" + "/".join(map(str, where)) + f"/{key}"
    assert (refused.value.round, refused.value.move) == ((1, 0) if where[0] == "rounds"
                                                         else (0, 0))


def test_an_explicit_deal_is_valid() -> None:
    doc = {**CONTRACT_EXAMPLE, "rounds": [
        {"deal": {"hands": [["6-6", "6-3"], ["2-5", "0-1"]], "boneyard": ["1-1"]},
         "moves": []}]}
    check_document(doc)


def test_started_at_format_is_an_annotation_only() -> None:
    check_document({**CONTRACT_EXAMPLE, "started_at": "last Tuesday"})


def test_ms_may_be_fractional() -> None:
    check_document(changed(CONTRACT_EXAMPLE, "/rounds/0/moves/0/ms", 5400.5))


# ---------------------------------------------------------------------------------------
# Messages and locations.


@pytest.mark.parametrize(
    ("path", "value", "message", "where"),
    [
        ("/rounds/0/moves/2/tile", "6/6",
         'at /rounds/0/moves/2/tile: "6/6" is not a tile; write tiles as "a-b", like "6-3"',
         (1, 3)),
        ("/rounds/0/moves/2/action", "hop",
         'at /rounds/0/moves/2/action: "hop" is not an action; expected one of play, draw, '
         "pass", (1, 3)),
        ("/players/0/id", DELETE, 'at /players/0: a player needs an "id"', (0, 0)),
        ("/rounds/0/moves/1/player", "1",
         'at /rounds/0/moves/1/player: "1" is not a seat number; write the player\'s seat '
         "as a whole number from 0 (the first player) to 7, like 1", (1, 2)),
        ("/rounds/0/moves/1/end", "middle",
         'at /rounds/0/moves/1/end: "middle" is not an end; expected one of left, right, '
         "up, down", (1, 2)),
        ("/rounds/0/moves/5/tile", "1-1",
         'at /rounds/0/moves/5/tile: a pass has no tile; remove "tile"', (1, 6)),
        ("/rounds/0/moves/5/end", "left",
         'at /rounds/0/moves/5/end: a pass has no end; remove "end"', (1, 6)),
        ("/rounds/0/moves/2/end", "left",
         'at /rounds/0/moves/2/end: a draw has no end; remove "end"', (1, 3)),
        ("/rounds/0/moves/1/tile", DELETE,
         'at /rounds/0/moves/1: a play needs a "tile", like "6-3"', (1, 2)),
        ("/rounds/0/moves/1/action", DELETE,
         'at /rounds/0/moves/1: a move needs an "action": play, draw or pass', (1, 2)),
        ("/rounds/0/moves/4/ms", -1,
         "at /rounds/0/moves/4/ms: -1 is not a thinking time; write milliseconds as a number "
         "from 0 to 9007199254740991, like 5400", (1, 5)),
        ("/rounds/0/moves", DELETE,
         'at /rounds/0: a round needs a "moves" array (write [] when no move was made yet)',
         (1, 0)),
        ("/rounds/0/result/blocked", "no",
         'at /rounds/0/result/blocked: "no" is not a blocked flag; write true or false', (1, 0)),
        ("/ruleset", "chess",
         'at /ruleset: "chess" is not a preset; expected one of spilop, classic, kozel, '
         "italian, norwegian, openspiel-block, openspiel-team, dominoes-partners, all-fives",
         (0, 0)),
        ("/ruleset/preset", "chess",
         'at /ruleset/preset: "chess" is not a preset; expected one of spilop, classic, '
         "kozel, italian, norwegian, openspiel-block, openspiel-team, dominoes-partners, "
         "all-fives", (0, 0)),
        ("/ruleset/preset", DELETE, 'at /ruleset: a ruleset needs a "preset", like "spilop"',
         (0, 0)),
        ("/ruleset/options", [],
         'at /ruleset/options: an array is not a set of options; write them as an object, '
         'like {"bonus": true, "target": 150}', (0, 0)),
        ("/players", [], "at /players: no players; at least 1 is needed", (0, 0)),
        ("/players/1", "kfnielsen",
         'at /players/1: "kfnielsen" is not a player; write each player as an object, like '
         '{"id": "ingaan", "name": "Inga"}', (0, 0)),
        ("/game_id", "",
         'at /game_id: an empty string is not a game id; write it as a string of 1 to 200 '
         'characters, like "spilop-2026-11-29-0001"', (0, 0)),
        ("/rounds", {},
         'at /rounds: an object is not a list of rounds; write them as an array, like '
         '[{"moves": [...]}]', (0, 0)),
        ("/result/winners/0", 8,
         "at /result/winners/0: 8 is not a seat number; write the player's seat as a whole "
         "number from 0 (the first player) to 7, like 1", (0, 0)),
        ("/frontend/name", DELETE, 'at /frontend: a frontend description needs a "name", '
         'like "spilop"', (0, 0)),
    ],
)
def test_messages(path: str, value: Any, message: str, where: tuple[int, int]) -> None:
    error = error_of(changed(CONTRACT_EXAMPLE, path, value))
    assert error.message == message
    assert (error.round, error.move) == where
    assert error.pointer == message.split(":")[0].removeprefix("at ")
    assert error.code == "log/schema"
    assert error.to_dict()["pointer"] == error.pointer


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ([], "the document must be a JSON object, got an array"),
        ("log", "the document must be a JSON object, got a string"),
        (3, "the document must be a JSON object, got a number"),
        (None, "the document must be a JSON object, got null"),
        (True, "the document must be a JSON object, got true"),
        ({}, 'the document needs a "format", like "domino-log/1"'),
    ],
)
def test_the_document_as_a_whole(doc: Any, message: str) -> None:
    error = error_of(doc)
    assert error.message == message
    assert (error.round, error.move, error.pointer) == (0, 0, "")


@pytest.mark.parametrize("fmt", ["domino-log/2", "domino-log/10.1", "chess-pgn/1", "domino-log/",
                                 "Domino-Log/1"])
def test_unknown_format_is_refused_before_the_shape(fmt: str) -> None:
    # Whatever else is wrong, a log of another format gets the version message.
    error = error_of({"format": fmt, "players": "whatever"})
    assert error.message == f'unknown format "{fmt}": this recorder reads domino-log/1'
    assert error.pointer == "/format"
    assert error.code == "log/unknown-format"
    assert isinstance(error, RecorderError)


def test_malformed_format_name() -> None:
    error = error_of({**CONTRACT_EXAMPLE, "format": "domino-log/1x"})
    assert error.message == 'at /format: "domino-log/1x" is not a format name; write ' \
        '"domino-log/1"'
    error = error_of({**CONTRACT_EXAMPLE, "format": 1})
    assert error.message == 'at /format: 1 is not a format name; write "domino-log/1"'


def test_seed_and_deal_together() -> None:
    doc = changed(CONTRACT_EXAMPLE, "/rounds/0/seed", "r1")
    doc["rounds"][0]["deal"] = {"hands": [["6-6"], ["6-3"]], "boneyard": []}
    error = error_of(doc)
    assert error.message == ('at /rounds/0: a round takes its deal from "seed" or from '
                             '"deal", not both; remove one of them')
    assert (error.round, error.move) == (1, 0)


def test_a_deal_needs_a_boneyard() -> None:
    doc = changed(CONTRACT_EXAMPLE, "/rounds/0/deal", {"hands": [["6-6"], ["6-3"]]})
    error = error_of(doc)
    assert error.pointer == "/rounds/0/deal"
    assert 'needs a "boneyard" array' in error.message
    assert (error.round, error.move) == (1, 0)


@pytest.mark.parametrize("tile", ["6-3\n", "٦-٣", "6-", "100-1", "6 - 3", " 6-3", "6_3", ""])
def test_tile_pattern_is_ascii_and_anchored(tile: str) -> None:
    error = error_of(changed(CONTRACT_EXAMPLE, "/rounds/0/moves/0/tile", tile))
    assert error.pointer == "/rounds/0/moves/0/tile"
    assert "is not a tile" in error.message


@pytest.mark.parametrize("seat", [1.0, True, -1, 8, "0", None, 2**64])
def test_a_seat_is_a_whole_number_without_a_decimal_point(seat: Any) -> None:
    error = error_of(changed(CONTRACT_EXAMPLE, "/rounds/0/moves/0/player", seat))
    assert error.pointer == "/rounds/0/moves/0/player"
    assert "is not a seat number" in error.message


def test_long_values_are_quoted_briefly_and_containers_never_dumped() -> None:
    long = "x" * 10_000
    error = error_of(changed(CONTRACT_EXAMPLE, "/rounds/0/moves/0/tile", long))
    assert '"' + "x" * 60 + '..."' in error.message
    assert len(error.message) < 200
    error = error_of({**CONTRACT_EXAMPLE, "rounds": {str(i): "junk" * 100 for i in range(1000)}})
    assert len(error.message) < 200
    assert "junk" not in error.message
    error = error_of(changed(CONTRACT_EXAMPLE, "/rounds/0/moves/0/ms", -(10**80)))
    assert "a number of about 81 digits" in error.message


def test_lone_surrogate_in_a_message_is_escaped() -> None:
    error = error_of(changed(CONTRACT_EXAMPLE, "/rounds/0/moves/0/tile", "\ud800"))
    error.message.encode("utf-8")  # does not raise


def test_the_earliest_error_in_replay_order_is_reported() -> None:
    doc = copy.deepcopy(make_log(5, 10))
    doc["rounds"][3]["moves"][2]["tile"] = "bad"
    doc["rounds"][1]["moves"][7]["tile"] = "worse"
    doc["rounds"][1]["moves"][8]["action"] = "hop"
    assert error_of(doc).pointer == "/rounds/1/moves/7/tile"
    doc["rounds"][1]["deal"] = {"hands": [], "boneyard": []}
    assert error_of(doc).pointer == "/rounds/1"  # round 1 has a seed too: the round first
    del doc["rounds"][1]["seed"]
    doc["rounds"][1]["deal"] = {"hands": "none", "boneyard": []}
    assert error_of(doc).pointer == "/rounds/1/deal/hands"  # a round's deal before its moves
    doc["result"] = {"scores": "high"}
    assert error_of(doc).pointer == "/rounds/1/deal/hands"  # the game's result comes last
    doc["players"][1]["id"] = 7
    assert error_of(doc).pointer == "/players/1/id"  # the document before its rounds


def test_many_errors_cost_little() -> None:
    doc = make_log(1000, 20)
    for r in doc["rounds"]:
        for m in r["moves"]:
            m["tile"] = "x"
    start = time.perf_counter()
    error = error_of(doc)
    assert time.perf_counter() - start < 5
    assert error.pointer == "/rounds/0/moves/0/tile"


def test_values_that_break_jsonschema_reprs_still_give_a_schema_error() -> None:
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    error = error_of({**CONTRACT_EXAMPLE, "players": [deep]})
    assert error.message
    error = error_of(changed(CONTRACT_EXAMPLE, "/rounds/0/moves/0/ms", 10**5000))
    assert error.message


# ---------------------------------------------------------------------------------------
# Speed: the fast lane answers valid documents without jsonschema.


def test_a_valid_document_does_not_go_through_jsonschema(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("jsonschema was used for a valid document")

    class Refusing:
        iter_errors = is_valid = staticmethod(fail)

    monkeypatch.setattr(schema_errors, "VALIDATOR", Refusing())
    doc = make_log()
    check_document(doc)
    assert is_valid(doc)


def test_jsonschema_is_loaded_only_for_a_refused_document() -> None:
    # A process that replays valid logs never pays for loading jsonschema; the first
    # refused one loads it and gets its located message.
    sample = Path(__file__).resolve().parents[1] / "sample_games" / "classic-2p.jsonl"
    script = (
        "import json, sys\n"
        "from recorder.replay import replay\n"
        f"doc = json.loads(open({str(sample)!r}).readline())\n"
        "assert replay(doc)['status'] in ('finished', 'unfinished'), replay(doc)\n"
        "print('jsonschema' in sys.modules)\n"
        "doc['rounds'][0]['moves'][0]['player'] = 'x'\n"
        "print(replay(doc)['error']['pointer'])\n"
        "print('jsonschema' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "/rounds/0/moves/0/player", "True"]


# ---------------------------------------------------------------------------------------
# The fast lane and jsonschema accept exactly the same documents.

EDGE_VALUES: list[Any] = [
    None, True, False, 0, -1, 1, 7, 8, 1.0, 1.5, -0.5, 2**53 - 1, 2**53, 10**20,
    float("nan"), "", "x", "6-3", "66-99", "6-3\n", "٦-٣", "100-1", "6/6", "play", "draw",
    "pass", "hop", "left", "right", "up", "down", "spilop", "kozel", "chess",
    "domino-log/1", "domino-log/1.2", "domino-log/1x", "a" * 40, "a" * 41, "a" * 64,
    "a" * 65, "a" * 100, "a" * 101, "a" * 200, "a" * 201, "a" * 500, "a" * 501, [], {},
    [0], [0, 1], [8], ["6-3"], [["6-3"]], [1.5], [True], {"id": "x"}, {"preset": "kozel"},
    {"moves": []}, {"player": 0, "action": "pass"}, {"hands": [], "boneyard": []},
    {"name": "x"}, list(range(9)), ["6-3"] * 201,
]
KEYS = ["format", "game_id", "frontend", "ruleset", "players", "seed", "started_at",
        "rounds", "result", "moves", "deal", "hands", "boneyard", "player", "action", "tile",
        "end", "ms", "id", "name", "version", "preset", "options", "winners", "points",
        "bonus", "blocked", "pips_left", "ended_by", "scores", "x-extra"]

tiles = st.sampled_from(["6-6", "6-3", "0-0", "12-11", "9-9"])
null = st.none()


def nullable(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """An optional field's value: null (the same as absent) now and then."""
    return strategy | null


thinking = st.integers(0, 10**6) | st.floats(0, 1e6)
moves = st.one_of(
    st.fixed_dictionaries({"player": st.integers(0, 7), "action": st.just("play"),
                           "tile": tiles},
                          optional={"end": nullable(st.sampled_from(["left", "right", "up",
                                                                     "down"])),
                                    "ms": nullable(thinking)}),
    st.fixed_dictionaries({"player": st.integers(0, 7), "action": st.just("draw")},
                          optional={"tile": nullable(tiles), "end": null,
                                    "ms": nullable(st.integers(0, 10**6))}),
    st.fixed_dictionaries({"player": st.integers(0, 7), "action": st.just("pass")},
                          optional={"tile": null, "end": null,
                                    "ms": nullable(st.integers(0, 10**6))}),
)
seats = st.lists(st.integers(0, 7), max_size=3)
numbers = st.lists(st.integers(-50, 200) | st.floats(-50, 200), max_size=3)
round_results = st.fixed_dictionaries({}, optional={
    "winners": nullable(seats), "points": nullable(numbers), "bonus": nullable(numbers),
    "blocked": nullable(st.booleans()),
    "pips_left": nullable(st.lists(st.integers(0, 100), max_size=3)),
    "ended_by": nullable(st.integers(0, 7))})
deals = st.fixed_dictionaries({
    "hands": st.lists(st.lists(tiles, max_size=3), max_size=3),
    "boneyard": st.lists(tiles, max_size=3)})
rounds = st.one_of(
    st.fixed_dictionaries({"moves": st.lists(moves, max_size=4)},
                          optional={"seed": nullable(st.text(max_size=5)), "deal": null,
                                    "result": nullable(round_results)}),
    st.fixed_dictionaries({"moves": st.lists(moves, max_size=4), "deal": deals},
                          optional={"seed": null}),
)
logs = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["domino-log/1", "domino-log/1.3"]),
        "ruleset": st.sampled_from(["spilop", "classic", "kozel", "italian", "norwegian"])
        | st.fixed_dictionaries({"preset": st.just("classic")},
                                optional={"options": nullable(st.just({"draw": "one"}))}),
        "players": st.lists(st.fixed_dictionaries({"id": st.text(min_size=1, max_size=4)},
                                                  optional={"name": nullable(
                                                      st.text(max_size=4))}),
                            min_size=1, max_size=4),
        "rounds": st.lists(rounds, max_size=3),
    },
    optional={
        "game_id": nullable(st.text(min_size=1, max_size=5)),
        "frontend": nullable(st.fixed_dictionaries(
            {"name": st.just("spilop")}, optional={"version": nullable(st.just("4.2"))})),
        "seed": nullable(st.text(max_size=5)),
        "started_at": nullable(st.just("2026-11-29T18:00:00Z")),
        "result": nullable(st.fixed_dictionaries(
            {}, optional={"scores": nullable(numbers), "winners": nullable(seats)})),
    },
)


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _places(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _places(child, (*path, i))


@st.composite
def near_valid_logs(draw: st.DrawFn) -> Any:
    """A valid log with up to three random edits: replace, delete or add a value."""
    doc = copy.deepcopy(draw(logs))  # st.just() values are shared between examples
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(list(_places(doc))))
        edit = draw(st.sampled_from(["replace", "delete", "add"]))
        if not path:
            if edit == "replace" and draw(st.booleans()):
                doc = copy.deepcopy(draw(st.sampled_from(EDGE_VALUES)))
            continue
        parent: Any = doc
        for part in path[:-1]:
            parent = parent[part]
        value = copy.deepcopy(draw(st.sampled_from(EDGE_VALUES)))
        if edit == "replace":
            parent[path[-1]] = value
        elif edit == "delete":
            del parent[path[-1]]
        else:
            target = parent[path[-1]]
            if isinstance(target, dict):
                target[draw(st.sampled_from(KEYS))] = value
            elif isinstance(target, list):
                target.append(value)
    return doc


@settings(max_examples=500)
@given(near_valid_logs())
def test_the_fast_lane_accepts_exactly_what_jsonschema_accepts(doc: Any) -> None:
    if not isinstance(doc, dict) or schema._precheck(doc) is not None:
        assert not is_valid(doc)
        return
    assert schema._fast_valid(doc) == VALIDATOR.is_valid(doc)
    try:
        check_document(doc)
    except SchemaError as error:
        assert not is_valid(doc)
        assert error.message
        assert error.pointer is not None
    else:
        assert is_valid(doc)


@settings(max_examples=300)
@given(st.lists(moves, max_size=6), st.integers(0, 5), st.sampled_from(EDGE_VALUES),
       st.sampled_from(["player", "action", "tile", "end", "ms", "x"]))
def test_the_hot_loop_and_the_careful_loop_agree(
    good: list[dict[str, Any]], at: int, value: Any, key: str
) -> None:
    bad = copy.deepcopy(good)
    if bad:
        bad[at % len(bad)][key] = value
    for candidate in (good, bad):
        assert schema._moves(candidate) == schema._moves_careful(candidate)
        doc = {**CONTRACT_EXAMPLE, "rounds": [{"moves": candidate}]}
        assert schema._fast_valid(doc) == VALIDATOR.is_valid(doc)


# ---------------------------------------------------------------------------------------
# The replay reads each move's fields once, checking them as it goes; a shape error
# anywhere still comes before any error of the rules, as if checked ahead.

_BROKEN_VALUES: list[Any] = [None, "x", -1, 9, 1.5, True, [], {}, "9-9", 10**20]


def _shape_and_rule_errors(pool: list[dict[str, Any]], count: int) -> Iterator[dict[str, Any]]:
    """Logs with an illegal move (two moves swapped) in one round and a broken move
    field in a later one, or the other way round."""
    rng = random.Random(11)
    long = [g for g in pool if len(g["rounds"]) >= 2]
    for i in range(count):
        doc = copy.deepcopy(rng.choice(long))
        first = rng.randrange(len(doc["rounds"]) - 1)
        second = rng.randrange(first + 1, len(doc["rounds"]))
        swap_at, break_at = (first, second) if i % 2 else (second, first)
        moves = doc["rounds"][swap_at]["moves"]
        if len(moves) > 2:
            a, b = rng.randrange(len(moves)), rng.randrange(len(moves))
            moves[a], moves[b] = moves[b], moves[a]
        moves = doc["rounds"][break_at]["moves"]
        if moves:
            field = rng.choice(["player", "action", "tile", "end", "ms", "closed"])
            rng.choice(moves)[field] = rng.choice(_BROKEN_VALUES)
        yield doc


def test_a_shape_error_comes_first_wherever_it_is(game_pool: list[dict[str, Any]]) -> None:
    shape_errors = 0
    for doc in _shape_and_rule_errors(game_pool, 300):
        answer = replay(doc)
        try:
            check_document(doc)
        except SchemaError as exc:
            shape_errors += 1
            assert answer == invalid_answer(doc, exc), answer  # no round before it
        else:  # the rules' error, or none
            assert answer.get("error", {}).get("code") != "log/schema", answer
    assert shape_errors > 150  # most broken fields break the shape
