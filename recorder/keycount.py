"""Key count: the keys of a parsed log, counted where a log keeps them.

The parser proves that a document writes no key twice by comparing the colons its byte
screen counted in the text with what this counts in the parsed value (``recorder.parse``,
"duplicate keys"). This runs over every move of every document read, so it is one of the
compiled modules (``recorder._core``): a move costs a type test and a length here,
against a few hundred instructions of interpreted calls.
"""

from __future__ import annotations

from typing import Any


def counted(doc: dict[str, Any]) -> tuple[int, int]:
    """(keys, colons) of a document: the keys of its dicts where a log keeps them (the
    document, the objects in it and in them, the objects of the lists in it and in its
    rounds: players, rounds, moves), and the colons in the strings a log keeps outside
    its moves (ids, names, seeds, dates).

    Each dict and string is counted once, so the result is at most the text's colons
    (less when a key is written twice, or when objects or strings elsewhere hold some).
    """
    keys = len(doc)
    colons = 0
    for child in doc.values():
        if isinstance(child, str):
            colons += child.count(":")
        elif isinstance(child, dict):
            inner: dict[str, Any] = child
            keys += len(inner)
            for grandchild in inner.values():
                if isinstance(grandchild, str):
                    colons += grandchild.count(":")
                elif isinstance(grandchild, dict):  # ruleset options
                    keys += len(grandchild)
        elif isinstance(child, list) and child and type(child[0]) is dict:
            items: list[Any] = child
            rounds = "moves" in items[0]
            for item in items:
                if type(item) is not dict:
                    continue
                entry: dict[str, Any] = item
                keys += len(entry)
                for part in entry.values():
                    if isinstance(part, str):
                        colons += part.count(":")
                    elif not rounds:
                        continue
                    elif isinstance(part, list):
                        keys += _keys(part)
                    elif isinstance(part, dict):  # a deal, a claimed result
                        keys += len(part)
    return keys, colons


def _keys(items: list[Any]) -> int:
    """The keys of the dicts of a list (a round's moves); 0 for one that starts with
    something else (a deal's hands are lists of tiles)."""
    if not items or type(items[0]) is not dict:
        return 0
    keys = 0
    for item in items:
        if type(item) is dict:
            move: dict[str, Any] = item
            keys += len(move)
    return keys
