// The log builder: a domino-log/1 document written as the game is played. It knows
// the document's shape, not the rules: the recorder replays the result and checks them.

const TILE = /^\d{1,2}-\d{1,2}$/;
const ENDS = ["left", "right", "up", "down"];

export class LogError extends Error {}

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

  /** Close the round; `result` is what the frontend claims for it (optional). */
  endRound(result = null) {
    this.current("end a round");
    if (result !== null) this.rounds[this.rounds.length - 1].result = { ...result };
    this.open = false;
  }

  /** Close the game; `result` ({scores, winners}) is optional. */
  finish(result = null) {
    if (this.open) this.endRound();
    this.result = result === null ? {} : { ...result };
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
