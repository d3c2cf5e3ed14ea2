"""orjson writes the stored JSON text only where it gives the stdlib's very bytes.

A game's identity is the SHA-256 of its canonical text: if the fast writer changed one
byte, every game stored before would stop being recognised as a duplicate. So the
canonical text and hash are compared with the stdlib's definition on every sample game
and on values chosen to part the two writers (tiny floats, inf, big ints, non-ASCII).
"""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from recorder import ingest, jsontext, storage
from recorder.parse import iter_path

ROOT = Path(__file__).resolve().parents[1]


def reference_canonical(doc: Any) -> str:
    """The canonical text as the stdlib alone defines it."""
    def dumps(value: Any) -> str:
        return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    return dumps(ingest.normalized(doc))


def reference_hash(doc: Any) -> str:
    return hashlib.sha256(reference_canonical(doc).encode("utf-8")).hexdigest()


def sample_docs() -> list[Any]:
    docs = []
    for path in sorted((ROOT / "sample_games").iterdir()):
        docs += [p.doc for p in iter_path(str(path)) if p.error is None]
    return docs


def test_every_sample_game_keeps_its_canonical_text_and_hash() -> None:
    docs = sample_docs()
    assert len(docs) > 20
    fast = sum(jsontext.fast_dumps(ingest.normalized(d), sort_keys=True) is not None
               for d in docs)
    assert fast >= len(docs) * 0.8  # orjson, not the fallback, writes most of them
    for doc in docs:
        assert ingest.canonical_json(doc) == reference_canonical(doc)
        assert ingest.content_hash(doc) == reference_hash(doc)
        # the JSON columns too: what Datasette and the API show
        assert storage.to_json(doc) == json.dumps(doc, ensure_ascii=False,
                                                  separators=(",", ":"))


TRICKY: list[Any] = [
    1e-05, 1e-7, -2.5e-9, 0.0001, 0.00012, 1e16, 1.2345678901234568e17, 5e-324,
    1.7976931348623157e308, -0.0, 0.0, 1.0, 0.1, 123.456, 2**63, 2**64 - 1, -2**63,
    2**64, -2**63 - 1, 10**40, math.inf, -math.inf, math.nan,
    "Zoë", "名人", "😀", "\u2028\u2029", "\x00\x1f\x7f", 'q"\\/', "e-mail 0.0000 null",
    {"é": 1, "z": 2, "Z": 3, "😀": 4, "\uffff": 5, "a": {"c": [1, {"b": None}], "a": 1e-6}},
    [None, True, False, [], {}],
    {"ruleset": {"preset": "spilop", "options": {"bonus": True, "sets": 2, "x": [1.5e-5]}}},
]


@pytest.mark.parametrize("value", TRICKY, ids=repr)
def test_tricky_values_are_written_as_the_stdlib_writes_them(value: Any) -> None:
    for sort_keys in (False, True):
        want = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"),
                          ensure_ascii=False)
        assert jsontext.dumps(value, sort_keys=sort_keys) == want
        assert jsontext.dumps_bytes(value, sort_keys=sort_keys) == want.encode()


def test_a_game_with_tricky_values_keeps_its_hash() -> None:
    doc = sample_docs()[0]
    tricky = {**doc, "players": [{**p, "name": name} for p, name in
                                 zip(doc["players"], ["Zoë 名人 😀", "e-1 null"], strict=False)],
              "x-extra": {"tiny": 1e-7, "big": 2**70, "nested": {"b": [1e-5, None], "a": 1.5}}}
    rnd = tricky["rounds"][0]
    tricky["rounds"] = [{**rnd, "moves": [{**mv, "ms": 0.00003} for mv in rnd["moves"]]},
                        *tricky["rounds"][1:]]
    assert ingest.canonical_json(tricky) == reference_canonical(tricky)
    assert ingest.content_hash(tricky) == reference_hash(tricky)
    assert ingest.content_hash(tricky) != ingest.content_hash(doc)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-2**70, max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=400, derandomize=True, deadline=None)
@given(json_values)
def test_any_json_value_is_written_as_the_stdlib_writes_it(value: Any) -> None:
    for sort_keys in (False, True):
        want = json.dumps(value, sort_keys=sort_keys, separators=(",", ":"),
                          ensure_ascii=False)
        try:
            want.encode("utf-8")
        except UnicodeEncodeError:
            continue  # a lone surrogate: the parser refuses it before anything is written
        assert jsontext.dumps(value, sort_keys=sort_keys) == want
