// A round and a match as the recorder's engine plays them (recorder/engine.py), for a
// frontend that wants the recorder's own rules: who opens, whose turn it is, which
// moves are legal, what a play scores, when the round is over and what it gives.
// Moves are checked and refused with the recorder's reasons. Checked against the
// engine on the round vectors of schemas/vectors and on bot games (tests/test_js_client.py).

import { Board, ENDS } from "./board.js";
import { DealError, GameOverError, IllegalMove } from "./errors.js";
import { resolveRules } from "./rules.js";
import { tileSet } from "./tiles.js";
import { isMapping, repr } from "./words.js";

export const DRAW_FOR_DOUBLE = "draw-for-double";
export const OPENING = "opening";
export const PLAY = "play";
export const OVER = "over";

// ---------------------------------------------------------------------- exact points
// Split points are kept as fractions, as the engine keeps them: a tie of three gives
// thirds, and the running scores add them up exactly.

function gcd(a, b) {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y) [x, y] = [y, x % y];
  return x || 1;
}

/** An exact fraction n/d (d > 0), reduced. */
export function fraction(n, d = 1) {
  const g = gcd(n, d);
  return Object.freeze({ n: n / g || 0, d: d / g }); // || 0: never -0 (italian's -0 pips)
}

const add = (p, q) => fraction(p.n * q.d + q.n * p.d, p.d * q.d);
const cmp = (p, q) => p.n * q.d - q.n * p.d;
/** A fraction as the recorder's answer writes it: a whole number, or the nearest float. */
export const toNumber = (p) => (p.d === 1 ? p.n : p.n / p.d);
const ZERO = fraction(0);

function share(pot, ways) {
  return fraction(pot, ways);
}

// ---------------------------------------------------------------------- scoring
/**
 * The result of a finished round under `rules` (the engine's score_round), as the
 * recorder's answer and a log's claimed result write it: {winners, points, bonus,
 * blocked, pips_left, ended_by}. `pipsLeft` per seat, `endedBy` the seat of the last
 * move, `blocked` whether nobody could play, `lastPlay` the seat that placed the last
 * tile (kozel's fish), `bonus` per seat, `pot` the pips tied rounds left (tie_pot).
 */
export function scoreRound(ruleset, { pipsLeft, endedBy, blocked, lastPlay = -1, bonus = null, pot = 0 }) {
  return withExact(scoreExact(resolveRules(ruleset), pipsLeft.length, pipsLeft, endedBy, blocked, lastPlay,
    bonus ?? pipsLeft.map(() => 0), pot));
}

