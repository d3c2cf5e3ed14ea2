"""The seeded shuffle ``sha256-fy-1`` of the domino-log contract.

Every frontend, in any language, must reproduce the same deal from the same seed,
so this follows docs/format.md to the letter: a SHA-256 counter stream, rejection
sampling for ``below(n)`` and a Fisher-Yates shuffle from the canonical order.
The stream is an object the caller owns (no global random), so a redeal or a lot
continues exactly where the deal stopped.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import Final, TypeVar

T = TypeVar("T")

ALGORITHM: Final = "sha256-fy-1"
_WORDS: Final = struct.Struct(">8I")
_TWO32: Final = 1 << 32


class Stream:
    """The byte stream of a seed, read as big-endian 32-bit words."""

    __slots__ = ("_buf", "_k", "_pos", "_prefix")

    def __init__(self, seed: str) -> None:
        # the hash of "<seed>:" so far, copied for each block: cheaper than hashing
        # the prefix again (a deal hashes four blocks or so)
        self._prefix = hashlib.sha256(seed.encode("utf-8") + b":")
        self._k = 0
        self._buf: list[int] = []
        self._pos = 0

    def _fill(self, count: int) -> None:
        """Hash enough blocks that ``count`` more words are buffered."""
        buf = self._buf
        if self._pos:
            del buf[: self._pos]
            self._pos = 0
        k = self._k
        while len(buf) < count:
            block = self._prefix.copy()
            block.update(str(k).encode())
            buf.extend(_WORDS.unpack(block.digest()))
            k += 1
        self._k = k

    def u32(self) -> int:
        """The next 4 bytes of the stream as an unsigned big-endian integer."""
        if self._pos >= len(self._buf):
            self._fill(1)
        word = self._buf[self._pos]
        self._pos += 1
        return word

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, without modulo bias."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        limit = _TWO32 - (_TWO32 % n)
        x = self.u32()
        while x >= limit:
            x = self.u32()
        return x % n

    def __repr__(self) -> str:
        return f"Stream(<seed>, block={self._k}, word={self._pos})"


def shuffle(items: Sequence[T], stream: Stream) -> list[T]:
    """Fisher-Yates from the last index down, as the contract fixes it."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = stream.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return out
