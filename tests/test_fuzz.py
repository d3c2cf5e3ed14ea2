"""Fuzzing: any JSON value anywhere in a valid log, and any damage to a file's bytes,
gets a clean answer on every path.

"Clean" means: the answer has the contract's shape, an invalid game's error has a code
that is not ``internal/...`` (that would be a bug of ours), a sentence, a round and move,
and a pointer that names a place in the document; the command line exits 0, 1 or 2,
never 3 and never with a traceback; the importer stores a game whole or not at all.

The budget is fixed (``max_examples``, a derandomized seed, small example sizes) so that
CI spends seconds here and a failure shrinks quickly. The long run is one environment
variable away (docs/testing.md):

    RECORDER_FUZZ_EXAMPLES=2500 .venv/bin/python -m pytest -q tests/test_fuzz.py
"""

from __future__ import annotations

import copy
import functools
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import make_game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from recorder import storage
from recorder.analysis import analyse
from recorder.cli import main
from recorder.errors import InputError
from recorder.ingest import import_upload
from recorder.parse import Limits, iter_documents
from recorder.replay import replay

SCALE = int(os.environ.get("RECORDER_FUZZ_EXAMPLES", "0"))
"""0 for the fixed CI budget; else the examples each test tries (the long run)."""

STATUSES = ("finished", "unfinished", "invalid")


def budget(ci: int) -> Any:
    """Hypothesis settings: ``ci`` examples in CI, derandomized; SCALE examples on demand."""
    return settings(
        max_examples=SCALE or ci,
        derandomize=not SCALE,
        deadline=None if SCALE else 15_000,  # generous: CI machines are shared
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        database=None,
        print_blob=True,
    )


# ---------------------------------------------------------------------- valid logs


@functools.cache
def _bases() -> tuple[str, ...]:
    """Small valid logs of every preset and shape (explicit deals, claimed results)."""
    from recorder.simulate import simulate_game

    docs = [
        simulate_game("spilop", 2, "fz-1", max_rounds=2),
        simulate_game({"preset": "spilop", "options": {"bonus": True}}, 3, "fz-2",
                      explicit_deal=True, max_rounds=1),
        simulate_game("classic", 2, "fz-3", max_rounds=2),
        simulate_game("kozel", 4, "fz-4", max_rounds=1),
        simulate_game("italian", 2, "fz-5", explicit_deal=True, max_rounds=1),
        simulate_game("norwegian", 2, "fz-6", max_rounds=1),
        make_game(5),
    ]
    return tuple(json.dumps(d) for d in docs)


