"""Replay frames: the state of the table after every move, for the replay page to draw.

The page knows no rules. Everything it shows comes from here: the board in the order
placed, every hand, the ends, scores and bonuses, whose turn it is, the legal moves the
mover had and what each would have scored, and what each player provably lacks
(:mod:`recorder.knowledge`). The format is ``docs/frames.md``.

Frames come from the one walk everything consumes (:func:`recorder.replay.walk`): a
frame is built from the round's state once the walk has applied its move, so what the
page shows is exactly what the engine replayed. A refused log gives the frames up to
the move before the error and the error itself; an unfinished game gives its frames as
far as it goes. Pure: a document in, plain JSON-ready data out.

Only the engine's public attributes are read (``hands``, ``board``, ``bonus``,
``phase``, ``turn``, ``openers``, ``result``, ``drew``, ``rules`` and the query methods,
``end_terms`` among them), and unknown additions to the board's entries are ignored, so
new house rules in the engine need no change here unless they add something the page
must draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from recorder.engine import END_NAMES, OVER, Move, Round, RoundResult
from recorder.errors import IllegalMove, RecorderError, SchemaError
from recorder.knowledge import Knowledge
from recorder.replay import (
    Game,
    MoveEvent,
    RoundEnd,
    RoundStart,
    number,
    open_game,
    refusal_words,
    round_answer,
    walk,
)
from recorder.rules import PRESETS, Ruleset
from recorder.storage import frontend_of, normalize_timestamp, preset_of
from recorder.tiles import TileSet

FORMAT = "domino-frames/1"


def build_frames(doc: Any, *, game_pk: int | None = None) -> dict[str, Any]:
    """The frames of one log document; never raises for a bad log (its error is in the data).

    ``game_pk`` is the stored game's id, when the log comes from the store.
    """
    return _Builder(doc, game_pk).run()


class _Pending:
    """A move the walk is about to apply, with what was known just before it."""

    __slots__ = ("round", "m", "move", "ms", "choices", "bonus_before", "drawn_tile", "why")

    def __init__(self, round_no: int, m: int, move: Move, ms: Any,
                 choices: list[dict[str, Any]], bonus_before: list[int],
                 drawn_tile: str | None, why: dict[str, str] | None) -> None:
        self.round = round_no
        self.m = m
        self.move = move
        self.ms = ms
        self.choices = choices
        self.bonus_before = bonus_before
        self.drawn_tile = drawn_tile
        self.why = why


class _Builder:
    def __init__(self, doc: Any, game_pk: int | None) -> None:
        self.doc = doc
        self.game_pk = game_pk
        self.game: Game | None = None
        self.rounds: list[dict[str, Any]] = []
        self.names: list[str] = []
        # the round under way
        self.state: Round | None = None
        self.frames: list[dict[str, Any]] = []
        self.base: list[Fraction | int] = []
        self.placed: list[dict[str, Any]] = []
        self.counts: list[int] = []  # tiles on the board carrying each number
        self.know: Knowledge | None = None
        self.pending: _Pending | None = None

    # ------------------------------------------------------------------ the walk
    def run(self) -> dict[str, Any]:
        error: dict[str, Any] | None = None
        try:
            self.game = open_game(self.doc)
            self.names = [_display_name(p) for p in self.doc["players"]]
            for event in walk(self.doc, self.game):
                if self.pending is not None:
                    self._flush()
                kind = type(event)
                if kind is MoveEvent:
                    self._before_move(event)  # type: ignore[arg-type]
                elif kind is RoundStart:
                    self._start_round(event)  # type: ignore[arg-type]
                elif kind is RoundEnd:
                    self._end_round(event)  # type: ignore[arg-type]
            if self.pending is not None:  # a round cut off after its last move
                self._flush()
        except RecorderError as exc:
            error = self._error(exc)
        except RecursionError:
            error = self._error(SchemaError("the document is nested too deeply"))
        return {
            "format": FORMAT,
            "game": self._game_info(error),
            "rounds": self.rounds,
            "error": error,
        }

    def _error(self, exc: RecorderError) -> dict[str, Any]:
        pending = self.pending
        refused: _Pending | None = None
        if pending is not None:
            if (exc.round, exc.move) != (pending.round, pending.m):
                self._flush()  # the error is a later round's: this move did happen
            else:
                refused = pending
            self.pending = None
        if exc.move == 0 and exc.round > 0 and not any(
                r["round"] == exc.round for r in self.rounds):
            # refused at its deal (or after the game's end): the round, with no frames
            self.rounds.append({"round": exc.round, "frames": [], "summary": None})
        out = exc.to_dict()
        out["what"], out["why"] = None, _unlocated(exc)
        if refused is not None and isinstance(exc, IllegalMove) and self.state is not None:
            out["what"], out["why"] = self._refusal(exc, refused, self.state)
        return out

    def _refusal(self, exc: IllegalMove, refused: _Pending,
                 state: Round) -> tuple[str | None, str]:
        """The refused move and the reason, with players called as the page calls them.

        The contract's message names players by id; the engine is asked again, on the
        round as it stood before the move (a refusal changes nothing), for the reason
        itself, which is then worded with the names. Whatever the message adds after
        the reason (a hint about the deal) is kept.
        """
        try:
            state.check(refused.move)
        except IllegalMove as raw:
            assert self.game is not None
            what, why = refusal_words(raw.message, refused.move, state, self.names)
            ids = self.game.players
            _, why_ids = refusal_words(raw.message, refused.move, state, ids)
            head = exc.message.find(why_ids)
            if head >= 0:
                return what, why + exc.message[head + len(why_ids):]
            return what, why
        return None, _unlocated(exc)  # pragma: no cover - the engine refused it just now

    def _start_round(self, event: RoundStart) -> None:
        assert self.game is not None
        state = event.state
        rules = self.game.rules
        self.state = state
        self.frames = []
        self.placed = []
        self.counts = [0] * (rules.max_pip + 1)
        self.base = list(self.game.match.scores)
        self.know = Knowledge(state.players, rules.max_pip, rules.sets)
        self.rounds.append({"round": event.round, "frames": self.frames, "summary": None})
        self.frames.append(self._frame(0, None, [], None))

    def _before_move(self, event: MoveEvent) -> None:
        state = event.state
        move = event.move
        seat = move.player
        choices: list[dict[str, Any]] = []
        drawn = None
        why = None
        valid_seat = type(seat) is int and 0 <= seat < state.players
        if valid_seat:
            choices = _choices(state, seat)
            if move.action == "draw" and state.boneyard_left() > 0:
                tiles = state.tiles
                drawn = tiles.kind_name[tiles.phys_kind[state.boneyard[state.drawn]]]
            if not any(c["action"] == "play" for c in choices) and choices:
                why = _why_not_play(state, self.names[seat] if seat < len(self.names)
                                    else f"seat {seat}", choices[0]["action"])
            assert self.know is not None
            self.know.record(seat, move.action, state.open_ends().values(), state.phase)
        self.pending = _Pending(event.round, event.move_no, move, event.ms, choices,
                                list(state.bonus), drawn, why)

    def _flush(self) -> None:
        """The pending move has been applied: its frame, from the round's state now."""
        pending = self.pending
        self.pending = None
        assert pending is not None and self.state is not None
        state = self.state
        move = pending.move
        seat = move.player
        end: str | None = None
        tile = move.tile
        if move.action == "play" and state.board:
            e = state.board[-1][2]
            end = END_NAMES[e] if 0 <= e < len(END_NAMES) else None
            played = _kind_name(state.tiles, tile)
            closed = bool(getattr(move, "closed", False))
            for c in pending.choices:
                c["played"] = (c["action"] == "play" and c["tile"] == played
                               and c["end"] == end and c["closed"] == closed)
        else:
            if move.action == "draw" and tile is None:
                tile = pending.drawn_tile
            for c in pending.choices:
                c["played"] = c["action"] == move.action
        gained = state.bonus[seat] - pending.bonus_before[seat]
        bonus = None
        if gained > 0:
            bonus = {"seat": seat, "points": gained, "end_sum": state.open_end_sum()}
        name = self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
        shown = move.replace(tile=tile, end=end)
        public = shown if move.action != "draw" else Move(seat, "draw")
        info = {
            "player": seat,
            "action": move.action,
            "tile": tile,
            "end": end,
            "closed": bool(getattr(move, "closed", False)),
            "ms": pending.ms,
            "text": f"{name} {shown.text()}",
            "public_text": f"{name} {public.text()}",
            "why": pending.why,
        }
        self.frames.append(self._frame(pending.m, info, pending.choices, bonus))

    def _end_round(self, event: RoundEnd) -> None:
        assert self.game is not None
        result = event.result
        summary = round_answer(result)
        summary["how"] = how_ended(result)
        summary["scores"] = [number(s) for s in self.game.match.scores]
        summary["game_over"] = _game_over(self.game)
        self.rounds[-1]["summary"] = summary

    # ------------------------------------------------------------------ one frame
    def _frame(self, m: int, move: dict[str, Any] | None, choices: list[dict[str, Any]],
               bonus: dict[str, Any] | None) -> dict[str, Any]:
        assert self.game is not None and self.state is not None and self.know is not None
        state = self.state
        rules = self.game.rules
        tiles = state.tiles
        over = state.phase == OVER
        result = state.result
        players = state.players

        kinds = [tiles.mask_kinds(h) for h in state.hands]
        names = tiles.kind_name
        hands = [[names[k] for k in ks] for ks in kinds]
        board = self._board(state)

        ends: dict[str, int | None] = dict.fromkeys(END_NAMES)
        ends.update(state.open_ends())

        round_bonus = list(state.bonus)
        if over and result is not None:
            # the round's last frame is built once the walk has added the round to the
            # match: its totals are the match's, whatever the scoring rules added
            scores = [number(s) for s in self.game.match.scores]
            ended: str | None = how_ended(result)
        else:
            scores = [number(self.base[p] + round_bonus[p]) for p in range(players)]
            ended = None
        if over:
            movers: list[int] = []
        elif state.phase == "opening":
            movers = list(state.openers)
        else:
            movers = [state.turn]

        know = self.know
        counts = self.counts
        pairs = [[(tiles.kind_lo[k], tiles.kind_hi[k]) for k in ks] for ks in kinds]
        game_over = _game_over(self.game) if over else None
        return {
            "m": m,
            "move": move,
            "phase": state.phase,
            "turn": None if over else state.turn,
            "movers": movers,
            "hands": hands,
            "boneyard": state.boneyard_left(),
            "board": board,
            "ends": ends,
            "end_sum": state.open_end_sum() if rules.bonus else None,
            "sum_terms": [
                {"ends": list(e), "halves": list(h), "points": p, "kind": k}
                for e, h, p, k in state.end_terms()] if rules.bonus else None,
            "bonus": bonus,
            "round_bonus": round_bonus,
            "scores": scores,
            "ended": ended,
            "choices": choices,
            "marks": self._marks(move, choices, bonus, ended, game_over),
            "lacks": {
                "public": know.public(counts),
                "seats": know.seen_by(counts, pairs),
            },
        }

    def _marks(self, move: dict[str, Any] | None, choices: list[dict[str, Any]],
               bonus: dict[str, Any] | None, ended: str | None,
               game_over: dict[str, Any] | None) -> list[dict[str, Any]]:
        """What happened at this move, each with a short label and a sentence.

        ``bonus``, ``missed-bonus`` (a play scored less than the best bonus the mover
        had, as the statistics count it), ``domino``, ``blocked``, ``target`` (how the
        round ended) and ``game-over``; the page lists them beside the move.
        """
        assert self.state is not None
        marks: list[dict[str, Any]] = []
        if move is None:
            return marks
        name = self._name(move["player"])
        if bonus is not None:
            points = number(bonus["points"])
            marks.append({"kind": "bonus", "points": points, "label": f"+{points}",
                          "text": f"+{points} for {name}: the open ends add up to "
                                  f"{bonus['end_sum']}."})
        if move["action"] == "play" and choices:
            best = max(c["score"] for c in choices)
            scored = next((c["score"] for c in choices if c["played"]), 0)
            if best > scored:
                marks.append({
                    "kind": "missed-bonus", "points": best, "scored": scored,
                    "label": f"missed +{best}",
                    "text": f"{name} could have scored +{best}"
                            + (f" (this play scored +{scored})." if scored else
                               "; this play scored nothing."),
                })
        if ended is not None:
            marks.append(self._ended_mark(ended, move["player"]))
        if game_over is not None:
            marks.append({"kind": "game-over", "label": "game over",
                          "text": self._game_over_text(game_over)})
        return marks

    def _name(self, seat: Any) -> str:
        return self.names[seat] if type(seat) is int and 0 <= seat < len(self.names) \
            else f"seat {seat}"

    def _ended_mark(self, ended: str, seat: int) -> dict[str, Any]:
        assert self.state is not None and self.game is not None
        name = self._name(seat)
        if ended == "domino":
            return {"kind": "domino", "label": "domino",
                    "text": f"Domino! {name} plays the last tile and goes out."}
        if ended == "target":
            score = number(self.game.match.scores[seat])
            return {"kind": "target", "label": "target",
                    "text": f"{name} reaches {score}, the target ({self.game.rules.target}): "
                            "the round ends here, before its last tile."}
        numbers = sorted(set(self.state.open_ends().values()))
        shows = " or ".join(str(n) for n in numbers) or "the table"
        return {"kind": "blocked", "label": "blocked",
                "text": f"Blocked: nobody holds a tile for {shows} and no tile can be "
                        "drawn. The pips left decide the round."}

    def _game_over_text(self, over: dict[str, Any]) -> str:
        if over["why"] == "hands":
            n = over["hands"]
            return f"Game over: the match of {n} {'hand' if n == 1 else 'hands'} is played."
        who = _listing([self._name(s) for s in over["reached"]])
        verb = "reaches" if len(over["reached"]) == 1 else "reach"
        text = f"Game over: {who} {verb} the target of {over['target']}."
        if over["target_mode"] == "reach-loses":
            text += " Reaching it loses: the fewest points win."
        return text

    def _board(self, state: Round) -> list[dict[str, Any]]:
        """The placed tiles; each one's record is built once and shared by later frames."""
        placed = self.placed
        counts = self.counts
        raw = state.board
        closed = getattr(state, "closed_tiles", ())  # doubles played closed (house rule)
        for seq in range(len(placed), len(raw)):
            entry = raw[seq]
            a, b, e = entry[0], entry[1], entry[2]
            counts[a] += 1
            if b != a:
                counts[b] += 1
            placed.append({
                "seq": seq,
                "tile": f"{a}-{b}",
                "a": a,
                "b": b,
                "end": END_NAMES[e] if 0 <= e < len(END_NAMES) else None,
                "double": a == b,
                "spinner": seq == 0 and bool(state.spinner),
                "closed": seq in closed,
            })
        return list(placed)

    # ------------------------------------------------------------------ the game
    def _game_info(self, error: dict[str, Any] | None) -> dict[str, Any]:
        doc = self.doc if isinstance(self.doc, dict) else {}
        game = self.game
        frontend, _ = frontend_of(doc)
        game_id = doc.get("game_id")
        players = []
        listed = doc.get("players")
        for p in listed if isinstance(listed, list) else []:
            if isinstance(p, dict):
                pid, pname = p.get("id"), p.get("name")
                players.append({"id": pid if isinstance(pid, str) else None,
                                "name": pname if isinstance(pname, str) else None})
        info: dict[str, Any] = {
            "id": self.game_pk,
            "game_id": game_id if isinstance(game_id, str) else None,
            "frontend": frontend,
            "preset": preset_of(doc.get("ruleset")),
            "rules": None,
            "players": players,
            "started_at": normalize_timestamp(doc.get("started_at")),
            "status": "invalid",
            "scores": [],
            "winners": [],
            "bonus": None,
            "spinner": None,
            "partnerships": None,
            "max_pip": None,
            "sets": None,
            "changed": {},
            "sides": None,
            "game_over": None,
        }
        if game is None:
            return info
        rules = game.rules
        match = game.match
        info.update({
            "preset": rules.preset,
            "rules": rules.describe(),
            "scores": [number(s) for s in match.scores],
            "winners": list(match.winners),
            "bonus": rules.bonus,
            "spinner": rules.spinner,
            "partnerships": rules.partnerships,
            "max_pip": rules.max_pip,
            "sets": rules.sets,
            "changed": changed_rules(rules),
            "sides": rules.sides(len(players)) if players else None,
            "game_over": _game_over(game) if error is None else None,
        })
        if error is None:
            info["status"] = "finished" if match.over else "unfinished"
        return info


