// The table as the rules see it: up to four open ends, the number each shows, and
// the open-end sum of the bonus rule (docs/rules.md, "The bonus"). A port of the
// recorder's engine (recorder/engine.py), checked against it on the board and round
// vectors of schemas/vectors and on bot games.

import { IllegalMove } from "./errors.js";
import { resolveRules } from "./rules.js";
import { parseTile, tileSet } from "./tiles.js";

export const ENDS = Object.freeze(["left", "right", "up", "down"]);
const LEFT = 0;
const RIGHT = 1;
const UP = 2;
const DOWN = 3;

/** The sum of the open ends, as the engine's _end_sum; with `at`, as if a tile showing `shows` lay there. */
function endSum(board, at = -1, shows = 0, double = false) {
  const { value, dbl, covered } = board;
  let total = 0;
  for (let e = 0; e < 4; e += 1) {
    if (e === at) total += double ? shows * 2 : shows;
    else if ((covered[e] || e < UP) && value[e] >= 0) total += dbl[e] ? value[e] * 2 : value[e];
  }
  if (board.openerDouble && !covered[LEFT] && !covered[RIGHT] && at !== LEFT && at !== RIGHT) {
    total -= 2 * value[LEFT];
  }
  return total;
}

function endNames(ends) {
  return `${ends.slice(0, -1).map((e) => ENDS[e]).join(", ")} and ${ENDS[ends[ends.length - 1]]}`;
}

export class Board {
  /**
   * `options`: {spinner, spinnerArms ("always" | "after-sides"), spinnerMaxArms (3 | 4),
   * closedDoubles, bonus, bonusMultiple}, or the Rules of resolveRules();
   * Board.forRuleset(ruleset) takes them from a log's ruleset field.
   */
  constructor({
    spinner = false, spinnerArms = "always", spinnerMaxArms = 4, closedDoubles = false,
    bonus = false, bonusMultiple = 5, maxPip = 6,
  } = {}) {
    this.rules = Object.freeze({ spinner, spinnerArms, spinnerMaxArms, closedDoubles, bonus, bonusMultiple, maxPip });
    this.value = [-1, -1, -1, -1]; // the number each end shows; -1: not open
    this.dbl = [false, false, false, false]; // the tile at that end is a crosswise double
    this.covered = [false, false, false, false]; // a tile lies on that side of the opening
    this.shut = [false, false, false, false]; // closed for good: a closed double, or a spinner side past its arms
    this.shutPips = 0; // both halves of every closed double: they still count
    this.openerDouble = false;
    this.spinner = false;
    this.armsOpen = false;
    this.openingLow = -1;
    /** How many tiles lie on the table. */
    this.tiles = 0;
    /** The tiles in the order placed: [inner half, outer half, end] (end null for the first tile). */
    this.line = [];
    /** Positions in `line` of the doubles played closed. */
    this.closedTiles = [];
  }

  static forRuleset(ruleset) {
    return new Board(resolveRules(ruleset));
  }

  /** An independent copy: try a play on it without touching this board. */
  clone() {
    const other = Object.create(Board.prototype);
    Object.assign(other, this);
    for (const key of ["value", "dbl", "covered", "shut", "closedTiles"]) other[key] = [...this[key]];
    other.line = this.line.map((t) => [...t]);
    return other;
  }

  /**
   * The open ends and the number each shows: what a tile must match to go there,
   * {left: 6, right: 4, up: 6, down: 6}. Not what each end counts: a spinner's arm with
   * no tile on it is open and shows the spinner's number, but counts nothing in the sum
   * (ends() says which arms are empty and what each end counts; openEndSum() is the sum).
   */
  openEnds() {
    const out = {};
    this.value.forEach((v, e) => {
      if (v >= 0) out[ENDS[e]] = v;
    });
    return out;
  }

  /**
   * Each end in detail: {shows, counts, empty, closed}. `shows` is the number a tile
   * must match (null when the end is not open), `counts` what it adds to the open-end
   * sum, `empty` true for a spinner's arm open for play but holding no tile (it counts
   * 0), `closed` true for an end closed for good (a closed double there still counts
   * its two halves). The counts add up to openEndSum(). Ends that are neither open nor
   * closed are left out.
   */
  ends() {
    const out = {};
    if (this.tiles === 0) return out;
    const alone = this.openerDouble && !this.covered[LEFT] && !this.covered[RIGHT];
    const closedAt = [0, 0, 0, 0];
    for (const at of this.closedTiles) {
      const [, outer, end] = this.line[at];
      closedAt[ENDS.indexOf(end)] += 2 * outer;
    }
    for (let e = 0; e < 4; e += 1) {
      const v = this.value[e];
      if (v < 0 && !this.shut[e]) continue;
      const entry = { shows: v >= 0 ? v : null, counts: closedAt[e], empty: false, closed: this.shut[e] };
      if (v >= 0) {
        if (e >= UP && !this.covered[e]) entry.empty = true;
        else if (!(alone && e === RIGHT)) entry.counts += this.dbl[e] ? 2 * v : v;
      }
      out[ENDS[e]] = entry;
    }
    return out;
  }

