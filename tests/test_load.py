"""The production server (waitress, loopback only) under 16 concurrent uploaders and
readers for a few seconds: no game lost or stored twice, no 5xx, a sound file.

The same run, longer, is ``bench/load.py``, whose figures are in docs/benchmarks.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))

import load


def test_sixteen_uploaders_and_readers_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    report = load.run(uploaders=8, readers=8, seconds=4, threads=4, folder=tmp_path)
    assert load.check(report) == []
    assert report["statuses"].keys() <= {200}
    assert report["games_sent"] > 16, report  # every uploader got games through
    assert report["duplicates_answered"] > 0, "shared games should race into duplicates"
    assert {"upload", "list", "game", "export"} <= report["by_kind"].keys()
