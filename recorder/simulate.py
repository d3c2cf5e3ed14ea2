"""Complete games played by bots, written as domino-log/1 documents.

The simulator plays through the same engine that replays logs, so every game it
writes is legal by construction, and the property tests check that replaying
the JSON gives back the simulator's own result. Bots have distinct,
deterministic styles (each game has its own ``random.Random``), so the
statistics have real tendencies to find: a bonus hunter does score more bonus,
a heavy-first player does hold fewer pips when a round blocks.

A game has a length no rules can exceed (:func:`round_move_cap`): a round that goes past
it means the engine loops (a rule change that never ends a round), and the simulator
stops with :class:`RoundTooLong` instead of playing on until memory runs out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from recorder.engine import Deal, Match, Move, Round, seeded_deal
from recorder.log import GameLog
from recorder.replay import number, round_answer
from recorder.rules import Ruleset

Bot = Callable[[Round, list[Move], random.Random], Move]

#: players of the sample league; each plays one style, so dashboards find tendencies
PERSONAS: tuple[tuple[str, str, str], ...] = (
    ("ingaan", "Inga", "bonus"),
    ("kfnielsen", "Kristian", "heavy"),
    ("svendbent", "Bent", "blocker"),
    ("louise82", "Louise", "doubles"),
    ("guttik", "Guttorm", "random"),
    ("brygger", "Brygger", "heavy"),
    ("kropotkin", "Pyotr", "blocker"),
    ("stranden", "Stranden", "bonus"),
)


def _pips(state: Round, move: Move) -> int:
    if move.tile is None:
        return -1
    return state.tiles.kind_pips[state.tiles.parse(move.tile)[0]]


def _heavy(state: Round, legal: list[Move], rng: random.Random) -> Move:
    best = max(_pips(state, m) for m in legal)
    return rng.choice([m for m in legal if _pips(state, m) == best])


def _random(state: Round, legal: list[Move], rng: random.Random) -> Move:
    return rng.choice(legal)


def _doubles(state: Round, legal: list[Move], rng: random.Random) -> Move:
    tiles = state.tiles
    doubles = [m for m in legal if m.tile and tiles.kind_is_double[tiles.parse(m.tile)[0]]]
    return _heavy(state, doubles or legal, rng)


def _bonus(state: Round, legal: list[Move], rng: random.Random) -> Move:
    if not state.rules.bonus or legal[0].action != "play":
        return _heavy(state, legal, rng)
    scored = [(state.score_of(m), m) for m in legal]
    best = max(s for s, _ in scored)
    return _heavy(state, [m for s, m in scored if s == best], rng)


def _blocker(state: Round, legal: list[Move], rng: random.Random) -> Move:
    """Keep control: leave ends that the bot itself can follow and others likely cannot."""
    if legal[0].action != "play" or len(legal) == 1:
        return legal[0]

    def control(move: Move) -> int:
        trial = state.copy()
        trial.apply(move)
        if trial.over:
            return 1000
        mine = trial.hands[move.player]
        return sum(1 for v in trial.value if v >= 0 and mine & trial.tiles.pip_mask[v])

    scored = [(control(m), _pips(state, m), m) for m in legal]
    best = max((c, p) for c, p, _ in scored)
    return rng.choice([m for c, p, m in scored if (c, p) == best])


BOTS: dict[str, Bot] = {
    "random": _random,
    "heavy": _heavy,
    "doubles": _doubles,
    "bonus": _bonus,
    "blocker": _blocker,
}

class RoundTooLong(RuntimeError):
    """A simulated round went past :func:`round_move_cap`: the engine never ended it."""


def round_move_cap(state: Round) -> int:
    """The most moves any round dealt as ``state`` can take: players x (tiles + boneyard).

    Every move is a play, a draw or a pass. A play puts a tile of a hand on the table for
    good (at most every tile of the set); a draw takes the next tile of the boneyard (at
    most all of them). A pass is allowed only to a player who can neither play nor draw,
    so passes come at most ``players - 1`` in a row: the stock is closed for them, and if
    nobody could play with the stock closed the last play or draw would have ended the
    round blocked; the player who can play gets the turn and must play. The round opens
    with a play or a draw, so it has at most ``players`` moves per play or draw.
    """
    return state.players * (state.tiles.size + len(state.boneyard))


#: bots that search (recorder.review.ReviewBot): shown every move of the round, they
#: play what the review of their seat's knowledge calls best
SEARCHING = ("review",)

_THINK_MS = {"random": (300, 2500), "heavy": (400, 3000), "doubles": (500, 3500),
             "bonus": (900, 7000), "blocker": (1200, 9000), "review": (1500, 12000)}


def simulate_game(
    ruleset: str | dict[str, Any] | Ruleset,
    players: int,
    seed: str,
    bots: Sequence[str] | None = None,
    game_id: str | None = None,
    *,
    explicit_deal: bool = False,
    max_rounds: int = 200,
    frontend: str = "recorder-simulate",
    started_at: str | None = None,
) -> dict[str, Any]:
    """One game, played to its end (or ``max_rounds``), as a domino-log/1 document.

    Raises :class:`RoundTooLong` when a round goes past :func:`round_move_cap`, so a
    game is never longer than ``max_rounds`` rounds of that many moves.
    """
    rules = ruleset if isinstance(ruleset, Ruleset) else Ruleset.from_spec(ruleset)
    rng = random.Random(seed)
    seats = rng.sample(range(len(PERSONAS)), players)
    people = [PERSONAS[i] for i in seats]
    styles = list(bots) if bots else [p[2] for p in people]
    if len(styles) != players:
        raise ValueError(f"{players} players need {players} bots, got {len(styles)}")
    unknown = [s for s in styles if s not in BOTS and s not in SEARCHING]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; bots: {', '.join([*BOTS, *SEARCHING])}")
    reviewer = None
    if "review" in styles:
        from recorder.review import ReviewBot

        reviewer = ReviewBot(rules, players, seed)
    match = Match(rules, players)
    log = GameLog(ruleset if isinstance(ruleset, str | dict) else rules.preset,
                  [{"id": pid, "name": name} for pid, name, _ in people],
                  seed=seed, game_id=game_id, frontend={"name": frontend, "version": "1"},
                  started_at=started_at)
    for r in range(1, max_rounds + 1):
        if explicit_deal:
            dealt, _ = seeded_deal(rules, players, f"{seed}/{r}")
            # through the match, as replay does: rules that look at the scores mid-round
            # (target_check: play, tie_pot) need them with an explicit deal too
            state = match.start_round(Deal(dealt.hands, dealt.boneyard, seeded=False), None)
            log.start_round(deal={"hands": dealt.hand_names(state.tiles),
                                  "boneyard": dealt.boneyard_names(state.tiles)})
        else:
            state = match.new_round(seed=f"{seed}/{r}")
            log.start_round()
        cap = round_move_cap(state)
        if reviewer is not None:
            reviewer.start(state)
        while not state.over:
            if state.moves >= cap:
                raise RoundTooLong(
                    f"round {r} of the game seeded {seed!r} ({rules.preset}, {players} "
                    f"players) is not over after {state.moves} moves, the most any round of "
                    f"these rules can take ({players} players x ({state.tiles.size} tiles + "
                    f"{len(state.boneyard)} in the boneyard)): the engine never ends it")
            legal = state.legal_moves(state.turn)
            style = styles[state.turn]
            if len(legal) == 1:
                move = legal[0]
            elif style == "review":
                assert reviewer is not None
                move = reviewer.choose(state, legal)
            else:
                move = BOTS[style](state, legal, rng)
            if move.action == "draw":
                nxt = state.boneyard[state.drawn]
                move = Move(move.player, "draw", state.tiles.kind_name[state.tiles.phys_kind[nxt]])
            lo, hi = _THINK_MS[style]
            ms = rng.randint(lo // 4, lo) if len(legal) == 1 else rng.randint(lo, hi)
            if reviewer is not None:
                reviewer.record(state, move)
            state.apply(move)
            if move.action == "play":
                log.play(move.player, move.tile or "", move.end, ms=ms, closed=move.closed)
            elif move.action == "draw":
                log.draw(move.player, move.tile, ms=ms)
            else:
                log.pass_(move.player, ms=ms)
        assert state.result is not None
        match.finish_round(state.result)
        log.end_round(round_answer(state.result))
        if match.over:
            break
    log.finish({"scores": [number(s) for s in match.scores],
                "winners": list(match.winners)})
    return log.to_dict()
