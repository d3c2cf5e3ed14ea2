"""A rule change that loops fails the suite; it never hangs it or fills the memory.

Two guards (docs/testing.md, "Time limits"): every test has a time limit
(pytest-timeout, set in pyproject.toml, with a watchdog for loops that no signal can
stop, tests/conftest.py), and the simulator stops a round that goes past the most moves
its rules allow (``recorder.simulate.round_move_cap``). Each is shown here on a real
loop: a child pytest whose test never ends, and the simulator on an engine whose blocked
detection was broken at the stock floor (the pure-Python engine, patched in a child
process: a compiled class cannot be patched).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, backstop_after, subprocess_env

from recorder.engine import Match
from recorder.rules import Ruleset
from recorder.simulate import round_move_cap, simulate_game

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
INI = PYPROJECT["tool"]["pytest"]["ini_options"]


def test_every_test_has_a_time_limit_and_the_plugin_is_declared() -> None:
    assert any(d.startswith("pytest-timeout") for d in
               PYPROJECT["project"]["optional-dependencies"]["test"])
    assert INI["required_plugins"] == ["pytest-timeout>=2.3"]
    # generous for the slowest test on a loaded machine (the wheel built with mypyc
    # takes up to 220 s there), short enough that a loop costs minutes, not the CI run
    assert 300 <= INI["timeout"] <= 900
    assert INI["timeout_method"] == "signal"


def child_pytest(tmp_path: Path, body: str, limit: float) -> subprocess.CompletedProcess[str]:
    """pytest in its own process on one test file, with this suite's settings and hooks
    (pyproject.toml and tests/conftest.py) and a time limit of ``limit`` seconds."""
    test_file = tmp_path / "test_child.py"
    test_file.write_text(textwrap.dedent(body))
    env = subprocess_env(PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), str(ROOT)]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(tmp_path), "-p", "conftest",
         "--timeout", str(limit), str(test_file)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=240, check=False)


def test_a_test_that_loops_fails_and_the_suite_goes_on(tmp_path: Path) -> None:
    result = child_pytest(tmp_path, """
        def test_loops():
            moves = []
            while True:  # a round that never ends
                moves.append(len(moves))
                if len(moves) > 10_000:
                    moves.clear()

        def test_after():
            assert True
    """, limit=2)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "1 failed, 1 passed" in out
    assert "Timeout (>2.0s) from pytest-timeout" in out


def test_a_loop_that_holds_the_interpreter_ends_the_run_with_its_stack(
        tmp_path: Path) -> None:
    """A loop in C (or in the compiled engine) never runs the signal's handler: the
    watchdog ends the run, and the looping test is named on the stack it writes."""
    result = child_pytest(tmp_path, """
        import itertools

        def test_holds_the_interpreter():
            sum(itertools.repeat(1, 10 ** 15))  # one C call: hours, deaf to signals

        def test_after():
            assert True
    """, limit=1)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert f"Timeout (0:00:{backstop_after(1):02.0f})!" in out
    assert "in test_holds_the_interpreter" in out
    assert "passed" not in out  # the run ended there


# ---------------------------------------------------------------------------------------
# The simulator's cap.


@pytest.mark.parametrize(("spec", "players", "cap"), [
    ("spilop", 2, 2 * (28 + 14)),           # 7 each: 14 in the boneyard
    ("spilop", 4, 4 * (28 + 8)),            # 5 each
    ("dominoes-partners", 4, 4 * (28 + 0)),  # every tile dealt, no drawing
    ({"preset": "spilop", "options": {"sets": 2}}, 4, 4 * (56 + 28)),
])
def test_the_cap_is_players_times_tiles_and_boneyard(spec: object, players: int,
                                                     cap: int) -> None:
    state = Match(Ruleset.from_spec(spec), players).new_round(seed="cap")
    assert round_move_cap(state) == cap


def test_simulated_rounds_stay_well_under_the_cap() -> None:
    """The bound is a proof (``round_move_cap``); the longest rounds of real games are
    far from it, so a game that reaches it is a loop, not a long game."""
    for spec, players in [("spilop", 2), ("classic", 3), ("kozel", 4), ("italian", 2),
                          ("norwegian", 2), ("all-fives", 2),
                          ({"preset": "classic", "options": {"draw": "one"}}, 3)]:
        rules = Ruleset.from_spec(spec)
        cap = round_move_cap(Match(rules, players).new_round(seed="cap"))
        longest = max(len(r["moves"]) for i in range(10)
                      for r in simulate_game(spec, players, f"cap-{i}")["rounds"])
        assert longest <= cap * 0.8, (spec, players, longest, cap)


#: the loop of a broken rule: blocked detection only once the boneyard is empty, so at
#: norwegian's stock floor (2 tiles left, no drawing) nobody can play and all pass forever
PLANT_THE_LOOP = """
import recorder
from recorder.engine import Round
assert recorder.build_text().startswith("engine: pure Python"), recorder.build_text()
checked = Round._check_blocked
def blocked_only_when_empty(self, seat):
    if self.drawn >= len(self.boneyard):
        checked(self, seat)
Round._check_blocked = blocked_only_when_empty
"""


def run_planted(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PLANT_THE_LOOP + textwrap.dedent(code)], capture_output=True,
        text=True, env=subprocess_env(RECORDER_PURE="1"), timeout=120, check=False)


def test_a_loop_in_the_rules_stops_the_simulator_with_a_clear_error() -> None:
    result = run_planted("""
        from recorder.simulate import RoundTooLong, simulate_game
        try:
            simulate_game("norwegian", 2, "loop-0")
        except RoundTooLong as exc:
            print(exc)
        # this program's own high-water mark: getrusage's ru_maxrss survives exec, so it
        # would count the pytest process that started this one
        status = open("/proc/self/status").read().split("VmHWM:")[1]
        print(f"peak {int(status.split()[0]) // 1024} MB")
    """)
    assert result.returncode == 0, result.stderr
    message, peak = result.stdout.splitlines()
    assert message.startswith("round ") and "of the game seeded 'loop-0' (norwegian, 2 " \
        "players) is not over after 84 moves, the most any round of these rules can take " \
        "(2 players x (28 tiles + 14 in the boneyard)): the engine never ends it" in message
    assert int(peak.split()[1]) < 300  # stopped at once, not after filling the memory


def test_recorder_simulate_exits_3_with_the_reason_when_the_rules_loop() -> None:
    result = run_planted("""
        from recorder.cli import main
        main(["simulate", "--preset", "norwegian", "--games", "3", "--seed", "loop"])
    """)
    assert result.returncode == 3, result.stderr
    assert result.stderr.startswith("recorder: round ")
    assert "the engine never ends it" in result.stderr
    assert "Traceback" not in result.stderr
