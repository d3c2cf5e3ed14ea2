"""Games played by the real engines (OpenSpiel, ``dominoes``, all-fives-domino), converted
by ``recorder.adapters`` and replayed: the recorder must find every move legal and compute
the winners, points and final scores that the engine itself reported, game after game.

The figures compared are read from the engine objects (``returns()``, ``Result``,
``Series.scores``, the players' scores), not from the converted documents. The engines
come with ``pip install -e '.[engines]'``, which ``python3 dev.py test`` installs; under
CI these tests never skip.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner

from recorder.replay import replay


def engine(module: str) -> ModuleType:
    """The adapter module; without the engine installed: a skip, except under CI."""
    if os.environ.get("CI"):
        return importlib.import_module(module)
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:  # pragma: no cover - only without the engines
        pytest.skip(f"engine not installed ({exc.name}): pip install -e '.[engines]'")


def replayed(doc: dict[str, Any]) -> dict[str, Any]:
    """The recorder's answer, after the round trip through JSON a real upload takes."""
    answer = replay(json.loads(json.dumps(doc)))
    assert answer["status"] == "finished", answer.get("error", answer)
    assert "mismatches" not in answer, answer["mismatches"]
    assert all("deal" in r for r in doc["rounds"])  # the explicit deal, every round
    return answer


# ---------------------------------------------------------------------- OpenSpiel


@pytest.mark.parametrize(("game_name", "preset"), [
    ("python_block_dominoes", "openspiel-block"),
    ("python_team_dominoes", "openspiel-team"),
])
def test_openspiel_games_replay_to_the_engines_returns(game_name: str, preset: str) -> None:
    openspiel = engine("recorder.adapters.openspiel")
    passes = pips_lost = 0
    for i in range(500):
        state = openspiel.play(game_name, f"os-{i}")
        doc = openspiel.state_to_log(state, game_id=f"os-{i}")
        assert doc["ruleset"] == preset
        answer = replayed(doc)
        returns = state.returns()
        assert answer["winners"] == [p for p, r in enumerate(returns) if r > 0]
        assert answer["scores"] == [max(int(r), 0) for r in returns]
        assert answer["rounds"][0]["points"] == answer["scores"]
        passes += sum(m["action"] == "pass" for m in doc["rounds"][0]["moves"])
        r0 = answer["rounds"][0]
        # pips decide: the side that went out lost (team game) or tied (0-0 left)
        pips_lost += not r0["blocked"] and r0["ended_by"] not in answer["winners"]
    assert passes > 100  # the passes OpenSpiel leaves implicit were written
    if preset == "openspiel-team":
        assert pips_lost > 0  # the rule that needed pips_decide did come up


def test_openspiel_history_gives_the_same_log_as_the_state() -> None:
    openspiel = engine("recorder.adapters.openspiel")
    for i in range(20):
        state = openspiel.play("python_team_dominoes", f"h-{i}")
        assert openspiel.history_to_log("python_team_dominoes", state.history()) == \
            openspiel.state_to_log(state)


def test_openspiel_an_unfinished_state_is_an_unfinished_game() -> None:
    openspiel = engine("recorder.adapters.openspiel")
    state = openspiel.play("python_block_dominoes", "cut")
    history = state.history()[:14 + 5]  # the deal and five plays
    answer = replay(openspiel.history_to_log("python_block_dominoes", history))
    assert answer["status"] == "unfinished" and answer["rounds"] == []


# ---------------------------------------------------------------------- dominoes


def test_dominoes_games_replay_to_the_engines_result() -> None:
    adapter = engine("recorder.adapters.dominoes_game")
    blocked = 0
    for i in range(500):
        game = adapter.play_game(f"dg-{i}", starting_player=i % 4)
        answer = replayed(adapter.game_to_log(game, game_id=f"dg-{i}"))
        points = game.result.points  # team 0 positive, team 1 negative, 0: a tie
        team = [0, 2] if points > 0 else [1, 3] if points < 0 else []
        assert answer["winners"] == team
        assert answer["rounds"][0]["winners"] == team
        assert answer["scores"] == [max(points, 0), max(-points, 0)] * 2
        assert answer["rounds"][0]["blocked"] is not game.result.won
        blocked += not game.result.won
    assert blocked > 10  # lowest-takes-all did come up


def test_dominoes_series_replay_to_the_engines_scores() -> None:
    adapter = engine("recorder.adapters.dominoes_game")
    for i in range(40):
        series = adapter.play_series(f"ds-{i}", target=100 if i % 2 else 200)
        answer = replayed(adapter.series_to_log(series, game_id=f"ds-{i}"))
        t0, t1 = series.scores
        assert answer["scores"] == [t0, t1, t0, t1]
        assert answer["winners"] == ([0, 2] if t0 >= series.target_score else [1, 3])
        assert len(answer["rounds"]) == len(series.games)
        for r, game in zip(answer["rounds"], series.games, strict=True):
            assert sum(r["points"][:2]) == abs(game.result.points)


# ---------------------------------------------------------------------- all-fives


