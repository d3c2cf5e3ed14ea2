#!/usr/bin/env python3
"""Set everything up, then serve or test: the README's two commands.

    python3 dev.py serve     # venv + install + the service on http://127.0.0.1:5000
    python3 dev.py test      # venv + install (+ engines, Chromium) + the whole test suite,
                             # the rules suite again on the pure-Python engine,
                             # then the JavaScript client: its type declarations checked
                             # by TypeScript (installed with npm), its tests with node

It needs nothing but Python 3.11+. The virtual environment lives in ``.venv``;
installs are skipped when ``pyproject.toml`` has not changed since the last one.
Chromium for the browser tests comes from the system's package manager (Debian's
``chromium``), installed with apt-get when we are root and it is missing.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"


def run(*cmd: str | Path, cwd: Path = ROOT, **kw: object) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, cwd=cwd, **kw)  # type: ignore[call-overload]


def ensure_venv(extras: str) -> None:
    """Create .venv and install the project (with ``extras``) when needed."""
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py runs before anything is installed
        sys.exit(f"Python 3.11 or newer is needed, this is {sys.version.split()[0]}")
    if not PY.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    precompile()
    stamp = VENV / f".installed-{extras or 'base'}"
    digest = build_digest()
    if stamp.exists() and stamp.read_text() == digest:
        return
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    target = f".[{extras}]" if extras else "."
    run(PY, "-m", "pip", "install", "--quiet", "-e", target)
    stamp.write_text(digest)
    report_build()


def precompile() -> None:
    """Write the bytecode of the project's own modules, as pip does for installed ones.

    An editable install leaves them as sources, and where ``PYTHONDONTWRITEBYTECODE`` is
    set (as on some CI machines) every command would compile them again at start: 15 ms
    of each ``recorder`` run. Up-to-date files are skipped, so this costs little.
    """
    subprocess.run([str(PY), "-m", "compileall", "-q", "recorder", "webui"], cwd=ROOT,
                   check=False, stdout=subprocess.DEVNULL)


def build_digest() -> str:
    """What an install depends on: the project file, and the sources mypyc compiles.

    An edited engine module is rebuilt on the next run (until then the package runs
    that module's pure-Python source, never a stale extension: recorder/_core.py).
    """
    h = hashlib.sha256()
    for path in ["pyproject.toml", "setup.py", *sorted(
            str(p.relative_to(ROOT)) for p in (ROOT / "recorder").glob("*.py"))]:
        h.update(path.encode() + b"\0" + (ROOT / path).read_bytes())
    return h.hexdigest()


def report_build() -> None:
    """The one line that says whether the engine was compiled, and what it costs if not."""
    out = subprocess.run([str(PY), "-c", "import recorder; print(recorder.build_text())"],
                         cwd=ROOT, capture_output=True, text=True, check=False).stdout.strip()
    if "compiled" in out:
        print(f"note: {out}", flush=True)
    else:
        print(f"note: {out or 'engine: unknown'}: no C compiler or mypyc was usable, so "
              "replay and import run at about half speed (same answers)", file=sys.stderr)


def ensure_chromium() -> None:
    """Debian's Chromium for the browser tests; apt-get only when root and missing."""
    if shutil.which("chromium") or Path("/usr/bin/chromium").exists():
        return
    if hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        run("apt-get", "update", "-qq", env=env)
        run("apt-get", "install", "-y", "-qq", "--no-install-recommends", "chromium", env=env)
    else:
        print("note: Chromium is missing; install Debian's 'chromium' package to run the "
              "browser tests", file=sys.stderr)


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("serve", "test"):
        print(__doc__)
        return 2
    if argv[0] == "serve":
        ensure_venv("")
        return subprocess.call([str(BIN / "recorder"), "serve", *argv[1:]], cwd=ROOT)
    ensure_venv("test,engines,scale")  # the engines' games and the archive's are tested
    ensure_chromium()
    python_tests = subprocess.call([str(PY), "-m", "pytest", *argv[1:]], cwd=ROOT,
                                   env=expect_build())
    pure_tests = run_pure_rules_suite(argv[1:])
    js_tests = run_js_tests()
    return python_tests or pure_tests or js_tests


#: the rules and property suite, run a second time on the pure-Python engine
PURE_SUITE = ["tests/test_rules_*.py", "tests/test_properties.py", "tests/test_scoring_oracle.py",
              "tests/test_engine_fingerprint.py", "tests/test_shuffle.py", "tests/test_build.py",
              "tests/test_isolation.py", "tests/test_hostile.py", "tests/test_vectors.py",
              "tests/test_schema.py", "tests/test_fuzz.py", "tests/test_blocking.py",
              "tests/test_knowledge.py", "tests/test_scores_part.py", "tests/test_diagnostics.py",
              "tests/test_nulls.py", "tests/test_solver.py"]


def expect_build() -> dict[str, str]:
    """Under CI the main run must be the compiled build: tests/test_build.py checks it."""
    env = dict(os.environ)
    if os.environ.get("CI") == "true":
        env["RECORDER_EXPECT_BUILD"] = "compiled"
    return env


def run_pure_rules_suite(args: list[str]) -> int:
    """The same rules on the .py sources: both builds must agree with every test."""
    files = sorted({str(p.relative_to(ROOT)) for pattern in PURE_SUITE
                    for p in ROOT.glob(pattern)})
    env = {**os.environ, "RECORDER_PURE": "1", "RECORDER_EXPECT_BUILD": "pure"}
    quiet = [a for a in args if a in ("-q", "-qq", "-v")]
    print("+ RECORDER_PURE=1 pytest (the rules suite on the pure-Python engine)", flush=True)
    return subprocess.call([str(PY), "-m", "pytest", *quiet, "-m", "not browser", *files],
                           cwd=ROOT, env=env)


def run_js_tests() -> int:
    """The JavaScript client: its declarations type-checked with TypeScript, then node's
    test runner. A missing node (or npm, for TypeScript) fails only under CI."""
    node = shutil.which("node")
    ci = os.environ.get("CI") == "true"
    if node is None:
        if ci:
            print("error: node is missing; CI=true needs the JavaScript client tested",
                  file=sys.stderr)
            return 1
        print("note: node is missing; the JavaScript client's tests (clients/js) are skipped",
              file=sys.stderr)
        return 0
    js = ROOT / "clients" / "js"
    tsc = ensure_typescript(js, ci)
    types = 0
    if tsc is not None:
        print("+ tsc -p clients/js (index.d.ts against test/types.ts)", flush=True)
        types = subprocess.call([node, str(tsc), "-p", "tsconfig.json"], cwd=js)
    elif ci:
        types = 1
    print("+ node --test clients/js/test/", flush=True)
    return subprocess.call([node, "--test", "test/"], cwd=js) or types


def ensure_typescript(js: Path, ci: bool) -> Path | None:
    """TypeScript as clients/js/package.json pins it, installed with npm when missing."""
    wanted = json.loads((js / "package.json").read_text())["devDependencies"]["typescript"]
    package = js / "node_modules" / "typescript" / "package.json"
    try:
        have = json.loads(package.read_text())["version"]
    except (OSError, ValueError, KeyError):
        have = None
    if have != wanted:
        npm = shutil.which("npm")
        if npm is None:
            print(f"{'error' if ci else 'note'}: npm is missing, so TypeScript {wanted} cannot "
                  "be installed and the declarations of clients/js are not type-checked",
                  file=sys.stderr)
            return None
        run(npm, "install", "--no-package-lock", "--no-audit", "--no-fund",
            "--loglevel=error", cwd=js)
    return js / "node_modules" / "typescript" / "bin" / "tsc"


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
