"""docs/logger.md stays true: its walkthrough runs as written, its messages are the engine's.

The walkthrough's blocks run in order in a fresh folder beside this checkout's
``.venv`` and ``clients``: a ``js`` block whose first line is ``// PATH: ...`` is
written to PATH, every line of an ``sh`` block is run with bash, and every line of
a ``text`` block must appear in the output of each command before it that printed
something. Only the one-time setup (creating ``.venv``) is not rerun: the suite runs
inside that environment already.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from recorder.cli import main
from recorder.replay import replay

ROOT = Path(__file__).resolve().parent.parent
GUIDE = (ROOT / "docs" / "logger.md").read_text()
BLOCK = re.compile(r"^```(\w*)\n(.*?)^```$", re.S | re.M)


def walkthrough() -> list[tuple[str, str]]:
    section = GUIDE.split("## Walkthrough", 1)[1].split("\n## ", 1)[0]
    return [(m[1], m[2]) for m in BLOCK.finditer(section)]


def test_the_walkthrough_produces_a_log_that_validates(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is missing, and CI=true needs the walkthrough tested")
        pytest.skip("node is missing: the walkthrough is not run here")
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "clients").symlink_to(ROOT / "clients")
    blocks = walkthrough()
    assert [kind for kind, _ in blocks].count("js") == 2
    printed: list[str] = []
    checked = 0
    for kind, body in blocks:
        if kind == "sh":
            if "python3 -m venv .venv" in body:
                assert (ROOT / ".venv" / "bin" / "recorder").exists()
                continue
            printed = []
            for line in body.splitlines():
                if not line.strip():
                    continue
                done = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True,
                                      text=True, timeout=120)
                assert done.returncode == 0, (line, done.stdout, done.stderr)
                if done.stdout:
                    printed.append(done.stdout)
        elif kind == "js":
            first = body.splitlines()[0]
            assert first.startswith("// ") and ":" in first
            path = tmp_path / first[3:].split(":", 1)[0]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(body)
        elif kind == "text":
            assert printed, "a text block follows commands that print nothing"
            for out in printed:
                for line in body.splitlines():
                    assert line in out.splitlines(), (line, out)
                    checked += 1
    assert checked >= 4
    doc = json.loads((tmp_path / "mygame" / "game.json").read_text())
    answer = replay(doc)
    assert answer["status"] == "finished" and "mismatches" not in answer


def _example(name: str) -> dict[str, Any]:
    return json.loads((ROOT / "docs" / "examples" / f"{name}.json").read_text())


def _moves(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc["rounds"][0]["moves"]


def _round_seed_counted_wrong(d: dict[str, Any]) -> None:
    d["seed"] = "spilop-example-1/1"


def _draw_from_the_end(d: dict[str, Any]) -> None:
    _moves(d)[11]["tile"] = "4-6"


def _no_end(d: dict[str, Any]) -> None:
    del _moves(d)[2]["end"]


def _end_on_first(d: dict[str, Any]) -> None:
    _moves(d)[0]["end"] = "left"


def _pass_instead_of_draw(d: dict[str, Any]) -> None:
    _moves(d)[11] = {"player": 0, "action": "pass"}


def _pass_after_the_end(d: dict[str, Any]) -> None:
    _moves(d).append({"player": 0, "action": "pass"})


def _bonus_misread(d: dict[str, Any]) -> None:
    d["rounds"][0]["result"]["bonus"] = [0, 0]
    del d["result"]
    d["rounds"].append({"moves": []})


def _wrong_opening(d: dict[str, Any]) -> None:
    _moves(d)[0]["tile"] = "5-6"


def _end_elsewhere_earlier(d: dict[str, Any]) -> None:
    _moves(d)[4]["end"] = "left"


def _first_tile_turned(d: dict[str, Any]) -> None:
    first = d["rounds"][3]["moves"][0]
    assert first["tile"] == "3-4"
    first["tile"] = "4-3"


def _claim_misnamed(d: dict[str, Any]) -> None:
    result = d["rounds"][0]["result"]
    result["pipsLeft"] = result.pop("pips_left")


@pytest.mark.parametrize(("example", "mistake"), [
    ("spilop", _round_seed_counted_wrong),
    ("spilop", _draw_from_the_end),
    ("spilop", _no_end),
    ("spilop", _end_on_first),
    ("spilop", _pass_instead_of_draw),
    ("spilop", _pass_after_the_end),
    ("spilop", _bonus_misread),
    ("classic", _wrong_opening),
    ("spilop", _end_elsewhere_earlier),
    ("italian", _first_tile_turned),
    ("spilop", _claim_misnamed),
], ids=lambda x: x if isinstance(x, str) else x.__name__.strip("_"))
def test_each_mistake_gives_the_message_the_guide_shows(example: str, mistake: Any) -> None:
    doc = copy.deepcopy(_example(example))
    mistake(doc)
    answer = replay(doc)
    assert answer["status"] == "invalid"
    message = answer["error"]["message"]
    assert f"\n{message}\n" in GUIDE, message


def test_stopping_early_gives_the_warning_the_guide_shows(tmp_path: Path) -> None:
    doc = _example("spilop")
    _moves(doc).pop()
    del doc["result"]
    path = tmp_path / "early.json"
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(main, ["validate", str(path)])
    line = result.output.splitlines()[0]
    assert f"\n{line}\n" in GUIDE, line
    strict = CliRunner().invoke(main, ["validate", "--strict", str(path)])
    assert strict.exit_code == 1


def test_claims_that_differ_give_the_lines_the_guide_shows(tmp_path: Path) -> None:
    doc = _example("spilop")
    doc["rounds"][0]["result"]["bonus"] = [15, 95]
    path = tmp_path / "misscored.json"
    path.write_text(json.dumps(doc))
    plain = CliRunner().invoke(main, ["validate", str(path)])
    assert plain.exit_code == 0 and "warning: round 1's claimed bonus 15, 95" in plain.output
    strict = CliRunner().invoke(main, ["validate", "--strict", str(path)])
    assert strict.exit_code == 1
    lines = strict.output.splitlines()[:2]
    assert len(lines) == 2
    for line in lines:
        assert f"\n{line}\n" in GUIDE, line
