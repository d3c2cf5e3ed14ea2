"""Re-run the hostile-input attacks against a real ``recorder serve`` and print what each costs.

Each attack is the one the hardening was measured against, sent as a stranger would send
it, to a server on a temporary database (waitress, as in production). Printed per attack:
the status, the answer's size, the server's CPU seconds and the rise of its peak RSS for
that request (the peak is reset before each attack through ``/proc/PID/clear_refs``), beside
the figures measured before the hardening, and a verdict. A few variations the original
findings did not list follow (open redirects, header injection, huge numbers elsewhere).

    .venv/bin/python bench/attack.py            # all, about two minutes on an idle machine
    .venv/bin/python bench/attack.py --quick    # skips the slow-body and CLI bombs
    .venv/bin/python bench/attack.py --sweep    # and every GET address, hostile parameters

Linux only (reads ``/proc``). Exit 1 when an attack is not held.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
RECORDER = str(BIN / "recorder")
MiB = 1024 * 1024
SAMPLES = [json.loads(text) for text in
           (ROOT / "sample_games" / "classic-2p.jsonl").read_text().splitlines()]
SAMPLE = SAMPLES[0]


@dataclass
class Row:
    attack: str
    before: str
    now: str
    held: bool
    verdict: str = ""
    """Said instead of held / NOT HELD: "proxy" when only a reverse proxy can hold it."""


ROWS: list[Row] = []


class Server:
    """``recorder serve`` on a temporary database and a free port, watched through /proc."""

    def __init__(self, folder: Path, env: dict[str, str] | None = None) -> None:
        self.db = folder / "attack.db"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.env = {**os.environ, "RECORDER_DB": str(self.db), **(env or {})}
        self.log = open(folder / f"server-{self.port}.log", "wb")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [RECORDER, "serve", "--port", str(self.port), "--threads", "4", "--no-samples"],
            cwd=folder, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.5).close()
                return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError("the server did not start")

    def token(self, name: str, *args: str) -> str:
        out = subprocess.run([RECORDER, "token", "create", name, *args, "--db", str(self.db)],
                             capture_output=True, text=True, check=True, env=self.env)
        return out.stdout.strip().splitlines()[-1].strip()

    def cpu(self) -> float:
        fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_peak(self) -> int:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
        return 0

    def reset_peak(self) -> None:
        Path(f"/proc/{self.proc.pid}/clear_refs").write_text("5")

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None, timeout: float = 300) -> tuple[
                    int, bytes, dict[str, str], float, int]:
        """Status, answer, headers, server CPU seconds and peak RSS rise for one request."""
        self.reset_peak()
        base_rss, base_cpu = self.rss_peak(), self.cpu()
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        conn.close()
        return (resp.status, data, dict(resp.getheaders()), self.cpu() - base_cpu,
                self.rss_peak() - base_rss)

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


def game(n: int = 0, **changes: Any) -> dict[str, Any]:
    """The sample game ``n`` (each attack that may store a game takes its own), changed."""
    doc = json.loads(json.dumps(SAMPLES[n]))
    doc.update(changes)
    return doc


def line(doc: dict[str, Any]) -> bytes:
    return json.dumps(doc).encode() + b"\n"


def record(attack: str, before: str, figures: tuple[int, bytes, dict[str, str], float, int],
           held: bool, note: str = "") -> None:
    status, data, _, cpu, rss = figures
    now = f"{status}, {len(data):,} B, {cpu:.2f} s CPU, +{rss / MiB:.0f} MiB{note}"
    ROWS.append(Row(attack, before, now, held))


def code(data: bytes) -> str:
    try:
        return str(json.loads(data).get("error", {}).get("code"))
    except (ValueError, AttributeError):
        return "-"


def issue_findings(srv: Server, upload: str, own: str) -> None:
    """``upload`` is a stranger's token (frontend attacker-app), ``own`` the token of the
    frontend the sample game names, so its uploads reach the check an attack is about."""
    auth = {"Authorization": f"Bearer {own}"}
    stranger = {"Authorization": f"Bearer {upload}"}
    ones = gzip.compress(b"1\n" * 1_000_000, 9)
    gz = {**auth, "Content-Encoding": "gzip", "Content-Type": "application/x-ndjson"}
    r = srv.request("POST", "/api/games", ones, gz)
    record("1M documents in 2 KB gzip, POST /api/games", "65 s, 1.5 GB, 240 MB answer", r,
           r[0] == 413 and r[3] < 5, f" {code(r[1])}")
    r = srv.request("POST", "/api/frames?index=999999", ones, {"Content-Encoding": "gzip"})
    record("same body, /api/frames?index=N, no token", "51 s, 760 MB", r,
           r[0] in {400, 413} and r[3] < 5, f" {code(r[1])}")
    r = srv.request("POST", "/api/frames?index=3", ones, {"Content-Encoding": "gzip"})
    record("same body, /api/frames?index=3, no token", "51 s, 760 MB", r,
           r[0] < 500 and r[3] < 1, f" {code(r[1])}")
    long_game = line(game(game_id="frames-big"))
    r = srv.request("POST", "/api/frames?index=0", long_game)
    record("frames of a posted game, no token", "1,000 rounds: 2.8 s, 32 MB", r,
           r[0] == 200 and r[3] < 3)
    # 300 MiB announced, no token: refused on the headers, nothing spooled.
    sock = socket.create_connection(("127.0.0.1", srv.port), 30)
    start = time.monotonic()
    sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n"
                 % (300 * MiB) + b"x" * 65536)
    sock.settimeout(30)
    head = sock.recv(200).split(b"\r\n", 1)[0]
    sock.close()
    status = int(head.split()[1]) if head.startswith(b"HTTP/") else 0
    ROWS.append(Row("300 MiB body announced, no token", "spooled to disk, then 401",
                    f"{status} after {time.monotonic() - start:.2f} s, 64 KiB sent",
                    status == 413))
    paste = json.dumps(game(game_id="paste", pad="x" * 600_000))
    form = urllib.parse.urlencode({"log": paste}).encode()
    r = srv.request("POST", "/watch", form, {"Content-Type": "application/x-www-form-urlencoded"})
    record("/watch with 600 KB pasted", "413 'larger than 33554432 bytes'", r,
           r[0] != 413 and r[0] < 500)
    for query in ("/api/games?since=0001-01-01T00:00:00%2B01:00",
                  "/games?until=9999-12-31T23:59:59-01:00",
                  "/api/stats?since=0001-01-01T00:00:00%2B01:00",
                  "/api/stats/blocked?after=0001-01-01T00:00:00%2B01:00",
                  "/api/games/99999999999999999999999",
                  "/api/games/99999999999999999999999/frames",
                  "/games/99999999999999999999999",
                  "/api/games?cursor=99999999999999999999999"):
        r = srv.request("GET", query)
        record(f"GET {query}", "500", r, r[0] < 500)
    for name, doc in (("tile '²-3'", _tile("²-3")),
                      ("started_at 0001-01-01T00:00:00+01:00",
                       game(1, game_id="early", started_at="0001-01-01T00:00:00+01:00"))):
        r = srv.request("POST", "/api/games", line(doc), auth)
        record(f"upload with {name}", "500", r, r[0] < 500, f" {_report_code(r[1])}")
        r = srv.request("POST", "/api/frames", line(doc))
        record(f"/api/frames with {name}", "500", r, r[0] < 500)
    victim = line(game(game_id="victim-1", frontend={"name": "victim-app", "version": "1"}))
    r = srv.request("POST", "/api/games", victim, stranger)
    record("attacker's token stores victim-app's game", "stored as victim-app", r,
           r[0] == 403, f" {code(r[1])}")
    raw = line(game(2))[:-2] + b', "game_id": "other-id"}\n'
    r = srv.request("POST", "/api/games", raw, auth)
    record("duplicate key game_id in one log", "validated as one, stored as another", r,
           _report_code(r[1]) == "input/duplicate-key", f" {_report_code(r[1])}")
    same = [game(3, game_id="Look-Alike"), game(3, game_id="Look-Alike "),
            game(3, game_id="Look\u2010Alike"), game(3, game_id="\uff2cook-Alike"),
            game(3, game_id="Look-Alike", frontend={"name": "Recorder-Simulate ", "version": "1"}),
            game(3, game_id="Look-Alike", frontend={"name": "recorder\u2010simulate"})]
    stored = 0
    for doc in same:
        r = srv.request("POST", "/api/games", line(doc), auth)
        stored += _report_code(r[1]) == "accepted"
    ROWS.append(Row("one game as trailing space / U+2010 / fullwidth L / frontend's case",
                    "5 copies stored", f"{stored} of {len(same)} stored as new games",
                    stored == 1))
    twin = game(9)
    del twin["result"]["scores"]
    r = srv.request("POST", "/api/games", line(twin), auth)
    twin["rounds"][0]["moves"][0]["ms"] = float(twin["rounds"][0]["moves"][0]["ms"])
    twin["result"]["scores"] = None
    r = srv.request("POST", "/api/games", line(twin), auth)
    record("twin with ms: 233.0 and scores: null", "game/conflict", r,
           _report_code(r[1]) == "duplicate", f" {_report_code(r[1])}")
    partial = game(10)
    partial["rounds"] = partial["rounds"][:1]
    partial["rounds"][0]["moves"] = partial["rounds"][0]["moves"][:5]
    partial.pop("result", None)
    first = srv.request("POST", "/api/games", line(partial), auth)
    r = srv.request("POST", "/api/games", line(game(10)), auth)
    record("unfinished game, then its whole", "game/conflict", r,
           _report_code(first[1]) == "accepted" and _report_code(r[1]) == "superseded",
           f" {_report_code(first[1])}, then {_report_code(r[1])}")
    for gid in ("\u202egnp.exe", "   "):
        r = srv.request("POST", "/api/games", line(game(4, game_id=gid)), auth)
        record(f"game_id {gid!r}", "stored", r, _report_code(r[1]) not in {"accepted", "-"},
               f" {_report_code(r[1])}")


def _tile(tile: str) -> dict[str, Any]:
    doc = game(game_id="superscript")
    doc["rounds"][0]["moves"][0]["tile"] = tile
    return doc


def _report_code(data: bytes) -> str:
    """The outcome of the first document of an upload's answer."""
    try:
        answer = json.loads(data)
    except ValueError:
        return "-"
    if "error" in answer:
        return str(answer["error"].get("code"))
    games = (answer.get("data") or {}).get("games") or []
    if not games:
        return "-"
    first = games[0]
    return str((first.get("error") or {}).get("code") or first.get("status"))


