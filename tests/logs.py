"""Hand-made domino-log/1 documents for the rules tests.

A rules test should read like a position at a real table: who holds what, what is
in the boneyard and in which order, and the moves so far. These builders keep that
short:

``deal("6-6 6-5 ...", "0-1 ...", top="1-6 0-0")``
    an explicit deal: one string (or list) of tiles per seat; the boneyard is either
    given whole (``boneyard=``) or is ``top`` followed by every tile not yet named,
    in canonical order. The builder refuses a tile named twice, so a test cannot
    silently play with a broken deal (tests of broken deals write the dict by hand).

``moves("0 play 6-6", "1 play 6-3 right", "0 draw", "0 draw 2-5", "1 pass", "1 draw *14")``
    the move shorthand: seat, action, tile, end; ``*N`` repeats a move N times.

``log(ruleset, players, [{"deal": ..., "moves": [...]}, ...])`` / ``run(...)``
    a whole document, and the engine's answer for it.

``turns(BLOCK6, players=4)``
    a named line of plays given to the seats in turn order (see the sequences below).

Seeded behaviour (redeal, lot, draw for a double) is computed here independently
of the engine, from :mod:`recorder.shuffle` and the contract's dealing rule.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from recorder.engine import END_NAMES, Match, Move, Round
from recorder.replay import MoveEvent, RoundStart, open_game, replay, walk
from recorder.rules import Ruleset
from recorder.shuffle import Stream, shuffle
from recorder.solver import Seen

FORMAT = "domino-log/1"
PLAYER_IDS = ("ingaan", "kfnielsen", "svendbent", "louise82")

# ---------------------------------------------------------------------------- tiles


def tiles(text: str | Iterable[str]) -> list[str]:
    """``"6-6 6-5"`` or ``["6-6", "6-5"]`` -> ``["6-6", "6-5"]``."""
    if isinstance(text, str):
        return text.split()
    return list(text)


def norm(tile: str) -> str:
    """The tile low half first: ``"6-3"`` -> ``"3-6"``."""
    a, b = (int(x) for x in tile.split("-"))
    return f"{min(a, b)}-{max(a, b)}"


def pips(tile_list: str | Iterable[str]) -> int:
    return sum(int(a) + int(b) for a, b in (t.split("-") for t in tiles(tile_list)))


def is_double(tile: str) -> bool:
    a, b = tile.split("-")
    return a == b


def canonical(max_pip: int = 6, sets: int = 1) -> list[str]:
    """docs/format.md's canonical order: 0-0, 0-1, ..., 0-N, 1-1, ..., N-N (twice for two sets)."""
    one = [f"{a}-{b}" for a in range(max_pip + 1) for b in range(a, max_pip + 1)]
    return one * sets


def deal(*hands: str | Iterable[str], boneyard: str | Iterable[str] | None = None,
         top: str | Iterable[str] = (), max_pip: int = 6, sets: int = 1) -> dict[str, Any]:
    """An explicit deal that is exactly the tile set (checked here, as an authoring aid)."""
    hand_lists = [tiles(h) for h in hands]
    left = Counter(canonical(max_pip, sets))

    def take(tile: str) -> None:
        key = norm(tile)
        if left[key] <= 0:
            raise ValueError(f"deal(): {tile} is named more often than the set holds it")
        left[key] -= 1

    for hand in hand_lists:
        for t in hand:
            take(t)
    first = tiles(top)
    for t in first:
        take(t)
    if boneyard is None:
        rest = []
        for t in canonical(max_pip, sets):
            if left[t] > 0:
                rest.append(t)
                left[t] -= 1
        bone = first + rest
    else:
        if first:
            raise ValueError("deal(): give either boneyard or top, not both")
        bone = tiles(boneyard)
        for t in bone:
            take(t)
        missing = sorted(+left)
        if missing:
            raise ValueError(f"deal(): the boneyard misses {missing}")
    return {"hands": hand_lists, "boneyard": bone}


# ---------------------------------------------------------------------------- moves


