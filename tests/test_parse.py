"""Bytes to documents: the upload shapes, the limits, and streaming from a file.

The parser is the recorder's front door, so these tests are mostly about what it
refuses and how: always an InputError with a message that says where, never another
exception, never unbounded memory.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recorder.errors import InputError, RecorderError, TooLarge
from recorder.parse import DEFAULT_LIMITS, Limits, Parsed, iter_documents, iter_path

ROOT = Path(__file__).resolve().parent.parent

DOC: dict[str, Any] = {
    "format": "domino-log/1",
    "ruleset": "spilop",
    "players": [{"id": "ingaan", "name": "Inga"}, {"id": "kfnielsen"}],
    "rounds": [{"moves": [{"player": 0, "action": "play", "tile": "6-6"}]}],
}
ONE = json.dumps(DOC).encode()


def docs(data: bytes, **kwargs: Any) -> list[Any]:
    """The documents of ``data``; fails the test on any per-document error."""
    out = []
    for parsed in iter_documents(data, **kwargs):
        assert parsed.error is None, parsed.error
        assert parsed.text is not None
        assert json.loads(parsed.text) == parsed.doc  # the document's own text comes along
        out.append(parsed.doc)
    return out


def refused(data: bytes, **kwargs: Any) -> InputError:
    """The InputError that reading ``data`` raises."""
    with pytest.raises(InputError) as info:
        list(iter_documents(data, **kwargs))
    assert info.value.message
    assert (info.value.round, info.value.move) == (0, 0)
    return info.value


def only_error(data: bytes, **kwargs: Any) -> RecorderError:
    """The error of a single document that parses to an error, raised or yielded."""
    try:
        items = list(iter_documents(data, **kwargs))
    except InputError as exc:
        return exc
    errors = [p.error for p in items if p.error is not None]
    assert len(errors) == 1, items
    return errors[0]


def write(tmp_path: Path, data: bytes, name: str = "input") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


# ---------------------------------------------------------------------------------------
# Shapes.


def test_one_document() -> None:
    assert list(iter_documents(ONE)) == [Parsed(0, None, DOC, None)]


def test_one_pretty_printed_document_is_not_json_lines() -> None:
    assert docs(json.dumps(DOC, indent=2).encode()) == [DOC]
    assert docs(json.dumps(DOC, indent="\t").encode().replace(b"\n", b"\r\n")) == [DOC]


def test_a_json_array_of_documents() -> None:
    items = list(iter_documents(json.dumps([DOC, DOC, {"other": 1}]).encode()))
    assert [(p.index, p.line) for p in items] == [(0, None), (1, None), (2, None)]
    assert [p.doc for p in items] == [DOC, DOC, {"other": 1}]


def test_a_pretty_printed_array_of_one_document_is_not_json_lines() -> None:
    data = b"[\n" + ONE + b"\n]\n"
    assert docs(data) == [DOC]


def test_json_lines_with_blank_lines_and_crlf() -> None:
    data = b"\n" + ONE + b"\r\n\r\n  \n" + ONE + b"\n" + ONE
    items = list(iter_documents(data))
    assert [(p.index, p.line) for p in items] == [(0, 2), (1, 5), (2, 6)]
    assert all(p.doc == DOC and p.error is None for p in items)


def test_json_lines_one_broken_line_is_reported_and_the_others_read() -> None:
    bad = b'{"format": "domino-log/1" "ruleset": "spilop"}'
    items = list(iter_documents(b"\n".join([ONE, ONE, bad, ONE])))
    assert [p.doc for p in items] == [DOC, DOC, None, DOC]
    error = items[2].error
    assert isinstance(error, InputError)
    assert error.message == "line 3: not valid JSON: Expecting ',' delimiter at column 27"
    assert (items[2].index, items[2].line) == (2, 3)
    assert (error.round, error.move) == (0, 0)


def test_json_lines_with_a_broken_first_line() -> None:
    items = list(iter_documents(b'{"format": "dom\n' + ONE + b"\n" + ONE))
    assert items[0].error is not None
    assert items[0].error.message.startswith("line 1: not valid JSON: Unterminated string")
    assert [p.doc for p in items[1:]] == [DOC, DOC]


def test_json_lines_of_other_values_are_documents_for_the_schema_to_refuse() -> None:
    assert docs(b'[1, 2]\n"x"\nnull\n') == [[1, 2], "x", None]


def test_utf8_bom_is_skipped() -> None:
    assert docs(b"\xef\xbb\xbf" + ONE) == [DOC]
    assert docs(b"\xef\xbb\xbf" + ONE + b"\n" + ONE) == [DOC, DOC]


@pytest.mark.parametrize(
    "shape",
    [ONE, json.dumps(DOC, indent=1).encode(), json.dumps([DOC, DOC]).encode(),
     ONE + b"\n" + ONE + b"\n"],
)
def test_gzip_of_every_shape(shape: bytes) -> None:
    assert docs(gzip.compress(shape)) == docs(shape)


def test_gzip_with_several_members_and_zero_padding() -> None:
    data = gzip.compress(ONE + b"\n") + gzip.compress(ONE + b"\n") + b"\x00" * 10
    assert docs(data) == [DOC, DOC]


# ---------------------------------------------------------------------------------------
# Inputs that cannot be read at all.


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "the input is empty"),
        (b" \n\t\r\n", "the input holds only whitespace"),
        (b"[]", "the input is an empty JSON array: it holds no documents"),
        (b'{"format": "domino-log/1",\n "players": [',
         "not valid JSON: Expecting value at line 2 column 14 (the text ends too early: is "
         "it cut off?)"),
        (ONE + ONE, f"not valid JSON: Extra data at line 1 column {len(ONE) + 1}"),
        (b"[" + ONE + b", " + ONE[:-3] + b"]",
         f"not valid JSON: Expecting ',' delimiter at line 1 column {2 * len(ONE) + 1}"),
        (b"{'format': 'domino-log/1'}",
         "not valid JSON: Expecting property name enclosed in double quotes at line 1 column 2"),
        (b'// a comment\n{\n "a": 1\n}',
         "not valid JSON: Expecting value at line 1 column 1 (JSON has no comments)"),
        (b'{"a": "caf\xe9"}',
         "not UTF-8: byte 0xe9 at offset 10 cannot be decoded; save the file as UTF-8"),
        ('{"a": 1}'.encode("utf-16"), "the input is UTF-16 text; save it as UTF-8"),
        (b'{"ms": NaN}', "not valid JSON: NaN is not a JSON number"),
        (b'{"ms": -Infinity}', "not valid JSON: -Infinity is not a JSON number"),
        (b'{"ms": 1e999999}', "the number 1e999999 is too large for a 64-bit float"),
        (b'{"ms": ' + b"7" * 100_000 + b"}", "a number has more than 100 digits"),
        (b'{"ms": 0.' + b"1" * 200 + b"}", "a number is longer than 100 characters"),
        (b'{"name": "Inga \\ud83d"}',
         "a string holds a lone UTF-16 surrogate \\ud83d (half of a pair), which is not a "
         "character; escape characters outside the Basic Multilingual Plane as a surrogate "
         "pair or write them as UTF-8"),
    ],
)
def test_unreadable_inputs(data: bytes, message: str) -> None:
    assert refused(data).message == message


def test_bad_gzip() -> None:
    assert refused(b"\x1f\x8bnot gzip at all").message.startswith("the gzip data is damaged")
    cut = gzip.compress(ONE * 20)[:-30]
    assert refused(cut).message == "the gzip data is cut off before its end"
    trailing = gzip.compress(ONE) + b"junk"
    assert refused(trailing).message == "the gzip data is followed by bytes that are not gzip"


def test_gzip_bomb_is_refused_without_expanding_it() -> None:
    bomb = gzip.compress(b" " * (DEFAULT_LIMITS.max_input_bytes + 1), compresslevel=9)
    assert len(bomb) < 100 * 1024
    error = refused(bomb)
    assert error.message == "the gzip data expands to more than 64 MiB, the most accepted"


def test_too_large_input() -> None:
    limits = Limits(max_input_bytes=1000)
    assert refused(b" " * 1001, limits=limits).message.startswith("the input is 1001 bytes")
    assert docs(ONE, limits=limits) == [DOC]


def test_too_large_document() -> None:
    limits = Limits(max_document_bytes=len(ONE) - 1)
    assert refused(ONE, limits=limits).message.startswith("the document is")
    items = list(iter_documents(json.dumps([{"a": 1}, DOC]).encode(), limits=limits))
    assert items[0].doc == {"a": 1}
    assert items[1].error is not None
    assert "document 2 of the array is larger than" in items[1].error.message
    items = list(iter_documents(b'{"a": 1}\n' + ONE, limits=limits))
    assert items[0].doc == {"a": 1}
    assert items[1].error is not None
    assert items[1].error.message.startswith("line 2: the line is")


# ---------------------------------------------------------------------------------------
# Limits, exactly at the boundary.


def nested(depth: int, *, key: bool = False) -> bytes:
    """A document (an object) nested ``depth`` deep, through arrays or objects."""
    if key:
        return b'{"a":' * (depth - 1) + b"{}" + b"}" * (depth - 1)
    return b'{"a":' + b"[" * (depth - 1) + b"]" * (depth - 1) + b"}"


@pytest.mark.parametrize("key", [False, True])
def test_depth_limit_is_exact(key: bool) -> None:
    limits = Limits(max_depth=10)
    assert docs(nested(10, key=key), limits=limits)
    assert "more than 10 levels deep" in only_error(nested(11, key=key), limits=limits).message


def test_depth_limit_ignores_brackets_in_strings() -> None:
    limits = Limits(max_depth=3)
    assert docs(b'{"a": "[[[[[[", "b": ["]]]]]]]", {"c": "{{{{"}]}', limits=limits)
    hidden = b'{"x": "]]]]]]]]", "y": [[[[]]]]}'  # closing brackets in a string hide nothing
    assert "levels deep" in only_error(hidden, limits=limits).message
    escaped = b'{"x": "\\"]]]]]]\\\\", "y": [[[[]]]]}'
    assert "levels deep" in only_error(escaped, limits=limits).message


def test_very_deep_nesting_never_reaches_the_json_parser() -> None:
    for data in (nested(200_000), nested(5_000, key=True), b"[" * 300_000, b"[" * 66):
        assert "levels deep" in only_error(data).message
    assert "levels deep" in only_error(b"[" + nested(65) + b"]").message  # an array of docs
    assert docs(b"[" + nested(64) + b"]") == [json.loads(nested(64))]


def test_string_length_limit_is_exact() -> None:
    limits = Limits(max_string_length=100)
    assert docs(b'{"a": "' + b"x" * 100 + b'"}', limits=limits)
    assert docs(b'{"' + b"k" * 100 + b'": 1}', limits=limits)
    for text in (b"x" * 101, b"\\\\" * 101, b'\\"' * 101, b"\\u00e9" * 101, "é".encode() * 101):
        error = only_error(b'{"a": "' + text + b'"}', limits=limits)
        assert error.message.startswith("a string of 101 characters is longer than the 100")
    assert "101 characters" in only_error(b'{"' + b"k" * 101 + b'": 1}', limits=limits).message
    # A long stretch that is not a string is not a long string.
    assert docs(b'{"a": [' + b"1, " * 200 + b'1], "b": "x"}', limits=limits)


def test_number_length_limit() -> None:
    limits = Limits(max_number_length=5)
    assert docs(b'{"a": 12345, "b": 1.234, "c": "123456789"}', limits=limits)
    assert only_error(b'{"a": 123456}', limits=limits).message == \
        "a number has more than 5 digits"
    assert only_error(b'{"a": 1.23456}', limits=limits).message == \
        "a number is longer than 5 characters"


def test_tiny_and_negative_numbers_are_fine() -> None:
    assert docs(b'{"a": 1e-999, "b": -1e300, "c": -0}') == [{"a": 0.0, "b": -1e300, "c": 0}]


def test_surrogate_pairs_and_escaped_backslashes_are_fine() -> None:
    assert docs(b'{"a": "\\ud83d\\ude00", "b": "\\\\ud800"}') == [{"a": "😀", "b": "\\ud800"}]


def test_limits_validate_themselves() -> None:
    with pytest.raises(ValueError, match="max_depth"):
        Limits(max_depth=0)
    with pytest.raises(ValueError, match="max_input_bytes"):
        Limits(max_input_bytes=True)


def test_parsed_is_frozen() -> None:
    parsed = Parsed(0, None, {}, None)
    with pytest.raises(AttributeError):
        parsed.index = 1  # type: ignore[misc]


# ---------------------------------------------------------------------------------------
# Properties.

json_scalars = (
    st.none() | st.booleans() | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
    | st.sampled_from(['"', "\\", "[", "]", "{", "}", '\\"', '"]', "\\\\", "é", "😀", "\n"])
)
json_values = st.recursive(
    json_scalars,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=4) | st.sampled_from(["[", '"}', "\\"]), children,
                      max_size=4),
    max_leaves=25,
)
documents = st.dictionaries(st.text(max_size=6), json_values, max_size=5)


def depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


def dumps(value: Any, style: int) -> bytes:
    indent = [None, 2, None][style]
    return json.dumps(value, indent=indent, ensure_ascii=style == 2).encode()


@settings(max_examples=200)
@given(st.lists(documents, min_size=1, max_size=4), st.integers(0, 2), st.booleans())
def test_every_shape_gives_back_the_documents(items: list[Any], style: int, zipped: bool) -> None:
    shapes = [b"\n".join(json.dumps(d).encode() for d in items), dumps(items, style)]
    if len(items) == 1:
        shapes.append(dumps(items[0], style))
    for data in shapes:
        blob = gzip.compress(data) if zipped else data
        assert docs(blob, limits=Limits(max_depth=100)) == items


@settings(max_examples=300)
@given(documents, st.integers(1, 6), st.integers(0, 2))
def test_the_depth_screen_is_exact(doc: Any, max_depth: int, style: int) -> None:
    try:
        items = list(iter_documents(dumps(doc, style), limits=Limits(max_depth=max_depth)))
    except InputError as exc:
        assert depth(doc) > max_depth
        assert "levels deep" in exc.message
    else:
        assert depth(doc) <= max_depth
        assert [p.doc for p in items] == [doc]


@settings(max_examples=300)
@given(documents, st.integers(1, 8))
def test_the_string_screen_is_exact(doc: Any, max_len: int) -> None:
    def longest(value: Any) -> int:
        if isinstance(value, str):
            return len(value)
        if isinstance(value, dict):
            return max([0, *map(len, value), *map(longest, value.values())])
        if isinstance(value, list):
            return max([0, *map(longest, value)])
        return 0

    try:
        items = list(iter_documents(json.dumps(doc).encode(),
                                    limits=Limits(max_string_length=max_len)))
    except InputError as exc:
        assert longest(doc) > max_len
        assert "characters is longer than" in exc.message
    else:
        assert longest(doc) <= max_len
        assert [p.doc for p in items] == [doc]


mangled = st.one_of(
    st.binary(max_size=300),
    st.builds(lambda d, cut: json.dumps(d).encode()[:cut], documents, st.integers(0, 200)),
    st.builds(lambda d, at, b: (lambda s: s[:at] + bytes([b]) + s[at + 1:])(
        json.dumps(d).encode()), documents, st.integers(0, 100), st.integers(0, 255)),
    st.builds(lambda d, n: gzip.compress(json.dumps(d).encode())[:n], documents,
              st.integers(0, 60)),
    st.builds(lambda n: b"[" * n + b"{" * n, st.integers(0, 5000)),
)


@settings(max_examples=500)
@given(mangled)
def test_hostile_bytes_give_documents_or_input_errors_only(data: bytes) -> None:
    try:
        for parsed in iter_documents(data):
            assert (parsed.doc is None) or parsed.error is None
            if parsed.error is not None:
                assert isinstance(parsed.error, InputError)
                assert parsed.error.message
    except InputError as exc:
        assert exc.message


# ---------------------------------------------------------------------------------------
# Files and streams.


@pytest.mark.parametrize(
    "data",
    [
        ONE,
        json.dumps(DOC, indent=2).encode(),
        json.dumps([DOC, DOC]).encode(),
        ONE + b"\n\n" + ONE + b"\n",
        b"\n".join([ONE, b'{"format": 1,}', ONE]),
        b'{"format": "dom\n' + ONE + b"\n" + ONE,
        gzip.compress(ONE + b"\n" + ONE),
        gzip.compress(json.dumps([DOC]).encode()),
        b"\xef\xbb\xbf" + ONE + b"\n" + ONE,
        b"",
        b'{"a": "\xff"}\n' + ONE,
        ONE + b"\n" + b'{"a": "\xff"}',
    ],
)
def test_a_file_reads_like_the_same_bytes_in_memory(tmp_path: Path, data: bytes) -> None:
    def outcome(items: Iterator[Parsed]) -> list[Any]:
        try:
            return [(p.index, p.line, p.doc, p.error and p.error.message) for p in items]
        except InputError as exc:
            return ["raised", exc.message]

    path = write(tmp_path, data)
    assert outcome(iter_path(path)) == outcome(iter_documents(data))


def test_each_document_keeps_its_own_text(tmp_path: Path) -> None:
    pretty = json.dumps(DOC, indent=3).encode()
    assert next(iter_documents(pretty)).text == pretty
    array = b'[ {"a": "\xc3\xa9"} ,\n  {"b": [1, 2]} ]'
    assert [p.text for p in iter_documents(array)] == [b'{"a": "\xc3\xa9"}', b'{"b": [1, 2]}']
    lines = b'{"a": 1}\r\n\n{"b": 2}\n{"c": \n'
    expected = [b'{"a": 1}', b'{"b": 2}', None]
    assert [p.text for p in iter_documents(lines)] == expected
    assert [p.text for p in iter_path(write(tmp_path, gzip.compress(lines)))] == expected


def test_a_missing_file_raises_oserror() -> None:
    with pytest.raises(OSError):
        list(iter_path("/nonexistent/recorder/log.json"))


def test_json_lines_stream_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # Standard input as a pipe: the first document must come out before the writer has
    # written the rest, which proves that nothing waits for the end of the input.
    read_fd, write_fd = os.pipe()
    stdin = io.TextIOWrapper(os.fdopen(read_fd, "rb"))
    monkeypatch.setattr(sys, "stdin", stdin)
    second_written = threading.Event()
    first_read = threading.Event()

    def writer() -> None:
        with os.fdopen(write_fd, "wb") as pipe:
            pipe.write(ONE + b"\n" + ONE + b"\n")
            pipe.flush()
            first_read.wait(10)
            second_written.set()
            pipe.write(b'{"format": "domino-log/1", "last": true}\n')

    thread = threading.Thread(target=writer)
    thread.start()
    items = iter_path("-")
    assert next(items).doc == DOC
    assert not second_written.is_set()
    first_read.set()
    rest = list(items)
    thread.join()
    stdin.close()
    assert [p.doc for p in rest] == [DOC, {"format": "domino-log/1", "last": True}]
    assert [p.line for p in rest] == [2, 3]


def test_standard_input_in_a_subprocess() -> None:
    code = ("from recorder.parse import iter_path\n"
            "print([p.doc['format'] for p in iter_path('-')])")
    result = subprocess.run(
        [sys.executable, "-c", code], input=gzip.compress(ONE + b"\n" + ONE),
        capture_output=True, check=True, cwd=ROOT,
    )
    assert result.stdout.strip() == b"['domino-log/1', 'domino-log/1']"


def test_a_big_json_lines_file_is_streamed_past_the_input_limit(tmp_path: Path) -> None:
    limits = Limits(max_input_bytes=len(ONE) * 3)
    path = write(tmp_path, gzip.compress(b"\n".join([ONE] * 50)), "big.jsonl.gz")
    assert [p.doc for p in iter_path(path, limits=limits)] == [DOC] * 50
    with pytest.raises(InputError, match="at most 564 bytes is accepted"):
        list(iter_documents(b"\n".join([ONE] * 50), limits=limits))


def test_a_big_json_lines_file_with_a_broken_first_line(tmp_path: Path) -> None:
    limits = Limits(max_input_bytes=len(ONE) * 3)
    path = write(tmp_path, b"\n".join([b'{"broken": ', *[ONE] * 10]))
    items = list(iter_path(path, limits=limits))
    assert items[0].error is not None
    assert [p.doc for p in items[1:]] == [DOC] * 10
    assert [p.index for p in items] == list(range(11))


def test_a_big_pretty_document_is_refused(tmp_path: Path) -> None:
    limits = Limits(max_input_bytes=100)
    path = write(tmp_path, json.dumps(DOC, indent=2).encode())
    with pytest.raises(InputError, match="larger than 100 bytes"):
        list(iter_path(path, limits=limits))


def test_a_long_line_in_a_stream_is_skipped(tmp_path: Path) -> None:
    limits = Limits(max_document_bytes=len(ONE) + 10, max_input_bytes=len(ONE) * 2)
    long_line = b'{"pad": "' + b"x" * (len(ONE) * 5) + b'"}'
    path = write(tmp_path, b"\n".join([ONE, long_line, ONE, ONE]))
    items = list(iter_path(path, limits=limits))
    assert [p.doc for p in items] == [DOC, None, DOC, DOC]
    assert items[1].error is not None
    assert items[1].error.message.startswith("line 2: the line is ")
    assert [p.line for p in items] == [1, 2, 3, 4]


def test_a_one_line_array_longer_than_a_document_is_read_whole(tmp_path: Path) -> None:
    limits = Limits(max_document_bytes=len(ONE) + 10)
    path = write(tmp_path, json.dumps([DOC] * 20).encode())
    assert [p.doc for p in iter_path(path, limits=limits)] == [DOC] * 20


def test_a_damaged_gzip_stream_raises_after_the_documents_before_the_damage(
    tmp_path: Path,
) -> None:
    lines = [{**DOC, "game_id": hashlib.sha256(b"%d" % i).hexdigest()} for i in range(200)]
    data = gzip.compress(b"\n".join(json.dumps(line).encode() for line in lines))
    path = write(tmp_path, data[: len(data) // 2], "cut.jsonl.gz")
    seen = []
    with pytest.raises(InputError, match="cut off"):
        for parsed in iter_path(path):
            seen.append(parsed.doc)
    assert 10 < len(seen) < 200
    assert seen == lines[: len(seen)]


def test_a_gzip_bomb_of_newlines_stops_at_the_stream_limit(tmp_path: Path) -> None:
    limits = Limits(max_stream_bytes=10 * 1024 * 1024)
    path = write(tmp_path, gzip.compress(ONE + b"\n" + ONE + b"\n" + b"\n" * (20 * 1024 * 1024)),
                 "bomb.jsonl.gz")
    with pytest.raises(InputError, match="larger than 10 MiB"):
        list(iter_path(path, limits=limits))


def test_a_line_longer_than_many_blocks_is_skipped_without_holding_it(tmp_path: Path) -> None:
    limits = Limits(max_document_bytes=1000)
    huge = b'{"pad": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    path = write(tmp_path, gzip.compress(b"\n".join([ONE, huge, b"", ONE])), "long.jsonl.gz")
    items = list(iter_path(path, limits=limits))
    assert [(p.index, p.line, p.doc) for p in items] == [(0, 1, DOC), (1, 2, None), (2, 4, DOC)]
    assert items[1].error is not None
    assert items[1].error.message == ("line 2: the line is longer than 1000 bytes, the most "
                                      "accepted for one document")


def test_megabytes_of_blank_lines_are_skipped_quickly(tmp_path: Path) -> None:
    data = ONE + b"\n" * (8 * 1024 * 1024) + b" \r\n\t\n" + ONE
    expected = [(0, 1), (1, 8 * 1024 * 1024 + 3)]
    assert [(p.index, p.line) for p in iter_documents(data)] == expected
    path = write(tmp_path, gzip.compress(data), "blank.jsonl.gz")
    assert [(p.index, p.line) for p in iter_path(path)] == expected


def test_size_refusals_say_so_in_their_code() -> None:
    """The HTTP layer answers 413 for these, 400 for every other unreadable body."""
    small = Limits(max_input_bytes=1024, max_document_bytes=512)
    doc = b'{"format": "domino-log/1", "pad": "' + b"x" * 2000 + b'"}'
    for data in (doc, gzip.compress(doc)):
        with pytest.raises(TooLarge) as caught:
            list(iter_documents(data, limits=small))
        assert caught.value.code == "input/too-large"
    with pytest.raises(InputError) as caught:
        list(iter_documents(b"not json at all", limits=small))
    assert caught.value.code != "input/too-large"


# ---------------------------------------------------------------------- orjson and stdlib
# Valid documents are read by orjson, anything it refuses (and any digit run of 19 or
# more) by the stdlib parser: both must give the very same values, types included.

_json_values = st.recursive(
    st.none() | st.booleans()
    | st.integers(min_value=-(10**25), max_value=10**25)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=5),
    max_leaves=30,
)


def _typed(value: Any) -> Any:
    """The value with every number tagged by its type: 1 and 1.0 must not compare equal."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(value=_json_values)
