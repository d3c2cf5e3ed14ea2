// Tiles as the log writes them ("6-3"); kinds numbered in canonical order.

import { typeName } from "./words.js";

const TILE = /^(\d{1,2})-(\d{1,2})$/;

/** [a, b] of a tile text, halves as written; throws for anything else. */
export function parseTile(text) {
  const m = typeof text === "string" ? TILE.exec(text) : null;
  if (!m) throw new Error(`${JSON.stringify(text)} is not a tile; write tiles as "a-b", like "6-3"`);
  return [Number(m[1]), Number(m[2])];
}

/** Index of tile a-b in the canonical order 0-0, 0-1, ..., N-N. */
export function kindIndex(a, b, maxPip = 6) {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const n = maxPip + 1;
  return lo * n - (lo * (lo - 1)) / 2 + (hi - lo);
}

/** The canonical text of a tile, low half first. */
export function normalTile(text) {
  const [a, b] = parseTile(text);
  return `${Math.min(a, b)}-${Math.max(a, b)}`;
}

/** Sort tile texts in canonical order (returns a new array). */
export function sortTiles(tiles, maxPip = 6) {
  const key = (t) => {
    const [a, b] = parseTile(t);
    return kindIndex(a, b, maxPip);
  };
  return [...tiles].sort((x, y) => key(x) - key(y));
}

export function pips(text) {
  const [a, b] = parseTile(text);
  return a + b;
}

/** Whether a tile is a double ("4-4"). */
export function isDouble(text) {
  const [a, b] = parseTile(text);
  return a === b;
}

/** The pips of a hand: the sum of both halves of every tile (what a round's pips_left counts). */
export function handPips(hand) {
  let total = 0;
  for (const t of hand) total += pips(t);
  return total;
}

const SET_NAMES = { 6: "double-six", 9: "double-nine", 12: "double-twelve" };
// as the recorder reads a tile: Python's \d is any decimal digit, and its $ also
// matches before a final newline
const TILE_SHAPE = /^(\p{Nd}{1,2})-(\p{Nd}{1,2})\n?$/u;
const SETS = new Map();

/**
 * The numbered tiles of one set, as the recorder's engine keeps them: each kind
 * ("3-6") by its index in the canonical order, its halves and name, and the order
 * the openings look for tiles in.
 */
export class TileSet {
  constructor(maxPip, sets) {
    this.maxPip = maxPip;
    this.sets = sets;
    this.name = SET_NAMES[maxPip] ?? `double-${maxPip}`;
    this.lo = [];
    this.hi = [];
    for (let a = 0; a <= maxPip; a += 1) {
      for (let b = a; b <= maxPip; b += 1) {
        this.lo.push(a);
        this.hi.push(b);
      }
    }
    this.kinds = this.lo.length;
    this.size = this.kinds * sets;
    this.kindName = this.lo.map((a, k) => `${a}-${this.hi[k]}`);
    this.isDouble = this.lo.map((a, k) => a === this.hi[k]);
    this.pips = this.lo.map((a, k) => a + this.hi[k]);
    this.doubleKind = Array.from({ length: maxPip + 1 }, (_, v) => kindIndex(v, v, maxPip));
    this.lookup = new Map();
    this.lo.forEach((a, k) => {
      const b = this.hi[k];
      this.lookup.set(`${a}-${b}`, [k, a, b]);
      this.lookup.set(`${b}-${a}`, [k, b, a]);
    });
    /** Kinds from the highest tile down: pip sum, then the higher half (3-6 beats 4-5). */
    this.rankOrder = [...this.lo.keys()].sort((x, y) => this.pips[y] - this.pips[x] || this.hi[y] - this.hi[x]);
    Object.freeze(this);
  }

  /** [kind, first half, second half] of a tile text; throws Error with the recorder's reason. */
  parse(text) {
    if (typeof text === "string") {
      const hit = this.lookup.get(text);
      if (hit !== undefined) return hit;
      if (TILE_SHAPE.test(text)) {
        throw new Error(`"${text}" is not a tile of ${this.name} (pips go from 0 to ${this.maxPip})`);
      }
      const chars = Array.from(text);
      const shown = chars.length <= 20 ? text : `${chars.slice(0, 20).join("")}...`;
      throw new Error(`"${shown}" is not a tile; write tiles as "a-b", like "6-3"`);
    }
    throw new Error(`a tile is a string like "6-3", not ${typeName(text)}`);
  }
}

/** The tile set of `maxPip` (6, 9, 12) and `sets` (1, 2), built once. */
export function tileSet(maxPip = 6, sets = 1) {
  const key = `${maxPip}/${sets}`;
  let set = SETS.get(key);
  if (set === undefined) {
    set = new TileSet(maxPip, sets);
    SETS.set(key, set);
  }
  return set;
}
