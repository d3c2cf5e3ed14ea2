"""Which build of the engine runs: the compiled core or the pure-Python modules.

The hot modules below are compiled with mypyc when the package is built
(``setup.py``); the extensions sit beside their ``.py`` sources, and Python imports
an extension before a source of the same name. Both builds give byte-identical
answers (``scripts/engine_fingerprint.py --compare``), so choosing is only about
speed, and about never running a stale extension:

- ``RECORDER_PURE=1`` in the environment runs the ``.py`` sources (the tests run the
  rules suite both ways; a profiler sees Python frames).
- A source that changed since the build (an edited engine in a checkout) also runs
  from source, with one line on stderr saying how to rebuild: an extension compiled
  from older rules must never answer for newer ones.

This module imports nothing of the package: ``setup.py`` reads ``COMPILED`` from it.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

#: the modules mypyc compiles: the engine, the shuffle, the replay walk, the facts, the
#: parser's count of a document's keys, the packing of a round's moves and their count, and
#: the review's solver
COMPILED = ("engine", "shuffle", "tiles", "rules", "replay", "schema", "analysis", "blocking",
            "keycount", "packing", "tally", "solver")
#: written by the build beside the extensions: the hash of each source it compiled
BUILD_INFO = "_core_build.json"

HERE = Path(__file__).resolve().parent
_NAMES = frozenset(f"recorder.{name}" for name in COMPILED)


class _FromSource:
    """Finds the compiled modules' ``.py`` sources ahead of their extensions.

    A meta path finder by protocol (``find_spec``), not by subclassing
    ``importlib.abc.MetaPathFinder``: that module takes 14 ms to import, at every
    start of every command.
    """

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _NAMES:
            return None
        source = HERE / (fullname.rpartition(".")[2] + ".py")
        return importlib.util.spec_from_file_location(fullname, source)


def _extensions() -> list[Path]:
    return [p for name in COMPILED for suffix in importlib.machinery.EXTENSION_SUFFIXES
            if (p := HERE / f"{name}{suffix}").exists()]


def _stale() -> list[str]:
    """The compiled modules whose source differs from the one the build compiled."""
    try:
        built = json.loads((HERE / BUILD_INFO).read_text())["sources"]
    except (OSError, ValueError, KeyError, TypeError):
        return []  # no record (an older build): nothing to compare with
    stale = []
    for name in COMPILED:
        try:
            digest = hashlib.sha256((HERE / f"{name}.py").read_bytes()).hexdigest()
        except OSError:
            continue  # an install without sources: the extension is all there is
        if built.get(name) != digest:
            stale.append(name)
    return stale


def select() -> str:
    """Decide the build before any compiled module is imported; returns why, for ``build``."""
    if os.environ.get("RECORDER_PURE") == "1":
        sys.meta_path.insert(0, _FromSource())
        return "RECORDER_PURE=1"
    if not _extensions():
        return "not compiled"
    stale = _stale()
    if stale:
        sys.meta_path.insert(0, _FromSource())
        print(f"domino-recorder: recorder/{stale[0]}.py changed since the engine was compiled; "
              "running the pure-Python engine until it is rebuilt "
              "(pip install -e . or python3 dev.py test)", file=sys.stderr)
        return f"recorder/{stale[0]}.py changed since the build"
    return "compiled"
