"""Replaying a logged game: one walk that everything else consumes.

:func:`walk` yields events (a round starts, a move is about to be applied, a
round ends) and raises a located :class:`RecorderError` at the first thing that
is wrong. :func:`replay` consumes it into the answer of CONTRACT.md; the
analysis, the simulator's self-check and the web viewer consume the same walk
instead of re-implementing it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from recorder.engine import Match, Move, Round, RoundResult
from recorder.errors import (
    GameOverError,
    IllegalMove,
    RecorderError,
    RulesetError,
    SchemaError,
    internal_error,
)
from recorder.rules import Ruleset

log = logging.getLogger(__name__)

MAX_LEGAL_LISTED = 8
_SEAT = re.compile(r"\bseat (\d+)\b")


@dataclass(slots=True)
class RoundStart:
    round: int  # 1-based
    state: Round


@dataclass(slots=True)
class MoveEvent:
    """A move about to be applied; ``state`` is the position before it."""

    round: int
    move_no: int  # 1-based
    move: Move
    state: Round
    ms: float | None


@dataclass(slots=True)
class RoundEnd:
    round: int
    result: RoundResult
    state: Round


Event = RoundStart | MoveEvent | RoundEnd


@dataclass(slots=True)
class Game:
    """The parts of a document the walk needs, checked."""

    rules: Ruleset
    players: list[str]
    seed: str | None
    rounds: list[Any]
    match: Match
    unfinished_round: int = 0  # 1-based number of a round cut off in the middle


def number(x: Fraction | int) -> int | float:
    """A point figure as plain JSON: whole numbers stay ints, the rest full floats."""
    if type(x) is int:
        return x
    if x.denominator == 1:
        return int(x)
    return float(x)


def open_game(doc: Any) -> Game:
    """Check the document as a whole and set up its match, or raise a located error."""
    from recorder.schema import check_document

    check_document(doc)
    try:
        rules = Ruleset.from_spec(doc["ruleset"])
        players = [p["id"] for p in doc["players"]]
        if len(set(players)) != len(players):
            dup = next(p for p in players if players.count(p) > 1)
            raise RulesetError(f'player id "{dup}" appears twice; ids are unique in a game',
                               pointer="/players")
        match = Match(rules, len(players))
    except RulesetError as exc:
        exc.round, exc.move = 0, 0
        raise
    return Game(rules, players, doc.get("seed"), doc["rounds"], match)


def walk(doc: Any, game: Game | None = None, *, moves: bool = True) -> Iterator[Event]:
    """Replay ``doc`` round by round, move by move; raise at the first error.

    With ``moves=False`` only the round events come out and the moves take the
    engine's fast lane: that is what plain validation uses.
    """
    if game is None:
        game = open_game(doc)
    match, ids = game.match, game.players
    for r, rdoc in enumerate(game.rounds, 1):
        if match.over:
            raise GameOverError(
                f"round {r}: the game ended after round {r - 1}; no round may follow",
                round=r, pointer=f"/rounds/{r - 1}",
            )
        if game.unfinished_round:
            raise GameOverError(
                f"round {r}: round {game.unfinished_round} is not finished, so no round may "
                "follow it", round=r, pointer=f"/rounds/{r - 1}",
            )
        try:
            deal = rdoc.get("deal")  # null is the same as absent
            opener = rdoc.get("opener")
            if deal is not None:
                state = match.new_round(deal=deal, opener=opener)
            else:
                seed = rdoc.get("seed")
                if seed is None:
                    if game.seed is None:
                        raise RecorderError(
                            "the round has no seed or deal, and the game has no seed",
                            code="round/deal",
                        )
                    seed = f"{game.seed}/{r}"
                state = match.new_round(seed=seed, opener=opener)
        except RecorderError as exc:
            exc.round, exc.move = r, 0
            exc.message = f"round {r}: {exc.message}"
            if exc.pointer is None:
                exc.pointer = f"/rounds/{r - 1}"
            raise
        yield RoundStart(r, state)
        if moves:
            for m, mdoc in enumerate(rdoc["moves"], 1):
                move = _move(mdoc)
                yield MoveEvent(r, m, move, state, mdoc.get("ms"))
                try:
                    state.apply_fast(move.player, move.action, move.tile, move.end,
                                     mdoc.get("closed"))
                except IllegalMove as exc:
                    raise _locate(exc, r, m, move, state, ids) from None
        else:
            apply_fast = state.apply_fast
            m = 0
            try:
                for m, mdoc in enumerate(rdoc["moves"], 1):  # noqa: B007 - m locates errors
                    get = mdoc.get
                    apply_fast(get("player"), get("action"), get("tile"), get("end"),
                               get("closed"))
            except IllegalMove as exc:
                move = _move(rdoc["moves"][m - 1])
                raise _locate(exc, r, m, move, state, ids) from None
        if state.result is None:
            game.unfinished_round = r
            continue
        match.finish_round(state.result)
        yield RoundEnd(r, state.result, state)


def _move(mdoc: dict[str, Any]) -> Move:
    """A logged move as the engine's Move (``closed`` only on closed doubles)."""
    return Move(mdoc["player"], mdoc["action"], mdoc.get("tile"), mdoc.get("end"),
                mdoc.get("closed") is True)


