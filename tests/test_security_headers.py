"""Pages and API answers are locked down: a Content-Security-Policy without inline
script, ``nosniff``, no framing, a referrer policy; checked on a real server and, for
what only a browser enforces, in a real Chromium."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game

from recorder import storage
from recorder.tokens import create_token
from webui import create_app

EXPECTED = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


@pytest.fixture
def site(db_path: Path, start_server: Any) -> tuple[str, str]:
    db = storage.connect(db_path)
    _, secret = create_token(db, "browser", frontend="test-frontend")
    db.close()
    return start_server(db_path), secret


def fetch(url: str, **kwargs: Any) -> tuple[int, Any]:
    request = urllib.request.Request(url, **kwargs)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers


def addresses(db_path: Path) -> list[str]:
    """Every GET address the app routes, with 1 for each parameter: new pages are covered
    the day they are added."""
    app = create_app({"TESTING": True, "DATABASE": str(db_path)})
    out = []
    for rule in app.url_map.iter_rules():
        if "GET" not in (rule.methods or ()):
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", lambda m: "style.css"
                      if m[1] == "filename" else "1", rule.rule)
        out.append(path)
    return sorted(set(out))


def assert_locked(headers: Any, where: str) -> None:
    policy = headers.get("Content-Security-Policy", "")
    directives = dict([*d.strip().split(" ", 1), ""][:2] for d in policy.split(";"))
    assert directives.get("script-src") == "'self'", (where, policy)
    assert directives.get("frame-ancestors") == "'none'", (where, policy)
    assert directives.get("object-src") == "'none'", (where, policy)
    assert "'unsafe-eval'" not in policy and "'unsafe-inline'" not in directives["script-src"]
    for name, value in EXPECTED.items():
        assert headers.get(name) == value, (where, name, headers.get(name))


def test_every_address_answers_with_the_headers(site: tuple[str, str], db_path: Path) -> None:
    url, secret = site
    db = storage.connect(db_path)
    from recorder.ingest import import_upload

    import_upload(db, json.dumps(make_game(1)).encode())
    db.close()
    paths = addresses(db_path)
    assert {"/upload", "/api/games", "/api/games/1"} <= set(paths)
    for path in [*paths, "/no-such-page", "/api/no-such-thing", "/api/games/999"]:
        status, headers = fetch(url + path)
        assert status < 500, path
        assert_locked(headers, path)
    # answers to writes and errors carry them too
    body = json.dumps(make_game(2)).encode()
    for auth in ({}, {"Authorization": f"Bearer {secret}"}):
        status, headers = fetch(url + "/api/games", data=body, headers=auth, method="POST")
        assert status in (200, 401)
        assert_locked(headers, f"POST /api/games {status}")


# ---------------------------------------------------------------------- in a browser


@pytest.mark.browser
def test_an_injected_inline_script_does_not_run(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    page = browser.new_page()
    violations: list[str] = []
    page.on("console", lambda msg: violations.append(msg.text)
            if "Content Security Policy" in msg.text else None)
    page.goto(f"{url}/upload")
    page.wait_for_selector('form[data-ready="true"]')  # the page's own module did run
    page.evaluate("""() => {
        const s = document.createElement("script");
        s.textContent = "window.__injected = 'script'";
        document.body.append(s);
        const img = document.createElement("img");
        img.setAttribute("onerror", "window.__injected = 'handler'");
        img.src = "data:,not-an-image";
        document.body.append(img);
        const a = document.createElement("a");
        a.href = "javascript:window.__injected = 'url'";
        document.body.append(a);
        a.click();
    }""")
    page.wait_for_timeout(300)
    assert page.evaluate("() => window.__injected") is None
    assert len(violations) >= 2, violations
    assert any("script-src" in v for v in violations), violations
    page.close()


@pytest.mark.browser
def test_a_log_that_carries_markup_shows_as_text(
        browser: Any, site: tuple[str, str], tmp_path: Path) -> None:
    url, secret = site
    doc = make_game(3, game_id='<img src=x onerror="window.__pwned=1"><script>'
                              "window.__pwned=2</script>")
    (tmp_path / "evil.json").write_text(json.dumps(doc))
    page = browser.new_page()
    page.goto(f"{url}/upload")
    page.wait_for_selector('form[data-ready="true"]')
    page.fill("#token", secret)
    page.set_input_files("#files", str(tmp_path / "evil.json"))
    page.click("#send")
    page.wait_for_selector('article.report[data-file="evil.json"]')
    page.wait_for_timeout(200)
    report = page.locator('article.report[data-file="evil.json"]').inner_text()
    assert "<script>window.__pwned=2</script>" in report
    assert page.evaluate("() => window.__pwned") is None
    assert page.locator("article.report img").count() == 0
    page.close()


@pytest.mark.browser
def test_no_page_can_be_framed(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    page = browser.new_page()
    refused: list[str] = []
    page.on("console", lambda msg: refused.append(msg.text)
            if "frame-ancestors" in msg.text else None)
    page.goto(f"{url}/api/games")  # any page of the site: the frame is same-origin
    page.evaluate("""(src) => new Promise((done) => {
        const frame = document.createElement("iframe");
        frame.src = src;
        frame.onload = done;
        document.body.append(frame);
        setTimeout(done, 3000);
    })""", f"{url}/upload")
    framed = page.frames[1] if len(page.frames) > 1 else None
    content = framed.evaluate("() => document.body ? document.body.innerText : ''") \
        if framed is not None else ""
    assert "Upload" not in content and "token" not in content.lower()
    assert refused, "Chromium should report the refused frame"
    page.close()
