"""Writing a domino-log/1 document as a game is played: the log builder.

A frontend (or the simulator) records what happens at the table, in order, and
gets a document that ``recorder validate`` accepts when the moves were legal.
The builder knows the document's shape, not the rules: it refuses what can never
be right wherever it is (a seat that is not at the table, a tile that is not
``"a-b"``, a move outside a round) at once, where the mistake is made, and
leaves the rules to the engine, which replays the result.

The JavaScript library in ``clients/js`` has the same builder with the same
method names (``pass`` is ``pass_`` here, ``pass`` being a keyword).

    log = GameLog("spilop", ["ingaan", "kfnielsen"], seed="g-1", game_id="g-1",
                  frontend={"name": "my-app", "version": "1.0"})
    log.start_round()                 # dealt from "g-1/1"
    log.play(0, "6-6")
    log.play(1, "6-3", "right", ms=5400)
    log.draw(0, "2-5")
    log.pass_(0)
    log.end_round()
    text = log.dumps()
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from recorder import FORMAT

ENDS = ("left", "right", "up", "down")
_TILE = re.compile(r"^\d{1,2}-\d{1,2}$")


class LogError(ValueError):
    """A call that would write a document no recorder can accept, whatever the rules."""


class GameLog:
    """One game's document, built move by move.

    ``players`` are ids (strings) or ``{"id": ..., "name": ...}`` objects, in seat
    order. ``ruleset`` is a preset name or ``{"preset": ..., "options": {...}}``.
    Keys come out in a fixed order (format, game_id, frontend, ruleset, players,
    seed, started_at, rounds, result), so the same game always serializes to the
    same bytes.
    """

    def __init__(
        self,
        ruleset: str | Mapping[str, Any],
        players: Sequence[str | Mapping[str, Any]],
        *,
        seed: str | None = None,
        game_id: str | None = None,
        frontend: Mapping[str, Any] | str | None = None,
        started_at: str | None = None,
    ) -> None:
        if not players:
            raise LogError("a game needs at least one player")
        self.players: list[dict[str, Any]] = []
        for p in players:
            entry = {"id": p} if isinstance(p, str) else dict(p)
            if not isinstance(entry.get("id"), str) or not entry["id"]:
                raise LogError(f"a player needs a non-empty string id, not {p!r}")
            self.players.append(entry)
        ids = [p["id"] for p in self.players]
        if len(set(ids)) != len(ids):
            raise LogError("player ids must be unique in a game")
        self.ruleset = ruleset if isinstance(ruleset, str) else dict(ruleset)
        self.seed = seed
        self.game_id = game_id
        self.frontend = {"name": frontend} if isinstance(frontend, str) else (
            dict(frontend) if frontend is not None else None)
        self.started_at = started_at
        self.rounds: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self._open = False

    # ------------------------------------------------------------------ rounds
    def start_round(self, *, seed: str | None = None,
                    deal: Mapping[str, Any] | None = None, opener: int | None = None) -> int:
        """Begin the next round; returns its number (1-based).

        Without ``seed`` or ``deal`` the recorder deals it from ``"<game seed>/<n>"``,
        so the game needs a seed. ``deal`` is ``{"hands": [[...], ...], "boneyard": [...]}``.
        ``opener`` names the seat that opens, for rules whose opening is a named seat.
        """
        if self._open:
            raise LogError(f"round {len(self.rounds)} is still open; end it first")
        if self.result is not None:
            raise LogError("the game is finished; no round may follow")
        if seed is not None and deal is not None:
            raise LogError("a round takes a seed or a deal, not both")
        if seed is None and deal is None and self.seed is None:
            raise LogError("the round has no seed or deal, and the game has no seed")
        rdoc: dict[str, Any] = {}
        if seed is not None:
            rdoc["seed"] = seed
        if deal is not None:
            rdoc["deal"] = {"hands": [list(h) for h in deal["hands"]],
                            "boneyard": list(deal.get("boneyard", []))}
        if opener is not None:
            self._seat(opener, "opener")
            rdoc["opener"] = opener
        rdoc["moves"] = []
        self.rounds.append(rdoc)
        self._open = True
        return len(self.rounds)

    def end_round(self, result: Mapping[str, Any] | None = None) -> None:
        """Close the round; ``result`` is what the frontend claims for it (optional)."""
        self._round("end a round")
        if result is not None:
            self.rounds[-1]["result"] = dict(result)
        self._open = False

    def finish(self, result: Mapping[str, Any] | None = None) -> None:
        """Close the game; ``result`` (``{"scores": [...], "winners": [...]}``) is optional."""
        if self._open:
            self.end_round()
        self.result = dict(result) if result is not None else {}

    # ------------------------------------------------------------------ moves
    def play(self, player: int, tile: str, end: str | None = None, *,
             ms: int | None = None, closed: bool = False) -> None:
        """A tile placed; ``end`` (left, right, up, down) when more than one end took it.

        ``closed``: a double played crosswise and closed (rule closed_doubles).
        """
        self._move(player, "play", tile, end, ms, closed)

    def draw(self, player: int, tile: str | None = None, *, ms: int | None = None) -> None:
        """A tile drawn from the boneyard; give ``tile`` to have the recorder check it."""
        self._move(player, "draw", tile, None, ms)

    def pass_(self, player: int, *, ms: int | None = None) -> None:
        """The player could neither play nor draw."""
        self._move(player, "pass", None, None, ms)

    def _round(self, what: str) -> dict[str, Any]:
        if not self._open:
            raise LogError(f"no round is open to {what}; call start_round first")
        return self.rounds[-1]

    def _seat(self, seat: int, what: str) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or \
                not 0 <= seat < len(self.players):
            raise LogError(f"{what} is a seat from 0 to {len(self.players) - 1}, not {seat!r}")

    def _move(self, player: int, action: str, tile: str | None, end: str | None,
              ms: int | None, closed: bool = False) -> None:
        rdoc = self._round("record a move in")
        self._seat(player, "player")
        if action == "play" and tile is None:
            raise LogError("a play needs a tile")
        if tile is not None and (not isinstance(tile, str) or not _TILE.match(tile)):
            raise LogError(f'{tile!r} is not a tile; write tiles as "a-b", like "6-3"')
        if end is not None and end not in ENDS:
            raise LogError(f"{end!r} is not an end; ends are left, right, up, down")
        if ms is not None and (isinstance(ms, bool) or not isinstance(ms, int) or ms < 0):
            raise LogError(f"ms is a whole number of milliseconds, not {ms!r}")
        entry: dict[str, Any] = {"player": player, "action": action}
        if tile is not None:
            entry["tile"] = tile
        if end is not None:
            entry["end"] = end
        if closed:
            entry["closed"] = True
        if ms is not None:
            entry["ms"] = ms
        rdoc["moves"].append(entry)

    # ------------------------------------------------------------------ output
    def to_dict(self) -> dict[str, Any]:
        """The document, as plain JSON data (a round still open is written as it stands)."""
        doc: dict[str, Any] = {"format": FORMAT}
        if self.game_id is not None:
            doc["game_id"] = self.game_id
        if self.frontend is not None:
            doc["frontend"] = self.frontend
        doc["ruleset"] = self.ruleset
        doc["players"] = self.players
        if self.seed is not None:
            doc["seed"] = self.seed
        if self.started_at is not None:
            doc["started_at"] = self.started_at
        doc["rounds"] = self.rounds
        if self.result:
            doc["result"] = self.result
        return doc

    def dumps(self, *, indent: int | None = None) -> str:
        """The document as JSON text."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)


__all__ = ["ENDS", "GameLog", "LogError"]
