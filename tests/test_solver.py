"""The review's solver (recorder/solver.py) against a plain search written here.

The plain search knows nothing of the solver: it walks the engine's ``legal_moves`` /
``apply`` on copies of the round, with no table, no pruning, no ordering, no codes, and
scores what docs/review.md defines (a side's gain is its round points plus the bonus it
scores from the position on, negated where reaching the target loses; two sides:
minimax on the difference; three or four: max^n on each seat's gain minus the mean of
the others', the first of equals in ``legal_moves`` order). Positions are every
decision of small games (few tiles per hand, few to draw) of each ruleset family, so
the plain search ends in a moment; both builds run this file (dev.py PURE_SUITE).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from logs import decisions_seen

from recorder.engine import Round
from recorder.replay import MoveEvent, RoundStart, open_game, walk
from recorder.rules import Ruleset
from recorder.simulate import simulate_game
from recorder.solver import Seen, Solver, estimate, perfect

Num = Fraction

#: small deals of every two-sided ruleset family: (name, ruleset, players)
TWO_SIDED: list[tuple[str, dict[str, Any], int]] = [
    ("block", {"preset": "openspiel-block", "options": {"hand_size": 5}}, 2),
    ("block-lowest", {"preset": "classic", "options": {"hand_size": 4, "draw": "none",
                                                         "target": 30}}, 2),
    ("draw", {"preset": "classic", "options": {"hand_size": 3, "stock_floor": 19,
                                                 "target": 20}}, 2),
    ("draw-one", {"preset": "italian", "options": {"hand_size": 3, "stock_floor": 19,
                                                     "target": 20}}, 2),
    ("norwegian", {"preset": "norwegian", "options": {"hand_size": 3, "stock_floor": 20,
                                                        "target": 20}}, 2),
    ("spinner", {"preset": "spilop", "options": {"hand_size": 4, "draw": "none",
                                                   "no_double": "redeal",
                                                   "target": 30}}, 2),
    ("spinner-bonus", {"preset": "all-fives", "options": {"hand_size": 4, "stock_floor": 19,
                                                            "target": 40}}, 2),
    ("bonus-play-target", {"preset": "all-fives", "options": {
        "hand_size": 4, "stock_floor": 19, "target": 15}}, 2),
    ("kozel", {"preset": "kozel", "options": {"hand_size": 4, "draw": "none",
                                                "target": 25}}, 2),
    ("partners", {"preset": "openspiel-team", "options": {"hand_size": 3}}, 4),
    ("partners-all-pips", {"preset": "dominoes-partners", "options": {"hand_size": 3,
                                                                        "target": 30}}, 4),
]
#: three or four sides: max^n
MANY_SIDED: list[tuple[str, dict[str, Any], int]] = [
    ("three-block", {"preset": "classic", "options": {"hand_size": 3, "draw": "none",
                                                        "target": 20}}, 3),
    ("three-draw", {"preset": "classic", "options": {"hand_size": 2, "stock_floor": 19,
                                                       "target": 20}}, 3),
    ("three-kozel", {"preset": "kozel", "options": {"hand_size": 3, "draw": "none",
                                                      "target": 25}}, 3),
    ("four-spinner", {"preset": "spilop", "options": {"hand_size": 2, "draw": "none",
                                                        "no_double": "redeal",
                                                        "target": 20}}, 4),
]


# ---------------------------------------------------------------------- the plain search
class Plain:
    """The values of docs/review.md by exhaustive search over ``legal_moves``, nothing more."""

    def __init__(self, rules: Ruleset, players: int) -> None:
        self.players = players
        self.sides = [list(s) for s in rules.sides(players)]
        self.sign = -1 if rules.target_mode == "reach-loses" else 1
        self.positions = 0

    def side(self, seat: int) -> int:
        return next(i for i, s in enumerate(self.sides) if seat in s)

    def step(self, state: Round, move: Any) -> tuple[Round, list[Num]]:
        """The round after ``move``, and each seat's gain by it (bonus, and the round's
        points when it ends)."""
        after = state.copy()
        after.apply(move)
        gains = [Num(self.sign * (after.bonus[p] - state.bonus[p]))
                 for p in range(self.players)]
        if after.over:
            assert after.result is not None
            gains = [g + self.sign * Num(after.result.points[p]) for p, g in enumerate(gains)]
        return after, gains

    def two(self, state: Round) -> Num:
        """The value of ``state`` for the side to move."""
        self.positions += 1
        seat = state.turn
        me = self.side(seat)
        best: Num | None = None
        for move in state.legal_moves(seat):
            v = self.two_move(state, move, me)
            if best is None or v > best:
                best = v
        assert best is not None
        return best

    def two_move(self, state: Round, move: Any, me: int) -> Num:
        """The value of ``move`` for side ``me``."""
        after = state.copy()
        after.apply(move)
        v = Num(0)
        for p in range(self.players):  # the bonus scored by the move, each seat's own
            got = Num(self.sign * (after.bonus[p] - state.bonus[p]))
            v += got if self.side(p) == me else -got
        if after.over:
            assert after.result is not None
            pts = after.result.points
            rep = [s[0] for s in self.sides]
            return v + self.sign * (Num(pts[rep[me]]) - Num(pts[rep[1 - me]]))
        rest = self.two(after)
        return v + (rest if self.side(after.turn) == me else -rest)

    def many(self, state: Round) -> list[Num]:
        """Max^n: each seat's gain from ``state`` on (first of equals)."""
        self.positions += 1
        seat = state.turn
        n = self.players
        best: list[Num] | None = None
        best_u = Num(0)
        for move in state.legal_moves(seat):
            vec = self.many_move(state, move)
            u = n * vec[seat] - sum(vec)
            if best is None or u > best_u:
                best, best_u = vec, u
        assert best is not None
        return best

    def many_move(self, state: Round, move: Any) -> list[Num]:
        after, gains = self.step(state, move)
        if after.over:
            return gains
        rest = self.many(after)
        return [g + r for g, r in zip(gains, rest, strict=True)]

    def values(self, state: Round, seat: int) -> list[Num]:
        """The value of each of ``seat``'s legal moves, from ``seat``'s side."""
        if len(self.sides) == 2:
            me = self.side(seat)
            return [self.two_move(state, m, me) for m in state.legal_moves(seat)]
        n = self.players
        out = []
        for m in state.legal_moves(seat):
            vec = self.many_move(state, m)
            out.append(Num(n * vec[seat] - sum(vec), n - 1))
        return out