def _check_all_fives(adapter: ModuleType, seed: str, target: int | None) -> dict[str, int]:
    game, journal = adapter.play(seed, target=target)
    answer = replayed(adapter.game_to_log(game, journal, game_id=seed))
    scores = [game.player1.score, game.player2.score]
    reached = journal.target
    assert answer["scores"] == scores
    assert answer["winners"] == [p for p, s in enumerate(scores) if s >= reached]
    assert len(answer["winners"]) == 1
    # round by round: what the engine added to each score, against points + bonus
    for rec, r in zip(journal.rounds, answer["rounds"], strict=True):
        gained = [0, 0]
        for kind, seat, what in rec.events:
            if kind == "score":
                gained[seat] += what
        assert [p + b for p, b in zip(r["points"], r["bonus"], strict=True)] == gained
    last = answer["rounds"][-1]
    text = json.dumps(answer)
    return {"rounds": len(answer["rounds"]),
            "mid_round": int(not last["blocked"] and last["points"] == [0, 0]
                             and min(last["pips_left"]) > 0),
            "tie": int('"winners": []' in text),
            "closed": int('"closed": true' in json.dumps(adapter.game_to_log(game, journal)))}


def test_all_fives_games_replay_to_the_engines_scores() -> None:
    adapter = engine("recorder.adapters.all_fives")
    seen = {"rounds": 0, "mid_round": 0, "tie": 0, "closed": 0}
    for i in range(500):  # to 61, a common target, so that 500 games take seconds
        for key, n in _check_all_fives(adapter, f"af-{i}", 61).items():
            seen[key] += n
    # the rules that needed options did come up: mid-round target, closed doubles, tie pot
    assert seen["mid_round"] > 50 and seen["closed"] > 100 and seen["tie"] > 0, seen


def test_all_fives_games_to_the_packages_own_target() -> None:
    adapter = engine("recorder.adapters.all_fives")
    for i in range(10):
        _check_all_fives(adapter, f"af305-{i}", None)


def test_all_fives_game_leaves_the_package_as_it_was() -> None:
    adapter = engine("recorder.adapters.all_fives")
    import random

    import src.main.game.Player as player_module

    state = random.getstate()
    adapter.play("x", target=61)
    assert player_module.TARGET_SCORE == 305
    assert random.getstate() == state


# ---------------------------------------------------------------------- the command and the core


@pytest.mark.parametrize(("args", "preset", "rounds"), [
    (["--engine", "openspiel"], "openspiel-block", 1),
    (["--engine", "openspiel", "--players", "4"], "openspiel-team", 1),
    (["--engine", "dominoes"], {"preset": "dominoes-partners", "options": {"hands": 1}}, 1),
    (["--engine", "all-fives", "-o", "target=61"],
     {"preset": "all-fives", "options": {"target": 61}}, None),
])
def test_simulate_engine_writes_logs_that_validate(args: list[str], preset: Any,
                                                   rounds: int | None) -> None:
    from recorder.cli import main

    result = CliRunner().invoke(main, ["simulate", *args, "--games", "3", "--seed", "t"])
    assert result.exit_code == 0, result.output
    docs = [json.loads(line) for line in result.output.splitlines()]
    assert [d["game_id"] for d in docs] == ["t-1", "t-2", "t-3"]
    for doc in docs:
        assert doc["ruleset"] == preset
        replayed(doc)
        assert rounds is None or len(doc["rounds"]) == rounds


@pytest.mark.parametrize(("args", "words"), [
    (["--engine", "openspiel", "-o", "bonus=true"], "engine's own rules"),
    (["--engine", "openspiel", "--players", "3"], "2 (block) or 4 (team)"),
    (["--engine", "all-fives", "-o", "target=x"], "whole number"),
    (["--engine", "dominoes", "-o", "target=100"], "needs --series"),
    (["--engine", "all-fives", "--series"], "--series is for --engine dominoes"),
    (["--series"], "--series is for --engine dominoes"),
    (["--engine", "chess"], "Invalid value"),
])
def test_simulate_engine_refuses_what_the_engine_cannot_do(args: list[str], words: str) -> None:
    from recorder.cli import main

    result = CliRunner().invoke(main, ["simulate", *args])
    assert result.exit_code == 2 and words in result.output, result.output


def test_the_core_never_imports_an_engine() -> None:
    code = ("import sys, recorder.cli, recorder.replay, recorder.simulate, recorder.adapters, "
            "webui; bad = {'pyspiel', 'open_spiel', 'dominoes', 'src'} & set(sys.modules); "
            "print(sorted(bad))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def test_an_unknown_engine_is_named() -> None:
    from recorder import adapters

    with pytest.raises(ValueError, match="unknown engine 'chess'"):
        adapters.load("chess")


def test_the_first_start_imports_every_sample_game_the_engines_ones_too(tmp_path: Any,
                                                                        monkeypatch: Any) -> None:
    from recorder.cli_service import import_samples, open_db

    monkeypatch.chdir(tmp_path)  # no sample_games/ here: the source tree's are used
    with open_db(tmp_path / "r.db") as db:
        message = import_samples(db)
        frontends = {row["frontend"] for row in db.query(
            "SELECT DISTINCT frontend FROM games")}
    assert message is not None and message.endswith(", 0 duplicate, 0 refused")
    assert {"open_spiel/python_block_dominoes", "open_spiel/python_team_dominoes",
            "dominoes", "all-fives-domino"} <= frontends


def test_simulate_engine_without_the_engine_says_what_to_install(monkeypatch: Any) -> None:
    from recorder.cli import main

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open_spiel were not installed
    monkeypatch.delitem(sys.modules, "recorder.adapters.openspiel", raising=False)
    result = CliRunner().invoke(main, ["simulate", "--engine", "openspiel"])
    assert result.exit_code == 2
    assert "the openspiel engine is not installed (pyspiel is missing)" in result.output
    assert "pip install -e '.[engines]'" in result.output
