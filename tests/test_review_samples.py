"""Every game of sample_games/ reviewed whole, every round, and checked decision by decision.

The reviews are made once for the module as ``recorder review --json --workers 2`` makes
them (its function, worker processes reviewing rounds apart), in the perfect view over every
file (the comments on PERFECT and LIMITED say why, and what it costs); the player view
runs on the files where it is cheap, PLAYER_FILES, with few deals.

What is checked of every decision of every game, against what the engine says of the log
apart from the review (the moves' facts, ``recorder.analysis``: what the statistics
store): the decisions are exactly the moves with ``legal_count > 1``; each has
``legal_count`` choices; ``played`` is the logged move; ``best`` is the first of the
highest values; ``loss`` is the best value less the played one, never below 0; ``class``
is ``classify(loss)``; each seat's figures are those of its decisions; every review
validates against schemas/domino-review-1.schema.json; where the mover could see every
tile that mattered (one consistent deal) the player view gives the perfect view's
values; and a review made again, in one process, gives the same bytes.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from logs import decisions_seen

from recorder.analysis import game_facts
from recorder.cli_review import run
from recorder.parse import iter_path
from recorder.review import Settings, classify, plan_review, review_round
from recorder.solver import Sampler

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_games").glob("*.json*"))
SCHEMA = json.loads((ROOT / "schemas" / "domino-review-1.schema.json").read_text())

#: The perfect view over every file: one deal a decision, so every round of the 128
#: games is searched once. Most files cost a tenth of a second a round or less at the
#: default limits, at most about 2 CPU seconds (bench/review_samples.py,
#: docs/benchmarks.md). Three or four sides search by max^n, without pruning: a round of
#: kozel or italian 3p costs 6 to 35 CPU seconds at the default limits, 125 rounds of
#: italian 3p alone about 19 minutes; and a round of spilop 2p up to 18 (1.5 on average
#: over 239 rounds), some of its first decisions past the default 2,000,000 positions.
#: Those files are reviewed with a per-decision limit of LIMITED_POSITIONS positions,
#: about half a second a round: the first decisions of a round, past it, are listed
#: unvalued with ``unvalued: "positions"`` (checked as such), the later ones valued
#: exactly.
PERFECT = Settings(view="perfect")
LIMITED_POSITIONS = 20_000
LIMITED = Settings(view="perfect", positions=LIMITED_POSITIONS)
LIMITED_FILES = (
    "classic-explicit-deal-3p.jsonl",
    "italian-3p.jsonl",
    "kozel-3p.jsonl",
    "kozel-4p.jsonl",
    "spilop-2p.jsonl",
    "spilop-bonus-3p.jsonl",
    "spilop-two-sets-4p.jsonl",
)
#: The player view multiplies the perfect view's work by its deals (up to 24, about 16 on
#: average), so over every file it would not fit the budget even with a few deals; it
#: runs with PLAYER's 3 deals on the files whose rounds cost a tenth of a second or less
#: in the perfect view (a 3-player one among them).
PLAYER_FILES = (
    "classic-2p.jsonl",
    "classic-draw-one-3p.jsonl",
    "classic-partners-4p.jsonl",
    "italian-2p.jsonl",
    "norwegian-2p.jsonl",
    "openspiel-block.jsonl",
)
PLAYER = Settings(view="player", samples=3, seed="samples")


def documents(paths: list[Path]) -> list[tuple[str, Any]]:
    """Every document of ``paths``, in the command's order, with where it is."""
    out = []
    for path in paths:
        for item in iter_path(str(path)):
            assert item.error is None, (path.name, item.line, item.error)
            out.append((path.name, item.doc))
    return out


