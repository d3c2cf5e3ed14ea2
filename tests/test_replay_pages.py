"""The replay and watch pages' server side, without a browser: the header's words and the
watch page's answer to a log refused before its first move."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from conftest import make_game

from recorder import ingest
from recorder.frames import build_frames
from webui.replay import pointer_excerpt, rule_phrases, watched_header


@pytest.mark.parametrize(("options", "words"), [
    ({"max_pip": 9, "partnerships": True}, ["double-nine", "partnerships"]),
    ({"draw": "one"}, ["draw one tile"]),
    ({"bonus": True, "bonus_multiple": 3}, ["bonus on multiples of 3"]),
    ({"target": 150, "target_mode": "reach-loses"}, ["to 150 points",
                                                     "reaching the target loses"]),
    ({"sets": 2}, ["two sets mixed"]),
    ({"hands": 3}, ["a match of 3 hands"]),
    ({"draw": "until-playable"}, []),  # classic's own rule: nothing changed
])
def test_the_rules_a_game_changed_in_words(options: dict[str, Any], words: list[str]) -> None:
    players = 4 if options.get("partnerships") else 2
    doc = make_game(1, ruleset={"preset": "classic", "options": options}, players=players)
    frames = build_frames(doc)
    game = frames["game"]
    assert rule_phrases(game["changed"], game["rules"]) == words
    bits = watched_header(frames)["bits"]
    assert bits[:1 + len(words)] == ["classic", *words]
    assert f"{players} players" in bits


def test_the_header_names_the_teams_and_how_far_an_unfinished_game_went() -> None:
    doc = make_game(2, ruleset={"preset": "classic", "options": {"partnerships": True}},
                    players=4)
    head = watched_header(build_frames(doc))
    assert [[p["seat"] for p in side] for side in head["teams"]] == [[0, 2], [1, 3]]
    assert head["teams"][0][0]["name"] == doc["players"][0].get("name", doc["players"][0]["id"])
    cut = copy.deepcopy(doc)
    cut["rounds"] = cut["rounds"][:1]
    cut["rounds"][0]["moves"] = cut["rounds"][0]["moves"][:3]
    cut["rounds"][0].pop("result", None)
    cut.pop("result", None)
    bits = watched_header(build_frames(cut))["bits"]
    assert bits[-1] == "unfinished (no round complete)"
    assert not any(b.startswith("finished") for b in bits)


def test_a_pointer_names_the_part_of_the_log_quoted() -> None:
    doc = {"rounds": [{"moves": [{"player": 0, "action": "fly"}]}], "players": ["x"] * 500}
    assert pointer_excerpt(doc, "/rounds/0/moves/0/action") == '"fly"'
    assert pointer_excerpt(doc, "/rounds/0/moves/0/tile") == '{"player": 0, "action": "fly"}'
    long = pointer_excerpt(doc, "/players")
    assert long is not None and len(long) == 240 and long.endswith("…")
    assert pointer_excerpt(doc, "a/b") is None and pointer_excerpt(doc, None) is None
    assert pointer_excerpt({"a/b": {"~": 1}}, "/a~1b/~0") == "1"


def test_the_watch_page_answers_a_log_refused_before_its_first_move(client: Any) -> None:
    doc = make_game(3)
    bad = copy.deepcopy(doc)
    bad["players"][0]["id"] = 5
    r = client.post("/watch", data={"log": json.dumps(bad)})
    text = r.get_data(as_text=True)
    assert r.status_code == 200  # the request was fine; the log is refused
    assert 'id="replay"' not in text  # no replay shell with dead controls
    assert "does not have the shape of domino-log/1" in text
    assert re.search(r'<code id="problem-pointer">/players/0/id</code>', text)
    assert '<pre class="excerpt" id="problem-excerpt">5</pre>' in text
    assert "fix it and watch it again" in text
    teams = {**doc, "ruleset": {"preset": doc["ruleset"], "options": {"partnerships": True}}}
    nope = client.post("/watch", data={"log": json.dumps(teams)}).get_data(as_text=True)
    assert "The log is refused before its first move: partnerships need exactly 4" in nope
    # a refusal later in the game is a replay, up to the move refused
    later = copy.deepcopy(doc)
    later["rounds"][0]["moves"][1]["player"] = later["rounds"][0]["moves"][0]["player"]
    replay = client.post("/watch", data={"log": json.dumps(later)})
    assert replay.status_code == 200 and 'id="frames-data"' in replay.get_data(as_text=True)


def test_a_stored_games_page_links_its_players_and_says_its_rules(client: Any, db: Any) -> None:
    doc = make_game(4, ruleset={"preset": "classic", "options": {"max_pip": 9,
                                                                 "partnerships": True}},
                    players=4)
    doc["players"][2]["id"] = "club/ann"
    _, outcomes = ingest.import_upload(db, json.dumps(doc).encode())
    page = client.get(f"/games/{outcomes[0].id}").get_data(as_text=True)
    assert "classic · double-nine · partnerships · 4 players" in page
    assert 'data-player-url="/stats/players/PLAYER"' in page
    assert 'href="/stats/players/club/ann"' in page  # the teams line, server-rendered
    assert "data-plotly-url=" in page