def decisions(ruleset: dict[str, Any], players: int, seed: str, rounds: int = 2,
              ) -> list[tuple[Round, int]]:
    """(state, seat) of every decision of a small simulated game."""
    doc = simulate_game(ruleset, players, seed, game_id=seed, max_rounds=rounds)
    out = []
    for event in walk(doc, open_game(doc)):
        if type(event) is MoveEvent:
            seat = event.move.player
            if len(event.state.legal_moves(seat)) > 1:
                out.append((event.state.copy(), seat))
    return out


# ---------------------------------------------------------------------- exactness
@pytest.mark.parametrize(("name", "ruleset", "players"), TWO_SIDED, ids=[t[0] for t in TWO_SIDED])
def test_two_sided_values_equal_a_plain_minimax(name: str, ruleset: dict[str, Any],
                                                players: int) -> None:
    rules = Ruleset.from_spec(ruleset)
    plain = Plain(rules, players)
    solver = Solver(rules, players)
    checked = 0
    for seed in (f"{name}-a", f"{name}-b", f"{name}-c"):
        for state, seat in decisions(ruleset, players, seed):
            want = plain.values(state, seat)
            before = state.copy()
            got = solver.values(state, seat)
            assert got == want, (seed, state.moves, seat)
            assert state.snapshot() == before.snapshot()  # the position is left as it was
            checked += 1
    assert checked >= 4, f"{name}: too few decisions to compare ({checked})"


@pytest.mark.parametrize(("name", "ruleset", "players"), MANY_SIDED,
                         ids=[t[0] for t in MANY_SIDED])
