"""all-fives-domino as domino-log/1.

The package (imported as ``src.main.game``) plays All Fives for two players: 7 tiles
each, the holder of the first double of 5-5, 1-1, 2-2, 3-3, 4-4, 6-6, 0-0 opens with
it (nobody: each player draws one tile and the doubles are looked for again), the
opening double becomes a spinner once both its sides are covered, and then a double
may be played closed; a player draws until a tile fits but never the stock's last
tile; every play that makes the ends a multiple of 5 scores it; the round goes to
the lower pips left (a tie's pips wait for the next round's winner) and the game to
the first player to reach 305, at any moment (preset ``all-fives``).

Its board is a tree of pieces that forgets the order of play and who drew what, so
a game is recorded while it is played: :class:`RecordingPlayer` is the package's
``Player`` that notes every tile it draws or plays and every change of its score,
without changing how the game runs. :func:`game_to_log` turns a game played by
two of them into a document.
"""

from __future__ import annotations

import contextlib
import io
import random
from dataclasses import dataclass, field
from typing import Any

import src.main.game.Player as player_module
from src.main.game.Brain import AllFivesGreedyBrain, Brain, RandomBrain
from src.main.game.Game import Game
from src.main.game.Hand import Hand
from src.main.game.Player import Player

from recorder.adapters import document, package_version, tile

PRESET = "all-fives"
HAND_SIZE = 7
ARMS = ("left", "right", "up")  # the spinner's sides in the order they are covered

BRAINS: dict[str, type[Brain]] = {"random": RandomBrain, "greedy": AllFivesGreedyBrain}


@dataclass
class _Round:
    """What happened in one round, in order: the engine keeps only its final board."""

    engine_round: Any
    events: list[tuple[str, int, Any]] = field(default_factory=list)


@dataclass
class Journal:
    """The rounds of one game, shared by its two recording players."""

    rounds: list[_Round] = field(default_factory=list)
    target: int = 305  # the score that ended the game: the package's TARGET_SCORE

    def note(self, engine_round: Any, kind: str, seat: int, what: Any) -> None:
        if not self.rounds or self.rounds[-1].engine_round is not engine_round:
            self.rounds.append(_Round(engine_round))
        self.rounds[-1].events.append((kind, seat, what))


class _RecordingHand(Hand):
    """A hand that tells its player which piece leaves it: a piece leaves only to be played."""

    _player: RecordingPlayer

    def pop(self, piece: Any) -> Any:
        self._player._noted("play", list(piece.sides))
        return super().pop(piece)


class RecordingPlayer(Player):
    """The package's player, noting its draws, plays and score changes in a :class:`Journal`."""

    def __init__(self, brain: Brain, name: str, journal: Journal, seat: int) -> None:
        self._journal = journal
        self._seat = seat
        super().__init__(brain, name)

    def _noted(self, kind: str, what: Any) -> None:
        if self.round is not None:
            self._journal.note(self.round, kind, self._seat, what)

    @property  # type: ignore[override]
    def hand(self) -> Hand:
        return self._hand

    @hand.setter
    def hand(self, value: Hand) -> None:
        value.__class__ = _RecordingHand
        value._player = self  # type: ignore[attr-defined]
        self._hand = value

    @property  # type: ignore[override]
    def score(self) -> int:
        return self._score

    @score.setter
    def score(self, value: int) -> None:
        self._noted("score", value - self._score)
        Player.score.fset(self, value)  # type: ignore[attr-defined]  # may end the game

    def draw(self) -> None:
        self._noted("draw", list(self.round.pool[-1].sides))
        super().draw()


def new_game(brains: tuple[str, str] = ("random", "greedy"),
             names: tuple[str, str] | None = None) -> tuple[Any, Journal]:
    """A game of two recording players (not yet run) and its journal.

    The names become the players' ids in the log: by default the brain and the seat.
    """
    journal = Journal()
    names = names or (f"all-fives-{brains[0]}-0", f"all-fives-{brains[1]}-1")
    players = [RecordingPlayer(BRAINS[b](), n, journal, s)
               for s, (b, n) in enumerate(zip(brains, names, strict=True))]
    return Game(players[0], players[1]), journal