def reads_need_token(folder: Path) -> None:
    srv = Server(folder, {"RECORDER_READS_NEED_TOKEN": "1"})
    try:
        for path in ("/", "/games?q=a", "/api/games", "/games/1"):
            r = srv.request("GET", path)
            record(f"READS_NEED_TOKEN, GET {path} without a token", "200 with every game",
                   r, r[0] in {302, 303, 401})
        for nxt in ("//evil.example/", "/\\evil.example", "/\t/evil.example",
                    "https://evil.example/", "/%2F/evil.example", "/\r\nSet-Cookie: x=1"):
            q = urllib.parse.urlencode({"next": nxt})
            r = srv.request("GET", f"/signin?{q}")
            leaked = b"evil.example" in r[1] and b'value="/' not in r[1]
            record(f"sign-in next={nxt!r}", "(variation)", r, r[0] == 200 and not leaked)
        reader = srv.token("dash", "--scope", "read")
        for nxt in ("//evil.example/", "/\t/evil.example", "/%5Cevil.example",
                    "/\r\nSet-Cookie: x=1", "/ /evil.example"):
            form = urllib.parse.urlencode({"token": reader, "next": nxt}).encode()
            r = srv.request("POST", "/signin", form,
                            {"Content-Type": "application/x-www-form-urlencoded",
                             "Sec-Fetch-Site": "same-origin"})
            where = r[2].get("Location", "")
            bad = where.startswith("//") or "evil.example" in urllib.parse.urlsplit(
                where.replace("\t", "").replace("\\", "/")).netloc or "\n" in where
            record(f"sign-in POST next={nxt!r} -> Location {where!r}", "(variation)", r,
                   r[0] < 500 and not bad)
        form = urllib.parse.urlencode({"token": reader}).encode()
        r = srv.request("POST", "/signin", form,
                        {"Content-Type": "application/x-www-form-urlencoded",
                         "Origin": "https://evil.example"})
        record("cross-site sign-in (login CSRF)", "(variation)", r, r[0] == 403)
    finally:
        srv.stop()


