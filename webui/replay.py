"""The replay and watch pages' words that the server writes: the header and a log's refusal.

The header says what game this is: the preset, the rules the log changed from it (a
double-nine partnership game is not just "classic"), the teams, where it came from and
how far it went. The frames (``recorder.frames``) carry everything the page draws; this
module only puts the game's rules into words for the page's heading, and quotes the
part of a log that a refusal points at. The routes themselves are in ``webui.games``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from recorder.errors import RecorderError
from recorder.frames import changed_rules
from recorder.rules import Ruleset

PIPS = {6: "double-six", 9: "double-nine", 12: "double-twelve"}
DRAWS = {"one": "draw one tile", "none": "no drawing", "until-playable": "draw until a tile fits"}
EXCERPT_CHARS = 240
"""How much of the log a refusal quotes at its pointer."""


def rule_phrases(changed: Mapping[str, Any], rules: Mapping[str, Any]) -> list[str]:
    """The rules a log changed from its preset, in words: ``["double-nine", "partnerships"]``.

    ``changed`` is ``recorder.frames.changed_rules`` (names as ``Ruleset.describe()``
    writes them), ``rules`` every rule in force (for the values a phrase needs).
    """
    out = []
    for name, value in changed.items():
        phrase = _phrase(name, value, rules)
        if phrase and phrase not in out:
            out.append(phrase)
    return out


def _phrase(name: str, value: Any, rules: Mapping[str, Any]) -> str | None:
    if name == "max_pip" and value in PIPS:
        return PIPS[value]
    if name == "sets":
        return "two sets mixed" if value == 2 else "one set"
    if name == "partnerships":
        return "partnerships" if value else "no partnerships"
    if name in ("bonus", "bonus_multiple"):
        if not rules.get("bonus"):
            return "no bonus"
        return f"bonus on multiples of {rules.get('bonus_multiple', 5)}"
    if name == "draw" and value in DRAWS:
        return DRAWS[value]
    if name == "stock_floor":
        return f"no drawing from the last {value} tiles" if value else "draw to the last tile"
    if name == "target":
        return f"to {value} points"
    if name == "target_mode":
        return "reaching the target loses" if value == "reach-loses" else \
            "reaching the target wins"
    if name == "target_check":
        return "the game ends the moment a play reaches the target" if value == "play" else \
            "the target is checked at the end of a round"
    if name == "hands":
        return f"a match of {value} {'hand' if value == 1 else 'hands'}"
    if name == "spinner":
        return "spinner" if value else "no spinner"
    if name == "hand_size" and isinstance(value, Mapping):
        sizes = set(value.values())
        if len(sizes) == 1:
            return f"{sizes.pop()} tiles each"
        return "hands of " + ", ".join(f"{v} for {k} players" for k, v in value.items())
    words = name.replace("_", " ")
    if isinstance(value, bool):
        return words if value else f"no {words}"
    if isinstance(value, Mapping):
        value = ", ".join(f"{k}: {v}" for k, v in value.items())
    elif isinstance(value, list):
        value = ", ".join(str(v) for v in value)
    return f"{words}: {value}"


def player_name(player: Any, seat: int) -> str:
    """How the page calls a player: the name when the log gives one, else the id."""
    if isinstance(player, Mapping):
        for key in ("name", "id"):
            if isinstance(player.get(key), str) and player[key]:
                return str(player[key])
    return f"seat {seat}"


def teams(sides: Sequence[Sequence[int]] | None,
          players: Sequence[Any]) -> list[list[dict[str, Any]]] | None:
    """The teams of a partnership game (each a list of its players), else None."""
    if not sides or all(len(side) < 2 for side in sides):
        return None
    out = []
    for side in sides:
        members = []
        for seat in side:
            p = players[seat] if 0 <= seat < len(players) else None
            pid = p.get("id") if isinstance(p, Mapping) else None
            members.append({"seat": seat, "name": player_name(p, seat),
                            "id": pid if isinstance(pid, str) else None})
        out.append(members)
    return out


def header(*, preset: str | None, changed: Mapping[str, Any], rules: Mapping[str, Any] | None,
           sides: Sequence[Sequence[int]] | None, players: Sequence[Any],
           frontend: str | None, started_at: str | None, status: str | None,
           rounds_done: int) -> dict[str, Any]:
    """What the page's heading shows under the title, as parts the template joins."""
    bits = [preset] if preset else []
    bits += rule_phrases(changed, rules or {})
    if players:
        bits.append(f"{len(players)} players")
    if frontend:
        bits.append(f"from {frontend}")
    if started_at:
        bits.append(started_at.replace("T", " ").removesuffix("Z") + " UTC")
    if status == "unfinished":
        # an unfinished game has no final score: say how far it went instead
        done = f"{rounds_done} {'round' if rounds_done == 1 else 'rounds'} complete"
        bits.append(f"unfinished ({done})" if rounds_done else "unfinished (no round complete)")
    elif status == "invalid":
        bits.append("refused by the engine")
    elif status:
        bits.append(status)
    return {"bits": bits, "teams": teams(sides, players)}


def stored_header(db: Any, game_pk: int, summary: Mapping[str, Any]) -> dict[str, Any]:
    """The heading of a stored game: its summary, and the rules of its ``ruleset``."""
    players = summary.get("players") or []
    changed: dict[str, Any] = {}
    described: dict[str, Any] | None = None
    sides = None
    found = db.execute("SELECT ruleset FROM games WHERE id = ?", [game_pk]).fetchone()
    try:
        rules = Ruleset.from_spec(json.loads(found[0]))
    except (RecorderError, TypeError, ValueError):  # pragma: no cover - stored games replayed
        rules = None
    if rules is not None:
        changed = changed_rules(rules)
        described = rules.describe()
        sides = rules.sides(len(players))
    return header(preset=summary.get("preset"), changed=changed, rules=described,
                  sides=sides, players=players, frontend=summary.get("frontend"),
                  started_at=summary.get("started_at"), status=summary.get("status"),
                  rounds_done=int(summary.get("rounds_count") or 0))


def watched_header(frames: Mapping[str, Any]) -> dict[str, Any]:
    """The heading of a watched log, from its frames."""
    game = frames.get("game") or {}
    done = sum(1 for r in frames.get("rounds") or [] if r.get("summary"))
    return header(preset=game.get("preset"), changed=game.get("changed") or {},
                  rules=game.get("rules"), sides=game.get("sides"),
                  players=game.get("players") or [], frontend=game.get("frontend"),
                  started_at=game.get("started_at"), status=game.get("status"),
                  rounds_done=done)


def pointer_excerpt(doc: Any, pointer: str | None) -> str | None:
    """The part of ``doc`` a JSON pointer names, as short JSON text (None if it names none).

    Where the pointer names something absent (a missing field), the object that should
    hold it is quoted instead.
    """
    if not isinstance(pointer, str) or not pointer.startswith("/"):
        return None
    node: Any = doc
    for raw in pointer[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            break
    # encoded lazily, so quoting a whole round of a long log costs no more than its start
    text = ""
    for chunk in json.JSONEncoder(ensure_ascii=False).iterencode(node):
        text += chunk
        if len(text) > EXCERPT_CHARS:
            return text[:EXCERPT_CHARS - 1] + "…"
    return text
