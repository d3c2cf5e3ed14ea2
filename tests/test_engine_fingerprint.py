"""The engine still plays every preset and option exactly as it did (sample games included).

``scripts/engine_fingerprint.py`` hashes simulated games and their replays per preset
and option; the digests stored in ``tests/data/engine-fingerprint.json`` were taken
before the rules of other engines were added. A few games each here; the script
runs thousands (``--games 100 --check``). A deliberate change of behaviour, or of a
sample game, is stored again with ``--write`` for both game counts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from engine_fingerprint import STORE, fingerprint  # noqa: E402


def test_every_preset_and_option_replays_byte_for_byte_as_before() -> None:
    stored = json.loads(STORE.read_text())["3"]
    got = fingerprint(3)
    changed = sorted(k for k in stored if stored[k] != got.get(k))  # new samples: not yet stored
    assert changed == []
