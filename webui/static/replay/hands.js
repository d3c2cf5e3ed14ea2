// The players: name, score, bonus, hand (face up, or face down from another seat's
// point of view) and what each is known to lack. Everything from the log is text.

import {drawTile, el, parseTile} from "./svg.js";
import {fmt, nameNode} from "./text.js";

const GAP = 0.22;

function handSvg(tiles, faceUp, highlight, unitPx) {
  const n = Math.max(tiles.length, 1);
  const width = n * (1 + GAP) - GAP;
  const svg = el("svg", {
    class: "hand", viewBox: `-0.05 -0.05 ${width + 0.1} 2.1`,
    width: Math.round((width + 0.1) * unitPx), height: Math.round(2.1 * unitPx),
    role: "img",
  });
  tiles.forEach((name, i) => {
    const x = i * (1 + GAP) + 0.5;
    const nums = faceUp ? parseTile(name) : null;
    const cls = ["tile"];
    if (faceUp && highlight.has(i)) cls.push("drawn");
    drawTile(svg, [[x, 0.5], [x, 1.5]], nums, {
      class: cls.join(" "), "data-tile": faceUp ? name : null,
    });
  });
  svg.setAttribute("aria-label", faceUp ? tiles.join(", ") || "no tiles"
    : `${tiles.length} tiles face down`);
  return svg;
}

/** Indexes of the tiles of `now` that `before` did not hold (drawn this move). */
function newTiles(before, now) {
  const left = new Map();
  for (const t of before || []) left.set(t, (left.get(t) || 0) + 1);
  const fresh = new Set();
  now.forEach((t, i) => {
    const k = left.get(t) || 0;
    if (k > 0) left.set(t, k - 1); else fresh.add(i);
  });
  return fresh;
}

const ENDED_BADGE = {domino: ["out", "domino!"], target: ["target", "reaches the target"]};

/**
 * Draw every seat into `root`. `view` is null (all face up) or the seat whose point of
 * view is taken. `prev` is the frame before (to mark drawn tiles), or null.
 */
export function drawSeats(root, game, frame, prev, view, round, compact) {
  root.replaceChildren();
  frame.hands.forEach((_, seat) => {
    root.append(seatCard(game, frame, prev, view, round, seat, compact ? 16 : 26));
  });
}

/**
 * The seat whose hand a phone shows under the table: the seat in view, else the one to
 * move (the ender once the round is over).
 */
export function seatInView(frame, view, round) {
  if (view !== null) return view;
  const movers = frame.movers || (frame.turn == null ? [] : [frame.turn]);
  if (movers.length) return movers[0];
  if (round.summary) return round.summary.ended_by;
  return frame.move ? frame.move.player : 0;
}

/** The hand of the seat in view, drawn under the table (shown on narrow screens only). */
export function drawHandHere(root, game, frame, prev, view, round) {
  const seat = seatInView(frame, view, round);
  root.replaceChildren(seatCard(game, frame, prev, view, round, seat, 22));
  root.dataset.seat = String(seat);
}

function seatCard(game, frame, prev, view, round, seat, unitPx) {
  const players = game.players || [];
  const hand = frame.hands[seat] || [];
  const movers = new Set(frame.movers || (frame.turn == null ? [] : [frame.turn]));
  const move = frame.move;
  const summary = frame.ended && round.summary ? round.summary : null;
  const card = document.createElement("article");
  card.className = "seat";
  card.dataset.seat = String(seat);
  if (movers.has(seat)) card.classList.add("to-move");
  if (move && move.player === seat) card.classList.add("moved", `did-${move.action}`);
  if (view !== null && seat === view) card.classList.add("viewer");

  const head = document.createElement("header");
  head.append(nameNode(players, seat));
  const pid = players[seat] && players[seat].name ? players[seat].id : null;
  if (pid) {
    const id = document.createElement("span");
    id.className = "pid";
    id.textContent = pid;
    head.append(id);
  }
  const badges = [];
  if (movers.has(seat)) badges.push(["turn", frame.phase === "opening" && movers.size > 1
    ? "may open" : "to move"]);
  if (move && move.player === seat) {
    if (move.action === "draw") badges.push(["draw", "drew"]);
    if (move.action === "pass") badges.push(["pass", "passed"]);
  }
  if (frame.bonus && frame.bonus.seat === seat) {
    badges.push(["bonus", `+${fmt(frame.bonus.points)} bonus`]);
  }
  if (summary && summary.ended_by === seat && ENDED_BADGE[summary.how]) {
    badges.push(ENDED_BADGE[summary.how]);
  }
  if (summary && (summary.winners || []).includes(seat)) badges.push(["won", "wins the round"]);
  for (const [kind, text] of badges) {
    const b = document.createElement("span");
    b.className = `badge ${kind}`;
    b.textContent = text;
    head.append(b);
  }
  card.append(head);

  const nums = document.createElement("p");
  nums.className = "numbers";
  const score = document.createElement("span");
  score.className = "score";
  score.dataset.score = String(frame.scores ? frame.scores[seat] : "");
  score.textContent = `${fmt(frame.scores ? frame.scores[seat] : 0)} pts`;
  nums.append(score);
  const rb = frame.round_bonus ? frame.round_bonus[seat] : 0;
  if (game.bonus || rb) {
    const bonus = document.createElement("span");
    bonus.className = "round-bonus";
    bonus.textContent = `bonus this round ${fmt(rb || 0)}`;
    nums.append(bonus);
  }
  const count = document.createElement("span");
  count.className = "count";
  count.dataset.count = String(hand.length);
  count.textContent = `${hand.length} ${hand.length === 1 ? "tile" : "tiles"}`;
  nums.append(count);
  card.append(nums);

  // once a round is over the hands are shown, as players do to count their pips
  const faceUp = view === null || view === seat || frame.phase === "over";
  const fresh = faceUp && move && move.action === "draw" && move.player === seat && prev
    ? newTiles(prev.hands[seat], hand) : new Set();
  const svg = handSvg(hand, faceUp, fresh, unitPx);
  svg.classList.toggle("face-down", !faceUp);
  card.append(svg);

  if (!faceUp) {
    const known = frame.lacks && frame.lacks.seats && frame.lacks.seats[view]
      ? frame.lacks.seats[view][seat] || [] : [];
    const lacks = document.createElement("p");
    lacks.className = "lacks";
    lacks.dataset.lacks = known.join(",");
    lacks.textContent = known.length ? `has no ${known.join(", ")}` : "nothing known to be missing";
    if (!known.length) lacks.classList.add("none");
    card.append(lacks);
  }
  return card;
}
