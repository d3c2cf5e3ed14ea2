// The table as the rules see it: up to four open ends, the number each shows, and
// the open-end sum of the bonus rule (docs/rules.md, "The bonus").

import { resolveRules } from "./rules.js";
import { parseTile } from "./tiles.js";

export const ENDS = Object.freeze(["left", "right", "up", "down"]);
const LEFT = 0;
const RIGHT = 1;
const UP = 2;

export class Board {
  /**
   * `options`: {spinner, spinnerArms ("always" | "after-sides"), bonus, bonusMultiple};
   * Board.forRuleset(ruleset) takes them from a log's ruleset field.
   */
  constructor({
    spinner = false, spinnerArms = "always", spinnerMaxArms = 4, bonus = false, bonusMultiple = 5,
  } = {}) {
    this.rules = { spinner, spinnerArms, spinnerMaxArms, bonus, bonusMultiple };
    this.shutPips = 0; // both halves of every closed double: they still count
    this.value = [-1, -1, -1, -1]; // number each end shows; -1: not open
    this.dbl = [false, false, false, false]; // the tile at that end is a crosswise double
    this.covered = [false, false, false, false]; // a tile lies on that side of the opening
    this.openerDouble = false;
    this.spinner = false;
    this.armsOpen = false;
    this.openingLow = -1;
    this.tiles = 0;
  }

  static forRuleset(ruleset) {
    const r = resolveRules(ruleset);
    return new Board({
      spinner: r.spinner, spinnerArms: r.spinnerArms, spinnerMaxArms: r.spinnerMaxArms,
      bonus: r.bonus, bonusMultiple: r.bonusMultiple,
    });
  }

  /** The open ends and the number each shows: {left: 6, right: 4, up: 6, down: 6}. */
  openEnds() {
    const out = {};
    this.value.forEach((v, e) => {
      if (v >= 0) out[ENDS[e]] = v;
    });
    return out;
  }

  /** The ends that take `tile` now (all of them, in order left, right, up, down); [] before the opening means "any". */
  fits(tile) {
    const [a, b] = parseTile(tile);
    return ENDS.filter((_, e) => this.value[e] >= 0 && (this.value[e] === a || this.value[e] === b));
  }

  /**
   * Place a tile: the first tile of the round takes no end and lies with its first
   * written half on the left; later tiles need `end` when more than one end takes them.
   * Returns {end, sum, bonus}: the end it went to (null for the first tile), the
   * open-end sum after it, and the bonus it scores (0 when the bonus rule is off).
   * `{closed: true}` plays a double closed (rule closed_doubles): its end ends there
   * and its two halves still count. Whether the rules allow it is the recorder's check.
   */
  place(tile, end = null, { closed = false } = {}) {
    const [a, b] = parseTile(tile);
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    let placed = null;
    if (this.tiles === 0) {
      if (end !== null && end !== undefined) throw new Error("the first tile of a round takes no end");
      this.value[LEFT] = a;
      this.value[RIGHT] = b;
      if (lo === hi) {
        this.openerDouble = true;
        this.openingLow = lo;
        this.dbl[LEFT] = true;
        this.dbl[RIGHT] = true;
        if (this.rules.spinner) {
          this.spinner = true;
          if (this.rules.spinnerArms === "always") {
            this.value[UP] = lo;
            this.value[UP + 1] = lo;
            this.armsOpen = true;
          }
        }
      }
    } else {
      const ends = this.fits(tile);
      if (end === null || end === undefined) {
        if (ends.length === 0) throw new Error(`${tile} matches no open end`);
        if (ends.length > 1) throw new Error(`${tile} fits the ${ends.join(", ")} ends; name one`);
        placed = ends[0];
      } else {
        if (!ends.includes(end)) throw new Error(`${tile} does not fit the ${end} end`);
        placed = end;
      }
      const e = ENDS.indexOf(placed);
      const shown = this.value[e];
      this.value[e] = shown === lo ? hi : lo;
      this.dbl[e] = lo === hi;
      this.covered[e] = true;
      if (this.spinner && !this.armsOpen && this.covered[LEFT] && this.covered[RIGHT]) {
        this.value[UP] = this.openingLow;
        this.value[UP + 1] = this.openingLow;
        this.armsOpen = true;
      }
      if (this.spinner && this.rules.spinnerMaxArms === 3 && this.covered.filter(Boolean).length === 3) {
        this.value[this.covered.indexOf(false)] = -1; // the side left without a tile closes
      }
      if (closed) {
        if (lo !== hi) throw new Error("only a double may be played closed");
        this.shutPips += 2 * this.value[e];
        this.value[e] = -1;
        this.dbl[e] = false;
      }
    }
    this.tiles += 1;
    const sum = this.openEndSum();
    const { bonus, bonusMultiple } = this.rules;
    return { end: placed, sum, bonus: bonus && sum > 0 && sum % bonusMultiple === 0 ? sum : 0 };
  }

  /**
   * The open-end sum: left and right always count; up and down only once a tile lies
   * there; a crosswise double at an end counts both halves; the opening double counts
   * both halves (once) while at most one of left and right is covered; a closed double
   * keeps counting both halves; a closed end counts nothing else.
   */
  openEndSum() {
    if (this.tiles === 0) return 0;
    let total = 0;
    for (let e = 0; e < 4; e += 1) {
      if ((e < UP || this.covered[e]) && this.value[e] >= 0) {
        total += this.dbl[e] ? 2 * this.value[e] : this.value[e];
      }
    }
    if (this.openerDouble && !this.covered[LEFT] && !this.covered[RIGHT]) total -= 2 * this.value[LEFT];
    return total + this.shutPips;
  }
}
