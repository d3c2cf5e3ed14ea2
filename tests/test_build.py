"""Which build of the engine runs, and that the two builds answer alike.

The engine's hot modules are compiled with mypyc when a compiler is there
(``setup.py``); ``recorder/_core.py`` runs the ``.py`` sources instead under
``RECORDER_PURE=1`` or when a source changed since the build. ``python3 dev.py test``
runs the suite on the compiled build (under CI it must be that one:
``RECORDER_EXPECT_BUILD``) and the rules suite again on the pure one.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import subprocess_env

import recorder
from recorder import _core, engine

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "sample_games").glob("*.json*"))


def _replay_json(*, pure: bool) -> subprocess.CompletedProcess[bytes]:
    env = subprocess_env()
    env.pop("RECORDER_PURE", None)
    if pure:
        env["RECORDER_PURE"] = "1"
    return subprocess.run([sys.executable, "-m", "recorder.cli", "replay", "--json",
                           *map(str, SAMPLES)], env=env, capture_output=True, check=False,
                          cwd=ROOT)


def _build_in_child(**env: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", "import recorder; from recorder import engine; "
         "print(recorder.build(), engine.__file__)"],
        env={**subprocess_env(), **env}, capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_the_expected_build_is_the_one_loaded() -> None:
    """dev.py says which build each test run must be on; a wrong guess fails here."""
    expected = os.environ.get("RECORDER_EXPECT_BUILD")
    extension = any(str(engine.__file__).endswith(s)
                    for s in importlib.machinery.EXTENSION_SUFFIXES)
    assert recorder.build() == ("compiled" if extension else "pure")
    if expected is not None:
        assert recorder.build() == expected, recorder.build_text()
    if os.environ.get("RECORDER_PURE") == "1":
        assert recorder.build() == "pure"
        assert recorder.build_text() == "engine: pure Python (RECORDER_PURE=1)"


def test_recorder_pure_runs_every_compiled_module_from_source() -> None:
    code = ("import importlib, recorder; "
            "print(all(importlib.import_module('recorder.' + n).__file__.endswith('.py') "
            f"for n in {_core.COMPILED!r}))")
    env = {**subprocess_env(), "RECORDER_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == "True"
    assert _build_in_child(RECORDER_PURE="1").startswith("pure ")


def test_both_builds_answer_the_sample_games_byte_for_byte() -> None:
    compiled, pure = _replay_json(pure=False), _replay_json(pure=True)
    assert pure.returncode == compiled.returncode == 0, pure.stderr + compiled.stderr
    assert len(compiled.stdout.splitlines()) >= len(SAMPLES) > 0  # a game a line
    assert compiled.stdout == pure.stdout


def test_a_source_edited_after_the_build_runs_from_source(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """An extension compiled from older rules must never answer for newer ones."""
    for name in _core.COMPILED:
        (tmp_path / f"{name}.py").write_text(f"# {name}\n")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    (tmp_path / f"engine{suffix}").write_bytes(b"")
    import hashlib
    record = {"sources": {name: hashlib.sha256(f"# {name}\n".encode()).hexdigest()
                          for name in _core.COMPILED}}
    (tmp_path / _core.BUILD_INFO).write_text(json.dumps(record))
    monkeypatch.setattr(_core, "HERE", tmp_path)
    monkeypatch.delenv("RECORDER_PURE", raising=False)
    finders = list(sys.meta_path)
    monkeypatch.setattr(sys, "meta_path", finders)

    assert _core.select() == "compiled"  # sources as built: the extension is used
    assert sys.meta_path == finders

    (tmp_path / "replay.py").write_text("# replay, edited\n")
    assert _core.select() == "recorder/replay.py changed since the build"
    assert isinstance(sys.meta_path[0], _core._FromSource)
    assert "recorder/replay.py changed since the engine was compiled" in capsys.readouterr().err


def test_version_names_the_build() -> None:
    out = subprocess.run([sys.executable, "-m", "recorder.cli", "--version"],
                         env=subprocess_env(), capture_output=True, text=True, check=True)
    assert "engine: " in out.stdout
    assert recorder.build_text() in out.stdout
