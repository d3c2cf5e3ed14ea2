// The replay page: loads the frames the server computed, keeps the position (round,
// move) in step with the address, and draws the table, the players and the words at
// every step. It knows no rules: every number and every sentence about the rules comes
// from a frame.

import {Board} from "./board.js";
import {syncControls, wireControls} from "./controls.js";
import {drawEnds, endsText} from "./ends.js";
import {drawHandHere, drawSeats} from "./hands.js";
import {MoveList} from "./moves.js";
import {describe, drawChoices, drawRoundSummary} from "./panel.js";
import {Review} from "./review.js";
import {GameSummary} from "./summary.js";
import {node, playerName} from "./text.js";

const STEP_MS = 1100; // one move at speed 1
const CHOICES_FLAG = "+choices"; // in the address: the panel of choices is open
const NARROW = "(max-width: 700px)";

/** An address's moment: `#r2m14`, `#r3` (its deal), with `+choices` for the open panel. */
export function parseHash(hash) {
  const m = /^#r(\d+)(?:m(\d+))?(\+choices)?$/.exec(hash || "");
  if (!m) return null;
  return {round: Number(m[1]), move: m[2] === undefined ? 0 : Number(m[2]), choices: Boolean(m[3])};
}

/** The words of a refusal: where, the move refused (with the page's names), the reason. */
export function refusalText(e) {
  if (e.round && e.move && e.what) return `Refused at round ${e.round}, move ${e.move} (${e.what}): ${e.why}`;
  if (e.round && e.move) return `Refused at round ${e.round}, move ${e.move}: ${e.why || e.message}`;
  if (e.round) return `Refused at round ${e.round}: ${e.why || e.message}`;
  return `Refused: ${e.why || e.message}`;
}

class Replay {
  constructor(root, data) {
    this.root = root;
    this.game = data.game || {};
    this.rounds = (data.rounds || []).filter((r) => r && (r.frames || []).length);
    this.error = data.error || null;
    this.positions = [];
    this.starts = [];
    this.rounds.forEach((r, ri) => {
      this.starts.push(this.positions.length);
      r.frames.forEach((_, fi) => this.positions.push([ri, fi]));
    });
    this.pos = 0;
    this.view = null;
    this.showChoices = false;
    this.playing = false;
    this.speed = 1;
    this.timer = null;
    this.board = new Board(root.querySelector("#board"));
    this.fullest = this.rounds.map((r) => r.frames.reduce(
      (best, f) => ((f.board || []).length > best.length ? f.board : best), []));
    this.moves = null;
    this.review = null;
    this.summary = new GameSummary(root.querySelector("#game-summary"), this.game, this.rounds,
      this.error);
  }

  current() { return this.positions[this.pos] || [0, 0]; }

  /** "Round 2, move 14 of 30", as the scrubber reads it out. */
  where() {
    const [ri, fi] = this.current();
    const r = this.rounds[ri];
    return `Round ${r.round}, move ${r.frames[fi].m} of ${r.frames[r.frames.length - 1].m}`;
  }

  hash() {
    const [ri, fi] = this.current();
    return `#r${this.rounds[ri].round}m${this.rounds[ri].frames[fi].m}${this.showChoices ? CHOICES_FLAG : ""}`;
  }

  /** The position named by an address like `#r2m14`, or null. */
  parse(hash) {
    const want = parseHash(hash);
    if (!want) return null;
    const ri = this.rounds.findIndex((r) => r.round === want.round);
    if (ri < 0) { // a round past the last one: the end of the game
      const last = this.rounds[this.rounds.length - 1];
      return last && want.round > last.round ? this.positions.length - 1 : null;
    }
    const frames = this.rounds[ri].frames;
    let fi = frames.findIndex((f) => f.m === want.move);
    if (fi < 0) fi = want.move > frames[frames.length - 1].m ? frames.length - 1 : 0;
    return this.starts[ri] + fi;
  }

  go(pos, {fromHash = false} = {}) {
    const next = Math.max(0, Math.min(this.positions.length - 1, pos));
    const fresh = next === this.pos + 1;
    this.pos = next;
    this.render(fresh);
    if (!fromHash) this.address();
    if (this.pos === this.positions.length - 1) this.pause();
  }

  address() {
    if (location.hash !== this.hash()) history.replaceState(null, "", this.hash());
  }

  step(delta) {
    if (delta < 0) this.pause();
    this.go(this.pos + delta);
  }

  round(delta) {
    const [ri] = this.current();
    this.toRound(Math.max(0, Math.min(this.rounds.length - 1, ri + delta)));
  }

  toRound(ri) { this.go(this.starts[ri]); }

