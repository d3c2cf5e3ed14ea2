"""Signing in: with ``READS_NEED_TOKEN``, every page and every data URL needs a read token.

A server whose games are not for everybody sets ``READS_NEED_TOKEN``. Then nothing it
holds is shown without a live token that may ``read``: not the games list, a replay, the
statistics or the upload page, and not the JSON they are drawn from (``/api/...``).

* A program sends ``Authorization: Bearer <token>``, as before.
* A person signs in once at ``/signin``: the token is checked and kept in a cookie,
  ``recorder_read``, that the pages' own requests then carry. The cookie is ``HttpOnly``
  (no script reads it, so a script injected into a page could not take the token),
  ``Secure`` when the request came over HTTPS (or ``SIGNIN_COOKIE_SECURE`` says so, behind
  a proxy), and ``SameSite=Lax``: it goes with the requests the pages make and with a link
  followed from elsewhere (a shared link to a replay opens signed in; ``Strict`` would land
  it on the sign-in page first), and never with a request that another site's page makes,
  in the background or by posting a form. The cookie holds the token itself, so revoking
  the token (``recorder token revoke``) signs out everybody who used it, at once; it
  lasts ``SIGNIN_DAYS`` days. ``/signout`` forgets it.
* Without either, a page redirects to ``/signin`` (and back after signing in); a data URL
  answers 401 in the error envelope.

Writes are never taken on the cookie's word: an upload needs the upload token itself, in
the ``Authorization`` header (``POST /api/games``) or typed into the upload form (``POST
/upload``), which another site cannot know, so a forged cross-site request stores nothing.
The sign-in and sign-out forms, the only requests that change the cookie, refuse a
request that the browser says comes from another site (``Sec-Fetch-Site``, or an
``Origin`` other than this server's). Static files (styles, scripts, plotly.js) are open:
they hold no games.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    Flask,
    current_app,
    g,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from recorder.tokens import Token, Verdict, check_token
from webui.api import authenticate, bearer, fail
from webui.db import get_db

bp = Blueprint("signin", __name__)

COOKIE = "recorder_read"
DEFAULT_DAYS = 30
OPEN_ENDPOINTS = frozenset({
    "static", "stats.plotly_js", "signin.page", "signin.sign_in", "signin.sign_out",
    # writes: each needs the upload token itself, never the cookie
    "api.upload_games", "upload.form_upload",
})
"""What needs no read token even when reads need one."""


def reads_need_token() -> bool:
    return bool(current_app.config.get("READS_NEED_TOKEN"))


def _wants_json() -> bool:
    return request.path == "/api" or request.path.startswith("/api/")


def require_reader() -> Response | None:
    """Before every request: with ``READS_NEED_TOKEN``, a live read token, from the
    ``Authorization`` header or the sign-in cookie; else 401 (data) or the sign-in page."""
    g.reader = None
    if not reads_need_token() or request.endpoint in OPEN_ENDPOINTS:
        return None
    if bearer() is not None:  # a program: its header decides, as on any API call
        g.reader = authenticate(bearer(), "read")
        return None
    token = _cookie_token()
    if token is not None:
        g.reader = token
        return None
    if _wants_json():
        fail(401, "auth/missing-token",
             "reading this server needs a token: send 'Authorization: Bearer <token>', "
             "or sign in at /signin (the server's operator makes one with "
             "'recorder token create NAME --scope read')")
    return redirect(url_for("signin.page", next=_here()))


def _cookie_token() -> Token | None:
    """The live read token of the sign-in cookie, if there is one."""
    presented = request.cookies.get(COOKIE)
    if not presented:
        return None
    check = check_token(get_db(), presented)
    if check.verdict is Verdict.OK and check.token is not None and check.token.may("read"):
        return check.token
    return None


def _here() -> str:
    """This request's path and query, for coming back after signing in."""
    query = request.query_string.decode("utf-8", "replace")
    return request.path + (f"?{query}" if query else "")


def _local(target: str | None) -> str:
    """Where to go after signing in: a path on this server, never another site."""
    if not target or not target.startswith("/") or target.startswith("//") \
            or "\\" in target:
        return url_for("index")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc:
        return url_for("index")
    return target


def _cross_site() -> bool:
    """Whether the browser says this request was made by another site's page."""
    site = request.headers.get("Sec-Fetch-Site")
    if site is not None:
        return site not in {"same-origin", "none"}
    origin = request.headers.get("Origin")
    if origin is None or origin == "null":
        return origin == "null"
    return urlsplit(origin).netloc != request.host


def _page(message: str | None, status: int = 200) -> tuple[str, int]:
    return render_template("signin.html", problem=message,
                           next=_local(request.values.get("next")),
                           required=reads_need_token()), status


@bp.get("/signin")
def page() -> tuple[str, int]:
    return _page(None)


@bp.post("/signin")
def sign_in() -> Response | tuple[str, int]:
    """Check the read token typed in and keep it in the cookie; then go where asked."""
    if _cross_site():
        return _page("This sign-in came from another site's page, and was refused.", 403)
    presented = (request.form.get("token") or "").strip()
    check = check_token(get_db(), presented or None)
    if check.verdict is Verdict.MISSING:
        return _page("Paste your read token.", 400)
    if check.verdict is Verdict.UNKNOWN:
        return _page("This token is not known to this server.", 401)
    assert check.token is not None
    if check.verdict is Verdict.REVOKED:
        return _page("This token was revoked; ask the server's operator for a new one.", 403)
    if not check.token.may("read"):
        return _page("This token may only upload; signing in needs a token that may read "
                     "(recorder token create NAME --scope read).", 403)
    response = redirect(_local(request.form.get("next")))
    days = int(current_app.config.get("SIGNIN_DAYS", DEFAULT_DAYS))
    secure = current_app.config.get("SIGNIN_COOKIE_SECURE")
    response.set_cookie(COOKIE, presented, max_age=days * 24 * 3600, path="/",
                        httponly=True, samesite="Lax",
                        secure=bool(secure) if secure is not None else request.is_secure)
    return response


@bp.post("/signout")
def sign_out() -> Response | tuple[str, int]:
    """Forget the cookie; the sign-in page follows."""
    if _cross_site():
        return _page("This sign-out came from another site's page, and was refused.", 403)
    response = redirect(url_for("signin.page"))
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="Lax")
    return response


def _template_context() -> dict[str, Any]:
    return {"signed_in": getattr(g, "reader", None) is not None and reads_need_token()}


def init_app(app: Flask) -> None:
    """Guard every request, and give the templates ``signed_in`` (for the sign-out)."""
    app.register_blueprint(bp)
    app.before_request(require_reader)
    app.context_processor(_template_context)

