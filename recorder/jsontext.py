"""Compact JSON text, written by orjson where it gives the very bytes the stdlib gives.

Stored text must not depend on which writer made it: a game's identity is the SHA-256 of
its canonical text, and the JSON columns are what Datasette and the API show. The stdlib
(``json.dumps(..., separators=(",", ":"), ensure_ascii=False)``) defines that text;
orjson writes the same bytes several times faster for everything a log holds, with these
exceptions, each detected and handed back to the stdlib:

* floats below 1e-4: Python writes ``1e-05``, orjson ``0.00001`` or ``1e-7``. The output
  is searched for a digit before ``e-`` and for ``0.0000`` not after a digit;
* ``inf`` and ``nan``: Python writes ``Infinity`` and ``NaN``, orjson ``null``. Any
  ``null`` in orjson's output sends the value to the stdlib (logs rarely hold one);
* ints beyond 64 bits, keys that are not strings, lone surrogates: orjson refuses them.

A string that merely contains one of these patterns costs the slower path, nothing else.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import orjson

_NEGATIVE_EXPONENT: Final = re.compile(rb"[0-9]e-")
_TINY_DECIMAL: Final = re.compile(rb"(?<![0-9])0\.0000")
_SORTED: Final = orjson.OPT_SORT_KEYS


def stdlib_dumps(value: Any, *, sort_keys: bool = False) -> str:
    """The reference text: what every stored JSON text is, whoever writes it."""
    return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)


def fast_dumps(value: Any, *, sort_keys: bool = False) -> bytes | None:
    """orjson's UTF-8 text of ``value`` when it is certainly :func:`stdlib_dumps`'s, else None."""
    try:
        out = orjson.dumps(value, option=_SORTED if sort_keys else 0)
    except TypeError:  # orjson.JSONEncodeError: big ints, non-str keys, surrogates
        return None
    # Plain substring searches first (C speed); the patterns only where one is found.
    # (``0.0000`` has a dot: a search for one byte, memchr, spares most texts the longer one)
    if b"null" in out or (b"e-" in out and _NEGATIVE_EXPONENT.search(out)) or (
            b"." in out and b"0.0000" in out and _TINY_DECIMAL.search(out)):
        return None
    return out


def dumps_bytes(value: Any, *, sort_keys: bool = False) -> bytes:
    """:func:`stdlib_dumps` as UTF-8 bytes, by orjson when it gives the same bytes."""
    out = fast_dumps(value, sort_keys=sort_keys)
    if out is None:
        return stdlib_dumps(value, sort_keys=sort_keys).encode("utf-8")
    return out


def dumps(value: Any, *, sort_keys: bool = False) -> str:
    """:func:`stdlib_dumps`'s text, by orjson when it gives the same bytes."""
    out = fast_dumps(value, sort_keys=sort_keys)
    if out is None:
        return stdlib_dumps(value, sort_keys=sort_keys)
    return out.decode("utf-8")