function scoreExact(rules, n, pips, endedBy, blocked, lastPlay, bonus, pot) {
  const sides = rules.sides(n);
  const sideOf = new Map();
  sides.forEach((side, i) => side.forEach((p) => sideOf.set(p, i)));
  const sidePips = sides.map((side) => side.reduce((s, p) => s + pips[p], 0));
  let sidePoints = sides.map(() => ZERO);
  let winning = [];
  const sum = (xs) => xs.reduce((s, x) => s + x, 0);
  if (rules.pipsDecide) {
    const low = Math.min(...sidePips);
    const lows = sidePips.flatMap((p, i) => (p === low ? [i] : []));
    if (lows.length === 1) {
      const w = lows[0];
      winning = [w];
      sidePoints[w] = fraction(sum(sidePips.filter((_, i) => i !== w)) + pot);
    }
  } else if (!blocked) {
    const w = sideOf.get(endedBy);
    winning = [w];
    if (rules.dominoScoring === "opponents-pips") sidePoints[w] = fraction(sum(sidePips.filter((_, i) => i !== w)));
    else if (rules.dominoScoring === "all-pips") sidePoints[w] = fraction(sum(sidePips));
    else sidePoints = sidePips.map((p, i) => (i === w ? ZERO : fraction(p)));
  } else {
    const scoring = rules.blockedScoring;
    const low = Math.min(...sidePips);
    const lowest = sidePips.flatMap((p, i) => (p === low ? [i] : []));
    if (scoring === "lowest-wins") {
      winning = lowest;
      const potOf = sum(sidePips.filter((_, i) => !winning.includes(i)));
      for (const i of winning) sidePoints[i] = share(potOf, winning.length);
    } else if (scoring === "difference" || scoring === "lowest-takes-all") {
      winning = lowest;
      if (winning.length === sides.length) winning = [];
      else {
        const potOf = scoring === "difference" ? sum(sidePips.map((p) => p - low)) : sum(sidePips);
        for (const i of winning) sidePoints[i] = share(potOf, winning.length);
      }
    } else if (scoring === "fish") {
      const setter = lastPlay >= 0 ? lastPlay : endedBy;
      const w = sideOf.get(setter);
      winning = [w];
      sidePoints = sidePips.map((p, i) => (i === w ? ZERO : fraction(p)));
    } else {
      sidePoints = sidePips.map((p) => fraction(-p));
    }
  }
  const points = Array.from({ length: n }, (_, p) => sidePoints[sideOf.get(p)]);
  const winners = winning.flatMap((i) => sides[i]).sort((a, b) => a - b);
  return { winners, points, bonus: [...bonus], blocked, pipsLeft: [...pips], endedBy };
}

const EXACT = Symbol("exact points");

function withExact(r) {
  const out = {
    winners: r.winners, points: r.points.map(toNumber), bonus: r.bonus, blocked: r.blocked,
    pips_left: r.pipsLeft, ended_by: r.endedBy,
  };
  Object.defineProperty(out, EXACT, { value: r.points, enumerable: false });
  return Object.freeze(out);
}

function exactPoints(result) {
  return result[EXACT] ?? result.points.map((x) => {
    if (!Number.isInteger(x)) throw new TypeError("a result's points must be whole numbers unless it comes from the library");
    return fraction(x);
  });
}

// ---------------------------------------------------------------------- a round
const isSeat = (seat, players) => typeof seat === "number" && Number.isInteger(seat) && seat >= 0 && seat < players;

/** A move as the log writes it (the fields of a domino-log/1 move): {player, action, tile?, end?, closed?}. */
function move(player, action, tile = null, end = null, closed = false) {
  const out = { player, action };
  if (tile !== null) out.tile = tile;
  if (end !== null) out.end = end;
  if (closed) out.closed = true;
  return out;
}

function moveText(m) {
  if (m.action === "play") return `plays ${m.tile}${m.end ? ` ${m.end}` : ""}${m.closed ? " closed" : ""}`;
  if (m.action === "draw") return m.tile ? `draws ${m.tile}` : "draws";
  return "passes";
}

export class Round {
  /**
   * The round just after the deal. `dealt` is what deal() resolves to (a seeded deal,
   * its lot included) or an explicit deal {hands, boneyard} as a log writes it (checked
   * as the recorder checks it). `opener`: the seat a round names under `opening: seat`;
   * `scores`: the match scores before the round (target_check: play); `pot`: the pips
   * tied rounds left (tie_pot). Match.startRound passes the last two for you.
   */
  static start(ruleset, players, dealt, { opener = null, scores = null, pot = 0 } = {}) {
    const rules = resolveRules(ruleset);
    const self = Object.create(Round.prototype);
    self.rules = rules;
    self.tiles = tileSet(rules.maxPip, rules.sets);
    self.players = players;
    const seeded = typeof dealt?.seed === "string";
    const { hands, boneyard } = seeded ? takeSeeded(self.tiles, dealt) : explicitDeal(rules, self.tiles, players, dealt);
    self.deal = Object.freeze({
      hands: hands.map((h) => countsToNames(self.tiles, h)), boneyard: boneyard.map((k) => self.tiles.kindName[k]),
      seeded, lot: seeded ? dealt.lot ?? null : null, redeals: seeded ? dealt.redeals ?? 0 : 0,
    });
    self.counts = hands;
    self.boneyardKinds = boneyard;
    self.drawn = 0;
    self.board = new Board(rules);
    self.drew = false;
    self.bonus = Array(players).fill(0);
    self.lastPlayer = -1;
    self.lastPlay = -1;
    self.moves = 0;
    self.pot = pot;
    self.targetFrom = scores !== null && rules.targetCheck === "play" ? scores.map((s) => (typeof s === "number" ? fraction(s) : s)) : null;
    self.exact = null;
    self.stockLimit = rules.draw !== "none" ? boneyard.length - rules.stockFloor : 0;
    self.openers = [];
    self.openingKind = -1;
    self.turn = 0;
    self.phase = OPENING;
    self.settleOpening(opener);
    return self;
  }