def stored_frames(folder: Path) -> None:
    """A stored game's frames had no byte cap (a frame holds every hand): on a server whose
    ``FRAMES_MAX_BYTES`` is 10 KB (``instance/config.py``), one game's are refused."""
    (folder / "instance").mkdir()
    (folder / "instance" / "config.py").write_text("FRAMES_MAX_BYTES = 10_000\n")
    srv = Server(folder)
    try:
        own = srv.token("simulator", "--scope", "upload", "--frontend", "recorder-simulate")
        srv.request("POST", "/api/games", line(game(11)), {"Authorization": f"Bearer {own}"})
        r = srv.request("GET", "/api/games/1/frames")
        record("frames of a stored game past FRAMES_MAX_BYTES (10 KB here)",
               "sent whatever their size", r, r[0] == 413, f" {code(r[1])}")
    finally:
        srv.stop()


def damaged_database(folder: Path) -> None:
    """Reads of a database file damaged under the running server (its bytes overwritten)."""
    srv = Server(folder)
    try:
        for name in ("attack.db-wal", "attack.db-shm"):
            (folder / name).unlink(missing_ok=True)
        with srv.db.open("r+b") as f:
            f.write(b"not a database any more " * 200)
        for path in ("/api/games", "/games"):
            r = srv.request("GET", path)
            record(f"GET {path} on a damaged database file", "500", r,
                   r[0] == 503 and b"Traceback" not in r[1], f" {code(r[1])}")
    finally:
        srv.stop()


