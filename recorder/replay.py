"""Replaying a logged game: one walk that everything else consumes.

:func:`walk` yields events (a round starts, a move is about to be applied, a
round ends) and raises a located :class:`RecorderError` at the first thing that
is wrong. :func:`replay` consumes it into the answer of docs/format.md; the
analysis, the simulator's self-check and the web viewer consume the same walk
instead of re-implementing it.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

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

MAX_LEGAL_LISTED: Final = 8
_SEAT = re.compile(r"\bseat (\d+)\b")


# The walk's events are plain classes with their own __init__, not dataclasses: the
# walk makes one per move, and the compiled core compiles these constructors (a
# dataclass's generated ones stay interpreted, several times slower).


class RoundStart:
    __slots__ = ("round", "state")

    def __init__(self, round: int, state: Round) -> None:
        self.round = round  # 1-based
        self.state = state


class MoveEvent:
    """A move about to be applied; ``state`` is the position before it."""

    __slots__ = ("round", "move_no", "move", "state", "ms")

    def __init__(self, round: int, move_no: int, move: Move, state: Round, ms: Any) -> None:
        self.round = round
        self.move_no = move_no  # 1-based
        self.move = move
        self.state = state
        self.ms = ms  # as logged: a number or None


class RoundEnd:
    __slots__ = ("round", "result", "state")

    def __init__(self, round: int, result: RoundResult, state: Round) -> None:
        self.round = round
        self.result = result
        self.state = state


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
    moves_unchecked: bool = False
    """The moves' own fields are not checked yet (``open_game(doc, moves=False)``):
    the fast walk checks each as it reads it."""


def number(x: Fraction | int | float) -> int | float:
    """A point figure as plain JSON: whole numbers stay ints, the rest full floats."""
    if type(x) is int or isinstance(x, float):
        return x
    if x.denominator == 1:
        return int(x)
    return float(x)


def open_game(doc: Any, *, moves: bool = True) -> Game:
    """Check the document as a whole and set up its match, or raise a located error.

    ``moves=False`` leaves the moves' own fields to the fast walk (``walk(doc, game,
    moves=False)``), which checks each as it reads it: the moves' dictionaries are
    then read once, not twice. Whoever walks such a game must call
    :func:`schema_first` before reporting an error of the walk.
    """
    # imported here, not with the module: a broken installation (its schema file
    # missing) is then reported by the command that needs it, not by every import
    from recorder.schema import check_document

    check_document(doc, moves=moves)
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
    return Game(rules, players, doc.get("seed"), doc["rounds"], match,
                moves_unchecked=not moves)


def schema_first(doc: Any, game: Game) -> None:
    """Before an error of the walk is reported: the document's shape error, if it has
    one, which comes first (docs/format.md), as when the whole document is checked
    ahead. Needed only while the fast walk has not read every move."""
    if game.moves_unchecked:
        from recorder.schema import check_document

        check_document(doc)
        game.moves_unchecked = False


def walk(doc: Any, game: Game | None = None, *, moves: bool = True) -> Iterator[Event]:
    """Replay ``doc`` round by round, move by move; raise at the first error.

    With ``moves=False`` only the round events come out and the moves take the
    engine's fast lane: that is what plain validation uses. Only that lane checks the
    moves' shape as it reads them (a game opened with ``open_game(doc, moves=False)``);
    the other has them checked first.
    """
    from recorder.schema import move_ok

    if game is None:
        game = open_game(doc)
    elif moves:
        schema_first(doc, game)  # every move's shape, before any of them is read
    match, ids = game.match, game.players
    for r, rdoc in enumerate(game.rounds, 1):
        state = start_round(doc, game, r, rdoc)
        yield RoundStart(r, state)
        if moves:
            for m, mdoc in enumerate(rdoc["moves"], 1):
                move = _move(mdoc)
                yield MoveEvent(r, m, move, state, mdoc.get("ms"))
                try:
                    if mdoc.get("closed") is None:
                        state.apply_fast(move.player, move.action, move.tile, move.end)
                    else:  # a closed double: rare, the careful lane checks it
                        state.apply(move)
                except IllegalMove as exc:
                    raise _locate(exc, r, m, move, state, ids,
                                  _hint(exc, move, state, doc, r, m, match)) from None
        else:
            m = 0
            logged: list[Any] = rdoc["moves"]
            try:
                for m, mdoc in enumerate(logged, 1):
                    if type(mdoc) is not dict:
                        schema_first(doc, game)  # not a move: the schema says why
                        # the schema let it through: a bug, never a move skipped
                        raise TypeError(f"move {m} of round {r} is not an object")
                    # typed for the compiled core: the reads and the calls are direct
                    move_doc: dict[str, Any] = mdoc
                    player = move_doc.get("player")
                    action = move_doc.get("action")
                    tile = move_doc.get("tile")
                    end = move_doc.get("end")
                    closed = move_doc.get("closed")
                    if game.moves_unchecked and not move_ok(move_doc, player, action, tile,
                                                            end, closed):
                        schema_first(doc, game)  # raises the move's shape error
                    if closed is None:
                        state.apply_fast(player, action, tile, end)
                    else:  # a closed double: rare, the careful lane checks it
                        state.apply(_move(move_doc))
            except IllegalMove as exc:
                move = _move(rdoc["moves"][m - 1])
                raise _locate(exc, r, m, move, state, ids,
                              _hint(exc, move, state, doc, r, m, match)) from None
        if state.result is None:
            game.unfinished_round = r
            continue
        match.finish_round(state.result)
        yield RoundEnd(r, state.result, state)


def start_round(doc: Any, game: Game, r: int, rdoc: Any) -> Round:
    """Round ``r``'s deal (from the log's deal or seed), or the located error that no
    round may be played here; every walk of a log starts its rounds here."""
    match = game.match
    if match.over:
        raise GameOverError(
            f"round {r}: the game ended after round {r - 1}; no round may follow"
            + _over_hint(doc, game), round=r, pointer=f"/rounds/{r - 1}",
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
            return match.new_round(deal=deal, opener=opener)
        seed = rdoc.get("seed")
        if seed is None:
            if game.seed is None:
                raise RecorderError(
                    "the round has no seed or deal, and the game has no seed",
                    code="round/deal",
                )
            seed = f"{game.seed}/{r}"
        return match.new_round(seed=seed, opener=opener)
    except RecorderError as exc:
        exc.round, exc.move = r, 0
        exc.message = f"round {r}: {exc.message}"
        if exc.pointer is None:
            exc.pointer = f"/rounds/{r - 1}"
        raise


def _hint(exc: IllegalMove, move: Move, state: Round, doc: Any, r: int, m: int,
          match: Match) -> str:
    """What the refusal adds about its likely cause (:mod:`recorder.hints`, loaded now)."""
    from recorder.hints import refusal_hint

    return refusal_hint(exc, move, state, doc, r, m, match)


def _move(mdoc: dict[str, Any]) -> Move:
    """A logged move as the engine's Move (``closed`` only on closed doubles)."""
    return Move(mdoc["player"], mdoc["action"], mdoc.get("tile"), mdoc.get("end"),
                mdoc.get("closed") is True)


