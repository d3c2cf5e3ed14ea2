"""With READS_NEED_TOKEN, every page and every data URL needs a read token.

A real waitress server with ``RECORDER_READS_NEED_TOKEN=1``: without a token every page
redirects to the sign-in page and every data URL answers 401 in the envelope; a reader
signs in once in a real headless Chromium, and the games list, a replay, the statistics
and the upload page then work with the cookie alone; signing out ends it. The cookie is
HttpOnly and SameSite=Lax, and is never taken for an upload.
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import urllib.parse
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game

from recorder import storage
from recorder.ingest import import_upload
from recorder.tokens import create_token, revoke_tokens

PAGES = ("/", "/games", "/games?q=ingaan", "/games/1", "/stats", "/stats/bonus",
         "/stats/players", "/upload", "/watch")
DATA = ("/api/games", "/api/games/1", "/api/games/1/log", "/api/games/1/frames",
        "/api/stats/bonus", "/api/stats/players")


@pytest.fixture
def site(tmp_path: Path, start_server: Any) -> dict[str, Any]:
    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    docs = [make_game(i, ruleset={"preset": "spilop", "options": {"bonus": True}}, players=2,
                      started_at="2026-11-30T18:00:00Z") for i in range(3)]
    import_upload(db, "".join(json.dumps(d) + "\n" for d in docs).encode())
    secrets = {"reader": create_token(db, "dashboard", ["read"])[1],
               "uploader": create_token(db, "test-frontend", ["upload"])[1]}
    db.close()
    url = start_server(db_path, env={"RECORDER_READS_NEED_TOKEN": "1"})
    return {"url": url, "db": db_path, **secrets}


def request(url: str, path: str, method: str = "GET", body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
    """One request without following redirects: status, headers, body."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=60)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, \
            response.read()
    finally:
        conn.close()


def sign_in(site: dict[str, Any], secret: str, headers: dict[str, str] | None = None,
            next_: str = "/games/1") -> tuple[int, dict[str, str], bytes]:
    body = urllib.parse.urlencode({"token": secret, "next": next_}).encode()
    return request(site["url"], "/signin", "POST", body, {
        "Content-Type": "application/x-www-form-urlencoded", **(headers or {})})


def test_without_a_token_nothing_is_shown(site: dict[str, Any]) -> None:
    for path in PAGES:
        status, headers, _ = request(site["url"], path)
        assert status == 302, path
        where, _, query = headers["location"].partition("?")
        assert (where, urllib.parse.parse_qs(query)) == ("/signin", {"next": [path]}), path
    for path in DATA:
        status, headers, body = request(site["url"], path)
        answer = json.loads(body)
        assert (status, answer["ok"], answer["error"]["code"]) == \
            (401, False, "auth/missing-token"), path
        assert "sign in at /signin" in answer["error"]["message"]
        assert headers["content-type"] == "application/json"
    status, _, body = request(site["url"], "/api/frames", "POST", json.dumps(make_game(1)).encode())
    assert status == 401 and json.loads(body)["error"]["code"] == "auth/missing-token"
    status, headers, _ = request(site["url"], "/watch", "POST", b"log=x", {
        "Content-Type": "application/x-www-form-urlencoded"})
    assert status == 302 and headers["location"].startswith("/signin?")
    # what holds no games stays open: the sign-in page, styles, scripts
    for path in ("/signin", "/static/style.css", "/static/upload.js"):
        assert request(site["url"], path)[0] == 200, path