  settleOpening(opener) {
    const { tiles, rules } = this;
    const rule = rules.openingFor(this.players);
    if (opener !== null && opener !== undefined && rule !== "seat") {
      throw new DealError(`the round names an opener, but under these rules the opening is ${rule}, not a named seat`);
    }
    if (rule === "free") {
      this.openers = Array.from({ length: this.players }, (_, s) => s);
      return;
    }
    if (rule === "seat") {
      const seat = opener ?? 0;
      if (!isSeat(seat, this.players)) {
        throw new DealError(`the round's opener is seat ${repr(seat)}; seats go from 0 to ${this.players - 1}`);
      }
      this.openers = [seat];
      this.turn = seat;
      return;
    }
    let kind = -1;
    if (rule === "double-zero-first") kind = this.heldKind([tiles.doubleKind[0]]);
    if (kind < 0 && (rule === "highest-double" || rule === "double-zero-first")) {
      kind = this.heldKind(this.doubleOrder());
      if (kind < 0) {
        if (rules.noDouble === "draw-for-double" || rules.noDouble === "everyone-draws-for-double") {
          this.phase = DRAW_FOR_DOUBLE;
          this.turn = 0;
          return;
        }
        if (rules.noDouble === "redeal") throw new DealError("nobody holds a double");
      }
    }
    if (kind < 0) kind = this.heldKind(tiles.rankOrder);
    let holders = this.holders(kind);
    if (holders.length > 1 && rules.tieBreak === "lot" && this.deal.seeded) {
      const lot = this.deal.lot;
      if (!holders.includes(lot)) {
        throw new DealError(`seats ${holders.join(", ")} hold ${tiles.kindName[kind]}, and the deal names no lot among them (deal() draws it)`);
      }
      holders = [lot];
    }
    this.openers = holders;
    this.openingKind = kind;
    this.turn = holders[0];
  }

  holders(kind) {
    return this.counts.flatMap((h, s) => (h[kind] > 0 ? [s] : []));
  }

  doubleOrder() {
    const order = this.rules.doubleOrder.length ? this.rules.doubleOrder
      : Array.from({ length: this.tiles.maxPip + 1 }, (_, i) => this.tiles.maxPip - i);
    return order.map((v) => this.tiles.doubleKind[v]);
  }

  heldKind(kinds) {
    for (const k of kinds) if (this.counts.some((h) => h[k] > 0)) return k;
    return -1;
  }

  /** An independent copy: try moves on it without touching this round. */
  clone() {
    const other = Object.create(Round.prototype);
    Object.assign(other, this);
    other.counts = this.counts.map((h) => [...h]);
    other.board = this.board.clone();
    other.bonus = [...this.bonus];
    other.openers = [...this.openers];
    return other;
  }

  // ------------------------------------------------------------------ queries
  get over() {
    return this.phase === OVER;
  }

  /** The round's result once it is over (null before): {winners, points, bonus, blocked, pips_left, ended_by}, as the recorder computes it and a log claims it (log.endRound(round.result)). */
  get result() {
    return this.exact === null ? null : withExact(this.exact);
  }

