// Rulesets as the recorder resolves them, from the recorder's own data: rulesets.json is
// written by `recorder rules --json` from the engine (the recorder's tests hold the file
// to it), so the presets, the options vocabulary and what the options need are never
// copied by hand. resolveRules checks a log's ruleset as the recorder does, with the
// recorder's words, and gives every rule of it (camelCase: stockFloor, targetMode, ...).

import RULESETS from "./rulesets.json" with { type: "json" };
import { closeMatches, isMapping, repr, str, typeName } from "./words.js";

export { RULESETS };

/** A ruleset the recorder would refuse: an unknown preset or option, a wrong value, a contradiction. */
export class RulesetError extends Error {
  constructor(message, pointer = null) {
    super(message);
    this.name = "RulesetError";
    this.code = "ruleset/invalid";
    this.pointer = pointer;
  }
}

const camel = (name) => name.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
const SET_SIZE = (maxPip, sets) => (((maxPip + 1) * (maxPip + 2)) / 2) * sets;
const DOUBLE_OPENINGS = new Set(["highest-double", "double-zero-first"]);
const OPTION_NAMES = Object.keys(RULESETS.options);
const FIELDS = Object.keys(RULESETS.presets.spilop).filter((f) => f !== "two_set_hand_size");

/** The options vocabulary: name -> {kind, values?, minimum?, maximum?, help}. */
export const OPTIONS = RULESETS.options;

function byPlayers(table) {
  // [[players, value], ...] sorted as the recorder sorts them; 0 stands for "default"
  return Object.entries(table).map(([k, v]) => [k === "default" ? 0 : Number(k), v])
    .sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
}

function table(pairs) {
  const out = {};
  for (const [n, v] of pairs) out[n ? String(n) : "default"] = v;
  return Object.freeze(out);
}

/** Every rule of one ruleset, resolved: a preset with a log's options applied. */
export class Rules {
  constructor(fields, { options = {}, twoSetHands = [] } = {}) {
    for (const name of FIELDS) {
      const value = fields[name];
      if (name === "hand_size" || name === "opening") {
        Object.defineProperty(this, `_${name}`, { value: value, enumerable: false });
        this[camel(name)] = table(value);
      } else {
        this[camel(name)] = Array.isArray(value) ? Object.freeze([...value]) : value;
      }
    }
    /** The options the log gave (null ones left out), as it wrote them. */
    this.options = Object.freeze({ ...options });
    Object.defineProperty(this, "_twoSetHands", { value: twoSetHands, enumerable: false });
    validate(this);
    Object.freeze(this);
  }

  /** Tiles dealt to each of `players` players. */
  tilesEach(players) {
    for (const [n, size] of this._hand_size) if (n === players) return size;
    for (const [n, size] of this._hand_size) if (n === 0) return size;
    throw new RulesetError(`${this.preset} says no hand size for ${players} players`);
  }

  /** Who opens with `players` players: highest-double, double-zero-first, highest-tile, free or seat. */
  openingFor(players) {
    let fallback = "highest-double";
    for (const [n, rule] of this._opening) {
      if (n === players) return rule;
      if (n === 0) fallback = rule;
    }
    return fallback;
  }

  /** Who scores together: [[0, 2], [1, 3]] in partnerships, else each seat alone. */
  sides(players) {
    if (this.partnerships) return [[0, 2], [1, 3]];
    return Array.from({ length: players }, (_, p) => [p]);
  }

  /** Throws RulesetError unless `players` may play these rules (as the recorder's match does). */
  checkPlayers(players) {
    if (!(this.minPlayers <= players && players <= this.maxPlayers)) {
      const span = this.minPlayers === this.maxPlayers ? `${this.minPlayers}` : `${this.minPlayers} to ${this.maxPlayers}`;
      throw new RulesetError(`${this.preset} is played by ${span} players, not ${repr(players)}`, "/players");
    }
    if (this.partnerships && players !== 4) {
      throw new RulesetError(`partnerships need exactly 4 players, not ${players}`, "/players");
    }
    const total = SET_SIZE(this.maxPip, this.sets);
    const each = this.tilesEach(players);
    if (each * players > total) {
      throw new RulesetError(`${players} players x ${each} tiles is more than the ${total} tiles of the set`, "/ruleset");
    }
  }

  /** Every rule as `recorder rules PRESET --json` prints it (the recorder's snake_case names). */
  toJSON() {
    const out = {};
    for (const name of FIELDS) {
      const value = this[camel(name)];
      out[name] = Array.isArray(value) ? [...value] : (typeof value === "object" ? { ...value } : value);
    }
    return out;
  }

