// Type declarations of domino-log: write domino-log/1 games as the domino recorder reads them.

export type Tile = string; // "a-b", like "6-3"
export type End = "left" | "right" | "up" | "down";
export type Preset = "spilop" | "classic" | "kozel" | "italian" | "norwegian"
  | "openspiel-block" | "openspiel-team" | "dominoes-partners" | "all-fives";
export type Ruleset = Preset | { preset: Preset; options?: Record<string, unknown> };

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
  /** Nobody holds a double and the players draw for one in turn from seat 0 (spilop). */
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

/** The recorder's deal of a round seed (see roundSeed), as `recorder deal` shows it. */
export function deal(seed: string, options: { ruleset: Ruleset; players: number }): Promise<Deal>;
/** "<gameSeed>/<n>": the seed of round n (1-based) without its own seed or deal. */
export function roundSeed(gameSeed: string, n: number): string;

export interface ResolvedRules {
  preset: Preset;
  minPlayers: number;
  maxPlayers: number;
  maxPip: number;
  sets: number;
  tilesEach(players: number): number;
  opening(players: number): string;
  doubleOrder: number[] | null;
  noDouble: string;
  tieBreak: string;
  spinner: boolean;
  spinnerArms: "always" | "after-sides";
  spinnerMaxArms: 3 | 4;
  closedDoubles: boolean;
  bonus: boolean;
  bonusMultiple: number;
}
export const PRESETS: Readonly<Record<Preset, unknown>>;
export function resolveRules(ruleset: Ruleset): ResolvedRules;

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
  spinnerMaxArms?: 3 | 4;
  bonus?: boolean;
  bonusMultiple?: number;
}

/** Open ends and the open-end sum of the bonus rule. */
export class Board {
  constructor(options?: BoardOptions);
  static forRuleset(ruleset: Ruleset): Board;
  openEnds(): Partial<Record<End, number>>;
  /** The ends that take `tile` now, in order left, right, up, down. */
  fits(tile: Tile): End[];
  place(tile: Tile, end?: End | null, options?: { closed?: boolean }): Placed;
  openEndSum(): number;
}

export interface Player {
  id: string;
  name?: string;
  [key: string]: unknown;
}

export interface RoundDeal {
  hands: Tile[][];
  boneyard: Tile[];
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
  startRound(options?: { seed?: string | null; deal?: RoundDeal | null; opener?: number | null }): number;
  play(player: number, tile: Tile, end?: End | null, options?: { ms?: number | null; closed?: boolean }): void;
  draw(player: number, tile?: Tile | null, options?: { ms?: number | null }): void;
  pass(player: number, options?: { ms?: number | null }): void;
  endRound(result?: Record<string, unknown> | null): void;
  finish(result?: { scores?: number[]; winners?: number[] } | null): void;
  toJSON(): Record<string, unknown>;
  serialize(indent?: number): string;
}

export interface UploadReport {
  summary: { accepted: number; duplicate: number; refused: number };
  games: Array<{ game_id: string | null; status: "accepted" | "duplicate" | "refused"; error: unknown; id: number | null; [key: string]: unknown }>;
}

export class UploadError extends Error {
  status: number | null;
  answer: unknown;
}

export interface UploadOptions {
  /** The service, like "https://recorder.example" (POST goes to /api/games). */
  url: string;
  /** An upload token (recorder token create NAME). */
  token: string;
  retries?: number;
  backoffMs?: number;
  maxBackoffMs?: number;
  fetch?: typeof globalThis.fetch;
  sleep?: (ms: number) => Promise<void>;
  onRetry?: (info: { attempt: number; wait: number; error: UploadError | null }) => void;
}

/** Upload one log or several; retried with backoff; a resend comes back "duplicate". */
export function upload(docs: GameLog | object | Array<GameLog | object>, options: UploadOptions): Promise<UploadReport>;

export function parseTile(text: Tile): [number, number];
export function normalTile(text: Tile): Tile;
export function sortTiles(tiles: Tile[], maxPip?: number): Tile[];
export function kindIndex(a: number, b: number, maxPip?: number): number;
export function pips(text: Tile): number;
