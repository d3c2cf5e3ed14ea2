"""Names: one normal form for frontend names and game ids, and the names refused.

The normal form (recorder.names) makes the spellings a person cannot tell apart one name:
case (frontends), spaces at the ends, composed or decomposed accents, fullwidth letters,
look-alike dashes. Control characters, bidirectional overrides and other invisible
characters are refused by the schema, whose pattern is the module's, with a message that
names the character and where it is. On a real server, the same game sent under five
spellings of its names is stored and counted once.
"""

from __future__ import annotations

import copy
import json
import sqlite3
import unicodedata
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from conftest import make_game
from hypothesis import given, settings
from hypothesis import strategies as st

from recorder import names, schema, storage
from recorder.errors import SchemaError
from recorder.schema_errors import VALIDATOR
from recorder.tokens import create_token


@pytest.mark.parametrize(("written", "game_id", "frontend"), [
    ("spilop-app", "spilop-app", "spilop-app"),
    ("Spilop-App", "Spilop-App", "spilop-app"),
    ("  spilop-app ", "spilop-app", "spilop-app"),
    ("spilop\u2010app", "spilop-app", "spilop-app"),      # HYPHEN
    ("spilop\u2011app", "spilop-app", "spilop-app"),      # NON-BREAKING HYPHEN
    ("spilop\u2013app", "spilop-app", "spilop-app"),      # EN DASH
    ("spilop\u2212app", "spilop-app", "spilop-app"),      # MINUS SIGN
    ("\uff53\uff50\uff49\uff4c\uff4f\uff50-app", "spilop-app", "spilop-app"),  # fullwidth
    ("spilop\u00a0app", "spilop app", "spilop app"),      # NO-BREAK SPACE
    ("spilop \u3000  app", "spilop app", "spilop app"),   # a run of spaces is one
    ("Caf\u00e9", "Caf\u00e9", "caf\u00e9"),
    ("Cafe\u0301", "Caf\u00e9", "caf\u00e9"),             # decomposed: the same name
    ("Stra\u00dfe", "Stra\u00dfe", "strasse"),            # case folding, not lowering
    ("\ufb01nal", "final", "final"),                      # the ligature fi
    ("round\u00b2", "round2", "round2"),
    ("kfnielsen\u2019s", "kfnielsen's", "kfnielsen's"),   # RIGHT SINGLE QUOTATION MARK
    ("\u2764\ufe0f-app", "\u2764-app", "\u2764-app"),     # a variation selector is dropped
    ("\u0430pp", "\u0430pp", "\u0430pp"),                 # Cyrillic a stays Cyrillic
    ("\ufe0f", "\ufe0f", "\ufe0f"),                       # never the empty name
])
def test_the_normal_form(written: str, game_id: str, frontend: str) -> None:
    assert names.acceptable(written)
    assert names.game_id_key(written) == game_id
    assert names.frontend_key(written) == frontend


@pytest.mark.parametrize(("written", "why"), [
    ("", "is empty"),
    ("   ", "holds only spaces"),
    ("\u3000\u00a0", "holds only spaces"),
    ("ppa-mitciv\u202e", "holds a right-to-left override, U+202E, at character 11"),
    ("g-1\u2066", "holds a left-to-right isolate, U+2066, at character 4"),
    ("a\u200bb", "holds a zero-width space, U+200B, at character 2"),
    ("tab\there", "holds a tab, U+0009, at character 4"),
    ("line\nbreak", "holds a line break, U+000A, at character 5"),
    ("bell\x07", "holds a control character, U+0007, at character 5"),
    ("soft\u00adhyphen", "holds a soft hyphen, U+00AD, at character 5"),
    ("filler\u3164", "holds an invisible character (HANGUL FILLER), U+3164, at character 7"),
    ("bom\ufeff", "holds a byte order mark, U+FEFF, at character 4"),
])
def test_names_refused_and_why(written: str, why: str) -> None:
    assert not names.acceptable(written)
    assert names.problem(written).startswith(why)


names_text = st.text(st.characters(codec="utf-8"), max_size=12) | st.text(
    st.sampled_from(list("aA -\u2010\u2212\u00a0\u3000\u202e\u200b\ufe0f\u0301e\u00e9\u00df"
                         "\uff41\t")), max_size=8)


@settings(max_examples=400)
@given(names_text)
def test_the_normal_form_is_a_normal_form(text: str) -> None:
    """Applying it again changes nothing, and a normal form is an acceptable name's."""
    if not names.acceptable(text):
        assert names.problem(text) is not None
        return
    assert names.problem(text) is None
    for key in (names.game_id_key, names.frontend_key):
        once = key(text)
        assert key(once) == once
        assert once and names.acceptable(once)  # never a name the schema refuses
        folded = names._SPACES.sub(" ", names._DROPPED.sub("", unicodedata.normalize(
            "NFKC", text).translate(names._FOLD))).strip(" ")
        if not folded:  # nothing but dropped characters: kept as written
            assert once in (text, text.casefold())
            continue
        assert unicodedata.is_normalized("NFKC", once)
        assert once == once.strip(" ") and "  " not in once


