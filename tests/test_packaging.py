"""The wheel built from this repository works on its own: installed (not editable) in a
clean virtual environment, away from the source tree, it replays a game, because the
schema ships inside it; and when its own files are broken it says so instead of blaming
the file it was given."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, make_game


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                    "--wheel-dir", str(out), str(ROOT)],
                   check=True, capture_output=True, timeout=600)
    (path,) = out.glob("domino_recorder-*.whl")
    return path


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A new virtual environment with the wheel installed from the file, not editable.

    The dependencies (Flask, jsonschema, ...) are borrowed from this environment's
    site-packages through a path entry rather than downloaded again; a path entry adds
    modules only, so this environment's editable install of the recorder is not seen.
    """
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path("
                           "'purelib'))"], capture_output=True, text=True, check=True).stdout
    ours = sysconfig.get_path("purelib")
    Path(site.strip(), "borrowed-dependencies.pth").write_text(ours + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--no-index", "--quiet", str(wheel)],
                   check=True, capture_output=True, timeout=300)
    return env_dir


def run_in(env_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "RECORDER_DB"}}
    return subprocess.run([str(env_dir / "bin" / "recorder"), *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120, check=False)


def test_the_wheel_holds_every_module_the_schema_and_the_vectors(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("recorder", "webui"):
        for source in (ROOT / folder).rglob("*"):
            if source.is_file() and "__pycache__" not in source.parts:
                assert source.relative_to(ROOT).as_posix() in names, source
    for source in (ROOT / "schemas").rglob("*.json"):
        assert f"recorder/schemas/{source.relative_to(ROOT / 'schemas').as_posix()}" in names
    assert not any(n.startswith(("schemas/", "tests/")) for n in names)


def test_an_installed_wheel_replays_a_game(clean_venv: Path, tmp_path: Path) -> None:
    game = tmp_path / "game.json"
    game.write_text(json.dumps(make_game(1)))
    where = subprocess.run(
        [str(clean_venv / "bin" / "python"), "-c",
         "import recorder, recorder.schema as s; print(recorder.__file__); print(s.SCHEMA_PATH)"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    module, schema = where.stdout.split()
    assert module.startswith(str(clean_venv)) and schema.startswith(str(clean_venv))
    result = run_in(clean_venv, "replay", "--json", str(game), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["status"] == "finished" and answer["game_id"] == "game-1"
    result = run_in(clean_venv, "validate", str(game), cwd=tmp_path)
    assert result.returncode == 0 and "game-1: ok (finished" in result.stdout


def test_a_broken_installation_is_not_blamed_on_the_file(
        clean_venv: Path, tmp_path: Path) -> None:
    schema = Path(subprocess.run(
        [str(clean_venv / "bin" / "python"), "-c",
         "import recorder.schema as s; print(s.SCHEMA_PATH)"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"}).stdout.strip())
    game = tmp_path / "game.json"
    game.write_text(json.dumps(make_game(2)))
    saved = schema.read_bytes()
    try:
        schema.unlink()
        result = run_in(clean_venv, "replay", str(game), cwd=tmp_path)
        assert result.returncode == 3
        assert "installation is broken" in result.stderr and "reinstall" in result.stderr
        assert "cannot read" not in result.stderr and str(game) not in result.stderr
        schema.write_text("{ damaged")
        result = run_in(clean_venv, "validate", str(game), cwd=tmp_path)
        assert result.returncode == 3 and "installation is broken" in result.stderr
    finally:
        schema.write_bytes(saved)
    assert run_in(clean_venv, "validate", str(game), cwd=tmp_path).returncode == 0
