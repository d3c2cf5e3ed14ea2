"""GET /api/games/<id>/review on a real server process (waitress) and a real SQLite file.

Stored (200 at once), computed within the time budget (200, then stored), queued (202
with the rounds done so far, then 200 once the background worker is done), a full queue
(503 with Retry-After), an unknown game (404), bad parameters (400); never a 500.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from recorder import reviews, storage
from recorder.review import Settings, review_game
from recorder.simulate import simulate_game

SMALL_BLOCK = {"preset": "openspiel-block", "options": {"hand_size": 4, "hands": 3}}
DRAWING = {"preset": "classic", "options": {"hand_size": 4, "stock_floor": 16, "target": 40}}


def get(url: str) -> tuple[int, dict[str, str], dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=60) as res:
            return res.status, dict(res.headers), json.loads(res.read())
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), json.loads(exc.read())


def store(cli: Any, tmp_path: Path, docs: list[dict[str, Any]]) -> list[int]:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    assert cli("import", "--workers", "0", str(path)).exit_code == 0
    db = storage.connect(tmp_path / "recorder.db")
    try:
        return [int(r[0]) for r in db.execute("SELECT id FROM games ORDER BY id")]
    finally:
        db.close()


def small(seed: str) -> dict[str, Any]:
    return simulate_game(SMALL_BLOCK, 2, seed, game_id=seed, max_rounds=3)


def test_a_stored_review_is_answered_at_once_as_it_was_stored(
        cli: Any, db: Any, tmp_path: Path, start_server: Any) -> None:
    doc = small("api-stored")
    (pk,) = store(cli, tmp_path, [doc])
    list(reviews.review_database(db, Settings()))
    url = start_server(tmp_path / "recorder.db")
    status, _, body = get(f"{url}/api/games/{pk}/review")
    assert status == 200 and body["ok"]
    assert body["meta"]["state"] == "stored"
    assert body["meta"]["settings"] == reviews.settings_key(Settings())
    data = body["data"]
    evaluation = data.pop("evaluation")
    assert data == json.loads(json.dumps(review_game(doc)))
    assert [e["round"] for e in evaluation] == [r["round"] for r in data["rounds"]]


def test_a_review_not_stored_is_computed_within_the_budget_and_then_stored(
        cli: Any, db: Any, tmp_path: Path, start_server: Any) -> None:
    doc = small("api-computed")
    (pk,) = store(cli, tmp_path, [doc])
    url = start_server(tmp_path / "recorder.db",
                       env={"RECORDER_REVIEW_BUDGET_SECONDS": "30"})
    status, _, body = get(f"{url}/api/games/{pk}/review?view=perfect")
    assert status == 200, body
    assert body["meta"]["state"] == "computed"
    assert body["data"]["view"] == "perfect"
    want = review_game(doc, Settings(view="perfect"))
    assert body["data"]["rounds"] == json.loads(json.dumps(want["rounds"]))
    assert reviews.load(db, pk, Settings(view="perfect")).complete  # stored, every round
    status, _, again = get(f"{url}/api/games/{pk}/review?view=perfect")
    assert status == 200 and again["meta"]["state"] == "stored"


def test_a_review_past_the_budget_is_queued_and_polled_until_done(
        cli: Any, db: Any, tmp_path: Path, start_server: Any) -> None:
    doc = simulate_game(DRAWING, 2, "api-queued", game_id="api-queued", max_rounds=3)
    (pk,) = store(cli, tmp_path, [doc])
    url = start_server(tmp_path / "recorder.db", env={"RECORDER_REVIEW_BUDGET_SECONDS": "0"})
    status, headers, body = get(f"{url}/api/games/{pk}/review")
    assert status == 202, body
    assert body["ok"] and body["data"]["state"] in {"queued", "running"}
    assert int(headers["Retry-After"]) >= 1
    assert body["data"]["rounds_done"] == len(body["data"]["review"]["rounds"])
    seen_done = [body["data"]["rounds_done"]]
    deadline = time.monotonic() + 240
    while status == 202 and time.monotonic() < deadline:
        time.sleep(0.5)
        status, _, body = get(f"{url}/api/games/{pk}/review")
        if status == 202:
            seen_done.append(body["data"]["rounds_done"])
    assert status == 200, body
    assert body["meta"]["state"] == "stored"
    assert seen_done == sorted(seen_done)  # the rounds done only grow
    assert body["data"]["rounds"] == json.loads(json.dumps(review_game(doc)["rounds"]))


def test_a_full_queue_is_said_with_retry_after(
        cli: Any, tmp_path: Path, start_server: Any) -> None:
    docs = [simulate_game(DRAWING, 2, f"api-full-{i}", game_id=f"api-full-{i}", max_rounds=3)
            for i in range(4)]
    pks = store(cli, tmp_path, docs)
    url = start_server(tmp_path / "recorder.db",
                       env={"RECORDER_REVIEW_BUDGET_SECONDS": "0", "RECORDER_REVIEW_QUEUE": "1"})
    answers = [get(f"{url}/api/games/{pk}/review") for pk in pks]
    statuses = [a[0] for a in answers]
    assert statuses[0] == 202
    assert 503 in statuses, statuses
    _, headers, body = next(a for a in answers if a[0] == 503)
    assert body["error"]["code"] == "review/queue-full"
    assert "waiting for their review already" in body["error"]["message"]
    assert int(headers["Retry-After"]) >= 1
    # asking again for a game in the queue is the same job, not another place in it
    again = get(f"{url}/api/games/{pks[0]}/review")
    assert again[0] in (200, 202)


@pytest.mark.parametrize(("path", "status", "code"), [
    ("/api/games/999/review", 404, "game/not-found"),
    ("/api/games/1/review?view=god", 400, "query/invalid"),
    ("/api/games/1/review?samples=3", 400, "query/unknown-parameter"),
])
def test_bad_review_requests_are_said(cli: Any, tmp_path: Path, start_server: Any,
                                      path: str, status: int, code: str) -> None:
    store(cli, tmp_path, [small("api-bad")])
    url = start_server(tmp_path / "recorder.db")
    got, _, body = get(url + path)
    assert got == status and body["error"]["code"] == code
