// Type declarations of domino-log: write domino-log/1 games as the domino recorder reads them.
// Held to the code by TypeScript over test/types.ts, an example that uses every export
// (python3 dev.py test runs `tsc -p clients/js`; test/types.test.js runs the example).

export type Tile = string; // "a-b", like "6-3"
export type End = "left" | "right" | "up" | "down";
export type Preset = "spilop" | "classic" | "kozel" | "italian" | "norwegian"
  | "openspiel-block" | "openspiel-team" | "dominoes-partners" | "all-fives";
/** A log's `ruleset` field: a preset name, or a preset with options (see docs/rules.md). */
export type Ruleset = Preset | { preset: Preset; options?: Options | null };
export type Opening = "highest-double" | "double-zero-first" | "highest-tile" | "free" | "seat";
export type NoDouble = "draw-for-double" | "redeal" | "highest-tile" | "everyone-draws-for-double";
export type DrawRule = "until-playable" | "one" | "none";
export type DominoScoring = "opponents-pips" | "penalty" | "all-pips";
export type BlockedScoring = "lowest-wins" | "fish" | "negative" | "difference" | "lowest-takes-all";
/** A table by player count ("2", "3", "4"; "default" for the counts not listed), or one value for all. */
export type ByPlayers<T> = T | { [players: string]: T };

/** The options a log may give (null: as if left out); the recorder checks names and values. */
export interface Options {
  target?: number | null;
  target_mode?: "reach-wins" | "reach-loses" | null;
  target_check?: "round" | "play" | null;
  hands?: number | null;
  bonus?: boolean | null;
  bonus_multiple?: number | null;
  sets?: 1 | 2 | null;
  max_pip?: 6 | 9 | 12 | null;
  hand_size?: ByPlayers<number> | null;
  draw?: DrawRule | null;
  stock_floor?: number | null;
  opening?: ByPlayers<Opening> | null;
  double_order?: number[] | null;
  no_double?: NoDouble | null;
  tie_break?: "lot" | "any" | null;
  spinner?: boolean | null;
  spinner_arms?: "always" | "after-sides" | null;
  spinner_max_arms?: 3 | 4 | null;
  closed_doubles?: boolean | null;
  domino_scoring?: DominoScoring | null;
  blocked_scoring?: BlockedScoring | null;
  pips_decide?: boolean | null;
  tie_pot?: boolean | null;
  partnerships?: boolean | null;
}

/** The byte stream of a seed: SHA-256(seed + ":" + k), k = 0, 1, ..., read as big-endian u32 words. */
export class Stream {
  constructor(seed: string);
  readonly seed: string;
  u32(): Promise<number>;
  /** A uniform integer in [0, n), without modulo bias. */
  below(n: number): Promise<number>;
}

/** Fisher-Yates from the last index down, drawing from `stream`; returns a new array. */
export function shuffle<T>(items: Iterable<T>, stream: Stream): Promise<T[]>;
/** The canonical order 0-0, 0-1, ..., N-N; the whole list twice for two sets. */
export function canonical(maxPip?: number, sets?: number): Tile[];

export interface Opens {
  /** Seats that may make the first move. */
  seats: number[];
  /** The tile the first move must be; null when any tile may open. */
  tile: Tile | null;
  /** Nobody holds a double and the players draw for one, from seat 0 (spilop, all-fives). */
  drawForDouble: boolean;
}

export interface Deal {
  seed: string;
  tilesEach: number;
  /** Each seat's tiles, in canonical order. */
  hands: Tile[][];
  /** The boneyard in draw order. */
  boneyard: Tile[];
  redeals: number;
  /** The seat chosen by lot among tied holders of the opening tile, or null. */
  lot: number | null;
  opens: Opens;
}

/** A deal as a log writes it: each seat's tiles and the boneyard in draw order. */
export interface RoundDeal {
  hands: Tile[][];
  boneyard: Tile[];
}

/** The recorder's deal of a round seed (see roundSeed), as `recorder deal` shows it. */
export function deal(seed: string, options: { ruleset: Ruleset | Rules; players: number }): Promise<Deal>;
/** "<gameSeed>/<n>": the seed of round n (1-based) without its own seed or deal. */
export function roundSeed(gameSeed: string, n: number): string;

