// domino-log: write domino-log/1 games in JavaScript, as the recorder reads them.
export { Stream, shuffle, canonical } from "./shuffle.js";
export { deal, roundSeed } from "./deal.js";
export { PRESETS, resolveRules } from "./rules.js";
export { Board, ENDS } from "./board.js";
export { GameLog, LogError } from "./log.js";
export { upload, UploadError } from "./upload.js";
export { parseTile, normalTile, sortTiles, kindIndex, pips } from "./tiles.js";