def _choices(state: Round, seat: int) -> list[dict[str, Any]]:
    """The legal moves of ``seat`` now, each with its bonus, the end it takes and whether
    it would end the round (tried on a copy of the round)."""
    out = []
    for option in state.legal_moves(seat):
        trial = state.copy()
        trial.apply(option)
        end = None
        if option.action == "play":
            e = trial.board[-1][2]
            end = END_NAMES[e] if 0 <= e < len(END_NAMES) else None
        result = trial.result
        out.append({
            "player": seat,
            "action": option.action,
            "tile": option.tile,
            "end": end,
            "closed": bool(getattr(option, "closed", False)),
            "score": state.score_of(option),
            "ends_round": None if result is None else how_ended(result),
            "played": False,
        })
    return out


def changed_rules(rules: Ruleset) -> dict[str, Any]:
    """The rules a log's options set to something other than its preset's, as
    ``Ruleset.describe()`` writes them: what makes this game a variant."""
    base = PRESETS.get(rules.preset)
    if base is None:  # pragma: no cover - every ruleset is built from a preset
        return {}
    described = rules.describe()
    return {name: described.get(name, value) for name, value in rules.options
            if getattr(base, name, None) != getattr(rules, name, None)}


def _game_over(game: Game) -> dict[str, Any] | None:
    """Why the game is over, when it is: its fixed number of hands is played, or a
    score reached the target (``reached``: those seats; ``reach-loses``: they lose)."""
    match = game.match
    if not match.over:
        return None
    rules = game.rules
    if rules.hands:
        return {"why": "hands", "hands": rules.hands}
    return {"why": "target", "target": rules.target, "target_mode": rules.target_mode,
            "reached": [p for p, s in enumerate(match.scores) if s >= rules.target]}