  /** The tiles `seat` holds, in canonical order (a tile twice when two sets put both copies in one hand). */
  hand(seat) {
    return countsToNames(this.tiles, this.counts[seat]);
  }

  /** The tiles left to draw, in draw order. */
  get boneyard() {
    return this.boneyardKinds.slice(this.drawn).map((k) => this.tiles.kindName[k]);
  }

  boneyardLeft() {
    return this.boneyardKinds.length - this.drawn;
  }

  /** The pips each seat holds. */
  pipsLeft() {
    return this.counts.map((h) => h.reduce((s, c, k) => s + c * this.tiles.pips[k], 0));
  }

  /** The tile the first play must be (null: any tile), once the opening is settled. */
  get openingTile() {
    return this.openingKind < 0 ? null : this.tiles.kindName[this.openingKind];
  }

  /** Whether the rules let the player to move draw now (not whether they must). */
  mayDraw() {
    if (this.phase === DRAW_FOR_DOUBLE) return true;
    if (this.drawn >= this.stockLimit) return false;
    return !(this.drew && this.rules.draw === "one");
  }

  /** The open-end count of the bonus rule (docs/rules.md, "The bonus"). */
  openEndSum() {
    if (this.phase === OPENING || this.phase === DRAW_FOR_DOUBLE) return 0;
    return this.board.openEndSum();
  }

  canPlay(seat) {
    const { value } = this.board;
    const h = this.counts[seat];
    const { lo, hi } = this.tiles;
    for (let k = 0; k < h.length; k += 1) {
      if (h[k] > 0) {
        for (let e = 0; e < 4; e += 1) if (value[e] >= 0 && (value[e] === lo[k] || value[e] === hi[k])) return true;
      }
    }
    return false;
  }

  /** [kind, end index] of every play `seat` may make now (-1: the first tile), as the engine's _plays. */
  plays(seat) {
    const { tiles } = this;
    if (this.phase === OPENING) {
      if (!this.openers.includes(seat)) return [];
      if (this.openingKind >= 0) return [[this.openingKind, -1]];
      return this.counts[seat].flatMap((c, k) => (c > 0 ? [[k, -1]] : []));
    }
    if (this.phase !== PLAY || seat !== this.turn) return [];
    const out = [];
    const { value } = this.board;
    this.counts[seat].forEach((c, k) => {
      if (!c) return;
      for (let e = 0; e < 4; e += 1) {
        const v = value[e];
        if (v >= 0 && (v === tiles.lo[k] || v === tiles.hi[k])) out.push([k, e]);
      }
    });
    return out;
  }

  /**
   * Every move that may be made now, as log moves ({player, action, tile, end,
   * closed}). A play after the first tile always names its end (the log may leave the
   * end out only where one end takes the tile; naming it is always right); a double
   * that may be closed comes twice, open and closed. Usually one player may move; at an
   * opening several may (a free opening, tied holders): give `seat` for one player's.
   */
  legalMoves(seat = null) {
    if (this.phase === OVER) return [];
    if (seat === null || seat === undefined) {
      const seats = this.phase === OPENING ? this.openers : [this.turn];
      return seats.flatMap((s) => this.legalMoves(s));
    }
    if (this.phase === DRAW_FOR_DOUBLE) return seat === this.turn ? [move(seat, "draw")] : [];
    const plays = this.plays(seat);
    if (plays.length) {
      const name = this.tiles.kindName;
      const closable = this.rules.closedDoubles && this.mayClose();
      return plays.flatMap(([k, e]) => {
        const open = move(seat, "play", name[k], e < 0 ? null : ENDS[e]);
        return closable && this.tiles.isDouble[k] ? [open, move(seat, "play", name[k], ENDS[e], true)] : [open];
      });
    }
    if (this.phase === OPENING || seat !== this.turn) return [];
    return [move(seat, this.mayDraw() ? "draw" : "pass")];
  }