def test_max_n_values_equal_a_plain_max_n(name: str, ruleset: dict[str, Any],
                                          players: int) -> None:
    rules = Ruleset.from_spec(ruleset)
    plain = Plain(rules, players)
    solver = Solver(rules, players)
    checked = 0
    for seed in (f"{name}-a", f"{name}-b", f"{name}-c"):
        for state, seat in decisions(ruleset, players, seed):
            assert solver.values(state, seat) == plain.values(state, seat), (seed, seat)
            checked += 1
    assert checked >= 3, f"{name}: too few decisions to compare ({checked})"


@pytest.mark.parametrize("technique", ["minimax", "alphabeta", "table", "ordering", "full"])
def test_every_technique_gives_the_same_values(technique: str) -> None:
    name, ruleset, players = TWO_SIDED[6]  # spinner and bonus, drawing
    rules = Ruleset.from_spec(ruleset)
    reference = Solver(rules, players, technique="minimax")
    solver = Solver(rules, players, technique=technique)
    for state, seat in decisions(ruleset, players, f"{name}-technique"):
        assert solver.values(state, seat) == reference.values(state, seat)


def test_the_table_is_emptied_for_another_deal() -> None:
    """One solver reused across rounds: a position of another deal is never read from
    the first deal's table."""
    name, ruleset, players = TWO_SIDED[2]
    rules = Ruleset.from_spec(ruleset)
    shared = Solver(rules, players)
    for state, seat in decisions(ruleset, players, f"{name}-shared", rounds=4):
        assert shared.values(state, seat) == Solver(rules, players).values(state, seat)


def test_a_search_limit_stops_and_leaves_the_solver_usable() -> None:
    from recorder.solver import SearchLimit

    name, ruleset, players = TWO_SIDED[0]
    rules = Ruleset.from_spec(ruleset)
    found = []
    for state, seat in decisions(ruleset, players, f"{name}-limit"):
        counter = Solver(rules, players)
        counter.values(state, seat)
        if counter.nodes > 10:
            found.append((state, seat))
    assert found, "a decision that searches more than a few positions"
    state, seat = found[0]
    tight = Solver(rules, players, limit=2)
    with pytest.raises(SearchLimit):
        tight.values(state, seat)
    tight.limit = 0
    assert tight.values(state, seat) == Plain(rules, players).values(state, seat)


def test_snapshot_and_restore_bring_back_every_slot() -> None:
    """make/unmake: after any line of moves, restore gives back the round as it was,
    field by field (the board and closed tiles included)."""
    ruleset = {"preset": "all-fives", "options": {"hand_size": 5, "stock_floor": 10,
                                                  "target": 60}}
    for state, seat in decisions(ruleset, 2, "snapshot", rounds=2)[:12]:
        saved = state.snapshot()
        before = state.copy()
        line = 0
        while not state.over and line < 6:
            state.apply(state.legal_moves(state.turn)[-1])
            line += 1
        state.restore(saved)
        for k in ROUND_FIELDS:
            assert getattr(state, k) == getattr(before, k), k
        assert state.legal_moves(seat) == before.legal_moves(seat)


#: every field of a round that a move may change (Round.copy lists them all)
ROUND_FIELDS = ("hands", "boneyard", "drawn", "value", "dbl", "covered", "arms_open",
                "opener_double", "spinner", "open_mask", "drew", "bonus", "last_player",
                "last_play", "moves", "board", "shut", "shut_pips", "closed_tiles", "pot",
                "target_from", "result", "_stock_limit", "openers", "opening_kind", "turn",
                "phase", "history")


