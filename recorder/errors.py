"""One small error hierarchy for everything that can be wrong with a log.

Every error carries a stable ``code`` (for programs), a location (``round``/``move``
as docs/format.md defines them, plus a JSON pointer where one is known) and a message
written for the frontend developer who has to fix the log. The engine raises them;
the CLI, the importer and the HTTP API turn them into their own shapes at the edge.
"""

from __future__ import annotations

from typing import Any


class RecorderError(Exception):
    """Base of every error the recorder reports to a user."""

    code = "recorder/error"

    def __init__(
        self,
        message: str,
        *,
        round: int = 0,
        move: int = 0,
        pointer: str | None = None,
        code: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.round = round
        self.move = move
        self.pointer = pointer
        if code is not None:
            self.code = code

    def to_dict(self) -> dict[str, Any]:
        """The ``error`` object of the engine's answer (docs/format.md) plus our extras."""
        out: dict[str, Any] = {"round": self.round, "move": self.move, "message": self.message}
        out["code"] = self.code
        if self.pointer is not None:
            out["pointer"] = self.pointer
        return out

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}({self.message!r}, round={self.round}, "
            f"move={self.move}, code={self.code!r})"
        )


class InputError(RecorderError):
    """The bytes cannot be read as documents at all (bad gzip, not JSON, too large)."""

    code = "input/unreadable"


class TooLarge(InputError):
    """The input, or one document of it, is larger than the limits allow (HTTP 413)."""

    code = "input/too-large"


class TooManyDocuments(TooLarge):
    """An input holds more documents than one request may (HTTP 413)."""

    code = "input/too-many-documents"


class SchemaError(RecorderError):
    """A document does not have the shape of domino-log/1."""

    code = "log/schema"


class RulesetError(RecorderError):
    """An unknown preset, or options that are unknown or contradict each other."""

    code = "ruleset/invalid"


class DealError(RecorderError):
    """A round's deal is impossible (wrong tile set, wrong hand sizes, classic redeal)."""

    code = "round/deal"


class IllegalMove(RecorderError):
    """A move that the rules of the preset do not allow at that point."""

    code = "move/illegal"


class GameOverError(RecorderError):
    """A round follows the end of the game, or follows an unfinished round."""

    code = "round/after-end"


class InternalError(RecorderError):
    """The recorder itself failed on one document: a bug, never a verdict on the log.

    It is answered like a refusal of that one document, so that the others still get
    their answers, and its code starts with ``internal/`` so that nobody mistakes it
    for something to fix in the log.
    """

    code = "internal/error"


_STAGES = {
    "parse": "reading",
    "replay": "replaying",
    "import": "importing",
    "storage": "storing",
    "output": "writing out",
}


def internal_error(
    exc: BaseException, stage: str, *, round: int = 0, move: int = 0,
    pointer: str | None = None,
) -> InternalError:
    """The refusal that stands for an unexpected exception while handling one document.

    The message names the stage and the exception's type but not its text, which may
    quote server paths or the inside of the recorder; the caller logs the traceback.
    """
    where = ""
    if round:
        where = f" at round {round}" + (f", move {move}" if move else "")
    doing = _STAGES.get(stage, stage)
    return InternalError(
        f"the recorder failed while {doing} this document{where} ({type(exc).__name__}); "
        "this is a bug in the recorder, not a fault found in the log: it is logged, "
        "and a report with the log helps fix it",
        round=round, move=move, pointer=pointer, code=f"internal/{stage}",
    )


class InstallationError(Exception):
    """The recorder's own files are missing or broken: never a verdict on anybody's log.

    Raised when the installation cannot find what it ships (the schema), so that the
    command line says so instead of blaming the file it was asked to read.
    """