  /** These rules with `options` applied, checked as the recorder checks a log's options. */
  withOptions(options) {
    const given = Object.entries(options).filter(([, v]) => v !== null && v !== undefined);
    const changes = {};
    for (const [name, value] of given) {
      const pointer = `/ruleset/options/${name}`;
      const opt = Object.hasOwn(RULESETS.options, name) ? RULESETS.options[name] : null;
      if (opt === null) {
        const close = closeMatches(name, OPTION_NAMES, 1);
        const hint = close.length ? ` (did you mean "${close[0]}"?)` : "";
        throw new RulesetError(`unknown option "${name}" for ${this.preset}${hint}; known options: ${[...OPTION_NAMES].sort().join(", ")}`, pointer);
      }
      changes[name] = coerce(name, opt, value, pointer);
    }
    if ("max_pip" in changes && !RULESETS.max_pips.includes(changes.max_pip)) {
      throw new RulesetError(`option max_pip is 6, 9 or 12, not ${changes.max_pip}`, "/ruleset/options/max_pip");
    }
    if (!("hand_size" in changes) && changes.sets === 2 && this._twoSetHands.length) {
      changes.hand_size = this._twoSetHands;
    }
    const merged = { ...this.options, ...Object.fromEntries(given) };
    const fields = this.fields();
    Object.assign(fields, changes);
    let rules;
    try {
      rules = new Rules(fields, { options: merged, twoSetHands: this._twoSetHands });
    } catch (err) {
      if (err instanceof RulesetError && err.pointer === null) err.pointer = "/ruleset/options";
      throw err;
    }
    checkGiven(rules, merged);
    refuseIdle(rules, Object.fromEntries(given));
    return rules;
  }

  fields() {
    const out = {};
    for (const name of FIELDS) {
      out[name] = name === "hand_size" || name === "opening" ? this[`_${name}`] : this[camel(name)];
    }
    return out;
  }
}

function validate(r) {
  if (r.sets !== 1 && r.sets !== 2) throw new RulesetError(`sets is 1 or 2, not ${r.sets}`);
  if (!RULESETS.max_pips.includes(r.maxPip)) throw new RulesetError(`max_pip is 6, 9 or 12, not ${r.maxPip}`);
  const openings = new Set(r._opening.map(([, rule]) => rule));
  if (r.spinner) {
    if (![...openings].every((o) => DOUBLE_OPENINGS.has(o)) || r.noDouble === "highest-tile") {
      throw new RulesetError("a spinner needs a double to open every round: use an opening of "
        + "highest-double or double-zero-first with no_double draw-for-double or redeal");
    }
  }
  if (r.doubleOrder.length) {
    const sorted = [...r.doubleOrder].sort((a, b) => a - b);
    if (sorted.length !== r.maxPip + 1 || sorted.some((v, i) => v !== i)) {
      throw new RulesetError(`double_order lists every pip value from 0 to ${r.maxPip} once, not ${repr([...r.doubleOrder])}`);
    }
    const other = [...openings].filter((o) => o !== "highest-double").sort();
    if (other.length) {
      throw new RulesetError(`double_order is the order of the highest-double opening; it contradicts the opening ${other[0]}`);
    }
  }
  if (r.spinnerMaxArms !== 4 && !r.spinner) throw new RulesetError("spinner_max_arms needs a spinner (option spinner)");
  if (r.closedDoubles && !r.spinner) {
    throw new RulesetError("closed_doubles needs a spinner (option spinner): a double is "
      + "closed once the spinner has two arms");
  }
  if (r.tiePot && !r.pipsDecide) {
    throw new RulesetError("tie_pot needs pips_decide: the pot holds the pips of a round that pips tie");
  }
  if (r.targetCheck === "play") {
    if (r.targetMode !== "reach-wins") {
      throw new RulesetError("target_check play ends the game when a play reaches the target, "
        + "so it needs target_mode reach-wins");
    }
    if (r.hands) {
      throw new RulesetError("target_check play contradicts hands: a match of a fixed number "
        + "of hands does not use the target");
    }
  }
  if (r.partnerships && r.maxPlayers < 4) {
    throw new RulesetError(`partnerships need 4 players; ${r.preset} allows at most ${r.maxPlayers}`);
  }
  for (const [n, size] of r._hand_size) {
    if (size < 1) throw new RulesetError(`hand size for ${n} players must be at least 1`);
  }
}

function checkGiven(r, given) {
  const refuse = (name, why) => new RulesetError(`option ${name} ${why}`, `/ruleset/options/${name}`);
  if (r.hands && "target" in given) {
    throw refuse("target", `has no effect: the match is ${r.hands} hands (option hands), whatever the scores`);
  }
  if (r.pipsDecide) {
    for (const name of ["domino_scoring", "blocked_scoring"]) {
      if (name in given) throw refuse(name, "contradicts pips_decide: every round goes to the lowest pips left");
    }
  }
}

function refuseIdle(r, given) {
  for (const [name, { option, does }] of Object.entries(RULESETS.requires)) {
    if (name in given && !r[camel(option)]) {
      throw new RulesetError(`option ${name} changes nothing here: ${does}, and ${r.preset} is played `
        + `without ${option} in this log; set ${option} to true, or remove ${name}`, `/ruleset/options/${name}`);
    }
  }
}

const INT_KEY = /^\s*[+-]?[0-9]+(?:_[0-9]+)*\s*$/;

