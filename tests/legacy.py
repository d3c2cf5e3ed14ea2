"""Databases as the recorder wrote them before a round's moves were one row.

Until ``m012_round_moves`` every move was a row of the ``moves`` table and every log was
stored as its text. These helpers make such a file with the migrations of that time and
the writer of that time (the rows of ``storage.build_record``, the moves as
``MoveFact.as_row`` gave them, the log as text), so that the migrations can be tested on
what real old files hold, and the ``moves`` view compared with the table it replaces.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recorder import ingest, stats, storage
from recorder.analysis import analyse

OLD_MOVE_COLUMNS = ("round", "move", "player", "action", "tile", "side", "ms",
                    "legal_count", "score", "best_score", "forced", "pips", "best_pips",
                    "least_pips", "double", "double_choice", "next_stuck")


def old_database(path: Path, *, stop_before: str = "m012_round_moves") -> Any:
    """A new file with the migrations before ``stop_before`` applied (and no later)."""
    db = storage.connect(path, migrate=False)
    db.enable_wal()
    storage.migrations.apply(db, stop_before=stop_before)
    return db


def old_store(db: Any, docs: Iterable[tuple[bytes, Any]]) -> list[int]:
    """Store ``(text, doc)`` pairs as the old writer did; returns the new ids (invalid
    documents and duplicates are skipped)."""
    ids = []
    acc = stats.Accumulator()
    with storage.write_transaction(db):
        for text, doc in docs:
            content_hash = ingest.content_hash(doc)
            if storage.find_by_hash(db, content_hash) is not None:
                continue
            answer, facts = analyse(doc)
            if answer.get("status") == "invalid":
                continue
            record = storage.build_record(doc, log=text.decode("utf-8"), answer=answer,
                                          facts=facts, content_hash=content_hash)
            game = record.game
            columns = list(game)
            cursor = db.conn.execute(
                "INSERT INTO games (" + ", ".join(f"[{c}]" for c in columns) + ") VALUES ("
                + ", ".join("?" for _ in columns) + ")", [game[c] for c in columns])
            pk = int(cursor.lastrowid or 0)
            sql = {name: storage._insert_sql(name, cols) for name, cols in (
                ("players", storage.PLAYER_COLUMNS), ("rounds", storage.ROUND_COLUMNS),
                ("moves", OLD_MOVE_COLUMNS))}
            db.conn.executemany(sql["players"], [(pk, *r) for r in record.players])
            db.conn.executemany(sql["rounds"], [(pk, *r) for r in record.rounds])
            if facts is not None:
                db.conn.executemany(sql["moves"], [(pk, *m.as_row()) for m in facts.moves])
            acc.add(pk, stats.contribution(game, facts))
            ids.append(pk)
        acc.flush(db)
    return ids


def lines_of(paths: Iterable[Path]) -> list[tuple[bytes, Any]]:
    """Every document of JSON Lines or JSON files, with its bytes."""
    out = []
    for path in paths:
        data = path.read_bytes()
        if path.suffix == ".jsonl":
            out += [(line, json.loads(line)) for line in data.splitlines() if line.strip()]
        else:
            doc = json.loads(data)
            for d in doc if isinstance(doc, list) else [doc]:
                out.append((json.dumps(d).encode(), d))
    return out
