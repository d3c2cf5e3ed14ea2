"""Never a 500 for bad input, on a real server (waitress, as in production): dates past
the calendar's ends once in UTC, numbers past SQLite's INTEGER, exports whose reading
fails, a full disk under the upload form.

Each request here answered 500 before (an OverflowError, an error SQLite raised binding
the number, waitress's own text/plain 500, "this is a bug in the recorder").
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from conftest import export_rows, json_lines, make_game, subprocess_env
from test_bounded import envelope_error, http, multipart

from recorder import storage
from recorder.ingest import import_upload
from recorder.tokens import create_token

EARLY = "0001-01-01T00:00:00+01:00"  # year 0 once in UTC
LATE = "9999-12-31T23:59:59-01:00"  # year 10000 once in UTC
HUGE = "99999999999999999999999"  # more than SQLite's INTEGER holds


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A database of six games, two of them with a start date."""
    db_path = tmp_path_factory.mktemp("no500") / "library.db"
    db = storage.connect(db_path)
    docs = [make_game(i, started_at="2026-11-29T18:00:00Z" if i < 2 else None)
            for i in range(6)]
    import_upload(db, "".join(json.dumps(d) + "\n" for d in docs).encode())
    db.close()
    return db_path


@pytest.fixture
def site(library: Path, tmp_path: Path, start_server: Any) -> tuple[str, str, Path]:
    """A server on a copy of the library, with an upload token."""
    db_path = tmp_path / "copy.db"
    db_path.write_bytes(library.read_bytes())
    db = storage.connect(db_path)
    _, secret = create_token(db, "no500", frontend="test-frontend")
    db.close()
    return start_server(db_path), secret, db_path


DATED = ["/api/games", "/games", "/", "/api/stats", "/api/stats/bonus", "/api/stats/blocked",
         "/api/stats/players", "/api/stats/players/p0"]


def bad_queries() -> list[str]:
    out = []
    for url in DATED:
        for name, value in (("since", EARLY), ("until", LATE), ("since", LATE),
                            ("until", EARLY)):
            out.append(f"{url}?{name}={quote(value)}")
    for url in ("/games", "/"):  # keyset cursors of the games list
        out += [f"{url}?after={quote(EARLY)},3", f"{url}?before={quote(LATE)},3",
                f"{url}?after=2026-11-29T18:00:00Z,{HUGE}",
                f"{url}?sort=rounds&after={HUGE},1", f"{url}?sort=moves&before=-{HUGE},1",
                f"{url}?after=2026-11-29T18:00:00Z,{quote('²')}"]
    out += [f"/api/games/{HUGE}", f"/api/games/{HUGE}/log", f"/api/games/{HUGE}/frames",
            f"/games/{HUGE}", f"/api/games?cursor={HUGE}", f"/api/games?cursor={HUGE}9",
            f"/api/games?players={HUGE}", f"/api/games?limit={HUGE}",
            f"/api/games?format=jsonl&cursor={HUGE}", "/api/games?cursor=" + "9" * 5000]
    return out


def test_no_query_or_address_out_of_range_is_a_500(site: tuple[str, str, Path]) -> None:
    url, _, _ = site
    for path in bad_queries():
        status, headers, body = http(url + path)
        assert status in {400, 404}, (path, status, body[:300])
        if path.startswith("/api/"):
            assert headers["Content-Type"] == "application/json", path
            error = envelope_error(body, status)
            assert error["code"] in {"query/invalid", "http/not-found"}, (path, error)
        else:
            assert headers["Content-Type"].startswith("text/html"), path


def test_a_date_out_of_range_is_named(site: tuple[str, str, Path]) -> None:
    url, _, _ = site
    status, _, body = http(f"{url}/api/games?since={quote(EARLY)}")
    assert envelope_error(body, 400)["message"] == (
        f"since must fall between the years 0001 and 9999 once in UTC, as every stored "
        f"date does; {EARLY!r} does not")
    status, _, body = http(f"{url}/games?until={quote(LATE)}")
    assert status == 400 and "until must fall between the years 0001 and 9999" in \
        body.decode()


@pytest.mark.parametrize("query", ["since=9999-12-31", "until=0001-01-01",
                                   "since=9999-12-02&until=9999-12-31",
                                   "since=0001-01-01&until=0001-01-30"])
def test_the_statistics_take_every_date_of_the_calendar(site: tuple[str, str, Path],
                                                        query: str) -> None:
    url, _, _ = site
    for path in ("/api/stats/bonus", "/api/stats/blocked", "/api/stats/players",
                 "/api/stats/players/p0"):
        status, _, body = http(f"{url}{path}?{query}")
        assert status in {200, 404}, (path, query, body[:300])
        assert json.loads(body)["ok"] is (status == 200)


