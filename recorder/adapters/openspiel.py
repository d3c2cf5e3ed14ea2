"""OpenSpiel's block and team dominoes as domino-log/1.

``python_block_dominoes`` (2 players) and ``python_team_dominoes`` (4 players in two
teams) deal 7 tiles each by chance actions, let player 0 open with any tile, never
draw, skip a player who cannot play, and end the game after one hand: the side with
the lower pip total wins the other side's total, even when the other side went out
(presets ``openspiel-block`` and ``openspiel-team``, see docs/engines.md).

The state keeps its action history, chance actions included, so a finished state
(or the history alone) is enough: the deal is read off the chance actions and the
passes the engine leaves implicit are written where a seat was skipped.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pyspiel
from open_spiel.python.games import block_dominoes, team_dominoes  # import registers them

from recorder.adapters import canonical_rest, document, package_version, tile

#: OpenSpiel game name -> (preset, players)
GAMES: dict[str, tuple[str, int]] = {
    "python_block_dominoes": ("openspiel-block", 2),
    "python_team_dominoes": ("openspiel-team", 4),
}
#: each game's table of actions (player, tile, covered pip): an action id is an index
_ACTIONS: dict[str, Any] = {
    "python_block_dominoes": block_dominoes._ACTIONS,
    "python_team_dominoes": team_dominoes._ACTIONS,
}


def _game_name(state: Any) -> str:
    name = state.get_game().get_type().short_name
    if name not in GAMES:
        raise ValueError(f"{name} is not a dominoes game this adapter knows; known: "
                         + ", ".join(GAMES))
    return str(name)


def state_to_log(state: Any, *, game_id: str | None = None,
                 players: Sequence[str] | None = None) -> dict[str, Any]:
    """A finished (or unfinished) OpenSpiel dominoes state as a domino-log/1 document."""
    return history_to_log(_game_name(state), state.history(), game_id=game_id,
                          players=players)


def history_to_log(game_name: str, history: Sequence[int], *, game_id: str | None = None,
                   players: Sequence[str] | None = None) -> dict[str, Any]:
    """The document of the game ``game_name`` that went through ``history``.

    The history is replayed in OpenSpiel itself: the chance actions give the deal,
    the player actions the plays, and the engine's own ``returns()`` at the end give
    the claimed result.
    """
    if game_name not in GAMES:
        raise ValueError(f"unknown game {game_name!r}; known: " + ", ".join(GAMES))
    preset, n = GAMES[game_name]
    actions = _ACTIONS[game_name]
    state = pyspiel.load_game(game_name).new_initial_state()
    hands: list[list[str]] | None = None
    ends: list[int] = []
    moves: list[dict[str, Any]] = []
    expected = 0  # the seat whose turn it is when nobody is skipped
    for action in history:
        if state.is_chance_node():
            state.apply_action(action)
            continue
        if hands is None:
            hands = [[tile(a, b) for a, b in h] for h in state.hands]
        seat = state.current_player()
        while expected != seat:  # OpenSpiel skips a seat that cannot play: a pass
            moves.append({"player": expected, "action": "pass"})
            expected = (expected + 1) % n
        act = actions[action]
        a, b = int(act.tile[0]), int(act.tile[1])
        move: dict[str, Any] = {"player": seat, "action": "play"}
        if act.edge is None:
            move["tile"] = tile(a, b)
            ends = [a, b]
        else:
            edge = int(act.edge)
            side = 0 if ends[0] == edge else 1
            move["tile"] = tile(a, b)
            move["end"] = ("left", "right")[side]
            ends[side] = b if a == edge else a
        moves.append(move)
        state.apply_action(action)
        expected = (seat + 1) % n
    rnd: dict[str, Any] = {}
    if hands is not None:
        held = {tuple(sorted(int(x) for x in t.split("-"))) for h in hands for t in h}
        rnd["deal"] = {"hands": hands, "boneyard": canonical_rest(held)}  # type: ignore[arg-type]
    rnd["moves"] = moves
    result = None
    if state.is_terminal():
        returns = [int(r) for r in state.returns()]
        result = {"scores": [max(r, 0) for r in returns],
                  "winners": [p for p, r in enumerate(returns) if r > 0]}
        rnd["result"] = {"points": result["scores"], "winners": result["winners"]}
    return document(engine=f"open_spiel/{game_name}", version=package_version("open_spiel"),
                    ruleset=preset, players=players or [f"openspiel-random-{i}" for i in range(n)],
                    rounds=[rnd] if hands is not None else [], game_id=game_id,
                    result=result)


def play(game_name: str, seed: str | int) -> Any:
    """One game of ``game_name`` played out by uniform random choices from ``seed``."""
    rng = random.Random(seed)
    state = pyspiel.load_game(game_name).new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([o for o, _ in outcomes],
                                           [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return state


def simulate_one(seed: str, *, players: int = 2) -> dict[str, Any]:
    """One seeded random game: block dominoes for 2 players, team dominoes for 4."""
    names = {n: name for name, (_, n) in GAMES.items()}
    if players not in names:
        raise ValueError(f"OpenSpiel dominoes is played by 2 (block) or 4 (team) players, "
                         f"not {players}")
    return state_to_log(play(names[players], seed), game_id=seed)