  mayClose() {
    return this.phase === PLAY && this.board.mayClose();
  }

  /** The bonus `m` would score now (0 when the bonus rule is off, the play scores nothing, or it is not legal). */
  scoreOf(m) {
    if (m.action !== "play" || !this.rules.bonus) return 0;
    let checked;
    try {
      checked = this.check(m);
    } catch (err) {
      if (err instanceof IllegalMove) return 0;
      throw err;
    }
    const [kind, , e] = checked;
    return this.board.bonusAfter(kind, this.phase === OPENING ? -1 : e);
  }

  // ------------------------------------------------------------------ moves
  /** Throws IllegalMove with the recorder's reason unless `m` is legal now; returns what apply needs. */
  check(m) {
    if (this.phase === OVER) throw new IllegalMove("the round is already over; nothing may follow its last move");
    const seat = m.player;
    if (!isSeat(seat, this.players)) {
      throw new IllegalMove(`there is no seat ${repr(seat)}; seats go from 0 to ${this.players - 1}`);
    }
    if (seat !== this.turn && !(this.phase === OPENING && this.openers.includes(seat))) {
      throw new IllegalMove(this.wrongTurn());
    }
    const { action } = m;
    if (action === "play") return this.checkPlay(m);
    if (m.closed) throw new IllegalMove("only a play may be closed");
    if (action === "draw") {
      if (this.phase === DRAW_FOR_DOUBLE) return this.checkDrawnTile(m);
      if (this.phase === OPENING) throw new IllegalMove("the round opens with a play; there is no drawing before it");
      if (this.canPlay(seat)) throw new IllegalMove("the player can play, so may not draw");
      if (this.rules.draw === "none") throw new IllegalMove("these rules have no drawing");
      if (this.drawn >= this.stockLimit) {
        const floor = this.rules.stockFloor;
        if (floor) {
          throw new IllegalMove(`the boneyard holds ${this.boneyardLeft()} tiles; no drawing while it holds ${floor} or fewer`);
        }
        throw new IllegalMove("the boneyard is empty");
      }
      if (this.drew && this.rules.draw === "one") throw new IllegalMove("only one tile may be drawn a turn");
      return this.checkDrawnTile(m);
    }
    if (action === "pass") {
      if (this.phase === DRAW_FOR_DOUBLE) {
        throw new IllegalMove("nobody holds a double: the players draw in turn until one draws a double");
      }
      if (this.phase === OPENING) throw new IllegalMove("the round opens with a play; there is no passing before it");
      if (this.canPlay(seat)) throw new IllegalMove("the player can play, so may not pass");
      if (this.mayDraw()) throw new IllegalMove("the player cannot play but may draw, so may not pass");
      return [0, 0, 0];
    }
    throw new IllegalMove(`"${typeof action === "string" ? action : repr(action)}" is not an action; expected play, draw or pass`);
  }

  wrongTurn() {
    if (this.phase === OPENING && this.openers.length < this.players) {
      const who = this.openers.map((s) => `seat ${s}`).join(" or ");
      if (this.openingKind < 0) return `not this player's turn: ${who} opens`;
      const tile = this.tiles.kindName[this.openingKind];
      const tied = this.deal.lot === null ? [] : this.holders(this.openingKind);
      const lot = tied.length > 1 ? ` (${seatList(tied)} hold ${tile}; the lot names seat ${this.deal.lot})` : "";
      return `not this player's turn: ${who} opens with ${tile}${lot}`;
    }
    return `not this player's turn: seat ${this.turn} is to move`;
  }

