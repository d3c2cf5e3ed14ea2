// Laying out the line of tiles on the table: pure geometry, no rules.
//
// The unit is one half of a tile (a square cell). A tile lying along the line takes two
// cells in a row; a double lies crosswise (its two cells side by side across the line).
// Every placed tile gets the centres of its two cells: `a` is the half that touches the
// line (for the opening tile: its left half), `b` the half that shows at the end, so the
// touching halves of neighbours always sit next to each other.
//
// Each end of the line is an "arm" that grows outward from the opening tile in the
// order the tiles were placed. An arm runs straight until it reaches the edge of its
// space, turns a corner (one tile across), comes back, and so on: a snake, as players
// lay out a long line on a real table. With a spinner the four arms wind like a
// pinwheel, each in its own quarter, so they never cross.

const ARMS = {
  // axis: the coordinate a run goes along; dir: the sign of the first run;
  // adv: where the arm goes at a corner ([dx, dy]).
  left: {axis: 0, dir: -1, adv: [0, -1]},
  right: {axis: 0, dir: 1, adv: [0, 1]},
  up: {axis: 1, dir: -1, adv: [1, 0]},
  down: {axis: 1, dir: 1, adv: [-1, 0]},
};

const add = (p, v, k = 1) => [p[0] + v[0] * k, p[1] + v[1] * k];

/** Place one tile from the point `p` (middle of the edge it touches) going `d`. */
function put(tile, p, d) {
  if (tile.double) {
    const across = [d[1], d[0]];
    const mid = add(p, d, 0.5);
    return {cells: [add(mid, across, -0.5), add(mid, across, 0.5)], next: add(p, d, 1)};
  }
  return {cells: [add(p, d, 0.5), add(p, d, 1.5)], next: add(p, d, 2)};
}

/**
 * Lay one arm out. `lo`/`hi` bound the runs along the arm's axis; the corner tile
 * may reach them, the straight runs stop one cell short so the corner fits.
 */
function layArm(tiles, start, spec, lo, hi, out, tails) {
  let p = start;
  let sign = spec.dir;
  let d = spec.axis === 0 ? [sign, 0] : [0, sign];
  let turning = false; // just placed a corner tile: the run comes back next
  let inRun = 0;
  for (const tile of tiles) {
    if (turning) {
      if (tile.double) { // a double at the corner keeps going across, then we turn
        const placed = put(tile, p, d);
        out.set(tile.seq, placed.cells);
        p = placed.next;
        tails.set(tile.seq, add(p, d, 0.5));
        continue;
      }
      const back = spec.axis === 0 ? [sign, 0] : [0, sign];
      p = add(add(p, d, 0.5), back, -0.5);
      d = back;
      turning = false;
      inRun = 0;
    } else {
      const len = tile.double ? 1 : 2;
      const far = p[spec.axis] + sign * len;
      const fits = sign > 0 ? far <= hi - 1 : far >= lo + 1;
      if (!fits && !tile.double && inRun > 0) {
        // the corner: this tile turns across, the next run goes the other way
        p = add(add(p, d, 0.5), spec.adv, -0.5);
        d = spec.adv;
        sign = -sign;
        turning = true;
      }
    }
    const placed = put(tile, p, d);
    out.set(tile.seq, placed.cells);
    p = placed.next;
    tails.set(tile.seq, add(p, d, 0.5)); // where the next tile's touching half would go
    if (!turning) inRun += 1;
  }
}

/** Lay out `board` (PLACED list) with half-widths `x` (left/right runs) and `y` (up/down). */
export function layoutWith(board, x, y) {
  const cells = new Map();
  const tails = new Map(); // seq -> the centre of the cell just past it, along its arm
  if (!board.length) return {cells, tails, box: [0, 0, 0, 0]};
  const opening = board.find((t) => t.end == null) || board[0];
  const arms = {left: [], right: [], up: [], down: []};
  for (const t of board) {
    if (t === opening) continue;
    (arms[t.end] || arms.right).push(t);
  }
  const pinwheel = Boolean(opening.spinner) || arms.up.length > 0 || arms.down.length > 0;
  if (opening.double) {
    cells.set(opening.seq, [[0, -0.5], [0, 0.5]]);
  } else {
    cells.set(opening.seq, [[-0.5, 0], [0.5, 0]]);
  }
  const half = opening.double ? 0.5 : 1;
  tails.set("left", [-half - 0.5, 0]);
  tails.set("right", [half + 0.5, 0]);
  // a run may end one cell past its bound (a double that does not fit is laid anyway,
  // then the corner follows it), so the runs coming back stop well clear of the middle
  const inner = 2.5;
  layArm(arms.left, [-half, 0], ARMS.left, -x, pinwheel ? -inner : x, cells, tails);
  layArm(arms.right, [half, 0], ARMS.right, pinwheel ? inner : -x, x, cells, tails);
  layArm(arms.up, [0, -1], ARMS.up, -y, -inner, cells, tails);
  layArm(arms.down, [0, 1], ARMS.down, inner, y, cells, tails);
  let minX = Infinity; let minY = Infinity; let maxX = -Infinity; let maxY = -Infinity;
  for (const pair of cells.values()) {
    for (const [cx, cy] of pair) {
      minX = Math.min(minX, cx - 0.5); maxX = Math.max(maxX, cx + 0.5);
      minY = Math.min(minY, cy - 0.5); maxY = Math.max(maxY, cy + 0.5);
    }
  }
  return {cells, tails, box: [minX, minY, maxX, maxY], pinwheel};
}

/**
 * The layout that shows `board` largest in a `width` x `height` box: tries the run
 * lengths a table of that shape allows and keeps the one with the biggest tiles.
 * `maxUnit` caps the size of a cell so a short line is not drawn huge.
 */
export function layout(board, width, height, maxUnit = 40) {
  const margin = 1;
  let best = null;
  const spinner = board.some((t) => t.spinner || t.end === "up" || t.end === "down");
  const ys = spinner ? [15, 12, 10, 8, 7, 6] : [0];
  // longest runs first: at equal size the fewest corners win, and once a layout reaches
  // the largest cell allowed nothing after it can beat it
  for (let x = 26; x >= (spinner ? 6 : 5); x -= 1) {
    for (const y of ys) {
      const lay = layoutWith(board, x, y);
      const [x0, y0, x1, y1] = lay.box;
      const w = x1 - x0 + 2 * margin;
      const h = y1 - y0 + 2 * margin;
      const unit = Math.min(width / w, height / h, maxUnit);
      if (!best || unit > best.unit + 1e-9) best = {...lay, unit, x, y};
      if (best.unit >= maxUnit - 1e-9) return best;
    }
  }
  return best;
}