function coerce(name, opt, value, pointer) {
  const bad = (expected) => {
    let shown = repr(value);
    const chars = Array.from(shown);
    if (chars.length > 40) shown = `${chars.slice(0, 40).join("")}...`;
    return new RulesetError(`option ${name} must be ${expected}, not ${shown}`, pointer);
  };
  const intValue = (v) => {
    if (typeof v !== "number" || !Number.isInteger(v) || Math.abs(v) >= 1e21) throw bad("a whole number");
    if ((opt.minimum !== undefined && v < opt.minimum) || (opt.maximum !== undefined && v > opt.maximum)) {
      throw bad(`a whole number from ${opt.minimum ?? "None"} to ${opt.maximum ?? "None"}`);
    }
    return v;
  };
  const choice = (v) => {
    if (!opt.values.includes(v)) throw bad(`one of ${opt.values.join(", ")}`);
    return v;
  };
  const perPlayers = (v, one) => {
    if (isMapping(v)) {
      const out = [];
      for (const [key, item] of Object.entries(v)) {
        if (item === undefined) continue;
        let n;
        if (key === "default") n = 0;
        else {
          if (!INT_KEY.test(key)) throw bad('an object keyed by player count ("2", "3", "4")');
          n = Number(key.trim().replaceAll("_", ""));
          if (!(n >= 1 && n <= 8)) throw bad('an object keyed by player count ("2", "3", "4")');
        }
        out.push([n, one(item)]);
      }
      return out.sort((x, y) => x[0] - y[0] || (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
    }
    return [[0, one(v)]];
  };
  switch (opt.kind) {
    case "bool":
      if (typeof value !== "boolean") throw bad("true or false");
      return value;
    case "int":
      return intValue(value);
    case "choice":
      return choice(value);
    case "per-players-int":
      return perPlayers(value, intValue);
    case "per-players-choice":
      return perPlayers(value, choice);
    case "pips": {
      if (!Array.isArray(value) || value.length === 0) throw bad("a list of pip values, like [5, 1, 2, 3, 4, 6, 0]");
      const pips = value.map(intValue);
      if (new Set(pips).size !== pips.length) throw bad("a list of pip values, each once");
      return pips;
    }
    default:
      throw new Error(`unknown option kind ${opt.kind}`);
  }
}

function presetRules(name) {
  const { two_set_hand_size: twoSet, ...fields } = RULESETS.presets[name];
  return new Rules({ ...fields, hand_size: byPlayers(fields.hand_size), opening: byPlayers(fields.opening) },
    { twoSetHands: twoSet ? byPlayers(twoSet) : [] });
}

/** Every preset, resolved (camelCase fields; see Rules). */
export const PRESETS = Object.freeze(Object.fromEntries(Object.keys(RULESETS.presets).map((n) => [n, presetRules(n)])));

function find(name) {
  const preset = typeof name === "string" && Object.hasOwn(PRESETS, name) ? PRESETS[name] : null;
  if (preset === null) {
    const close = closeMatches(str(name), Object.keys(PRESETS), 1);
    const hint = close.length ? ` (did you mean "${close[0]}"?)` : "";
    throw new RulesetError(`unknown preset "${str(name)}"${hint}; presets: ${Object.keys(PRESETS).join(", ")}`, "/ruleset");
  }
  return preset;
}

const CACHE = new Map();

/**
 * The rules a log's `ruleset` field describes: a preset name, or {preset, options}.
 * Checked as the recorder checks it (unknown presets and options, with the closest
 * name; wrong values; options that contradict each other or have nothing to act on):
 * a ruleset the recorder refuses throws RulesetError with the recorder's message and
 * JSON pointer. An option set to null (or undefined) is the same as one left out.
 */
export function resolveRules(ruleset) {
  if (ruleset instanceof Rules) return ruleset;
  if (typeof ruleset === "string") return find(ruleset);
  if (!isMapping(ruleset)) {
    throw new RulesetError(`the ruleset is a preset name or {"preset": ..., "options": {...}}, not ${typeName(ruleset)}`, "/ruleset");
  }
  const keys = Object.keys(ruleset).filter((k) => ruleset[k] !== undefined);
  const unknown = keys.filter((k) => k !== "preset" && k !== "options").sort();
  if (unknown.length) {
    throw new RulesetError(`the ruleset has unknown keys ${repr(unknown)}; it takes preset and options`, "/ruleset");
  }
  if (!keys.includes("preset")) throw new RulesetError("the ruleset needs a preset", "/ruleset");
  const base = find(ruleset.preset);
  const options = ruleset.options ?? {};
  if (!isMapping(options)) throw new RulesetError("ruleset options must be an object", "/ruleset/options");
  const key = JSON.stringify([ruleset.preset, options]);
  let rules = CACHE.get(key);
  if (rules === undefined) {
    rules = base.withOptions(options);
    if (CACHE.size >= 256) CACHE.clear();
    CACHE.set(key, rules);
  }
  return rules;
}
