"""Shards of an archive: cut anywhere, a file's shards give back exactly the documents the
import reads from it, with its line numbers, indexes and errors; sources are expanded as
the import expands them, and fsspec URLs (memory://, file://) read like paths."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("distributed")

import fsspec

from recorder import batch
from recorder.errors import InputError
from recorder.parse import Limits, iter_path

LIMITS = Limits(max_document_bytes=300)


def _corpus(long_line: int = 400) -> bytes:
    """JSON Lines with what cutting must get right: a BOM, CRLF, blank and white lines,
    a line that is not JSON, a line longer than a document may be, no final newline.

    A line beyond the reader's block (256 KiB) is cut as it is read; a shorter one is
    read whole and refused for its size: both are the import's words."""
    lines = ["\ufeff" + json.dumps({"n": 0})]
    for n in range(1, 60):
        if n % 7 == 0:
            lines.append("")
        if n % 11 == 0:
            lines.append(" \t ")
        if n == 13:
            lines.append("{broken")
        if n == 29:
            lines.append(json.dumps({"long": "x" * long_line}))
        lines.append(json.dumps({"n": n, "pad": "y" * (n * 3 % 50)}))
    text = "\r\n".join(lines[:20]) + "\r\n" + "\n".join(lines[20:])
    return text.encode()


def _as_imported(path: str) -> list[tuple[Any, ...]]:
    return [(p.index, p.line, p.doc, None if p.error is None else p.error.message)
            for p in iter_path(path, limits=LIMITS)]


def _as_sharded(path: str, shard_bytes: int) -> tuple[list[tuple[Any, ...]], int]:
    """The documents of every shard, numbered as publishing numbers them."""
    (source,) = batch.expand_sources([path])
    shards = batch.plan_file(source, shard_bytes, LIMITS)
    out = []
    line_base = index_base = 0
    for shard in shards:
        newlines = documents = 0
        for item, _ in batch._documents(shard, LIMITS):
            if isinstance(item, batch._Tail):
                newlines = item.newlines
                continue
            if isinstance(item, batch._InputFailure):
                out.append(("failure", item.error.message))
                continue
            documents += 1
            line = item.line + line_base if item.line is not None else None
            message = None if item.error is None else item.error.message
            if message is not None and item.line is not None:
                message = message.replace(f"line {item.line}: ", f"line {line}: ", 1)
            out.append((item.index + index_base, line, item.doc, message))
        line_base += newlines
        index_base += documents
    return out, len(shards)


@pytest.mark.parametrize("shard_bytes", [1, 2, 7, 50, 333, 1000, 4096, 1 << 30])
def test_shards_of_a_file_read_what_the_import_reads(tmp_path: Path, shard_bytes: int) -> None:
    path = tmp_path / "games.jsonl"
    path.write_bytes(_corpus())
    expected = _as_imported(str(path))
    got, count = _as_sharded(str(path), shard_bytes)
    assert got == expected
    assert count == -(-path.stat().st_size // shard_bytes)
    assert any(m and "at most 300 bytes is accepted" in m for *_, m in got)
    assert any(m and "not valid JSON" in m for *_, m in got)


@pytest.mark.parametrize("shard_bytes", [999, 100_000, 1 << 30])
def test_a_line_longer_than_a_block_is_cut_and_refused_as_the_import_does(
        tmp_path: Path, shard_bytes: int) -> None:
    path = tmp_path / "long.jsonl"
    path.write_bytes(_corpus(long_line=300_000))
    got, _ = _as_sharded(str(path), shard_bytes)
    assert got == _as_imported(str(path))
    assert any(m and "the line is longer than 300 bytes" in m for *_, m in got)


@pytest.mark.parametrize("shard_bytes", [50, 700, 1 << 30])
def test_shards_of_a_gzip_stream_read_what_the_import_reads(tmp_path: Path,
                                                            shard_bytes: int) -> None:
    path = tmp_path / "games.jsonl.gz"
    path.write_bytes(gzip.compress(_corpus()))
    got, count = _as_sharded(str(path), shard_bytes)
    assert got == _as_imported(str(path))
    if shard_bytes < path.stat().st_size:
        assert 1 < count <= batch.MAX_GZIP_SHARDS


@pytest.mark.parametrize("shard_bytes", [700, 1 << 30])
def test_a_gzip_stream_cut_off_gives_its_documents_then_the_failure(
        tmp_path: Path, shard_bytes: int) -> None:
    whole = gzip.compress(_corpus())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    expected = []
    with pytest.raises(InputError, match="cut off"):
        for p in iter_path(str(path), limits=LIMITS):
            expected.append((p.index, p.line, p.doc,
                             None if p.error is None else p.error.message))
    got, _ = _as_sharded(str(path), shard_bytes)
    assert len(expected) > 10
    assert got[:-1] == expected
    assert got[-1] == ("failure", "the gzip data is cut off before its end")


def test_a_file_that_is_not_json_lines_is_one_shard_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "array.json"
    path.write_text(json.dumps([{"a": 1}, {"b": 2}], indent=2))
    (source,) = batch.expand_sources([str(path)])
    (shard,) = batch.plan_file(source, 10, LIMITS)
    assert shard.mode == "whole"
    docs = [item.doc for item, _ in batch._documents(shard, LIMITS)
            if not isinstance(item, batch._Tail)]
    assert docs == [{"a": 1}, {"b": 2}]


def test_sources_expand_as_the_import_expands_folders_and_globs(tmp_path: Path) -> None:
    (tmp_path / "logs" / "deep").mkdir(parents=True)
    for name in ("b.jsonl", "a.json", "deep/c.jsonl.gz", "notes.txt"):
        (tmp_path / "logs" / name).write_bytes(b"{}\n")
    folder = [Path(s.url).name for s in batch.expand_sources([str(tmp_path / "logs")])]
    assert folder == ["a.json", "b.jsonl", "c.jsonl.gz"]
    glob = [Path(s.url).name for s in batch.expand_sources([str(tmp_path / "logs" / "*.json*")])]
    assert glob == ["a.json", "b.jsonl"]
    twice = batch.expand_sources([str(tmp_path / "logs"), str(tmp_path / "logs" / "b.jsonl")])
    assert len(twice) == 3  # a file named twice is read once
    url = batch.expand_sources([(tmp_path / "logs" / "b.jsonl").as_uri()])
    assert url[0].url == (tmp_path / "logs" / "b.jsonl").as_uri() and url[0].size == 3
    with pytest.raises(batch.BatchError, match="no such file or folder"):
        batch.expand_sources([str(tmp_path / "missing.jsonl")])
    with pytest.raises(batch.BatchError, match="not standard input"):
        batch.expand_sources(["-"])


def test_memory_urls_are_read_like_files(tmp_path: Path) -> None:
    fs = fsspec.filesystem("memory")
    fs.pipe("/archive/2026/games.jsonl", _corpus())
    try:
        (source,) = batch.expand_sources(["memory://archive/2026/*.jsonl"])
        assert source.url == "memory:///archive/2026/games.jsonl"
        (tmp_path / "same.jsonl").write_bytes(_corpus())
        for shard_bytes in (7, 333):
            shards = batch.plan_file(source, shard_bytes, LIMITS)
            got = [item.doc for s in shards for item, _ in batch._documents(s, LIMITS)
                   if not isinstance(item, batch._Tail)]
            assert got == [p.doc for p in iter_path(str(tmp_path / "same.jsonl"),
                                                    limits=LIMITS)]
    finally:
        fs.rm("/archive", recursive=True)
