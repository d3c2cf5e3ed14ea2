"""The domino replay recorder: log format, replay engine, storage and analytics.

The data flow, one module a step: ``parse`` (bytes to documents) -> ``schema``
(shape) -> ``replay`` (the pure engine in ``engine`` over a ``rules.Ruleset``) ->
``storage`` (sqlite-utils) -> ``analysis`` (facts for the statistics) -> ``webui``.
"""

from recorder import _core

__version__ = "0.1.0"
FORMAT = "domino-log/1"

_WHY = _core.select()


def build() -> str:
    """``"compiled"`` or ``"pure"``: which build of the engine this process runs, and why.

    Asked of the engine module itself, so it reports what was really imported.
    """
    from importlib.machinery import EXTENSION_SUFFIXES

    from recorder import engine

    compiled = any(str(engine.__file__).endswith(s) for s in EXTENSION_SUFFIXES)
    return "compiled" if compiled else "pure"


def build_text() -> str:
    """One line for ``recorder --version`` and the service's start."""
    if build() == "compiled":
        return "engine: compiled with mypyc"
    why = "" if _WHY in ("compiled", "not compiled") else f" ({_WHY})"
    return f"engine: pure Python{why}"
