"""Worker processes for the per-document work of ``import``, ``replay`` and ``validate``.

The main process reads the input in order and cuts it into chunks; worker processes do
the slow part of each document (JSON parsing, the schema, the replay, the facts, the
rows) and send back plain data (tuples, lists, dicts, strings, numbers), which the main
process takes in input order: one writer, the same report order as one process.

Memory stays bounded whatever the input: at most a few chunks per worker are in flight,
and the next chunk is read only when the oldest result has been taken (an ordered
``map`` over the whole input would read all of it first).

``workers=0`` runs the work in this process, with nothing pickled: the same code path,
for debugging and where processes cannot be started.

With fewer workers than cores (``import --workers 1`` on two), the main process helps:
whenever the oldest result is not ready it computes the next chunk itself rather than
wait (``ordered_map(..., helping=True)``), so one worker and the writer keep both cores
busy, each taking the share of the work its own load leaves it.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

T = TypeVar("T")
R = TypeVar("R")

CHUNK_ITEMS = 16
"""Documents per chunk at most: enough that the cost of sending a chunk (a few hundred
microseconds) is small beside its work, few enough that workers stay evenly fed."""
CHUNK_BYTES = 512 * 1024
"""Bytes of input text per chunk at most, so that long games make smaller chunks."""
IN_FLIGHT_PER_WORKER = 4
"""Chunks queued per worker beyond the one it works on. The importer takes no result
while it commits a batch (64 games), so the queue must hold about a batch for the
workers to go on meanwhile: with 2 chunks a worker idled through every commit, and one
worker imported 15% slower. Memory still holds only a handful of chunks."""


class WorkerFailed(Exception):
    """A worker process stopped without answering (killed, or out of memory)."""


def default_workers() -> int:
    """The number of cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def start_method() -> str:
    """``fork`` on Linux (workers start in milliseconds, modules already loaded), else
    the platform's default (``spawn`` on macOS and Windows, where forking a process that
    uses system frameworks is unsafe: each worker imports the recorder)."""
    if sys.platform.startswith("linux"):
        return "fork"
    return multiprocessing.get_start_method()


ORPHAN_CHECK_SECONDS = 1.0
"""How often a worker looks whether the process that started it is still there."""


def _worker_bootstrap(parent: int, initializer: Callable[..., None] | None,
                  initargs: tuple[Any, ...]) -> None:
    """Each worker's start: the caller's ``initializer``, and a watch on its parent.

    A worker waits for chunks on a pipe whose other end it holds too (it was forked
    with it), so it never sees the end of its input: if the process that started it is
    killed (``kill -9`` of an import), nothing else would ever stop it.
    """
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="recorder-parent-watch").start()
    # a forked worker inherits its parent's collector as it was at the fork, and the
    # import's writer pauses it while it gathers a batch (when the first chunks are sent):
    # a worker starts with it running, as any process does, and pauses it where it may
    gc.enable()
    if initializer is not None:
        initializer(*initargs)


def _watch_parent(parent: int) -> None:
    while True:
        time.sleep(ORPHAN_CHECK_SECONDS)
        if os.getppid() != parent:  # adopted: the process that started us is gone
            os._exit(1)  # nobody is left to read what this worker would make


def chunked(items: Iterable[T], size_of: Callable[[T], int],
            max_items: int = CHUNK_ITEMS, max_bytes: int = CHUNK_BYTES) -> Iterator[list[T]]:
    """``items`` in lists of at most ``max_items`` and about ``max_bytes``, in order."""
    chunk: list[T] = []
    size = 0
    for item in items:
        chunk.append(item)
        size += size_of(item)
        if len(chunk) >= max_items or size >= max_bytes:
            yield chunk
            chunk, size = [], 0
    if chunk:
        yield chunk


class _Done:
    """A chunk's result computed in this process, waiting for its turn in the order; or
    the exception computing it raised, raised at its turn as a worker's would be."""

    __slots__ = ("error", "value")

    def __init__(self, value: Any, error: Exception | None = None) -> None:
        self.value = value
        self.error = error


def ordered_map(
    fn: Callable[[list[T]], R],
    chunks: Iterable[list[T]],
    workers: int,
    *,
    initializer: Callable[..., None] | None = None,
    initargs: tuple[Any, ...] = (),
    method: str | None = None,
    helping: bool = False,
) -> Iterator[R]:
    """``fn(chunk)`` for every chunk, in order, computed by ``workers`` processes.

    ``fn`` and ``initializer`` must be module-level functions (a spawned worker imports
    them); ``initializer(*initargs)`` runs once in each worker. With ``workers=0`` both
    run here. A worker that dies raises :class:`WorkerFailed`; the results taken before
    stay valid. Leaving the loop early cancels the chunks not started.

    ``helping``: whenever the oldest result is not ready, this process computes the next
    chunk itself instead of waiting (``initializer`` then runs here too, once), and keeps
    its result until its turn. For a caller with a core of its own left over (one worker
    on two cores): its own work per chunk is small, so it would idle most of the time,
    and computing while it would wait balances the two by itself, whatever each costs.
    """
    if workers <= 0:
        if initializer is not None:
            initializer(*initargs)
        for chunk in chunks:
            yield fn(chunk)
        return
    context = multiprocessing.get_context(method or start_method())
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_worker_bootstrap,
                               initargs=(os.getpid(), initializer, initargs))
    window: deque[Future[R] | _Done] = deque()
    limit = workers * (1 + IN_FLIGHT_PER_WORKER)
    in_flight = 0  # the window's futures: the workers' queue, kept full
    done_here = 0  # the window's results computed here: bounded like the queue
    started_here = False
    source = iter(chunks)
    more = True
    try:
        while True:
            while more and in_flight < limit:
                chunk = next(source, None)
                if chunk is None:
                    more = False
                else:
                    window.append(pool.submit(fn, chunk))
                    in_flight += 1
            if not window:
                break
            head = window[0]
            if helping and more and done_here < limit and isinstance(head, Future) \
                    and not head.done():
                chunk = next(source, None)
                if chunk is None:
                    more = False
                    continue
                if not started_here:
                    started_here = True
                    if initializer is not None:
                        initializer(*initargs)
                try:
                    window.append(_Done(fn(chunk)))
                except Exception as exc:
                    window.append(_Done(None, exc))
                done_here += 1
                continue
            window.popleft()
            if isinstance(head, _Done):
                done_here -= 1
                if head.error is not None:
                    raise head.error
                yield head.value
            else:
                in_flight -= 1
                yield head.result()
    except BrokenProcessPool as exc:
        raise WorkerFailed(
            "a worker process stopped without answering (was it killed, or out of "
            "memory?)") from exc
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
