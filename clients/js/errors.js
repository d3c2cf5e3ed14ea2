// The recorder's refusals, as the library raises them: each carries the recorder's
// stable code (docs/format.md, "What the engine answers") and its reason, worded as the
// recorder words it, so a frontend that checks a move here reads what the recorder
// would say about it.

export { RulesetError } from "./rules.js";

/** A move the rules do not allow at that point (code move/illegal). */
export class IllegalMove extends Error {
  constructor(message) {
    super(message);
    this.name = "IllegalMove";
    this.code = "move/illegal";
  }
}

/** A deal the rules cannot have dealt: wrong tiles, wrong hand sizes, a classic deal without a double (code round/deal). */
export class DealError extends Error {
  constructor(message) {
    super(message);
    this.name = "DealError";
    this.code = "round/deal";
  }
}

/** A round after the end of the game (code round/after-end). */
export class GameOverError extends Error {
  constructor(message) {
    super(message);
    this.name = "GameOverError";
    this.code = "round/after-end";
  }
}
