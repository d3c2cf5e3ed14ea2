"""Parse: bytes to documents, with limits.

The first step of every path into the recorder (CLI, import, HTTP upload). It turns
an upload into documents and refuses, with a located :class:`InputError`, anything
that could hurt the steps after it: bytes that are not UTF-8, JSON that is not JSON,
gzip bombs, documents nested thousands deep, numbers that do not fit a float,
strings of megabytes, lone UTF-16 surrogates (which no UTF-8 encoder can write back).

Upload shapes (docs/format.md): one JSON document; a JSON array of documents; JSON
Lines (one document a line, blank lines skipped, and so is the end line of an export,
:func:`end_line`); any of these gzip-compressed (recognised by its magic bytes
``1f 8b``, not by a file name).

Two kinds of failure, because a caller must treat them differently:

* the input as a whole cannot be read (bad gzip, too large, not JSON, an array
  broken in the middle): the iterator raises :class:`InputError`;
* one document of a JSON array or one line of JSON Lines is bad: it is yielded as a
  :class:`Parsed` with ``error`` set, and the others still come through.

How the shape is told apart: a file whose first non-blank line is a complete JSON
value and which has more non-blank lines can only be JSON Lines. Otherwise the
whole input is parsed as one JSON value; only if that fails and the second
non-blank line is a complete JSON value on its own is it JSON Lines with a broken
first line. So a pretty-printed document is never mistaken for JSON Lines, and a
JSON Lines file with a bad first line still has its other lines read.

The limits are checked cheaply on the bytes before a parser sees them (the stdlib
parser recurses, and raises only at ~1000 levels); an exact walk over the parsed
value runs only when the cheap screen finds something suspicious. A document that
passes the screen is read by orjson, three times faster; what orjson refuses, and any
document with a digit run that may be an int beyond 64 bits (orjson would read it as a
float), is read by the stdlib parser, whose words every refusal keeps.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import json
import math
import re
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cache
from itertools import accumulate, chain
from typing import Any, BinaryIO, Final, NamedTuple, Protocol

import orjson

from recorder.errors import InputError, RecorderError, TooLarge, TooManyDocuments
from recorder.keycount import counted

__all__ = ["DEFAULT_LIMITS", "Limits", "Parsed", "RawLine", "end_line", "expand",
           "is_end_line", "iter_documents", "iter_documents_raw", "iter_path", "iter_path_raw",
           "parse_line"]

KiB: Final = 1024
MiB: Final = 1024 * KiB
GiB: Final = 1024 * MiB
GZIP_MAGIC: Final = b"\x1f\x8b"
_BOM: Final = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Limits:
    """How much the parser accepts. The defaults suit an HTTP upload; the CLI may
    raise them for local files. Every limit is checked before the work it bounds."""

    max_input_bytes: int = 64 * MiB
    """The whole input held in memory, after decompression: an upload, or a file that
    is not JSON Lines. Also bounds how far a gzip member may expand (gzip bombs)."""
    max_document_bytes: int = 16 * MiB
    """One document: one line of JSON Lines, one element of an array, a single file."""
    max_depth: int = 64
    """Nesting of arrays and objects inside one document (a log needs about 7)."""
    max_string_length: int = 64 * KiB
    """Characters in one string, object keys included (the schema allows 500 in the
    fields it knows; frontends' own fields get more room)."""
    max_number_length: int = 100
    """Characters in one number literal; a longer one is a mistake or an attack (int
    parsing is quadratic and Python refuses ints of more than 4300 digits)."""
    max_stream_bytes: int = 16 * GiB
    """Everything read from one JSON Lines file by :func:`iter_path`, after
    decompression. Memory stays flat there, so this only stops a gzip bomb made of
    newlines from running for hours."""

    def __post_init__(self) -> None:
        for name in self.__dataclass_fields__:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"Limits.{name} must be a positive int, got {value!r}")


DEFAULT_LIMITS: Final = Limits()


@dataclass(frozen=True, slots=True)
class Parsed:
    """One document of an input, or the reason it could not be read.

    Exactly one of ``doc`` and ``error`` is meaningful: ``error`` is ``None`` for a
    document that parsed (``doc`` may then be any JSON value; the schema check says
    whether it is a log), and set for one that did not (``doc`` is ``None``).
    """

    index: int
    """0-based position of the document in the input (JSON Lines: among non-blank lines)."""
    line: int | None
    """1-based line of a JSON Lines document; ``None`` for the other shapes."""
    doc: Any | None
    error: RecorderError | None
    text: bytes | None = field(default=None, repr=False, compare=False)
    """The document's own UTF-8 text as it came (after gzip), for storing a log
    verbatim; ``None`` when ``error`` is set."""


class RawLine(NamedTuple):
    """One line of JSON Lines read but not parsed yet (``iter_path(..., raw=True)``).

    Reading lines is cheap and must be done in order; parsing is not, and can be done
    anywhere (a worker process): :func:`parse_line` gives the very :class:`Parsed` that
    :func:`iter_path` would have given, errors and their wording included.
    """

    index: int
    number: int
    offset: int
    chunk: bytes


def parse_line(raw: RawLine, limits: Limits = DEFAULT_LIMITS) -> Parsed:
    """The document of a line read by ``iter_path(..., raw=True)``."""
    return replace(_stream_result((raw.number, raw.offset, raw.chunk), limits),
                   index=raw.index)


# ---------------------------------------------------------------------------------------
# The end line of an export.

_END_LINE: Final = re.compile(rb'\{"ok":true,"end":true,"games":[0-9]{1,19}\}')


def end_line(games: int) -> str:
    """The last line of a complete export (``GET /api/games?format=logs|jsonl``).

    A stream cut off midway lacks it, so a reader can tell a whole export from part of
    one. It is not a document: reading an export back (``recorder import``, an upload,
    ``recorder validate``) skips it.
    """
    return f'{{"ok":true,"end":true,"games":{games}}}\n'


