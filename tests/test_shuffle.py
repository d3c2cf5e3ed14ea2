"""The seeded shuffle reproduces every published test vector, and the deal follows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import shared_folder

from recorder.engine import seeded_deal
from recorder.rules import find
from recorder.shuffle import Stream, shuffle
from recorder.tiles import tile_set

ROOT = Path(__file__).resolve().parent.parent
VECTORS_FILE = ROOT / "schemas" / "vectors" / "shuffle-sha256-fy-1.json"
VECTORS = json.loads(VECTORS_FILE.read_text())
"""The vectors as they ship (package data ``recorder.schemas.vectors``): every test below
runs on them, with or without the shared folder."""


def test_the_shipped_vectors_are_the_shared_ones() -> None:
    shared = shared_folder()
    if shared is None:
        pytest.skip("no shared folder here to compare with (CI always has one)")
    theirs = json.loads((shared / "vectors" / VECTORS_FILE.name).read_text())
    assert theirs["vectors"] == VECTORS["vectors"]


def test_the_shipped_vectors_cover_every_kind() -> None:
    assert VECTORS["algorithm"] == "sha256-fy-1"
    assert sum("first_shuffle" in v for v in VECTORS["vectors"]) >= 3
    assert sum("first_ten_u32" in v for v in VECTORS["vectors"]) >= 1


@pytest.mark.parametrize(
    "vector", [v for v in VECTORS["vectors"] if "first_shuffle" in v],
    ids=lambda v: f"{v['seed']!r}-{v['max_pip']}-{v['sets']}",
)
def test_vector(vector: dict) -> None:
    tiles = tile_set(vector["max_pip"], vector["sets"])
    stream = Stream(vector["seed"])
    canonical = tiles.canonical()
    assert shuffle(canonical, stream) == vector["first_shuffle"]
    assert shuffle(canonical, stream) == vector["second_shuffle_same_stream"]
    assert stream.below(3) == vector["then_below_3"]


@pytest.mark.parametrize("vector", [v for v in VECTORS["vectors"] if "first_ten_u32" in v])
def test_raw_words(vector: dict) -> None:
    stream = Stream(vector["seed"])
    assert [stream.u32() for _ in range(10)] == vector["first_ten_u32"]


def test_canonical_order() -> None:
    names = tile_set(6, 1).canonical()
    assert names[:8] == ["0-0", "0-1", "0-2", "0-3", "0-4", "0-5", "0-6", "1-1"]
    assert names[-1] == "6-6" and len(names) == 28
    assert len(tile_set(9, 1).canonical()) == 55
    assert len(tile_set(12, 1).canonical()) == 91
    assert tile_set(6, 2).canonical() == names + names


def test_below_rejects_the_biased_top_of_the_range() -> None:
    def fixed(words: list[int]) -> Stream:
        """A stream whose next words are ``words`` (a compiled Stream takes no subclass)."""
        stream = Stream("x")
        stream._buf = list(words)
        return stream

    # 2**32 mod 3 == 1, so 2**32 - 1 is rejected and the next word is used
    assert fixed([2**32 - 1, 7]).below(3) == 7 % 3
    with pytest.raises(ValueError):
        Stream("x").below(0)


def test_deal_takes_consecutive_slices_of_the_shuffle() -> None:
    rules = find("spilop")
    deal, _ = seeded_deal(rules, 3, "spilop-2026-11-29-0001/1")
    tiles = tile_set(6, 1)
    order = shuffle(tiles.canonical(), Stream("spilop-2026-11-29-0001/1"))
    for seat in range(3):
        assert sorted(deal.hand_names(tiles)[seat]) == sorted(order[seat * 7:(seat + 1) * 7])
    assert deal.boneyard_names(tiles) == order[21:]


def test_classic_redeal_continues_the_stream() -> None:
    rules = find("classic")
    tiles = tile_set(6, 1)
    doubles = {f"{v}-{v}" for v in range(7)}
    for i in range(5000):
        seed = f"redeal-{i}"
        stream = Stream(seed)
        first = shuffle(tiles.canonical(), stream)
        if not doubles & set(first[:14]):
            break
    else:  # pragma: no cover
        pytest.fail("no seed without a double in 5000 tries")
    second = shuffle(tiles.canonical(), stream)
    deal, _ = seeded_deal(rules, 2, seed)
    assert deal.redeals >= 1
    if deal.redeals == 1:
        assert deal.hand_names(tiles)[0] == sorted(second[:7], key=tiles.canonical().index)
