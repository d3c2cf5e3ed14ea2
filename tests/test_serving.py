"""How the service is served: ``recorder serve`` runs the app under waitress (not Flask's
development server) and stops on Ctrl-C; waitress refuses a body over the app's limit
before receiving it, in the documented production command too; and the answers waitress
makes itself carry the app's security headers (and its error envelope under /api)."""

from __future__ import annotations

import json
import re
import shlex
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import ROOT, free_port, subprocess_env, wait_for_port

MiB = 1 << 20
LOCKED = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy")


def raw(port: int, request: bytes, timeout: float = 20) -> tuple[int, dict[str, str], bytes]:
    """Send ``request`` as it is and read the answer: (status, headers, body). The body of
    a request is never sent here: a server that waits for it times out, and fails."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as conn:
        conn.sendall(request)
        answer = b""
        while b"\r\n\r\n" not in answer or not _complete(answer):
            chunk = conn.recv(65536)
            if not chunk:
                break
            answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:])}
    return status, headers, body


def _complete(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    match = re.search(rb"content-length:\s*(\d+)", head, re.IGNORECASE)
    return match is not None and len(body) >= int(match[1])


IGNORING_SIGINT = ("import os, signal, sys\n"
                   "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
                   "os.execv(sys.argv[1], sys.argv[1:])\n")
"""Becomes a command with SIGINT ignored, as a shell starts a background job (or as a
test run may have left it): the command inherits that, and Ctrl-C must still stop it."""


@pytest.fixture(params=["plain", "sigint-ignored"])
def served(tmp_path: Path, request: pytest.FixtureRequest
           ) -> Iterator[tuple[subprocess.Popen[bytes], int, Path]]:
    """``recorder serve`` on a free port, with its stderr kept in a file; started as it is,
    or by a parent that ignores SIGINT (then the signal goes to the server itself)."""
    port = free_port()
    err = tmp_path / "serve.err"
    command = [sys.executable, "-c", "from recorder.cli import main; main()", "serve",
               "--port", str(port), "--db", str(tmp_path / "r.db"), "--no-samples"]
    if request.param == "sigint-ignored":
        command = [sys.executable, "-c", IGNORING_SIGINT, *command]
    with open(err, "wb") as stderr:
        proc = subprocess.Popen(command, cwd=tmp_path, env=subprocess_env(),
                                stdout=subprocess.DEVNULL, stderr=stderr)
    try:
        wait_for_port(port, proc)
        yield proc, port, err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_recorder_serve_runs_waitress_and_ctrl_c_stops_it(
        served: tuple[subprocess.Popen[bytes], int, Path]) -> None:
    proc, port, err = served
    status, headers, body = raw(port, b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200 and json.loads(body)["ok"] is True
    assert headers["Server"] == "waitress"
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
    assert proc.wait(timeout=120) == 0  # a bound, not a speed: a loaded machine is slow to exit
    text = err.read_text()
    assert "waitress, 4 threads; Ctrl-C stops" in text
    assert "development server" not in text and "Traceback" not in text


def test_waitress_own_answers_carry_the_headers_and_the_envelope(
        served: tuple[subprocess.Popen[bytes], int, Path]) -> None:
    _, port, _ = served
    # a body over the app's limit: refused from its headers, before it is received
    status, headers, body = raw(
        port, b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (40 * MiB))
    assert status == 413
    assert headers["Content-Type"] == "application/json"
    assert json.loads(body) == {"ok": False, "status": 413, "error": {
        "code": "http/too-large", "message": "the request is larger than 32 MiB (33554432 "
        "bytes), the most this server takes in one request"}}
    assert all(name in headers for name in LOCKED), headers
    status, headers, body = raw(
        port, b"POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % (40 * MiB))
    assert status == 413 and headers["Content-Type"].startswith("text/plain")
    assert all(name in headers for name in LOCKED), headers
    # a malformed request, and headers over waitress's limit
    status, headers, body = raw(
        port, b"GET /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n")
    assert status == 400 and json.loads(body)["error"]["code"] == "http/bad-request"
    assert all(name in headers for name in LOCKED), headers
    status, headers, _ = raw(
        port, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 262_200 + b"\r\n\r\n")
    assert status == 431
    assert all(name in headers for name in LOCKED), headers


def documented_production_command() -> list[str]:
    """The waitress-serve command of docs/service.md's *Production*, as words."""
    text = (ROOT / "docs" / "service.md").read_text()
    production = text.split("## Production", 1)[1].split("\n## ", 1)[0]
    for block in production.split("```")[1::2]:
        command = block.replace("\\\n", " ")
        if "waitress-serve" in command:
            words = shlex.split(command.strip().splitlines()[0])
            return words[words.index("waitress-serve"):]
    raise AssertionError("docs/service.md shows no waitress-serve command for production")