def test_the_fast_parser_reads_what_the_stdlib_reads(value: Any) -> None:
    text = json.dumps({"v": value}, ensure_ascii=False)
    assert _typed(docs(text.encode())[0]) == _typed(json.loads(text))


@pytest.mark.parametrize("literal", [
    "123456789012345678",  # 18 digits: orjson
    "-999999999999999999",
    "1234567890123456789",  # 19 digits and more: the stdlib, exact ints
    "-9223372036854775809",
    "18446744073709551616",
    "123456789012345678901234567890",
    "0.1234567890123456789", "1e-400", "5e-324", "1.7976931348623157e308",
])
def test_numbers_keep_their_exact_value_and_type(literal: str) -> None:
    (doc,) = docs(f'{{"n": {literal}}}'.encode())
    assert _typed(doc["n"]) == _typed(json.loads(literal))


@pytest.mark.parametrize("data", [
    b'{"n": 1e400}', b'{"n": NaN}', b'{"a": 1,}', b'{"s": "\x01"}', b'{"n": 01}',
])
def test_what_orjson_refuses_is_described_by_the_stdlib_reader(data: bytes) -> None:
    assert isinstance(refused(data), InputError)


def test_a_lone_surrogate_escape_is_refused_as_before() -> None:
    assert "lone UTF-16 surrogate \\ud800" in refused(b'{"s": "\\ud800x"}').message
