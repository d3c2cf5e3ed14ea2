"""The rulesets as data: one file, written from recorder/rules.py, read by other languages.

``schemas/rulesets-1.json`` (shipped in the package as ``recorder.schemas``) and
``clients/js/rulesets.json`` hold exactly what ``recorder rules --json`` prints, so a
change to the engine's presets or options that is not written out fails here, with the
command that writes it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from recorder.cli import main
from recorder.rules import OPTIONS, PRESETS, RULESETS_NAME, Ruleset, rulesets_json

ROOT = Path(__file__).resolve().parent.parent
FILES = [ROOT / "schemas" / RULESETS_NAME, ROOT / "clients" / "js" / "rulesets.json"]
WRITE = ("recorder rules --json > schemas/rulesets-1.json && "
         "cp schemas/rulesets-1.json clients/js/rulesets.json")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_the_shipped_file_is_the_engines(path: Path) -> None:
    assert path.read_text(encoding="utf-8") == rulesets_json(), \
        f"{path.relative_to(ROOT)} is not what the engine says; write it again: {WRITE}"


def test_recorder_rules_json_prints_the_file() -> None:
    out = CliRunner().invoke(main, ["rules", "--json"])
    assert out.exit_code == 0
    assert out.output == rulesets_json()


def test_the_file_holds_every_preset_option_and_rule() -> None:
    data = json.loads(rulesets_json())
    assert list(data["presets"]) == list(PRESETS)
    assert list(data["options"]) == list(OPTIONS)
    for name, rules in PRESETS.items():
        entry = dict(data["presets"][name])
        entry.pop("two_set_hand_size", None)
        assert entry == rules.to_json()
        assert set(rules.describe()) <= set(entry)  # every rule `recorder rules` shows
        assert set(OPTIONS) <= set(entry)  # an option is a rule of the same name
    assert data["presets"]["spilop"]["two_set_hand_size"] == {"2": 7, "3": 7, "4": 7}
    assert data["requires"] == {
        "spinner_arms": {"option": "spinner", "does": "it says when a spinner's up and "
                         "down sides open"},
        "bonus_multiple": {"option": "bonus", "does": "it sets which open-end sums score "
                           "a bonus"}}


def test_recorder_rules_preset_json_is_every_rule_with_the_options() -> None:
    out = CliRunner().invoke(main, ["rules", "spilop", "-o", "sets=2", "-o", "bonus=true",
                                    "--json"])
    assert out.exit_code == 0, out.output
    rules = json.loads(out.output)
    spec = {"preset": "spilop", "options": {"sets": 2, "bonus": True}}
    assert rules == Ruleset.from_spec(spec).to_json()
    assert rules["hand_size"] == {"2": 7, "3": 7, "4": 7} and rules["pips_decide"] is False
    refused = CliRunner().invoke(main, ["rules", "spilop", "-o", "bonnus=true"])
    assert refused.exit_code == 2 and 'did you mean "bonus"' in refused.output
    lone = CliRunner().invoke(main, ["rules", "-o", "sets=2"])
    assert lone.exit_code == 2 and "-o needs a PRESET" in lone.output
