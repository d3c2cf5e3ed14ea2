"""Docs that are tested: every command, option and example stays true."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from recorder.cli import main
from recorder.replay import replay
from recorder.rules import OPTIONS, PRESETS

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()
RULES_DOC = (ROOT / "docs" / "rules.md").read_text()


def test_readme_starts_with_the_two_commands() -> None:
    blocks = README.split("```")
    first = blocks[1].strip().splitlines()
    commands = [line for line in first if line and not line.startswith(("#", "bash", "sh"))]
    assert commands == ["python3 dev.py serve", "python3 dev.py test"]


@pytest.mark.parametrize("name", sorted(main.commands))
def test_every_command_is_in_the_readme(name: str) -> None:
    assert f"recorder {name}" in README


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_every_option_is_documented(name: str) -> None:
    assert f"| `{name}` |" in RULES_DOC


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_has_a_worked_example_that_replays(preset: str) -> None:
    doc = json.loads((ROOT / "docs" / "examples" / f"{preset}.json").read_text())
    answer = replay(doc)
    assert answer["status"] == "finished"
    assert "mismatches" not in answer
    assert (ROOT / "docs" / "format.md").read_text().count(f"examples/{preset}.json") >= 1


def test_the_format_guides_error_messages_are_the_engines() -> None:
    doc = json.loads((ROOT / "docs" / "examples" / "spilop.json").read_text())
    changes = [
        (0, {**doc["rounds"][0]["moves"][0], "player": 0}),
        (3, {**doc["rounds"][0]["moves"][3], "end": "right"}),
        (2, {"player": 1, "action": "pass"}),
        (11, {"player": 0, "action": "play", "tile": "2-6", "end": "left"}),
    ]
    guide = (ROOT / "docs" / "format.md").read_text()
    for index, move in changes:
        changed = json.loads(json.dumps(doc))
        changed["rounds"][0]["moves"][index] = move
        message = replay(changed)["error"]["message"]
        assert message in guide


@pytest.mark.parametrize("path", ["sample_games/bonus-examples.json",
                                  "docs/examples/bonus-more.json"])
def test_the_bonus_examples_in_rules_md_are_the_engines_transcripts(path: str) -> None:
    from click.testing import CliRunner

    out = CliRunner().invoke(main, ["replay", str(ROOT / path)]).output
    moves = [line for line in out.splitlines() if re.match(r"^ +\d+\. ", line)]
    assert len(moves) >= 8
    for line in moves:
        assert f"\n{line}\n" in RULES_DOC, line


def test_the_docs_refer_only_to_files_of_the_project() -> None:
    """Every doc links only to files that exist; no doc names a file outside the project."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             ROOT / "bench" / "README.md", ROOT / "schemas" / "vectors" / "README.md",
             ROOT / "clients" / "js" / "README.md"]
    for page in pages:
        text = page.read_text()
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
            if target.startswith(("http://", "https://")):
                continue
            assert (page.parent / target).exists(), f"{page.name}: {target}"
    for path in [*pages, ROOT / "schemas" / "domino-log-1.schema.json",
                 *sorted((ROOT / "schemas" / "vectors").glob("*.json"))]:
        text = path.read_text()
        assert "CONTRACT.md" not in text and "RULES.md" not in text, path.name


def test_the_partnerships_worked_example_is_the_engines_answer() -> None:
    doc = json.loads((ROOT / "docs" / "examples" / "partnerships.json").read_text())
    answer = replay(doc)
    assert answer["status"] == "finished" and "mismatches" not in answer
    section = RULES_DOC.split("## Partnerships, worked out", 1)[1].split("\n## ", 1)[0]
    for computed in answer["rounds"]:
        assert f"\n{json.dumps(computed)}\n" in section
    assert f"`{answer['scores']}`" in section and f"`{answer['winners']}`" in section