def is_end_line(raw: bytes) -> bool:
    """Whether one line (or a whole input) is the end line of an export."""
    text = raw.strip(b" \t\r\n")
    return text[:16] == b'{"ok":true,"end"' and _END_LINE.fullmatch(text) is not None


# ---------------------------------------------------------------------------------------
# In memory.


def iter_documents(data: bytes, *, limits: Limits = DEFAULT_LIMITS,
                   max_documents: int | None = None) -> Iterator[Parsed]:
    """The documents of one input held in memory (an HTTP body, a small file).

    Raises :class:`InputError` (from the iterator) when the input as a whole cannot
    be read; a bad line of JSON Lines or a bad element of an array is yielded as a
    :class:`Parsed` with its error. A JSON array is read completely before its first
    document is yielded, so a damaged array yields nothing. An input of more than
    ``max_documents`` documents raises :class:`TooManyDocuments` before the first is
    yielded (JSON Lines are counted before any line after the first two is parsed).
    """
    for item in iter_documents_raw(data, limits=limits, max_documents=max_documents):
        yield item if isinstance(item, Parsed) else parse_line(item, limits)


def iter_documents_raw(data: bytes, *, limits: Limits = DEFAULT_LIMITS,
                       max_documents: int | None = None) -> Iterator[Parsed | RawLine]:
    """:func:`iter_documents`, but the lines of JSON Lines after the first two come as
    :class:`RawLine`, not parsed: a reader that wants one document of a body parses that
    one only (:func:`parse_line`)."""
    data = bytes(data)
    if data[:2] == GZIP_MAGIC:
        data = _gunzip(data, limits.max_input_bytes)
    elif len(data) > limits.max_input_bytes:
        raise TooLarge(
            f"the input is {_size(len(data))}; at most {_size(limits.max_input_bytes)} "
            "is accepted"
        )
    yield from _iter_plain(data, limits, max_documents=max_documents, raw=True)


