// The game's review on the replay page: the evaluation graph of the round, the marks of
// the mistakes on the move list and the scrubber, each choice's value in "What could have
// been played" and the line "best was 3-5 left (+6.5)" at the current move. Every number
// is the server's (GET /api/games/<id>/review): this module places and words them. A
// review still being computed is asked for again, each time a little later.

import {loadPlotly, seriesColor} from "./chart.js";
import {fmt, node, playerName, sidesOf} from "./text.js";

/** The classes that are marked, with the sign a chess reader knows. */
export const MARKED = {inaccuracy: "?!", mistake: "?", blunder: "??"};
const FIRST_WAIT_MS = 1000;
const LONGEST_WAIT_MS = 15000;
const SVG = "http://www.w3.org/2000/svg";

/** How a choice is written: "3-5 left", "6-6 closed", "draw". */
export function choiceLabel(c) {
  if (c.action !== "play") return c.action;
  const label = c.end ? `${c.tile} ${c.end}` : String(c.tile);
  return c.closed ? `${label} closed` : label;
}

/** A value in points with its sign: "+6.5", "-2", "0". */
export function signed(x) {
  if (typeof x !== "number" || !Number.isFinite(x)) return "";
  const r = Math.round(x * 100) / 100;
  const text = Number.isInteger(r) ? String(r) : r.toFixed(2).replace(/0$/, "");
  return r > 0 ? `+${text}` : text;
}

/** The review's decisions by round and move: `index.get(round).get(move)`. */
export function indexDecisions(review) {
  const out = new Map();
  for (const r of review.rounds || []) {
    const moves = new Map();
    for (const d of r.decisions || []) moves.set(d.move, d);
    out.set(r.round, moves);
  }
  return out;
}

/** The sentence at the current move: what was played, what was best, what it cost. */
export function verdict(d) {
  if (!d || d.class == null || d.best == null) return null;
  const best = d.choices[d.best];
  const played = d.choices[d.played];
  if (d.class === "best" || d.best === d.played) {
    return `Best move: ${choiceLabel(played)} (${signed(played.value)}).`;
  }
  return `${d.class[0].toUpperCase()}${d.class.slice(1)}: ${choiceLabel(played)} `
    + `(${signed(played.value)}) lost ${fmt(d.loss)}; best was ${choiceLabel(best)} (${signed(best.value)}).`;
}

export class Review {
  constructor(root, replay) {
    this.root = root;
    this.replay = replay;
    this.url = root.dataset.reviewUrl;
    this.box = root.querySelector("#review");
    this.status = root.querySelector("#review-status");
    this.here = root.querySelector("#review-here");
    this.chart = root.querySelector("#eval-chart");
    this.strip = root.querySelector("#scrub-marks");
    this.data = null;
    this.decisions = new Map();
    this.evaluation = new Map();
    this.wait = FIRST_WAIT_MS;
    this.drawn = null; // the round and view the graph shows
  }

  /** Ask for the review; while it is computed, ask again later (1 s, 2 s, 4 s ... 15 s). */
  async load() {
    if (!this.url || !this.box) return;
    this.box.hidden = false;
    let res = null;
    let body = null;
    try {
      res = await fetch(this.url, {headers: {Accept: "application/json"}});
      body = await res.json();
    } catch {
      body = null;
    }
    if (res && res.status === 200 && body && body.ok) {
      this.set(body.data, false);
      return;
    }
    if (res && res.status === 202 && body && body.ok) {
      const d = body.data;
      const total = d.rounds_total == null ? "" : ` of ${d.rounds_total}`;
      this.say("computing", `The review is being computed (${d.rounds_done}${total} rounds done)`
        + `${d.position ? `, ${d.position} ${d.position === 1 ? "game" : "games"} ahead of it` : ""}.`);
      this.set({...d.review, evaluation: d.evaluation}, true);
    } else if (res && (res.status === 503 || res.status === 429) && body) {
      this.say("waiting", `The review is not available yet: ${body.error.message}.`);
    } else {
      const why = body && body.error ? body.error.message : `the server answered ${res ? res.status : "nothing"}`;
      this.say("error", `The review could not be loaded: ${why}.`);
      return;
    }
    const after = Number(res.headers.get("Retry-After")) * 1000 || 0;
    setTimeout(() => this.load(), Math.max(this.wait, after));
    this.wait = Math.min(LONGEST_WAIT_MS, this.wait * 2);
  }

