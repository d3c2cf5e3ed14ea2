"""The review's per-round budget of positions (``Settings.round_positions``).

A round that searches past it lists the decision that took it past, and every later one,
unvalued, with ``unvalued: "round"``; the decisions before are the very ones a review
without the budget gives (each decision is searched alone and the budget counted over
the round's decisions in order, so it cuts a round at the same decision whoever reviews
it, decisions side by side or one after another). The command's report and the
service's answer say so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from recorder import review as review_mod
from recorder.review import (
    DECISION_POSITIONS,
    ROUND_POSITIONS,
    Settings,
    plan_review,
    report_text,
    review_game,
    review_round,
    round_work,
)
from recorder.simulate import simulate_game

DRAWING = {"preset": "classic", "options": {"hand_size": 5, "stock_floor": 12, "target": 30}}


@pytest.fixture(scope="module")
def doc() -> dict[str, Any]:
    return simulate_game(DRAWING, 2, "round-budget", game_id="round-budget", max_rounds=2)


def budget_cut(doc: dict[str, Any], view: str) -> tuple[Settings, Settings, int]:
    """Settings without a binding round budget, and with one that cuts round 1 halfway
    through its search; and the positions round 1 searched without it."""
    free = Settings(view=view, samples=3, seed="cut")
    _, nodes = round_work(doc, 1, free)
    assert nodes > 10, "round 1 searches enough to be cut"
    return free, Settings(view=view, samples=3, seed="cut", round_positions=nodes // 2), nodes


@pytest.mark.parametrize("view", ["perfect", "player"])
def test_a_round_past_its_budget_lists_its_later_decisions_unvalued(
    doc: dict[str, Any], view: str
) -> None:
    free, cut, nodes = budget_cut(doc, view)
    whole = review_round(doc, 1, free)["decisions"]
    got, searched = round_work(doc, 1, cut)
    decisions = got["decisions"]
    assert [d["move"] for d in decisions] == [d["move"] for d in whole]
    # searched up to the decision that crossed the budget, not after it
    assert cut.round_positions < searched < nodes
    reasons = [d["unvalued"] for d in decisions]
    first = reasons.index("round")  # some decision is past the budget...
    assert first > 0  # ...and not the first one
    assert reasons[first:] == ["round"] * (len(decisions) - first)
    assert decisions[:first] == whole[:first]  # the same search up to the cut
    for d in decisions[first:]:
        assert d["class"] is None and d["best"] is None and d["loss"] is None
        assert d["samples"] == 0
        assert all(c["value"] is None and c["se"] is None for c in d["choices"])
        assert d["choices"] == [
            dict(c, value=None, se=None) for c in whole[decisions.index(d)]["choices"]
        ]
    # rounds are budgeted apart: round 2 has its own, whatever round 1 searched
    plan = plan_review(doc)
    second = review_round(doc, 2, cut, skip=plan.before[1])
    assert second == review_round(
        doc,
        2,
        Settings(view=view, samples=3, seed="cut", round_positions=cut.round_positions),
        skip=plan.before[1],
    )
    assert second["decisions"][0]["unvalued"] is None


def test_the_report_counts_the_unvalued_decisions_by_limit_and_round(doc: dict[str, Any]) -> None:
    _, cut, _ = budget_cut(doc, "perfect")
    reviewed = review_game(doc, cut)
    unvalued = [d for d in reviewed["rounds"][0]["decisions"] if d["unvalued"]]
    assert unvalued
    assert sum(p["decisions"] for p in reviewed["players"]) == sum(
        1 for r in reviewed["rounds"] for d in r["decisions"] if d["unvalued"] is None
    )
    text = report_text(reviewed, ["a", "b"])
    late = sum(1 for r in reviewed["rounds"] for d in r["decisions"] if d["unvalued"])
    assert f"{late} decisions left unvalued" in text
    assert "past the positions of a round (round 1" in text


def test_the_command_prints_the_budget_s_unvalued_decisions(
    doc: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``recorder review``'s output layer (its rounds done by worker processes) with
    a small budget: the JSON says which decisions the budget left, the report too."""
    from recorder.cli_review import run

    _, cut, _ = budget_cut(doc, "perfect")
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    assert run((str(path),), cut, 2, True, progress=False) == 0
    line = capsys.readouterr().out
    assert json.loads(line) == json.loads(json.dumps(review_game(doc, cut)))
    assert '"unvalued": "round"' in line
    assert run((str(path),), cut, 0, False, progress=False) == 0
    assert "past the positions of a round (round 1" in capsys.readouterr().out


def test_the_service_stores_and_answers_the_budget_s_unvalued_decisions(
    cli: Any,
    client: Any,
    app: Any,
    doc: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The service's review (its queue, its search process) keeps to the settings'
    round budget: the answer lists the decisions past it unvalued, and says why."""
    from recorder import reviews
    from webui import api, review_queue

    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(doc) + "\n")
    assert cli("import", "--workers", "0", str(path)).exit_code == 0
    _, cut, _ = budget_cut(doc, "perfect")
    monkeypatch.setattr(api, "review_settings", lambda: cut)
    app.config["REVIEW_BUDGET_SECONDS"] = 30
    try:
        res = client.get("/api/games/1/review")
        body = res.get_json()
        assert res.status_code == 200, body
        assert body["meta"]["settings"] == reviews.settings_key(cut)
        assert f"round_positions={cut.round_positions} " in body["meta"]["settings"]
        data = body["data"]
        data.pop("evaluation")
        assert data == json.loads(json.dumps(review_game(doc, cut)))
        assert any(d["unvalued"] == "round" for d in data["rounds"][0]["decisions"])
    finally:
        review_queue.close_all()


def test_the_budget_is_in_the_settings_and_refused_when_meaningless() -> None:
    default = Settings()
    assert default.round_positions == ROUND_POSITIONS
    assert default.positions == DECISION_POSITIONS < ROUND_POSITIONS
    from recorder.reviews import settings_key

    assert settings_key(default) == (
        f"player samples=24 seed=review positions={DECISION_POSITIONS} "
        f"round_positions={ROUND_POSITIONS} decisions=1000"
    )
    for field in ("positions", "round_positions", "max_decisions"):
        with pytest.raises(ValueError, match=field):
            Settings(**{field: 0})
    assert review_mod.UNVALUED == ("positions", "round", "decisions")
