"""Game review: what each decision of a logged game was worth, and each player's accuracy.

Above the solver (:mod:`recorder.solver`): a log in, one JSON-ready object out
(docs/review.md). A *decision* is a move where the mover had more than one legal move,
counted as the statistics count them (``moves.legal_count``: each end that takes a tile
is its own choice). Each decision lists every legal move with its value in points from
the mover's side, the move played, the best one, the points the played one lost and a
class (:data:`CLASSES`).

Every path calls :func:`review_round` for each round and :func:`summarize` over them,
which :func:`review_game` does, or (the workers of ``recorder review``) values each
decision apart with :func:`decision_work` and joins a round's with :func:`finish_round`.
A decision's value depends on nothing but the log up to it and the settings: each is
searched by a solver of its own, and its samples are seeded by the game's seed, the
round and the move. So decisions and rounds reviewed apart, in any order, by any number
of workers, give the same object byte for byte.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from recorder.collector import paused
from recorder.engine import END_NAMES, OPENING, Move, Round
from recorder.replay import MoveEvent, RoundStart, open_game, replay, walk
from recorder.solver import Estimate, SearchLimit, Seen, Solver, estimate, perfect

FORMAT: Final = "domino-review/1"
#: bumped whenever a review of the same log with the same settings could change (3: the
#: solver searches fewer positions a deal, so where a decision's positions run out it
#: has solved more deals by then; 4: each decision is searched by a solver of its own,
#: with a table that starts empty, and the round's limit is checked after each decision)
VERSION: Final = 4
VIEWS: Final = ("player", "perfect")
DEFAULT_VIEW: Final = "player"
#: deals solved for each decision of the player view, at most (sampling stops earlier
#: when the best move is clear: recorder.solver.MIN_SAMPLES, CLEAR_Z)
DEFAULT_SAMPLES: Final = 24
DEFAULT_SEED: Final = "review"
#: positions the solver may visit for one decision, all its samples together; past it
#: the samples solved so far stand (none solved: the decision is left unvalued)
DECISION_POSITIONS: Final = 2_000_000
#: positions the solver may visit for one round, all its decisions together: the decision
#: that takes the round past it and every later one are listed unvalued. Each decision is
#: searched within DECISION_POSITIONS alone, so decisions can be valued side by side and
#: the round's total checked afterwards, in order. Per round, not per game: rounds are
#: reviewed apart and in parallel, so a game's running total would make a round's review
#: depend on the order the rounds were done in. Above what any sample game's round can
#: search with the default settings: none has more than 29 decisions (two sets, four
#: players; 21 otherwise), each stopped at DECISION_POSITIONS, and the largest measured
#: (spilop, 2 players, perfect view) searched 14.4 million (docs/benchmarks.md).
ROUND_POSITIONS: Final = 60_000_000
#: decisions valued in one game, at most; later ones are listed unvalued
MAX_DECISIONS: Final = 1_000
MAX_SAMPLES: Final = 1_000

#: (class, largest loss in points it takes): a decision's loss is the best move's value
#: less the played move's
CLASSES: Final = (("best", 0.0), ("good", 2.0), ("inaccuracy", 5.0), ("mistake", 10.0),
                  ("blunder", math.inf))
#: losses this small are float noise, not points (means of equal values)
_EPS: Final = 1e-9
#: decimals of the values, errors and losses in the review
DIGITS: Final = 4
#: why a decision was left unvalued (its ``unvalued``; null when it was valued): the
#: decision's own positions ran out before one deal was solved, the round's did, or the
#: game had valued its MAX_DECISIONS decisions already
UNVALUED: Final = ("positions", "round", "decisions")


@dataclass(frozen=True, slots=True)
class Settings:
    """How a game is reviewed: the view, the samples and their seed, and the limits."""

    view: str = DEFAULT_VIEW
    samples: int = DEFAULT_SAMPLES
    seed: str = DEFAULT_SEED
    positions: int = DECISION_POSITIONS
    max_decisions: int = MAX_DECISIONS
    round_positions: int = ROUND_POSITIONS

    def __post_init__(self) -> None:
        if self.view not in VIEWS:
            raise ValueError(f"the view is player or perfect, not {self.view!r}")
        if not 1 <= self.samples <= MAX_SAMPLES:
            raise ValueError(f"samples go from 1 to {MAX_SAMPLES}, not {self.samples}")
        for name in ("positions", "round_positions", "max_decisions"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"{name} is a whole number from 1, not {value!r}")


def classify(loss: float) -> str:
    """The class of a decision that lost ``loss`` points (:data:`CLASSES`)."""
    for name, most in CLASSES:
        if loss <= most + _EPS:
            return name
    return CLASSES[-1][0]  # pragma: no cover - the last class takes every loss


# ---------------------------------------------------------------------- a game
def review_game(doc: Any, settings: Settings = Settings()) -> dict[str, Any]:
    """The review of one log document (docs/review.md); never raises for a bad log.

    A log the engine refuses is not reviewed: its ``error`` says why. An unfinished game
    is reviewed up to its last move.
    """
    plan = plan_review(doc)
    if plan.error is not None:
        return refused(doc, settings, plan.error)
    rounds = [review_round(doc, r, settings, skip=plan.before[r - 1])
              for r in range(1, len(plan.before) + 1)]
    return assemble(doc, settings, plan, rounds)


@dataclass(slots=True)
class Plan:
    """What a review needs to know of a game before its rounds are reviewed."""

    status: str
    players: int
    #: per round, the decisions of the game before it (for :data:`MAX_DECISIONS`)
    before: list[int]
    error: dict[str, Any] | None = None
    #: per round, the move numbers of its decisions: one job each for workers that
    #: value decisions apart (:func:`decision_work`)
    moves: list[list[int]] = field(default_factory=list)

    def points(self, rounds: Sequence[int] | None = None) -> list[tuple[int, int, int]]:
        """``(round, move, index)`` of each decision of ``rounds`` (every round by
        default), in order: ``index`` counts the game's decisions before it (for
        :data:`MAX_DECISIONS`), as :func:`decision_work` takes them."""
        which = range(1, len(self.moves) + 1) if rounds is None else rounds
        return [(r, move_no, self.before[r - 1] + i)
                for r in which for i, move_no in enumerate(self.moves[r - 1])]


def plan_review(doc: Any) -> Plan:
    """Replay the game once: its verdict, and where its decisions fall."""
    answer = replay(doc)
    if answer["status"] == "invalid":
        return Plan("invalid", 0, [], answer["error"])
    game = open_game(doc)
    before: list[int] = []
    moves: list[list[int]] = []
    count = 0
    for event in walk(doc, game):
        if type(event) is RoundStart:
            before.append(count)
            moves.append([])
        elif type(event) is MoveEvent:
            move = event.move
            if len(event.state.legal_moves(move.player)) > 1:
                count += 1
                moves[-1].append(event.move_no)
    return Plan(answer["status"], len(doc["players"]), before, moves=moves)


def refused(doc: Any, settings: Settings, error: dict[str, Any]) -> dict[str, Any]:
    """The review of a log the engine refused: nothing but why."""
    out = _header(doc, settings, "invalid")
    out.update({"rounds": [], "players": [], "error": error})
    return out


def assemble(doc: Any, settings: Settings, plan: Plan,
             rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """The game's review from its rounds' (:func:`review_round`, in order)."""
    out = _header(doc, settings, plan.status)
    out.update({"rounds": rounds, "players": summarize(rounds, plan.players), "error": None})
    return out


def _header(doc: Any, settings: Settings, status: str) -> dict[str, Any]:
    game_id = doc.get("game_id") if isinstance(doc, dict) else None
    return {
        "format": FORMAT,
        "version": VERSION,
        "game_id": game_id if isinstance(game_id, str) else None,
        "status": status,
        "view": settings.view,
        "samples": settings.samples if settings.view == "player" else 1,
        "seed": settings.seed,
    }


def summarize(rounds: Sequence[dict[str, Any]], players: int) -> list[dict[str, Any]]:
    """Each seat's accuracy over the valued decisions of ``rounds``."""
    out = []
    for seat in range(players):
        losses: list[float] = []
        classes = {name: 0 for name, _ in CLASSES}
        for r in rounds:
            for d in r["decisions"]:
                if d["player"] == seat and d["class"] is not None:
                    losses.append(d["loss"])
                    classes[d["class"]] += 1
        n = len(losses)
        out.append({
            "seat": seat,
            "decisions": n,
            "mean_loss": round(sum(losses) / n, DIGITS) if n else None,
            "best_share": round(classes["best"] / n, DIGITS) if n else None,
            "classes": classes,
        })
    return out