  say(state, text) {
    this.box.dataset.state = state;
    this.root.dataset.review = state;
    this.status.textContent = text;
    this.status.hidden = !text;
  }

  set(data, partial) {
    this.data = data;
    this.decisions = indexDecisions(data);
    this.evaluation = new Map((data.evaluation || []).map((e) => [e.round, e]));
    if (!partial) {
      const n = (data.rounds || []).reduce((sum, r) => sum + r.decisions.length, 0);
      const view = data.view === "perfect" ? "every hand known" : "what each player knew";
      this.say("ready", `Reviewed from ${view}: ${n} ${n === 1 ? "decision" : "decisions"}.`);
    }
    this.drawn = null;
    this.replay.render(false);
  }

  /** The decision made at this frame (its move), if the review has it. */
  decision(round, frame) {
    const moves = this.decisions.get(round.round);
    return moves && frame.move ? moves.get(frame.m) || null : null;
  }

  /** Whether the point of view may see this decision: the choices tell of a hand. */
  visible(d, view) {
    return view === null || (d && d.player === view);
  }

  /** Everything the review adds to the page at this position. */
  update(ri, fi, view) {
    if (!this.data) return;
    const round = this.replay.rounds[ri];
    const d = this.decision(round, round.frames[fi]);
    const line = d && this.visible(d, view) ? verdict(d) : null;
    this.here.textContent = line || "";
    this.here.hidden = !line;
    this.here.dataset.class = line ? d.class : "";
    this.marks(ri, view);
    this.graph(ri, fi, view);
  }

  /** The classes of the round's decisions, for the move list and the scrubber. */
  marked(ri, view) {
    const round = this.replay.rounds[ri];
    const moves = this.decisions.get(round.round);
    const out = [];
    if (!moves) return out;
    round.frames.forEach((f, fi) => {
      const d = f.move ? moves.get(f.m) : null;
      if (d && MARKED[d.class] && this.visible(d, view)) out.push({fi, d});
    });
    return out;
  }

  marks(ri, view) {
    const found = this.marked(ri, view);
    // the move list: a sign on the entry of each marked move
    const list = this.root.querySelector("#moves");
    for (const old of list.querySelectorAll(".review-mark")) old.remove();
    for (const {fi, d} of found) {
      const entry = [...list.querySelectorAll(".move-entry")].find(
        (a) => Number(a.dataset.first) <= fi && fi <= Number(a.dataset.last));
      if (!entry) continue;
      const sign = node("span", `review-mark review-${d.class}`, MARKED[d.class]);
      sign.title = verdict(d);
      sign.dataset.class = d.class;
      entry.append(sign);
    }
    // the scrubber: a tick under each marked move
    if (!this.strip) return;
    const frames = this.replay.rounds[ri].frames.length - 1;
    this.strip.replaceChildren();
    for (const {fi, d} of found) {
      const tick = document.createElementNS(SVG, "rect");
      const x = frames ? (fi / frames) * 1000 : 0;
      tick.setAttribute("x", String(Math.max(0, Math.min(994, x - 3))));
      tick.setAttribute("y", "0");
      tick.setAttribute("width", "6");
      tick.setAttribute("height", "8");
      tick.setAttribute("class", `tick review-${d.class}`);
      tick.dataset.class = d.class;
      tick.dataset.m = String(this.replay.rounds[ri].frames[fi].m);
      this.strip.append(tick);
    }
    this.strip.dataset.count = String(found.length);
  }

  /** The seats whose curve is drawn: the seat in view, else one per side. */
  seatsShown(ev, view) {
    if (view !== null) return [view];
    return ev.lines || [];
  }