def command(settings: Settings, paths: list[Path]) -> list[bytes]:
    """What ``recorder review --json --workers 2`` prints over ``paths``, one line a game:
    its own function (``recorder.cli_review.run``, with 2 worker processes reviewing the
    rounds apart), called here because the command has no flag for the per-decision
    limit that LIMITED lowers."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = run(tuple(map(str, paths)), settings, 2, True, progress=False)
    assert code == 0
    return out.getvalue().encode().splitlines()


class Reviewed:
    """The documents of some files and the command's review of each, in order."""

    def __init__(self, groups: list[tuple[Settings, list[Path]]]) -> None:
        self.docs: list[tuple[str, Any]] = []
        self.lines: list[bytes] = []
        self.settings: list[Settings] = []
        for settings, paths in groups:
            docs = documents(paths)
            lines = command(settings, paths)
            assert len(lines) == len(docs)
            self.docs += docs
            self.lines += lines
            self.settings += [settings] * len(docs)
        self.reviews = [json.loads(line) for line in self.lines]

    def games(self) -> list[tuple[str, Any, dict[str, Any], Settings]]:
        return [
            (name, doc, review, settings)
            for (name, doc), review, settings in zip(
                self.docs, self.reviews, self.settings, strict=True
            )
        ]


@pytest.fixture(scope="module")
def perfect() -> Reviewed:
    return Reviewed(
        [
            (PERFECT, [p for p in SAMPLES if p.name not in LIMITED_FILES]),
            (LIMITED, [p for p in SAMPLES if p.name in LIMITED_FILES]),
        ]
    )


@pytest.fixture(scope="module")
def player() -> Reviewed:
    return Reviewed([(PLAYER, [p for p in SAMPLES if p.name in PLAYER_FILES])])


def tile(name: str) -> tuple[int, ...]:
    """A tile as its pips, either way round (the log may write 6-4, the review 4-6)."""
    return tuple(sorted(int(x) for x in name.split("-")))


def check_game(doc: Any, review: dict[str, Any], settings: Settings) -> tuple[int, int]:
    """Every figure of one game's review against the engine's facts; how many decisions
    it has, and how many of them are valued."""
    assert review["status"] in ("finished", "unfinished") and review["error"] is None
    assert review["view"] == settings.view and review["game_id"] == doc.get("game_id")
    facts = game_facts(doc)
    assert [r["round"] for r in review["rounds"]] == list(range(1, len(doc["rounds"]) + 1))
    want = [f for f in facts.moves if f.legal_count > 1]
    got = [(r["round"], d) for r in review["rounds"] for d in r["decisions"]]
    assert [(r, d["move"], d["player"]) for r, d in got] == [
        (f.round, f.move, f.player) for f in want
    ]
    valued = 0
    for (_, d), fact in zip(got, want, strict=True):
        where = (review["game_id"], fact.round, fact.move)
        choices = d["choices"]
        assert len(choices) == fact.legal_count, where
        keys = [(c["action"], c["tile"], c["end"], c["closed"]) for c in choices]
        assert len(set(keys)) == len(keys), where
        played = choices[d["played"]]
        assert (played["action"], tile(played["tile"])) == (fact.action, tile(fact.tile)), where
        assert played["end"] == fact.end, where
        if d["unvalued"] is not None:
            # only the per-decision limit: no sample round comes near the round's budget
            # or the game's decisions
            assert d["unvalued"] == "positions", where
            assert (d["samples"], d["best"], d["loss"], d["class"]) == (0, None, None, None)
            assert all(c["value"] is None and c["se"] is None for c in choices), where
            continue
        valued += 1
        values = [c["value"] for c in choices]
        assert d["best"] == values.index(max(values)), where
        assert d["loss"] >= 0
        assert d["loss"] == pytest.approx(values[d["best"]] - values[d["played"]], abs=2e-4)
        assert d["class"] == classify(d["loss"]), where
        if settings.view == "perfect":
            assert d["samples"] == 1 and all(c["se"] == 0 for c in choices), where
        else:
            assert 1 <= d["samples"] <= settings.samples, where
            assert all(c["se"] >= 0 for c in choices), where
    for p in review["players"]:
        mine = [d for _, d in got if d["player"] == p["seat"]]
        mine = [d for d in mine if d["unvalued"] is None]
        assert p["decisions"] == len(mine)
        classes = {name: sum(d["class"] == name for d in mine) for name in p["classes"]}
        assert p["classes"] == classes
        if mine:
            assert p["mean_loss"] == pytest.approx(
                sum(d["loss"] for d in mine) / len(mine), abs=1e-4
            )
            assert p["best_share"] == pytest.approx(classes["best"] / len(mine), abs=1e-4)
        else:
            assert p["mean_loss"] is None and p["best_share"] is None
    return len(got), valued


