"""The hostile corpus: every file in tests/hostile/ must be refused cleanly.

"Cleanly" means: parse + schema (and, for the rule-breaking cases, the engine) end in
a RecorderError that says where (round, move as docs/format.md counts them) and why, in
a message a frontend developer can act on; never a traceback, never another
exception type. Each file is named for what it is; EXPECTED says what it must give.
A new file without an entry here fails the suite, so the corpus cannot grow
unchecked.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from recorder.errors import InputError, RecorderError, SchemaError
from recorder.parse import DEFAULT_LIMITS, iter_documents, iter_path
from recorder.schema import check_document

HOSTILE = Path(__file__).resolve().parent / "hostile"

# file -> (error class, round, move, a fragment of the message)
EXPECTED: dict[str, tuple[type[RecorderError], int, int, str]] = {
    "action-hop.json": (SchemaError, 1, 2, '"hop" is not an action'),
    "array-of-garbage.json": (SchemaError, 0, 0, "must be a JSON object, got a number"),
    "bad-gzip.json.gz": (InputError, 0, 0, "the gzip data"),
    "bare-string.json": (SchemaError, 0, 0, "must be a JSON object, got a string"),
    "binary-garbage.json": (InputError, 0, 0, "not UTF-8: byte 0x80 at offset 128"),
    "comments.json": (InputError, 0, 0, "line 1: not valid JSON"),
    "concatenated.json": (InputError, 0, 0, "not valid JSON: Extra data"),
    "control-char.json": (InputError, 0, 0, "Invalid control character"),
    "deep-nesting-objects.json": (InputError, 0, 0, "more than 64 levels deep"),
    "deep-nesting.json": (InputError, 0, 0, "more than 64 levels deep"),
    "document-as-array.json": (SchemaError, 0, 0, "must be a JSON object, got an array"),
    "draw-with-end.json": (SchemaError, 1, 3, 'a draw has no end; remove "end"'),
    "empty-array.json": (InputError, 0, 0, "empty JSON array"),
    "empty.json": (InputError, 0, 0, "the input is empty"),
    "gzip-trailing-garbage.json.gz": (InputError, 0, 0, "gzip"),
    "huge-int.json": (InputError, 0, 0, "a number has more than 100 digits"),
    "huge-ms.json": (SchemaError, 1, 1, "is not a thinking time"),
    "huge-number.json": (InputError, 0, 0, "1e999999 is too large"),
    "huge-string.json": (InputError, 0, 0, "a string of 70000 characters is longer"),
    "infinity.json": (InputError, 0, 0, "-Infinity is not a JSON number"),
    "jsonl-not-utf8-line.jsonl": (InputError, 0, 0, "line 2: not UTF-8: byte 0xff"),
    "jsonl-one-bad-line.jsonl": (InputError, 0, 0,
                                 "line 3: not valid JSON: Expecting ',' delimiter at column 48"),
    "lone-surrogate.json": (InputError, 0, 0, "lone UTF-16 surrogate \\ud83d"),
    "long-game-id.json": (SchemaError, 0, 0, "a string of 250 characters is too long"),
    "missing-format.json": (SchemaError, 0, 0, 'the document needs a "format"'),
    "nan.json": (InputError, 0, 0, "NaN is not a JSON number"),
    "negative-player.json": (SchemaError, 1, 1, "-1 is not a seat number"),
    "no-players.json": (SchemaError, 0, 0, "no players; at least 1 is needed"),
    "not-utf8.json": (InputError, 0, 0, "not UTF-8: byte 0xe9 at offset 42"),
    "null.json": (SchemaError, 0, 0, "must be a JSON object, got null"),
    "pass-with-tile.json": (SchemaError, 1, 4, 'a pass has no tile; remove "tile"'),
    "play-without-tile.json": (SchemaError, 1, 2, 'a play needs a "tile"'),
    "player-as-float.json": (SchemaError, 1, 1, "1.0 is not a seat number"),
    "player-as-string.json": (SchemaError, 1, 2, '"1" is not a seat number'),
    "player-without-id.json": (SchemaError, 0, 0, 'a player needs an "id"'),
    "players-as-strings.json": (SchemaError, 0, 0, '"ingaan" is not a player'),
    "round-without-moves.json": (SchemaError, 1, 0, 'a round needs a "moves" array'),
    "rounds-too-many.json": (SchemaError, 0, 0, "1001 rounds; at most 1000"),
    "ruleset-as-number.json": (SchemaError, 0, 0, "5 is not a ruleset"),
    "seed-and-deal.json": (SchemaError, 1, 0, 'from "seed" or from "deal", not both'),
    "single-quotes.json": (InputError, 0, 0, "Expecting property name enclosed in double"),
    "tile-6-slash-6.json": (SchemaError, 1, 3,
                            '"6/6" is not a tile; write tiles as "a-b", like "6-3"'),
    "too-many-players.json": (SchemaError, 0, 0, "9 players; at most 8"),
    "top-level-number.json": (SchemaError, 0, 0, "must be a JSON object, got a number"),
    "trailing-comma.json": (InputError, 0, 0, "Expecting property name"),
    "truncated-gzip.json.gz": (InputError, 0, 0, "the gzip data is cut off"),
    "truncated.json": (InputError, 0, 0, "the text ends too early: is it cut off?"),
    "unknown-format-name.json": (SchemaError, 0, 0,
                                 'unknown format "chess-pgn/1": this recorder reads'),
    "unknown-format-version.json": (SchemaError, 0, 0, 'unknown format "domino-log/2": this '
                                    "recorder reads domino-log/1"),
    "unknown-preset.json": (SchemaError, 0, 0, '"chess" is not a preset'),
    "utf16.json": (InputError, 0, 0, "UTF-16"),
    "whitespace-only.json": (InputError, 0, 0, "only whitespace"),
    "wrong-types.json": (SchemaError, 0, 0, "an object is not a list of players"),
}

# Valid shape, broken rules: the engine refuses them at (round, move), with the code,
# the pointer and a fragment of the reason.
ENGINE_CASES: dict[str, tuple[int, int, str, str, str]] = {
    "tile-7-1-double-six.json": (1, 1, "move/illegal", "/rounds/0/moves/0",
                                 '"7-1" is not a tile of double-six (pips go from 0 to 6)'),
    "duplicate-player-id.json": (0, 0, "ruleset/invalid", "/players",
                                 'player id "ingaan" appears twice; ids are unique in a game'),
    "player-seat-out-of-range.json": (1, 1, "move/illegal", "/rounds/0/moves/0",
                                      "there is no seat 5; seats go from 0 to 1"),
    "unknown-option.json": (0, 0, "ruleset/invalid", "/ruleset/options/turbo",
                            'unknown option "turbo" for spilop; known options: '),
}


def corpus() -> list[str]:
    return sorted(p.name for p in HOSTILE.iterdir() if p.name != "README.md")


def first_error(items: Any) -> RecorderError | None:
    """Run parse + schema over an iterator of Parsed; the first error, raised or not."""
    try:
        for parsed in items:
            if parsed.error is not None:
                return parsed.error
            check_document(parsed.doc)
    except RecorderError as exc:
        return exc
    return None


def assert_clean(error: RecorderError | None, expected: tuple[Any, int, int, str]) -> None:
    kind, round_, move, fragment = expected
    assert isinstance(error, kind), error
    assert error.message.strip()
    assert fragment in error.message
    assert (error.round, error.move) == (round_, move)
    assert isinstance(error.to_dict()["message"], str)
    json.dumps(error.to_dict())  # the error object serialises as the answer's "error"
    error.message.encode("utf-8")  # and can be written out


def test_every_file_of_the_corpus_has_an_expectation() -> None:
    assert set(corpus()) == set(EXPECTED) | set(ENGINE_CASES)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_file_is_refused_cleanly_from_a_path(name: str) -> None:
    assert_clean(first_error(iter_path(str(HOSTILE / name))), EXPECTED[name])


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_hostile_file_is_refused_cleanly_as_an_upload(name: str) -> None:
    assert_clean(first_error(iter_documents((HOSTILE / name).read_bytes())), EXPECTED[name])


@pytest.fixture(scope="module")
def gzip_bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """gzip-bomb.json.gz: about 70 KiB that expands past the 64 MiB input limit.

    Made here rather than committed: it is 70 KiB of nothing.
    """
    path = tmp_path_factory.mktemp("hostile") / "gzip-bomb.json.gz"
    body = b'{"format": "domino-log/1", "pad": "' + b" " * (DEFAULT_LIMITS.max_input_bytes + 1)
    path.write_bytes(gzip.compress(body, compresslevel=9))
    return path


def test_gzip_bomb_from_a_path(gzip_bomb: Path) -> None:
    assert gzip_bomb.stat().st_size < 100 * 1024
    assert_clean(first_error(iter_path(str(gzip_bomb))), (InputError, 0, 0, "64 MiB"))


def test_gzip_bomb_as_an_upload(gzip_bomb: Path) -> None:
    assert_clean(first_error(iter_documents(gzip_bomb.read_bytes())),
                 (InputError, 0, 0, "the gzip data expands to more than 64 MiB"))


@pytest.mark.parametrize("name", sorted(ENGINE_CASES))
def test_engine_case_passes_parse_and_schema(name: str) -> None:
    assert first_error(iter_path(str(HOSTILE / name))) is None


@pytest.mark.parametrize("name", sorted(ENGINE_CASES))
def test_engine_case_is_refused_by_the_engine(name: str) -> None:
    from recorder.replay import replay

    doc = json.loads((HOSTILE / name).read_bytes())
    answer = replay(doc)
    assert answer["status"] == "invalid", answer
    error = answer["error"]
    round_, move, code, pointer, fragment = ENGINE_CASES[name]
    assert (error["round"], error["move"]) == (round_, move), error
    assert (error["code"], error["pointer"]) == (code, pointer), error
    assert fragment in error["message"], error


@pytest.mark.parametrize("command", [["replay"], ["replay", "--json"], ["validate"]])
def test_every_hostile_file_is_answered_by_the_command_line(command: list[str]) -> None:
    # Each file is refused (exit 1) or unreadable (exit 2), in every output mode: never
    # the recorder's own failure (exit 3), which a transcript once was for a shape error
    # beyond the first round.
    from click.testing import CliRunner

    from recorder.cli import main

    runner = CliRunner()
    for name in corpus():
        result = runner.invoke(main, [*command, "--workers", "0", str(HOSTILE / name)])
        assert result.exit_code in (1, 2), (name, result.exit_code, result.output)
        assert "internal" not in result.output, (name, result.output)