def test_the_cookie_is_the_read_token_kept_safely(site: dict[str, Any]) -> None:
    status, headers, _ = sign_in(site, site["reader"])
    assert (status, headers["location"]) == (302, "/games/1")
    cookie = headers["set-cookie"]
    name_value, *attributes = [part.strip() for part in cookie.split(";")]
    assert name_value == f"recorder_read={site['reader']}"
    lowered = {a.split("=")[0].lower(): a for a in attributes}
    assert {"httponly", "path", "max-age"} <= lowered.keys()
    assert lowered["samesite"] == "SameSite=Lax" and lowered["path"] == "Path=/"
    assert "secure" not in lowered  # plain HTTP here; over HTTPS it is Secure
    jar = {"Cookie": name_value}
    for path in PAGES + DATA:
        assert request(site["url"], path, headers=jar)[0] == 200, path
    # the cookie is never an upload's authority: that takes the upload token itself
    status, _, body = request(site["url"], "/api/games", "POST",
                              json.dumps(make_game(5)).encode(), jar)
    assert (status, json.loads(body)["error"]["code"]) == (401, "auth/missing-token")
    # a revoked token signs everybody out at once
    db = storage.connect(site["db"])
    revoke_tokens(db, "dashboard")
    db.close()
    assert request(site["url"], "/games", headers=jar)[0] == 302
    assert request(site["url"], "/api/games", headers=jar)[0] == 401


def test_sign_in_refuses_what_may_not_read_and_what_another_site_sends(
        site: dict[str, Any]) -> None:
    status, headers, body = sign_in(site, site["uploader"])
    assert status == 403 and "set-cookie" not in headers
    assert "may only upload" in body.decode()
    status, headers, _ = sign_in(site, "rec_not-a-token")
    assert status == 401 and "set-cookie" not in headers
    for forged in ({"Sec-Fetch-Site": "cross-site"}, {"Origin": "http://evil.example"}):
        status, headers, _ = sign_in(site, site["reader"], forged)
        assert status == 403 and "set-cookie" not in headers, forged
    # after signing in, only this server's own pages are where the browser is sent
    for target in ("//evil.example/x", "http://evil.example/", "/\\evil.example"):
        status, headers, _ = sign_in(site, site["reader"], next_=target)
        assert (status, headers["location"]) == (302, "/"), target


@pytest.mark.browser
def test_a_reader_signs_in_once_and_every_page_works(
        browser: Any, site: dict[str, Any], tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1366, "height": 800})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{site['url']}/games/2")
    assert page.url.endswith("/signin?next=/games/2")
    page.screenshot(path=str(tmp_path / "signin-wide.png"), full_page=True)
    page.fill("#token", site["reader"])
    page.click("button[type=submit]")
    page.wait_for_selector('#replay[data-ready="true"]')  # the frames came with the cookie
    assert page.url.endswith("/games/2")
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script sees the token
    page.goto(f"{site['url']}/")
    assert page.locator("table.game-list tbody tr").count() == 3
    page.screenshot(path=str(tmp_path / "games-signed-in.png"))
    page.goto(f"{site['url']}/stats/bonus")
    page.wait_for_selector("body[data-rendered]", state="attached")
    assert page.locator(".js-plotly-plot").count() > 0
    # the upload page, with the upload token typed in as ever
    page.goto(f"{site['url']}/upload")
    page.wait_for_selector('form[data-ready="true"]')
    (tmp_path / "new.json").write_text(json.dumps(make_game(9)))
    page.fill("#token", site["uploader"])
    page.set_input_files("#files", [str(tmp_path / "new.json")])
    page.click("#send")
    page.wait_for_selector('article.report[data-file="new.json"] tr[data-status="accepted"]')
    page.click("form.signout button")
    page.wait_for_url("**/signin")
    page.goto(f"{site['url']}/games")
    assert "/signin?next=" in page.url
    phone = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
    phone.goto(f"{site['url']}/signin")
    phone.screenshot(path=str(tmp_path / "signin-phone.png"), full_page=True)
    if os.environ.get("RECORDER_SCREENSHOTS"):
        for name in ("signin-wide.png", "games-signed-in.png", "signin-phone.png"):
            shutil.copy(tmp_path / name, Path(os.environ["RECORDER_SCREENSHOTS"]) / name)
    assert errors == []
    context.close()
    phone.context.close()