# ---------------------------------------------------------------------- a round
def review_round(doc: Any, round_no: int, settings: Settings = Settings(), *,
                 skip: int = 0) -> dict[str, Any]:
    """The review of round ``round_no`` (1-based) of a log the engine accepts.

    ``skip``: decisions of the game before this round; those past
    ``settings.max_decisions`` in the game are listed unvalued.
    """
    return round_work(doc, round_no, settings, skip=skip)[0]


def round_work(doc: Any, round_no: int, settings: Settings = Settings(), *,
               skip: int = 0) -> tuple[dict[str, Any], int]:
    """:func:`review_round`, and the positions its search visited (for the limits'
    measurements: bench/review_samples.py).

    The decisions are valued in order, each as :func:`decision_work` values it alone;
    once the round's positions are spent the later ones are not searched, since
    :func:`finish_round` would list them unvalued anyway.
    """
    works: list[tuple[dict[str, Any], int]] = []
    used = 0
    count = skip
    for point in _decisions(doc, round_no):
        if used > settings.round_positions and count < settings.max_decisions:
            works.append((_decision(point, "round"), 0))
        else:
            works.append(_valued(point, settings, round_no, count))
        used += works[-1][1]
        count += 1
    return finish_round(round_no, works, settings), used


def decision_work(doc: Any, round_no: int, move_no: int, settings: Settings = Settings(),
                  *, index: int = 0) -> tuple[dict[str, Any], int]:
    """The decision at move ``move_no`` of round ``round_no`` (one of ``Plan.moves``),
    valued alone, and the positions its search visited: the work of one job when
    decisions are valued side by side. ``index``: the decisions of the game before it
    (for ``settings.max_decisions``). :func:`finish_round` joins a round's."""
    for point in _decisions(doc, round_no):
        if point.move_no == move_no:
            return _valued(point, settings, round_no, index)
    raise ValueError(f"move {move_no} of round {round_no} is not a decision")


