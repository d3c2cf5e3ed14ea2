"""The ``dominoes`` package (abw333) as domino-log/1.

A ``dominoes.Game`` is one hand for four players in two teams (0+2, 1+3), 7 tiles
each and no boneyard: a given player opens with any tile (or the holder of a given
tile opens with it), a player who cannot play passes, a domino scores every other
hand's pips (the partner's too), and a blocked hand gives the lower team both teams'
pips (preset ``dominoes-partners``). A ``dominoes.Series`` plays hands until a team
reaches its target (200), the next opener chosen from the last result: each round
of the log names its ``opener``.

A finished game keeps its moves (passes as ``None``), its starting player and the
hands left, so the deal is those hands plus what each seat played.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import dominoes

from recorder.adapters import canonical_rest, document, package_version, tile

PRESET = "dominoes-partners"
DEFAULT_TARGET = 200


def _round(game: Any) -> dict[str, Any]:
    """One hand as a round of the log: its deal, its opener and its moves."""
    played: list[list[Any]] = [[] for _ in range(4)]
    moves: list[dict[str, Any]] = []
    seat = game.starting_player
    for i, entry in enumerate(game.moves):
        if entry is None:
            moves.append({"player": seat, "action": "pass"})
        else:
            d, left = entry
            played[seat].append(d)
            move: dict[str, Any] = {"player": seat, "action": "play",
                                    "tile": tile(d.first, d.second)}
            if i:
                move["end"] = "left" if left else "right"
            moves.append(move)
        seat = dominoes.game.next_player(seat)
    hands = [[tile(d.first, d.second) for d in played[p] + list(game.hands[p])]
             for p in range(4)]
    held = {(min(d.first, d.second), max(d.first, d.second))
            for p in range(4) for d in played[p] + list(game.hands[p])}
    rnd: dict[str, Any] = {"deal": {"hands": hands, "boneyard": canonical_rest(held)},
                           "opener": game.starting_player, "moves": moves}
    if game.result is not None:
        rnd["result"] = {"points": _points(game.result.points),
                         "winners": _winners(game.result.points)}
    return rnd


def _points(points: int) -> list[int]:
    """The package's signed figure (team 0 positive) as points by seat."""
    team0, team1 = max(points, 0), max(-points, 0)
    return [team0, team1, team0, team1]


def _winners(points: int) -> list[int]:
    return [0, 2] if points > 0 else [1, 3] if points < 0 else []


def game_to_log(game: Any, *, game_id: str | None = None,
                players: Sequence[str] | None = None) -> dict[str, Any]:
    """One ``dominoes.Game`` (a single hand) as a document of one round (``hands: 1``)."""
    result = None
    if game.result is not None:
        result = {"scores": _points(game.result.points),
                  "winners": _winners(game.result.points)}
    return document(engine="dominoes", version=package_version("dominoes"),
                    ruleset={"preset": PRESET, "options": {"hands": 1}},
                    players=players or [f"dominoes-random-{i}" for i in range(4)],
                    rounds=[_round(game)], game_id=game_id, result=result)


def series_to_log(series: Any, *, game_id: str | None = None,
                  players: Sequence[str] | None = None) -> dict[str, Any]:
    """A ``dominoes.Series`` as a document of one round a game, to its target."""
    ruleset: str | dict[str, Any] = PRESET
    if series.target_score != DEFAULT_TARGET:
        ruleset = {"preset": PRESET, "options": {"target": series.target_score}}
    result = None
    if series.is_over():
        t0, t1 = series.scores
        winners = [0, 2] if t0 >= series.target_score else [1, 3]
        result = {"scores": [t0, t1, t0, t1], "winners": winners}
    return document(engine="dominoes", version=package_version("dominoes"), ruleset=ruleset,
                    players=players or [f"dominoes-random-{i}" for i in range(4)],
                    rounds=[_round(g) for g in series.games], game_id=game_id,
                    result=result)


def play_game(seed: str, *, starting_player: int = 0) -> Any:
    """One hand played by the package's ``random`` player, seeded.

    The package shuffles and chooses with the global ``random`` module; its state is
    set from ``seed`` for the game and put back afterwards.
    """
    saved = random.getstate()
    try:
        random.seed(seed)
        game = dominoes.Game.new(starting_player=starting_player)
        _finish(game)
    finally:
        random.setstate(saved)
    return game


def play_series(seed: str, *, target: int = DEFAULT_TARGET) -> Any:
    """A series to ``target`` played by the package's ``random`` player, seeded."""
    saved = random.getstate()
    try:
        random.seed(seed)
        series = dominoes.Series(target_score=target)
        while True:
            _finish(series.games[-1])
            if series.next_game() is None:
                break
    finally:
        random.setstate(saved)
    return series


def _finish(game: Any) -> None:
    while game.result is None:
        dominoes.players.random(game)
        game.make_move(*game.valid_moves[0])


def simulate_one(seed: str, *, series: bool = False, target: int = DEFAULT_TARGET,
                 players: int = 4) -> dict[str, Any]:
    """One seeded game (a single hand) or, with ``series``, a whole series."""
    if players != 4:
        raise ValueError(f"dominoes is played by 4 players, not {players}")
    if series:
        return series_to_log(play_series(seed, target=target), game_id=seed)
    return game_to_log(play_game(seed), game_id=seed)