def test_the_documented_production_command_refuses_a_large_body_unsent(tmp_path: Path) -> None:
    """300 MiB sent with no token were held on disk, then answered 401: the production
    command gave waitress no body limit, so it spooled up to 1 GiB a request first."""
    words = documented_production_command()
    assert "--max-request-body-size=33554432" in words
    port = free_port()
    args, rest = [], iter(words[1:])
    for word in rest:  # the documented command, on this machine's loopback
        if word in {"--host", "--port"}:
            next(rest)
        elif not word.startswith(("--host=", "--port=")):
            args.append(word)
    proc = subprocess.Popen(
        [sys.executable, "-m", "waitress", "--host=127.0.0.1", f"--port={port}", *args],
        cwd=tmp_path, env=subprocess_env(RECORDER_DB=str(tmp_path / "r.db")),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)
        # answered from the headers alone: a server that waits for the body times out
        status, _, _ = raw(port, b"POST /api/games HTTP/1.1\r\nHost: x\r\n"
                                 b"Content-Length: %d\r\n\r\n" % (300 * MiB))
        assert status == 413
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_ctrl_c_stops_the_server_while_a_review_is_being_computed(tmp_path: Path) -> None:
    """A replay opened queues its review; Ctrl-C must not wait for the round under search
    (an all-fives round takes minutes)."""
    db = tmp_path / "r.db"
    subprocess.run([sys.executable, "-c", "from recorder.cli import main; main()", "import",
                    "--db", str(db), str(ROOT / "sample_games" / "all-fives.jsonl")],
                   cwd=tmp_path, env=subprocess_env(), capture_output=True, check=True)
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", "from recorder.cli import main; main()", "serve", "--port",
         str(port), "--db", str(db), "--no-samples"],
        cwd=tmp_path, env=subprocess_env(), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)
        status, _, body = raw(port, b"GET /api/games/1/review HTTP/1.1\r\nHost: x\r\n\r\n")
        assert status == 202, body  # still being computed
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=10) == 0  # the search process is stopped, not waited for
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_recorder_serve_closes_an_idle_connection_after_its_channel_timeout(
        tmp_path: Path) -> None:
    """Idle connections were held 120 s, at most 100 of them: 110 from one address stopped
    the server for everyone. ``--channel-timeout`` and ``--connection-limit`` set both."""
    import time

    port = free_port()
    command = [sys.executable, "-c", "from recorder.cli import main; main()", "serve",
               "--port", str(port), "--db", str(tmp_path / "r.db"), "--no-samples",
               "--channel-timeout", "2", "--connection-limit", "5"]
    proc = subprocess.Popen(command, cwd=tmp_path, env=subprocess_env(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)
        with socket.create_connection(("127.0.0.1", port), timeout=30) as idle:
            idle.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")  # never finished
            start = time.monotonic()
            assert idle.recv(1) == b""  # closed by the server, no answer
            waited = time.monotonic() - start
        assert 1.5 <= waited < 20, waited
        # five connections are held at once, the sixth waits until one is closed
        held = [socket.create_connection(("127.0.0.1", port), timeout=30) for _ in range(5)]
        for sock in held:
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")
        time.sleep(0.5)
        start = time.monotonic()
        status, _, _ = raw(port, b"GET /api/games HTTP/1.1\r\nHost: x\r\n\r\n", timeout=30)
        assert status == 200
        assert time.monotonic() - start >= 1  # answered once the idle ones were closed
        for sock in held:
            sock.close()
    finally:
        proc.terminate()
        proc.wait(timeout=60)


def test_the_connection_limits_are_stated_once_with_the_code_s_defaults() -> None:
    from recorder.cli_service import serve_command
    from webui.serve import CHANNEL_TIMEOUT, CONNECTION_LIMIT

    defaults = {p.name: p.default for p in serve_command.params}
    assert defaults["connection_limit"] == CONNECTION_LIMIT
    assert defaults["channel_timeout"] == CHANNEL_TIMEOUT
    docs = (ROOT / "docs" / "service.md").read_text()
    section = docs.split("\n## Limits\n", 1)[1].split("\n## ", 1)[0]
    for flag, value in (("--connection-limit", CONNECTION_LIMIT),
                        ("--channel-timeout", CHANNEL_TIMEOUT)):
        rows = [r for r in section.splitlines() if r.startswith("| ") and f"serve {flag}`" in r]
        assert len(rows) == 1, flag
        assert rows[0].split("|")[4].strip().split(" ")[0] == str(value), rows[0]
