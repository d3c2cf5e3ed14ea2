// Tiles as the log writes them ("6-3"); kinds numbered in canonical order.

const TILE = /^(\d{1,2})-(\d{1,2})$/;

/** [a, b] of a tile text, halves as written; throws for anything else. */
export function parseTile(text) {
  const m = typeof text === "string" ? TILE.exec(text) : null;
  if (!m) throw new Error(`${JSON.stringify(text)} is not a tile; write tiles as "a-b", like "6-3"`);
  return [Number(m[1]), Number(m[2])];
}

/** Index of tile a-b in the canonical order 0-0, 0-1, ..., N-N. */
export function kindIndex(a, b, maxPip = 6) {
  const lo = Math.min(a, b);
  const hi = Math.max(a, b);
  const n = maxPip + 1;
  return lo * n - (lo * (lo - 1)) / 2 + (hi - lo);
}

/** The canonical text of a tile, low half first. */
export function normalTile(text) {
  const [a, b] = parseTile(text);
  return `${Math.min(a, b)}-${Math.max(a, b)}`;
}

/** Sort tile texts in canonical order (returns a new array). */
export function sortTiles(tiles, maxPip = 6) {
  const key = (t) => {
    const [a, b] = parseTile(t);
    return kindIndex(a, b, maxPip);
  };
  return [...tiles].sort((x, y) => key(x) - key(y));
}

export function pips(text) {
  const [a, b] = parseTile(text);
  return a + b;
}