  checkDrawnTile(m) {
    if (this.drawn >= this.boneyardKinds.length) throw new IllegalMove("the boneyard is empty");
    if (m.tile !== null && m.tile !== undefined) {
      let kind;
      try {
        [kind] = this.tiles.parse(m.tile);
      } catch (err) {
        throw new IllegalMove(err.message);
      }
      const next = this.boneyardKinds[this.drawn];
      if (kind !== next) throw new IllegalMove(`the next tile of the boneyard is ${this.tiles.kindName[next]}, not ${m.tile}`);
    }
    return [0, 0, 0];
  }

  checkPlay(m) {
    const { tiles } = this;
    if (this.phase === DRAW_FOR_DOUBLE) {
      throw new IllegalMove("nobody holds a double: the players draw in turn until one draws a double");
    }
    if (m.tile === null || m.tile === undefined) throw new IllegalMove("a play needs a tile");
    let kind;
    let a;
    let b;
    try {
      [kind, a, b] = tiles.parse(m.tile);
    } catch (err) {
      throw new IllegalMove(err.message);
    }
    if (!this.counts[m.player][kind]) throw new IllegalMove(`the player does not hold ${m.tile}`);
    if (m.closed) this.board.checkClosed(kind, tiles);
    if (this.phase === OPENING) {
      if (this.openingKind >= 0 && kind !== this.openingKind) {
        throw new IllegalMove(`the round opens with ${tiles.kindName[this.openingKind]}`);
      }
      if (m.end !== null && m.end !== undefined) throw new IllegalMove("the first tile of a round takes no end");
      return [kind, a, b];
    }
    return [kind, a, this.board.endIndex(m.tile, a, b, m.end)];
  }

  /** Whether `m` is legal now. */
  isLegal(m) {
    try {
      this.check(m);
      return true;
    } catch (err) {
      if (err instanceof IllegalMove) return false;
      throw err;
    }
  }

  /**
   * Check `m` and play it (the round may end with it). Returns what happened: for a
   * play {end, sum, bonus} (the end it went to, the open-end sum after it, the bonus it
   * scored), for a draw {tile} (the tile drawn), for a pass {}.
   */
  apply(m) {
    const [kind, , e] = this.check(m);
    return this.commit(m.player, m.action, kind, m.tile, e, m.closed === true);
  }

  commit(seat, action, kind, tile, e, closed) {
    this.moves += 1;
    let out = {};
    if (action === "play") {
      const placed = this.board.place(this.phase === OPENING ? tile : this.tiles.kindName[kind],
        this.phase === OPENING ? null : ENDS[e], { closed });
      this.counts[seat][kind] -= 1;
      this.lastPlay = seat;
      this.lastPlayer = seat;
      if (this.phase === OPENING) {
        this.phase = PLAY;
        this.turn = seat;
      }
      if (placed.bonus) this.creditBonus(seat, placed.bonus);
      out = { end: placed.end, sum: placed.sum, bonus: placed.bonus };
      this.drew = false;
      if (this.targetFrom !== null
          && cmp(add(this.targetFrom[seat], fraction(this.bonus[seat])), fraction(this.rules.target)) >= 0) {
        this.finish(seat, false, true);
        return out;
      }
      if (this.counts[seat].every((c) => c === 0)) {
        this.finish(seat, false);
        return out;
      }
      this.turn = (seat + 1) % this.players;
      if (this.drawn >= this.stockLimit) this.checkBlocked(seat);
    } else if (action === "draw") {
      const drawnKind = this.boneyardKinds[this.drawn];
      this.drawn += 1;
      this.counts[seat][drawnKind] += 1;
      this.drew = true;
      out = { tile: this.tiles.kindName[drawnKind] };
      if (this.phase === DRAW_FOR_DOUBLE) {
        if (this.rules.noDouble === "everyone-draws-for-double") {
          this.drew = false;
          if (seat === this.players - 1) {
            const found = this.heldKind(this.doubleOrder());
            if (found >= 0) {
              this.phase = OPENING;
              this.openingKind = found;
              this.openers = this.holders(found);
              this.turn = this.openers[0];
              return out;
            }
          }
          this.turn = (seat + 1) % this.players;
          return out;
        }
        if (this.tiles.isDouble[drawnKind]) {
          this.phase = OPENING;
          this.openers = [seat];
          this.openingKind = drawnKind;
        } else {
          this.turn = (seat + 1) % this.players;
          this.drew = false;
        }
        return out;
      }
      if (this.drawn >= this.stockLimit) this.checkBlocked(seat);
    } else {
      this.drew = false;
      this.turn = (seat + 1) % this.players;
    }
    this.lastPlayer = seat;
    return out;
  }