/** One word of the options vocabulary, as rulesets.json has it. */
export interface OptionWord {
  kind: "bool" | "int" | "choice" | "per-players-int" | "per-players-choice" | "pips";
  values?: string[];
  minimum?: number;
  maximum?: number;
  help: string;
}

/** Every rule of a ruleset as the recorder writes it (`recorder rules PRESET --json`). */
export interface RulesJSON {
  preset: Preset;
  min_players: number;
  max_players: number;
  hand_size: Record<string, number>;
  opening: Record<string, Opening>;
  no_double: NoDouble;
  draw: DrawRule;
  stock_floor: number;
  tie_break: "lot" | "any";
  spinner: boolean;
  spinner_arms: "always" | "after-sides";
  bonus: boolean;
  bonus_multiple: number;
  domino_scoring: DominoScoring;
  blocked_scoring: BlockedScoring;
  target: number;
  target_mode: "reach-wins" | "reach-loses";
  sets: number;
  max_pip: number;
  partnerships: boolean;
  hands: number;
  target_check: "round" | "play";
  double_order: number[];
  spinner_max_arms: number;
  closed_doubles: boolean;
  pips_decide: boolean;
  tie_pot: boolean;
}

/** The rulesets file (schemas/rulesets-1.json, written by `recorder rules --json`). */
export interface RulesetsFile {
  format: "domino-rulesets/1";
  about: string;
  max_pips: number[];
  options: Record<string, OptionWord>;
  requires: Record<string, { option: string; does: string }>;
  presets: Record<Preset, RulesJSON & { two_set_hand_size?: Record<string, number> }>;
}

/** Every rule of one ruleset, resolved (a preset with a log's options applied); frozen. */
export class Rules {
  private constructor();
  readonly preset: Preset;
  readonly minPlayers: number;
  readonly maxPlayers: number;
  /** Tiles each by player count; "default" for the counts not listed. */
  readonly handSize: Readonly<Record<string, number>>;
  /** The opening rule by player count; "default" for the counts not listed. */
  readonly opening: Readonly<Record<string, Opening>>;
  readonly noDouble: NoDouble;
  readonly draw: DrawRule;
  readonly stockFloor: number;
  readonly tieBreak: "lot" | "any";
  readonly spinner: boolean;
  readonly spinnerArms: "always" | "after-sides";
  readonly bonus: boolean;
  readonly bonusMultiple: number;
  readonly dominoScoring: DominoScoring;
  readonly blockedScoring: BlockedScoring;
  readonly target: number;
  readonly targetMode: "reach-wins" | "reach-loses";
  readonly sets: number;
  readonly maxPip: number;
  readonly partnerships: boolean;
  /** A match of exactly this many rounds (0: play to the target). */
  readonly hands: number;
  readonly targetCheck: "round" | "play";
  /** The order the doubles are looked for in; [] for highest first. */
  readonly doubleOrder: readonly number[];
  readonly spinnerMaxArms: number;
  readonly closedDoubles: boolean;
  readonly pipsDecide: boolean;
  readonly tiePot: boolean;
  /** The options the log gave, as it wrote them (null ones left out). */
  readonly options: Readonly<Options>;
  tilesEach(players: number): number;
  openingFor(players: number): Opening;
  /** Who scores together: [[0, 2], [1, 3]] in partnerships, else each seat alone. */
  sides(players: number): number[][];
  /** Throws RulesetError unless `players` may play these rules. */
  checkPlayers(players: number): void;
  /** These rules with more options applied, checked as the recorder checks them. */
  withOptions(options: Options): Rules;
  toJSON(): RulesJSON;
}

/** A ruleset the recorder refuses, with its message and JSON pointer (code ruleset/invalid). */
export class RulesetError extends Error {
  readonly code: "ruleset/invalid";
  pointer: string | null;
}
/** Every preset, resolved. */
export const PRESETS: Readonly<Record<Preset, Rules>>;
/** The rulesets file the library reads (the recorder's own). */
export const RULESETS: RulesetsFile;
/** The options vocabulary: name -> kind, values, bounds and meaning. */
export const OPTIONS: Readonly<Record<string, OptionWord>>;
/** A log's ruleset field resolved and checked as the recorder does; throws RulesetError. */
export function resolveRules(ruleset: Ruleset | Rules): Rules;

