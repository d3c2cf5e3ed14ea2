"""The statistics pages as the server sends them: layout, filters, escaping, plotly.js.

What the pages draw is tested in a real browser (test_stats_browser.py); this is what
holds without one: every page extends the layout and loads only the app's own scripts,
the filter form comes back filled from the query string (escaped), and plotly.js is
served from the installed package with headers that let browsers keep it.
"""

from __future__ import annotations

import gzip
import re
from importlib import resources
from typing import Any

import pytest
from plotly.offline import get_plotlyjs_version

PAGES = ["/stats", "/stats/bonus", "/stats/blocked", "/stats/variants",
         "/stats/compare?a=classic&b=kozel", "/stats/players", "/stats/players/kfnielsen"]
WITH_CHARTS = {"/stats/bonus", "/stats/blocked", "/stats/variants",
               "/stats/compare?a=classic&b=kozel", "/stats/players/kfnielsen"}


def plotly_bytes() -> bytes:
    return (resources.files("plotly") / "package_data" / "plotly.min.js").read_bytes()


@pytest.mark.parametrize("path", PAGES)
def test_every_page_has_the_layout_and_only_local_scripts(client: Any, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert "script-src 'self'" in answer.headers["Content-Security-Policy"]
    # The one navigation, and the stats tabs.
    assert re.search(r'<nav aria-label="Main">.*href="/games".*href="/stats".*href="/upload"',
                     html, re.S)
    assert 'aria-current="page"' in html
    scripts = re.findall(r"<script[^>]*>", html)
    # plotly.js (5 MB to parse) only where there are charts, then the page's module.
    plotly = f'<script src="/stats/plotly-{get_plotlyjs_version()}.min.js" defer>'
    assert scripts[:-1] == ([plotly] if path in WITH_CHARTS else [])
    assert re.fullmatch(r'<script type="module" src="/static/stats/\w+\.js">', scripts[-1])
    assert "<script>" not in html and "style=" not in html
    # the comparison's two variants are its a and b, not the variant filter
    names = ("a", "b") if path.startswith("/stats/compare") else ("variant",)
    for name in ("preset", *names, "frontend", "players", "since", "until"):
        assert f'name="{name}"' in html


def test_every_module_a_page_names_is_served(client: Any) -> None:
    for path in PAGES:
        html = client.get(path).get_data(as_text=True)
        module = re.search(r'type="module" src="([^"]+)"', html)
        assert module
        with client.get(module.group(1)) as script:
            assert script.status_code == 200
            assert script.mimetype in {"text/javascript", "application/javascript"}
            text = script.get_data(as_text=True)
        assert re.findall(r'from "\./(\w+\.js)"', text) == ["common.js"]
    with client.get("/static/stats.css") as css:
        assert css.status_code == 200


def test_the_filter_form_comes_back_filled_and_escaped(client: Any) -> None:
    html = client.get(
        '/stats/bonus?preset=spilop&players=3&player=<b>x</b>"&since=2026-11-01'
    ).get_data(as_text=True)
    assert "<option selected>spilop</option>" in html
    assert "<option selected>3</option>" in html
    assert 'value="2026-11-01"' in html
    assert 'value="&lt;b&gt;x&lt;/b&gt;&#34;"' in html
    assert "<b>x</b>" not in html


def test_the_notes_of_the_charts_are_the_docs_definitions(client: Any) -> None:
    """Each chart's note is its figure's definition, in the words of docs/stats.md."""
    from recorder.figures import FIGURE_BY_KEY

    blocked = client.get("/stats/blocked").get_data(as_text=True)
    bonus = client.get("/stats/bonus").get_data(as_text=True)
    for key, page in (("blocked_margin", blocked), ("block_certain", blocked),
                      ("bonus_values", bonus), ("bonus_by_move", bonus)):
        note = FIGURE_BY_KEY[key].definition.replace("'", "&#39;")
        assert f'<p class="chart-note">{note}' in page, key
    assert f'title="{FIGURE_BY_KEY["bonus_share"].definition}"' in bonus


def test_the_compare_form_comes_back_with_its_two_variants(client: Any) -> None:
    html = client.get('/stats/compare?a=classic&b=<i>x</i>').get_data(as_text=True)
    assert '<option value="classic" selected>classic</option>' in html
    assert "&lt;i&gt;x&lt;/i&gt;" in html and "<i>x</i>" not in html


def test_a_player_id_with_markup_or_slashes_is_text(client: Any) -> None:
    answer = client.get("/stats/players/<img src=x>/two")
    assert answer.status_code == 200
    html = answer.get_data(as_text=True)
    assert "<img src=x>" not in html
    assert 'data-player="&lt;img src=x&gt;/two"' in html
    # The page about one player has no player filter: the address names the player.
    assert 'name="player"' not in html


def test_plotly_is_the_package_file_with_long_lived_caching(client: Any) -> None:
    url = f"/stats/plotly-{get_plotlyjs_version()}.min.js"
    plain = client.get(url)
    assert plain.status_code == 200
    assert plain.mimetype == "text/javascript"
    assert plain.data == plotly_bytes()
    assert "immutable" in plain.headers["Cache-Control"]
    assert "max-age=31536000" in plain.headers["Cache-Control"]
    assert plain.headers["Vary"] == "Accept-Encoding"
    assert "Content-Encoding" not in plain.headers

    packed = client.get(url, headers={"Accept-Encoding": "gzip, br"})
    assert packed.headers["Content-Encoding"] == "gzip"
    assert len(packed.data) < len(plain.data) / 2
    assert gzip.decompress(packed.data) == plotly_bytes()

    again = client.get(url, headers={"If-None-Match": plain.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""


def test_another_plotly_version_is_not_found(client: Any) -> None:
    assert client.get("/stats/plotly-0.0.1.min.js").status_code == 404