def play(seed: str, brains: tuple[str, str] = ("random", "greedy"), *,
         target: int | None = None) -> tuple[Any, Journal]:
    """One whole game, seeded: the package deals and chooses with the global ``random``,
    whose state is set from ``seed`` for the game and put back afterwards.

    The package's target is a module constant (``TARGET_SCORE``, 305, read by its
    ``Player``); ``target`` sets it for this game and puts it back after.
    """
    game, journal = new_game(brains)
    saved, saved_target = random.getstate(), player_module.TARGET_SCORE
    try:
        random.seed(seed)
        if target is not None:
            player_module.TARGET_SCORE = target
        journal.target = player_module.TARGET_SCORE
        with contextlib.redirect_stdout(io.StringIO()):  # it prints the winner
            game.run()
    finally:
        random.setstate(saved)
        player_module.TARGET_SCORE = saved_target
    return game, journal


def _arm(board: Any, sides: list[int]) -> tuple[str | None, bool]:
    """Which side of the spinner the piece's line hangs from, and whether it was closed."""
    piece = board.find_piece(sides)
    if piece is board.origin:
        return None, False
    node = piece
    while node.linked_to is not board.origin:
        node = node.linked_to
    return ARMS[board.origin.linked.index(node)], bool(piece.closed)


def _round_doc(rec: _Round) -> tuple[dict[str, Any], list[int], list[int]]:
    """A round of the log, and the bonus and the points each seat got in it."""
    events = rec.events
    board = rec.engine_round.board
    hands: list[list[str]] = [[], []]
    drawn: list[str] = []
    moves: list[dict[str, Any]] = []
    bonus, points = [0, 0], [0, 0]
    expected: int | None = None  # whose turn it is once the round is opened
    after_play = False
    dealt = 0
    for kind, seat, what in events:
        if kind == "draw":
            if dealt < 2 * HAND_SIZE:
                hands[seat].append(tile(*what))
                dealt += 1
                continue
            drawn.append(tile(*what))
            moves.append({"player": seat, "action": "draw", "tile": tile(*what)})
        elif kind == "play":
            if expected is not None and seat != expected:  # the other seat could not play
                moves.append({"player": expected, "action": "pass"})
            move: dict[str, Any] = {"player": seat, "action": "play", "tile": tile(*what)}
            end, closed = _arm(board, what)
            if end is not None:
                move["end"] = end
            if closed:
                move["closed"] = True
            moves.append(move)
            expected = 1 - seat
            after_play = True
            continue
        else:  # a score change: a play's bonus right after it, else the round's points
            (bonus if after_play else points)[seat] += what
        after_play = False
    rest = [tile(*p.sides) for p in reversed(rec.engine_round.pool)]
    rnd = {"deal": {"hands": hands, "boneyard": drawn + rest}, "moves": moves,
           "result": {"bonus": bonus, "points": points}}
    return rnd, bonus, points


def game_to_log(game: Any, journal: Journal, *, game_id: str | None = None) -> dict[str, Any]:
    """A game played by :class:`RecordingPlayer` s (see :func:`new_game`) as a document."""
    rounds = [_round_doc(rec)[0] for rec in journal.rounds]
    players = [game.player1, game.player2]
    scores = [p.score for p in players]
    target = journal.target
    result: dict[str, Any] = {"scores": scores,
                              "winners": [s for s, x in enumerate(scores) if x >= target]}
    ruleset: str | dict[str, Any] = PRESET
    if target != 305:
        ruleset = {"preset": PRESET, "options": {"target": target}}
    return document(engine="all-fives-domino", version=package_version("all-fives-domino"),
                    ruleset=ruleset, players=[p.name for p in players], rounds=rounds,
                    game_id=game_id, result=result)


def simulate_one(seed: str, *, players: int = 2,
                 brains: tuple[str, str] = ("random", "greedy"),
                 target: int | None = None) -> dict[str, Any]:
    """One seeded game of the package's random brain against its greedy one."""
    if players != 2:
        raise ValueError(f"all-fives-domino is played by 2 players, not {players}")
    game, journal = play(seed, brains, target=target)
    return game_to_log(game, journal, game_id=seed)