export const ENDS: readonly End[];

export interface Placed {
  /** The end the tile went to; null for the round's first tile. */
  end: End | null;
  /** The open-end sum after the play. */
  sum: number;
  /** What the play scores under the bonus rule (0 when it is off or the sum is no multiple). */
  bonus: number;
}

export interface BoardOptions {
  spinner?: boolean;
  spinnerArms?: "always" | "after-sides";
  spinnerMaxArms?: number;
  closedDoubles?: boolean;
  bonus?: boolean;
  bonusMultiple?: number;
  maxPip?: number;
}

/** One end of the table in detail (Board.ends()). */
export interface EndDetail {
  /** The number a tile must match to go there; null for an end closed for good. */
  shows: number | null;
  /** What the end adds to the open-end sum. */
  counts: number;
  /** A spinner's arm open for play that holds no tile: it counts 0. */
  empty: boolean;
  /** Closed for good (a closed double, or a spinner side past spinner_max_arms). */
  closed: boolean;
}

/** A move as a log writes it. */
export interface Move {
  player: number;
  action: "play" | "draw" | "pass";
  tile?: Tile | null;
  end?: End | null;
  closed?: boolean;
  ms?: number | null;
}

/** A move a hand may make on a board (Board.legalMoves): no player, the end always named. */
export interface BoardMove {
  action: "play" | "draw" | "pass";
  tile?: Tile;
  /** Where the tile goes; null for the round's first tile. */
  end?: End | null;
  closed?: true;
}

/** Open ends and the open-end sum of the bonus rule. */
export class Board {
  constructor(options?: BoardOptions | Rules);
  static forRuleset(ruleset: Ruleset | Rules): Board;
  /** How many tiles lie on the table. */
  readonly tiles: number;
  /** The tiles in the order placed: [inner half, outer half, end] (end null for the first tile). */
  readonly line: ReadonlyArray<[number, number, End | null]>;
  /** An independent copy. */
  clone(): Board;
  /** The number each open end shows: what a tile must match there (not what it counts: see ends()). */
  openEnds(): Partial<Record<End, number>>;
  /** Each end in detail: what it shows and counts, and whether it is an empty arm or closed. */
  ends(): Partial<Record<End, EndDetail>>;
  /** The ends that take `tile` now, in order left, right, up, down; [] before the first tile, which takes no end. */
  fits(tile: Tile): End[];
  /** Whether a double may be played closed now (closed_doubles, once the spinner has two arms). */
  mayClose(): boolean;
  /** Where the play would go; throws IllegalMove with the recorder's reason when it may not. */
  check(tile: Tile, end?: End | null, options?: { closed?: boolean }): End | null;
  place(tile: Tile, end?: End | null, options?: { closed?: boolean }): Placed;
  /** The bonus the play would score, without placing it; throws IllegalMove when it may not be played. */
  scoreOf(tile: Tile, end?: End | null, options?: { closed?: boolean }): number;
  /** What `hand` may do now: every play with its end, else draw or pass. */
  legalMoves(hand: Tile[], options?: { boneyard?: number; drew?: boolean; opening?: Tile | null; draw?: DrawRule; stockFloor?: number }): BoardMove[];
  openEndSum(): number;
}

/** A round's result, as the recorder computes it and a log claims it. */
export interface RoundResult {
  winners: number[];
  points: number[];
  bonus: number[];
  blocked: boolean;
  pips_left: number[];
  ended_by: number;
}

export type Phase = "draw-for-double" | "opening" | "play" | "over";

/** What a move did: a play's end, sum and bonus, a draw's tile. */
export interface Applied {
  end?: End | null;
  sum?: number;
  bonus?: number;
  tile?: Tile;
}

