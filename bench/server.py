"""The production server (waitress with the app) on loopback, for the benchmarks that drive it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, *, threads: int = 4, extra: Sequence[str] = (),
                 timeout: float = 30) -> tuple[subprocess.Popen[bytes], str]:
    """waitress serving ``db`` on 127.0.0.1; returns the process and its URL once it listens.

    The child imports this checkout (``PYTHONPATH``) and no database named by the caller's
    environment, so a benchmark measures exactly the store it built; its rate limits are
    off unless the caller's environment sets ``RECORDER_RATELIMIT_ENABLED``.
    """
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "RECORDER_DB"}
    env["RECORDER_DB"] = str(db)
    # every client of a benchmark is on 127.0.0.1: the rate limits per address would
    # measure themselves, not the server
    env.setdefault("RECORDER_RATELIMIT_ENABLED", "0")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    proc = subprocess.Popen(
        [sys.executable, "-m", "waitress", "--host=127.0.0.1", f"--port={port}",
         f"--threads={threads}", *extra, "--call", "webui:create_app"],
        cwd=db.parent, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    proc.kill()
    raise TimeoutError("the server did not start")
