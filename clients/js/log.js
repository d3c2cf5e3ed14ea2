// The log builder: a domino-log/1 document written as the game is played. It knows
// the document's shape, not the rules: the recorder replays the result and checks them.

import { closeMatches } from "./words.js";

const TILE = /^\d{1,2}-\d{1,2}$/;
const ENDS = ["left", "right", "up", "down"];
/** The fields a claimed result may have (schemas/domino-log-1.schema.json): a claim under another name would go unread, so it is refused. */
const ROUND_RESULT = ["winners", "points", "bonus", "blocked", "pips_left", "ended_by"];
const GAME_RESULT = ["scores", "winners"];

export class LogError extends Error {}

function checkClaim(result, known, what) {
  if (typeof result !== "object" || Array.isArray(result)) {
    throw new LogError(`${what} is an object like {${known.slice(0, 2).map((k) => `${k}: ...`).join(", ")}}, not ${JSON.stringify(result)}`);
  }
  for (const key of Object.keys(result)) {
    if (result[key] === undefined || known.includes(key)) continue;
    const close = closeMatches(key, known, 1);
    const hint = close.length ? ` (did you mean "${close[0]}"?)` : "";
    throw new LogError(`${what} has no field "${key}"${hint}; ${what} has ${known.slice(0, -1).join(", ")} and ${known[known.length - 1]}`);
  }
  return Object.fromEntries(Object.entries(result).filter(([, v]) => v !== undefined));
}

export class GameLog {
  /**
   * {ruleset, players, seed, gameId, frontend, startedAt}: `players` are ids or
   * {id, name} objects in seat order; `ruleset` a preset name or {preset, options};
   * `frontend` a name or {name, version}.
   */
  constructor({ ruleset, players, seed = null, gameId = null, frontend = null, startedAt = null }) {
    if (!ruleset) throw new LogError("a game needs a ruleset");
    if (!Array.isArray(players) || players.length === 0) throw new LogError("a game needs at least one player");
    this.players = players.map((p) => (typeof p === "string" ? { id: p } : { ...p }));
    for (const p of this.players) {
      if (typeof p.id !== "string" || p.id === "") throw new LogError(`a player needs a non-empty string id, not ${JSON.stringify(p.id)}`);
    }
    if (new Set(this.players.map((p) => p.id)).size !== this.players.length) {
      throw new LogError("player ids must be unique in a game");
    }
    this.ruleset = ruleset;
    this.seed = seed;
    this.gameId = gameId;
    this.frontend = typeof frontend === "string" ? { name: frontend } : frontend;
    this.startedAt = startedAt;
    this.rounds = [];
    this.result = null;
    this.open = false;
  }

  /** Begin the next round; returns its number (1-based). Without seed or deal the recorder deals it from "<game seed>/<n>". */
  startRound({ seed = null, deal = null, opener = null } = {}) {
    if (this.open) throw new LogError(`round ${this.rounds.length} is still open; end it first`);
    if (this.result !== null) throw new LogError("the game is finished; no round may follow");
    if (seed !== null && deal !== null) throw new LogError("a round takes a seed or a deal, not both");
    if (seed === null && deal === null && this.seed === null) {
      throw new LogError("the round has no seed or deal, and the game has no seed");
    }
    const round = {};
    if (seed !== null) round.seed = seed;
    if (deal !== null) round.deal = { hands: deal.hands.map((h) => [...h]), boneyard: [...(deal.boneyard || [])] };
    if (opener !== null) {
      this.seat(opener, "opener");
      round.opener = opener;
    }
    round.moves = [];
    this.rounds.push(round);
    this.open = true;
    return this.rounds.length;
  }

  /**
   * Close the round; `result` is what the frontend claims for it (optional): {winners,
   * points, bonus, blocked, pips_left, ended_by}, as Round.result gives it. A field of
   * another name is refused at once (the recorder would refuse the log).
   */
  endRound(result = null) {
    this.current("end a round");
    const claim = result === null ? null : checkClaim(result, ROUND_RESULT, "a round result");
    if (claim !== null) this.rounds[this.rounds.length - 1].result = claim;
    this.open = false;
  }

  /** Close the game; `result` ({scores, winners}) is optional. */
  finish(result = null) {
    const claim = result === null ? {} : checkClaim(result, GAME_RESULT, "a game result");
    if (this.open) this.endRound();
    this.result = claim;
  }

  /** A tile placed; `end` (left, right, up, down) when more than one end took it. */
  play(player, tile, end = null, { ms = null, closed = false } = {}) {
    if (tile === null || tile === undefined) throw new LogError("a play needs a tile");
    this.move(player, "play", tile, end, ms, closed);
  }

  /** A tile drawn from the boneyard; give `tile` to have the recorder check it. */
  draw(player, tile = null, { ms = null } = {}) {
    this.move(player, "draw", tile, null, ms);
  }

  /** The player could neither play nor draw. */
  pass(player, { ms = null } = {}) {
    this.move(player, "pass", null, null, ms);
  }

  current(what) {
    if (!this.open) throw new LogError(`no round is open to ${what}; call startRound first`);
    return this.rounds[this.rounds.length - 1];
  }

  seat(seat, what) {
    if (!Number.isInteger(seat) || seat < 0 || seat >= this.players.length) {
      throw new LogError(`${what} is a seat from 0 to ${this.players.length - 1}, not ${JSON.stringify(seat)}`);
    }
  }

  move(player, action, tile, end, ms, closed = false) {
    const round = this.current("record a move in");
    this.seat(player, "player");
    if (tile !== null && (typeof tile !== "string" || !TILE.test(tile))) {
      throw new LogError(`${JSON.stringify(tile)} is not a tile; write tiles as "a-b", like "6-3"`);
    }
    if (end !== null && end !== undefined && !ENDS.includes(end)) {
      throw new LogError(`${JSON.stringify(end)} is not an end; ends are left, right, up, down`);
    }
    if (ms !== null && (!Number.isInteger(ms) || ms < 0)) {
      throw new LogError(`ms is a whole number of milliseconds, not ${JSON.stringify(ms)}`);
    }
    const entry = { player, action };
    if (tile !== null) entry.tile = tile;
    if (end !== null && end !== undefined) entry.end = end;
    if (closed) entry.closed = true;
    if (ms !== null) entry.ms = ms;
    round.moves.push(entry);
  }

  /** The document as plain JSON data, keys in the recorder's order. */
  toJSON() {
    const doc = { format: "domino-log/1" };
    if (this.gameId !== null) doc.game_id = this.gameId;
    if (this.frontend !== null) doc.frontend = this.frontend;
    doc.ruleset = this.ruleset;
    doc.players = this.players;
    if (this.seed !== null) doc.seed = this.seed;
    if (this.startedAt !== null) doc.started_at = this.startedAt;
    doc.rounds = this.rounds;
    if (this.result && Object.keys(this.result).length) doc.result = this.result;
    return doc;
  }

  /** The document as JSON text. */
  serialize(indent) {
    return JSON.stringify(this.toJSON(), null, indent);
  }
}