def _locate(exc: IllegalMove, r: int, m: int, move: Move, state: Round,
            ids: list[str], hint: str = "") -> IllegalMove:
    """Turn the engine's reason into the contract's message: where, who, what, what was legal."""
    what, why = refusal_words(exc.message, move, state, ids)
    message = f"round {r}, move {m} ({what}): {why}{hint}"
    return IllegalMove(message, round=r, move=m, pointer=f"/rounds/{r - 1}/moves/{m - 1}",
                       code=exc.code)


def refusal_words(reason: str, move: Move, state: Round,
                  names: Sequence[str]) -> tuple[str, str]:
    """The refused move in words, and the engine's ``reason`` with what was legal instead.

    ``state`` is the round before the move; players are called by ``names`` (the
    contract's message uses their ids, the replay page the names it shows).
    """
    seat = move.player if isinstance(move.player, int) else None
    who = names[seat] if seat is not None and 0 <= seat < len(names) \
        else f"seat {move.player!r}"
    legal = state.legal_moves(seat)
    prefix = ""
    if not legal:  # the mover may do nothing: say who may, and what
        legal = state.legal_moves()
        movers = sorted({x.player for x in legal})
        prefix = " or ".join(names[p] for p in movers) + " to move: "
    shorts = list(dict.fromkeys(x.short() for x in legal))
    listed = prefix + ", ".join(shorts[:MAX_LEGAL_LISTED])
    if len(shorts) > MAX_LEGAL_LISTED:
        listed += f" and {len(shorts) - MAX_LEGAL_LISTED} more"
    # the engine knows seats; the words speak of players by name
    why = _SEAT.sub(lambda s: names[int(s[1])] if int(s[1]) < len(names) else s[0], reason)
    if not state.over:
        why += f"; legal here: {listed}"
    return f"{who} {move.text()}", why


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
    """The engine's answer for one document (docs/format.md); never raises for a bad log.

    Nor for a bug of its own: an unexpected exception becomes this document's
    ``internal/replay`` refusal, located at the round being replayed, and is logged,
    so that a batch of documents never stops at one.
    """
    rounds: list[dict[str, Any]] = []
    current = 0  # the round being replayed, for locating a failure of our own
    try:
        game = open_game(doc, moves=False)  # the walk checks each move as it reads it
        current = 1 if game.rounds else 0
        try:
            for event in walk(doc, game, moves=False):
                if type(event) is RoundEnd:
                    rounds.append(round_answer(event.result))
                    current = event.round + 1 if event.round < len(game.rounds) else 0
        except RecorderError:
            try:
                schema_first(doc, game)
            except SchemaError:
                rounds = []  # a shape error is the document's, before any round
                raise
            raise
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


