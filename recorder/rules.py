"""Rulesets as data.

A :class:`Ruleset` is one frozen, validated record of every rule the engine
needs. The five presets of docs/rules.md are entries of :data:`PRESETS`; a log's
``options`` override a preset field by field, so a frontend with house rules
describes them without code. The vocabulary of options is :data:`OPTIONS`
(name -> allowed values and meaning); anything outside it, or options that
contradict each other, is refused with a :class:`RulesetError` that names it.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from recorder.errors import RulesetError

DRAW_POLICIES = ("until-playable", "one", "none")
OPENINGS = ("highest-double", "double-zero-first", "highest-tile", "free", "seat")
NO_DOUBLE = ("draw-for-double", "redeal", "highest-tile", "everyone-draws-for-double")
TIE_BREAKS = ("lot", "any")
SPINNER_ARMS = ("always", "after-sides")
DOMINO_SCORING = ("opponents-pips", "penalty", "all-pips")
BLOCKED_SCORING = ("lowest-wins", "fish", "negative", "difference", "lowest-takes-all")
TARGET_MODES = ("reach-wins", "reach-loses")
TARGET_CHECKS = ("round", "play")
DOUBLE_OPENINGS = ("highest-double", "double-zero-first")
#: fields for house rules of other engines; ``describe`` lists them only when they are on
HOUSE_RULES = ("hands", "target_check", "double_order", "spinner_max_arms", "closed_doubles",
               "pips_decide", "tie_pot")
MAX_PIPS = (6, 9, 12)


@dataclass(frozen=True, slots=True)
class Option:
    """One word of the options vocabulary: its type, allowed values and meaning."""

    kind: str  # "bool", "int", "choice", "per-players-int", "per-players-choice", "pips"
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None


OPTIONS: dict[str, Option] = {
    "target": Option("int", "score that ends the game (see target_mode)", minimum=1,
                     maximum=1_000_000),
    "target_mode": Option("choice", "reaching the target wins (reach-wins) or loses "
                          "(reach-loses, kozel)", TARGET_MODES),
    "target_check": Option("choice", "when the target is checked: when a round ends (round), "
                           "or also after every scoring play (play: the game ends at once, "
                           "mid-round)", TARGET_CHECKS),
    "hands": Option("int", "a match of exactly this many rounds (hands), whatever the "
                    "scores; the target is not used; equal scores: no winner", minimum=1,
                    maximum=1000),
    "bonus": Option("bool", "a play that makes the open-end sum a positive multiple of "
                    "bonus_multiple scores that sum at once"),
    "bonus_multiple": Option("int", "the multiple that scores a bonus (5)", minimum=1,
                             maximum=100),
    "sets": Option("int", "number of tile sets shuffled together (1 or 2)", minimum=1,
                   maximum=2),
    "max_pip": Option("int", "highest pip: 6 (double-six), 9 (double-nine) or 12 "
                      "(double-twelve)", minimum=6, maximum=12),
    "hand_size": Option("per-players-int", "tiles dealt to each player: a number, or an "
                        'object by player count like {"2": 7, "3": 5, "4": 5}', minimum=1,
                        maximum=91),
    "draw": Option("choice", "what a player who cannot play does: draw until a tile fits "
                   "(until-playable), draw one tile and pass if it does not fit (one), or "
                   "pass (none)", DRAW_POLICIES),
    "stock_floor": Option("int", "no drawing while the boneyard holds this many tiles or "
                          "fewer (norwegian: 2)", minimum=0, maximum=90),
    "opening": Option("per-players-choice", "who opens and with what: highest-double, "
                      "double-zero-first (0-0, else the highest double), highest-tile, free "
                      "(anyone, any tile), or seat (seat 0, or the round's opener, with any "
                      "tile); a value, or an object by player count",
                      OPENINGS),
    "double_order": Option("pips", "the order in which the doubles are looked for by "
                           "highest-double, as a list of every pip value once, like "
                           "[5, 1, 2, 3, 4, 6, 0]; default: highest first", minimum=0,
                           maximum=12),
    "no_double": Option("choice", "when the opening needs a double and nobody holds one: "
                        "draw-for-double (draw in turn until someone draws one), redeal, "
                        "highest-tile, or everyone-draws-for-double (each player draws one "
                        "tile, then the doubles are looked for, until one is held)",
                        NO_DOUBLE),
    "tie_break": Option("choice", "several players hold the opening tile (two sets): lot "
                        "(drawn from the seed's stream) or any (any of them may open)",
                        TIE_BREAKS),
    "spinner": Option("bool", "the opening double is a spinner, playable on four sides"),
    "spinner_arms": Option("choice", "when the spinner's up and down sides open: always, or "
                           "after-sides (once both left and right are covered)",
                           SPINNER_ARMS),
    "spinner_max_arms": Option("int", "how many sides of the spinner may take a tile: 4, or 3 "
                               "(the last side closes once three are covered)", minimum=3,
                               maximum=4),
    "closed_doubles": Option("bool", "once the spinner has two arms, a double may be played "
                             'crosswise and closed (a move with "closed": true): it ends its '
                             "arm and still counts both halves"),
    "domino_scoring": Option("choice", "a player goes out: opponents-pips (the winner scores "
                             "the opponents' pips left), penalty (winner 0, every other "
                             "player adds their own pips left) or all-pips (the winning side "
                             "scores every other hand's pips, the partner's included)",
                             DOMINO_SCORING),
    "blocked_scoring": Option("choice", "a blocked round: lowest-wins (lowest pips left wins "
                              "the others' pips, ties split), fish (the last player to play "
                              "scores 0, the others add their own pips), negative (everyone "
                              "scores minus their own pips), difference (lowest wins the "
                              "difference), lowest-takes-all (the lowest side scores every "
                              "side's pips, its own included; all equal: nobody scores)",
                              BLOCKED_SCORING),
    "pips_decide": Option("bool", "every round, domino or blocked, goes to the lowest pips "
                          "left (team total in partnerships), which scores the other sides' "
                          "pips; a tie for the lowest: nobody scores"),
    "tie_pot": Option("bool", "with pips_decide: the pips of a tied round score nothing now "
                      "and go to the winner of the next round that has one"),
    "partnerships": Option("bool", "four players in two teams (seats 0+2 and 1+3) that score "
                           "together"),
}


@dataclass(frozen=True, slots=True)
class Ruleset:
    """Every rule of one variant. Presets are instances; options are field overrides."""

    preset: str
    min_players: int
    max_players: int
    hand_size: tuple[tuple[int, int], ...]  # (players, tiles each)
    opening: tuple[tuple[int, str], ...]  # (players, opening rule); players 0 = default
    no_double: str
    draw: str = "until-playable"
    stock_floor: int = 0
    tie_break: str = "lot"
    spinner: bool = False
    spinner_arms: str = "always"
    bonus: bool = False
    bonus_multiple: int = 5
    domino_scoring: str = "opponents-pips"
    blocked_scoring: str = "lowest-wins"
    target: int = 100
    target_mode: str = "reach-wins"
    sets: int = 1
    max_pip: int = 6
    partnerships: bool = False
    # house rules of other engines; their defaults are the rules above unchanged
    hands: int = 0  # 0: play to the target
    target_check: str = "round"
    double_order: tuple[int, ...] = ()  # () : highest double first
    spinner_max_arms: int = 4
    closed_doubles: bool = False
    pips_decide: bool = False
    tie_pot: bool = False
    options: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    _two_set_hands: tuple[tuple[int, int], ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        self._validate()

    # ------------------------------------------------------------------ building
    @classmethod
    def from_spec(cls, spec: object) -> Ruleset:
        """A ruleset from a log's ``ruleset`` field: a preset name or {preset, options}."""
        if isinstance(spec, str):
            return find(spec)
        if not isinstance(spec, Mapping):
            raise RulesetError(
                'the ruleset is a preset name or {"preset": ..., "options": {...}}, '
                f"not {type(spec).__name__}",
                pointer="/ruleset",
            )
        unknown = set(spec) - {"preset", "options"}
        if unknown:
            raise RulesetError(
                f"the ruleset has unknown keys {sorted(unknown)}; it takes preset and options",
                pointer="/ruleset",
            )
        if "preset" not in spec:
            raise RulesetError("the ruleset needs a preset", pointer="/ruleset")
        base = find(spec["preset"])
        options = spec.get("options", {})
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise RulesetError("ruleset options must be an object", pointer="/ruleset/options")
        key = _options_key(spec["preset"], options)
        known = _BY_OPTIONS.get(key) if key is not None else None
        if known is not None:
            return known
        ruleset = base.with_options(options)
        if key is not None:
            if len(_BY_OPTIONS) >= 256:
                _BY_OPTIONS.clear()
            _BY_OPTIONS[key] = ruleset
        return ruleset

    def with_options(self, options: Mapping[str, Any]) -> Ruleset:
        """This ruleset with ``options`` applied; each is checked against :data:`OPTIONS`.

        An option set to null is the same as an option left out, as for every optional
        field of a log.
        """
        options = {name: value for name, value in options.items() if value is not None}
        changes: dict[str, Any] = {}
        for name, value in options.items():
            opt = OPTIONS.get(name)
            pointer = f"/ruleset/options/{name}"
            if opt is None:
                close = difflib.get_close_matches(str(name), OPTIONS, n=1)
                hint = f' (did you mean "{close[0]}"?)' if close else ""
                raise RulesetError(
                    f'unknown option "{name}" for {self.preset}{hint}; known options: '
                    + ", ".join(sorted(OPTIONS)),
                    pointer=pointer,
                )
            changes[name] = _coerce(name, opt, value, pointer)
        if "max_pip" in changes and changes["max_pip"] not in MAX_PIPS:
            raise RulesetError(
                f"option max_pip is 6, 9 or 12, not {changes['max_pip']}",
                pointer="/ruleset/options/max_pip",
            )
        if "hand_size" not in changes and changes.get("sets") == 2 and self._two_set_hands:
            changes["hand_size"] = self._two_set_hands
        merged = dict(self.options)
        merged.update(options)
        try:
            rules = replace(self, options=tuple(sorted(merged.items())), **changes)
        except RulesetError as exc:
            if exc.pointer is None:
                exc.pointer = "/ruleset/options"
            raise
        rules._check_given(merged)
        _refuse_idle_options(rules, options)
        return rules

    def _check_given(self, given: Mapping[str, Any]) -> None:
        """Refuse options that a rule set in the same ruleset makes meaningless.

        These depend on what the log wrote, not only on the fields: a preset may
        carry a target that ``hands`` ignores, but a log may not ask for both.
        """
        def refuse(name: str, why: str) -> RulesetError:
            return RulesetError(f"option {name} {why}", pointer=f"/ruleset/options/{name}")

        if self.hands and "target" in given:
            raise refuse("target", f"has no effect: the match is {self.hands} hands "
                         "(option hands), whatever the scores")
        if self.pips_decide:
            for name in ("domino_scoring", "blocked_scoring"):
                if name in given:
                    raise refuse(name, "contradicts pips_decide: every round goes to the "
                                 "lowest pips left")

    # ------------------------------------------------------------------ queries
    def tiles_each(self, players: int) -> int:
        for n, size in self.hand_size:
            if n == players:
                return size
        for n, size in self.hand_size:
            if n == 0:
                return size
        raise RulesetError(f"{self.preset} says no hand size for {players} players")

    def opening_for(self, players: int) -> str:
        default = "highest-double"
        for n, rule in self.opening:
            if n == players:
                return rule
            if n == 0:
                default = rule
        return default

    def sides(self, players: int) -> list[list[int]]:
        """Who scores together: teams of two in partnerships, else each player alone."""
        if self.partnerships:
            return [[0, 2], [1, 3]]
        return [[p] for p in range(players)]

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            span = (
                f"{self.min_players}" if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise RulesetError(
                f"{self.preset} is played by {span} players, not {players}", pointer="/players"
            )
        if self.partnerships and players != 4:
            raise RulesetError(
                f"partnerships need exactly 4 players, not {players}", pointer="/players"
            )
        from recorder.tiles import tile_set  # local: rules stay importable on their own

        total = tile_set(self.max_pip, self.sets).size
        each = self.tiles_each(players)
        if each * players > total:
            raise RulesetError(
                f"{players} players x {each} tiles is more than the {total} tiles of the set",
                pointer="/ruleset",
            )

    def describe(self) -> dict[str, Any]:
        """Every rule as plain JSON: what the docs and the UI show.

        An engine's house rule that is left off is not listed (the classic rule
        applies); :meth:`to_json` lists every field.
        """
        out: dict[str, Any] = {}
        for f in fields(self):
            if f.name.startswith("_") or f.name == "options":
                continue
            value = getattr(self, f.name)
            if f.name in HOUSE_RULES and value == f.default:
                continue  # an engine's house rule left off: the classic rule applies
            out[f.name] = _plain(f.name, value)
        return out

    def to_json(self) -> dict[str, Any]:
        """Every field of the ruleset as plain JSON, house rules included.

        What a frontend in another language resolves a log's ruleset to (the
        rulesets file, ``recorder rules PRESET --json``, ``resolveRules`` of
        clients/js): the same keys as :meth:`describe`, none left out.
        """
        return {f.name: _plain(f.name, getattr(self, f.name)) for f in fields(self)
                if not f.name.startswith("_") and f.name != "options"}

    # ------------------------------------------------------------------ checks
    def _validate_house_rules(self) -> None:
        rules = {rule for _, rule in self.opening}
        if self.double_order:
            if sorted(self.double_order) != list(range(self.max_pip + 1)):
                raise RulesetError(
                    f"double_order lists every pip value from 0 to {self.max_pip} once, not "
                    f"{list(self.double_order)}"
                )
            other = sorted(rules - {"highest-double"})
            if other:
                raise RulesetError("double_order is the order of the highest-double opening; "
                                   f"it contradicts the opening {other[0]}")
        if self.spinner_max_arms != 4 and not self.spinner:
            raise RulesetError("spinner_max_arms needs a spinner (option spinner)")
        if self.closed_doubles and not self.spinner:
            raise RulesetError("closed_doubles needs a spinner (option spinner): a double is "
                               "closed once the spinner has two arms")
        if self.tie_pot and not self.pips_decide:
            raise RulesetError("tie_pot needs pips_decide: the pot holds the pips of a round "
                               "that pips tie")
        if self.target_check == "play":
            if self.target_mode != "reach-wins":
                raise RulesetError("target_check play ends the game when a play reaches the "
                                   "target, so it needs target_mode reach-wins")
            if self.hands:
                raise RulesetError("target_check play contradicts hands: a match of a fixed "
                                   "number of hands does not use the target")

    def _validate(self) -> None:
        if self.sets not in (1, 2):
            raise RulesetError(f"sets is 1 or 2, not {self.sets}")
        if self.max_pip not in MAX_PIPS:
            raise RulesetError(f"max_pip is 6, 9 or 12, not {self.max_pip}")
        if self.spinner:
            double_openings = {"highest-double", "double-zero-first"}
            rules = {rule for _, rule in self.opening}
            if not rules <= double_openings or self.no_double == "highest-tile":
                raise RulesetError(
                    "a spinner needs a double to open every round: use an opening of "
                    "highest-double or double-zero-first with no_double draw-for-double or "
                    "redeal"
                )
        self._validate_house_rules()
        if self.partnerships and self.max_players < 4:
            raise RulesetError(f"partnerships need 4 players; {self.preset} allows at most "
                               f"{self.max_players}")
        for n, size in self.hand_size:
            if size < 1:
                raise RulesetError(f"hand size for {n} players must be at least 1")


_IDLE_UNLESS: dict[str, tuple[str, str]] = {
    "spinner_arms": ("spinner", "it says when a spinner's up and down sides open"),
    "bonus_multiple": ("bonus", "it sets which open-end sums score a bonus"),
}
"""Options that mean something only when another one is on: (that option, what it does)."""


def _refuse_idle_options(rules: Ruleset, given: Mapping[str, Any]) -> None:
    """Refuse an option that would change nothing under ``rules``.

    A log that sets ``bonus_multiple`` without ``bonus`` was most likely meant to score
    bonuses; replaying it silently without them would hide the frontend's mistake.
    """
    for name, (needs, does) in _IDLE_UNLESS.items():
        if name in given and not getattr(rules, needs):
            raise RulesetError(
                f"option {name} changes nothing here: {does}, and {rules.preset} is played "
                f"without {needs} in this log; set {needs} to true, or remove {name}",
                pointer=f"/ruleset/options/{name}",
            )


def _coerce(name: str, opt: Option, value: Any, pointer: str) -> Any:
    """Check one option value and turn it into the Ruleset field's type."""

    def bad(expected: str) -> RulesetError:
        shown = repr(value)
        if len(shown) > 40:
            shown = shown[:40] + "..."
        return RulesetError(f"option {name} must be {expected}, not {shown}", pointer=pointer)

    def int_value(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int):
            raise bad("a whole number")
        if (opt.minimum is not None and v < opt.minimum) or (
            opt.maximum is not None and v > opt.maximum
        ):
            raise bad(f"a whole number from {opt.minimum} to {opt.maximum}")
        return v

    def choice(v: Any) -> str:
        if v not in opt.choices:
            raise bad("one of " + ", ".join(opt.choices))
        return str(v)

    def per_players(v: Any, one: Any) -> tuple[tuple[int, Any], ...]:
        if isinstance(v, Mapping):
            out = []
            for key, item in v.items():
                if key == "default":
                    n = 0
                else:
                    try:
                        n = int(key)
                    except (TypeError, ValueError):
                        raise bad('an object keyed by player count ("2", "3", "4")') from None
                    if not 1 <= n <= 8:
                        raise bad('an object keyed by player count ("2", "3", "4")')
                out.append((n, one(item)))
            return tuple(sorted(out))
        return ((0, one(v)),)

    if opt.kind == "bool":
        if not isinstance(value, bool):
            raise bad("true or false")
        return value
    if opt.kind == "int":
        return int_value(value)
    if opt.kind == "choice":
        return choice(value)
    if opt.kind == "per-players-int":
        return per_players(value, int_value)
    if opt.kind == "per-players-choice":
        return per_players(value, choice)
    if opt.kind == "pips":
        if not isinstance(value, list) or not value:
            raise bad("a list of pip values, like [5, 1, 2, 3, 4, 6, 0]")
        pips = tuple(int_value(v) for v in value)
        if len(set(pips)) != len(pips):
            raise bad("a list of pip values, each once")
        return pips
    raise AssertionError(opt.kind)


def _plain(name: str, value: Any) -> Any:
    """A field's value as JSON: a table by player count as an object, a tuple as a list."""
    if name in ("hand_size", "opening", "_two_set_hands"):
        return {str(n) if n else "default": v for n, v in value}
    if name == "double_order":
        return list(value)
    return value


def _hands(**by_players: int) -> tuple[tuple[int, int], ...]:
    return tuple(sorted((int(k[1:]), v) for k, v in by_players.items()))


PRESETS: dict[str, Ruleset] = {
    "spilop": Ruleset(
        preset="spilop", min_players=2, max_players=4,
        hand_size=_hands(p2=7, p3=7, p4=5), _two_set_hands=_hands(p2=7, p3=7, p4=7),
        opening=((0, "highest-double"),), no_double="draw-for-double",
        spinner=True, spinner_arms="always",
        domino_scoring="opponents-pips", blocked_scoring="lowest-wins", target=100,
    ),
    "classic": Ruleset(
        preset="classic", min_players=2, max_players=4,
        hand_size=_hands(p2=7, p3=5, p4=5),
        opening=((0, "highest-double"),), no_double="redeal",
        domino_scoring="opponents-pips", blocked_scoring="lowest-wins", target=100,
    ),
    "kozel": Ruleset(
        preset="kozel", min_players=2, max_players=4,
        hand_size=_hands(p2=7, p3=7, p4=7),
        opening=((0, "double-zero-first"),), no_double="highest-tile",
        domino_scoring="penalty", blocked_scoring="fish",
        target=101, target_mode="reach-loses",
    ),
    "italian": Ruleset(
        preset="italian", min_players=2, max_players=4,
        hand_size=_hands(p2=7, p3=7, p4=7),
        opening=((0, "free"), (4, "highest-double")), no_double="highest-tile",
        draw="one",
        domino_scoring="opponents-pips", blocked_scoring="negative", target=100,
    ),
    "norwegian": Ruleset(
        preset="norwegian", min_players=2, max_players=2,
        hand_size=_hands(p2=7),
        opening=((0, "highest-double"),), no_double="highest-tile",
        stock_floor=2,
        domino_scoring="opponents-pips", blocked_scoring="difference", target=100,
    ),
    # the rules of engines that people already use, so their games record faithfully
    "openspiel-block": Ruleset(
        preset="openspiel-block", min_players=2, max_players=2,
        hand_size=_hands(p2=7), opening=((0, "seat"),), no_double="highest-tile",
        draw="none", pips_decide=True, hands=1,
    ),
    "openspiel-team": Ruleset(
        preset="openspiel-team", min_players=4, max_players=4,
        hand_size=_hands(p4=7), opening=((0, "seat"),), no_double="highest-tile",
        draw="none", partnerships=True, pips_decide=True, hands=1,
    ),
    "dominoes-partners": Ruleset(
        preset="dominoes-partners", min_players=4, max_players=4,
        hand_size=_hands(p4=7), opening=((0, "seat"),), no_double="highest-tile",
        draw="none", partnerships=True, domino_scoring="all-pips",
        blocked_scoring="lowest-takes-all", target=200,
    ),
    "all-fives": Ruleset(
        preset="all-fives", min_players=2, max_players=2,
        hand_size=_hands(p2=7), opening=((0, "highest-double"),),
        double_order=(5, 1, 2, 3, 4, 6, 0), no_double="everyone-draws-for-double",
        spinner=True, spinner_arms="after-sides", spinner_max_arms=3, closed_doubles=True,
        stock_floor=1, bonus=True, bonus_multiple=5, pips_decide=True, tie_pot=True,
        target=305, target_check="play",
    ),
}


#: rulesets already built from {preset, options}: a batch of one frontend's games repeats
#: the same few, and checking options costs more than replaying a short round
_BY_OPTIONS: Final[dict[tuple[object, ...], Ruleset]] = {}


def _options_key(preset: object, options: Mapping[str, Any]) -> tuple[object, ...] | None:
    """A key that tells apart every accepted spelling (``True`` from ``1``); None: don't cache."""
    if type(preset) is not str:
        return None
    key: list[object] = [preset]
    for name, value in options.items():
        kind = type(value)
        if type(name) is not str:
            return None
        if kind is list:
            if not all(type(x) is int for x in value):
                return None
            value = tuple(value)
        elif kind is not str and kind is not int and kind is not bool and kind is not float:
            return None
        key.append((name, kind.__name__, value))
    return tuple(key)


def find(name: object) -> Ruleset:
    """The preset called ``name``, or an error that names it and lists the presets."""
    preset = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        close = difflib.get_close_matches(str(name), PRESETS, n=1)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        raise RulesetError(
            f'unknown preset "{name}"{hint}; presets: ' + ", ".join(PRESETS),
            pointer="/ruleset",
        )
    return preset


# ---------------------------------------------------------------------- as data
RULESETS_FORMAT: Final = "domino-rulesets/1"
RULESETS_NAME: Final = "rulesets-1.json"
"""The rulesets file: ``schemas/rulesets-1.json`` (shipped in the package as
``recorder.schemas``) and ``clients/js/rulesets.json``, both written by
``recorder rules --json`` and held to it by tests/test_rulesets_data.py."""


def rulesets_document() -> dict[str, Any]:
    """Every preset, the options vocabulary and how options resolve, as one JSON document.

    This module stays the source of truth; the document is what other languages read
    (clients/js resolves rulesets from it), so that no frontend copies the rules table
    by hand and drifts from it.
    """
    presets: dict[str, Any] = {}
    for name, rules in PRESETS.items():
        entry = rules.to_json()
        if rules._two_set_hands:
            entry["two_set_hand_size"] = _plain("_two_set_hands", rules._two_set_hands)
        presets[name] = entry
    options: dict[str, Any] = {}
    for name, opt in OPTIONS.items():
        word: dict[str, Any] = {"kind": opt.kind}
        if opt.choices:
            word["values"] = list(opt.choices)
        if opt.minimum is not None:
            word["minimum"] = opt.minimum
        if opt.maximum is not None:
            word["maximum"] = opt.maximum
        word["help"] = opt.help
        options[name] = word
    return {
        "format": RULESETS_FORMAT,
        "about": (
            "The rulesets of domino-log/1, written by `recorder rules --json` from the "
            "recorder's engine. A log's ruleset is a preset name or {preset, options}: "
            "each option overrides the preset's field of the same name, and an option set "
            "to null is the same as one left out. hand_size and opening are tables by "
            'player count, "default" standing for the counts not listed; an option may '
            "give a table or one value for every count. With sets 2 and no hand_size, "
            "hand_size is the preset's two_set_hand_size. An option listed in requires "
            "changes nothing unless the option it names is on, and is refused then. "
            "docs/rules.md lists the options that contradict each other, which are refused."
        ),
        "max_pips": list(MAX_PIPS),
        "options": options,
        "requires": {name: {"option": needs, "does": does}
                     for name, (needs, does) in _IDLE_UNLESS.items()},
        "presets": presets,
    }


def rulesets_json() -> str:
    """:func:`rulesets_document` as the text of the rulesets file (the bytes it holds)."""
    import json

    return json.dumps(rulesets_document(), indent=2, ensure_ascii=False) + "\n"
