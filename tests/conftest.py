"""Shared fixtures: real SQLite files under tmp_path, the Flask app, the CLI, games.

Games come from the simulator (complete, valid domino-log/1 documents), built on
demand so that a test names only what it needs: ``make_game(7)`` is the game of seed
"7", the same on every run.
"""

from __future__ import annotations

import copy
import faulthandler
import gzip
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, Phase, settings

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ("spilop", "classic", "kozel", "italian")

# Property tests run the same examples on every run (a fixed seed: CI is reproducible).
# Examples are kept small, so a failing test shrinks in seconds; one example that takes
# more than 15 s (a second or two is normal on a loaded machine) is a failure rather than
# something to wait for. HYPOTHESIS_PROFILE=explore draws new examples.
settings.register_profile(
    "recorder", derandomize=True, database=None, deadline=15_000, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("explore", parent=settings.get_profile("recorder"),
                          derandomize=False)
# Under mutation testing (docs/testing.md) a failing example only has to fail: shrinking
# it would cost each killed mutant seconds for a report nobody reads.
settings.register_profile("mutation", parent=settings.get_profile("recorder"),
                          phases=[Phase.explicit, Phase.reuse, Phase.generate],
                          print_blob=False)
settings.load_profile(os.environ.get(
    "HYPOTHESIS_PROFILE", "mutation" if "MUTANT_UNDER_TEST" in os.environ else "recorder"))


# ---------------------------------------------------------------------------------------
# Time limits. pytest-timeout fails a test past its limit (pyproject.toml) with a signal,
# and the suite goes on. A signal is handled only when the interpreter runs Python code:
# a loop inside the compiled engine (mypyc) or a C call never lets it, nor any Python
# thread. faulthandler's watchdog is a C thread that needs neither: past the limit and
# its grace, it writes every thread's stack (the looping test is on it) and ends the run
# with exit code 1. Failing the whole run is the price of never hanging it.

_STDERR: int | None = None


def backstop_after(limit: float) -> float:
    """When the watchdog ends the run: the limit, then time for the failed test's
    teardown (a server stopped, a browser page closed) after the signal failed it."""
    return limit + max(10.0, limit / 5)


def pytest_configure(config: pytest.Config) -> None:
    global _STDERR
    _STDERR = os.dup(2)  # the terminal's stderr, before tests capture fd 2


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> None:
    """Arm the watchdog beside pytest-timeout's own timer (which still runs: None)."""
    if settings.timeout and _STDERR is not None:
        faulthandler.dump_traceback_later(backstop_after(settings.timeout), exit=True,
                                          file=_STDERR)


@pytest.hookimpl(optionalhook=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> None:
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(autouse=True)
def _one_process_under_mutation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under mutation testing, commands that default to worker processes do the work in
    this process: mutmut learns which tests reach a function by tracing this process
    only, so work done in workers would leave the function's tests unknown to it."""
    if "MUTANT_UNDER_TEST" in os.environ:
        monkeypatch.setattr("recorder.pool.default_workers", lambda: 0)
        monkeypatch.setattr("recorder.cli_service.default_workers", lambda: 0)


def shared_folder() -> Path | None:
    """The project's shared reference folder (RULES.md, CONTRACT.md, the vectors), found
    beside this checkout or beside one of its parents (a worktree sits deeper); None
    where there is none. Under CI it is always there, so a test that needs it fails
    rather than skips."""
    for parent in ROOT.parents:
        candidate = parent / "shared"
        if (candidate / "vectors").is_dir():
            return candidate
    if os.environ.get("CI"):
        pytest.fail("shared/ is not beside the checkout; CI must compare with it")
    return None


# ---------------------------------------------------------------------------------------
# Games.


def make_game(
    seed: int | str,
    *,
    ruleset: str | dict[str, Any] | None = None,
    players: int | None = None,
    game_id: str | None = None,
    frontend: str | None = "test-frontend",
    started_at: str | None = None,
) -> dict[str, Any]:
    """A complete, valid game; seed, preset and player count vary with ``seed``.

    Every game has a frontend and a game_id unless asked otherwise (``frontend=None``
    removes the frontend; ``game_id=""`` removes the game_id).
    """
    from recorder.simulate import simulate_game

    n = int(seed) if str(seed).isdigit() else sum(map(ord, str(seed)))
    rules = ruleset if ruleset is not None else PRESETS[n % len(PRESETS)]
    count = players if players is not None else 2 + n % 3
    doc = simulate_game(rules, count, f"test-{seed}",
                        game_id=game_id if game_id is not None else f"game-{seed}")
    if game_id == "":
        doc.pop("game_id", None)
    if frontend is None:
        doc.pop("frontend", None)
    else:
        doc["frontend"] = {"name": frontend, "version": "1"}
    if started_at is not None:
        doc["started_at"] = started_at
    return doc


def break_game(doc: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``doc`` whose move 2 of round 1 is played out of turn (by the opener)."""
    bad = copy.deepcopy(doc)
    moves = bad["rounds"][0]["moves"]
    moves[1]["player"] = moves[0]["player"]
    return bad


def write_jsonl(path: Path, docs: list[dict[str, Any]], *, compress: bool = False) -> Path:
    """``docs`` as JSON Lines (gzip-compressed when asked)."""
    text = "".join(json.dumps(d) + "\n" for d in docs).encode()
    path.write_bytes(gzip.compress(text) if compress else text)
    return path


@pytest.fixture(scope="session")
def game_pool() -> list[dict[str, Any]]:
    """Forty games of mixed presets, built once per test run (tests copy what they change)."""
    return [make_game(i) for i in range(40)]


@pytest.fixture
def games(game_pool: list[dict[str, Any]]) -> Callable[[int], list[dict[str, Any]]]:
    """``games(n)``: deep copies of the first n pooled games."""

    def take(n: int) -> list[dict[str, Any]]:
        assert n <= len(game_pool)
        return copy.deepcopy(game_pool[:n])

    return take


# ---------------------------------------------------------------------------------------
# Database, app, CLI.


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "recorder.db"


@pytest.fixture
def db(db_path: Path) -> Iterator[Any]:
    from recorder import storage

    database = storage.connect(db_path)
    yield database
    database.close()


@pytest.fixture
def app(db_path: Path) -> Any:
    from webui import create_app

    return create_app({"TESTING": True, "DATABASE": str(db_path)})


@pytest.fixture
def client(app: Any) -> Any:
    return app.test_client()


@pytest.fixture
def token(db: Any) -> str:
    """A live upload token."""
    from recorder.tokens import create_token

    return create_token(db, "test-frontend")[1]


@pytest.fixture
def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def cli(db_path: Path) -> Callable[..., Result]:
    """``cli("import", path, ...)``: the ``recorder`` command on the test database."""
    from recorder.cli import main

    def run(*args: str, input: str | bytes | None = None) -> Result:
        env = {"RECORDER_DB": str(db_path)}
        return CliRunner().invoke(main, list(args), input=input, env=env,
                                  catch_exceptions=False)

    return run


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def export_rows(text: str) -> list[dict[str, Any]]:
    """The lines of a complete export (``format=jsonl|logs``), less its end line, which
    must be there and count them."""
    rows = json_lines(text)
    assert rows, "an export ends with its end line, even when empty"
    assert rows[-1] == {"ok": True, "end": True, "games": len(rows) - 1}, rows[-1]
    return rows[:-1]


STATS_TABLES = ("stats_players", "stats_rounds", "stats_hist", "stats_missed", "stats_people",
                "stats_seats")


def stats_counters(db_path: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every statistics table of a store, sorted, without row ids, floats rounded past their
    noise: what two stores that hold the same games must have alike, however they got them."""
    import sqlite3

    out = {}
    with sqlite3.connect(db_path) as conn:
        for table in STATS_TABLES:
            cur = conn.execute(f"SELECT * FROM {table}")
            names = [d[0] for d in cur.description]
            out[table] = sorted(
                tuple(round(v, 6) if isinstance(v, float) else v
                      for n, v in zip(names, row, strict=True) if n != "id")
                for row in cur)
    return out


# ---------------------------------------------------------------------------------------
# Real processes.


def subprocess_env(**extra: str) -> dict[str, str]:
    """The environment for a child ``python``: this checkout importable, no stray DB."""
    env = {k: v for k, v in os.environ.items() if k != "RECORDER_DB"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.update(extra)
    return env


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.1)
    raise TimeoutError(f"nothing listens on port {port} after {timeout}s")


class Servers:
    """``servers(db_path, threads=4, env=None, args=())`` runs waitress with the app as the
    production command does (its body limit the app's), ``args`` more of waitress's
    options; returns its URL.

    ``procs`` holds the server processes in start order, for tests that kill one.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.procs: list[subprocess.Popen[bytes]] = []

    def __call__(self, db: Path, *, threads: int = 4, env: dict[str, str] | None = None,
                 args: tuple[str, ...] = ()) -> str:
        port = free_port()
        log = open(self.folder / f"server-{port}.log", "wb")  # noqa: SIM115 (closed by the child)
        body_limit = (env or {}).get("RECORDER_MAX_CONTENT_LENGTH", str(32 * 1024 * 1024))
        proc = subprocess.Popen(
            [sys.executable, "-m", "waitress", "--host=127.0.0.1", f"--port={port}",
             f"--threads={threads}", f"--max-request-body-size={body_limit}", *args,
             "--call", "webui:create_app"],
            cwd=self.folder, env=subprocess_env(RECORDER_DB=str(db), **(env or {})),
            stdout=log, stderr=log,
        )
        log.close()
        self.procs.append(proc)
        wait_for_port(port, proc)
        return f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def start_server(tmp_path: Path) -> Iterator[Servers]:
    """``start_server(db_path, threads=4)`` runs waitress with the app; returns its URL."""
    servers = Servers(tmp_path)
    yield servers
    servers.stop()


# ---------------------------------------------------------------------------------------
# A real headless Chromium (Debian's), for the browser tests.
#
# Skipped only where Chromium is missing and CI is not set; under CI a missing browser
# is a failure, so no page can go untested there.

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]


def _browser_missing() -> str | None:
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return f"Chromium is not installed at {CHROMIUM}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    return None


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for a test module; each test opens its own pages."""
    missing = _browser_missing()
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing}; CI must run the browser tests")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


class BrowserPage:
    """A browser page that records every script error, console error and dialog it sees,
    so that a test of a page also fails on what the page did wrong on the side."""

    def __init__(self, browser: Any, viewport: dict[str, int] | None = None) -> None:
        self.page = browser.new_page(viewport=viewport or {"width": 1366, "height": 800})
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda exc: self.errors.append(f"pageerror: {exc}"))
        self.page.on("console", self._console)

        def dialog(d: Any) -> None:
            self.dialogs.append(d.message)
            d.dismiss()

        self.page.on("dialog", dialog)

    def _console(self, msg: Any) -> None:
        if msg.type == "error" and not str(msg.location.get("url", "")).endswith("favicon.ico"):
            self.errors.append(f"console: {msg.text} at {msg.location}")

    def open(self, url: str, ready: str = '#replay[data-ready="true"]') -> Any:
        """Go to ``url`` and wait until the page says it is drawn (the replay's, by default)."""
        self.page.goto(url)
        self.page.wait_for_selector(ready)
        return self.page

    def close(self) -> None:
        self.page.close()
        assert self.errors == []
        assert self.dialogs == []
