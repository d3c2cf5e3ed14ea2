"""Every command does bounded work whatever the file holds: memory stays flat on a gzip
bomb of blank lines, and the documents around it are answered.

Run on real files in child processes, whose peak RSS the kernel reports (``getrusage``).
"""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game, subprocess_env

GiB = 1 << 30
MiB = 1 << 20


LAUNCHER = """\
import resource, subprocess, sys
code = subprocess.call(sys.argv[2:])
with open(sys.argv[1], "w") as f:
    f.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(code)
"""
"""Runs the command and writes the peak RSS of it and its children. The peak the kernel
keeps for a process starts at the RSS of the process that forked it (it survives exec),
so the command is forked from this small launcher, not from the test run (whose own size
would be counted: 441 MiB late in the whole suite)."""


def run_measured(args: list[str], cwd: Path) -> tuple[int, str, str, int]:
    """(exit code, stdout, stderr, peak RSS in bytes of the process and its children)."""
    out, err, peak = cwd / "out.txt", cwd / "err.txt", cwd / "peak.txt"
    with open(out, "wb") as stdout, open(err, "wb") as stderr:
        code = subprocess.call([sys.executable, "-c", LAUNCHER, str(peak), sys.executable,
                                "-c", "from recorder.cli import main; main()", *args],
                               cwd=cwd, env=subprocess_env(), stdout=stdout, stderr=stderr)
    return code, out.read_text(), err.read_text(), int(peak.read_text()) * 1024