def _why_not_play(state: Round, name: str, action: str) -> dict[str, str]:
    """Why a player who has no tile that fits draws or passes, in words.

    The same conditions as the engine's ``Round.may_draw`` and its refusal of a draw,
    in the order a player would give them: the draw rule, the one tile already drawn
    (``draw: one``), the empty boneyard, the stock floor.
    """
    if state.phase == "draw-for-double":
        return {"code": "draw-for-double",
                "text": f"Nobody holds a double yet: {name} draws for one."}
    numbers = sorted(set(state.open_ends().values()))
    lacking = f"{name} has no tile with " + " or ".join(f"a {n}" for n in numbers)
    rules = state.rules
    left = state.boneyard_left()
    if action == "draw":
        allowed = " the one tile allowed" if rules.draw == "one" else ""
        return {"code": "draws", "text": f"{lacking}, and draws{allowed}; "
                                         f"{left - 1} left in the boneyard."}
    if rules.draw == "none":
        return {"code": "no-drawing",
                "text": f"{lacking}, and these rules have no drawing: a pass."}
    if state.drew and rules.draw == "one":
        return {"code": "drew-one",
                "text": f"{lacking}, and already drew the one tile allowed this turn "
                        f"({left} left in the boneyard): a pass."}
    if left == 0:
        return {"code": "boneyard-empty",
                "text": f"{lacking}, and the boneyard is empty: a pass."}
    return {"code": "stock-floor",
            "text": f"{lacking}, and no tile is drawn while the boneyard holds "
                    f"{rules.stock_floor} or fewer ({left} left): a pass."}