  /** The last frame before the refused move. */
  errorPosition() {
    let ri = this.rounds.findIndex((r) => r.round === this.error.round);
    if (ri < 0) ri = this.rounds.length - 1;
    return this.starts[ri] + this.rounds[ri].frames.length - 1;
  }

  toError() {
    if (!this.error) return;
    this.pause();
    this.go(this.errorPosition());
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

  setChoices(on) { this.showChoices = on; this.render(false); this.address(); }

  /** The refused move's reason when this frame is the last one before it. */
  errorHere() {
    const e = this.error;
    if (!e) return null;
    return this.pos === this.errorPosition() ? e : null;
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
    drawEnds($("ends"), $("ends-legend"), frame);

    // the table
    const moved = frame.move && frame.move.action === "play";
    const lastSeq = moved && frame.board.length ? frame.board[frame.board.length - 1].seq : null;
    this.board.draw(ri, this.fullest[ri], frame.board || [],
      {fresh: fresh ? lastSeq : null, last: lastSeq, ends: frame.board.length ? frame.ends : null});
    const count = (frame.board || []).length;
    const et = endsText(frame);
    $("board").setAttribute("aria-label", count
      ? `${count} ${count === 1 ? "tile" : "tiles"} on the table; ends: ${et}` : "No tile on the table yet");
    const ev = $("events");
    ev.replaceChildren();
    for (const e of describe(this.game, round, frame, this.view)) {
      const p = node("p", `event ${e.kind}`, e.text);
      if (e.code) p.dataset.code = e.code;
      if (fresh && e.kind !== "play" && e.kind !== "deal") p.classList.add("flash");
      ev.append(p);
    }
    // the reason is shown once: above the table at the refused move, else in the banner
    // with the way back to it
    const err = this.errorHere();
    const box = $("refusal-here");
    box.hidden = !err;
    if (err) $("refusal-here-text").textContent = refusalText(err);
    if (this.error) $("refusal").hidden = Boolean(err);
    const table = $("table");
    table.classList.toggle("ended", Boolean(frame.ended));
    table.dataset.ended = frame.ended || "";

    // players, choices, summaries, the move list
    const compact = window.matchMedia(NARROW).matches;
    drawSeats($("seats"), this.game, frame, prev, this.view, round, compact);
    const here = $("hand-here");
    if (compact) drawHandHere(here, this.game, frame, prev, this.view, round);
    else here.replaceChildren();
    const toggle = $("choices-toggle");
    toggle.setAttribute("aria-expanded", String(this.showChoices));
    const choices = $("choices");
    choices.hidden = !this.showChoices;
    if (this.showChoices) {
      drawChoices(choices, this.game, frame, this.view,
        this.review ? this.review.values(round, frame, this.view) : null);
    }
    drawRoundSummary($("summary"), this.game, this.rounds, ri, fi);
    this.summary.show(this.pos === this.positions.length - 1);
    if (this.moves) this.moves.update(ri, fi, this.view);
    if (this.review) this.review.update(ri, fi, this.view);
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
    root.querySelector("#refusal-text").textContent = refusalText(replay.error);
    root.querySelector("#refusal").hidden = false;
  }
  if (!replay.positions.length) { // refused before its first deal: nothing to play
    root.querySelector("#error-jump").hidden = true;
    for (const id of ["table", "controls", "hand-here", "ends", "status"]) {
      root.querySelector(`#${id}`).hidden = true;
    }
    root.querySelector(".moves-area").hidden = true;
    root.setAttribute("aria-busy", "false");
    root.dataset.ready = "true";
    performance.mark("first-frame");
    return;
  }
  replay.moves = new MoveList(root.querySelector("#moves"), replay);
  if (root.dataset.reviewUrl) replay.review = new Review(root, replay);
  wireControls(replay, root);
  const start = replay.parse(location.hash);
  const wanted = parseHash(location.hash);
  replay.showChoices = Boolean(wanted && wanted.choices);
  // a refused log opens at its refused move; any other at the moment its address names
  replay.pos = start !== null ? start : replay.error ? replay.errorPosition() : 0;
  replay.render(false);
  if (start === null && replay.error) replay.address();
  root.setAttribute("aria-busy", "false");
  root.dataset.ready = "true";
  performance.mark("first-frame");
  if (replay.review) replay.review.load();
  window.addEventListener("hashchange", () => {
    const p = replay.parse(location.hash);
    const flag = parseHash(location.hash);
    if (flag && flag.choices !== replay.showChoices) {
      replay.showChoices = flag.choices;
      if (p === replay.pos) replay.render(false);
    }
    if (p !== null && p !== replay.pos) replay.go(p, {fromHash: true});
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