def move(spec: str) -> dict[str, Any]:
    """One move from its shorthand: ``"1 play 6-3 right"``, ``"0 draw"``, ``"0 draw 2-5"``.

    A play of a closed double ends with ``closed``: ``"1 play 4-4 right closed"``.
    """
    parts = spec.split()
    closed = parts[1:2] == ["play"] and parts[-1] == "closed"
    if closed:
        parts = parts[:-1]
    if len(parts) < 2:
        raise ValueError(f"move(): {spec!r} needs at least a seat and an action")
    out: dict[str, Any] = {"player": int(parts[0]), "action": parts[1]}
    rest = parts[2:]
    if parts[1] == "play":
        if not rest or len(rest) > 2:
            raise ValueError(f"move(): {spec!r}: a play is 'seat play tile [end]'")
        out["tile"] = rest[0]
        if len(rest) == 2:
            out["end"] = rest[1]
        if closed:
            out["closed"] = True
    elif parts[1] == "draw":
        if len(rest) > 1:
            raise ValueError(f"move(): {spec!r}: a draw is 'seat draw [tile]'")
        if rest:
            out["tile"] = rest[0]
    elif rest:
        raise ValueError(f"move(): {spec!r}: a {parts[1]} takes no tile")
    return out


def moves(*specs: str | dict[str, Any]) -> list[dict[str, Any]]:
    """Moves from shorthand strings (dicts pass through); ``"1 draw *14"`` is 14 draws."""
    out: list[dict[str, Any]] = []
    for spec in specs:
        if isinstance(spec, dict):
            out.append(dict(spec))
            continue
        count = 1
        parts = spec.split()
        if parts and parts[-1].startswith("*"):
            count = int(parts[-1][1:])
            spec = " ".join(parts[:-1])
        out.extend(move(spec) for _ in range(count))
    return out


def turns(plays: Sequence[str], players: int, first: int = 0) -> list[str]:
    """A line of plays (``"6-1 left"``) made by the seats in turn, starting at ``first``."""
    return [f"{(first + i) % players} play {p}" for i, p in enumerate(plays)]


def played_by(plays: Sequence[str], players: int, first: int = 0) -> list[list[str]]:
    """The tiles each seat plays in :func:`turns` of the same line."""
    per: list[list[str]] = [[] for _ in range(players)]
    for i, p in enumerate(plays):
        per[(first + i) % players].append(p.split()[0])
    return per


#: Everything on the right of the opening 6-6, alternating doubles and steps down:
#: with two players seat 0 plays the seven doubles and goes out on move 13.
STAIRS_DOWN = (
    "6-6", "6-5 right", "5-5 right", "5-4 right", "4-4 right", "4-3 right", "3-3 right",
    "3-2 right", "2-2 right", "2-1 right", "1-1 right", "1-0 right", "0-0 right",
)
#: The same, upwards from 0-0 (kozel opens with 0-0).
STAIRS_UP = (
    "0-0", "0-1 right", "1-1 right", "1-2 right", "2-2 right", "2-3 right", "3-3 right",
    "3-4 right", "4-4 right", "4-5 right", "5-5 right", "5-6 right", "6-6 right",
)
#: Ten plays that put all seven 6s on the table with both line ends showing 6: after
#: them nobody can ever play again (the spinner's arms show 6 too). Board: 78 pips.
BLOCK6 = (
    "6-6", "6-1 left", "1-2 left", "2-6 left", "6-3 right", "3-4 right", "4-6 right",
    "6-5 left", "5-0 left", "0-6 left",
)
#: As BLOCK6 with one more connector (6-5, 5-1, 1-0, 0-6): 11 plays, board 80 pips,
#: so the 88 pips off the board do not split evenly in three.
BLOCK6_LONG = (
    "6-6", "6-1 left", "1-2 left", "2-6 left", "6-3 right", "3-4 right", "4-6 right",
    "6-5 left", "5-1 left", "1-0 left", "0-6 left",
)
#: BLOCK6 with 0 and 6 swapped: kills the 0s from the opening 0-0 (kozel). Board: 42 pips.
BLOCK0 = (
    "0-0", "0-1 left", "1-2 left", "2-0 left", "0-3 right", "3-4 right", "4-0 right",
    "0-5 left", "5-6 left", "6-0 left",
)

# ---------------------------------------------------------------------------- documents


def player_list(players: int | Sequence[str]) -> list[dict[str, str]]:
    ids = PLAYER_IDS[:players] if isinstance(players, int) else players
    if isinstance(players, int) and players > len(PLAYER_IDS):
        ids = [f"player{i}" for i in range(players)]
    return [{"id": pid} for pid in ids]