def test_the_schema_pattern_is_the_module_pattern() -> None:
    definition = schema.SCHEMA["$defs"]["name"]
    assert definition["pattern"] == names.name_pattern()
    assert schema.SCHEMA["properties"]["game_id"]["$ref"] == "#/$defs/name"
    frontend = schema.SCHEMA["properties"]["frontend"]["properties"]["name"]
    assert frontend["$ref"] == "#/$defs/name"


@settings(max_examples=300)
@given(names_text, names_text)
def test_the_fast_lane_and_jsonschema_agree_on_names(game_id: str, frontend: str) -> None:
    doc = {"format": "domino-log/1", "ruleset": "spilop", "players": [{"id": "a"}],
           "rounds": [], "game_id": game_id, "frontend": {"name": frontend}}
    ok = names.acceptable(game_id) and names.acceptable(frontend) and len(game_id) <= 200 \
        and len(frontend) <= 100
    assert schema._fast_valid(doc) == VALIDATOR.is_valid(doc) == ok


def test_a_refused_name_is_located_and_quoted_without_its_control() -> None:
    doc = make_game(1)
    doc["game_id"] = "ppa-mitciv\u202e"
    with pytest.raises(SchemaError) as caught:
        schema.check_document(doc)
    error = caught.value
    assert (error.pointer, error.round, error.move) == ("/game_id", 0, 0)
    assert error.message == (
        'at /game_id: "ppa-mitciv\\u202e" holds a right-to-left override, U+202E, at '
        "character 11: names may hold no control characters and no characters that change "
        "how text is shown without being seen (such as bidirectional overrides); see "
        '"Names" in docs/format.md')
    assert "\u202e" not in error.message
    doc = make_game(1)
    doc["frontend"]["name"] = "  "
    with pytest.raises(SchemaError) as caught:
        schema.check_document(doc)
    assert caught.value.pointer == "/frontend/name"
    assert '"  " holds only spaces' in caught.value.message


# ---------------------------------------------------------------------------------------
# A real server.


def upload(url: str, token: str, doc: Any) -> dict[str, Any]:
    request = urllib.request.Request(url + "/api/games", data=json.dumps(doc).encode(),
                                     headers={"Authorization": f"Bearer {token}"})
    with urllib.request.urlopen(request, timeout=60) as response:
        game: dict[str, Any] = json.load(response)["data"]["games"][0]
        return game


def test_one_game_under_five_spellings_is_stored_and_counted_once(
        tmp_path: Path, start_server: Any) -> None:
    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    token = create_token(db, "Victim-App", ["upload"])[1]
    db.close()
    url = start_server(db_path)
    doc = make_game(7, frontend="victim-app", game_id="g-1")
    first = upload(url, token, doc)
    assert first["status"] == "accepted"
    for frontend, game_id in (("Victim-App", "g-1"), ("victim-app ", " g-1"),
                              ("victim\u2010app", "g\u20101"), ("VICTIM-APP", "\uff47-1")):
        spelled = copy.deepcopy(doc)
        spelled["frontend"]["name"] = frontend
        spelled["game_id"] = game_id
        again = upload(url, token, spelled)
        assert (again["status"], again["id"]) == ("duplicate", first["id"]), (frontend, game_id)
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT frontend, game_id FROM games").fetchall() == \
            [("victim-app", "g-1")]
        games = conn.execute("SELECT games FROM stats_rounds WHERE grain = 'all'").fetchall()
        assert games == [(1.0,)]
    with urllib.request.urlopen(url + "/api/games?frontend=Victim-App", timeout=60) as r:
        assert [g["id"] for g in json.load(r)["data"]] == [first["id"]]


def test_a_spoofing_name_is_refused_by_a_real_server(tmp_path: Path, start_server: Any) -> None:
    db_path = tmp_path / "r.db"
    db = storage.connect(db_path)
    token = create_token(db, "test-frontend", ["upload"])[1]
    db.close()
    url = start_server(db_path)
    for game_id, why in (("ppa-mitciv\u202e", "U+202E"), ("   ", "holds only spaces"),
                         ("g\x001", "U+0000")):
        game = upload(url, token, make_game(8, game_id=game_id))
        assert game["status"] == "refused"
        assert (game["error"]["code"], game["error"]["pointer"]) == ("log/schema", "/game_id")
        assert why in game["error"]["message"]
    with sqlite3.connect(db_path) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0
