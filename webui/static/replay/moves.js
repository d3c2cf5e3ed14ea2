// The move list beside the board: every move of the round under way as text, the
// current one highlighted, each with the marks of what happened (the frames' `marks`:
// bonus, missed bonus, domino, blocked, target, game over; more kinds can come from the
// server and show the same way), a player's run of draws collapsed to one entry; the
// other rounds as one line each. Every entry is a link to its moment (`#r2m14`).
//
// Keyboard: the list is one stop for Tab (the current entry); inside it ↑ and ↓ go from
// entry to entry (a run of draws is one), ← and → step one move as everywhere on the page,
// Home and End go to either end of the game, Enter opens the entry. The list scrolls
// itself, never the page.

import {endedWords, visibleMark} from "./panel.js";
import {node, playerName} from "./text.js";

/** Runs of frames shown as one entry: a player's draws in a row collapse to one. */
export function entriesOf(frames) {
  const out = [];
  for (let fi = 1; fi < frames.length; fi += 1) {
    const move = frames[fi].move;
    const prev = out[out.length - 1];
    if (move && move.action === "draw" && prev && prev.action === "draw"
        && prev.player === move.player && prev.last === fi - 1
        && frames[fi].phase !== "draw-for-double" && frames[fi - 1].phase !== "draw-for-double") {
      prev.last = fi;
      continue;
    }
    out.push({first: fi, last: fi, action: move ? move.action : null,
      player: move ? move.player : null});
  }
  return out;
}

function actionText(frames, entry, view) {
  const move = frames[entry.last].move;
  const seen = view === null || view === move.player;
  if (move.action === "play") {
    return `${move.tile}${move.end ? ` ${move.end}` : ""}${move.closed ? " closed" : ""}`;
  }
  if (move.action === "pass") return "passes";
  const n = entry.last - entry.first + 1;
  if (n === 1) return seen && move.tile ? `draws ${move.tile}` : "draws";
  return `draws ${n}`;
}

/** The tiles of a run of draws, where the point of view may see them. */
function drawnTiles(frames, entry, view) {
  const move = frames[entry.last].move;
  if (entry.last === entry.first || (view !== null && view !== move.player)) return null;
  const tiles = [];
  for (let fi = entry.first; fi <= entry.last; fi += 1) tiles.push(frames[fi].move.tile);
  return tiles.every(Boolean) ? tiles.join(" ") : null;
}

export class MoveList {
  constructor(root, replay) {
    this.root = root;
    this.replay = replay;
    this.open = -1; // the round index whose moves are listed
    this.view = undefined;
    this.starts = []; // position of each round's deal
    let pos = 0;
    for (const r of replay.rounds) { this.starts.push(pos); pos += r.frames.length; }
    this.build();
    root.addEventListener("click", (e) => this.click(e));
    root.addEventListener("keydown", (e) => this.key(e));
  }

  build() {
    const {rounds, game} = this.replay;
    const list = node("ol", "move-rounds");
    this.heads = rounds.map((r, ri) => {
      const li = node("li", "move-round");
      li.dataset.round = String(r.round);
      const a = node("a", "round-head");
      a.href = `#r${r.round}m0`;
      a.dataset.pos = String(this.starts[ri]);
      a.tabIndex = -1;
      a.append(node("span", "round-name", `Round ${r.round}`));
      const moves = r.frames.length - 1;
      a.append(node("span", "round-info",
        `${moves} ${moves === 1 ? "move" : "moves"}${r.summary ? ` · ${endedWords(game, r.summary)}` : ""}`));
      li.append(a);
      list.append(li);
      return li;
    });
    this.root.replaceChildren(list);
  }