def _over_hint(doc: dict[str, Any], game: Game) -> str:
    """Why the engine's game ended before the log's: its scores, and where the claims part."""
    rounds = [round_answer(x) for x in game.match.results]
    scores = ", ".join(_text(number(s)) for s in game.match.scores)
    rules = game.rules
    goal = "reaching it loses" if rules.target_mode == "reach-loses" else "reaching it wins"
    out = f" (the engine's scores after round {len(rounds)} are {scores}; target {rules.target}, " \
        f"{goal}"
    part = scores_part(doc, rounds)
    if part is not None:
        out += "; " + part_text(part, game.players, part_detail(doc, rounds, part, game.players))
    elif not any(isinstance(r, dict) and isinstance(r.get("result"), dict)
                 for r in doc["rounds"]):
        out += "; claim each round's result (points, bonus) to see where the frontend's " \
            "scores part from the engine's"
    return out + ")"


def scores_part(doc: dict[str, Any], rounds: list[dict[str, Any]],
                final: list[Any] | None = None) -> dict[str, Any] | None:
    """The first round after which the log's claimed running scores differ from the engine's.

    Claimed running scores add up each round's claimed ``points`` and ``bonus`` (the
    engine's figure where a round claims none). ``final``, the engine's final scores,
    also compares the game's claimed ``result.scores`` when no round explains it
    (then ``round`` is 0). ``by`` is claimed minus computed, per player.
    """
    claimed_total: list[float] = []
    computed_total: list[float] = []
    for r, computed in enumerate(rounds, 1):
        rdoc = doc["rounds"][r - 1] if r - 1 < len(doc["rounds"]) else {}
        claim = rdoc.get("result") if isinstance(rdoc, dict) else None
        claim = claim if isinstance(claim, dict) else {}
        n = len(computed["points"])
        if not claimed_total:
            claimed_total, computed_total = [0.0] * n, [0.0] * n
        for field in ("points", "bonus"):
            mine = computed[field]
            value = claim.get(field)
            usable = isinstance(value, list) and len(value) == n and all(
                isinstance(x, int | float) and not isinstance(x, bool) for x in value)
            theirs = value if usable and isinstance(value, list) else mine
            for p in range(n):
                claimed_total[p] += theirs[p]
                computed_total[p] += mine[p]
        if not _same(claimed_total, computed_total):
            return _part(r, claimed_total, computed_total)
    claim = doc.get("result")
    scores = claim.get("scores") if isinstance(claim, dict) else None
    if final is not None and isinstance(scores, list) and len(scores) == len(final) and all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in scores) and \
            not _same(scores, final):
        return _part(0, [float(x) for x in scores], [float(x) for x in final])
    return None


def _part(r: int, claimed: list[float], computed: list[float]) -> dict[str, Any]:
    def tidy(x: float) -> int | float:
        return round(x) if abs(x - round(x)) < 1e-9 else round(x, 6)

    return {"round": r, "claimed": [tidy(x) for x in claimed],
            "computed": [tidy(x) for x in computed],
            "by": [tidy(a - b) for a, b in zip(claimed, computed, strict=True)]}