def log(ruleset: str | dict[str, Any], players: int | Sequence[str],
        rounds: Sequence[dict[str, Any]], *, seed: str | None = None,
        result: dict[str, Any] | None = None, game_id: str = "hand-made") -> dict[str, Any]:
    """A domino-log/1 document; each round's ``moves`` may be shorthand strings."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "game_id": game_id,
        "frontend": {"name": "rules-tests", "version": "1"},
        "ruleset": copy.deepcopy(ruleset),
        "players": player_list(players),
    }
    if seed is not None:
        doc["seed"] = seed
    out_rounds = []
    for r in rounds:
        rd = copy.deepcopy(dict(r))
        rd["moves"] = moves(*rd.get("moves", ()))
        out_rounds.append(rd)
    doc["rounds"] = out_rounds
    if result is not None:
        doc["result"] = result
    return doc


def run(ruleset: str | dict[str, Any], players: int | Sequence[str],
        rounds: Sequence[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
    """The engine's answer (docs/format.md) for the document :func:`log` builds."""
    return replay(log(ruleset, players, rounds, **kwargs))


def one_round(ruleset: str | dict[str, Any], players: int | Sequence[str],
              the_deal: dict[str, Any], *specs: str, **kwargs: Any) -> dict[str, Any]:
    """The answer for a game of one round with an explicit deal."""
    return run(ruleset, players, [{"deal": the_deal, "moves": list(specs)}], **kwargs)


def refused(answer: dict[str, Any], round_no: int, move_no: int, *words: str) -> str:
    """Assert the game is invalid at (round, move), for the reason ``words`` say.

    Where alone is not enough: a test must say why too (at least one word of the
    message). The JSON pointer must name the same place as (round, move): the move's
    own object (or a field in it), else the round's, else somewhere outside the rounds.
    """
    assert words, "say why the game is refused: give a word of the expected message"
    assert answer["status"] == "invalid", f"expected a refusal, got {answer}"
    err = answer["error"]
    assert (err["round"], err["move"]) == (round_no, move_no), err
    for w in words:
        assert w in err["message"], f"{w!r} not in {err['message']!r}"
    pointer = err.get("pointer")
    assert pointer is not None, err
    if move_no:
        place = f"/rounds/{round_no - 1}/moves/{move_no - 1}"
    elif round_no:
        place = f"/rounds/{round_no - 1}"
    else:
        place = None
    if place is not None:
        assert pointer == place or pointer.startswith(place + "/"), (place, err)
    else:
        assert not pointer.startswith("/rounds/"), err
    return str(err["message"])


def accepted(answer: dict[str, Any]) -> dict[str, Any]:
    """Assert the game is valid (finished or unfinished)."""
    assert answer["status"] in ("finished", "unfinished"), answer.get("error", answer)
    return answer


def only_round(answer: dict[str, Any]) -> dict[str, Any]:
    accepted(answer)
    assert len(answer["rounds"]) == 1, answer
    return dict(answer["rounds"][0])


# ---------------------------------------------------------------------------- engine


def position(ruleset: str | dict[str, Any], players: int, the_deal: dict[str, Any],
             *specs: str) -> Round:
    """The engine's round after ``specs`` were applied (each checked first)."""
    match = Match(Ruleset.from_spec(ruleset), players)
    state = match.new_round(deal=the_deal)
    for m in moves(*specs):
        state.apply(as_move(m))
    return state


def every_move(state: Round) -> list[str]:
    """Every legal move, each play with the end it goes to, as the round vectors (and the
    JS library, which is checked against them) list them."""
    if state.over:
        return []
    seats = state.openers if state.phase == "opening" else (state.turn,)
    out = []
    for seat in seats:
        plays = state._plays(seat)
        if not plays:
            out += [f"{seat} {m.action}" for m in state.legal_moves(seat)]
            continue
        closable = state.rules.closed_doubles and state._may_close()
        for kind, e in plays:
            text = f"{seat} {state.tiles.kind_name[kind]}" + (f" {END_NAMES[e]}" if e >= 0 else "")
            out.append(text)
            if closable and state.tiles.kind_is_double[kind]:
                out.append(text + " closed")
    return out


def decisions_seen(doc: Any) -> Iterator[tuple[MoveEvent, Seen]]:
    """Each decision of a log (a move whose mover had more than one legal move) with what
    the players had seen before it: one :class:`recorder.solver.Seen` per round, brought
    up to date move by move, as the review and its bot keep it. Read it before the next
    item (it is then updated with this move)."""
    seen: Seen | None = None
    for event in walk(doc, open_game(doc)):
        if type(event) is RoundStart:
            seen = Seen(event.state)
        elif type(event) is MoveEvent:
            assert seen is not None
            if len(event.state.legal_moves(event.move.player)) > 1:
                yield event, seen
            seen.record(event.state, event.move)


def as_move(m: dict[str, Any] | str) -> Move:
    if isinstance(m, str):
        m = move(m)
    return Move(m["player"], m["action"], m.get("tile"), m.get("end"), m.get("closed") is True)