@pytest.fixture(scope="module")
def newline_bomb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """A 1 MB ``.gz``: one game, 1 GiB of newlines, two more games.

    gzip members may follow each other in one file, so the gigabyte is one compressed
    MiB of newlines repeated: the file is written in milliseconds.
    """
    games = [make_game(seed) for seed in (11, 12, 13)]
    lines = [json.dumps(game).encode() + b"\n" for game in games]
    blank = gzip.compress(b"\n" * MiB, 9)
    path = tmp_path_factory.mktemp("bomb") / "bomb.jsonl.gz"
    with open(path, "wb") as f:
        f.write(gzip.compress(lines[0]))
        for _ in range(GiB // MiB):
            f.write(blank)
        f.write(gzip.compress(lines[1] + lines[2]))
    assert path.stat().st_size < 2 * MiB
    return path, games


FLAT = 300 * MiB
"""The most a command may take on the bomb: it holds three games (about 70 MB is a
command's own size); reading the gigabyte of newlines into memory took 1.05 GB."""


def test_import_of_a_newline_bomb_stays_flat_and_stores_the_three_games(
        newline_bomb: tuple[Path, list[dict[str, Any]]], tmp_path: Path) -> None:
    path, games = newline_bomb
    code, out, err, peak = run_measured(
        ["import", "--json", "--db", str(tmp_path / "r.db"), str(path)], tmp_path)
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert [(r["game_id"], r["status"]) for r in lines[:-1]] == \
        [(g["game_id"], "accepted") for g in games]
    assert lines[-1] == {"accepted": 3, "duplicate": 0, "superseded": 0, "refused": 0}
    assert [r["line"] for r in lines[:3]] == [1, GiB + 2, GiB + 3]
    assert peak < FLAT, f"peak RSS {peak / MiB:.0f} MiB"


@pytest.mark.parametrize("command", ["validate", "replay"])
def test_validate_and_replay_of_a_newline_bomb_stay_flat(
        newline_bomb: tuple[Path, list[dict[str, Any]]], tmp_path: Path, command: str) -> None:
    path, games = newline_bomb
    args = [command, "--json", str(path)] if command == "replay" else [command, str(path)]
    code, out, err, peak = run_measured(args, tmp_path)
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 3
    for line, game in zip(lines, games, strict=True):
        if command == "replay":
            assert json.loads(line)["game_id"] == game["game_id"]
            assert json.loads(line)["status"] == "finished"
        else:
            assert line.startswith(f"{game['game_id']}: ok")
    assert peak < FLAT, f"peak RSS {peak / MiB:.0f} MiB"


@pytest.mark.parametrize(("text", "expected"), [
    # (what the file holds, with B for more blank lines than the input limit, and what
    # comes out: a document's game_id, or "!" for a line refused)
    (b'{"game_id": "a"}\nB{"game_id": "b"}\n{"game_id": "c"}\n', ["a", "b", "c"]),
    (b'{"game_id": "a"}\nB', ["a"]),
    (b'B{"game_id": "a"}\n{"game_id": "b"}\n', ["a", "b"]),
    (b'{"game_id": \nB{"game_id": "b"}\n{"game_id": "c"}\n', ["!", "b", "c"]),
    (b'{"game_id":\nB"a"}\n', "too large"),
])
def test_blank_lines_beyond_the_input_limit_are_never_kept(
        tmp_path: Path, text: bytes, expected: list[str] | str) -> None:
    from recorder.errors import TooLarge
    from recorder.parse import Limits, iter_path

    limits = Limits(max_input_bytes=4096)
    path = tmp_path / "blank.jsonl"
    path.write_bytes(text.replace(b"B", b"\n \r\n\t\n" * 5000))
    if expected == "too large":
        with pytest.raises(TooLarge):
            list(iter_path(str(path), limits=limits))
        return
    got = ["!" if p.error else p.doc["game_id"] for p in iter_path(str(path), limits=limits)]
    assert got == expected


# ---------------------------------------------------------------------------------------
# Requests, on a real server (waitress, as in production).


def http(url: str, data: bytes | None = None, headers: dict[str, str] | None = None,
         method: str | None = None, timeout: float = 120) -> tuple[int, Any, bytes]:
    """(status, headers, body) of one request; error statuses are answers too."""
    request = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def multipart(fields: dict[str, str], files: list[tuple[str, str, bytes]]
              ) -> tuple[bytes, dict[str, str]]:
    """A multipart/form-data body as a browser sends a form: fields, then (field, file
    name, content) files."""
    boundary = "----recorder-test-boundary"
    parts = []
    for name, value in fields.items():
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'
                     .encode() + value.encode() + b"\r\n")
    for name, filename, content in files:
        parts.append(f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; '
                     f'filename="{filename}"\r\nContent-Type: application/octet-stream\r\n\r\n'
                     .encode() + content + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    return body, {"Content-Type": f"multipart/form-data; boundary={boundary}"}


def envelope_error(body: bytes, status: int) -> dict[str, Any]:
    """The error of an error envelope, checked whole."""
    answer = json.loads(body)
    assert answer["ok"] is False and answer["status"] == status, answer
    assert set(answer["error"]) >= {"code", "message"}
    return dict(answer["error"])


@pytest.fixture
def server(db_path: Path, start_server: Any) -> tuple[str, str]:
    """A waitress server on a new database, and an upload token for it."""
    from recorder import storage
    from recorder.tokens import create_token

    db = storage.connect(db_path)
    _, secret = create_token(db, "bounded", frontend="test-frontend")  # make_game's
    db.close()
    return start_server(db_path), secret


def stored_games(db_path: Path) -> int:
    from recorder import storage

    db = storage.connect(db_path)
    try:
        return int(db.execute("SELECT count(*) FROM games").fetchone()[0])
    finally:
        db.close()


ONES = gzip.compress(b"1\n" * 1_000_000, 9)
"""A 2 KB body of a million documents (the gunzip limit allowed 33 million): an upload of
it took 65 s and 1.5 GB and answered 240 MB; its frames took 51 s and 760 MB."""


def test_an_upload_of_a_million_documents_is_refused_before_any_is_read(
        server: tuple[str, str], db_path: Path) -> None:
    url, token = server
    assert len(ONES) < 5000
    status, _, body = http(f"{url}/api/games", ONES, {"Authorization": f"Bearer {token}"})
    assert status == 413
    error = envelope_error(body, 413)
    assert error["code"] == "input/too-many-documents"
    assert "more than 10,000 documents" in error["message"]
    assert stored_games(db_path) == 0
    # the limit itself is taken: 10,000 documents are read, and each answered
    status, _, body = http(f"{url}/api/games", gzip.compress(b"1\n" * 10_000),
                           {"Authorization": f"Bearer {token}"})
    assert status == 200
    assert json.loads(body)["data"]["summary"] == {"accepted": 0, "duplicate": 0,
                                                   "superseded": 0, "refused": 10_000}


@pytest.mark.parametrize("index", [0, 5, 999_999])
def test_frames_of_a_million_documents_are_refused_without_a_token(
        server: tuple[str, str], index: int) -> None:
    url, _ = server
    status, _, body = http(f"{url}/api/frames?index={index}", ONES)
    if index == 999_999:  # past the most a body may hold: refused before it is read
        assert status == 400
        error = envelope_error(body, 400)
        assert error["code"] == "query/invalid" and "between 0 and 9999" in error["message"]
        return
    assert status == 413
    assert envelope_error(body, 413)["code"] == "input/too-many-documents"


def test_the_watch_page_refuses_a_million_documents(server: tuple[str, str]) -> None:
    url, _ = server
    body, headers = multipart({"index": "3"}, [("file", "ones.jsonl.gz", ONES)])
    status, _, page = http(f"{url}/watch", body, headers)
    assert status == 413
    assert "more than 10,000 documents" in page.decode()
    assert 'id="log"' in page.decode()  # the form comes back, to try again


def long_log(moves: int) -> dict[str, Any]:
    """A game's log grown to at least ``moves`` moves by repeating its rounds (the frames
    limit is checked on the moves logged, before any replay)."""
    doc = make_game(21)
    rounds = doc["rounds"]
    while sum(len(r["moves"]) for r in doc["rounds"]) < moves:
        doc["rounds"] = doc["rounds"] + rounds
    return doc


def test_frames_of_a_log_not_stored_are_capped_by_moves(server: tuple[str, str]) -> None:
    """Anybody may send a log to be watched: 5,000 moves at most (a 20,000-move log took
    2.8 s of CPU and answered 32 MB)."""
    url, _ = server
    doc = long_log(5_001)
    text = json.dumps(doc).encode()
    status, _, body = http(f"{url}/api/frames", text)
    assert status == 413
    error = envelope_error(body, 413)
    assert error["code"] == "input/too-many-moves"
    assert "at most 5,000" in error["message"]
    form, headers = multipart({"index": "0"}, [("file", "long.json", text)])
    status, _, page = http(f"{url}/watch", form, headers)
    assert status == 413 and "too long to watch" in page.decode()
    short = json.dumps(make_game(21)).encode()
    status, _, body = http(f"{url}/api/frames", short)
    assert status == 200 and json.loads(body)["ok"] is True


def test_frames_of_a_log_not_stored_are_capped_by_size(db_path: Path, tmp_path: Path,
                                                       start_server: Any) -> None:
    """The answer is bounded too (WATCH_MAX_BYTES, set here in instance/config.py)."""
    (tmp_path / "instance").mkdir()
    (tmp_path / "instance" / "config.py").write_text("WATCH_MAX_BYTES = 100_000\n")
    url = start_server(db_path)
    doc = make_game(21)
    status, _, body = http(f"{url}/api/frames", json.dumps(doc).encode())
    assert status == 413
    error = envelope_error(body, 413)
    assert error["code"] == "frames/too-large"
    assert "at most 97.7 KiB is sent" in error["message"]


def test_the_watch_page_takes_what_its_own_button_sends(server: tuple[str, str]) -> None:
    """Pasted text up to MAX_FORM_MEMORY_SIZE (1 MiB), the most the upload report's
    "watch up to the error" button carries; Flask's default of 500,000 bytes refused
    more, saying "larger than 33554432 bytes"."""
    url, _ = server
    doc = make_game(22)
    text = json.dumps(doc, indent=1)
    text += " " * (700_000 - len(text))  # 700 KB: over Flask's 500,000, under 1 MiB
    form, headers = multipart({"log": text, "index": "0"}, [])
    status, _, page = http(f"{url}/watch", form, headers)
    assert status == 200, page[-2000:]
    assert "Watching game-22" in page.decode()
    form, headers = multipart({"log": text + " " * 400_000, "index": "0"}, [])
    status, _, page = http(f"{url}/watch", form, headers)
    assert status == 413
    assert ("The pasted log is larger than 1 MiB, the most the page takes pasted; "
            "choose the file instead (up to 32 MiB)") in page.decode()
    assert "33554432" not in page.decode()


def test_the_upload_form_takes_a_thousand_files_and_says_so_beyond(
        server: tuple[str, str], db_path: Path) -> None:
    url, token = server
    files = [("files", f"f{i}.json", b"{}") for i in range(1000)]
    form, headers = multipart({"token": token}, files)
    status, _, page = http(f"{url}/upload", form, headers)
    assert status == 200, page[-2000:]
    assert page.decode().count('data-status="refused"') == 1000
    for count in (1001, 1200):  # the view's count, and Flask's parts limit past it
        form, headers = multipart({"token": token}, [*files, *files][:count])
        status, _, page = http(f"{url}/upload", form, headers)
        assert status == 413, count
        assert "The form sends more than 1,000 files at once, the most it takes" in \
            page.decode()
    assert stored_games(db_path) == 0


def test_the_files_of_one_form_share_one_budget_of_expanded_bytes(
        server: tuple[str, str], db_path: Path) -> None:
    """100 gzip files of 63 MiB of newlines each (6.4 MB sent) cost 40 s of CPU: each was
    expanded in full. One request may expand to 64 MiB in all."""
    url, token = server
    blank = gzip.compress(b"\n" * (63 * MiB), 9)
    game = json.dumps(make_game(23)).encode()
    files = [("files", "game.json", game)] + \
        [("files", f"blank{i}.jsonl.gz", blank) for i in range(100)]
    form, headers = multipart({"token": token}, files)
    assert len(form) < 10 * MiB
    status, _, page = http(f"{url}/upload", form, headers)
    text = page.decode()
    assert status == 413
    assert "This upload holds more than one request may" in text
    assert text.count('data-file="blank') == 100  # every file is reported
    assert "the input holds only whitespace" in text  # the first blank file was read
    assert "the files of one upload may expand to 64 MiB together" in text  # the second
    assert text.count("not read: the files before it took this upload") == 98
    assert stored_games(db_path) == 1  # the game before them is stored


def test_every_limit_is_stated_once_in_the_docs_with_its_default() -> None:
    """docs/service.md's *Limits* holds one row for each setting of webui.limits, with the
    environment variable the code reads and the default the code has."""
    import re

    from conftest import ROOT

    from webui.limits import DEFAULTS, ENVIRONMENT

    docs = (ROOT / "docs" / "service.md").read_text()
    section = docs.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    for setting, default in DEFAULTS.items():
        mine = [r for r in rows if f"| `{setting}`" in r]
        assert len(mine) == 1, (setting, mine)
        cells = [c.strip() for c in mine[0].strip("|").split("|")]
        assert cells[2] == (f"`{ENVIRONMENT[setting]}`" if setting in ENVIRONMENT else "") \
            or cells[2].startswith(f"`{ENVIRONMENT.get(setting)}` ("), (setting, cells[2])
        if setting == "PARSE_LIMITS":
            from recorder.parse import DEFAULT_LIMITS
            default = DEFAULT_LIMITS.max_input_bytes
        shown = str(default).lower()
        assert cells[3].split(" ")[0].lower() == shown or cells[3].lower().startswith(shown), \
            (setting, cells[3], default)
    # and nowhere else in that file is a limit's default restated as a setting's row
    for setting in DEFAULTS:
        assert len(re.findall(rf"^\| `{setting}` \|", docs, re.MULTILINE)) <= 1, setting


def test_the_files_of_one_form_share_one_budget_of_documents(
        server: tuple[str, str]) -> None:
    url, token = server
    ones = b"1\n" * 6000
    form, headers = multipart({"token": token}, [("files", "a.jsonl", ones),
                                                 ("files", "b.jsonl", ones),
                                                 ("files", "c.jsonl", b"1\n")])
    status, _, page = http(f"{url}/upload", form, headers)
    text = page.decode()
    assert status == 413
    assert text.count('data-status="refused"') == 6000  # the first file, answered
    assert "the files of one upload may hold 10,000 documents together" in text
    assert "not read: the files before it took this upload&#39;s budget" in text


def _peak_rss(pid: int) -> int:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmHWM:"):
            return int(row.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/clear_refs").exists(), reason="reads Linux's /proc")
def test_a_form_post_is_streamed_not_held_whole(server: tuple[str, str], start_server: Any,
                                                db_path: Path) -> None:
    """A form's gzip file of 55 MiB of JSON Lines (7 KB documents, 62 KB sent) was held
    whole, expanded, and each refused document's text again for the report: the server's
    peak rose by about 200 MiB. Streamed like the command line's files, with the report's
    texts capped, the rise is bounded by the limits (a document, the texts' room)."""
    url, token = server
    pid = start_server.procs[-1].pid
    document = json.dumps({"pad": "x" * 7000}).encode() + b"\n"
    body = gzip.compress(document * 8000, 9)
    game = json.dumps(make_game(31)).encode() + b"\n"
    files = [("files", "big.jsonl.gz", body), ("files", "game.jsonl", game)]
    form, headers = multipart({"token": token}, files)
    assert len(form) < 100_000
    http(f"{url}/upload", *multipart({"token": token}, [("files", "w.json", b"{}")]))
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # the peak starts again from here
    base = _peak_rss(pid)
    status, _, page = http(f"{url}/upload", form, headers)
    rise = _peak_rss(pid) - base
    text = page.decode()
    assert status == 200, text[-2000:]
    assert text.count('data-status="refused"') == 8000  # every document answered
    assert text.count('data-status="accepted"') == 1  # and the file after it read
    assert text.count('name="log"') == 4 * MiB // (len(document) - 1)  # the texts' room
    assert stored_games(db_path) == 1
    assert rise < 48 * MiB, f"the peak rose by {rise / MiB:.0f} MiB"


def test_frames_of_one_line_parse_that_line_only(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    """Of JSON Lines only the two lines that tell the shape and the line asked for are
    parsed: the others are counted (a body of 5.9 KB walked 33 million documents)."""
    from recorder import parse
    from webui import create_app

    loaded: list[int] = []
    real = parse._load_line

    def counted(raw: bytes, number: int, offset: int, limits: Any) -> Any:
        loaded.append(number)
        return real(raw, number, offset, limits)

    monkeypatch.setattr(parse, "_load_line", counted)
    game = json.dumps(make_game(24))
    body = "".join(json.dumps({"n": i}) + "\n" for i in range(9000)).replace(
        '{"n": 8000}', game).encode()
    client = create_app({"TESTING": True, "DATABASE": str(tmp_path / "r.db")}).test_client()
    answer = client.post("/api/frames?index=8000", data=body)
    assert answer.status_code == 200
    assert answer.get_json()["data"]["game"]["game_id"] == "game-24"
    assert loaded == [1, 2, 8001]


@pytest.mark.browser
def test_the_report_button_watches_what_the_page_takes_pasted(
        browser: Any, server: tuple[str, str], tmp_path: Path) -> None:
    """Without JavaScript, a refused game's "Watch up to the error" posts its text; the
    watch page takes that text, up to the limit the report measured it by."""
    from conftest import break_game

    url, token = server
    doc = break_game(make_game(25))
    text = json.dumps(doc, indent=4)  # many line breaks, which the browser sends as CRLF
    text += "\n" * ((700_000 - len(text)) // 2) if len(text) < 700_000 else ""
    path = tmp_path / "refused.json"
    path.write_text(text)
    assert 500_000 < len(text) + text.count("\n") < MiB
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(f"{url}/upload")
    page.fill("#token", token)
    page.set_input_files("#files", [str(path)])
    with page.expect_navigation():
        page.click("#send")
    button = page.locator('tr[data-status="refused"] button')
    assert button.count() == 1
    with page.expect_navigation() as answer:
        button.click()
    assert answer.value is not None and answer.value.status == 200
    assert "round 1, move 2" in page.content()
    context.close()