def expand(data: bytes, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """An input as the parser reads it: gzip undone (up to ``max_input_bytes``), so that
    several inputs of one request can be held to one budget of expanded bytes."""
    if data[:2] == GZIP_MAGIC:
        return _gunzip(bytes(data), limits.max_input_bytes)
    return bytes(data)


def _too_many(max_documents: int) -> TooManyDocuments:
    return TooManyDocuments(
        f"the input holds more than {max_documents:,} documents, the most read at once; "
        "send them in several parts"
    )


def _iter_plain(data: bytes, limits: Limits, *, max_documents: int | None = None,
                raw: bool = False) -> Iterator[Parsed | RawLine]:
    """Shape detection and parsing of uncompressed bytes (see the module doc)."""
    start = 3 if data.startswith(_BOM) else 0
    if data[start : start + 2] in (b"\xff\xfe", b"\xfe\xff"):
        raise InputError("the input is UTF-16 text; save it as UTF-8")
    lines = _nonblank_lines(data, start)
    first = next(lines, None)
    if first is None:
        raise InputError("the input is empty" if len(data) == start else
                         "the input holds only whitespace")
    second = next(lines, None)
    if second is None:
        yield from _whole(data, start, limits, max_documents)
        return
    r1 = _line_result(data, first, limits)
    if r1.error is None:
        yield from _jsonl(data, [first, second], lines, r1, limits, max_documents, raw)
        return
    try:
        whole = list(_whole(data, start, limits, max_documents))
    except TooManyDocuments:
        raise
    except InputError:
        r2 = _line_result(data, second, limits)
        if r2.error is not None:
            raise
        # JSON Lines whose first line is broken: report that line, read the others.
        yield from _jsonl(data, [first, second], lines, r1, limits, max_documents, raw)
        return
    yield from whole


def _nonblank_lines(data: bytes, start: int) -> Iterator[tuple[int, int, int]]:
    """(1-based line number, begin, end) of each non-blank physical line; runs of
    blank lines are skipped at C speed (megabytes of newlines are a cheap attack)."""
    number = 1
    pos = start
    size = len(data)
    while pos < size:
        text_at = _WS_BYTES.match(data, pos).end()  # type: ignore[union-attr]
        if text_at >= size:
            return
        begin = data.rfind(b"\n", pos, text_at) + 1 or pos
        number += data.count(b"\n", pos, begin)
        end = data.find(b"\n", text_at)
        if end < 0:
            end = size
        yield number, begin, end
        number += 1
        pos = end + 1


def _line_result(data: bytes, line: tuple[int, int, int], limits: Limits) -> Parsed:
    """Parse one line; the index is filled in by the caller."""
    number, begin, end = line
    raw = data[begin:end].rstrip(b"\r")
    try:
        doc = _load_line(raw, number, begin, limits)
    except InputError as exc:
        return Parsed(0, number, None, exc)
    return Parsed(0, number, doc, None, raw)


def _jsonl(
    data: bytes,
    seen: list[tuple[int, int, int]],
    rest: Iterator[tuple[int, int, int]],
    first: Parsed,
    limits: Limits,
    max_documents: int | None = None,
    raw: bool = False,
) -> Iterator[Parsed | RawLine]:
    """JSON Lines held in memory: every non-blank line is one document (but the end
    line of an export). With ``max_documents`` the lines are counted first, before any
    after the first two is parsed; with ``raw`` those come as :class:`RawLine`."""
    lines: Iterable[tuple[int, int, int]] = chain(seen, rest)
    if max_documents is not None:
        counted = []
        documents = 0
        for line in lines:
            counted.append(line)
            documents += not _end_at(data, line)
            if documents > max_documents:
                raise _too_many(max_documents)
        lines = counted
    index = 0
    for n, line in enumerate(lines):
        if _end_at(data, line):
            continue
        if n == 0:
            yield first
        elif raw and n > 1:
            yield RawLine(index, line[0], line[1], data[line[1] : line[2]])
        else:
            yield replace(_line_result(data, line, limits), index=index)
        index += 1


def _end_at(data: bytes, line: tuple[int, int, int]) -> bool:
    """Whether the line at (number, begin, end) of ``data`` is the end line of an export."""
    _, begin, end = line
    return end - begin < 64 and is_end_line(data[begin:end])


def _whole(data: bytes, start: int, limits: Limits, max_documents: int | None = None
           ) -> Iterator[Parsed]:
    """The input as one JSON value: an array of documents, or one document."""
    body = data[start:]
    first = body.lstrip(b" \t\r\n")[:1]
    if first == b"{" and len(body) < 64 and is_end_line(body):
        return  # the export of no games
    if first == b"[":
        yield from _array(body, start, limits, max_documents)
        return
    if len(body) > limits.max_document_bytes:
        raise TooLarge(
            f"the document is {_size(len(body))}; at most "
            f"{_size(limits.max_document_bytes)} is accepted"
        )
    try:
        doc = _load(body, start, limits, depth_slack=0)
    except _Duplicate as exc:  # a document read, but refused: the log's fault, not the body's
        yield Parsed(0, None, None, exc.error(None))
        return
    except _Rejected as exc:
        raise InputError(exc.render(line=None)) from None
    yield Parsed(0, None, doc, None, body)


def _array(body: bytes, base: int, limits: Limits, max_documents: int | None = None
           ) -> Iterator[Parsed]:
    """A JSON array of documents, each element measured against the document limits;
    reading stops at the element past ``max_documents``."""
    text = _decode(body, base)
    docs: list[tuple[Any, int, int]] = []
    try:
        suspicious, colons = _screen(body, limits, depth_slack=1)
        decoder = _decoder(limits, strict_ints=suspicious.long_number)
        pos = _skip_ws(text, 1)
        if text[pos : pos + 1] == "]":
            pos += 1
        else:
            while True:
                value, end = decoder.raw_decode(text, pos)
                docs.append((value, pos, end))
                if max_documents is not None and len(docs) > max_documents:
                    raise _too_many(max_documents)
                pos = _skip_ws(text, end)
                sep = text[pos : pos + 1]
                if sep == ",":
                    pos = _skip_ws(text, pos + 1)
                elif sep == "]":
                    pos += 1
                    break
                else:
                    raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        if _skip_ws(text, pos) != len(text):
            raise json.JSONDecodeError("Extra data", text, _skip_ws(text, pos))
    except json.JSONDecodeError as exc:
        raise InputError(_rejected_json(exc).render(line=None)) from None
    except _Rejected as exc:
        raise InputError(exc.render(line=None)) from None
    except _NumberRejected as exc:
        raise InputError(str(exc)) from None
    except RecursionError:
        raise InputError(_too_deep(limits)) from None
    except ValueError as exc:
        raise InputError(_value_error(exc, limits).render(line=None)) from None
    if not docs:
        raise InputError("the input is an empty JSON array: it holds no documents")
    ascii_body = body.isascii()
    # the array itself has no key: its documents have none twice when their counts add up
    # (as for one document, see _surely_unique)
    unique = not suspicious.colon_escape and sum(
        sum(counted(v)) if type(v) is dict else 0 for v, _, _ in docs) == colons
    for index, (value, begin, end) in enumerate(docs):
        error: RecorderError | None = None
        chars = end - begin
        if chars > limits.max_document_bytes or (
            chars * 4 > limits.max_document_bytes
            and len(text[begin:end].encode("utf-8", "surrogatepass")) > limits.max_document_bytes
        ):
            error = InputError(
                f"document {index + 1} of the array is larger than "
                f"{_size(limits.max_document_bytes)}, the most accepted for one document"
            )
        elif suspicious.strings:
            try:
                _check_strings(value, limits)
            except _Rejected as exc:
                error = InputError(f"document {index + 1} of the array: {exc.render(None)}")
        if error is None and not unique:
            try:
                _refuse_duplicates(text[begin:end], limits, suspicious)
            except _Duplicate as exc:
                error = exc.error(None, f"document {index + 1} of the array: ")
        if error is not None:
            yield Parsed(index, None, None, error)
        elif ascii_body:  # character offsets are byte offsets
            yield Parsed(index, None, value, None, body[begin:end])
        else:
            yield Parsed(index, None, value, None, text[begin:end].encode("utf-8"))


# ---------------------------------------------------------------------------------------
# Streaming.


def iter_path(path_or_dash: str, *, limits: Limits = DEFAULT_LIMITS) -> Iterator[Parsed]:
    """The documents of a file (``-`` for standard input), plain or gzip.

    JSON Lines is read line by line, so memory stays flat however big the file:
    each document is yielded as soon as its line is read, and a damaged gzip stream
    raises :class:`InputError` after the documents before the damage. Any other
    shape (one document, a JSON array) is read whole, up to
    ``limits.max_input_bytes``, and parsed as :func:`iter_documents` does.

    ``OSError`` from opening or reading the file is not translated: the caller
    knows the file's name and words it.
    """
    for item in iter_path_raw(path_or_dash, limits=limits, unparsed=False):
        assert isinstance(item, Parsed)
        yield item


def iter_path_raw(
    path_or_dash: str, *, limits: Limits = DEFAULT_LIMITS, unparsed: bool = True
) -> Iterator[Parsed | RawLine]:
    """:func:`iter_path`, but the lines of JSON Lines after the first two come as
    :class:`RawLine`, read and not parsed, for :func:`parse_line` to parse elsewhere
    (a worker process); everything else (the first two lines, which tell the shape, a
    line too long, the other shapes) still comes as :class:`Parsed`."""
    with contextlib.ExitStack() as stack:
        if path_or_dash == "-":
            raw: BinaryIO = sys.stdin.buffer
        else:
            raw = stack.enter_context(open(path_or_dash, "rb"))
        yield from iter_file(raw, limits=limits, unparsed=unparsed)


class Count:
    """The bytes a streamed read has read so far, once gzip is undone (for a caller
    that holds several inputs to one budget)."""

    __slots__ = ("bytes",)

    def __init__(self) -> None:
        self.bytes = 0


def iter_file(
    raw: BinaryIO, *, limits: Limits = DEFAULT_LIMITS, unparsed: bool = False,
    max_documents: int | None = None, count: Count | None = None,
) -> Iterator[Parsed | RawLine]:
    """The documents of an open binary file, plain or gzip, read as :func:`iter_path`
    reads a file: JSON Lines a line at a time, so memory is bounded by the limits
    (``max_input_bytes`` while the shape is not known, ``max_document_bytes`` a line),
    never by the file; ``max_stream_bytes`` bounds the expanded bytes read in all.

    The file is not closed. ``max_documents`` raises :class:`TooManyDocuments` at the
    document past it (streamed: the documents before it were yielded); ``count``
    receives the expanded bytes read.
    """
    with contextlib.ExitStack() as stack:
        head = _read_up_to(raw, 2)
        source: _Readable = io.BufferedReader(_Prefixed(head, raw), buffer_size=256 * KiB)
        if head == GZIP_MAGIC:
            gz = gzip.GzipFile(fileobj=source, mode="rb")  # type: ignore[arg-type]
            stack.callback(gz.close)
            source = _GzipReader(gz)
        items = _iter_stream(_LineReader(source, limits, count), limits, unparsed,
                             max_documents)
        if max_documents is None:
            yield from items
            return
        for n, item in enumerate(items):
            if n >= max_documents:
                raise _too_many(max_documents)
            yield item


class _Readable(Protocol):
    def read1(self, size: int = -1, /) -> bytes: ...


class _Prefixed(io.RawIOBase):
    """A raw stream that serves ``head`` before the rest of ``rest`` (to peek at the
    magic bytes of a stream that cannot seek, such as standard input)."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        super().__init__()
        self._head = head
        self._rest = rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        if self._head:
            n = min(len(view), len(self._head))
            view[:n] = self._head[:n]
            self._head = self._head[n:]
            return n
        read1 = getattr(self._rest, "read1", None)
        chunk = read1(len(view)) if read1 is not None else self._rest.read(len(view))
        n = len(chunk)
        view[:n] = chunk
        return n


@contextlib.contextmanager
def _gzip_errors() -> Iterator[None]:
    """The stdlib's ways of saying "bad gzip", as one InputError."""
    try:
        yield
    except EOFError:
        raise InputError("the gzip data is cut off before its end") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise InputError(f"the gzip data is damaged: {exc}") from None


class _GzipReader:
    """A GzipFile whose errors are InputErrors (other OSErrors pass through)."""

    def __init__(self, gz: gzip.GzipFile) -> None:
        self._gz = gz

    def read1(self, size: int = -1, /) -> bytes:
        with _gzip_errors():
            return self._gz.read1(size)


_BLOCK: Final = 256 * KiB


class _LineReader:
    """Physical lines of a stream, read by blocks, none kept longer than a document
    may be; bytes are counted against ``max_stream_bytes``.

    Runs of blank lines are skipped at C speed (a gzip bomb of newlines is the cheap
    way to make a line-by-line reader spin), and bytes can be pushed back to be read
    again after a look ahead.
    """

    def __init__(self, stream: _Readable, limits: Limits, count: Count | None = None
                 ) -> None:
        self._read = stream.read1
        self._limits = limits
        self._count = count
        self._buf = b""
        self._pos = 0
        self.number = 0
        self.offset = 0
        self._total = 0

    def read_line(self) -> tuple[int, int, bytes, bool] | None:
        """(line number, offset, bytes, complete) of the next line, or None at the end.

        At most about ``max_document_bytes + 2`` bytes are kept (a full document and
        its ``\\r\\n``); ``complete`` is False when the line goes on beyond that, and
        :meth:`skip_line` then reads past its end.
        """
        limit = self._limits.max_document_bytes + 2
        pieces: list[bytes] = []
        size = 0
        complete = True
        while True:
            if self._pos >= len(self._buf) and not self._fill():
                if not pieces:
                    return None
                break
            end = self._buf.find(b"\n", self._pos)
            stop = len(self._buf) if end < 0 else end + 1
            pieces.append(self._buf[self._pos : stop])
            size += stop - self._pos
            self._pos = stop
            if end >= 0:
                break
            if size >= limit:
                complete = False
                break
        self.number += 1
        offset = self.offset
        self.offset += size
        return self.number, offset, b"".join(pieces), complete

    def skip_line(self) -> None:
        """Read past the end of the current (too long) line."""
        while self._pos < len(self._buf) or self._fill():
            end = self._buf.find(b"\n", self._pos)
            stop = len(self._buf) if end < 0 else end + 1
            self.offset += stop - self._pos
            self._pos = stop
            if end >= 0:
                return

    def skip_blank_lines(self, into: bytearray | None = None, keep: int = 0) -> bool:
        """Skip whole blank lines, counting them, without a Python step per line.

        ``into`` receives the bytes skipped, when the caller may need them again, as
        long as it holds no more than ``keep`` bytes: a run of blank lines may be
        gigabytes long (a gzip bomb of newlines), so it is never kept whole. Returns
        False when bytes were skipped that ``into`` could not keep.
        """
        kept_all = True
        while self._pos < len(self._buf) or self._fill():
            if self._buf[self._pos] not in _BLANK:
                break  # text comes next: no count over the rest of the block, per line
            if self._buf.count(b"\n", self._pos) == len(self._buf) - self._pos:
                text_at = len(self._buf)  # a block of newlines only: counted 8 times faster
            else:
                text_at = _WS_BYTES.match(self._buf, self._pos).end()  # type: ignore[union-attr]
            last_newline = self._buf.rfind(b"\n", self._pos, text_at)
            if last_newline >= 0:
                if into is not None and kept_all:
                    if len(into) + last_newline + 1 - self._pos <= keep:
                        into += self._buf[self._pos : last_newline + 1]
                    else:
                        kept_all = False
                self.number += self._buf.count(b"\n", self._pos, last_newline + 1)
                self.offset += last_newline + 1 - self._pos
                self._pos = last_newline + 1
            if text_at < len(self._buf) or self._pos < len(self._buf):
                break  # a line with text, or the blank start of one, comes next
        return kept_all

    def read_rest(self, budget: int) -> bytes:
        """Up to about ``budget + 1`` more bytes: more than ``budget`` tells that the
        budget is exceeded."""
        pieces = [self._buf[self._pos :]]
        size = len(pieces[0])
        self._pos = len(self._buf)
        while size <= budget and self._fill():
            pieces.append(self._buf)
            size += len(self._buf)
            self._pos = len(self._buf)
        return b"".join(pieces)

    def push_back(self, data: bytes) -> None:
        self._buf = data + self._buf[self._pos :]
        self._pos = 0

    def _fill(self) -> bool:
        """Replace the (consumed) buffer with the next block; False at the end."""
        block = self._read(_BLOCK)
        if not block:
            return False
        self._total += len(block)
        if self._count is not None:
            self._count.bytes = self._total
        if self._total > self._limits.max_stream_bytes:
            raise TooLarge(
                f"the input is larger than {_size(self._limits.max_stream_bytes)} "
                "(after decompression), the most read from one file"
            )
        self._buf = block
        self._pos = 0
        return True


_Line = tuple[int, int, bytes]
"""(line number, offset of the line in the input, the line's bytes)."""


def _iter_stream(reader: _LineReader, limits: Limits, raw: bool = False,
                 max_documents: int | None = None) -> Iterator[Parsed | RawLine]:
    """Shape detection on a stream, with the in-memory rule: JSON Lines when the first
    non-blank line is a JSON value and more lines follow (streamed); anything else is
    read whole and parsed by :func:`_iter_plain`.

    What is read while looking for the first two lines is kept, to be parsed whole if
    the input is not JSON Lines, but never more than ``max_input_bytes`` of it: past
    that the input can only be JSON Lines (or one document and white space), and memory
    stays flat however many blank lines come between the documents.
    """
    budget = limits.max_input_bytes
    consumed = bytearray()
    whole = True  # consumed holds every byte read so far
    found: list[_Line] = []
    long_line: int | None = None  # number of a line longer than a document may be
    while len(found) < 2:
        if not reader.skip_blank_lines(into=consumed if whole else None, keep=budget):
            whole, consumed = False, bytearray()  # megabytes of blank lines
        item = reader.read_line()
        if item is None:
            break
        number, offset, chunk, complete = item
        if whole:
            consumed += chunk
            if len(consumed) > budget:
                whole, consumed = False, bytearray()
        if not complete:
            long_line = number
            break
        if number == 1 and chunk.startswith(_BOM):
            chunk, offset = chunk[3:], offset + 3
        if chunk.strip(b" \t\r\n"):
            found.append((number, offset, chunk))
    first = _stream_result(found[0], limits) if found else None
    if first is not None and first.error is None and (len(found) == 2 or long_line):
        if long_line is None:
            head = [first, _stream_result(found[1], limits)]
        else:
            reader.skip_line()
            head = [first, _long_line(long_line, limits)]
        yield from _stream_jsonl(reader, head, limits, raw)
        return
    if not whole:
        if first is not None and first.error is None and not found[1:]:
            yield first  # one document amid more white space than is read whole
            return
        if first is not None and len(found) == 2 and found[0][2].lstrip().startswith(b"{"):
            second = _stream_result(found[1], limits)
            if second.error is None:  # JSON Lines whose first line is broken
                yield from _stream_jsonl(reader, [first, second], limits, raw)
                return
        raise _too_large(limits)
    if not found and long_line is None and whole:
        # nothing but white space: said without holding it twice (a gzip bomb of blank
        # lines read whole would cost twice the input limit)
        raise InputError("the input is empty" if consumed in (b"", _BOM) else
                         "the input holds only whitespace")
    rest = reader.read_rest(max(0, budget - len(consumed)))
    if len(consumed) + len(rest) <= budget:
        consumed += rest
        del rest
        data = bytes(consumed)
        del consumed  # held once while it is parsed, not twice
        yield from _iter_plain(data, limits, max_documents=max_documents)
        return
    # Too big to hold. The one shape still readable is JSON Lines with a broken first
    # line (a document of that size would be refused anyway).
    if first is not None and len(found) == 2 and found[0][2].lstrip().startswith(b"{"):
        second = _stream_result(found[1], limits)
        if second.error is None:
            reader.push_back(rest)
            yield from _stream_jsonl(reader, [first, second], limits, raw)
            return
    raise _too_large(limits)


def _stream_result(line: _Line, limits: Limits) -> Parsed:
    """Parse one streamed line; the index is filled in by the caller."""
    number, offset, raw = line
    raw = raw.rstrip(b"\r\n")
    try:
        return Parsed(0, number, _load_line(raw, number, offset, limits), None, raw)
    except InputError as exc:
        return Parsed(0, number, None, exc)


def _long_line(number: int, limits: Limits) -> Parsed:
    return Parsed(0, number, None, InputError(
        f"line {number}: the line is longer than {_size(limits.max_document_bytes)}, "
        "the most accepted for one document"
    ))


def _stream_jsonl(reader: _LineReader, head: list[Parsed], limits: Limits, raw: bool = False
                  ) -> Iterator[Parsed | RawLine]:
    """JSON Lines from a stream; ``head`` are the lines already read and parsed."""
    index = -1
    for parsed in head:
        if parsed.text is not None and is_end_line(parsed.text):
            continue
        index += 1
        yield replace(parsed, index=index)
    while True:
        reader.skip_blank_lines()
        item = reader.read_line()
        if item is None:
            return
        number, offset, chunk, complete = item
        if complete and (not chunk.strip(b" \t\r\n") or is_end_line(chunk)):
            continue
        index += 1
        if complete and raw:
            yield RawLine(index, number, offset, chunk)
            continue
        if complete:
            parsed = _stream_result((number, offset, chunk), limits)
        else:
            reader.skip_line()
            parsed = _long_line(number, limits)
        yield replace(parsed, index=index)


def _read_up_to(stream: BinaryIO, n: int) -> bytes:
    out = b""
    while len(out) < n:
        chunk = stream.read(n - len(out))
        if not chunk:
            break
        out += chunk
    return out


# ---------------------------------------------------------------------------------------
# One document.


class _Rejected(Exception):
    """Why one document was refused, before it is given its place in the input."""

    def __init__(
        self,
        message: str,
        *,
        line_in_doc: int | None = None,
        column: int | None = None,
        hint: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.line_in_doc = line_in_doc
        self.column = column
        self.hint = hint

    def render(self, line: int | None) -> str:
        """The message placed in the input: ``line 3: ... at column 17`` for a line of
        JSON Lines, ``... at line 3 column 17`` for a whole document."""
        where = ""
        if self.column is not None:
            if line is None and self.line_in_doc is not None:
                where = f" at line {self.line_in_doc} column {self.column}"
            else:
                where = f" at column {self.column}"
        text = f"{self.message}{where}{self.hint}"
        return f"line {line}: {text}" if line is not None else text


def _load_line(raw: bytes, number: int, offset: int, limits: Limits) -> Any:
    """One line of JSON Lines as a document, or :class:`InputError` naming the line."""
    if len(raw) > limits.max_document_bytes:
        raise InputError(
            f"line {number}: the line is {_size(len(raw))}; at most "
            f"{_size(limits.max_document_bytes)} is accepted for one document"
        )
    try:
        return _load(raw, offset, limits, depth_slack=0)
    except _Duplicate as exc:
        raise exc.error(number) from None
    except _Rejected as exc:
        raise InputError(exc.render(line=number)) from None


@dataclass(frozen=True, slots=True)
class _Suspicion:
    """What the byte screen could not rule out, to be checked exactly after parsing."""

    strings: bool = False
    long_number: bool = False
    #: a run of 19 digits or more: an int that may not fit in 64 bits, which orjson
    #: would read as a float; such a document goes to the stdlib parser
    wide_number: bool = False
    #: a colon may be written as an escape (``\\u003a``) inside a string
    colon_escape: bool = False


_NOT_SUSPICIOUS: Final = _Suspicion()
#: the longest digit run that is certainly an int orjson reads exactly (-10**18 < n < 10**18)
_ORJSON_DIGITS: Final = 18


def _load(raw: bytes, offset: int, limits: Limits, *, depth_slack: int) -> Any:
    """The JSON value in ``raw`` (which starts at ``offset`` of the input), checked
    against ``limits``; raises :class:`_Rejected`."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise _Rejected(_not_utf8(raw, exc, offset)) from None
    suspicious, colons = _screen(raw, limits, depth_slack=depth_slack)
    if not suspicious.wide_number:
        # orjson reads a valid document three times faster and to the same values;
        # anything it refuses goes to the stdlib parser below, which says what is wrong
        # in the words the error messages have always used
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
        else:
            if suspicious.strings:
                _check_strings(value, limits)
            if not _surely_unique(value, suspicious, colons):
                _refuse_duplicates(text, limits, suspicious)
            return value
    decoder = _decoder(limits, strict_ints=suspicious.long_number)
    try:
        value = decoder.decode(text)
    except json.JSONDecodeError as exc:
        raise _rejected_json(exc) from None
    except _NumberRejected as exc:
        raise _Rejected(str(exc)) from None
    except RecursionError:
        raise _Rejected(_too_deep(limits)) from None
    except ValueError as exc:
        raise _value_error(exc, limits) from None
    if suspicious.strings:
        _check_strings(value, limits)
    if not _surely_unique(value, suspicious, colons):
        _refuse_duplicates(text, limits, suspicious)
    return value


def _decode(raw: bytes, offset: int) -> str:
    """The whole input as text, or InputError naming the first bad byte."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"the input is {_not_utf8(raw, exc, offset)}") from None


def _not_utf8(raw: bytes, exc: UnicodeDecodeError, offset: int) -> str:
    return (f"not UTF-8: byte 0x{raw[exc.start]:02x} at offset {offset + exc.start} "
            "cannot be decoded; save the file as UTF-8")


def _rejected_json(exc: json.JSONDecodeError) -> _Rejected:
    """A JSON syntax error, with a hint for the two common causes: a file cut off,
    and comments (which JSON does not have)."""
    rest = exc.doc[exc.pos :] if isinstance(exc.doc, str) else ""
    hint = ""
    if not rest.strip() or exc.msg.startswith("Unterminated string"):
        hint = " (the text ends too early: is it cut off?)"
    elif rest.startswith(("//", "/*", "#")):
        hint = " (JSON has no comments)"
    msg = exc.msg.removesuffix(" at")  # "Unterminated string starting at" + " at line 3"
    return _Rejected(f"not valid JSON: {msg}", line_in_doc=exc.lineno, column=exc.colno,
                     hint=hint)


def _too_deep(limits: Limits) -> str:
    return (f"the document nests arrays and objects more than {limits.max_depth} levels "
            "deep")


def _value_error(exc: ValueError, limits: Limits) -> _Rejected:
    """Another ValueError out of the json module: Python's 4300-digit guard on ints."""
    if "digits" in str(exc):
        return _Rejected(f"a number has more than {limits.max_number_length} digits")
    return _Rejected(f"not valid JSON: {exc}")


def _too_large(limits: Limits) -> InputError:
    return TooLarge(
        f"the input is larger than {_size(limits.max_input_bytes)}, the most read at once; "
        "write one document a line (JSON Lines) to send more"
    )


# --- numbers


class _NumberRejected(ValueError):
    pass


@cache
def _decoder(limits: Limits, *, strict_ints: bool) -> json.JSONDecoder:
    """A JSON decoder that refuses NaN, Infinity, overflowing and overlong numbers.

    ``parse_float`` costs only on numbers with a fraction or exponent (rare in a
    log); ``parse_int`` would cost on every int, so it is installed only when the
    byte screen saw a run of digits longer than a number may be.
    """
    max_len = limits.max_number_length

    def parse_float(literal: str) -> float:
        if len(literal) > max_len:
            raise _NumberRejected(f"a number is longer than {max_len} characters")
        value = float(literal)
        if not math.isfinite(value):
            raise _NumberRejected(
                f"the number {literal[:40]} is too large for a 64-bit float"
            )
        return value

    def parse_constant(literal: str) -> Any:
        raise _NumberRejected(f"not valid JSON: {literal} is not a JSON number")

    def parse_int(literal: str) -> int:
        if len(literal) > max_len:
            raise _NumberRejected(f"a number has more than {max_len} digits")
        return int(literal)

    return json.JSONDecoder(
        parse_float=parse_float,
        parse_int=parse_int if strict_ints else None,
        parse_constant=parse_constant,
    )


# --- the byte screen

_SCREEN_DELETE: Final = bytes(b for b in range(256) if b not in b'[]{}"0123456789:')
_SCREEN_TABLE: Final = bytes(0x30 if 0x30 <= b <= 0x39 else b for b in range(256))
_DEPTH_STEP: Final = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_SURROGATE_ESCAPE: Final = re.compile(rb"\\u[dD][89abcdefABCDEF]")
_COLON_ESCAPE: Final = re.compile(rb"\\u003[aA]")


@cache
def _long_run(n: int) -> re.Pattern[bytes]:
    """A quote followed by more than ``n`` bytes without a quote."""
    return re.compile(b'"[^"]{%d}' % (n + 1))


def _screen(raw: bytes, limits: Limits, *, depth_slack: int) -> tuple[_Suspicion, int]:
    """Check the limits that can be checked on the bytes; report what needs a look
    after parsing, and the colons of the text (for the duplicate-key check). Raises
    :class:`_Rejected` for a document nested too deep.

    Escapes first: ``\\\\`` and ``\\"`` become one placeholder byte each, so that
    every remaining quote delimits a string and every string of n characters spans
    at least n bytes.
    """
    plain = raw
    if b"\\" in raw:
        plain = raw.replace(b"\\\\", b"_").replace(b'\\"', b"_")
    # One C-speed pass keeps what the depth, number and key checks need: brackets,
    # quotes, colons and digits (each digit as "0").
    skeleton = plain.translate(_SCREEN_TABLE, _SCREEN_DELETE)
    long_number = b"0" * (limits.max_number_length + 1) in skeleton
    wide_number = long_number or b"0" * (_ORJSON_DIGITS + 1) in skeleton
    if _nesting(skeleton.translate(None, b"0:"), limits.max_depth + depth_slack):
        raise _Rejected(_too_deep(limits))
    strings = False
    if len(plain) > limits.max_string_length and _long_run(limits.max_string_length).search(
        plain
    ):
        strings = True
    colon_escape = False
    if b"\\u" in plain:
        strings = strings or _SURROGATE_ESCAPE.search(plain) is not None
        colon_escape = _COLON_ESCAPE.search(plain) is not None
    # every colon of the text: a key's, or one inside a string (see _surely_unique)
    colons = skeleton.count(b":")
    if not (strings or wide_number or colon_escape):
        return _NOT_SUSPICIOUS, colons
    return _Suspicion(strings=strings, long_number=long_number, wide_number=wide_number,
                      colon_escape=colon_escape), colons


def _nesting(structure: bytes, max_depth: int) -> bool:
    """Whether ``structure`` (the brackets and quotes of a JSON text whose escaped
    quotes are neutralised) nests arrays and objects deeper than ``max_depth``;
    brackets inside strings do not count.

    Exact for valid JSON. Most documents end after a few C-speed passes that peel the
    innermost bracket pairs; only a deep one is measured bracket by bracket.
    """
    brackets = structure.translate(None, b'"')
    if len(brackets) <= max_depth:
        return False
    if structure.count(b'""') * 2 != structure.count(b'"'):
        # Some string holds a bracket (its quotes are not adjacent here): drop every
        # string's content, telling strings from the rest by quote parity.
        brackets = b"".join(structure.split(b'"')[0::2])
    # A pass peels at least one level and at most two (``{[]}`` loses ``[]``, then the
    # ``{}`` that leaves), so emptying in k passes proves a depth of at most 2k.
    peeled = brackets
    for _ in range(max_depth // 2):
        shorter = peeled.replace(b"[]", b"").replace(b"{}", b"")
        if not shorter:
            return False  # depth <= 2 * passes <= max_depth
        if len(shorter) == len(peeled):
            break  # unbalanced: measure it
        peeled = shorter
    return max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0) > max_depth


# --- duplicate keys
#
# orjson (like the stdlib, Python's dicts and most parsers) keeps the last of two values
# of one key, SQLite's json_extract the first: a log with a duplicate key can be checked
# as one game and read back as another. So a document with one is refused. Proving that
# a document has none costs a few C-speed counts, not a second parse: the screen counts
# the colons of the text (a key's, or one inside a string), and the parsed value's keys
# and its strings' colons are counted where a log keeps them (:func:`_surely_unique`,
# :mod:`recorder.keycount`). Only a document whose counts differ (a duplicate, or objects
# the count does not follow: a frontend's own nested objects, a colon written as an
# escape) is read again, by the stdlib parser keeping every pair, which finds the
# duplicate and its place.


def _surely_unique(value: Any, suspicion: _Suspicion, colons: int) -> bool:
    """True when ``value``, parsed from a text with ``colons`` colons, certainly has no
    duplicate key; False means "not certain" (then :func:`_refuse_duplicates` looks).

    Every colon of the text is a key's or is inside a string. Each dict counted by
    :func:`~recorder.keycount.counted` is an object of the text, with as many keys as it
    writes unless it writes one twice; each string counted is a string of the text, with
    its colons (unless one is escaped as ``\\u003a``: such a text is never taken as
    certain). So the keys and colons counted are at most the colons of the text, and as
    many only when no object writes a key twice (objects and strings not counted can
    only add colons to the text: a frontend's own nested objects take the slow way).
    """
    if type(value) is not dict:
        return not colons
    if suspicion.colon_escape:
        return False
    keys, string_colons = counted(value)
    return keys + string_colons == colons


class _Pairs(list[tuple[str, Any]]):
    """An object read with every pair kept, duplicates included, in written order."""


def _first_duplicate(value: Any, path: str = "") -> tuple[str, str] | None:
    """(pointer of the object, key) of the first key written twice, in document order."""
    stack: list[tuple[str, Any]] = [(path, value)]
    while stack:
        where, item = stack.pop()
        if isinstance(item, _Pairs):
            seen: set[str] = set()
            for key, _ in item:
                if key in seen:
                    return where, key
                seen.add(key)
            children = [(f"{where}/{_escape(k)}", v) for k, v in item]
        elif isinstance(item, list):
            children = [(f"{where}/{i}", v) for i, v in enumerate(item)]
        else:
            continue
        stack.extend(reversed([c for c in children if isinstance(c[1], list)]))
    return None


def _escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _refuse_duplicates(text: str, limits: Limits, suspicion: _Suspicion) -> None:
    """Raise :class:`_Duplicate` if the JSON ``text`` (already parsed without error)
    writes a key twice in one object."""
    decoder = json.JSONDecoder(
        object_pairs_hook=_Pairs,
        parse_float=_decoder(limits, strict_ints=False).parse_float,
        parse_int=_decoder(limits, strict_ints=True).parse_int
        if suspicion.long_number else None,
        parse_constant=_decoder(limits, strict_ints=False).parse_constant,
    )
    found = _first_duplicate(decoder.decode(text))
    if found is not None:
        raise _Duplicate(*found)


class _Duplicate(_Rejected):
    """A key written twice in one object: where, for the pointer, and which key."""

    def __init__(self, where: str, key: str) -> None:
        self.pointer = f"{where}/{_escape(key)}"
        shown = json.dumps(key[:60], ensure_ascii=True)
        place = f"the object at {where}" if where else "the document"
        super().__init__(
            f"at {self.pointer}: {place} has the key {shown} twice; a key may be written "
            "only once in an object (readers differ on which value counts: remove one)")
        parts = self.pointer.split("/")
        self.round = self.move = 0
        if len(parts) >= 3 and parts[1] == "rounds" and parts[2].isdigit():
            self.round = int(parts[2]) + 1
            if len(parts) >= 5 and parts[3] == "moves" and parts[4].isdigit():
                self.move = int(parts[4]) + 1

    def error(self, line: int | None, prefix: str = "") -> InputError:
        """The document's refusal: code ``input/duplicate-key``, with the pointer."""
        return InputError(prefix + self.render(line), round=self.round, move=self.move,
                          pointer=self.pointer, code=DUPLICATE_KEY)


DUPLICATE_KEY: Final = "input/duplicate-key"


def _check_strings(value: Any, limits: Limits) -> None:
    """The exact string checks (length, lone surrogates), keys included."""
    max_len = limits.max_string_length
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, child in item.items():
                _check_string(key, max_len)
                if isinstance(child, str):
                    _check_string(child, max_len)
                elif isinstance(child, dict | list):
                    stack.append(child)
        elif isinstance(item, list):
            for child in item:
                if isinstance(child, str):
                    _check_string(child, max_len)
                elif isinstance(child, dict | list):
                    stack.append(child)
        elif isinstance(item, str):
            _check_string(item, max_len)


def _check_string(text: str, max_len: int) -> None:
    if len(text) > max_len:
        raise _Rejected(
            f"a string of {len(text)} characters is longer than the {max_len} accepted "
            f"(it starts {json.dumps(text[:40], ensure_ascii=True)})"
        )
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise _Rejected(
                f"a string holds a lone UTF-16 surrogate \\u{ord(text[exc.start]):04x} "
                "(half of a pair), which is not a character; escape characters outside "
                "the Basic Multilingual Plane as a surrogate pair or write them as UTF-8"
            ) from None


# --- small helpers

_WS: Final = re.compile(r"[ \t\n\r]*")
_WS_BYTES: Final = re.compile(rb"[ \t\r\n]*")
_BLANK: Final = frozenset(b" \t\r\n")


def _skip_ws(text: str, pos: int) -> int:
    match = _WS.match(text, pos)
    return match.end() if match else pos


def _size(n: int) -> str:
    """A byte count for a message: ``64 MiB``, ``1.5 KiB``, ``900 bytes``."""
    for unit, scale in (("GiB", GiB), ("MiB", MiB), ("KiB", KiB)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.1f} {unit}"
    return f"{n} bytes"


def _gunzip(data: bytes, limit: int) -> bytes:
    """Decompress every gzip member of ``data``, refusing more than ``limit`` bytes of
    output as soon as it is produced (a gzip bomb is never expanded in full)."""
    out = bytearray()
    pending = data
    try:
        decomp = zlib.decompressobj(wbits=31)
        while True:
            chunk = decomp.decompress(pending, limit + 1 - len(out))
            out += chunk
            if len(out) > limit:
                raise TooLarge(
                    f"the gzip data expands to more than {_size(limit)}, the most accepted"
                )
            pending = decomp.unconsumed_tail
            if decomp.eof:
                tail = decomp.unused_data
                if not tail.strip(b"\x00"):
                    break
                if tail[:2] != GZIP_MAGIC:
                    raise InputError("the gzip data is followed by bytes that are not gzip")
                decomp = zlib.decompressobj(wbits=31)
                pending = tail
            elif not pending and not chunk:
                raise InputError("the gzip data is cut off before its end")
    except zlib.error as exc:
        raise InputError(f"the gzip data is damaged: {exc}") from None
    return bytes(out)
