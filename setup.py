"""Build the compiled core: the engine's hot modules as C extensions, with mypyc.

The modules stay ordinary typed Python (one source of truth for the rules); mypyc
turns them into C extensions that sit beside the ``.py`` files and are imported in
their place. Where that cannot happen (no C compiler, no mypyc, or
``RECORDER_PURE_BUILD=1``) the package installs as pure Python, which gives the same
answers more slowly, and says so in one line. ``recorder/__init__.py`` decides at
import time which of the two is used (docs/benchmarks.md, "The compiled core").
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT / "recorder"))
from _core import BUILD_INFO, COMPILED  # noqa: E402  - the list lives beside the modules

PATHS = [f"recorder/{name}.py" for name in COMPILED]


def say(line: str) -> None:
    """One line on stderr: pip shows it with -v, dev.py repeats what matters."""
    print(f"domino-recorder: {line}", file=sys.stderr, flush=True)


def ext_modules() -> list:
    if os.environ.get("RECORDER_PURE_BUILD") == "1":
        say("RECORDER_PURE_BUILD=1: installing the pure-Python engine")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        say("mypyc is not available: installing the pure-Python engine (same answers, slower)")
        return []
    try:
        return mypycify(PATHS, opt_level="3", group_name="recorder_core")
    except (Exception, SystemExit) as exc:  # a type error (mypy exits) must not stop an install
        say(f"mypyc could not compile the engine ({exc}): installing the pure-Python engine")
        return []


class OptionalBuildExt(build_ext):
    """build_ext that falls back to pure Python when compiling fails, and records what it built.

    The record (``recorder/_core_build.json``: each compiled module's source hash) lets
    the package notice at import time that a source changed since the build and use
    the ``.py`` instead of a stale extension.
    """

    def run(self) -> None:
        if not self.extensions:
            return
        try:
            super().run()
        except Exception as exc:  # no compiler, a compiler error: fall back, never fail
            for output in self.get_outputs():
                Path(output).unlink(missing_ok=True)
            say(f"the C build failed ({exc.__class__.__name__}: {exc}); installing the "
                "pure-Python engine (same answers, slower)")
            return
        record = {
            "compiler": "mypyc",
            "sources": {name: hashlib.sha256((ROOT / path).read_bytes()).hexdigest()
                        for name, path in zip(COMPILED, PATHS, strict=True)},
        }
        text = json.dumps(record, indent=1, sort_keys=True) + "\n"
        targets = {Path(self.build_lib) / "recorder" / BUILD_INFO}
        if self.inplace:
            targets = {ROOT / "recorder" / BUILD_INFO}
        for target in targets:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        say(f"compiled the engine with mypyc ({len(COMPILED)} modules)")

    def get_outputs(self) -> list[str]:
        outputs = super().get_outputs()
        if self.extensions:
            base = ROOT if self.inplace else Path(self.build_lib)
            outputs.append(str(base / "recorder" / BUILD_INFO))
        return outputs


setup(ext_modules=ext_modules(), cmdclass={"build_ext": OptionalBuildExt})