def finish_round(round_no: int, works: Sequence[tuple[dict[str, Any], int]],
                 settings: Settings = Settings()) -> dict[str, Any]:
    """A round's object from its decisions' (:func:`decision_work`, in order): the
    decision that takes the round past ``settings.round_positions``, and every later
    one, listed unvalued (``"round"``)."""
    decisions: list[dict[str, Any]] = []
    used = 0
    for decision, nodes in works:
        used += nodes
        if used > settings.round_positions and decision["unvalued"] is None:
            decision = _unvalued(decision, "round")
        decisions.append(decision)
    return {"round": round_no, "decisions": decisions}


@dataclass(slots=True)
class _Point:
    """A decision as the walk reaches it: the position before the move, and what the
    mover's seat has seen of the round until then."""

    state: Round
    seen: Seen
    move_no: int
    move: Move
    legal: list[Move]


def _decisions(doc: Any, round_no: int) -> Iterator[_Point]:
    """Each decision of round ``round_no``, in order (valid only until the next one:
    the walk moves the position on)."""
    game = open_game(doc)
    seen: Seen | None = None
    for event in walk(doc, game):
        if type(event) is RoundStart:
            if event.round > round_no:
                return
            if event.round == round_no:
                seen = Seen(event.state)
        elif type(event) is MoveEvent and event.round == round_no:
            assert seen is not None
            state = event.state
            move = event.move
            legal = state.legal_moves(move.player)
            if len(legal) > 1:
                yield _Point(state, seen, event.move_no, move, legal)
            seen.record(state, move)


def _valued(point: _Point, settings: Settings, round_no: int,
            index: int) -> tuple[dict[str, Any], int]:
    """The decision's object, searched by a solver of its own (a table that starts
    empty: what earlier decisions searched never changes its values or where its
    positions run out), and the positions it visited."""
    if index >= settings.max_decisions:
        return _decision(point, "decisions"), 0
    solver = Solver(point.state.rules, point.state.players)
    # the bound holds for every search of the decision, the single consistent deal's
    # included (estimate sets its own limit for each sampled deal)
    solver.limit = settings.positions
    est: Estimate | None
    try:
        with paused():  # the table's lists are freed by their counts, never cyclic
            if settings.view == "perfect":
                est = perfect(solver, point.state, point.move.player)
            else:
                est = estimate(solver, point.state, point.move.player, point.seen,
                               samples=settings.samples,
                               seed=f"{settings.seed}/{round_no}/{point.move_no}",
                               budget=settings.positions)
    except SearchLimit:
        est = None  # too large to solve within the limit
    return _decision(point, "positions" if est is None else None, est), solver.nodes