def _locate(exc: IllegalMove, r: int, m: int, move: Move, state: Round,
            ids: list[str]) -> IllegalMove:
    """Turn the engine's reason into the contract's message: where, who, what, what was legal."""
    who = ids[move.player] if isinstance(move.player, int) and 0 <= move.player < len(ids) \
        else f"seat {move.player!r}"
    seat = move.player if isinstance(move.player, int) else None
    legal = state.legal_moves(seat)
    prefix = ""
    if not legal:  # the mover may do nothing: say who may, and what
        legal = state.legal_moves()
        movers = sorted({x.player for x in legal})
        prefix = " or ".join(ids[p] for p in movers) + " to move: "
    shorts = list(dict.fromkeys(x.short() for x in legal))
    listed = prefix + ", ".join(shorts[:MAX_LEGAL_LISTED])
    if len(shorts) > MAX_LEGAL_LISTED:
        listed += f" and {len(shorts) - MAX_LEGAL_LISTED} more"
    where = f"round {r}, move {m} ({who} {move.text()})"
    # the engine knows seats; the message speaks of players by their ids
    reason = _SEAT.sub(lambda s: ids[int(s[1])] if int(s[1]) < len(ids) else s[0], exc.message)
    message = f"{where}: {reason}" if state.over else f"{where}: {reason}; legal here: {listed}"
    return IllegalMove(message, round=r, move=m, pointer=f"/rounds/{r - 1}/moves/{m - 1}",
                       code=exc.code)


def round_answer(result: RoundResult) -> dict[str, Any]:
    return {
        "winners": list(result.winners),
        "points": [number(x) for x in result.points],
        "bonus": [number(x) for x in result.bonus],
        "blocked": result.blocked,
        "pips_left": list(result.pips_left),
        "ended_by": result.ended_by,
    }


def replay(doc: Any) -> dict[str, Any]:
    """The engine's answer for one document (CONTRACT.md); never raises for a bad log.

    Nor for a bug of its own: an unexpected exception becomes this document's
    ``internal/replay`` refusal, located at the round being replayed, and is logged,
    so that a batch of documents never stops at one.
    """
    rounds: list[dict[str, Any]] = []
    current = 0  # the round being replayed, for locating a failure of our own
    try:
        game = open_game(doc)
        current = 1 if game.rounds else 0
        for event in walk(doc, game, moves=False):
            if type(event) is RoundEnd:
                rounds.append(round_answer(event.result))
                current = event.round + 1 if event.round < len(game.rounds) else 0
        current = 0
        return finish_answer(doc, game, rounds)
    except RecorderError as exc:
        return invalid_answer(doc, exc, rounds)
    except RecursionError:
        return invalid_answer(doc, SchemaError("the document is nested too deeply"), rounds)
    except Exception as exc:
        log.exception("the replay failed on a document (round %s)", current)
        pointer = f"/rounds/{current - 1}" if current else None
        return invalid_answer(doc, internal_error(exc, "replay", round=current,
                                                  pointer=pointer), rounds)


def invalid_answer(doc: Any, exc: RecorderError,
                   rounds: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """An invalid game's answer: the error, and the rounds that were complete before it."""
    game_id = doc.get("game_id") if isinstance(doc, dict) else None
    out: dict[str, Any] = {"game_id": game_id, "status": "invalid", "error": exc.to_dict()}
    if rounds:
        out["rounds"] = rounds
    return out


def finish_answer(doc: dict[str, Any], game: Game,
                  rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The answer of a valid game whose walk is over: status, scores, claims that differ."""
    match = game.match
    answer: dict[str, Any] = {
        "game_id": doc.get("game_id"),
        "status": "finished" if match.over else "unfinished",
        "rounds": rounds,
        "scores": [number(s) for s in match.scores],
        "winners": list(match.winners),
    }
    mismatches = _mismatches(doc, rounds, answer)
    if mismatches:
        answer["mismatches"] = mismatches
    return answer


def _same(claimed: Any, computed: Any) -> bool:
    """Claims are compared with a tolerance of half a hundredth: scores show two decimals."""
    if claimed == computed and type(claimed) is type(computed):
        return True
    if isinstance(claimed, bool) or isinstance(computed, bool):
        return claimed is computed
    if isinstance(claimed, int | float) and isinstance(computed, int | float):
        return abs(claimed - computed) < 0.005
    if isinstance(claimed, list) and isinstance(computed, list):
        return len(claimed) == len(computed) and all(
            _same(a, b) for a, b in zip(claimed, computed, strict=True)
        )
    return bool(claimed == computed)


def _mismatches(doc: dict[str, Any], rounds: list[dict[str, Any]],
                answer: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for r, (rdoc, computed) in enumerate(zip(doc["rounds"], rounds, strict=False), 1):
        claimed = rdoc.get("result")
        if not isinstance(claimed, dict):
            continue
        for field, value in claimed.items():
            if field not in computed or value is None:  # null: nothing claimed
                continue
            mine = computed[field]
            if field == "winners" and isinstance(value, list):
                value = sorted(value, key=str)
            if not _same(value, mine):
                out.append({"round": r, "field": field, "claimed": value, "computed": mine})
    claimed = doc.get("result")
    if isinstance(claimed, dict):
        for field in ("scores", "winners"):
            value = claimed.get(field)
            if value is not None:
                if field == "winners" and isinstance(value, list):
                    value = sorted(value, key=str)
                if not _same(value, answer[field]):
                    out.append({"round": 0, "field": field, "claimed": value,
                                "computed": answer[field]})
    return out


__all__ = [
    "Event", "Game", "MoveEvent", "RoundEnd", "RoundStart", "finish_answer",
    "invalid_answer", "number", "open_game", "replay", "round_answer", "walk",
]
