"""The cyclic garbage collector paused for work that makes no cycles.

The import's documents, facts and rows, and the solver's positions, value lists and
table, are trees that reference counting frees; the collector would only walk them
again and again as they pile up (a chunk's results, a batch's pending games, a
transposition table of hundreds of thousands of lists).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """The collector off for the stretch, and resumed as it was at the end; anything
    cyclic made meanwhile (a caught error's traceback) is collected then. Nested
    pauses resume once, at the outermost."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