  async graph(ri, fi, view) {
    const round = this.replay.rounds[ri];
    const ev = this.evaluation.get(round.round);
    const frame = round.frames[fi];
    if (!ev) {
      this.chart.hidden = true;
      return;
    }
    this.chart.hidden = false;
    const key = `${round.round}/${view}`;
    const players = this.replay.game.players || [];
    const cursor = {type: "line", xref: "x", yref: "paper", x0: frame.m, x1: frame.m, y0: 0, y1: 1,
      line: {color: "#5b6670", width: 1, dash: "dot"}};
    this.chart.dataset.move = String(frame.m);
    if (this.drawn === key && window.Plotly) {
      window.Plotly.relayout(this.chart, {shapes: [cursor]});
      return;
    }
    this.drawn = key;
    const seats = this.seatsShown(ev, view);
    const sides = sidesOf(this.replay.game);
    const traces = seats.map((seat, i) => {
      const pts = ev.seats[seat] || [];
      const side = sides.find((s) => s.includes(seat)) || [seat];
      // a cross where this side erred, a dot at every other decision
      const erred = pts.map((p) => Boolean(MARKED[p.class]) && side.includes(p.player));
      return {
        type: "scatter", mode: "lines+markers", name: playerName(players[seat], seat),
        x: pts.map((p) => p.move), y: pts.map((p) => p.value),
        line: {color: seriesColor(view === null ? i : seat), width: 2, shape: "hv"},
        marker: {size: erred.map((e) => (e ? 10 : 5)),
          symbol: erred.map((e) => (e ? "x" : "circle"))},
        hovertemplate: "after move %{x}: %{y:+.2f}<extra>%{fullData.name}</extra>",
      };
    });
    this.chart.dataset.points = String(traces.reduce((n, t) => n + t.x.length, 0));
    this.chart.dataset.seats = seats.join(" ");
    this.chart.setAttribute("aria-label", `Expected round margin after each decision of round ${round.round}`
      + (view === null ? "" : ` for ${playerName(players[view], view)}`));
    let Plotly;
    try {
      Plotly = await loadPlotly(this.replay.root.dataset.plotlyUrl);
    } catch (exc) {
      this.chart.dataset.state = "error";
      this.chart.textContent = `The graph could not be drawn: ${exc.message}.`;
      return;
    }
    const narrow = window.matchMedia("(max-width: 40rem)").matches;
    const lastM = round.frames[round.frames.length - 1].m;
    const style = getComputedStyle(document.body);
    await Plotly.react(this.chart, traces, {
      autosize: true, height: narrow ? 160 : 200, margin: {l: 40, r: 10, t: 6, b: 32},
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      font: {family: style.fontFamily, size: 11, color: "#1d232a"}, dragmode: false,
      showlegend: traces.length > 1 && !narrow, legend: {orientation: "h", y: 1.12},
      shapes: [cursor],
      xaxis: {title: {text: "move"}, fixedrange: true, gridcolor: "#d7dde2", zeroline: false,
        range: [0, lastM + 0.5], dtick: lastM > 30 ? undefined : (lastM > 12 ? 2 : 1)},
      yaxis: {title: {text: narrow ? "" : "margin"}, fixedrange: true, gridcolor: "#d7dde2",
        zerolinecolor: "#9aa5ae"},
    }, {displayModeBar: false, responsive: true});
    if (!this.chart.dataset.clickBound) {
      this.chart.on("plotly_click", (event) => {
        const p = event.points[0];
        if (!p) return;
        const [ri2] = this.replay.current();
        const fi2 = this.replay.rounds[ri2].frames.findIndex((f) => f.m === p.x);
        if (fi2 >= 0) { this.replay.pause(); this.replay.go(this.replay.starts[ri2] + fi2); }
      });
      this.chart.dataset.clickBound = "true";
    }
    this.chart.dataset.state = "drawn";
  }

  /** The values of the choices at this frame, by how the panel writes them. */
  values(round, frame, view) {
    const d = this.decision(round, frame);
    if (!d || !this.visible(d, view)) return null;
    const out = new Map();
    d.choices.forEach((c, i) => out.set(choiceLabel(c), {...c, best: i === d.best}));
    return {decision: d, byLabel: out};
  }
}
