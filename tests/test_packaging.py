"""The wheel built from this repository works on its own: installed (not editable) in a
clean virtual environment, away from the source tree, it replays a game, because the
schema ships inside it; and when its own files are broken it says so instead of blaming
the file it was given. Built where no C compiler works, it is pure Python, says so in one
line, and still replays the game."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT, make_game

from recorder import _core


def _source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """What a clean checkout holds for the build: no build/, no extensions built in place."""
    out = tmp_path_factory.mktemp("source") / "domino-recorder"
    out.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, out / name)
    for folder in ("recorder", "webui", "schemas"):
        shutil.copytree(ROOT / folder, out / folder, ignore=shutil.ignore_patterns(
            "__pycache__", "*.so", _core.BUILD_INFO))
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet",
                    "--wheel-dir", str(out), str(_source(tmp_path_factory))],
                   check=True, capture_output=True, timeout=600)
    (path,) = out.glob("domino_recorder-*.whl")
    return path


@pytest.fixture(scope="module")
def pure_wheel(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The wheel built with a C compiler that always fails, and what the build said."""
    out = tmp_path_factory.mktemp("pure-wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v",
                           "--wheel-dir", str(out), str(_source(tmp_path_factory))],
                          env={**os.environ, "CC": "false"},
                          check=True, capture_output=True, text=True, timeout=600)
    (path,) = out.glob("domino_recorder-*.whl")
    return path, done.stdout + done.stderr


def _install(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
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


@pytest.fixture(scope="module")
def clean_venv(tmp_path_factory: pytest.TempPathFactory, wheel: Path) -> Path:
    """A new virtual environment with the wheel installed from the file, not editable.

    The dependencies (Flask, jsonschema, ...) are borrowed from this environment's
    site-packages through a path entry rather than downloaded again; a path entry adds
    modules only, so this environment's editable install of the recorder is not seen.
    """
    return _install(tmp_path_factory, wheel)


def run_in(env_dir: Path, *args: str, cwd: Path,
           own_build: bool = False) -> subprocess.CompletedProcess[str]:
    """``recorder ARGS`` of the environment ``env_dir``. With ``own_build``, the installed
    wheel runs the engine it was built with, whatever ``RECORDER_PURE`` this test run has
    (``RECORDER_PURE=1`` picks the .py sources of the run it is set for, docs/testing.md:
    it says nothing about what a wheel holds)."""
    drop = {"PYTHONPATH", "RECORDER_DB"} | ({"RECORDER_PURE"} if own_build else set())
    env = {k: v for k, v in os.environ.items() if k not in drop}
    return subprocess.run([str(env_dir / "bin" / "recorder"), *args], capture_output=True,
                          text=True, cwd=cwd, env=env, timeout=120, check=False)


def test_the_wheel_holds_every_module_the_schema_and_the_vectors(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    for folder in ("recorder", "webui"):
        for source in (ROOT / folder).rglob("*"):
            built = source.suffix == ".so" or source.name == _core.BUILD_INFO
            if source.is_file() and "__pycache__" not in source.parts and not built:
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


def _extensions(wheel: Path) -> set[str]:
    return {Path(n).name.split(".")[0] for n in zipfile.ZipFile(wheel).namelist()
            if n.startswith("recorder/") and n.endswith(".so")}


@pytest.mark.skipif(shutil.which(sysconfig.get_config_var("CC").split()[0]) is None
                    and os.environ.get("CI") != "true", reason="no C compiler here")
def test_the_wheel_carries_the_compiled_core(wheel: Path, clean_venv: Path,
                                             tmp_path: Path) -> None:
    """Also under ``RECORDER_PURE=1``: the build compiles whatever this run executes."""
    assert _extensions(wheel) == set(_core.COMPILED)
    assert f"recorder/{_core.BUILD_INFO}" in zipfile.ZipFile(wheel).namelist()
    version = run_in(clean_venv, "--version", cwd=tmp_path, own_build=True)
    assert "engine: compiled with mypyc" in version.stdout


def test_without_a_compiler_the_wheel_is_pure_python_and_says_so(
        pure_wheel: tuple[Path, str], tmp_path_factory: pytest.TempPathFactory,
        tmp_path: Path) -> None:
    path, said = pure_wheel
    assert _extensions(path) == set()
    lines = [x for x in said.splitlines() if "installing the pure-Python engine" in x]
    assert len(lines) == 1, said[-3000:]
    assert "domino-recorder: the C build failed" in lines[0]
    env_dir = _install(tmp_path_factory, path)
    assert "engine: pure Python" in run_in(env_dir, "--version", cwd=tmp_path).stdout
    game = tmp_path / "game.json"
    game.write_text(json.dumps(make_game(7)))
    result = run_in(env_dir, "replay", "--json", str(game), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["status"] == "finished"
