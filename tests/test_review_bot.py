"""The review bot's bound: every search of a move, that of the one deal consistent with
what its seat saw included, stops at ``settings.positions`` positions, and the bot still
plays a legal move. Counted in positions, not seconds."""

from __future__ import annotations

import pytest
from logs import canonical, deal, position

from recorder.engine import Round
from recorder.review import BOT_POSITIONS, BOT_SETTINGS, ReviewBot, Settings
from recorder.rules import Ruleset
from recorder.solver import Sampler, SearchLimit, Seen, Solver

OPEN_HANDS = {"preset": "classic", "options": {"hand_size": 14, "draw": "none", "target": 500}}
"""Two players share the whole set: no tile is hidden, so there is one consistent deal,
and its search is far larger than the bound."""
BOUND = 5_000


def midgame(bot: ReviewBot | None = None) -> Round:
    """Three moves in (the first of each seat's choice), a move of six choices to make."""
    tiles = canonical()
    state = position(OPEN_HANDS, 2, deal(tiles[0::2], tiles[1::2], boneyard=[]))
    if bot is not None:
        bot.start(state)
    for _ in range(3):
        move = state.legal_moves(state.turn)[0]
        if bot is not None:
            bot.record(state, move)
        state.apply(move)
    return state


def test_the_position_has_one_deal_and_is_past_the_bound() -> None:
    state = midgame()
    assert Sampler(state, state.turn, Seen(state)).single()  # no sampling, no budget
    assert len(state.legal_moves(state.turn)) > 1
    solver = Solver(Ruleset.from_spec(OPEN_HANDS), 2, limit=20 * BOUND)
    with pytest.raises(SearchLimit):  # twenty times the bound do not solve it
        solver.values(state, state.turn)


def test_past_the_bound_the_bot_plays_a_legal_move_within_it() -> None:
    rules = Ruleset.from_spec(OPEN_HANDS)
    bot = ReviewBot(rules, 2, "bound", Settings(samples=8, positions=BOUND))
    state = midgame(bot)
    legal = state.legal_moves(state.turn)
    move = bot.choose(state, legal)
    assert move in legal
    assert bot.solver is not None
    assert bot.solver.nodes <= BOUND + 1  # the one past the bound raised
    # its fallback: the heaviest tile
    assert sum(map(int, str(move.tile).split("-"))) == max(
        sum(map(int, str(m.tile).split("-"))) for m in legal)
    # a second move is bounded the same
    bot.record(state, move)
    state.apply(move)
    first = bot.solver
    answer = state.legal_moves(state.turn)
    assert bot.choose(state, answer) in answer
    assert bot.solver is not first  # each move is searched by a solver of its own
    assert bot.solver.nodes <= BOUND + 1


def test_the_default_bound_is_the_bots_settings() -> None:
    bot = ReviewBot(Ruleset.from_spec(OPEN_HANDS), 2, "x")
    assert bot.settings == BOT_SETTINGS and BOT_SETTINGS.positions == BOT_POSITIONS
