"""The recorder's deal of a seed, as plain data: what ``recorder deal`` shows.

A frontend that lets the recorder deal must reproduce this exactly; when its
log does not replay, the first thing to compare is its deal with this one. The
same description feeds the deal vectors (``schemas/vectors/deal-sha256-fy-1.json``)
and the hint that the engine's refusals give when a deal may differ.
"""

from __future__ import annotations

import json
import shlex
from typing import Any

from recorder.engine import Round, seeded_deal
from recorder.rules import Ruleset
from recorder.tiles import tile_set


def deal_of(rules: Ruleset, players: int, seed: str) -> dict[str, Any]:
    """The deal of ``seed``: hands (canonical order), boneyard (draw order), redeals, lot, opener.

    ``opens`` says who may make the first move and with what: ``tile`` is null when
    any tile may open (a free opening) and ``draw_for_double`` is true when nobody
    holds a double and the players draw in turn (spilop).
    """
    rules.check_players(players)
    tiles = tile_set(rules.max_pip, rules.sets)
    dealt, stream = seeded_deal(rules, players, seed)
    state = Round.start(rules, players, dealt, stream)
    deal = state.deal  # with the lot, when one was drawn
    drawing = state.phase == "draw-for-double"
    return {
        "seed": seed,
        "preset": rules.preset,
        "players": players,
        "tiles_each": rules.tiles_each(players),
        "hands": deal.hand_names(tiles),
        "boneyard": deal.boneyard_names(tiles),
        "redeals": deal.redeals,
        "lot": deal.lot,
        "opens": {
            "seats": [] if drawing else list(state.openers),
            "tile": None if drawing or state.opening_kind < 0
            else tiles.kind_name[state.opening_kind],
            "draw_for_double": drawing,
        },
    }


def deal_command(ruleset: Any, players: int, seed: str, round_no: int | None = None) -> str:
    """The ``recorder deal`` command line that shows this deal, quoted for a POSIX shell.

    ``ruleset`` is the log's ``ruleset`` field (a preset name or {preset, options});
    with ``round_no`` the seed is the game's seed and the round seed is ``seed/round_no``.
    """
    options: dict[str, Any]
    if isinstance(ruleset, str):
        preset, options = ruleset, {}
    else:
        preset, options = ruleset.get("preset"), ruleset.get("options") or {}
    parts = ["recorder", "deal", shlex.quote(seed), "--preset", shlex.quote(str(preset))]
    for name, value in options.items():
        parts += ["-o", shlex.quote(f"{name}={_option_text(value)}")]
    parts += ["--players", str(players)]
    if round_no is not None:
        parts += ["--round", str(round_no)]
    return " ".join(parts)


def _option_text(value: Any) -> str:
    """An option value as ``-o`` reads it: JSON, except a string that reads as itself."""
    if isinstance(value, str):
        try:
            json.loads(value)
        except json.JSONDecodeError:
            return value
    return json.dumps(value, separators=(",", ":"))


__all__ = ["deal_command", "deal_of"]