def test_every_decision_of_every_sample_game_in_the_perfect_view(perfect: Reviewed) -> None:
    assert {name for name, _ in perfect.docs} == {p.name for p in SAMPLES}
    counts: dict[str, list[int]] = {}
    for name, doc, review, settings in perfect.games():
        n, valued = check_game(doc, review, settings)
        counts.setdefault(name, [0, 0])
        counts[name][0] += n
        counts[name][1] += valued
    assert sum(n for n, _ in counts.values()) > 1000  # every round of every game
    for name, (n, valued) in counts.items():
        # nearly every decision valued at the default limits; a good part of the limited ones
        assert valued >= (n * 9 // 10 if name not in LIMITED_FILES else n // 4), (name, n, valued)


def test_every_decision_of_the_cheap_files_in_the_player_view(player: Reviewed) -> None:
    assert {name for name, _ in player.docs} == set(PLAYER_FILES)
    for _, doc, review, settings in player.games():
        n, valued = check_game(doc, review, settings)
        assert valued == n


def test_every_review_validates_against_the_schema(perfect: Reviewed, player: Reviewed) -> None:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    validator = jsonschema.Draft202012Validator(SCHEMA)
    for review in [*perfect.reviews, *player.reviews]:
        errors = sorted(validator.iter_errors(review), key=str)
        assert not errors, (review["game_id"], errors[0].message, list(errors[0].path))


def single_deals(doc: Any) -> set[tuple[int, int]]:
    """(round, move) of each decision where only one deal was consistent with what the
    mover knew (nothing hidden that matters: the player view must be exact there)."""
    return {
        (event.round, event.move_no)
        for event, seen in decisions_seen(doc)
        if Sampler(event.state, event.move.player, seen).single()
    }


def test_where_nothing_is_hidden_the_player_view_is_the_perfect_view(
    perfect: Reviewed, player: Reviewed
) -> None:
    by_id = {(name, doc.get("game_id")): review for name, doc, review, _ in perfect.games()}
    compared = 0
    for name, doc, review, _ in player.games():
        full = by_id[(name, doc.get("game_id"))]
        single = single_deals(doc)
        for mine, theirs in zip(review["rounds"], full["rounds"], strict=True):
            for d, e in zip(mine["decisions"], theirs["decisions"], strict=True):
                assert (d["move"], d["played"]) == (e["move"], e["played"])
                assert [c["tile"] for c in d["choices"]] == [c["tile"] for c in e["choices"]]
                if (mine["round"], d["move"]) in single:
                    assert d["samples"] == 1 and all(c["se"] == 0 for c in d["choices"])
                    assert d["choices"] == e["choices"], (name, mine["round"], d["move"])
                    assert (d["best"], d["loss"], d["class"]) == (e["best"], e["loss"], e["class"])
                    compared += 1
    assert compared > 50


def test_the_same_settings_give_the_same_bytes_in_one_process(
    perfect: Reviewed, player: Reviewed
) -> None:
    """The last round of the first game of each file, reviewed again here (one process,
    that round alone): the very bytes the command's workers wrote."""
    for reviewed in (perfect, player):
        done = set()
        for (name, doc), line, settings in zip(
            reviewed.docs, reviewed.lines, reviewed.settings, strict=True
        ):
            if name in done:
                continue
            done.add(name)
            whole = json.loads(line)
            plan = plan_review(doc)
            last = len(plan.before)
            again = review_round(doc, last, settings, skip=plan.before[last - 1])
            text = json.dumps(again, ensure_ascii=False)
            assert text == json.dumps(whole["rounds"][-1], ensure_ascii=False)
            assert text.encode() in line, name
