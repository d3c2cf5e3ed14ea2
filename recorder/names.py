"""Names: the one normal form of a frontend's name and of a game id.

A game is known by its frontend's name and its ``game_id``, and a frontend's name binds
an upload token to the games it may send. Two spellings that a person cannot tell apart
must therefore be one name, and a name must not be able to show something it is not.
This module says which strings are acceptable names and what each one's normal form is;
the schema (``schemas/domino-log-1.schema.json``) refuses the same strings with the same
pattern, and docs/format.md explains the rules to frontend developers.

**Refused** (the log is refused, with a message that names the character and its place):

* control characters (U+0000-U+001F, U+007F-U+009F): tabs, newlines, escape sequences;
* characters that change how text is shown without being seen: the bidirectional
  controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069: U+202E shows
  ``"ppa-mitciv"`` as ``"victim-app"``), zero-width and joining characters (U+200B-U+200D,
  U+2060-U+2064, U+FEFF), the soft hyphen (U+00AD), the line and paragraph separators
  (U+2028, U+2029), the interlinear annotation marks (U+FFF9-U+FFFB) and the other
  invisible "default ignorable" characters of the Basic Multilingual Plane (U+034F,
  U+115F, U+1160, U+17B4, U+17B5, U+180B-U+180F, U+206A-U+206F, U+3164, U+FFA0,
  U+FFF0-U+FFF8);
* a name with nothing but spaces (or nothing at all).

**Normal form** of an acceptable name, what the recorder stores, compares and hashes:

1. Unicode NFKC: compatibility look-alikes become their plain letters and digits
   (fullwidth ``\uff47`` is ``g``, the ligature ``ﬁ`` is ``fi``, superscript ``²`` is ``2``,
   the non-breaking hyphen U+2011 is the hyphen U+2010), composed and decomposed accents
   are one (``é``);
2. the dashes that look like a hyphen (U+2010-U+2015, U+2043, U+2212 minus, U+02D7,
   U+058A, U+1806, U+2E3A, U+2E3B) are ``-``, the apostrophes that look like one (U+2018,
   U+2019, U+201B, U+2032, U+02B9, U+02BC) are ``'``, every space (Unicode's space
   separators) is `` ``; variation selectors and the invisible characters beyond the Basic
   Multilingual Plane (U+1BCA0-U+1BCA3, U+1D173-U+1D17A, U+E0000-U+E0FFF), which a schema
   pattern cannot name portably, are dropped;
3. spaces at either end are trimmed and a run of spaces is one (a page shows them so); a
   name of nothing but dropped characters is kept as written (its normal form may not be
   the empty name, which is refused);
4. a frontend's name is also case-folded (``Spilop-App`` is ``spilop-app``): it names a
   program, and two programs whose names differ by case alone would be told apart by
   nobody. A game id keeps its case: ids such as base64 text differ by case alone.

Letters of different scripts that look alike (Latin ``a`` and Cyrillic ``\u0430``) are not
folded: they are different letters, and folding them would merge different names. What
keeps a stranger from sending games under another frontend's name is the token, which is
bound to one frontend's name (``recorder.tokens``), not the shape of the name.

The tables here are written out rather than read from ``unicodedata``'s categories, so
that a stored normal form, and the content hash taken of it, does not move with the
Unicode version of the Python that runs the recorder. NFKC and case folding themselves
are stable for assigned characters (Unicode's stability policies).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

__all__ = [
    "REFUSED_CLASS",
    "frontend_key",
    "game_id_key",
    "name_pattern",
    "problem",
]

REFUSED_CLASS: Final = (
    "\\u0000-\\u001f\\u007f-\\u009f\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5"
    "\\u180b-\\u180f\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufeff\\uffa0"
    "\\ufff0-\\ufffb"
)
"""The refused characters as the inside of a regular-expression class, written with
``\\uXXXX`` escapes that ECMAScript and Python read alike (the schema's pattern)."""

BLANK_CLASS: Final = "\\u0020\\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000"
"""Unicode's space separators: a name made of these only is empty to the eye."""


def name_pattern() -> str:
    """The schema's pattern for a name: no refused character, and one that is not a space."""
    return (f"^[^{REFUSED_CLASS}]*[^{REFUSED_CLASS}{BLANK_CLASS}][^{REFUSED_CLASS}]*$")


_REFUSED: Final = re.compile(f"[{REFUSED_CLASS}]")
_NOT_BLANK: Final = re.compile(f"[^{BLANK_CLASS}]")
_ACCEPTABLE: Final = re.compile(name_pattern()[:-1] + r"\Z")

_DASHES: Final = "\u2010\u2011\u2012\u2013\u2014\u2015\u2043\u2212\u02d7\u058a\u1806\u2e3a\u2e3b"
_APOSTROPHES: Final = "\u2018\u2019\u201b\u2032\u02b9\u02bc"
_FOLD: Final = str.maketrans(
    {**dict.fromkeys(map(ord, _DASHES), "-"), **dict.fromkeys(map(ord, _APOSTROPHES), "'")}
)
_DROPPED: Final = re.compile(
    "[\ufe00-\ufe0f\U000e0100-\U000e01ef\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0000-\U000e0fff]"
)
_SPACES: Final = re.compile(f"[{BLANK_CLASS}]+")

_CHARACTER_NAMES: Final = {
    "\t": "a tab", "\n": "a line break", "\r": "a carriage return", "\x1b": "an escape",
    "\u202e": "a right-to-left override", "\u202d": "a left-to-right override",
    "\u202a": "a left-to-right embedding", "\u202b": "a right-to-left embedding",
    "\u202c": "a pop directional formatting", "\u2066": "a left-to-right isolate",
    "\u2067": "a right-to-left isolate", "\u2068": "a first strong isolate",
    "\u2069": "a pop directional isolate", "\u200e": "a left-to-right mark",
    "\u200f": "a right-to-left mark", "\u061c": "an Arabic letter mark",
    "\u200b": "a zero-width space", "\u200c": "a zero-width non-joiner",
    "\u200d": "a zero-width joiner", "\u2060": "a word joiner", "\ufeff": "a byte order mark",
    "\u00ad": "a soft hyphen", "\u2028": "a line separator", "\u2029": "a paragraph separator",
}


def acceptable(text: str) -> bool:
    """Whether ``text`` may be a frontend's name or a game id (see the module doc)."""
    return _ACCEPTABLE.match(text) is not None


def problem(text: str) -> str | None:
    """Why ``text`` may not be a name, in words for the frontend developer; None if it may."""
    if acceptable(text):
        return None
    bad = _REFUSED.search(text)
    if bad is not None:
        char = bad.group()
        what = _CHARACTER_NAMES.get(char)
        if what is None:
            kind = "a control character" if ord(char) < 0xA0 else "an invisible character"
            what = f"{kind} ({unicodedata.name(char, 'unnamed')})" if ord(char) >= 0xA0 \
                else kind
        return (f"holds {what}, U+{ord(char):04X}, at character {bad.start() + 1}: names may "
                "hold no control characters and no characters that change how text is shown "
                "without being seen (such as bidirectional overrides)")
    if not text:
        return "is empty"
    return "holds only spaces"


def _normal(text: str) -> str:
    if text.isascii() and text.strip(" ") == text and "  " not in text:
        return text  # the usual name: already its own normal form (controls are refused)
    folded = unicodedata.normalize("NFKC", text).translate(_FOLD)
    folded = _DROPPED.sub("", folded)
    folded = _SPACES.sub(" ", folded).strip(" ")
    # a name of nothing but dropped characters keeps them: an empty normal form would be
    # the empty name, which is refused, and must stay another name than any accepted one
    return unicodedata.normalize("NFKC", folded) if folded else text


def game_id_key(text: str) -> str:
    """The normal form of an acceptable game id (its case kept)."""
    return _normal(text)


def frontend_key(text: str) -> str:
    """The normal form of an acceptable frontend name: also case-folded."""
    return _normal(_normal(text).casefold())


def quoted(text: str) -> str:
    """``text`` quoted for a message, every refused or non-printing character escaped,
    so that the message itself cannot be shown reversed or hide a part."""
    out = []
    for char in text[:60]:
        if _REFUSED.match(char) or (not char.isprintable() and char != " "):
            out.append(f"\\u{ord(char):04x}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08x}")
        elif char in '"\\':
            out.append("\\" + char)
        else:
            out.append(char)
    return '"' + "".join(out) + ('..."' if len(text) > 60 else '"')
