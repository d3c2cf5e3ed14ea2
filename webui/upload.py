"""The upload page: drop several files, see what became of every game in them.

The page's script sends each file to ``POST /api/games`` with the token typed into
the page, so the browser takes the same path (and the same checks) as any frontend.
Without JavaScript the same form posts here, and the server answers with the report
as a page: one ingest path either way.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, current_app, render_template, request
from werkzeug.datastructures import FileStorage

from recorder.binding import WrongFrontend
from recorder.errors import InputError, internal_error
from recorder.ingest import Outcome, Tally, import_upload, locate
from recorder.parse import Limits, iter_documents
from recorder.tokens import Verdict, check_token
from webui.db import get_db

bp = Blueprint("upload", __name__)
log = logging.getLogger(__name__)


@dataclass
class FileReport:
    """What became of one uploaded file."""

    name: str
    outcomes: list[Outcome] = field(default_factory=list)
    tally: Tally = field(default_factory=Tally)
    error: str | None = None
    texts: dict[int, str] = field(default_factory=dict)
    """The text of each refused document that can be watched, by its index in the file."""


@bp.get("/upload")
def page() -> str:
    return render_template("upload.html", reports=None, problem=None)


def _problem(message: str, status: int) -> tuple[str, int]:
    return render_template("upload.html", reports=None, problem=message), status


@bp.post("/upload")
def form_upload() -> tuple[str, int] | str:
    """The form's answer without JavaScript: the same report, rendered on the server."""
    check = check_token(get_db(), (request.form.get("token") or "").strip() or None)
    if check.verdict is Verdict.MISSING:
        return _problem("Uploads need a token: paste the one you were given.", 401)
    if check.verdict is Verdict.UNKNOWN:
        return _problem("This token is not known to this server.", 401)
    if check.verdict is Verdict.REVOKED:
        return _problem("This token was revoked; ask for a new one.", 403)
    assert check.token is not None
    if not check.token.may("upload"):
        return _problem("This token may only read; uploads need a token made for uploading.",
                        403)
    frontend = check.token.frontend
    if frontend is None:
        return _problem("This token is bound to no frontend, so it cannot upload; ask for a "
                        "new one.", 403)
    files: list[FileStorage] = [f for f in request.files.getlist("files") if f.filename]
    if not files:
        return _problem("Choose at least one file.", 400)
    reports = []
    failed = False
    for upload in files:
        report = FileReport(upload.filename or "upload")
        data = upload.read()
        try:
            report.tally, report.outcomes = import_upload(
                get_db(), data, limits=current_app.config.get("PARSE_LIMITS"),
                source=f"upload:{report.name}", uploaded_by=check.token.id,
                frontend=frontend,
            )
        except WrongFrontend as exc:
            report.error = exc.message + "; nothing of this file was stored"
        except InputError as exc:
            report.error = exc.message
        except Exception as exc:  # the other files still get their report
            log.exception("the upload of one file failed")
            report.error = internal_error(exc, "import").message
            failed = True
        else:
            report.texts = _refused_texts(data, report.outcomes)
        failed |= any(outcome.internal for outcome in report.outcomes)
        reports.append(report)
    page = render_template("upload.html", reports=reports, problem=None, locate=_where)
    return (page, 500) if failed else page


WATCH_TEXT_LIMIT = 1024 * 1024
"""Largest refused document the report carries for its "watch up to the error" form."""


def _refused_texts(data: bytes, outcomes: list[Outcome]) -> dict[int, str]:
    """Each refused document's own text, for the form that watches it up to the error.

    Without JavaScript the page cannot send the file again, so the report carries the
    document itself (gzip undone) in a hidden field; documents that could not be read
    at all have nothing to watch, and very large ones are left to the watch page.
    """
    wanted = {o.index for o in outcomes if o.status == "refused" and o.index is not None}
    if not wanted:
        return {}
    texts = {}
    for parsed in iter_documents(data, limits=current_app.config.get("PARSE_LIMITS")
                                 or Limits()):
        if parsed.index in wanted and parsed.text is not None \
                and len(parsed.text) <= WATCH_TEXT_LIMIT:
            texts[parsed.index] = parsed.text.decode("utf-8", "replace")
    return texts


def _where(error: dict[str, Any] | None) -> str:
    return locate(error) if error else ""