  /** The ends that take `tile` now (all of them, in order left, right, up, down); [] before the first tile, which takes no end (any tile may be first). */
  fits(tile) {
    const [a, b] = parseTile(tile);
    return ENDS.filter((_, e) => this.value[e] >= 0 && (this.value[e] === a || this.value[e] === b));
  }

  /** Whether a double may be played closed now (rule closed_doubles): the spinner has two arms. */
  mayClose() {
    return this.spinner && this.tiles > 0 && this.covered.filter(Boolean).length >= 2;
  }

  /**
   * Where `tile` would go: the end's name, or null for the round's first tile; throws
   * IllegalMove with the recorder's reason when it may not go there (an end given to the
   * first tile, no end given where several take it, an end that does not show its
   * number, a closed end, a spinner side not open yet, a closed play that may not be).
   */
  check(tile, end = null, { closed = false } = {}) {
    const { e } = this.locate(tile, end, closed);
    return e < 0 ? null : ENDS[e];
  }

  /** [kind, first half, second half] of the tile and the index of its end (-1: the first tile), checked. */
  locate(tile, end, closed) {
    const set = tileSet(this.rules.maxPip, 1);
    let parsed;
    try {
      parsed = set.parse(tile);
    } catch (err) {
      throw new IllegalMove(err.message);
    }
    if (closed) this.checkClosed(parsed[0], set);
    if (this.tiles === 0) {
      if (end !== null && end !== undefined) throw new IllegalMove("the first tile of a round takes no end");
      return { parsed, e: -1 };
    }
    return { parsed, e: this.endIndex(tile, parsed[1], parsed[2], end) };
  }

  checkClosed(kind, set) {
    if (!this.rules.closedDoubles) throw new IllegalMove("these rules have no closed doubles (option closed_doubles)");
    if (!set.isDouble[kind]) throw new IllegalMove("only a double may be played closed");
    if (!this.mayClose()) throw new IllegalMove("a double may be played closed only once the spinner has two arms");
  }

  /** The index of the end a tile (halves a, b) goes to, as the engine's check decides it. */
  endIndex(tile, a, b, end) {
    const { value } = this;
    const ends = [0, 1, 2, 3].filter((e) => value[e] >= 0 && (value[e] === a || value[e] === b));
    if (end === null || end === undefined) {
      if (!ends.length) throw new IllegalMove(this.noMatch(tile));
      if (ends.length > 1) throw new IllegalMove(`${tile} fits the ${endNames(ends)} ends; the move must name one`);
      return ends[0];
    }
    const e = typeof end === "string" ? ENDS.indexOf(end) : -1;
    if (e < 0) throw new IllegalMove(`"${end}" is not an end; ends are left, right, up, down`);
    if (value[e] < 0) {
      if (this.shut[e]) throw new IllegalMove(`the ${end} end is closed`);
      if (e >= UP) {
        if (!this.spinner) throw new IllegalMove(`there is no ${end} end: only a spinner has up and down`);
        throw new IllegalMove(`the spinner's ${end} side is not open yet: it opens once both left and right are covered`);
      }
      throw new IllegalMove(`there is no ${end} end`);
    }
    if (!ends.includes(e)) throw new IllegalMove(`the ${end} end shows ${value[e]} (${this.showsText()})`);
    return e;
  }

  showsText() {
    return `ends: ${this.value.flatMap((v, e) => (v >= 0 ? [`${ENDS[e]} ${v}`] : [])).join(", ")}`;
  }

  noMatch(tile) {
    const shows = this.value.flatMap((v, e) => (v >= 0 ? [`${ENDS[e]} ${v}`] : [])).join(", ");
    return `${tile} matches no open end (the ends show ${shows})`;
  }

