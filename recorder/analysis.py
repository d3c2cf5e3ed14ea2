"""Facts for the statistics, derived once from a valid log.

Storage keeps these rows so that no dashboard ever re-parses a log: per move
(how many legal moves there were, what the move scored and what the best
alternative would have scored), per round and per player. They come from the
same :func:`recorder.replay.walk` that validates the game.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from recorder.errors import RecorderError, SchemaError, internal_error
from recorder.replay import (
    MoveEvent,
    RoundEnd,
    RoundStart,
    finish_answer,
    invalid_answer,
    number,
    open_game,
    round_answer,
    walk,
)


@dataclass(slots=True)
class MoveFact:
    round: int
    move: int
    player: int
    action: str
    tile: str | None
    end: str | None
    ms: float | None
    legal_count: int
    score: float
    best_score: float
    forced: bool

@dataclass(slots=True)
class RoundFact:
    round: int
    opener: int
    opening_tile: str
    winners: list[int]
    points: list[float]
    bonus: list[float]
    blocked: bool
    pips_left: list[int]
    ended_by: int
    moves: int = 0
    draws: int = 0
    passes: int = 0
    boneyard_left: int = 0

@dataclass(slots=True)
class PlayerFact:
    seat: int
    player_id: str
    name: str | None
    final_score: float = 0
    won: bool = False
    rounds_won: int = 0
    dominoes: int = 0
    bonus_total: float = 0
    plays: int = 0
    draws: int = 0
    passes: int = 0

@dataclass(slots=True)
class GameFacts:
    rounds: list[RoundFact] = field(default_factory=list)
    moves: list[MoveFact] = field(default_factory=list)
    players: list[PlayerFact] = field(default_factory=list)


def game_facts(doc: dict[str, Any]) -> GameFacts:
    """Every fact of a valid game; raises the walk's error for an invalid one."""
    return _walk_facts(doc, [])[1]


def analyse(doc: Any) -> tuple[dict[str, Any], GameFacts | None]:
    """The engine's answer and, for a valid game, its facts, in one walk.

    The answer is the one :func:`recorder.replay.replay` gives (the tests hold the
    two walks to the same verdict); storage needs both, and walking once halves the
    cost of an import.
    """
    answers: list[dict[str, Any]] = []
    try:
        return _walk_facts(doc, answers)
    except RecorderError as exc:
        return invalid_answer(doc, exc, answers), None
    except RecursionError:
        return invalid_answer(doc, SchemaError("the document is nested too deeply"),
                              answers), None
    except Exception as exc:  # a bug of ours: this game's refusal, located at its round
        logging.getLogger(__name__).exception("the replay failed on a document")
        rounds = doc.get("rounds") if isinstance(doc, dict) else None
        current = len(answers) + 1 if isinstance(rounds, list) and \
            len(answers) < len(rounds) else 0
        error = internal_error(exc, "replay", round=current,
                               pointer=f"/rounds/{current - 1}" if current else None)
        return invalid_answer(doc, error, answers), None


def _walk_facts(doc: Any, answers: list[dict[str, Any]]) -> tuple[dict[str, Any], GameFacts]:
    """Walk once; ``answers`` collects the round answers (the caller keeps them on error)."""
    game = open_game(doc)
    facts = GameFacts(players=[
        PlayerFact(seat, p["id"], p.get("name")) for seat, p in enumerate(doc["players"])
    ])
    players = facts.players
    counts = {"play": 0, "draw": 0, "pass": 0}
    opener, opening_tile = -1, ""
    pending: MoveFact | None = None
    pending_bonus = 0
    state = None
    for event in walk(doc, game):
        state = event.state
        if pending is not None:  # the previous move has been applied: what did it score?
            pending.score = state.bonus[pending.player] - pending_bonus
            pending = None
        if type(event) is MoveEvent:
            move = event.move
            seat = move.player
            action = move.action
            if not 0 <= seat < len(players):
                continue  # no such seat: the walk refuses this move next
            if action == "play" and opener < 0:
                opener, opening_tile = seat, str(move.tile)
            counts[action] += 1
            legal_count, best = state.options(seat)
            pending = MoveFact(event.round, event.move_no, seat, action, move.tile,
                               move.end, event.ms, legal_count, 0, best, legal_count == 1)
            pending_bonus = state.bonus[seat]
            facts.moves.append(pending)
            player = players[seat]
            if action == "play":
                player.plays += 1
            elif action == "draw":
                player.draws += 1
            else:
                player.passes += 1
        elif type(event) is RoundStart:
            counts = {"play": 0, "draw": 0, "pass": 0}
            opener, opening_tile = -1, ""
        elif type(event) is RoundEnd:
            result = event.result
            answer = round_answer(result)
            answers.append(answer)
            facts.rounds.append(RoundFact(
                event.round, opener, opening_tile, answer["winners"], answer["points"],
                answer["bonus"], result.blocked, answer["pips_left"], result.ended_by,
                sum(counts.values()), counts["draw"], counts["pass"],
                state.boneyard_left(),
            ))
            for seat in result.winners:
                players[seat].rounds_won += 1
            if not result.blocked:
                players[result.ended_by].dominoes += 1
            for seat, bonus in enumerate(result.bonus):
                players[seat].bonus_total = number(players[seat].bonus_total + bonus)
    if pending is not None and state is not None:  # a round cut off after its last move
        pending.score = state.bonus[pending.player] - pending_bonus
    match = game.match
    for seat, player in enumerate(players):
        player.final_score = number(match.scores[seat])
        player.won = seat in match.winners
    return finish_answer(doc, game, answers), facts