  /** The entries of round `ri`, listed under its heading (the other rounds closed). */
  expand(ri, view) {
    if (this.open >= 0 && this.heads[this.open]) {
      const old = this.heads[this.open].querySelector(".move-items");
      if (old) old.remove();
      this.heads[this.open].classList.remove("open");
    }
    this.open = ri;
    this.view = view;
    const round = this.replay.rounds[ri];
    const frames = round.frames;
    const players = this.replay.game.players || [];
    const items = node("ol", "move-items");
    this.entries = entriesOf(frames);
    for (const entry of this.entries) {
      const li = node("li");
      const a = node("a", `move-entry did-${entry.action}`);
      const last = frames[entry.last];
      a.href = `#r${round.round}m${last.m}`;
      a.dataset.pos = String(this.starts[ri] + entry.last);
      a.dataset.first = String(entry.first);
      a.dataset.last = String(entry.last);
      a.dataset.m = String(last.m);
      a.tabIndex = -1;
      a.append(node("span", "m", String(frames[entry.first].m)));
      a.append(node("span", "who", playerName(players[entry.player], entry.player)));
      a.append(node("span", "act", actionText(frames, entry, view)));
      const marks = [];
      for (let fi = entry.first; fi <= entry.last; fi += 1) {
        for (const mark of frames[fi].marks || []) {
          if (visibleMark(mark, frames[fi], view)) marks.push(mark);
        }
      }
      const tiles = drawnTiles(frames, entry, view);
      if (marks.length || tiles) {
        const line = node("span", "marks");
        if (tiles) line.append(node("span", "drawn", tiles));
        for (const mark of marks) {
          const b = node("span", `mark mark-${mark.kind}`, mark.label || mark.kind);
          b.title = mark.text || "";
          b.dataset.kind = mark.kind;
          line.append(b);
        }
        a.append(line);
      }
      if (marks.length) a.dataset.marks = marks.map((m) => m.kind).join(" ");
      li.append(a);
      items.append(li);
    }
    this.heads[ri].classList.add("open");
    this.heads[ri].append(items);
  }

  /** Highlight the entry of the position shown (after every step). */
  update(ri, fi, view) {
    // whether the keys are in the list, asked before its entries are built again
    const had = this.root.contains(document.activeElement);
    if (ri !== this.open || view !== this.view) this.expand(ri, view);
    let current = null;
    if (fi === 0) {
      current = this.heads[ri].querySelector(".round-head");
    } else {
      current = [...this.heads[ri].querySelectorAll(".move-entry")].find(
        (a) => Number(a.dataset.first) <= fi && fi <= Number(a.dataset.last));
    }
    for (const a of this.root.querySelectorAll('[aria-current]')) {
      a.removeAttribute("aria-current");
      a.tabIndex = -1;
      const step = a.querySelector(".step-of");
      if (step) step.remove();
    }
    if (!current) return;
    current.setAttribute("aria-current", "step");
    current.tabIndex = 0;
    const first = Number(current.dataset.first);
    const last = Number(current.dataset.last);
    if (last > first) { // inside a run of draws: which one
      current.append(node("span", "step-of", `${fi - first + 1} of ${last - first + 1}`));
    }
    this.scrollTo(current);
    if (had && document.activeElement !== current) current.focus({preventScroll: true});
  }

  /** Bring `el` into the list's view without moving the page. */
  scrollTo(el) {
    const box = this.root;
    const top = el.offsetTop - box.offsetTop;
    const bottom = top + el.offsetHeight;
    if (top < box.scrollTop + 4) box.scrollTop = Math.max(0, top - 40);
    else if (bottom > box.scrollTop + box.clientHeight - 4) {
      box.scrollTop = bottom - box.clientHeight + 40;
    }
  }

  click(e) {
    const a = e.target.closest("a[data-pos]");
    if (!a || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    this.replay.pause();
    this.replay.go(Number(a.dataset.pos));
    a.focus({preventScroll: true});
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const steps = {ArrowUp: -1, ArrowDown: 1}; // ← → step one move, as on the whole page
    if (!(e.key in steps)) return;
    e.preventDefault();
    e.stopPropagation(); // in the list, ↑ ↓ step through the moves instead of the rounds
    const r = this.replay;
    const [ri, fi] = r.current();
    const delta = steps[e.key];
    // a run of draws is one entry: ↓ leaves it, ↑ goes to the entry before it
    const entry = (this.entries || []).find((x) => x.first <= fi && fi <= x.last);
    let target = r.pos + delta;
    if (entry && fi > 0) {
      const base = this.starts[ri];
      if (delta > 0) target = base + entry.last + 1;
      else {
        const i = this.entries.indexOf(entry);
        target = i > 0 ? base + this.entries[i - 1].last : base;
      }
    } else if (fi === 0 && delta < 0 && ri > 0) {
      target = this.starts[ri] - 1;
    }
    r.pause();
    r.go(target);
  }
}