  creditBonus(seat, total) {
    for (const side of this.rules.sides(this.players)) {
      if (side.includes(seat)) for (const member of side) this.bonus[member] += total;
    }
  }

  checkBlocked(seat) {
    for (let s = 0; s < this.players; s += 1) if (this.canPlay(s)) return;
    this.lastPlayer = seat;
    this.finish(seat, true);
  }

  finish(seat, blocked, target = false) {
    this.lastPlayer = seat;
    this.phase = OVER;
    if (target) {
      const side = this.rules.sides(this.players).find((s) => s.includes(seat));
      this.exact = {
        winners: [...side], points: Array(this.players).fill(ZERO), bonus: [...this.bonus], blocked: false,
        pipsLeft: this.pipsLeft(), endedBy: seat,
      };
    } else {
      this.exact = scoreExact(this.rules, this.players, this.pipsLeft(), seat, blocked, this.lastPlay, this.bonus, this.pot);
    }
  }

  /** A move as the recorder's messages write it: "plays 3-5 right", "draws", "passes". */
  static text(m) {
    return moveText(m);
  }
}

/** "seat 0 and seat 2", "seat 0, seat 1 and seat 3": seats as the recorder lists them. */
function seatList(seats) {
  const names = seats.map((s) => `seat ${s}`);
  return names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}` : names[0];
}

function countsToNames(tiles, counts) {
  const out = [];
  counts.forEach((c, k) => {
    for (let i = 0; i < c; i += 1) out.push(tiles.kindName[k]);
  });
  return out;
}

function takeSeeded(tiles, dealt) {
  const hands = dealt.hands.map((hand) => {
    const counts = Array(tiles.kinds).fill(0);
    for (const t of hand) counts[tiles.parse(t)[0]] += 1;
    return counts;
  });
  return { hands, boneyard: dealt.boneyard.map((t) => tiles.parse(t)[0]) };
}

/** A logged deal checked as the engine's explicit_deal checks it: the whole set, the ruleset's hand size. */
function explicitDeal(rules, tiles, players, deal) {
  if (!isMapping(deal)) throw new DealError("the deal is an object with hands and boneyard");
  const handsIn = deal.hands;
  const boneIn = deal.boneyard === undefined ? [] : deal.boneyard;
  if (!Array.isArray(handsIn) || !Array.isArray(boneIn)) {
    throw new DealError("the deal needs hands (a list per seat) and boneyard (a list)");
  }
  if (handsIn.length !== players) throw new DealError(`the deal has ${handsIn.length} hands for ${players} players`);
  const each = rules.tilesEach(players);
  const left = Array(tiles.kinds).fill(tiles.sets);
  const take = (text, where) => {
    let kind;
    try {
      [kind] = tiles.parse(text);
    } catch (err) {
      throw new DealError(`${where}: ${err.message}`);
    }
    if (left[kind] === 0) {
      throw new DealError(tiles.sets === 1 ? `${where}: ${tiles.kindName[kind]} appears twice in the deal`
        : `${where}: ${tiles.kindName[kind]} appears more than ${tiles.sets} times`);
    }
    left[kind] -= 1;
    return kind;
  };
  const hands = handsIn.map((hand, seat) => {
    if (!Array.isArray(hand)) throw new DealError(`hand ${seat} of the deal is not a list of tiles`);
    if (hand.length !== each) {
      throw new DealError(`hand ${seat} of the deal holds ${hand.length} tiles; ${rules.preset} deals ${each} each to ${players} players`);
    }
    const counts = Array(tiles.kinds).fill(0);
    for (const text of hand) counts[take(text, `hand ${seat}`)] += 1;
    return counts;
  });
  const boneyard = boneIn.map((text) => take(text, "boneyard"));
  if (left.some((c) => c > 0)) {
    const missing = tiles.kindName.filter((_, k) => left[k]);
    throw new DealError(`the deal is not the whole ${tiles.name} set${tiles.sets === 2 ? " (two sets)" : ""}: missing `
      + `${missing.slice(0, 10).join(", ")}${missing.length > 10 ? " ..." : ""}`);
  }
  const opening = rules.openingFor(players);
  if ((opening === "highest-double" || opening === "double-zero-first") && rules.noDouble === "redeal"
      && !hands.some((h) => h.some((c, k) => c > 0 && tiles.isDouble[k]))) {
    throw new DealError("nobody holds a double in this deal; the rules redeal such a deal, so it cannot be the deal that was played");
  }
  return { hands, boneyard };
}

// ---------------------------------------------------------------------- a match
/** A game across rounds: the running scores, the target, and who wins (the engine's Match). */
export class Match {
  constructor(ruleset, players) {
    this.rules = resolveRules(ruleset);
    this.rules.checkPlayers(players);
    this.players = players;
    this.exactScores = Array(players).fill(ZERO);
    /** Each finished round's result, in order. */
    this.results = [];
    this.over = false;
    /** The seats that won the game (once it is over; [] when nobody did). */
    this.winners = [];
    this.pot = 0;
  }

  /** Each player's score, as the recorder's answer writes it. */
  get scores() {
    return this.exactScores.map(toNumber);
  }

  /** The next round from `dealt` (deal()'s answer, or an explicit {hands, boneyard}); `opener` under opening: seat. */
  startRound(dealt, { opener = null } = {}) {
    if (this.over) throw new GameOverError(`the game ended after round ${this.results.length}; no round may follow`);
    if (this.rules.targetCheck === "play" || this.rules.tiePot) {
      return Round.start(this.rules, this.players, dealt, { opener, scores: this.exactScores, pot: this.pot });
    }
    return Round.start(this.rules, this.players, dealt, { opener });
  }

  /** Add a finished round to the scores and check the target. Takes the Round, or its result. */
  finishRound(roundOrResult) {
    const result = roundOrResult instanceof Round ? roundOrResult.result : roundOrResult;
    if (result === null || result === undefined) throw new Error("the round is not over yet");
    this.results.push(result);
    const points = exactPoints(result);
    for (let p = 0; p < this.players; p += 1) {
      this.exactScores[p] = add(add(this.exactScores[p], points[p]), fraction(result.bonus[p]));
    }
    const { rules } = this;
    if (rules.tiePot) this.pot = result.winners.length ? 0 : this.pot + result.pips_left.reduce((s, x) => s + x, 0);
    const scores = this.exactScores;
    const best = () => scores.reduce((m, s) => (rules.targetMode === "reach-wins" ? (cmp(s, m) > 0 ? s : m) : (cmp(s, m) < 0 ? s : m)));
    if (rules.hands) {
      if (this.results.length >= rules.hands) {
        this.over = true;
        const top = best();
        if (scores.some((s) => cmp(s, top) !== 0)) this.winners = scores.flatMap((s, p) => (cmp(s, top) === 0 ? [p] : []));
      }
      return;
    }
    const target = fraction(rules.target);
    if (scores.some((s) => cmp(s, target) >= 0)) {
      this.over = true;
      const top = best();
      this.winners = scores.flatMap((s, p) => (cmp(s, top) === 0 ? [p] : []));
    }
  }
}