def _unlocated(exc: RecorderError) -> str:
    """An error's message without the "round 2, move 14: " its location adds."""
    message = exc.message
    if exc.round:
        for head in (f"round {exc.round}, move {exc.move}: ", f"round {exc.round}: "):
            if message.startswith(head):
                return message[len(head):]
    return message


def _listing(items: Sequence[str]) -> str:
    """"a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def how_ended(result: RoundResult) -> str:
    """``blocked``, ``domino`` (the ender went out) or ``target`` (a play reached the target
    under ``target_check: play``: the ender still holds tiles)."""
    if result.blocked:
        return "blocked"
    return "target" if result.pips_left[result.ended_by] else "domino"


def _kind_name(tiles: TileSet, text: str | None) -> str | None:
    hit = tiles.lookup.get(text) if isinstance(text, str) else None
    return None if hit is None else tiles.kind_name[hit[0]]


def _display_name(player: Any) -> str:
    name = player.get("name")
    return name if isinstance(name, str) and name else str(player.get("id"))


def move_count(doc: Any) -> int:
    """How many moves a document logs (0 for anything that is not a log's shape).

    The frames of a log grow with its moves (each frame repeats the board), so a
    service checks this before building them.
    """
    rounds = doc.get("rounds") if isinstance(doc, dict) else None
    if not isinstance(rounds, list):
        return 0
    return sum(len(r["moves"]) for r in rounds
               if isinstance(r, dict) and isinstance(r.get("moves"), list))


def frame_count(frames: dict[str, Any]) -> int:
    """How many frames the data holds (every round's, deal frames included)."""
    rounds: Sequence[dict[str, Any]] = frames.get("rounds") or []
    return sum(len(r.get("frames") or []) for r in rounds)


__all__ = ["FORMAT", "build_frames", "frame_count", "how_ended", "move_count"]
