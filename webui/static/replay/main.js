// The replay page: loads the frames the server computed, keeps the position (round,
// move) in step with the address, and draws the table, the players and the words at
// every step. It knows no rules: every number shown comes from a frame.

import {Board} from "./board.js";
import {syncControls, wireControls} from "./controls.js";
import {drawSeats} from "./hands.js";
import {describe, drawChoices, drawSummary, endsText} from "./panel.js";
import {node, playerName} from "./text.js";

const STEP_MS = 1100; // one move at speed 1

class Replay {
  constructor(root, data) {
    this.root = root;
    this.game = data.game || {};
    this.rounds = (data.rounds || []).filter((r) => r && (r.frames || []).length);
    this.error = data.error || null;
    this.positions = [];
    this.rounds.forEach((r, ri) => r.frames.forEach((_, fi) => this.positions.push([ri, fi])));
    this.pos = 0;
    this.view = null;
    this.showChoices = false;
    this.playing = false;
    this.speed = 1;
    this.timer = null;
    this.board = new Board(root.querySelector("#board"));
    this.fullest = this.rounds.map((r) => r.frames.reduce(
      (best, f) => ((f.board || []).length > best.length ? f.board : best), []));
  }

  current() { return this.positions[this.pos] || [0, 0]; }

  /** "Round 2, move 14", as the scrubber reads it out. */
  where() {
    const [ri, fi] = this.current();
    const r = this.rounds[ri];
    return `Round ${r.round}, move ${r.frames[fi].m} of ${r.frames[r.frames.length - 1].m}`;
  }

  hash() {
    const [ri, fi] = this.current();
    return `#r${this.rounds[ri].round}m${this.rounds[ri].frames[fi].m}`;
  }

  /** The position named by an address like `#r2m14`, or null. */
  parse(hash) {
    const m = /^#r(\d+)(?:m(\d+))?$/.exec(hash || "");
    if (!m) return null;
    const ri = this.rounds.findIndex((r) => r.round === Number(m[1]));
    if (ri < 0) return null;
    const frames = this.rounds[ri].frames;
    const want = m[2] === undefined ? 0 : Number(m[2]);
    let fi = frames.findIndex((f) => f.m === want);
    if (fi < 0) fi = want > frames[frames.length - 1].m ? frames.length - 1 : 0;
    return this.positions.findIndex(([a, b]) => a === ri && b === fi);
  }

  go(pos, {fromHash = false} = {}) {
    const next = Math.max(0, Math.min(this.positions.length - 1, pos));
    const fresh = next === this.pos + 1;
    this.pos = next;
    this.render(fresh);
    if (!fromHash) history.replaceState(null, "", this.hash());
    if (this.pos === this.positions.length - 1) this.pause();
  }

  step(delta) {
    if (delta < 0) this.pause();
    this.go(this.pos + delta);
  }

  round(delta) {
    const [ri] = this.current();
    const target = Math.max(0, Math.min(this.rounds.length - 1, ri + delta));
    this.toRound(target);
  }

  toRound(ri) {
    this.go(this.positions.findIndex(([a]) => a === ri));
  }

  /** The last frame before the refused move. */
  toError() {
    if (!this.error) return;
    let ri = this.rounds.findIndex((r) => r.round === this.error.round);
    if (ri < 0) ri = this.rounds.length - 1;
    const last = this.positions.findLastIndex(([a]) => a === ri);
    this.pause();
    this.go(last);
  }

  toggle() { if (this.playing) this.pause(); else this.play(); }

  play() {
    if (this.pos === this.positions.length - 1) this.go(0);
    this.playing = true;
    this.schedule();
    syncControls(this, this.root);
  }

  pause() {
    this.playing = false;
    clearTimeout(this.timer);
    this.timer = null;
    syncControls(this, this.root);
  }

  schedule() {
    clearTimeout(this.timer);
    if (!this.playing) return;
    const [ri, fi] = this.current();
    const frames = this.rounds[ri].frames;
    const endOfRound = fi === frames.length - 1;
    let wait = (endOfRound ? 3 : 1) * STEP_MS / (this.speed || 1);
    if (this.speed === 0 && !endOfRound) { // as played: the time the mover took, if logged
      const ms = frames[fi + 1].move && frames[fi + 1].move.ms;
      if (typeof ms === "number" && ms >= 0) wait = Math.min(Math.max(ms, 250), 8000);
    }
    this.timer = setTimeout(() => {
      this.go(this.pos + 1);
      this.schedule();
    }, wait);
  }

  /** Moves per STEP_MS; 0 plays at the pace the log recorded (each move's `ms`). */
  setSpeed(s) { this.speed = s >= 0 ? s : 1; this.schedule(); }

  setView(seat) { this.view = seat; this.render(false); }

  setChoices(on) { this.showChoices = on; this.render(false); }

  /** The refused move's reason when this frame is the last one before it. */
  errorHere() {
    const e = this.error;
    if (!e) return null;
    const [ri, fi] = this.current();
    const lastOfRound = fi === this.rounds[ri].frames.length - 1;
    const inRound = this.rounds[ri].round === e.round;
    const lastRound = ri === this.rounds.length - 1;
    return lastOfRound && (inRound || (lastRound && !this.rounds.some((r) => r.round === e.round)))
      ? e : null;
  }