def _decision(point: _Point, why: str | None, est: Estimate | None = None) -> dict[str, Any]:
    """One decision's object: valued by ``est``, or (``why``, :data:`UNVALUED`) listed
    without values."""
    state, move = point.state, point.move
    codes = state.move_codes(move.player)
    played = _played(state, move, codes)
    choices = []
    for i, option in enumerate(point.legal):
        code = codes[i]
        e = ((code >> 1) & 7) - 1 if code >= 0 else -1
        choices.append({
            "action": option.action,
            "tile": option.tile,
            "end": END_NAMES[e] if e >= 0 else None,
            "closed": bool(option.closed),
            "value": None if est is None else round(est.values[i], DIGITS),
            "se": None if est is None else round(est.se[i], DIGITS),
        })
    out: dict[str, Any] = {"move": point.move_no, "player": move.player, "samples": 0,
                           "choices": choices, "played": played, "best": None,
                           "loss": None, "class": None, "unvalued": why}
    if est is not None:
        best = est.best()
        loss = max(0.0, est.values[best] - est.values[played])
        out.update({"samples": est.samples, "best": best, "loss": round(loss, DIGITS),
                    "class": classify(loss)})
    return out


def _unvalued(decision: dict[str, Any], why: str) -> dict[str, Any]:
    """``decision`` as :func:`_decision` lists it without values (the same keys, in the
    same order)."""
    choices = [{**c, "value": None, "se": None} for c in decision["choices"]]
    return {**decision, "samples": 0, "choices": choices, "best": None, "loss": None,
            "class": None, "unvalued": why}


def _played(state: Round, move: Move, codes: list[int]) -> int:
    """The index among ``codes`` of the logged ``move`` (legal: the walk checked it)."""
    kind, _, e = state.check(move)
    if state.phase == OPENING:
        e = -1  # the opening tile takes no end (check gives its other half there)
    want = (kind << 4) | ((e + 1) << 1) | (1 if move.closed else 0)
    if move.action != "play":
        return 0  # a draw or a pass is never one of several choices
    return codes.index(want)


# ---------------------------------------------------------------------- the bot
#: deals the bot solves per move, at most (it stops earlier when the best move is clear)
BOT_SAMPLES: Final = 8
#: positions the bot may search for one move, all its samples together (or the one deal
#: consistent with what it saw): its bound on the cost of a move, as Settings.positions
#: is a decision's in the review (about a fifth of a second on one core of the compiled
#: build, docs/review.md)
BOT_POSITIONS: Final = 200_000
#: the bot's samples and bound as the review's settings hold them
BOT_SETTINGS: Final = Settings(samples=BOT_SAMPLES, positions=BOT_POSITIONS)


class ReviewBot:
    """A player that makes the review's best move (``recorder simulate --bot review``).

    It knows what its seat knew: it is shown every move before it is applied
    (:meth:`record`), from each round's start (:meth:`start`), and values its choices in
    the player view with ``settings.samples`` deals and at most ``settings.positions``
    positions a move (:data:`BOT_SETTINGS`: :data:`BOT_SAMPLES`, :data:`BOT_POSITIONS`),
    bounded as the review bounds a decision: every search of the move, that of the single
    deal consistent with what it saw included (late in a round, or with no tile hidden,
    a search the samples' budget does not reach); when not one deal could be solved within
    that, it plays the heaviest tile (the ``heavy`` bot's choice). Seeded as the review
    seeds its decisions: the review of its game with its seed and samples calls each of
    its moves best.
    """

    def __init__(self, rules: Any, players: int, seed: str,
                 settings: Settings = BOT_SETTINGS) -> None:
        self.rules = rules
        self.players = players
        self.seed = seed
        self.settings = settings
        self.round = 0
        self.seen: Seen | None = None
        #: the solver of the last move (its positions, for the bound's tests)
        self.solver: Solver | None = None

    def start(self, state: Round) -> None:
        """A new round, as dealt."""
        self.round += 1
        self.seen = Seen(state)

    def record(self, state: Round, move: Move) -> None:
        """Take in ``move`` (legal, about to be applied to ``state``)."""
        assert self.seen is not None
        self.seen.record(state, move)

    def choose(self, state: Round, legal: list[Move]) -> Move:
        """The best of ``legal`` (the seat to move's moves) for what the seat knows."""
        assert self.seen is not None
        seat = legal[0].player
        bound = self.settings.positions
        # a solver of its own for each move, as the review gives each decision; its limit
        # bounds the single consistent deal's search, estimate bounds the samples'
        solver = self.solver = Solver(self.rules, self.players, limit=bound)
        try:
            with paused():
                est = estimate(solver, state, seat, self.seen,
                               samples=self.settings.samples,
                               seed=f"{self.seed}/{self.round}/{state.moves + 1}", budget=bound)
        except SearchLimit:
            est = None
        if est is None:
            tiles = state.tiles

            def pips(m: Move) -> int:
                hit = tiles.lookup.get(m.tile) if m.tile else None
                return tiles.kind_pips[hit[0]] if hit else -1

            return max(legal, key=pips)
        return legal[est.best()]