def test_a_start_date_out_of_range_dates_nothing_and_the_log_is_valid(
        site: tuple[str, str, Path], tmp_path: Path) -> None:
    """validate and the service agree: a log whose started_at cannot be written in UTC is
    valid (the field is informative); the service keeps it and dates the game by its
    import, as for any started_at that is not a date-time."""
    url, token, _ = site
    docs = [make_game(40 + i, started_at=moment) for i, moment in enumerate((EARLY, LATE))]
    path = tmp_path / "dated.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    validate = subprocess.run(
        [sys.executable, "-c", "from recorder.cli import main; main()", "validate", str(path)],
        capture_output=True, text=True, env=subprocess_env(), check=False)
    assert validate.returncode == 0, validate.stderr
    assert [line.split(": ")[1][:2] for line in validate.stdout.splitlines()] == ["ok", "ok"]
    for doc in docs:
        text = json.dumps(doc).encode()
        status, _, body = http(f"{url}/api/frames", text)
        assert status == 200, body[:300]
        assert json.loads(body)["data"]["game"]["started_at"] is None
        form, headers = multipart({"log": text.decode(), "index": "0"}, [])
        status, _, page = http(f"{url}/watch", form, headers)
        assert status == 200 and "Watching" in page.decode()
    status, _, body = http(f"{url}/api/games", path.read_bytes(),
                           {"Authorization": f"Bearer {token}"})
    assert status == 200, body[:300]
    reports = json.loads(body)["data"]["games"]
    assert [r["status"] for r in reports] == ["accepted", "accepted"]
    for report, doc in zip(reports, docs, strict=True):
        _, _, body = http(f"{url}/api/games/{report['id']}")
        game = json.loads(body)["data"]
        assert game["started_at"] is None
        assert game["played_at"] == game["imported_at"]
        assert game["log"]["started_at"] == doc["started_at"]  # kept as it was sent


def test_timestamps_before_the_year_1000_sort_as_text() -> None:
    assert storage.normalize_timestamp("0999-01-01T00:00:00+00:00") == "0999-01-01T00:00:00Z"
    assert storage.normalize_timestamp("0999-01-01") < storage.normalize_timestamp("2026-01-01")


# ---------------------------------------------------------------------------------------
# Streamed exports.


