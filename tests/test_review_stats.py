"""Accuracy statistics from stored reviews (recorder/review_stats.py) and where they show:
the player's figures with intervals against the variant's players, each variant's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from recorder import review_stats, reviews
from recorder.review import Settings, review_game
from recorder.simulate import simulate_game

SMALL_BLOCK = {"preset": "openspiel-block", "options": {"hand_size": 4, "hands": 3}}
NAMES = ["ann", "bob", "cat"]


def games() -> list[dict[str, Any]]:
    out = []
    for i in range(4):
        doc = simulate_game(SMALL_BLOCK, 2, f"acc-{i}", bots=["random", "heavy"],
                            game_id=f"acc-{i}", max_rounds=3)
        seated = [NAMES[i % 3], NAMES[(i + 1) % 3]]
        doc["players"] = [{"id": p, "name": p.title()} for p in seated]
        out.append(doc)
    return out


@pytest.fixture
def reviewed(cli: Any, db: Any, tmp_path: Path) -> list[dict[str, Any]]:
    docs = games()
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in docs))
    assert cli("import", "--workers", "0", str(path)).exit_code == 0
    list(reviews.review_database(db, Settings()))
    return docs


def by_hand(docs: list[dict[str, Any]], player: str) -> dict[str, float]:
    n = loss = best = marked = rounds = 0.0
    for doc in docs:
        seats = [s for s, p in enumerate(doc["players"]) if p["id"] == player]
        if not seats:
            continue
        review = review_game(doc)
        rounds += len(review["rounds"]) * len(seats)
        for r in review["rounds"]:
            for d in r["decisions"]:
                if d["player"] in seats and d["class"] is not None:
                    n += 1
                    loss += d["loss"]
                    best += d["class"] == "best"
                    marked += d["class"] in ("inaccuracy", "mistake", "blunder")
    return {"n": n, "mean_loss": loss / n, "best_share": best / n,
            "mistakes_per_round": marked / rounds}


def test_a_players_accuracy_is_the_sum_of_their_reviewed_decisions(
        db: Any, reviewed: list[dict[str, Any]]) -> None:
    want = by_hand(reviewed, "ann")
    got = review_stats.player_accuracy(db, "ann", "openspiel-block hand_size=4 hands=3", 2)
    assert got["decisions"] == want["n"] >= review_stats.MIN_DECISIONS
    for key in ("mean_loss", "best_share", "mistakes_per_round"):
        figure = got["metrics"][key]
        assert figure["value"] == pytest.approx(want[key]), key
        assert figure["low"] <= figure["value"] <= figure["high"]
        pop = figure["population"]
        assert pop["players"] == 3  # everyone of the variant with enough decisions
        assert pop["p10"] <= pop["p50"] <= pop["p90"]
    everyone = [by_hand(reviewed, p) for p in NAMES]
    total = sum(e["n"] for e in everyone)
    pooled = sum(e["mean_loss"] * e["n"] for e in everyone) / total
    assert got["metrics"]["mean_loss"]["population"]["value"] == pytest.approx(pooled)
    # another variant has no reviewed decision of this player
    none = review_stats.player_accuracy(db, "ann", "classic", 2)
    assert none["decisions"] == 0 and none["metrics"]["mean_loss"]["value"] is None


def test_the_player_api_and_the_variants_api_carry_the_accuracy(
        client: Any, reviewed: list[dict[str, Any]]) -> None:
    body = client.get("/api/stats/players/bob").get_json()
    acc = body["data"]["accuracy"]
    assert acc["variant"] == "openspiel-block hand_size=4 hands=3" and acc["players"] == 2
    assert acc["metrics"]["best_share"]["value"] == pytest.approx(
        by_hand(reviewed, "bob")["best_share"])
    variants = client.get("/api/stats/variants").get_json()["data"]["variants"]
    (row,) = variants
    decisions = row["decisions"]
    assert decisions["decisions"] == sum(by_hand(reviewed, p)["n"] for p in NAMES)
    assert decisions["mean_loss"]["low"] <= decisions["mean_loss"]["value"]
    assert decisions["mean_range"] >= decisions["mean_loss"]["value"]


@pytest.mark.browser
def test_the_player_page_shows_the_accuracy_with_its_intervals(
        browser: Any, reviewed: list[dict[str, Any]], start_server: Any,
        tmp_path: Path) -> None:
    import os

    url = start_server(tmp_path / "recorder.db")
    out = Path(os.environ.get("RECORDER_SCREENSHOTS", tmp_path))
    out.mkdir(parents=True, exist_ok=True)
    want = by_hand(reviewed, "ann")
    for name, viewport in (("laptop", {"width": 1366, "height": 800}),
                           ("phone", {"width": 390, "height": 844})):
        page = browser.new_page(viewport=viewport)
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))  # noqa: B023
        page.goto(f"{url}/stats/players/ann")
        page.wait_for_selector("#accuracy tbody tr[data-metric='best_share'] td[data-value]")
        shown = page.evaluate("""() => Object.fromEntries([...document.querySelectorAll(
            "#accuracy tbody tr")].map((tr) => [tr.dataset.metric,
            Number(tr.querySelector("td[data-value]").dataset.value)]))""")
        assert shown == pytest.approx({k: want[k] for k in (
            "mean_loss", "best_share", "mistakes_per_round")})
        assert page.locator("#accuracy-empty").is_hidden()
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        page.locator("#accuracy").scroll_into_view_if_needed()
        page.screenshot(path=str(out / f"stats-player-accuracy-{name}.png"))
        page.close()
        assert errors == []
