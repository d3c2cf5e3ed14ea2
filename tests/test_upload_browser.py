"""The upload page in a real headless Chromium against a real server.

Skipped only where Chromium is missing and CI is not set; under CI a missing browser
is a failure, so the page can never go untested there.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import break_game

from recorder import storage
from recorder.tokens import create_token, revoke_tokens

pytestmark = pytest.mark.browser


@pytest.fixture
def site(db_path: Path, start_server: Any) -> tuple[str, str]:
    db = storage.connect(db_path)
    _, secret = create_token(db, "browser", frontend="test-frontend")
    db.close()
    return start_server(db_path), secret


def report_rows(page: Any, name: str) -> list[str]:
    article = page.locator(f'article.report[data-file="{name}"]')
    return [row.get_attribute("data-status") for row in article.locator("tbody tr").all()]


def test_drop_several_files_and_see_each_game(
    browser: Any, site: tuple[str, str], tmp_path: Path, db_path: Path,
    game_pool: list[dict[str, Any]],
) -> None:
    url, secret = site
    docs = game_pool[:3]
    (tmp_path / "two.jsonl").write_text(
        json.dumps(docs[0]) + "\n" + json.dumps(break_game(docs[1])) + "\n")
    (tmp_path / "one.json").write_text(json.dumps(docs[2], indent=2))

    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/upload")
    page.wait_for_selector('form[data-ready="true"]')
    page.fill("#token", secret)
    page.set_input_files("#files", [str(tmp_path / "two.jsonl"), str(tmp_path / "one.json")])
    page.click("#send")
    page.wait_for_selector('article.report[data-file="one.json"]')
    assert report_rows(page, "two.jsonl") == ["accepted", "refused"]
    assert report_rows(page, "one.json") == ["accepted"]
    refused = page.locator('article.report[data-file="two.jsonl"] tr[data-status="refused"]')
    assert "round 1, move 2" in refused.inner_text()
    summary = page.locator('article.report[data-file="two.jsonl"] .summary').inner_text()
    assert "1 accepted" in summary and "1 refused" in summary

    # Dropping the same file again: the page says duplicate, and nothing changes.
    page.evaluate(
        """async (text) => {
            const data = new DataTransfer();
            data.items.add(new File([text], "again.json", {type: "application/json"}));
            const zone = document.getElementById("dropzone");
            zone.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true}));
        }""",
        (tmp_path / "one.json").read_text(),
    )
    page.wait_for_selector('article.report[data-file="again.json"]')
    assert report_rows(page, "again.json") == ["duplicate"]
    page.screenshot(path=str(tmp_path / "upload.png"), full_page=True)
    if os.environ.get("RECORDER_SCREENSHOT"):
        shutil.copy(tmp_path / "upload.png", os.environ["RECORDER_SCREENSHOT"])
    assert errors == []
    page.close()

    db = storage.connect(db_path)
    assert db["games"].count == 2
    db.close()


def test_a_revoked_token_is_shown_and_nothing_is_stored(
    browser: Any, site: tuple[str, str], tmp_path: Path, db_path: Path,
    game_pool: list[dict[str, Any]],
) -> None:
    url, secret = site
    db = storage.connect(db_path)
    revoke_tokens(db, "browser")
    db.close()
    (tmp_path / "g.json").write_text(json.dumps(game_pool[0]))
    page = browser.new_page()
    page.goto(f"{url}/upload")
    page.wait_for_selector('form[data-ready="true"]')
    page.fill("#token", secret)
    page.set_input_files("#files", str(tmp_path / "g.json"))
    page.click("#send")
    page.wait_for_selector("#problem:not([hidden])")
    assert "revoked" in page.inner_text("#problem")
    page.close()
    db = storage.connect(db_path)
    assert db["games"].count == 0
    db.close()


def test_a_refused_game_opens_on_the_watch_page(
    browser: Any, site: tuple[str, str], tmp_path: Path, db_path: Path,
    game_pool: list[dict[str, Any]],
) -> None:
    """The report's button sends the file and the game's place in it to /watch."""
    url, secret = site
    path = tmp_path / "mixed.jsonl"
    path.write_text(json.dumps(game_pool[4]) + "\n" + json.dumps(break_game(game_pool[5]))
                    + "\n")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/upload")
    page.wait_for_selector('form[data-ready="true"]')
    page.fill("#token", secret)
    page.set_input_files("#files", str(path))
    page.click("#send")
    refused = page.locator('article.report[data-file="mixed.jsonl"] tr[data-status="refused"]')
    refused.wait_for()
    accepted = page.locator('article.report[data-file="mixed.jsonl"] tr[data-status="accepted"]')
    assert "/games/" in (accepted.locator("a").get_attribute("href") or "")
    refused.get_by_role("button", name="Watch up to the error").click()
    page.wait_for_url("**/watch")
    page.wait_for_selector('#replay[data-ready="true"]')
    assert "round 1, move 2" in page.locator("#refusal-here").inner_text()  # opened there
    assert game_pool[5]["game_id"] in page.locator("h1").inner_text()
    assert errors == []
    page.close()
    db = storage.connect(db_path)
    assert db["games"].count == 1  # watching stored nothing more
    db.close()


def test_the_upload_page_says_how_to_get_a_token(browser: Any, site: tuple[str, str]) -> None:
    url, _ = site
    for viewport in ({"width": 1366, "height": 800}, {"width": 390, "height": 844}):
        page = browser.new_page(viewport=viewport)
        page.goto(f"{url}/upload")
        page.wait_for_selector('form[data-ready="true"]')
        help_text = page.locator("#token-help")
        assert help_text.is_visible()
        assert "recorder token create NAME --scope upload" in help_text.inner_text()
        assert "whoever runs this server" in help_text.inner_text()
        # the field says where its help is, for a screen reader
        assert page.locator("#token").get_attribute("aria-describedby") == "token-help"
        field, words = page.locator("#token").bounding_box(), help_text.bounding_box()
        assert 0 < words["y"] - (field["y"] + field["height"]) < 80  # right under the field
        assert words["y"] + words["height"] < viewport["height"]  # seen without scrolling
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        # watching a log needs no token, and the help says where to do it
        assert help_text.get_by_role("link", name="watch a log").get_attribute("href") == \
            "/watch"
        page.close()