/** One round as the recorder's engine plays it. */
export class Round {
  private constructor();
  /** The round just after the deal: deal()'s answer or an explicit deal; see Match.startRound. */
  static start(ruleset: Ruleset | Rules, players: number, dealt: Deal | RoundDeal,
    options?: { opener?: number | null; scores?: number[] | null; pot?: number }): Round;
  /** A move as the recorder's messages write it: "plays 3-5 right". */
  static text(move: Move): string;
  readonly rules: Rules;
  readonly players: number;
  readonly board: Board;
  readonly phase: Phase;
  /** The seat to move (the first opener during an opening several may make). */
  readonly turn: number;
  /** The seats that may open, during the opening. */
  readonly openers: readonly number[];
  /** The bonus each seat scored this round. */
  readonly bonus: readonly number[];
  /** How many moves were made. */
  readonly moves: number;
  /** Whether the player to move has drawn this turn. */
  readonly drew: boolean;
  /** The seat that placed the last tile (-1: none yet). */
  readonly lastPlay: number;
  /** The pips tied rounds left (tie_pot). */
  readonly pot: number;
  readonly deal: Readonly<{ hands: Tile[][]; boneyard: Tile[]; seeded: boolean; lot: number | null; redeals: number }>;
  readonly over: boolean;
  /** The round's result once it is over, else null. */
  readonly result: RoundResult | null;
  /** The tiles left to draw, in draw order. */
  readonly boneyard: Tile[];
  /** The tile the first play must be (null: any tile). */
  readonly openingTile: Tile | null;
  clone(): Round;
  hand(seat: number): Tile[];
  boneyardLeft(): number;
  pipsLeft(): number[];
  mayDraw(): boolean;
  mayClose(): boolean;
  canPlay(seat: number): boolean;
  openEndSum(): number;
  /** Every legal move now (of `seat`, or of everyone who may move); plays name their end. */
  legalMoves(seat?: number | null): Move[];
  /** The bonus the move would score now (0 when it scores nothing or is not legal). */
  scoreOf(move: Move): number;
  /** Throws IllegalMove with the recorder's reason unless the move is legal now. */
  check(move: Move): unknown;
  isLegal(move: Move): boolean;
  apply(move: Move): Applied;
}

/** A game across rounds: the running scores, the target, and who wins. */
export class Match {
  constructor(ruleset: Ruleset | Rules, players: number);
  readonly rules: Rules;
  readonly players: number;
  readonly scores: number[];
  readonly results: RoundResult[];
  readonly over: boolean;
  readonly winners: number[];
  readonly pot: number;
  startRound(dealt: Deal | RoundDeal, options?: { opener?: number | null }): Round;
  finishRound(round: Round | RoundResult): void;
}

/** A finished round's result from what is left in the hands (the engine's scoring). */
export function scoreRound(ruleset: Ruleset | Rules, facts: {
  pipsLeft: number[]; endedBy: number; blocked: boolean; lastPlay?: number; bonus?: number[] | null; pot?: number;
}): RoundResult;

/** A move the rules refuse (code move/illegal). */
export class IllegalMove extends Error {
  readonly code: "move/illegal";
}
/** A deal the rules cannot have dealt (code round/deal). */
export class DealError extends Error {
  readonly code: "round/deal";
}
/** A round after the end of the game (code round/after-end). */
export class GameOverError extends Error {
  readonly code: "round/after-end";
}

export interface Player {
  id: string;
  name?: string;
  [key: string]: unknown;
}

/** A round's claim (each field optional). Other names are refused. */
export type RoundClaim = Partial<RoundResult>;
/** The game's claim. Other names are refused. */
export interface GameClaim {
  scores?: number[];
  winners?: number[];
}

export class LogError extends Error {}