def base(i: int) -> dict[str, Any]:
    return json.loads(_bases()[i % len(_bases())])


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path in a JSON value: each key of each object, each index of each list."""
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from paths(child, (*prefix, i))


ODD_STRINGS = st.sampled_from([
    "", " ", "6-6", "6-3", "3-6", "0-0", "9-9", "13-1", "-1", "6/6", "left", "up", "play",
    "draw", "pass", "spilop", "domino-log/1", "domino-log/2", "null", "true", "1e999",
    "\x00", "\u202e", "\U0001f600", "é" * 3, "a" * 300, "x" * 2000,
])
NUMBERS = st.one_of(
    st.integers(-3, 10),
    st.integers(),
    st.sampled_from([2**31, 2**53 + 1, 2**63, -(2**63) - 1, 10**40, -(10**40)]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([0.0, -0.0, 0.5, 1.0, 6.0, 1e308, -1e308, 5e-324]),
)
FIELDS = st.sampled_from([
    "format", "ruleset", "preset", "options", "players", "id", "name", "rounds", "seed",
    "deal", "hands", "boneyard", "moves", "player", "action", "tile", "end", "ms", "result",
    "scores", "winners", "points", "bonus", "blocked", "pips_left", "ended_by", "game_id",
    "frontend", "version", "started_at",
])
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, ODD_STRINGS, st.text(max_size=12))
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(FIELDS, ODD_STRINGS, st.text(max_size=6)), children,
                        max_size=4),
    ),
    max_leaves=8,
)


@st.composite
def mutated_logs(draw: st.DrawFn, most: int = 3) -> tuple[dict[str, Any], list[str]]:
    """A valid log with 1 to ``most`` places changed: replaced by any JSON value, removed,
    or given a new field. Returns the log and what was done (for the failure report)."""
    doc = base(draw(st.integers(0, 50)))
    done: list[str] = []
    for _ in range(draw(st.integers(1, most))):
        all_paths = list(paths(doc))
        path = all_paths[draw(st.integers(0, len(all_paths) - 1))]
        kind = draw(st.sampled_from(["replace", "replace", "remove", "add", "object"]))
        target = _at(doc, path)
        if kind == "object" and isinstance(target, dict) and target:
            # several fields of one object at once: a move whose player is missing and
            # whose action is an array, say
            keys = sorted(target, key=str)
            for key in draw(st.lists(st.sampled_from(keys), min_size=1, max_size=3,
                                     unique=True)):
                if draw(st.booleans()):
                    del target[key]
                else:
                    target[key] = draw(JSON_VALUES)
            done.append(f"fields of /{'/'.join(map(str, path))}")
            continue
        if kind == "object":
            kind = "replace"
        if not path:
            doc = draw(JSON_VALUES) if kind == "replace" else doc
            done.append(f"{kind} the document")
            if not isinstance(doc, dict | list):
                break
            continue
        parent: Any = doc
        for part in path[:-1]:
            parent = parent[part]
        last = path[-1]
        if kind == "remove":
            del parent[last]
        elif kind == "add" and isinstance(parent[last], dict):
            parent[last][draw(st.one_of(ODD_STRINGS, st.sampled_from(
                ["tile", "end", "seed", "deal", "player", "action", "result", "ms"])))] = \
                draw(JSON_VALUES)
        elif kind == "add" and isinstance(parent[last], list):
            parent[last].insert(draw(st.integers(0, len(parent[last]))), draw(JSON_VALUES))
        else:
            parent[last] = draw(JSON_VALUES)
        done.append(f"{kind} /{'/'.join(map(str, path))}")
    return doc, done


def _at(doc: Any, path: tuple[Any, ...]) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def resolves(doc: Any, pointer: str) -> bool:
    """Whether a JSON pointer names a place in ``doc`` (or a missing key of an object)."""
    if pointer == "":
        return True
    value = doc
    parts = pointer.split("/")[1:]
    for i, raw in enumerate(parts):
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(value, dict):
            if part not in value:
                return i == len(parts) - 1  # a required field that is missing
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return False
    return True


def assert_clean(doc: Any, answer: dict[str, Any]) -> None:
    """The answer is one the contract allows, and an error says where and why."""
    json.dumps(answer, allow_nan=False)  # serializable, no NaN
    assert answer["status"] in STATUSES
    if answer["status"] != "invalid":
        assert isinstance(answer["scores"], list) and isinstance(answer["winners"], list)
        return
    error = answer["error"]
    assert not error["code"].startswith("internal/"), error
    assert isinstance(error["message"], str) and len(error["message"]) > 10, error
    assert isinstance(error["round"], int) and isinstance(error["move"], int)
    assert error["round"] >= 0 and error["move"] >= 0
    if "pointer" in error:
        assert resolves(doc, error["pointer"]), error
        if error["move"]:
            assert error["pointer"].startswith(
                f"/rounds/{error['round'] - 1}/moves/{error['move'] - 1}"), error
        elif error["round"]:
            assert error["pointer"].startswith(f"/rounds/{error['round'] - 1}"), error


# ---------------------------------------------------------------------- values at every path


@budget(150)
@given(mutated_logs(most=1))
def test_any_value_at_any_one_path_gets_a_clean_answer(case: tuple[Any, list[str]]) -> None:
    doc, _done = case
    answer = replay(doc)
    assert_clean(doc, answer)
    assert analyse(copy.deepcopy(doc))[0] == answer


@budget(100)
@given(mutated_logs(most=4))
def test_any_values_at_several_paths_get_a_clean_answer(case: tuple[Any, list[str]]) -> None:
    doc, _done = case
    answer = replay(doc)
    assert_clean(doc, answer)
    assert analyse(copy.deepcopy(doc))[0] == answer


@pytest.fixture(scope="module")
def fuzz_db(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    db = storage.connect(tmp_path_factory.mktemp("fuzz") / "fuzz.db")
    yield db
    assert storage.integrity_check(db) == "ok"
    db.close()


@budget(40)
@given(mutated_logs(most=3))
def test_the_importer_stores_a_mutated_log_whole_or_not_at_all(
        fuzz_db: Any, case: tuple[Any, list[str]]) -> None:
    doc, _done = case
    body = json.dumps(doc, allow_nan=False).encode()
    before = storage.count_rows(fuzz_db)
    if isinstance(doc, list):  # a body that is an array is an array of documents
        try:
            _tally, outcomes = import_upload(fuzz_db, body)
        except InputError as exc:
            assert doc == [] and "empty JSON array" in exc.message
            return
        assert len(outcomes) == len(doc)
        assert not any(o.internal for o in outcomes)
        return
    _tally, outcomes = import_upload(fuzz_db, body)
    assert len(outcomes) == 1
    outcome = outcomes[0]
    after = storage.count_rows(fuzz_db)
    verdict = replay(json.loads(body))
    if outcome.status == "refused":
        assert outcome.error is not None and not outcome.internal, outcome.error
        assert after == before
        assert verdict["status"] == "invalid" or outcome.error["code"] == "game/conflict"
    elif outcome.status == "accepted":
        assert verdict["status"] != "invalid"
        assert after["games"] == before["games"] + 1
        game = fuzz_db["games"].get(outcome.id)
        assert game["rounds_count"] == len(verdict["rounds"])
        assert fuzz_db.execute("SELECT count(*) FROM rounds WHERE game = ?",
                               [outcome.id]).fetchone()[0] == len(verdict["rounds"])
    else:
        assert after == before


# ---------------------------------------------------------------------- bytes of whole files


LINES = 4
SMALL = Limits(max_document_bytes=256 * 1024, max_input_bytes=1024 * 1024)


def jsonl_bytes() -> tuple[bytes, list[str]]:
    docs = [base(i) for i in range(LINES)]
    lines = [json.dumps(d, ensure_ascii=False) for d in docs]
    return ("\n".join(lines) + "\n").encode(), [replay(d)["status"] for d in docs]


@st.composite
def damaged_files(draw: st.DrawFn) -> tuple[bytes, str, set[int]]:
    """The bytes of a JSON Lines file of valid logs, damaged in one way; and the lines
    (0-based) that the damage leaves intact, as whole lines, in their place."""
    data, _ = jsonl_bytes()
    lines = data.split(b"\n")[:-1]
    kind = draw(st.sampled_from([
        "truncate", "insert", "bad-utf8", "bom", "crlf", "huge-line", "deep", "flip",
        "delete-span", "nul",
    ]))
    hit = draw(st.integers(0, LINES - 1))  # the line that takes the damage
    line = lines[hit]
    pos = draw(st.integers(0, len(line)))
    intact = set(range(LINES)) - {hit}
    if kind == "truncate":
        lines = [*lines[:hit], line[:pos]]
        intact = set(range(hit))
        return b"\n".join(lines), kind, intact
    if kind == "insert":
        noise = draw(st.binary(min_size=1, max_size=8).filter(lambda b: b"\n" not in b))
        lines[hit] = line[:pos] + noise + line[pos:]
    elif kind == "bad-utf8":
        lines[hit] = line[:pos] + draw(st.sampled_from(
            [b"\xff", b"\xc3", b"\xe2\x82", b"\xed\xa0\x80", b"\xc0\xaf"])) + line[pos:]
    elif kind == "bom":
        if hit == 0:
            lines[0] = b"\xef\xbb\xbf" + line  # a BOM at the start is allowed
            intact = set(range(LINES))
        else:
            lines[hit] = b"\xef\xbb\xbf" + line
    elif kind == "crlf":
        return data.replace(b"\n", b"\r\n"), kind, set(range(LINES))
    elif kind == "huge-line":
        lines[hit] = b'{"x": "' + b"a" * (SMALL.max_document_bytes + 10) + b'"}'
    elif kind == "deep":
        depth = draw(st.sampled_from([65, 1000, 100_000]))
        lines[hit] = b"[" * depth + b"]" * depth
    elif kind == "flip":
        if pos == len(line):
            pos -= 1
        lines[hit] = line[:pos] + bytes([line[pos] ^ (1 << draw(st.integers(0, 7)))]) \
            + line[pos + 1:]
        if b"\n" in lines[hit]:
            return b"\n".join(lines) + b"\n", kind, set(range(hit))
    elif kind == "delete-span":
        end = draw(st.integers(pos, len(line)))
        lines[hit] = line[:pos] + line[end:]
    elif kind == "nul":
        lines[hit] = line[:pos] + b"\x00" + line[pos:]
    if lines[hit] == line:
        intact.add(hit)
    return b"\n".join(lines) + b"\n", kind, intact


def check_damaged_answers(answers: list[dict[str, Any]], intact: set[int],
                          expected: list[str]) -> None:
    by_line = {}
    for a in answers:
        if a["line"] is None:  # what is left is one document: read whole, it is line 1
            a = {**a, "line": 1}
        assert a["status"] in STATUSES
        if a["status"] == "invalid":
            assert not a["error"]["code"].startswith("internal/"), a["error"]
            assert len(a["error"]["message"]) > 10
        by_line[a["line"]] = a
    for i in intact:
        assert i + 1 in by_line, f"intact line {i + 1} was not answered"
        assert by_line[i + 1]["status"] == expected[i]


@budget(100)
@given(damaged_files())
def test_damaged_bytes_get_a_clean_answer_and_intact_lines_theirs(
        tmp_path_factory: pytest.TempPathFactory, case: tuple[bytes, str, set[int]]) -> None:
    data, _kind, intact = case
    _, expected = jsonl_bytes()
    # in memory, as an upload is read
    try:
        parsed = list(iter_documents(data, limits=SMALL))
    except InputError as exc:
        # the damage wrote a mark that speaks for the whole file: gzip's magic first, or a
        # UTF-16 byte-order mark first or after UTF-8's
        head = data[3:5] if data.startswith(b"\xef\xbb\xbf") else data[:2]
        mark = "gzip" if data[:2] == b"\x1f\x8b" else \
            "UTF-16" if head in (b"\xff\xfe", b"\xfe\xff") else None
        if mark is not None:
            assert mark in exc.message
            return
        assert not intact or (intact == {0} and len(data.split(b"\n")) <= 2), exc.message
        parsed = []
    answers = []
    for p in parsed:
        answer = replay(p.doc) if p.error is None else {
            "status": "invalid", "error": p.error.to_dict()}
        answers.append({**answer, "line": p.line})
    if parsed:
        check_damaged_answers(answers, intact, expected)
    # from a file, through the command line
    path = tmp_path_factory.mktemp("bytes") / "damaged.jsonl"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["replay", "--json", str(path)], catch_exceptions=True)
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    assert result.exit_code in (0, 1, 2), result.output
    lines = [json.loads(x) for x in result.stdout.splitlines()]
    assert [a["status"] for a in lines] == [a["status"] for a in answers] or not parsed
