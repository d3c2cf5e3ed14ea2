"""Games of other engines, recorded as domino-log/1.

One module per engine, each imported only when asked for, so the core never needs
them (they come with ``pip install -e '.[engines]'``):

- :mod:`recorder.adapters.openspiel`: OpenSpiel's ``python_block_dominoes`` and
  ``python_team_dominoes`` (a finished state, or its action history);
- :mod:`recorder.adapters.dominoes_game`: the ``dominoes`` package (abw333), a
  ``dominoes.Game`` (one hand) or a ``dominoes.Series``;
- :mod:`recorder.adapters.all_fives`: ``all-fives-domino``, a ``Game`` played by
  recording players.

Every document has each round's explicit deal, the preset of that engine's rules,
and the engine's own figures as its claimed ``result``: a replay that computes
anything else reports it as a mismatch, so a converted game is checked twice.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from recorder import FORMAT

#: engine name (as ``recorder simulate --engine`` takes it) -> its module
ENGINES: dict[str, str] = {
    "openspiel": "recorder.adapters.openspiel",
    "dominoes": "recorder.adapters.dominoes_game",
    "all-fives": "recorder.adapters.all_fives",
}


class EngineMissing(ImportError):
    """The engine's package is not installed: say how to install it."""


def load(engine: str) -> Any:
    """The adapter module of ``engine``, or :class:`EngineMissing` naming what to install."""
    if engine not in ENGINES:
        raise ValueError(f"unknown engine {engine!r}; engines: {', '.join(ENGINES)}")
    try:
        return importlib.import_module(ENGINES[engine])
    except ModuleNotFoundError as exc:
        raise EngineMissing(
            f"the {engine} engine is not installed ({exc.name} is missing): "
            "pip install -e '.[engines]'"
        ) from None


def simulate(engine: str, games: int, seed: str, **options: Any) -> Iterator[dict[str, Any]]:
    """``games`` games played by ``engine`` itself (seeded), as domino-log/1 documents."""
    module = load(engine)
    play: Callable[..., dict[str, Any]] = module.simulate_one
    for i in range(1, games + 1):
        yield play(f"{seed}-{i}", **options)


def document(*, engine: str, version: str, ruleset: str | dict[str, Any],
             players: Sequence[str], rounds: list[dict[str, Any]], game_id: str | None,
             result: dict[str, Any] | None) -> dict[str, Any]:
    """A domino-log/1 document in the order the format guide writes one."""
    doc: dict[str, Any] = {"format": FORMAT}
    if game_id is not None:
        doc["game_id"] = game_id
    doc["frontend"] = {"name": engine, "version": version}
    doc["ruleset"] = ruleset
    doc["players"] = [{"id": p} for p in players]
    doc["rounds"] = rounds
    if result is not None:
        doc["result"] = result
    return doc


def tile(a: int, b: int) -> str:
    """A tile as the log writes it, first half first (the first tile's left half)."""
    return f"{int(a)}-{int(b)}"


def canonical_rest(held: set[tuple[int, int]], max_pip: int = 6) -> list[str]:
    """The double-six tiles nobody was dealt, in canonical order: a boneyard no one draws."""
    return [tile(a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1)
            if (a, b) not in held]


def package_version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:  # pragma: no cover - installed some other way
        return "unknown"


__all__ = ["ENGINES", "EngineMissing", "canonical_rest", "document", "load",
           "package_version", "simulate", "tile"]
