"""The metrics find what the bots do: each style ranks first on its own trait.

Two thousand short games (three rounds at most, target 60) between bots of known
styles, every seating of 2 to 4 of them, half under spilop with bonus (so that bonus
chances exist) and half under classic without drawing (so that blocks are frequent),
stored through the real import; the metrics are read back from the aggregates.
"""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest

from recorder import stats
from recorder.ingest import Importer
from recorder.parse import iter_documents
from recorder.simulate import simulate_game

STYLES = ("heavy", "doubles", "bonus", "blocker", "random")
GAMES = 2000
TRAITS = (
    ("heavy", "heavy_first", max),
    ("doubles", "double_first", max),
    ("bonus", "bonus_capture", max),
    ("bonus", "bonus_left", min),
    ("blocker", "blocking", max),
)


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    from recorder import storage

    seatings = [s for n in (4, 3, 2) for s in itertools.permutations(STYLES, n)]
    lines = []
    for i in range(GAMES):
        seats = seatings[i % len(seatings)]
        rules = ({"preset": "spilop", "options": {"bonus": True, "target": 60}} if i % 2
                 else {"preset": "classic", "options": {"draw": "none", "target": 60}})
        doc = simulate_game(rules, len(seats), f"league-{i}", list(seats),
                            game_id=f"league-{i}", max_rounds=3)
        # each player is named after their style, so the metrics can be read by style
        doc["players"] = [{"id": s, "name": s} for s in seats]
        lines.append(json.dumps(doc))
    db = storage.connect(tmp_path_factory.mktemp("league") / "league.db")
    importer = Importer(db)
    for _ in importer.run((None, d) for d in iter_documents("\n".join(lines).encode())):
        pass
    assert importer.tally.accepted == GAMES
    table = stats.player_metrics(stats.Reader(db, stats.StatsFilter()))
    db.close()
    return {pid: entry["metrics"] for pid, entry in table.items()}


@pytest.mark.parametrize("style, key, best", TRAITS, ids=[f"{s}-{k}" for s, k, _ in TRAITS])
def test_each_bot_ranks_first_on_its_own_trait(league: dict[str, dict[str, Any]],
                                               style: str, key: str, best: Any) -> None:
    values = {pid: m[key]["value"] for pid, m in league.items()}
    assert None not in values.values(), values
    assert best(values, key=values.__getitem__) == style, values
    others = [v for pid, v in values.items() if pid != style]
    # first by more than chance: the style's interval clears the runner-up's value
    interval = league[style][key]
    runner_up = best(others)
    assert (interval["low"] > runner_up) if best is max else (interval["high"] < runner_up), \
        (interval, runner_up)
