// The parts of the five presets that dealing and the board need, as data, and the
// options that change them. The recorder (docs/rules.md) is the reference; the
// vectors in schemas/vectors hold this table to it.

export const PRESETS = Object.freeze({
  spilop: {
    players: [2, 4], handSize: { 2: 7, 3: 7, 4: 5 }, twoSetHands: { 2: 7, 3: 7, 4: 7 },
    opening: { default: "highest-double" }, noDouble: "draw-for-double", spinner: true,
  },
  classic: {
    players: [2, 4], handSize: { 2: 7, 3: 5, 4: 5 },
    opening: { default: "highest-double" }, noDouble: "redeal", spinner: false,
  },
  kozel: {
    players: [2, 4], handSize: { 2: 7, 3: 7, 4: 7 },
    opening: { default: "double-zero-first" }, noDouble: "highest-tile", spinner: false,
  },
  italian: {
    players: [2, 4], handSize: { 2: 7, 3: 7, 4: 7 },
    opening: { default: "free", 4: "highest-double" }, noDouble: "highest-tile", spinner: false,
  },
  norwegian: {
    players: [2, 2], handSize: { 2: 7 },
    opening: { default: "highest-double" }, noDouble: "highest-tile", spinner: false,
  },
  "openspiel-block": {
    players: [2, 2], handSize: { 2: 7 },
    opening: { default: "seat" }, noDouble: "highest-tile", spinner: false,
  },
  "openspiel-team": {
    players: [4, 4], handSize: { 4: 7 },
    opening: { default: "seat" }, noDouble: "highest-tile", spinner: false,
  },
  "dominoes-partners": {
    players: [4, 4], handSize: { 4: 7 },
    opening: { default: "seat" }, noDouble: "highest-tile", spinner: false,
  },
  "all-fives": {
    players: [2, 2], handSize: { 2: 7 },
    opening: { default: "highest-double" }, doubleOrder: [5, 1, 2, 3, 4, 6, 0],
    noDouble: "everyone-draws-for-double", spinner: true, spinnerArms: "after-sides",
    spinnerMaxArms: 3, closedDoubles: true, bonus: true,
  },
});

function perPlayers(value, fallback) {
  if (value === undefined || value === null) return fallback;
  if (typeof value === "object") return { ...value };
  return { default: value };
}

function pick(table, players) {
  if (table[players] !== undefined) return table[players];
  return table.default;
}

/**
 * The rules a log's `ruleset` field describes, resolved for dealing and the board:
 * a preset name, or {preset, options}. Unknown presets throw; option values are
 * taken as given (the recorder checks them when it replays the log).
 */
export function resolveRules(ruleset) {
  const spec = typeof ruleset === "string" ? { preset: ruleset } : ruleset || {};
  const base = PRESETS[spec.preset];
  if (!base) {
    throw new Error(`unknown preset "${spec.preset}"; presets: ${Object.keys(PRESETS).join(", ")}`);
  }
  const o = spec.options || {};
  const sets = o.sets ?? 1;
  let hands = base.handSize;
  if (o.hand_size !== undefined && o.hand_size !== null) hands = perPlayers(o.hand_size, hands);
  else if (sets === 2 && base.twoSetHands) hands = base.twoSetHands;
  const opening = perPlayers(o.opening, base.opening);
  return {
    preset: spec.preset,
    minPlayers: base.players[0],
    maxPlayers: base.players[1],
    maxPip: o.max_pip ?? 6,
    sets,
    tilesEach: (players) => pick(hands, players),
    opening: (players) => pick(opening, players) ?? "highest-double",
    doubleOrder: o.double_order ?? base.doubleOrder ?? null,
    noDouble: o.no_double ?? base.noDouble,
    tieBreak: o.tie_break ?? "lot",
    spinner: o.spinner ?? base.spinner,
    spinnerArms: o.spinner_arms ?? base.spinnerArms ?? "always",
    spinnerMaxArms: o.spinner_max_arms ?? base.spinnerMaxArms ?? 4,
    closedDoubles: o.closed_doubles ?? base.closedDoubles ?? false,
    bonus: o.bonus ?? base.bonus ?? false,
    bonusMultiple: o.bonus_multiple ?? 5,
  };
}
