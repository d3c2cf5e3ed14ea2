"""Tiles and tile sets.

A tile parses from its text (``"6-3"``) and writes back to it; ``6-3`` and ``3-6``
are the same tile, but the written order is kept because the opening tile lies
with its first written half on the left.

Inside the engine a tile set is numbered: each *kind* (``3-6``) has an index in
the canonical order of docs/format.md, and each *physical* tile (one of the two
``3-6`` of a double set) has an index too, so hands are plain integer bit masks.
That keeps "can this hand play on these ends?" to one ``&``, which is what makes
replay fast.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

TILE_RE = re.compile(r"^(\d{1,2})-(\d{1,2})$")
SET_NAMES = {6: "double-six", 9: "double-nine", 12: "double-twelve"}


@dataclass(frozen=True, slots=True)
class Tile:
    """A tile as written: ``Tile(6, 3)`` is ``"6-3"`` and equals ``Tile(3, 6)``."""

    a: int
    b: int

    @classmethod
    def parse(cls, text: str) -> Tile:
        m = TILE_RE.match(text)
        if not m:
            raise ValueError(f'{text!r} is not a tile; write tiles as "a-b", like "6-3"')
        return cls(int(m.group(1)), int(m.group(2)))

    @property
    def low(self) -> int:
        return min(self.a, self.b)

    @property
    def high(self) -> int:
        return max(self.a, self.b)

    @property
    def pips(self) -> int:
        return self.a + self.b

    @property
    def is_double(self) -> bool:
        return self.a == self.b

    def normalized(self) -> str:
        """The canonical text, low half first: ``"3-6"``."""
        return f"{self.low}-{self.high}"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tile):
            return NotImplemented
        return (self.low, self.high) == (other.low, other.high)

    def __hash__(self) -> int:
        return hash((self.low, self.high))

    def __str__(self) -> str:
        return f"{self.a}-{self.b}"


class TileSet:
    """The numbered tiles of one set size: masks and lookups the engine shares.

    Build it with :func:`tile_set`, which caches one instance per size.
    """

    def __init__(self, max_pip: int, sets: int) -> None:
        self.max_pip = max_pip
        self.sets = sets
        self.name = SET_NAMES.get(max_pip, f"double-{max_pip}")
        lo: list[int] = []
        hi: list[int] = []
        for a in range(max_pip + 1):
            for b in range(a, max_pip + 1):
                lo.append(a)
                hi.append(b)
        self.kinds = len(lo)
        self.kind_lo = tuple(lo)
        self.kind_hi = tuple(hi)
        self.kind_pips = tuple(a + b for a, b in zip(lo, hi, strict=True))
        self.kind_name = tuple(f"{a}-{b}" for a, b in zip(lo, hi, strict=True))
        self.kind_is_double = tuple(a == b for a, b in zip(lo, hi, strict=True))
        self.size = self.kinds * sets
        #: kind of each physical tile; the canonical order repeated ``sets`` times
        self.phys_kind = tuple(p % self.kinds for p in range(self.size))
        self.full_mask = (1 << self.size) - 1
        kind_mask = [0] * self.kinds
        for p in range(self.size):
            kind_mask[p % self.kinds] |= 1 << p
        self.kind_mask = tuple(kind_mask)
        pip_mask = [0] * (max_pip + 1)
        for k in range(self.kinds):
            pip_mask[lo[k]] |= kind_mask[k]
            pip_mask[hi[k]] |= kind_mask[k]
        self.pip_mask = tuple(pip_mask)
        self.double_kind = {a: self.kind_index(a, a) for a in range(max_pip + 1)}
        #: text as written -> (kind, first half, second half); both orders
        self.lookup: dict[str, tuple[int, int, int]] = {}
        for k in range(self.kinds):
            a, b = lo[k], hi[k]
            self.lookup[f"{a}-{b}"] = (k, a, b)
            self.lookup[f"{b}-{a}"] = (k, b, a)
        # order of kinds from highest to lowest "tile rank" (pip sum, then high half)
        self.rank_order = tuple(
            sorted(range(self.kinds), key=lambda k: (self.kind_pips[k], self.kind_hi[k]),
                   reverse=True)
        )

    def kind_index(self, a: int, b: int) -> int:
        """Index of tile ``a-b`` in the canonical order ``0-0, 0-1, ..., N-N``."""
        a, b = min(a, b), max(a, b)
        n = self.max_pip + 1
        return a * n - a * (a - 1) // 2 + (b - a)

    def canonical(self) -> list[str]:
        """The canonical order of the contract, repeated for two sets."""
        return [self.kind_name[self.phys_kind[p]] for p in range(self.size)]

    def parse(self, text: object) -> tuple[int, int, int]:
        """``(kind, first half, second half)`` of a tile text, or ValueError saying why."""
        if isinstance(text, str):
            hit = self.lookup.get(text)
            if hit is not None:
                return hit
            m = TILE_RE.match(text)
            if m:
                raise ValueError(
                    f'"{text}" is not a tile of {self.name} (pips go from 0 to {self.max_pip})'
                )
            shown = text if len(text) <= 20 else text[:20] + "..."
            raise ValueError(f'"{shown}" is not a tile; write tiles as "a-b", like "6-3"')
        raise ValueError(f"a tile is a string like \"6-3\", not {type(text).__name__}")

    def mask_kinds(self, mask: int) -> list[int]:
        """Kinds of the physical tiles in ``mask``, in canonical order (with repeats)."""
        out = []
        phys_kind = self.phys_kind
        while mask:
            low = mask & -mask
            out.append(phys_kind[low.bit_length() - 1])
            mask ^= low
        out.sort()
        return out

    def mask_pips(self, mask: int) -> int:
        pips = self.kind_pips
        phys_kind = self.phys_kind
        total = 0
        while mask:
            low = mask & -mask
            total += pips[phys_kind[low.bit_length() - 1]]
            mask ^= low
        return total

    def mask_names(self, mask: int) -> list[str]:
        return [self.kind_name[k] for k in self.mask_kinds(mask)]

    def __repr__(self) -> str:
        return f"tile_set({self.max_pip}, {self.sets})"


@cache
def tile_set(max_pip: int = 6, sets: int = 1) -> TileSet:
    return TileSet(max_pip, sets)