# ---------------------------------------------------------------------- the player view
def test_with_no_hidden_tile_the_player_view_is_the_perfect_view() -> None:
    """Two players, nothing to draw: once the opening is known, the other hand is every
    tile not seen, so the player view has one deal and equals the perfect view."""
    doc = simulate_game({"preset": "openspiel-block", "options": {"hand_size": 14}}, 2,
                        "no-hidden", game_id="no-hidden")
    full = Ruleset.from_spec(doc["ruleset"])
    solver = Solver(full, 2)
    compared = 0
    for event, seen in decisions_seen(doc):
        seat = event.move.player
        state = event.state
        if sum(h.bit_count() for h in state.hands) <= 12 and compared < 4:
            est = estimate(solver, state, seat, seen, samples=5, seed="x")
            assert est is not None and est.exact and est.samples == 1
            exact = perfect(Solver(full, 2), state, seat)
            assert est.values == exact.values
            assert est.se == [0.0] * len(est.values)
            compared += 1
    assert compared


def test_the_player_view_samples_deals_the_mover_could_not_rule_out() -> None:
    """Every sampled deal keeps the mover's hand and the board, gives each hand its
    size, and never gives a player a tile it provably lacks (a pass showed it could
    not follow)."""
    from recorder.shuffle import Stream
    from recorder.solver import Sampler

    ruleset = {"preset": "classic", "options": {"hand_size": 5, "stock_floor": 8,
                                                "target": 40}}
    doc = simulate_game(ruleset, 3, "sampler", game_id="sampler", max_rounds=2)
    checked = 0
    seen: Seen | None = None
    for event in walk(doc, open_game(doc)):
        if type(event) is RoundStart:
            seen = Seen(event.state)
        elif type(event) is MoveEvent:
            assert seen is not None
            state, seat = event.state, event.move.player
            if len(state.legal_moves(seat)) > 1:
                sampler = Sampler(state, seat, seen)
                stream = Stream(f"s{checked}")
                for _ in range(5):
                    deal = sampler.draw(stream)
                    assert deal.hands[seat] == state.hands[seat]
                    assert deal.drawn == state.drawn and deal.value == state.value
                    for s in range(state.players):
                        assert deal.hands[s].bit_count() == state.hands[s].bit_count()
                        if s != seat:
                            for mask in seen.slots[s]:
                                # a hand's slots forbid tiles; the most forbidding slot
                                # applies to at least one tile, so some tile avoids it
                                assert deal.hands[s] & ~mask
                    pool = 0
                    for s in range(state.players):
                        pool |= deal.hands[s]
                    for i in range(deal.drawn, len(deal.boneyard)):
                        pool |= 1 << deal.boneyard[i]
                    want = 0
                    for s in range(state.players):
                        want |= state.hands[s]
                    for i in range(state.drawn, len(state.boneyard)):
                        want |= 1 << state.boneyard[i]
                    assert pool == want  # the same unseen tiles, redistributed
                checked += 1
            seen.record(state, event.move)
    assert checked > 3
    assert not seen.broken if seen else True


def test_the_player_view_is_seeded() -> None:
    ruleset = {"preset": "classic", "options": {"hand_size": 4, "stock_floor": 12,
                                                "target": 30}}
    rules = Ruleset.from_spec(ruleset)
    doc = simulate_game(ruleset, 2, "seeded", game_id="seeded", max_rounds=1)
    seen: Seen | None = None
    results = []
    for event in walk(doc, open_game(doc)):
        if type(event) is RoundStart:
            seen = Seen(event.state)
        elif type(event) is MoveEvent:
            assert seen is not None
            state, seat = event.state, event.move.player
            if len(state.legal_moves(seat)) > 1 and not results:
                a = estimate(Solver(rules, 2), state, seat, seen, samples=6, seed="k")
                b = estimate(Solver(rules, 2), state, seat, seen, samples=6, seed="k")
                assert a is not None and b is not None
                assert (a.values, a.se, a.samples) == (b.values, b.se, b.samples)
                assert not a.exact and 1 <= a.samples <= 6
                results.append(a)
            seen.record(state, event.move)
    assert results