/** A domino-log/1 document written as the game is played. */
export class GameLog {
  constructor(options: {
    ruleset: Ruleset;
    players: Array<string | Player>;
    seed?: string | null;
    gameId?: string | null;
    frontend?: string | { name: string; version?: string } | null;
    startedAt?: string | null;
  });
  readonly ruleset: Ruleset;
  readonly players: Player[];
  readonly seed: string | null;
  readonly gameId: string | null;
  /** The rounds so far, as the document holds them. */
  readonly rounds: Array<{ seed?: string; deal?: RoundDeal; opener?: number; moves: Move[]; result?: RoundClaim }>;
  /** The game's claim once finish() was called, else null. */
  readonly result: GameClaim | null;
  /** Whether a round is open. */
  readonly open: boolean;
  startRound(options?: { seed?: string | null; deal?: RoundDeal | null; opener?: number | null }): number;
  play(player: number, tile: Tile, end?: End | null, options?: { ms?: number | null; closed?: boolean }): void;
  draw(player: number, tile?: Tile | null, options?: { ms?: number | null }): void;
  pass(player: number, options?: { ms?: number | null }): void;
  endRound(result?: RoundClaim | RoundResult | null): void;
  finish(result?: GameClaim | null): void;
  toJSON(): Record<string, unknown>;
  serialize(indent?: number): string;
}

/** The rules' verdict on a whole log, as the recorder will give it. */
export type Replayed =
  | { game_id: string | null; status: "finished" | "unfinished"; rounds: RoundResult[]; scores: number[]; winners: number[] }
  | { game_id: string | null; status: "invalid"; error: { round: number; move: number; message: string; code: string } };
export function replayLog(log: GameLog | object): Promise<Replayed>;

/** A claimed figure that differs from the engine's (docs/format.md). */
export interface Mismatch {
  round: number;
  field: string;
  claimed: unknown;
  computed: unknown;
}

export interface UploadedGame {
  game_id: string | null;
  status: "accepted" | "duplicate" | "refused" | "superseded";
  error: { round: number; move: number; message: string; code: string; pointer?: string } | null;
  /** The stored game's id (the new one, or the one this duplicates). */
  id: number | null;
  /** The engine's status of an accepted game. */
  result?: "finished" | "unfinished";
  /** An accepted game's claimed figures that differ from the engine's. */
  mismatches?: Mismatch[];
  /** Reported duplicate after an attempt of this call that got no answer: that attempt most likely stored it. */
  earlierAttempt?: true;
  index: number | null;
  line: number | null;
  [key: string]: unknown;
}

export interface UploadReport {
  summary: { accepted: number; duplicate: number; superseded: number; refused: number; [status: string]: number };
  games: UploadedGame[];
  /** How many requests this call made (0 when there was nothing to send). */
  attempts: number;
  /** With finishedOnly: the games kept back, and why. */
  skipped?: Array<{ index: number; game_id: string | null; status: "unfinished" | "invalid" }>;
  /** Set when the recorder failed on some documents (500 internal/documents) and handled the others. */
  error?: { code: string; message: string } | null;
}

export class UploadError extends Error {
  status: number | null;
  answer: unknown;
  /** How many requests were made, when known. */
  attempts: number | null;
}

export interface UploadOptions {
  /** The service, like "https://recorder.example" (POST goes to /api/games). */
  url: string;
  /** An upload token (recorder token create NAME). */
  token: string;
  retries?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  /** How long one attempt may wait for its answer (60000). */
  timeoutMs?: number;
  /** Send only the games whose replay is finished (replayLog); the rest are listed in `skipped`. */
  finishedOnly?: boolean;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (info: { attempt: number; wait: number; error: UploadError | null }) => void;
}

/** Upload one log or several; retried with backoff; a resend comes back "duplicate". */
export function upload(docs: GameLog | object | Array<GameLog | object>, options: UploadOptions): Promise<UploadReport>;

/** The numbered tiles of one set, as the engine keeps them. */
export class TileSet {
  constructor(maxPip: number, sets: number);
  readonly maxPip: number;
  readonly sets: number;
  readonly name: string;
  readonly kinds: number;
  readonly size: number;
  readonly kindName: readonly Tile[];
  /** [kind, first half, second half]; throws Error with the recorder's reason. */
  parse(text: unknown): [number, number, number];
}
export function tileSet(maxPip?: number, sets?: number): TileSet;
export function parseTile(text: Tile): [number, number];
export function normalTile(text: Tile): Tile;
export function sortTiles(tiles: Tile[], maxPip?: number): Tile[];
export function kindIndex(a: number, b: number, maxPip?: number): number;
export function pips(text: Tile): number;
export function isDouble(text: Tile): boolean;
/** The pips of a hand (what a round's pips_left counts). */
export function handPips(hand: Tile[]): number;