  render(fresh) {
    const $ = (id) => this.root.querySelector(`#${id}`);
    const [ri, fi] = this.current();
    const round = this.rounds[ri];
    const frame = round.frames[fi];
    const prev = fi > 0 ? round.frames[fi - 1] : null;
    const players = this.game.players || [];
    const lastM = round.frames[round.frames.length - 1].m;
    this.root.dataset.round = String(round.round);
    this.root.dataset.move = String(frame.m);

    // status line
    $("round-no").textContent = `Round ${round.round} of ${this.rounds.length}`;
    $("move-no").textContent = `Move ${frame.m} of ${lastM}`;
    const movers = frame.movers || (frame.turn == null ? [] : [frame.turn]);
    $("turn").textContent = frame.phase === "over" || !movers.length ? "round over"
      : `${movers.map((s) => playerName(players[s], s)).join(" or ")} to move`;
    const bone = $("boneyard");
    bone.textContent = `boneyard ${frame.boneyard}`;
    bone.dataset.count = String(frame.boneyard);
    const ends = $("ends");
    const et = endsText(frame);
    ends.textContent = et ? `ends: ${et}` : "no tile yet";
    for (const k of ["left", "right", "up", "down"]) {
      const v = frame.ends ? frame.ends[k] : null;
      if (v === null || v === undefined) delete ends.dataset[k]; else ends.dataset[k] = String(v);
    }
    if (frame.end_sum !== null && frame.end_sum !== undefined) {
      ends.append(node("span", "sum", ` · sum ${frame.end_sum}`));
    }

    // the table
    const moved = frame.move && frame.move.action === "play";
    const lastSeq = moved && frame.board.length ? frame.board[frame.board.length - 1].seq : null;
    this.board.draw(ri, this.fullest[ri], frame.board || [],
      {fresh: fresh ? lastSeq : null, last: lastSeq, ends: frame.board.length ? frame.ends : null});
    const count = (frame.board || []).length;
    $("board").setAttribute("aria-label", count
      ? `${count} ${count === 1 ? "tile" : "tiles"} on the table; ends: ${et}` : "No tile on the table yet");
    const events = describe(this.game, round, frame, prev, this.view);
    const ev = $("events");
    ev.replaceChildren();
    for (const e of events) {
      const p = node("p", `event ${e.kind}`, e.text);
      if (fresh && e.kind !== "play" && e.kind !== "deal") p.classList.add("flash");
      ev.append(p);
    }
    const err = this.errorHere();
    const box = $("refusal-here");
    box.hidden = !err;
    if (err) {
      $("refusal-here-text").textContent = `Move ${err.move} of round ${err.round} is refused: ${err.message}`;
    }
    const table = $("table");
    table.classList.toggle("ended", Boolean(frame.ended));
    table.dataset.ended = frame.ended || "";

    // players, choices, summaries
    const compact = window.matchMedia("(max-width: 700px)").matches;
    drawSeats($("seats"), this.game, frame, prev, this.view, round, compact);
    const toggle = $("choices-toggle");
    toggle.setAttribute("aria-expanded", String(this.showChoices));
    const choices = $("choices");
    choices.hidden = !this.showChoices;
    if (this.showChoices) drawChoices(choices, this.game, frame, this.view);
    drawSummary($("summary"), this.game, this.rounds, ri, fi, this.error);
    syncControls(this, this.root);
  }
}

function fail(root, message) {
  root.setAttribute("aria-busy", "false");
  const p = root.querySelector("#load-problem");
  p.textContent = message;
  p.hidden = false;
  root.dataset.ready = "error";
}

async function load(root) {
  const inline = document.getElementById("frames-data");
  if (inline) return JSON.parse(inline.textContent);
  const url = root.dataset.framesUrl;
  const res = await fetch(url); // as the page's <link rel=preload> asked, so it is reused
  let body = null;
  try { body = await res.json(); } catch { /* not JSON: said below */ }
  if (!body || !body.ok) {
    const why = body && body.error ? body.error.message : `the server answered ${res.status}`;
    throw new Error(`The frames could not be loaded: ${why}`);
  }
  return body.data;
}

function setup(root, data) {
  performance.mark("frames-loaded");
  const replay = new Replay(root, data);
  const players = replay.game.players || [];
  const view = root.querySelector("#view");
  players.forEach((p, i) => {
    const o = document.createElement("option");
    o.value = String(i);
    o.textContent = `${playerName(p, i)}'s seat`;
    view.append(o);
  });
  const rs = root.querySelector("#round-select");
  replay.rounds.forEach((r, ri) => {
    const o = document.createElement("option");
    o.value = String(ri);
    o.textContent = `Round ${r.round}`;
    rs.append(o);
  });
  if (replay.error) {
    const banner = root.querySelector("#refusal");
    const e = replay.error;
    root.querySelector("#refusal-text").textContent = e.round
      ? `Refused at round ${e.round}, move ${e.move}: ${e.message}` : `Refused: ${e.message}`;
    banner.hidden = false;
  }
  if (!replay.positions.length) { // refused before its first deal: nothing to play
    root.querySelector("#error-jump").hidden = true;
    root.querySelector("#table").hidden = true;
    root.querySelector("#controls").hidden = true;
    root.setAttribute("aria-busy", "false");
    root.dataset.ready = "true";
    performance.mark("first-frame");
    return;
  }
  wireControls(replay, root);
  const start = replay.parse(location.hash);
  replay.pos = start !== null && start >= 0 ? start : 0;
  replay.render(false);
  root.setAttribute("aria-busy", "false");
  root.dataset.ready = "true";
  performance.mark("first-frame");
  window.addEventListener("hashchange", () => {
    const p = replay.parse(location.hash);
    if (p !== null && p >= 0 && p !== replay.pos) replay.go(p, {fromHash: true});
  });
  let pending = null;
  window.addEventListener("resize", () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => { replay.board.resize(); replay.render(false); });
  });
}

const root = document.getElementById("replay");
if (root) {
  load(root).then((data) => setup(root, data)).catch((exc) => fail(root, String(exc.message || exc)));
}