def test_the_bonus_so_far_is_part_of_a_position_when_the_target_is_checked_at_play() -> None:
    """Two positions alike but for the bonus scored so far are different positions when
    the target is checked at every play (one more bonus may end the game): a solver that
    searched the first gives the second's own values, the plain search's."""
    ruleset = {"preset": "all-fives", "options": {"hand_size": 4, "stock_floor": 19,
                                                  "target": 60}}
    rules = Ruleset.from_spec(ruleset)
    plain = Plain(rules, 2)
    differ = 0
    for state, seat in decisions(ruleset, 2, "bonus-key", rounds=1):
        if state.target_from is None:
            continue
        near = state.copy()
        for p in range(2):  # both a step from the target: the next bonus ends the game
            near.bonus[p] = max(near.bonus[p], 55 - int(near.target_from[p]))
        shared = Solver(rules, 2)
        shared.values(state, seat)
        want = plain.values(near, seat)
        assert shared.values(near, seat) == want
        differ += want != plain.values(state, seat)
    assert differ, "the bonus so far changed some decision's values"


def _mirrored(state: Round) -> Round:
    """The round with its left and right ends swapped, and its up and down ends."""
    out = state.copy(history=False)
    for name in ("value", "dbl", "covered", "shut"):
        seq = list(getattr(out, name))
        seq[0], seq[1], seq[2], seq[3] = seq[1], seq[0], seq[3], seq[2]
        setattr(out, name, seq)
    return out


@pytest.mark.parametrize(("name", "ruleset", "players"), MANY_SIDED,
                         ids=[t[0] for t in MANY_SIDED])
def test_max_n_folds_mirrored_ends_only_where_no_tie_decides(
        name: str, ruleset: dict[str, Any], players: int) -> None:
    """Max^n breaks ties by the order of the moves, which mirroring the ends changes: a
    solver that searched a position gives its mirror the mirror's own values (the plain
    search's), and reads from the table what no tie decided (it searches the mirror in
    fewer positions than a fresh solver)."""
    options = ruleset["options"]
    if name == "three-draw":  # two tiles each: too little search to share any
        ruleset = {**ruleset, "options": {**options, "hand_size": 4}}
    rules = Ruleset.from_spec(ruleset)
    plain = Plain(rules, players)
    assert Solver(rules, players).mirror_many
    assert not Solver(rules, players, technique="ordering").mirror_many
    shared_less = 0
    compared = 0
    for seed in [f"{name}-m{i}" for i in range(8)]:
        for state, seat in decisions(ruleset, players, seed):
            if state.value[0] == state.value[1] and state.value[2] == state.value[3]:
                continue
            mirror = _mirrored(state)
            shared = Solver(rules, players)
            shared.values(state, seat)
            first = shared.nodes
            got = shared.values(mirror, seat)
            assert got == plain.values(mirror, seat), (seed, seat, state.moves)
            fresh = Solver(rules, players)
            assert fresh.values(mirror, seat) == got
            shared_less += shared.nodes - first < fresh.nodes
            compared += 1
    assert compared, f"{name}: no decision with distinct ends"
    assert shared_less, "the mirror read nothing from the table"


def test_the_bonus_so_far_is_left_out_of_a_position_when_no_side_can_reach_the_target() -> None:
    """The target checked at every play but out of reach this round (what the tiles
    left could score at most is short of it): two positions alike but for the bonus so
    far have the same future, so they are one position of the table (the second is
    read from it) and both values are the plain search's."""
    ruleset = {"preset": "all-fives", "options": {"hand_size": 4, "stock_floor": 19,
                                                  "target": 1000}}
    rules = Ruleset.from_spec(ruleset)
    plain = Plain(rules, 2)
    checked = 0
    for state, seat in decisions(ruleset, 2, "bonus-far", rounds=1):
        assert state.target_from is not None
        other = state.copy()
        other.bonus[0] += 25
        other.bonus[1] += 10
        solver = Solver(rules, 2)
        assert solver.values(state, seat) == plain.values(state, seat)
        first = solver.nodes
        assert solver.values(other, seat) == plain.values(other, seat)
        if first > len(state.legal_moves(seat)):
            # each move's position is found in the table: one look-up each, no search
            assert solver.nodes - first <= len(state.legal_moves(seat))
            checked += 1
    assert checked, "a decision with something to search"