  /**
   * Place a tile: the first tile of the round takes no end and lies with its first
   * written half on the left; later tiles need `end` when more than one end takes them.
   * Returns {end, sum, bonus}: the end it went to (null for the first tile), the
   * open-end sum after it, and the bonus it scores (0 when the bonus rule is off).
   * `{closed: true}` plays a double closed (rule closed_doubles): its end ends there
   * and its two halves still count. A play that may not be made throws IllegalMove
   * (see check); the board does not know the hands or whose turn it is (a Round does).
   */
  place(tile, end = null, { closed = false } = {}) {
    const { parsed, e } = this.locate(tile, end, closed);
    const [, a, b] = parsed;
    const lo = Math.min(a, b);
    const hi = Math.max(a, b);
    const { value } = this;
    if (e < 0) {
      value[LEFT] = a;
      value[RIGHT] = b;
      if (lo === hi) {
        this.openerDouble = true;
        this.openingLow = lo;
        this.dbl[LEFT] = true;
        this.dbl[RIGHT] = true;
        if (this.rules.spinner) {
          this.spinner = true;
          if (this.rules.spinnerArms === "always") {
            value[UP] = lo;
            value[DOWN] = lo;
            this.armsOpen = true;
          }
        }
      }
      this.line.push([a, b, null]);
    } else {
      const shown = value[e];
      const outer = shown === lo ? hi : lo;
      value[e] = outer;
      this.dbl[e] = lo === hi;
      this.covered[e] = true;
      this.line.push([shown, outer, ENDS[e]]);
      if (this.spinner && !this.armsOpen && this.covered[LEFT] && this.covered[RIGHT]) {
        value[UP] = this.openingLow;
        value[DOWN] = this.openingLow;
        this.armsOpen = true;
      }
      if (this.spinner && this.rules.spinnerMaxArms === 3 && this.covered.filter(Boolean).length === 3) {
        const last = this.covered.indexOf(false); // the side left without a tile closes
        value[last] = -1;
        this.shut[last] = true;
      }
    }
    this.tiles += 1;
    const bonus = this.bonusOf(this.openEndSum());
    if (closed) {
      this.shutPips += 2 * value[e];
      value[e] = -1;
      this.dbl[e] = false;
      this.shut[e] = true;
      this.closedTiles.push(this.line.length - 1);
    }
    return { end: e < 0 ? null : ENDS[e], sum: this.openEndSum(), bonus };
  }

  bonusOf(total) {
    const { bonus, bonusMultiple } = this.rules;
    return bonus && total > 0 && total % bonusMultiple === 0 ? total : 0;
  }

  /**
   * What placing `tile` on `end` would score under the bonus rule (0 when the rule is
   * off or the sum it makes is no multiple), without placing it; throws IllegalMove as
   * place() does when it may not go there.
   */
  scoreOf(tile, end = null, { closed = false } = {}) {
    const { parsed, e } = this.locate(tile, end, closed);
    return this.bonusAfter(parsed[0], e);
  }

  /** The bonus of placing tile kind `kind` on end index `e` (-1: as the first tile), as the engine's _bonus_after. */
  bonusAfter(kind, e) {
    const set = tileSet(this.rules.maxPip, 1);
    const lo = set.lo[kind];
    const hi = set.hi[kind];
    let total;
    if (e < 0) total = lo === hi ? 2 * lo : lo + hi;
    else total = endSum(this, e, this.value[e] === lo ? hi : lo, lo === hi) + this.shutPips;
    return this.bonusOf(total);
  }

  /**
   * The plays `hand` may make now, each with the end it goes to ({action: "play",
   * tile, end}, end null for the first tile), a double also closed where the rules let
   * it be; with no play, [{action: "draw"}] or [{action: "pass"}]. `boneyard` is the
   * number of tiles left to draw, `drew` whether this player already drew this turn;
   * `opening` the tile the first play must be (the deal's opens.tile), if any.
   * Tiles come in canonical order, each once, ends in order left, right, up, down.
   */
  legalMoves(hand, { boneyard = 0, drew = false, opening = null, draw = "until-playable", stockFloor = 0 } = {}) {
    const set = tileSet(this.rules.maxPip, 1);
    const kinds = [...new Set(hand.map((t) => set.parse(t)[0]))].sort((x, y) => x - y);
    const moves = [];
    if (this.tiles === 0) {
      const first = opening === null ? null : set.parse(opening)[0];
      for (const k of kinds) if (first === null || k === first) moves.push({ action: "play", tile: set.kindName[k], end: null });
      return moves;
    }
    const closable = this.rules.closedDoubles && this.mayClose();
    for (const k of kinds) {
      for (let e = 0; e < 4; e += 1) {
        const v = this.value[e];
        if (v >= 0 && (v === set.lo[k] || v === set.hi[k])) {
          moves.push({ action: "play", tile: set.kindName[k], end: ENDS[e] });
          if (closable && set.isDouble[k]) moves.push({ action: "play", tile: set.kindName[k], end: ENDS[e], closed: true });
        }
      }
    }
    if (moves.length) return moves;
    const mayDraw = draw !== "none" && boneyard > stockFloor && !(drew && draw === "one");
    return [{ action: mayDraw ? "draw" : "pass" }];
  }

  /**
   * The open-end sum: left and right always count; up and down only once a tile lies
   * there; a crosswise double at an end counts both halves; the opening double counts
   * both halves (once) while at most one of left and right is covered; a closed double
   * keeps counting both halves; a closed end counts nothing else.
   */
  openEndSum() {
    if (this.tiles === 0) return 0;
    return endSum(this) + this.shutPips;
  }
}
