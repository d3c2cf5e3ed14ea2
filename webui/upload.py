"""The upload page: drop several files, see what became of every game in them.

The page's script sends each file to ``POST /api/games`` with the token typed into
the page, so the browser takes the same path (and the same checks) as any frontend.
Without JavaScript the same form posts here, and the server answers with the report
as a page: one ingest path either way.
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from flask import Blueprint, current_app, render_template, request
from werkzeug.datastructures import FileStorage
from werkzeug.exceptions import RequestEntityTooLarge

from recorder import storage
from recorder.binding import WrongFrontend
from recorder.errors import InputError, TooLarge, TooManyDocuments, internal_error
from recorder.ingest import Outcome, Tally, import_upload, locate, upload_documents
from recorder.parse import Count, Limits
from recorder.tokens import Verdict, check_token
from webui import limits
from webui.api import sentence
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


def _refused(message: str, status: int) -> tuple[str, int]:
    """A post refused for its token, counted against the limit of such refusals."""
    limits.refuse_token()
    return _problem(message, status)


@bp.post("/upload")
def form_upload() -> tuple[str, int] | str:
    """The form's answer without JavaScript: the same report, rendered on the server.

    All the files of the post share one budget (:class:`webui.limits.Budget`): the
    expanded bytes and the documents of one request, however many files carry them. A
    file past it is not read, nor are the files after it (413, the others reported).
    """
    try:
        token = (request.form.get("token") or "").strip() or None
        chosen: list[FileStorage] = request.files.getlist("files")
    except RequestEntityTooLarge:  # the body, or more files than the form takes
        return _problem(sentence(limits.too_large_message()), 413)
    check = check_token(get_db(), token)
    if check.verdict is Verdict.MISSING:
        return _refused("Uploads need a token: paste the one you were given (the server's "
                        "operator makes one with 'recorder token create NAME').", 401)
    if check.verdict is Verdict.UNKNOWN:
        return _refused("This token is not known to this server: check it was copied whole, "
                        "or ask the server's operator for one.", 401)
    if check.verdict is Verdict.REVOKED:
        return _refused("This token was revoked; ask for a new one.", 403)
    assert check.token is not None
    if not check.token.may("upload"):
        return _refused("This token may only read; uploads need a token made for uploading.",
                        403)
    frontend = check.token.frontend
    if frontend is None:
        return _refused("This token is bound to no frontend, so it cannot upload; ask for a "
                        "new one.", 403)
    files = [f for f in chosen if f.filename]
    if not files:
        return _problem("Choose at least one file.", 400)
    if len(files) > int(current_app.config["UPLOAD_MAX_FILES"]):
        return _problem(sentence(limits.too_many_files()), 413)
    budget = limits.Budget.of_request()
    reports = []
    failed = over = storage_failed = False
    for upload in files:
        report = FileReport(upload.filename or "upload")
        reports.append(report)
        if over or storage_failed:
            report.error = "not read: " + ("the database failed on a file before it"
                                           if storage_failed else
                                           "the files before it took this upload's budget")
            continue
        fresh = budget.fresh
        expanded = Count()
        try:
            file_limits = budget.file_limits()
            report.tally, report.outcomes = import_upload(
                get_db(), upload.stream, limits=file_limits,
                max_documents=budget.documents(), source=f"upload:{report.name}",
                uploaded_by=check.token.id, frontend=frontend, count=expanded,
            )
            budget.took(len(report.outcomes))
        except WrongFrontend as exc:
            report.error = exc.message + "; nothing of this file was stored"
        except TooManyDocuments as exc:
            report.error = budget.too_many(exc, fresh).message
            over = True
        except TooLarge as exc:
            report.error = budget.too_large(exc, fresh, expanded.bytes).message
            over = True
        except InputError as exc:
            report.error = exc.message
        except sqlite3.Error as exc:  # the disk is full, the file read-only or locked
            log.exception("the database failed during a form upload")
            report.error = ("the database failed while storing this file: "
                            f"{storage.explain_failure(exc)}")
            storage_failed = True
        except Exception as exc:  # the other files still get their report
            log.exception("the upload of one file failed")
            report.error = internal_error(exc, "import").message
            failed = True
        else:
            report.texts = _refused_texts(upload.stream, file_limits, report.outcomes)
        finally:  # what it expanded to counts, whether it was read or refused
            budget.spent(expanded.bytes)
        failed |= any(outcome.internal for outcome in report.outcomes)
    problem = None
    if storage_failed:
        problem = ("The database failed, so the upload stopped (the storage is full, "
                   "read-only or busy): the games reported stored are kept, and sending "
                   "the same files again stores the others.")
    elif over:
        problem = ("This upload holds more than one request may: the files it could read "
                   "are reported; send the others in another upload.")
    page = render_template("upload.html", reports=reports, problem=problem, locate=_where)
    status = 503 if storage_failed else 413 if over else 500 if failed else 200
    return (page, status) if status != 200 else page


def _refused_texts(stream: BinaryIO, file_limits: Limits, outcomes: list[Outcome]
                   ) -> dict[int, str]:
    """Each refused document's own text, for the form that watches it up to the error.

    Without JavaScript the page cannot send the file again, so the report carries the
    document itself (gzip undone) in a hidden field; documents that could not be read
    at all have nothing to watch, and one larger than the watch page takes pasted
    (``MAX_FORM_MEMORY_SIZE``, counting each line break as the two bytes a browser
    sends) is left to the watch page's file field, as are those past
    ``UPLOAD_REPORT_TEXT_BYTES`` in all (the page would otherwise grow with the file).
    The file is streamed a third time, up to the last refused document.
    """
    wanted = {o.index for o in outcomes if o.status == "refused" and o.index is not None}
    if not wanted:
        return {}
    most = int(current_app.config["MAX_FORM_MEMORY_SIZE"])
    room = int(current_app.config["UPLOAD_REPORT_TEXT_BYTES"])
    last = max(wanted)
    texts = {}
    for parsed in upload_documents(stream, limits=file_limits):
        if parsed.index in wanted and parsed.text is not None:
            sent = len(parsed.text) + parsed.text.count(b"\n")
            if sent <= most:
                if sent > room:
                    break  # the page would grow with the file: the rest have no button
                room -= sent
                texts[parsed.index] = parsed.text.decode("utf-8", "replace")
        if parsed.index >= last:
            break
    return texts


def _where(error: dict[str, Any] | None) -> str:
    return locate(error) if error else ""
