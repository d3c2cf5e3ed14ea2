// domino-log: write domino-log/1 games in JavaScript, as the recorder reads them.
export { Stream, shuffle, canonical } from "./shuffle.js";
export { deal, roundSeed } from "./deal.js";
export { OPTIONS, PRESETS, RULESETS, Rules, RulesetError, resolveRules } from "./rules.js";
export { Board, ENDS } from "./board.js";
export { Match, Round, scoreRound } from "./round.js";
export { DealError, GameOverError, IllegalMove } from "./errors.js";
export { GameLog, LogError } from "./log.js";
export { replayLog } from "./replay.js";
export { upload, UploadError } from "./upload.js";
export { TileSet, handPips, isDouble, kindIndex, normalTile, parseTile, pips, sortTiles, tileSet } from "./tiles.js";
