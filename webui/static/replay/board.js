// The table: the line of tiles of one frame, laid out once per round so that tiles
// never move while a round is played, and redrawn from scratch at every step.

import {layout} from "./layout.js";
import {drawTile, el} from "./svg.js";

export class Board {
  constructor(svg) {
    this.svg = svg;
    this.cache = new Map(); // round index -> layout for the current size
    this.size = null;
    this.center = null; // {key, x, y}: where the view is centred, for gliding to the next
    this.gliding = 0;
  }

  /** Forget layouts (the table changed size). */
  resize() {
    const rect = this.svg.getBoundingClientRect();
    const size = [Math.max(120, rect.width), Math.max(120, rect.height)];
    if (!this.size || size[0] !== this.size[0] || size[1] !== this.size[1]) {
      this.size = size;
      this.cache.clear();
    }
  }

  /** The layout of a round: from its fullest board, so every frame is a prefix of it. */
  layoutFor(key, fullest) {
    if (!this.size) this.resize();
    let lay = this.cache.get(key);
    if (!lay) {
      const maxUnit = Math.min(44, Math.max(26, this.size[0] / 22));
      lay = layout(fullest, this.size[0], this.size[1], maxUnit);
      this.cache.set(key, lay);
    }
    return lay;
  }

  /**
   * Draw `board` (the frame's PLACED list) with the round's layout. `fresh` names the
   * seq of a tile just placed (animated); `last` the one placed by this frame's move.
   */
  draw(key, fullest, board, {fresh = null, last = null, ends = null} = {}) {
    const svg = this.svg;
    svg.replaceChildren();
    if (!board.length) { // the deal: nothing lies on the table, nothing to lay out yet
      if (!this.size) this.resize();
      this.view = [this.size[0] / 40, this.size[1] / 40];
      this.center = null;
      this.setView(0, 0);
      return;
    }
    let lay = this.layoutFor(key, fullest);
    if (board.some((t) => !lay.cells.has(t.seq))) { // not a prefix: lay this frame out alone
      lay = layout(board, this.size[0], this.size[1]);
    }
    // the scale is the round's (its whole line fits), the view centres on what lies now
    let x0 = Infinity; let y0 = Infinity; let x1 = -Infinity; let y1 = -Infinity;
    for (const t of board) {
      for (const [cx, cy] of lay.cells.get(t.seq) || []) {
        x0 = Math.min(x0, cx - 0.5); x1 = Math.max(x1, cx + 0.5);
        y0 = Math.min(y0, cy - 0.5); y1 = Math.max(y1, cy + 0.5);
      }
    }
    this.view = [this.size[0] / lay.unit, this.size[1] / lay.unit];
    this.panTo(key, (x0 + x1) / 2, (y0 + y1) / 2, fresh !== null);
    const layer = el("g", {class: "line"}, svg);
    for (const t of board) {
      const cells = lay.cells.get(t.seq);
      if (!cells) continue;
      const classes = ["tile"];
      if (t.double) classes.push("double");
      if (t.spinner) classes.push("spinner");
      if (t.closed) classes.push("closed"); // a closed double (house rule): its end is shut
      if (t.seq === last) classes.push("last");
      if (t.seq === fresh) classes.push("fresh");
      drawTile(layer, cells, [t.a, t.b], {
        class: classes.join(" "), "data-seq": t.seq, "data-tile": t.tile,
        "data-a": t.a, "data-b": t.b, "data-end": t.end ?? "opening",
        "data-cells": cells.flat().join(","),
      });
    }
    if (ends) this.drawEnds(lay, board, ends);
  }

  /** Centre the view on (cx, cy): gliding there after a move, at once after a jump. */
  panTo(key, cx, cy, glide) {
    cancelAnimationFrame(this.gliding);
    const from = this.center && this.center.key === key ? this.center : null;
    this.center = {key, x: cx, y: cy};
    const still = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    if (!glide || !from || still) {
      this.setView(cx, cy);
      return;
    }
    const start = performance.now();
    const step = (now) => {
      const k = Math.min(1, (now - start) / 260);
      const e = 1 - (1 - k) ** 3;
      this.setView(from.x + (cx - from.x) * e, from.y + (cy - from.y) * e);
      if (k < 1) this.gliding = requestAnimationFrame(step);
    };
    this.gliding = requestAnimationFrame(step);
  }

  setView(cx, cy) {
    const [vw, vh] = this.view;
    this.svg.setAttribute("viewBox", `${cx - vw / 2} ${cy - vh / 2} ${vw} ${vh}`);
  }

  /**
   * A small mark past each open end with the number it shows, so a pass or a block can
   * be read off the table. A spinner's up and down ends are marked once a tile lies there.
   */
  drawEnds(lay, board, ends) {
    const lastOn = {};
    for (const t of board) if (t.end) lastOn[t.end] = t;
    const marks = el("g", {class: "ends", "aria-hidden": "true"}, this.svg);
    for (const [end, value] of Object.entries(ends)) {
      if (value === null || value === undefined) continue;
      const tile = lastOn[end];
      const at = tile ? lay.tails.get(tile.seq) : lay.tails.get(end);
      if (!at) continue;
      const g = el("g", {class: "end-mark", "data-end": end}, marks);
      el("circle", {cx: at[0], cy: at[1], r: 0.33}, g);
      const label = el("text", {x: at[0], y: at[1]}, g);
      label.textContent = String(value);
    }
  }
}
