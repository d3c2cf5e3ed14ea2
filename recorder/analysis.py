"""Facts for the statistics, derived once from a valid log.

Storage keeps these rows so that no dashboard ever re-parses a log: per move
(how many legal moves there were, what the move scored and what the best
alternative would have scored), per round and per player. They come from the
walk that validates the game: the fast lane of :func:`recorder.replay.replay`, each
move read once, with the facts taken as it goes.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Final

from recorder.blocking import certain_from
from recorder.engine import END_NAMES, Round
from recorder.errors import IllegalMove, RecorderError, SchemaError, internal_error
from recorder.replay import (
    Game,
    _hint,
    _locate,
    _move,
    finish_answer,
    invalid_answer,
    number,
    open_game,
    round_answer,
    schema_first,
    start_round,
)
from recorder.schema import move_ok

ENDINGS: Final = ("domino", "blocked", "target")
"""The ways a round can end, as the ``rounds.ending`` column names them."""

_MOVE_FACT_FIELDS: Final = (
    "round", "move", "player", "action", "tile", "end", "ms", "legal_count", "score",
    "best_score", "forced", "pips", "best_pips", "least_pips", "double", "double_choice",
    "next_stuck")


def _flag_or_none(value: bool | None) -> int | None:
    return None if value is None else (1 if value else 0)


class MoveFact:
    """What the statistics keep of one move (a row of the ``moves`` table).

    A plain class with its own ``__init__``, not a dataclass: the import builds one
    per move, and the compiled core compiles this constructor (a dataclass's generated
    one stays interpreted, several times slower).
    """

    __slots__ = _MOVE_FACT_FIELDS

    def __init__(self, round: int, move: int, player: int, action: str, tile: str | None,
                 end: str | None, ms: int | float | None, legal_count: int,
                 score: int | float, best_score: int | float, forced: bool,
                 pips: int | None = None, best_pips: int | None = None,
                 least_pips: int | None = None, double: bool | None = None,
                 double_choice: bool | None = None, next_stuck: bool | None = None) -> None:
        self.round = round
        self.move = move
        self.player = player
        self.action = action
        self.tile = tile
        self.end = end
        self.ms = ms
        self.legal_count = legal_count
        self.score = score
        self.best_score = best_score
        self.forced = forced
        #: pips of the played tile; the next three are for plays only too
        self.pips = pips
        #: pips of the heaviest tile the player could have played
        self.best_pips = best_pips
        #: pips of the lightest tile the player could have played
        self.least_pips = least_pips
        #: whether the played tile is a double
        self.double = double
        #: whether both a double and a non-double could have been played
        self.double_choice = double_choice
        #: whether the next player was left without a legal tile (None: the play ended
        #: the round)
        self.next_stuck = next_stuck

    def as_row(self) -> tuple[Any, ...]:
        """The fields in order, flags as 0/1 (None stays None): a row as SQL stores it.

        Built here, in the compiled core, because the import makes one per move.
        """
        return (self.round, self.move, self.player, self.action, self.tile, self.end,
                self.ms, self.legal_count, self.score, self.best_score,
                1 if self.forced else 0, self.pips, self.best_pips, self.least_pips,
                _flag_or_none(self.double), _flag_or_none(self.double_choice),
                _flag_or_none(self.next_stuck))

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in _MOVE_FACT_FIELDS)
        return f"MoveFact({fields})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, MoveFact):
            return NotImplemented
        return all(getattr(self, n) == getattr(other, n) for n in _MOVE_FACT_FIELDS)


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
    block_certain: int | None = None
    """Blocked rounds: the move after which only a block could follow (None: not known)."""
    ending: str = ""
    """How the round ended (:data:`ENDINGS`): ``domino`` (a player played their last tile),
    ``blocked`` (nobody could play or draw) or ``target`` (a play took a score to the
    target, under ``target_check: play``, and the game ended at once)."""

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
    bonus_points: float = 0
    """Bonus this player scored with their own plays (``bonus_total`` is the side's)."""
    bonus_plays: int = 0

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
    """Walk once; ``answers`` collects the round answers (the caller keeps them on error).

    The walk of :func:`recorder.replay.walk`'s fast lane, with the facts taken as each
    move is read: no event, ``Move`` or per-move dictionary is made, and each move's
    shape is checked as it is read (``schema.move_ok``), so its dictionary is read once.
    Any error of the walk first asks the whole schema, so that a shape error comes first
    and alone, as when the document is checked ahead (``replay`` does the same).
    """
    game = open_game(doc, moves=False)
    try:
        return _walk_facts_of(doc, game, answers)
    except (RecorderError, RecursionError):
        try:
            schema_first(doc, game)
        except (SchemaError, RecursionError):  # nested too deep is a shape error too
            answers.clear()  # a shape error is the document's, before any round
            raise
        raise


def _walk_facts_of(doc: dict[str, Any], game: Game,
                   answers: list[dict[str, Any]]) -> tuple[dict[str, Any], GameFacts]:
    facts = GameFacts(players=[
        PlayerFact(seat, p["id"], p.get("name")) for seat, p in enumerate(doc["players"])
    ])
    players = facts.players
    seats = len(players)
    match, ids = game.match, game.players
    fact_moves = facts.moves
    for r, rdoc in enumerate(game.rounds, 1):
        state = start_round(doc, game, r, rdoc)
        start = state.copy()
        plays = draws = passes = 0
        opener, opening_tile = -1, ""
        logged: list[Any] = rdoc["moves"]
        m = 0
        try:
            for m, mdoc in enumerate(logged, 1):
                if type(mdoc) is not dict:
                    schema_first(doc, game)  # not a move: the schema says why
                    raise TypeError(f"move {m} of round {r} is not an object")
                move_doc: dict[str, Any] = mdoc
                player = move_doc.get("player")
                action = move_doc.get("action")
                tile = move_doc.get("tile")
                end = move_doc.get("end")
                closed = move_doc.get("closed")
                if game.moves_unchecked and not move_ok(move_doc, player, action, tile,
                                                        end, closed):
                    schema_first(doc, game)  # raises the move's shape error
                fact: MoveFact | None = None
                bonus_before = 0
                # move_ok has proved the seat an int and the action a str
                if type(player) is int and type(action) is str and 0 <= player < seats:
                    seat: int = player
                    act: str = action
                    if act == "play":
                        plays += 1
                        if opener < 0:
                            opener, opening_tile = seat, str(tile)
                    elif act == "draw":
                        draws += 1
                    else:
                        passes += 1
                    legal_count, best, kinds = state.choices(seat)
                    fact = MoveFact(r, m, seat, act, tile, end, move_doc.get("ms"),
                                    legal_count, 0, best, legal_count == 1)
                    if act == "play":
                        _choices(fact, state, legal_count, kinds)
                    bonus_before = state.bonus[seat]
                    fact_moves.append(fact)
                    pf = players[seat]
                    if act == "play":
                        pf.plays += 1
                    elif act == "draw":
                        pf.draws += 1
                    else:
                        pf.passes += 1
                if closed is None:
                    state.apply_fast(player, action, tile, end)
                else:  # a closed double: rare, the careful lane checks it
                    state.apply(_move(move_doc))
                if fact is not None:  # applied: what did it do?
                    _settle(fact, state, bonus_before, players)
        except IllegalMove as exc:
            move = _move(logged[m - 1])
            raise _locate(exc, r, m, move, state, ids,
                          _hint(exc, move, state, doc, r, m, match)) from None
        result = state.result
        if result is None:
            game.unfinished_round = r
            continue
        match.finish_round(result)
        answer = round_answer(result)
        answers.append(answer)
        certain = None
        if result.blocked:
            certain = certain_from(start, [_move(x) for x in logged])
        ending = round_ending(result.blocked, state.hands[result.ended_by] == 0)
        facts.rounds.append(RoundFact(
            r, opener, opening_tile, answer["winners"], answer["points"],
            answer["bonus"], result.blocked, answer["pips_left"], result.ended_by,
            plays + draws + passes, draws, passes,
            state.boneyard_left(), certain, ending,
        ))
        for seat in result.winners:
            players[seat].rounds_won += 1
        if ending == "domino":
            players[result.ended_by].dominoes += 1
        for seat, bonus in enumerate(result.bonus):
            players[seat].bonus_total = number(players[seat].bonus_total + bonus)
    match = game.match
    for seat, player in enumerate(players):
        player.final_score = number(match.scores[seat])
        player.won = seat in match.winners
    return finish_answer(doc, game, answers), facts


def round_ending(blocked: bool, hand_empty: bool) -> str:
    """How a round ended, from the engine's result and the hand of the player who ended it.

    A round that is not blocked ends when a player plays their last tile, or, under
    ``target_check: play``, when a play takes a score to the target while that player
    still holds tiles: the same "not blocked" result, told apart by the hand.
    """
    if blocked:
        return "blocked"
    return "domino" if hand_empty else "target"


def _choices(fact: MoveFact, state: Round, legal_count: int, kinds: list[int]) -> None:
    """What the player could have played instead: the pips and doubles among the plays.

    ``kinds``: the kinds of tile among the player's legal plays (``Round.choices``).
    """
    tiles = state.tiles
    hit = tiles.lookup.get(fact.tile) if isinstance(fact.tile, str) else None
    if hit is None:
        return  # not a tile as the engine writes it: the walk refuses the move, or it is
        # written another way; either way there is no choice to describe
    kind = hit[0]
    fact.pips = tiles.kind_pips[kind]
    fact.double = bool(tiles.kind_is_double[kind])
    if legal_count == 1:
        fact.best_pips = fact.least_pips = fact.pips
        fact.double_choice = False
        return
    if not kinds:
        return  # not this player's turn: the walk refuses the move
    # one loop, no list: the import asks this for every play
    most = -1
    least = -1
    doubles = 0
    for k in kinds:
        pips = tiles.kind_pips[k]
        if most < 0 or pips > most:
            most = pips
        if least < 0 or pips < least:
            least = pips
        if tiles.kind_is_double[k]:
            doubles += 1
    fact.best_pips, fact.least_pips = most, least
    fact.double_choice = 0 < doubles < len(kinds)


def _settle(fact: MoveFact, state: Round, bonus_before: float,
            players: list[PlayerFact]) -> None:
    """Facts of a move known only once it is applied: its score, its end, who it left stuck."""
    fact.score = state.bonus[fact.player] - bonus_before
    if fact.action != "play":
        return
    placed = state.board[-1][2]
    fact.end = END_NAMES[placed] if placed >= 0 else None
    if fact.score:
        player = players[fact.player]
        player.bonus_points = number(player.bonus_points + fact.score)
        player.bonus_plays += 1
    if not state.over:
        fact.next_stuck = not state.hands[state.turn] & state.open_mask