def variations(srv: Server, upload: str, own: str) -> None:
    auth = {"Authorization": f"Bearer {own}"}
    r = srv.request("POST", "/api/frames?index=99999999999999999999999", line(SAMPLE))
    record("POST /api/frames?index=10**23", "(variation)", r, r[0] < 500)
    for query in ("/api/games?limit=99999999999999999999999",
                  "/api/games?limit=-1", "/api/games?after=99999999999999999999999",
                  "/api/games?since=%00", "/api/games?q=%ff%fe",
                  "/api/games?frontend=%E2%80%AE", "/api/stats?until=x",
                  "/api/stats/bonus?limit=1e400",
                  "/api/games/1/frames?index=99999999999999999999999",
                  "/games?page=99999999999999999999999"):
        r = srv.request("GET", query)
        record(f"GET {query}", "(variation)", r, r[0] < 500)
    for encoding in ("deflate", "br", "gzip, gzip", "x-gzip"):
        r = srv.request("POST", "/api/games", line(game(8, game_id=f"enc-{encoding}")),
                        {**auth, "Content-Encoding": encoding})
        record(f"Content-Encoding: {encoding} (plain body)", "(variation)", r, r[0] < 500)
    deep = b"[" * 100_000 + b"]" * 100_000
    r = srv.request("POST", "/api/games", deep, auth)
    record("100,000 nested arrays", "(variation)", r, r[0] < 500)
    r = srv.request("POST", "/api/frames", deep)
    record("100,000 nested arrays, /api/frames", "(variation)", r, r[0] < 500)
    big = game(game_id="big-numbers")
    big["rounds"][0]["moves"][0]["ms"] = 10 ** 4000
    r = srv.request("POST", "/api/games", line(big), auth)
    record("ms = 10**4000", "(variation)", r, r[0] < 500 and r[3] < 2,
           f" {_report_code(r[1])}")
    big = game(game_id="big-player")
    big["rounds"][0]["moves"][0]["player"] = 10 ** 30
    r = srv.request("POST", "/api/frames", line(big))
    record("player = 10**30, /api/frames", "(variation)", r, r[0] < 500)
    victim = line(game(game_id="victim-form", frontend={"name": "victim-app", "version": "1"}))
    boundary = "b0und"
    form = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n{upload}\r\n"
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; "
            f"filename=\"v.jsonl\"\r\nContent-Type: application/octet-stream\r\n\r\n").encode()
    form += victim + f"\r\n--{boundary}--\r\n".encode()
    r = srv.request("POST", "/upload", form,
                    {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    stored = srv.request("GET", "/api/games?frontend=victim-app")
    count = len(json.loads(stored[1]).get("games", []))
    record("attacker's token stores victim-app's game through the form", "(variation)", r,
           count == 0, f", victim-app now has {count}")


def form_bomb(srv: Server, own: str) -> None:
    """100 gzip files of 63 MiB of newlines each through the upload form: one budget."""
    blank = gzip.compress(b"\n" * (63 * MiB), 9)
    boundary = "b0und"
    parts = [f"--{boundary}\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n"
             f"{own}\r\n".encode()]
    for i in range(100):
        parts.append(f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; "
                     f"filename=\"{i}.jsonl.gz\"\r\nContent-Type: application/gzip\r\n\r\n"
                     .encode() + blank + b"\r\n")
    body = b"".join(parts) + f"--{boundary}--\r\n".encode()
    r = srv.request("POST", "/upload", body,
                    {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    record(f"100 gzip files of 63 MiB newlines ({len(body) / MiB:.1f} MiB) via the form",
           "40 s CPU; then 0.45 s, +195 MiB", r, r[0] < 500 and r[3] < 5 and r[4] < 100 * MiB)
    # one file of JSON Lines: was held whole, expanded, and every refused text again
    document = json.dumps({"pad": "x" * 7000}).encode() + b"\n"
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"token\"\r\n\r\n"
            f"{own}\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; "
            "filename=\"big.jsonl.gz\"\r\nContent-Type: application/gzip\r\n\r\n").encode()
    body += gzip.compress(document * 8000, 9) + f"\r\n--{boundary}--\r\n".encode()
    r = srv.request("POST", "/upload", body,
                    {"Content-Type": f"multipart/form-data; boundary={boundary}"})
    record(f"55 MiB of JSON Lines in a {len(body) // 1024} KiB gzip file via the form",
           "held whole: +288 MiB, 60 MB page", r, r[0] == 200 and r[4] < 64 * MiB)


def forged_addresses(srv: Server) -> None:
    """The replay limit (30 a minute) counted by a forged X-Forwarded-For would be no limit."""
    refused = 0
    for i in range(40):
        r = srv.request("POST", "/api/frames", line(SAMPLE),
                        {"X-Forwarded-For": f"10.0.{i // 250}.{i % 250}",
                         "Forwarded": f"for=10.1.0.{i}", "X-Real-IP": f"10.2.0.{i}"})
        refused += r[0] == 429
    ROWS.append(Row("40 replays, each with a new forged X-Forwarded-For", "(variation)",
                    f"{refused} answered 429", refused >= 10))


def token_guessing(srv: Server) -> None:
    """Uploads without a token and sign-ins with guessed ones, 40 of each from one address:
    only what a token opens is refused, and the refusals are rate-limited."""
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    body = line(SAMPLE)
    limited = sum(srv.request("POST", "/api/games", body)[0] == 429 for _ in range(40))
    ROWS.append(Row("40 uploads without a token (POST /api/games)", "40 answered 401",
                    f"{limited} answered 429", limited >= 10))
    limited = sum(srv.request("POST", "/signin", f"token=guess-{i}".encode(), form)[0] == 429
                  for i in range(40))
    ROWS.append(Row("40 sign-ins with guessed tokens", "40 answered 401",
                    f"{limited} answered 429", limited >= 30))


def chunked_body(srv: Server) -> None:
    """40 MiB sent chunked (no Content-Length) with no token: stopped at the body limit?"""
    sock = socket.create_connection(("127.0.0.1", srv.port), 30)
    sock.sendall(b"POST /api/frames HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n" % MiB + b" " * MiB + b"\r\n"
    sent = 0
    try:
        for _ in range(40):
            sock.sendall(chunk)
            sent += MiB
        sock.sendall(b"0\r\n\r\n")
    except OSError:
        pass
    sock.settimeout(30)
    try:
        head = sock.recv(200).split(b"\r\n", 1)[0]
    except OSError:
        head = b""
    sock.close()
    status = int(head.split()[1]) if head.startswith(b"HTTP/") else 0
    ROWS.append(Row("40 MiB chunked body, no token", "(variation)",
                    f"{status} after {sent / MiB:.0f} MiB sent", status == 413))


def idle_connections(srv: Server) -> None:
    """110 connections that never finish their headers: ``recorder serve`` holds 100 at
    most (``--connection-limit``) and counts none per address, but closes idle ones after
    ``--channel-timeout`` (30 s; waitress's own 120 s held them for two minutes)."""
    held = []
    try:
        for _ in range(110):
            sock = socket.create_connection(("127.0.0.1", srv.port), 5)
            sock.sendall(b"GET /api/games HTTP/1.1\r\nHost: x\r\n")
            held.append(sock)
        time.sleep(1)
        start = time.monotonic()
        try:
            probe = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=90)
            probe.request("GET", "/api/games")
            answer = f"{probe.getresponse().status} after {time.monotonic() - start:.1f} s"
            probe.close()
        except OSError:
            answer = f"no answer in {time.monotonic() - start:.0f} s"
    finally:
        for sock in held:
            sock.close()
    ROWS.append(Row("110 idle connections from one address, then a read",
                    "no answer in 10 s (held 120 s)",
                    f"{answer} (idle ones closed; per address: the proxy's job)",
                    answer.startswith("200"), "proxy" if answer.startswith("200") else ""))


SWEEP_VALUES = ["99999999999999999999999", "-1", "1e400", "%E2%80%AE", "%00", "%ff",
                "0001-01-01T00:00:00%2B01:00", "x" * 3000, "nan"]
SWEEP_PARAMS = ["since", "until", "limit", "cursor", "after", "page", "player", "variant",
                "rule", "preset", "frontend", "status", "blocked", "order", "format", "index",
                "round", "a", "b", "q", "next", "by", "seat", "group", "min_games", "level"]


def sweep(folder: Path) -> None:
    """Every GET address of the app, its path parts and each of a list of parameters
    given each hostile value, on a server with a few games and no rate limit: no 5xx."""
    srv = Server(folder, {"RECORDER_RATELIMIT_ENABLED": "0"})
    try:
        own = srv.token("simulator", "--scope", "upload", "--frontend", "recorder-simulate")
        srv.request("POST", "/api/games", b"".join(line(game(i)) for i in range(4)),
                    {"Authorization": f"Bearer {own}"})
        from webui import create_app  # the rules the server serves, read from the app

        os.environ["RECORDER_DB"] = str(srv.db)
        rules = [r.rule for r in create_app().url_map.iter_rules()
                 if "GET" in (r.methods or ()) and not r.rule.startswith("/static")]
        sent = failed = 0
        for rule in rules:
            for part in ("1", *SWEEP_VALUES[:3]):
                path = "".join(part if i % 2 else piece for i, piece in
                               enumerate(rule.replace(">", "<").split("<")))
                for name in SWEEP_PARAMS:
                    for value in SWEEP_VALUES:
                        sent += 1
                        failed += srv.request("GET", f"{path}?{name}={value}")[0] >= 500
        ROWS.append(Row(f"sweep: {len(rules)} GET addresses x parameters x hostile values",
                        "(variation)", f"{sent:,} requests, {failed} answered 5xx",
                        failed == 0))
    finally:
        srv.stop()


def slow_body(srv: Server) -> None:
    """A body sent one byte a second: does it hold a thread for long?"""
    sock = socket.create_connection(("127.0.0.1", srv.port), 30)
    sock.sendall(b"POST /api/frames HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n")
    sent, start = 0, time.monotonic()
    try:
        while time.monotonic() - start < 8:
            sock.sendall(b" ")
            sent += 1
            time.sleep(1)
        probe = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        probe.request("GET", "/api/games")
        ok = probe.getresponse().status == 200
        probe.close()
    finally:
        sock.close()
    ROWS.append(Row("slow body (1 B/s) while others read", "(variation)",
                    f"reads {'answered' if ok else 'starved'} after {sent} B in 8 s "
                    "(waitress buffers bodies before a thread takes them)", ok))


def cli_bomb(folder: Path) -> None:
    path = folder / "bomb.jsonl.gz"
    blank = gzip.compress(b"\n" * MiB, 9)
    with path.open("wb") as f:
        f.write(gzip.compress(line(game(5))))
        for _ in range(1024):
            f.write(blank)
        f.write(gzip.compress(line(game(6)) + line(game(7))))
    launcher = ("import resource,subprocess,sys;"
                "r=subprocess.run(sys.argv[1:],capture_output=True);"
                "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
                "r.stdout.count(b'\\n'))")
    out = subprocess.run([sys.executable, "-c", launcher, RECORDER, "validate", str(path)],
                         capture_output=True, text=True, check=True).stdout.split()
    rc, rss, lines = int(out[0]), int(out[1]) * 1024, int(out[2])
    ROWS.append(Row(f"recorder validate, 1 GiB of newlines in {path.stat().st_size:,} B .gz",
                    "1.05 GB RSS, exit 2, whole file refused",
                    f"exit {rc}, {rss / MiB:.0f} MiB peak, {lines} lines",
                    rss < 300 * MiB and lines >= 3))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="skip the slow body and CLI bomb")
    parser.add_argument("--sweep", action="store_true",
                        help="also every GET address with hostile parameters (minutes)")
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        srv = Server(folder)
        try:
            upload = srv.token("attacker-app", "--scope", "upload")
            own = srv.token("simulator", "--scope", "upload", "--frontend", "recorder-simulate")
            issue_findings(srv, upload, own)
            variations(srv, upload, own)
            if not args.quick:
                form_bomb(srv, own)
                forged_addresses(srv)
                chunked_body(srv)
                idle_connections(srv)
                slow_body(srv)
            token_guessing(srv)  # last: the address is then refused uploads for a minute
        finally:
            srv.stop()
        other = folder / "reads"
        other.mkdir()
        reads_need_token(other)
        capped = folder / "capped"
        capped.mkdir()
        stored_frames(capped)
        damaged = folder / "damaged"
        damaged.mkdir()
        damaged_database(damaged)
        if not args.quick:
            cli_bomb(folder)
        if args.sweep:
            swept = folder / "sweep"
            swept.mkdir()
            sweep(swept)
    width = max(len(r.attack) for r in ROWS)
    for r in ROWS:
        verdict = r.verdict or ("held" if r.held else "NOT HELD")
        print(f"{verdict:8}  {r.attack:{width}}  now: {r.now}   before: {r.before}")
    return 0 if all(r.held for r in ROWS) else 1


if __name__ == "__main__":
    sys.exit(main())