# ---------------------------------------------------------------------------- seeds


def shuffled(seed: str, max_pip: int = 6, sets: int = 1) -> tuple[list[str], Stream]:
    """The first shuffle of ``seed`` and the stream right after it."""
    stream = Stream(seed)
    return shuffle(canonical(max_pip, sets), stream), stream


def dealt(order: Sequence[str], players: int, each: int) -> tuple[list[list[str]], list[str]]:
    """Seat s takes items [s*h, (s+1)*h); the rest is the boneyard (docs/format.md)."""
    hands = [list(order[s * each:(s + 1) * each]) for s in range(players)]
    return hands, list(order[players * each:])


def highest_double(hands: Sequence[Sequence[str]]) -> str | None:
    held = [t for h in hands for t in h if is_double(t)]
    if not held:
        return None
    return max(held, key=lambda t: int(t.split("-")[0]))


def find_seed(predicate: Callable[[str], bool], prefix: str, limit: int = 50_000) -> str:
    """The first seed ``prefix-<i>`` for which ``predicate`` holds."""
    for i in range(limit):
        seed = f"{prefix}-{i}"
        if predicate(seed):
            return seed
    raise AssertionError(f"no seed {prefix}-0..{limit - 1} has the property")


# ---------------------------------------------------------------------------- positions
# Deals several presets share. Each is a function so every test gets a fresh copy.


def stairs_down_deal(extra: str = "3-6") -> dict[str, Any]:
    """Two players for STAIRS_DOWN: seat 0 holds the seven doubles, seat 1 the six steps
    and ``extra``; seat 0 goes out on move 13 and wins the pips of ``extra``."""
    p0, p1 = played_by(STAIRS_DOWN, 2)
    return deal(p0, [*p1, extra])


def stairs_up_deal(extra: str = "3-6") -> dict[str, Any]:
    """STAIRS_UP for two players (seat 0 holds 0-0 and opens with it in kozel)."""
    p0, p1 = played_by(STAIRS_UP, 2)
    return deal(p0, [*p1, extra])


def all_sixes_deal() -> dict[str, Any]:
    """Seat 0 holds all seven 6s, seat 1 none; the 14 tiles of the boneyard have no 6.

    After ``0 play 6-6`` seat 1 must draw the whole boneyard without a fit; seat 0 can
    still play, so the round is not blocked."""
    return deal("6-6 0-6 1-6 2-6 3-6 4-6 5-6", "1-1 1-2 1-3 1-4 1-5 2-2 2-3")


def draw_deal(top: str = "0-1 0-2 1-6") -> dict[str, Any]:
    """Seat 0: 6-6 and five other 6s; seat 1: no 6; the boneyard starts with ``top``
    (by default two misses, then 1-6, the one 6 left) and holds 0-0 (kozel opens 6-6)."""
    return deal("6-6 0-6 2-6 3-6 4-6 5-6 2-3", "1-1 1-2 1-3 1-4 1-5 2-2 3-4", top=top)


def no_double_deal(top: str = "5-6 4-6") -> dict[str, Any]:
    """Two hands of 7 without a double; all seven doubles are in the boneyard.

    The highest tile held is 3-6 (seat 0), which beats 4-5 (seat 1): both sum 9 and
    3-6 has the higher half; 5-6 and 4-6 lie in the boneyard."""
    return deal("3-6 0-1 0-2 0-3 0-4 0-5 0-6", "4-5 1-2 1-3 1-4 1-5 1-6 2-3", top=top)


def block6_two_deal() -> dict[str, Any]:
    """Two players for BLOCK6; after move 10 seat 0 must draw all 14 tiles, none fits,
    and the round is blocked on that last draw: seat 0 holds 89 pips, seat 1 holds 1."""
    p0, p1 = played_by(BLOCK6, 2)
    return deal([*p0, "4-4", "5-5"], [*p1, "0-0", "0-1"])


def thirds_deal() -> dict[str, Any]:
    """Four players (5 tiles each) for BLOCK6_LONG: after move 11 seat 3 draws the 8
    tiles of the boneyard and the round blocks on the last draw. Seats 0, 1 and 2 hold
    6 pips each, seat 3 holds 70: the three tie and split 70 in thirds."""
    p0, p1, p2, p3 = played_by(BLOCK6_LONG, 4)
    return deal([*p0, "0-0", "2-4"], [*p1, "0-2", "0-4"], [*p2, "1-1", "1-3"],
                [*p3, "4-4", "4-5", "5-5"])