def part_text(part: dict[str, Any], ids: list[str], detail: str = "") -> str:
    """A scores part in words: where, and by how much for whom; ``detail`` says why
    (:func:`part_detail`)."""
    who = ", ".join(f"{ids[p]} {_signed(d)}" for p, d in enumerate(part["by"])
                    if abs(d) >= 0.005)
    if part["round"] == 0:
        return f"the claimed final scores differ from the engine's: {who} (claimed minus " \
            "computed)"
    text = f"the claimed scores first differ from the engine's after round {part['round']}: " \
        f"{who} (claimed minus computed)"
    return f"{text}; {detail}" if detail else text


def part_detail(doc: dict[str, Any], rounds: list[dict[str, Any]], part: dict[str, Any],
                ids: list[str], named: dict[str, Any] | None = None) -> str:
    """Which claim of the part's round differs ("round 1's claimed bonus 20, 20, 0; the
    engine's 40, 15, 25"), and for a bonus, the wrong reading of the rule that gives it.
    ``named``: a claim the reader has been told of already, not repeated."""
    claim = round_claim(doc, rounds, part["round"]) if part["round"] else None
    if claim is None:
        return ""
    text = "" if claim == named else claim_text(claim, ids)
    if claim["field"] == "bonus":
        from recorder.hints import bonus_reading

        reading = bonus_reading(doc, part["round"], claim["claimed"])
        if reading:
            text = f"{text}: {reading}" if text else reading
    return text


_FIELD_WORDS: Final = {"pips_left": "pips left", "ended_by": "last move by"}


def claim_text(mismatch: dict[str, Any], ids: list[str]) -> str:
    """One differing claim in words: "round 1's claimed bonus 20, 20, 0; the engine's 40,
    15, 25"."""
    r, field = mismatch["round"], str(mismatch["field"])
    where = f"round {r}'s" if r else "the game's"
    return (f"{where} claimed {_FIELD_WORDS.get(field, field)} "
            f"{_figures(field, mismatch['claimed'], ids)}; the engine's "
            f"{_figures(field, mismatch['computed'], ids)}")


def claims_text(mismatches: list[dict[str, Any]], ids: list[str]) -> str:
    """The first differing claim, and how many more there are."""
    text = claim_text(mismatches[0], ids)
    more = len(mismatches) - 1
    if more:
        text += f" (and {more} more claimed {'figure differs' if more == 1 else 'figures differ'})"
    return text


def _figures(field: str, value: Any, ids: list[str]) -> str:
    def one(x: Any) -> str:
        if field in ("winners", "ended_by") and type(x) is int:
            return ids[x] if 0 <= x < len(ids) else f"seat {x}"
        if isinstance(x, bool):
            return "true" if x else "false"
        if isinstance(x, int | float):
            return _text(x)
        return str(x)

    if isinstance(value, list):
        return ", ".join(one(x) for x in value) or "none"
    return one(value)


def round_claim(doc: dict[str, Any], rounds: list[dict[str, Any]], r: int) -> dict[str, Any] | None:
    """Round ``r``'s first claimed points or bonus that differ from the engine's, as a
    mismatch: what makes the running scores part after that round."""
    rdoc = doc["rounds"][r - 1] if 0 < r <= len(doc["rounds"]) else None
    claim = rdoc.get("result") if isinstance(rdoc, dict) else None
    if not isinstance(claim, dict) or r > len(rounds):
        return None
    for field in ("points", "bonus"):
        value = claim.get(field)
        if value is not None and not _same(value, rounds[r - 1][field]):
            return {"round": r, "field": field, "claimed": value,
                    "computed": rounds[r - 1][field]}
    return None


def _signed(x: float) -> str:
    return ("+" if x > 0 else "") + _text(x)


def _text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


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
        part = scores_part(doc, rounds, answer["scores"])
        if part is not None:
            answer["scores_differ"] = part
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
            mine = computed.get(field)
            if mine is None or value is None:  # not ours to compare, or nothing claimed
                continue
            if field == "winners" and isinstance(value, list) and len(value) > 1:
                value = sorted(value, key=str)
            if value == mine and type(value) is type(mine):
                continue  # the common case, decided without walking the values
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
    "Event", "Game", "MoveEvent", "RoundEnd", "RoundStart", "claim_text", "claims_text",
    "finish_answer", "invalid_answer", "number", "open_game", "part_detail", "part_text",
    "refusal_words", "replay", "round_answer", "round_claim", "scores_part", "start_round",
    "walk",
]
