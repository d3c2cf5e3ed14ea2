"""What a refusal adds about its likely cause, when the log went wrong before the move refused.

The engine says what is wrong with a move; a frontend's mistake often lies earlier:
a deal that differs from the recorder's, a lot it did not draw, a first tile written
the other way round, a tile it put on another end than its log says. Each hint here
recognises one of these from the refusal and the round, and says so in the message,
with the command or rule that shows it. Only a refused game pays for them (the mirror
reading replays the round a second time), so the walk imports this module when a
move is refused, never before.
"""

from __future__ import annotations

from typing import Any

from recorder.engine import DOWN, UP, Match, Move, Round
from recorder.errors import IllegalMove, RecorderError
from recorder.rules import Ruleset


def refusal_hint(exc: IllegalMove, move: Move, state: Round, doc: Any, r: int, m: int,
                 match: Match) -> str:
    """The hint that follows the refusal of ``move``, move ``m`` of round ``r``, or ""."""
    return (_lot_hint(exc, move, state, doc, r) or _deal_hint(exc, move, state, doc, r)
            or _mirror_hint(doc, r, m, match) or _end_hint(exc))


def _deal_command(doc: Any, state: Round, r: int) -> str:
    from recorder.deal import deal_command

    own = doc["rounds"][r - 1].get("seed")
    if own is not None:
        return deal_command(doc["ruleset"], state.players, own)
    return deal_command(doc["ruleset"], state.players, doc["seed"], r)


def _deal_hint(exc: IllegalMove, move: Move, state: Round, doc: Any, r: int) -> str:
    """When a refusal suggests that the frontend dealt differently: how to see our deal.

    A seeded round whose first move is out of turn, a tile that a player who has not
    drawn yet does not hold, a drawn tile that is not the next of the boneyard, or a
    play while everybody must draw for a double: the likeliest cause is a shuffle or
    deal that differs from the recorder's, far from where the log goes wrong.
    """
    if not state.deal.seeded:
        return ""
    reason = exc.message
    seat = move.player
    suspicious = (
        (state.moves == 0 and (reason.startswith("not this player's turn")
                               or reason.startswith("nobody holds a double")))
        or (reason.startswith("the player does not hold") and isinstance(seat, int)
            and 0 <= seat < state.players and state.hands[seat] == state.deal.hands[seat])
        or reason.startswith("the next tile of the boneyard is")
    )
    if not suspicious:
        return ""
    return (" (the frontend's deal may differ from the recorder's: compare it with "
            f"`{_deal_command(doc, state, r)}`)")


def _lot_hint(exc: IllegalMove, move: Move, state: Round, doc: Any, r: int) -> str:
    """The first move is by another holder of the tied opening tile: the deal was right,
    the lot was not drawn (or drawn otherwise)."""
    lot = state.deal.lot
    seat = move.player
    if (lot is None or state.moves != 0 or not state.deal.seeded
            or not exc.message.startswith("not this player's turn")
            or not isinstance(seat, int) or not 0 <= seat < state.players
            or state.opening_kind < 0
            or not state.hands[seat] & state.tiles.kind_mask[state.opening_kind]):
        return ""
    return (" (several players hold the opening tile: a lot drawn from the round's stream "
            "right after the deal chooses the opener, docs/format.md, \"The seeded "
            f"shuffle\"; `{_deal_command(doc, state, r)}` shows it)")


_END_MISTAKES = (" end shows ", "matches no open end")


def _end_hint(exc: IllegalMove) -> str:
    """A tile refused for the end it names: the table may have gone wrong earlier."""
    if not any(part in exc.message for part in _END_MISTAKES):
        return ""
    return (" (an earlier move may have gone to another end: `recorder replay` shows the "
            "ends after every move)")


def _mirror_hint(doc: Any, r: int, m: int, match: Match) -> str:
    """A round opened with a non-double whose mirror reading replays further.

    The first tile lies with its first written half on the left; a frontend that
    writes it the other way round has every later end swapped, and its log fails
    moves later with a reason that does not mention the opening at all.
    """
    rdoc = doc["rounds"][r - 1]
    moves = rdoc["moves"]
    if not all(type(mdoc) is dict for mdoc in moves):
        return ""  # a shape error, which the schema reports before any refusal
    first = next((i for i, m in enumerate(moves) if m.get("action") == "play"), None)
    if first is None or first + 1 >= m:
        return ""
    tile = moves[first].get("tile")
    if not isinstance(tile, str) or tile.count("-") != 1:
        return ""
    a, b = tile.split("-")
    if a == b:
        return ""
    flipped = [dict(m) for m in moves]
    flipped[first]["tile"] = f"{b}-{a}"
    reached = _replays(flipped, rdoc, doc, r, match)
    if reached <= m:
        return ""
    where = "to its end" if reached > len(moves) else f"to move {reached}"
    return (f" (this round opened {tile}, so {a} lies on the left and {b} on the right; "
            f"read as {b}-{a}, the round replays {where}: the first tile lies with its "
            "first written half on the left)")


