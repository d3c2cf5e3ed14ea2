"""Tokens: one per frontend, made and withdrawn from the command line.

A token is shown once, when it is made; the database keeps only its SHA-256, so a
copy of the file gives nobody the right to upload. A short prefix is kept in clear so
that ``recorder token list`` can tell two tokens of one frontend apart. Revoking keeps
the row (with ``revoked_at``) so that an upload with a withdrawn token is answered
403 "revoked" rather than 401 "unknown", and so that stored games still name who sent
them.

A token has scopes: ``upload`` (send games) and ``read`` (read the API when the server
has ``READS_NEED_TOKEN``). A frontend's token needs only ``upload``, so a leaked one
cannot read what others sent; a dashboard's needs only ``read``.

A token that may upload is bound to one frontend (:mod:`recorder.binding`): the games it
sends are that frontend's, and no other's. ``create_token`` binds it to its ``name`` unless
told another frontend; the name is kept in its normal form (:mod:`recorder.names`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from sqlite_utils import Database

from recorder import names
from recorder.storage import utc_now, write_transaction

TOKEN_PREFIX = "rec_"
SCOPES = ("upload", "read")
"""Everything a token may be allowed to do; a token made without ``--scope`` may do all."""
PREFIX_CHARS = 8  # of the random part, kept in clear to identify a token in listings


def hash_token(token: str) -> str:
    """The SHA-256 hex digest under which a token is stored and looked up."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Token:
    """A stored token (without its secret)."""

    id: int
    name: str
    prefix: str
    created_at: str
    revoked_at: str | None
    scopes: tuple[str, ...] = SCOPES
    frontend: str | None = None
    """The frontend whose games it uploads (normal form); None for a read-only token."""

    @property
    def active(self) -> bool:
        return self.revoked_at is None

    def may(self, scope: str) -> bool:
        """Whether this token was made for ``scope`` (``upload`` or ``read``)."""
        return scope in self.scopes

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "prefix": self.prefix,
            "created_at": self.created_at,
            "revoked_at": self.revoked_at,
            "active": self.active,
            "scopes": list(self.scopes),
            "frontend": self.frontend,
        }


class Verdict(Enum):
    """What a presented token turned out to be."""

    OK = "ok"
    MISSING = "missing"
    UNKNOWN = "unknown"
    REVOKED = "revoked"


@dataclass(frozen=True)
class Check:
    verdict: Verdict
    token: Token | None = None


_COLUMNS = "id, name, prefix, created_at, revoked_at, scopes, frontend"


def _token(row: Any) -> Token:
    *fields, scopes, frontend = row
    return Token(*fields, scopes=tuple(s for s in SCOPES if s in str(scopes).split()),
                 frontend=frontend)


def frontend_binding(name: str) -> str:
    """The frontend a token of this name (or given ``--frontend``) is bound to: the name's
    normal form; ValueError saying why when it cannot be a frontend's name."""
    why = names.problem(name)
    if why is not None:
        raise ValueError(f"the frontend name {names.quoted(name)} {why}")
    return names.frontend_key(name)


def check_scopes(scopes: Iterable[str] | None) -> tuple[str, ...]:
    """The scopes asked for, checked, in their canonical order (all of them when none)."""
    asked = list(scopes or SCOPES)
    unknown = [s for s in asked if s not in SCOPES]
    if unknown:
        raise ValueError(f"unknown scope {unknown[0]!r}; a token's scopes are "
                         + " and ".join(SCOPES))
    return tuple(s for s in SCOPES if s in asked)


def create_token(db: Database, name: str, scopes: Iterable[str] | None = None, *,
                 frontend: str | None = None) -> tuple[Token, str]:
    """Make a token for ``name`` with ``scopes`` (default: every scope); returns the
    stored row and the secret (shown only now).

    A token that may upload is bound to ``frontend``, or to the frontend ``name`` when
    none is given; a read-only token is bound to none (``frontend`` is then refused).
    """
    name = name.strip()
    if not name:
        raise ValueError("a token needs a name, such as the frontend it is for")
    allowed = check_scopes(scopes)
    if "upload" in allowed:
        bound: str | None = frontend_binding(frontend if frontend is not None else name)
    elif frontend is not None:
        raise ValueError("only a token that may upload is bound to a frontend; add "
                         "--scope upload, or leave --frontend out")
    else:
        bound = None
    secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
    with write_transaction(db):
        cursor = db.conn.execute(
            "INSERT INTO tokens (name, prefix, token_sha256, created_at, scopes, frontend) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [name, secret[: len(TOKEN_PREFIX) + PREFIX_CHARS], hash_token(secret), utc_now(),
             " ".join(allowed), bound],
        )
        row = db.conn.execute(
            f"SELECT {_COLUMNS} FROM tokens WHERE id = ?", [cursor.lastrowid]
        ).fetchone()
    return _token(row), secret


def revoke_tokens(db: Database, name: str | None = None, *, token_id: int | None = None) -> int:
    """Withdraw every active token of ``name`` (or the one with ``token_id``); returns how many."""
    if (name is None) == (token_id is None):
        raise ValueError("revoke by name or by id, not both")
    with write_transaction(db):
        if token_id is not None:
            cursor = db.conn.execute(
                "UPDATE tokens SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                [utc_now(), token_id],
            )
        else:
            cursor = db.conn.execute(
                "UPDATE tokens SET revoked_at = ? WHERE name = ? AND revoked_at IS NULL",
                [utc_now(), name],
            )
    return int(cursor.rowcount)


def list_tokens(db: Database) -> list[Token]:
    """Every token ever made, oldest first."""
    return [_token(r) for r in db.execute(f"SELECT {_COLUMNS} FROM tokens ORDER BY id")]


def check_token(db: Database, presented: str | None) -> Check:
    """Whether a presented secret is a live token.

    The lookup is by hash, so its timing says nothing about the secret; the final
    compare_digest only guards against a (theoretical) hash collision in the index.
    """
    if not presented:
        return Check(Verdict.MISSING)
    digest = hash_token(presented)
    row = db.execute(
        f"SELECT {_COLUMNS}, token_sha256 FROM tokens WHERE token_sha256 = ?", [digest]
    ).fetchone()
    if row is None or not hmac.compare_digest(row[-1], digest):
        return Check(Verdict.UNKNOWN)
    token = _token(row[:-1])
    return Check(Verdict.OK if token.active else Verdict.REVOKED, token)