# ---------------------------------------------------------------------- the text report
def report_text(review: dict[str, Any], ids: Sequence[str], where: str = "",
                worst: int = 5) -> str:
    """A review as a few lines of text: each player's accuracy, the biggest mistakes."""
    name = review.get("game_id") or where
    if review["status"] == "invalid":
        return f"{name}: invalid: {review['error']['message']}"
    view = "perfect view (every hand known)" if review["view"] == "perfect" else \
        f"player view (up to {review['samples']} deals a decision, seed {review['seed']!r})"
    lines = [f"{name}: {view}, {review['status']}"]
    width = max((len(i) for i in ids), default=4)
    for p in review["players"]:
        who = ids[p["seat"]] if p["seat"] < len(ids) else f"seat {p['seat']}"
        if not p["decisions"]:
            lines.append(f"  {who:{width}}  no decisions")
            continue
        marks = ", ".join(f"{n} {c}" for c, n in p["classes"].items() if n and c != "best")
        lines.append(f"  {who:{width}}  {p['decisions']:3} decisions  best {p['best_share']:4.0%}"
                     f"  mean loss {p['mean_loss']:5.2f}" + (f"  ({marks})" if marks else ""))
    mistakes = sorted(
        ((d["loss"], r["round"], d) for r in review["rounds"] for d in r["decisions"]
         if d["loss"] is not None and d["loss"] > 0),
        key=lambda x: (-x[0], x[1], x[2]["move"]))[:worst]
    if mistakes:
        lines.append("  biggest mistakes:")
        for loss, r, d in mistakes:
            who = ids[d["player"]] if d["player"] < len(ids) else f"seat {d['player']}"
            played = d["choices"][d["played"]]
            best = d["choices"][d["best"]]
            lines.append(f"    round {r}, move {d['move']}: {who} played {_choice(played)}"
                         f" ({_signed(played['value'])}); best {_choice(best)} "
                         f"({_signed(best['value'])}): {loss:.2f} lost, {d['class']}")
    unvalued = [(r["round"], d.get("unvalued") or "positions") for r in review["rounds"]
                for d in r["decisions"] if d["class"] is None]
    if unvalued:
        why = []
        for name, text in _UNVALUED_TEXT:
            rounds = sorted({r for r, w in unvalued if w == name})
            n = sum(1 for _, w in unvalued if w == name)
            if n:
                where = ", ".join(str(r) for r in rounds)
                why.append(f"{n} {text} (round{'s' if len(rounds) > 1 else ''} {where})")
        lines.append(f"  {len(unvalued)} decisions left unvalued: {'; '.join(why)} "
                     "(limits: docs/review.md)")
    return "\n".join(lines)


_UNVALUED_TEXT: Final = (("positions", "past the positions of a decision"),
                          ("round", "past the positions of a round"),
                          ("decisions", "past the decisions of a game"))


def _choice(c: dict[str, Any]) -> str:
    text = str(c["tile"]) + (f" {c['end']}" if c["end"] else "")
    return text + (" closed" if c["closed"] else "")


def _signed(x: float) -> str:
    return f"{x:+.2f}".rstrip("0").rstrip(".") if x != int(x) else f"{int(x):+d}"


__all__ = [
    "BOT_POSITIONS",
    "BOT_SAMPLES",
    "BOT_SETTINGS",
    "CLASSES",
    "DEFAULT_SAMPLES",
    "DEFAULT_SEED",
    "FORMAT",
    "ROUND_POSITIONS",
    "UNVALUED",
    "Plan",
    "ReviewBot",
    "Settings",
    "assemble",
    "classify",
    "decision_work",
    "finish_round",
    "plan_review",
    "refused",
    "report_text",
    "review_game",
    "review_round",
    "round_work",
    "summarize",
]