def _replays(moves: list[dict[str, Any]], rdoc: Any, doc: Any, r: int, match: Match) -> int:
    """The number of the first move refused when the round is played with ``moves``
    (one more than their number when none is)."""
    try:
        state = _start(rdoc, doc, r, match)
    except RecorderError:
        return 0
    for m, mdoc in enumerate(moves, 1):
        try:
            state.apply(Move(mdoc.get("player"), mdoc.get("action"), mdoc.get("tile"),
                             mdoc.get("end"), mdoc.get("closed") is True))
        except IllegalMove:
            return m
    return len(moves) + 1


# ---------------------------------------------------------------------- claims
#: wrong readings of the bonus rule that frontends have made: the open-end sum they
#: compute instead of the rule's (docs/rules.md, "The bonus"), and what to say
_READINGS: dict[str, str] = {
    "empty-arms": "the claimed bonus is what the sum gives when the spinner's arms that "
                  "hold no tile count too; an arm counts nothing until a tile lies on it "
                  '(docs/rules.md, "The bonus")',
    "open-ends": "the claimed bonus is what adding up the numbers the open ends show gives; "
                 "the open-end sum counts a double at an end twice, and an arm only once a "
                 'tile lies on it (docs/rules.md, "The bonus")',
}


def _reading_sum(state: Round, reading: str) -> int:
    value = state.value
    if reading == "empty-arms":
        return state.open_end_sum() + sum(value[e] for e in (UP, DOWN)
                                          if value[e] >= 0 and not state.covered[e])
    return sum(v for v in value if v >= 0)


def bonus_reading(doc: Any, r: int, claimed: Any) -> str:
    """Which wrong reading of the bonus rule gives round ``r``'s claimed bonus, in words, or "".

    Replays rounds 1 to ``r`` (the game is valid that far) and scores every play under
    each reading of :data:`_READINGS`.
    """
    try:
        rules = Ruleset.from_spec(doc["ruleset"])
        players = len(doc["players"])
        if not rules.bonus or not isinstance(claimed, list) or len(claimed) != players:
            return ""
        match = Match(rules, players)
        for n, rdoc in enumerate(doc["rounds"][:r], 1):
            state = _start(rdoc, doc, n, match)
            scored = {reading: [0] * players for reading in _READINGS}
            for mdoc in rdoc["moves"]:
                move = Move(mdoc.get("player"), mdoc.get("action"), mdoc.get("tile"),
                            mdoc.get("end"), mdoc.get("closed") is True)
                state.apply(move)
                if move.action != "play" or n < r:
                    continue
                for reading, bonus in scored.items():
                    total = _reading_sum(state, reading)
                    if total > 0 and total % rules.bonus_multiple == 0:
                        for side in rules.sides(players):
                            if move.player in side:
                                for member in side:
                                    bonus[member] += total
            if state.result is None:
                return ""
            if n < r:
                match.finish_round(state.result)
                continue
            for reading, bonus in scored.items():
                if bonus != list(state.bonus) and all(
                        isinstance(c, int | float) and abs(c - b) < 0.005
                        for c, b in zip(claimed, bonus, strict=True)):
                    return _READINGS[reading]
    except (RecorderError, TypeError, KeyError, AttributeError):
        return ""
    return ""


def _start(rdoc: Any, doc: Any, r: int, match: Match) -> Round:
    """Round ``r`` of ``doc`` as the walk starts it, from ``match`` as it stands."""
    deal = rdoc.get("deal")
    opener = rdoc.get("opener")
    if deal is not None:
        return match.new_round(deal=deal, opener=opener)
    seed = rdoc.get("seed")
    return match.new_round(seed=seed if seed is not None else f"{doc['seed']}/{r}",
                           opener=opener)


__all__ = ["bonus_reading", "refusal_hint"]
