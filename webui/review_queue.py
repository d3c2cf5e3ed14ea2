"""The service's reviews in the background: one worker thread, a bounded queue, one process.

``GET /api/games/<id>/review`` answers a stored review at once. A game without one is
put on this queue (at most ``REVIEW_QUEUE`` games waiting; a full queue is said, 503) and
the request waits up to ``REVIEW_BUDGET_SECONDS`` for it; a review not done by then is
answered as queued (202) with the rounds done so far, and the worker goes on with it.

The worker thread reviews a game round by round and stores each round as it is done
(``recorder.reviews``), so a poll shows progress and a restart loses at most the round in
hand. The search runs in one child process, not in the thread: the compiled solver holds
the interpreter's lock for as long as it searches, which would stall every other request
of this process. The child is started on the first review and kept (``spawn``: a forked
copy of a threaded server could inherit a lock held by another thread).

The child's work on one round is bounded by the settings' ``round_positions`` (all the
round's decisions together; docs/review.md, *Limits*), so a hostile stored game holds the
queue for at most its rounds times that bound, and the decisions past it are stored
unvalued (``unvalued: "round"``) rather than searched.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from recorder import reviews, storage
from recorder.pool import _worker_bootstrap
from recorder.review import Settings


@dataclass(eq=False)
class Job:
    """One game's review in the queue: waiting, then in hand, then done or failed."""

    game: int
    settings: Settings
    state: str = "queued"  # queued, running, done, failed
    rounds_done: int = 0
    rounds_total: int | None = None
    error: str | None = None
    finished: threading.Event = field(default_factory=threading.Event)

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the job to end; whether it did."""
        return self.finished.wait(max(0.0, seconds))


REVIEW_NICE = 10
"""How much lower the search process's priority is than the server's: a request is
answered before a review goes on."""


def _start_child(parent: int) -> None:
    """The search process's start: a lower priority, and a watch on the server."""
    with contextlib.suppress(AttributeError, OSError):  # not on every platform
        os.nice(REVIEW_NICE)
    _worker_bootstrap(parent, None, ())


def _plan(log_text: str) -> tuple[int, list[int], dict[str, Any] | None]:
    planned = reviews.plan_log(log_text)
    return planned.total, planned.plan.before, planned.plan.error


def _round(log_text: str, round_no: int, settings: Settings) -> tuple[int, int, bytes]:
    return reviews.plan_log(log_text).review(round_no, settings)


class ReviewQueue:
    """The queue of one database's reviews and the thread that works through it."""

    def __init__(self, db_path: str, size: int) -> None:
        self.db_path = db_path
        self.size = size
        self._jobs: dict[tuple[int, str], Job] = {}
        self._waiting: queue.Queue[Job] = queue.Queue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._pool: ProcessPoolExecutor | None = None

    def submit(self, game: int, settings: Settings) -> Job | None:
        """The job of this game's review: the one queued or in hand, else a new one;
        None when :attr:`size` games are waiting already."""
        key = (game, reviews.settings_key(settings))
        with self._lock:
            job = self._jobs.get(key)
            if job is not None:
                return job
            waiting = sum(1 for j in self._jobs.values() if j.state == "queued")
            if waiting >= self.size:
                return None
            job = Job(game, settings)
            self._jobs[key] = job
            self._waiting.put(job)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._work, daemon=True,
                                                name="recorder-reviews")
                self._thread.start()
            return job

    def position(self, job: Job) -> int:
        """How many games are ahead of ``job`` (0: in hand)."""
        with self._lock:
            if job.state != "queued":
                return 0
            ahead = [j for j in self._jobs.values() if j.state in ("queued", "running")]
            return ahead.index(job) if job in ahead else 0

    def queued(self) -> int:
        with self._lock:
            return sum(1 for j in self._jobs.values() if j.state == "queued")

    # -------------------------------------------------------------------- the worker
    def _work(self) -> None:
        db = storage.connect(self.db_path, migrate=False)
        try:
            while True:
                job = self._waiting.get()
                with self._lock:
                    job.state = "running"
                try:
                    self._review(db, job)
                    job.state = "done"
                except BrokenProcessPool:
                    self._pool = None  # started again for the next game
                    job.state, job.error = "failed", "the review's process stopped"
                except Exception as exc:  # said to the client; the worker goes on
                    job.state, job.error = "failed", f"the review failed: {exc}"
                finally:
                    with self._lock:
                        self._jobs.pop((job.game, reviews.settings_key(job.settings)), None)
                    job.finished.set()
        finally:  # pragma: no cover - a daemon thread ends with its process
            db.close()

    def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(
                1, mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_child, initargs=(os.getpid(),))
        return self._pool.submit(fn, *args).result()

    def _review(self, db: Any, job: Job) -> None:
        text = reviews.log_of(db, job.game)
        if text is None:
            raise LookupError(f"there is no game #{job.game}")
        have = reviews.load(db, job.game, job.settings)
        if have.complete:
            job.rounds_done = job.rounds_total = have.total or 0
            return
        total, _, error = self._run(_plan, text)
        if error is not None:
            raise ValueError(error.get("message", "the engine refuses this log"))
        job.rounds_total = total
        job.rounds_done = len(have.rounds)
        if total == 0:
            reviews.store_rounds(db, job.game, job.settings, 0, [])
            return
        for round_no in range(1, total + 1):
            if round_no in have.rounds:
                continue
            row = self._run(_round, text, round_no, job.settings)
            reviews.store_rounds(db, job.game, job.settings, total, [row])
            job.rounds_done += 1

    def close(self) -> None:
        """Stop the search process (the thread ends with the server).

        The process is terminated, not waited for: at exit Python joins the pool, which
        waits for the round under search (minutes for a long one), so Ctrl-C would not
        stop the server while a review runs."""
        pool, self._pool = self._pool, None
        if pool is not None:
            for process in list((getattr(pool, "_processes", None) or {}).values()):
                process.terminate()
            pool.shutdown(wait=False, cancel_futures=True)


def close_all() -> None:
    """Stop every queue's search process: the server is stopping."""
    with _queues_lock:
        for queue in _queues.values():
            queue.close()


_queues: dict[str, ReviewQueue] = {}
_queues_lock = threading.Lock()


def queue_for(db_path: str, size: int) -> ReviewQueue:
    """This process's queue for the database file ``db_path``."""
    with _queues_lock:
        found = _queues.get(db_path)
        if found is None:
            found = _queues[db_path] = ReviewQueue(db_path, size)
        found.size = size
        return found
