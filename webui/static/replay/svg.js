// Drawing tiles in SVG: one tile from the centres of its two cells, face up or down.
// Knows no rules; only how a domino looks.

const NS = "http://www.w3.org/2000/svg";

/** An SVG element with attributes (values become strings; nothing is parsed as markup). */
export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) {
    if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  }
  if (parent) parent.append(node);
  return node;
}

// Pip positions on a 3x3 grid, for an upright half; a half lying sideways swaps them.
const PIPS = {
  0: [],
  1: [[0, 0]],
  2: [[-1, -1], [1, 1]],
  3: [[-1, -1], [0, 0], [1, 1]],
  4: [[-1, -1], [1, -1], [-1, 1], [1, 1]],
  5: [[-1, -1], [1, -1], [0, 0], [-1, 1], [1, 1]],
  6: [[-1, -1], [-1, 0], [-1, 1], [1, -1], [1, 0], [1, 1]],
  7: [[-1, -1], [-1, 0], [-1, 1], [0, 0], [1, -1], [1, 0], [1, 1]],
  8: [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]],
  9: [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 0], [0, 1], [1, -1], [1, 0], [1, 1]],
};
const STEP = 0.25;
const RADIUS = 0.085;

function drawHalf(g, n, cx, cy, sideways) {
  const pattern = PIPS[n];
  if (pattern === undefined) { // 10 to 12 (double-twelve sets): a numeral reads better
    const t = el("text", {x: cx, y: cy, class: "numeral"}, g);
    t.textContent = String(n);
    return;
  }
  for (const [i, j] of pattern) {
    const [dx, dy] = sideways ? [j, i] : [i, j];
    el("circle", {cx: cx + dx * STEP, cy: cy + dy * STEP, r: RADIUS, class: "pip"}, g);
  }
}

/**
 * A tile with its halves at `cells` ([[x, y], [x, y]], unit squares), showing `nums`
 * ([n, n]) or face down when `nums` is null.
 */
export function drawTile(parent, cells, nums, attrs = {}) {
  const [[ax, ay], [bx, by]] = cells;
  const g = el("g", attrs, parent);
  const x = Math.min(ax, bx) - 0.5;
  const y = Math.min(ay, by) - 0.5;
  const w = Math.abs(ax - bx) + 1;
  const h = Math.abs(ay - by) + 1;
  const inset = 0.035;
  el("rect", {x: x + inset, y: y + inset, width: w - 2 * inset, height: h - 2 * inset,
    rx: 0.13, class: nums ? "face" : "back"}, g);
  if (!nums) return g;
  const sideways = ay === by; // the tile lies along x
  if (sideways) {
    const mx = (ax + bx) / 2;
    el("line", {x1: mx, y1: y + 0.16, x2: mx, y2: y + h - 0.16, class: "divider"}, g);
  } else {
    const my = (ay + by) / 2;
    el("line", {x1: x + 0.16, y1: my, x2: x + w - 0.16, y2: my, class: "divider"}, g);
  }
  drawHalf(g, nums[0], ax, ay, sideways);
  drawHalf(g, nums[1], bx, by, sideways);
  return g;
}

/** "3-5" as [3, 5]; anything unreadable as null (drawn face down rather than guessed). */
export function parseTile(text) {
  const m = /^(\d+)-(\d+)$/.exec(String(text));
  return m ? [Number(m[1]), Number(m[2])] : null;
}
