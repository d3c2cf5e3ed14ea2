"""The statistics dashboards under ``/stats``.

The pages are shells: each one's script reads the filters from the address, fetches the
matching ``/api/stats/...`` URL with the same query string and draws plotly figures from
that answer, so what a chart shows is exactly what its JSON link returns. The server only
renders the layout and the filter form (filled from the query string, so the form also
works without JavaScript), and serves the plotly.js bundled in the ``plotly`` package.
"""

from __future__ import annotations

import gzip
import hashlib
from functools import cache
from importlib import resources

from flask import Blueprint, abort, current_app, render_template, request, url_for
from werkzeug.wrappers import Response

from recorder.figures import FIGURE_BY_KEY
from recorder.stats import METRIC_BY_KEY

bp = Blueprint("stats", __name__, url_prefix="/stats")

FILTERS = ("preset", "variant", "frontend", "players", "player", "since", "until")
"""The query-string filters every dashboard and every ``/api/stats`` URL accepts."""

PLOTLY_MAX_AGE = 365 * 24 * 3600
"""plotly.js is served under a versioned name, so browsers may keep it for a year."""

DASHBOARDS = (
    ("stats.bonus", "Bonus", "How often plays score a bonus in the variants that have one, "
     "how big, and the bonus missed."),
    ("stats.blocked", "Blocked rounds", "How often rounds end blocked, under which rules, "
     "how they are won and how early the block was certain."),
    ("stats.variants", "Variants", "How each variant's rounds end and how long its rounds "
     "and games last, the first player's advantage, and two variants compared."),
    ("stats.players", "Players", "Each player's tendencies with sample sizes and confidence "
     "intervals, against the population."),
)


@cache
def _plotly() -> tuple[str, bytes, bytes]:
    """plotly.js from the installed package: its version, the bytes, and them gzipped.

    Read and compressed once per process: the file is about 5 MB and never changes while
    the app runs, and gzip brings it down to a third for every first visit.
    """
    from plotly.offline import get_plotlyjs_version

    data = (resources.files("plotly") / "package_data" / "plotly.min.js").read_bytes()
    return get_plotlyjs_version(), data, gzip.compress(data, compresslevel=6, mtime=0)


def plotly_url() -> str:
    return url_for("stats.plotly_js", version=_plotly()[0])


@bp.get("/plotly-<version>.min.js")
def plotly_js(version: str) -> Response:
    """The plotly.js bundle, cacheable for a year since its name carries its version."""
    current, data, packed = _plotly()
    if version != current:
        abort(404)
    gzipped = "gzip" in request.headers.get("Accept-Encoding", "")
    body = packed if gzipped else data
    response = current_app.response_class(body, mimetype="text/javascript")
    if gzipped:
        response.headers["Content-Encoding"] = "gzip"
    response.headers["Vary"] = "Accept-Encoding"
    response.headers["Cache-Control"] = f"public, max-age={PLOTLY_MAX_AGE}, immutable"
    response.set_etag(hashlib.sha256(body).hexdigest()[:32])
    return response.make_conditional(request)


def _page(template: str, **context: object) -> str:
    """Render a dashboard with the filter values from the query string, and the figures'
    definitions (the words of the docs, for the charts' notes)."""
    values = {name: request.args.get(name, "") for name in FILTERS}
    return render_template(template, filters=values, plotly_url=plotly_url(),
                           figures=FIGURE_BY_KEY, metrics=METRIC_BY_KEY, **context)


@bp.get("")
def overview() -> str:
    return _page("stats.html", dashboards=DASHBOARDS)


@bp.get("/bonus")
def bonus() -> str:
    return _page("stats_bonus.html")


@bp.get("/blocked")
def blocked() -> str:
    return _page("stats_blocked.html")


@bp.get("/variants")
def variants() -> str:
    return _page("stats_variants.html")


@bp.get("/compare")
def compare() -> str:
    """Two variants side by side: ``?a=VARIANT&b=VARIANT`` and any other filter."""
    return _page("stats_compare.html", a=request.args.get("a", ""),
                 b=request.args.get("b", ""))


@bp.get("/players")
def players() -> str:
    return _page("stats_players.html")


@bp.get("/players/<path:player_id>")
def player(player_id: str) -> str:
    """One player's page; ids come from logs and may hold any character, slashes included."""
    return _page("stats_player.html", player_id=player_id)