def corrupt_game_page(db_path: Path, game_id: str) -> None:
    """Damage the b-tree page that holds the games row of ``game_id`` (its page type),
    so that SQLite fails when a scan reaches it: a disk that went bad under the file."""
    db = storage.connect(db_path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = int(db.execute("PRAGMA page_size").fetchone()[0])
    db.close()
    data = bytearray(db_path.read_bytes())
    # the row's game_id column (the log itself is kept compressed): the first place the
    # id stands on a table's leaf page (an index's pages hold it too)
    pages = [at // page_size for at in _places(data, game_id.encode())]
    page = next(page for page in pages if data[page * page_size] == 0x0D)
    data[page * page_size] = 0x00
    db_path.write_bytes(bytes(data))


def _places(data: bytes, text: bytes) -> list[int]:
    """Every place ``text`` stands in ``data`` (the tests' six ids are no prefix of
    another)."""
    out, at = [], data.find(text)
    while at >= 0:
        out.append(at)
        at = data.find(text, at + 1)
    return out


def exported(url: str, query: str) -> tuple[int, str, list[dict[str, Any]]]:
    status, headers, body = http(f"{url}/api/games?{query}")
    return status, headers["Content-Type"], json_lines(body.decode())


@pytest.mark.parametrize("fmt", ["logs", "jsonl"])
def test_a_complete_export_ends_with_its_end_line(site: tuple[str, str, Path],
                                                  fmt: str, tmp_path: Path) -> None:
    url, _, _ = site
    status, _, body = http(f"{url}/api/games?format={fmt}")
    assert status == 200
    rows = export_rows(body.decode())
    assert len(rows) == 6
    status, _, body = http(f"{url}/api/games?format={fmt}&preset=nothing-like-it")
    assert status == 200 and body == b'{"ok":true,"end":true,"games":0}\n'
    if fmt == "logs":  # and reads back: the end line is not a document
        path = tmp_path / "export.jsonl"
        status, _, body = http(f"{url}/api/games?format=logs")
        path.write_bytes(body)
        result = subprocess.run(
            [sys.executable, "-c", "from recorder.cli import main; main()", "import",
             "--json", "--db", str(tmp_path / "again.db"), str(path)],
            capture_output=True, text=True, env=subprocess_env(), check=False)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout.splitlines()[-1]) == \
            {"accepted": 6, "duplicate": 0, "superseded": 0, "refused": 0}


@pytest.mark.parametrize("fmt", ["logs", "jsonl"])
def test_an_export_that_fails_before_its_first_line_is_the_error_envelope(
        library: Path, tmp_path: Path, start_server: Any, fmt: str) -> None:
    db_path = tmp_path / "bad.db"
    db_path.write_bytes(library.read_bytes())
    first = json.loads(storage.log_text(storage.connect(library).execute(
        "SELECT log FROM games ORDER BY id LIMIT 1").fetchone()[0]))["game_id"]
    corrupt_game_page(db_path, first)
    url = start_server(db_path)
    status, content_type, lines = exported(url, f"format={fmt}")
    assert status == 503  # the database failed: not a bug of the recorder
    assert content_type == "application/json"
    assert len(lines) == 1 and lines[0]["ok"] is False and lines[0]["status"] == 503
    assert lines[0]["error"]["code"] == "storage/failed"
    assert lines[0]["error"]["message"].startswith("the database could not be read (")


@pytest.mark.parametrize("fmt", ["logs", "jsonl"])
def test_an_export_that_fails_midway_ends_with_the_error_not_the_end_line(
        library: Path, tmp_path: Path, start_server: Any, fmt: str) -> None:
    db_path = tmp_path / "bad.db"
    db_path.write_bytes(library.read_bytes())
    ids = [json.loads(storage.log_text(r[0]))["game_id"] for r in storage.connect(library).execute(
        "SELECT log FROM games ORDER BY id")]
    corrupt_game_page(db_path, ids[4])
    url = start_server(db_path)
    status, content_type, lines = exported(url, f"format={fmt}")
    assert status == 200  # sent before the failure: the status cannot change
    assert content_type == "application/x-ndjson"
    assert 1 <= len(lines) - 1 <= 4  # some games, then the error
    assert all("end" not in line for line in lines)
    assert lines[-1]["ok"] is False and lines[-1]["status"] == 500
    assert lines[-1]["error"]["code"] == "http/internal"
    assert f"after {len(lines) - 1} games of this export, which is incomplete" in \
        lines[-1]["error"]["message"]
    key = "game_id"
    assert [line[key] for line in lines[:-1]] == ids[: len(lines) - 1]


# ---------------------------------------------------------------------------------------
# The upload form on a full disk.


def test_the_upload_form_on_a_full_disk_says_the_storage_failed(
        tmp_path: Path, start_server: Any) -> None:
    db_path = tmp_path / "full.db"
    db = storage.connect(db_path)
    _, token = create_token(db, "no500", frontend="test-frontend")
    db.close()
    limit = db_path.stat().st_size + 8 * 4096
    url = start_server(db_path, env={"RECORDER_MAX_DB_BYTES": str(limit)})
    games = "".join(json.dumps(make_game(60 + i)) + "\n" for i in range(24)).encode()
    form, headers = multipart({"token": token}, [("files", "games.jsonl", games),
                                                 ("files", "more.jsonl", games)])
    status, _, page = http(f"{url}/upload", form, headers)
    text = page.decode()
    assert status == 503
    assert "The database failed, so the upload stopped" in text
    assert "database or disk is full" in text and "make room" in text
    assert "this is a bug in the recorder" not in text
    assert "not read: the database failed on a file before it" in text
    assert str(tmp_path) not in text


def test_a_stream_refuses_a_bad_limit_as_the_pages_do(site: tuple[str, str, Path]) -> None:
    """Found by the long fuzz: a stream sends every match, but a limit out of its range is
    still a bad value, said as for a page."""
    url, _, _ = site
    status, _, body = http(f"{url}/api/games?format=jsonl&limit=2792")
    assert status == 400
    assert envelope_error(body, 400)["message"] == "limit must be between 1 and 1000, not 2792"


@pytest.mark.parametrize("damage", ["corrupt", "unreadable"])
def test_a_database_that_fails_under_a_read_is_a_503_not_a_500(
        site: tuple[str, str, Path], damage: str) -> None:
    """A damaged database file (its bytes overwritten, or a folder where it was, which
    nobody can open as a file, root included) answered every read 500: a failure of the
    storage, not a bug, and not the visitor's doing."""
    url, _, db_path = site
    assert http(f"{url}/api/games")[0] == 200
    for name in ("copy.db-wal", "copy.db-shm"):
        (db_path.parent / name).unlink(missing_ok=True)
    if damage == "corrupt":
        with db_path.open("r+b") as f:
            f.write(b"this is not a database file, though it was one" * 100)
    else:
        db_path.rename(db_path.with_suffix(".moved"))
        db_path.mkdir()
    try:
        for path in ("/api/games", "/api/games/1", "/api/stats", "/api/games/1/frames"):
            status, headers, body = http(f"{url}{path}")
            assert status == 503, (path, status, body[:300])
            error = envelope_error(body, 503)
            assert error["code"] == "storage/failed", path
            assert "the database could not be read" in error["message"]
            assert "Traceback" not in body.decode()
            assert headers["Retry-After"] == "30"
        for path in ("/", "/games", "/games/1"):  # (the stats page reads by its script)
            status, headers, body = http(f"{url}{path}")
            assert status == 503, (path, status, body[:300])
            page = body.decode()
            assert headers["Content-Type"].startswith("text/html"), path
            assert "The database could not be read" in page and "Traceback" not in page
    finally:
        if db_path.is_dir():
            db_path.rmdir()
