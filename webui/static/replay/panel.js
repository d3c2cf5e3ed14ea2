// The words around the table: what the move was and why it matters, the choices the
// mover had, the round and game summaries, and a refused log's reason.

import {fmt, listing, node, playerName} from "./text.js";

const END_ORDER = ["left", "right", "up", "down"];

/** "left 4 · right 6" (and the open-end sum when the rules score it). */
export function endsText(frame) {
  const ends = frame.ends || {};
  const parts = [];
  for (const k of [...END_ORDER, ...Object.keys(ends).filter((k) => !END_ORDER.includes(k))]) {
    if (ends[k] !== null && ends[k] !== undefined) parts.push(`${k} ${ends[k]}`);
  }
  return parts.join(" · ");
}

function moveLabel(c) {
  if (c.action !== "play") return c.action;
  return c.end ? `${c.tile} ${c.end}` : String(c.tile);
}

/**
 * What happened at this frame, as a short headline and an explanation; `kind` picks the
 * look (play, draw, pass, bonus, domino, blocked, deal).
 */
export function describe(game, round, frame, prev, view = null) {
  const players = game.players || [];
  const name = (s) => playerName(players[s], s);
  const out = [];
  const move = frame.move;
  if (!move) {
    const movers = frame.movers || [];
    let text = `Round ${round.round}: the tiles are dealt.`;
    if (frame.phase === "draw-for-double") text += " Nobody holds a double: they draw for one.";
    else if (movers.length === 1) text += ` ${name(movers[0])} opens.`;
    else if (movers.length > 1) text += ` ${listing(movers.map(name))} may open.`;
    out.push({kind: "deal", text});
  } else {
    // from another seat's point of view a drawn tile is not seen
    const hidden = view !== null && view !== move.player && move.public_text;
    out.push({kind: move.action, text: (hidden ? move.public_text : move.text)
      || `${name(move.player)} ${move.action}s`});
    if (move.action === "pass") {
      out.push({kind: "pass", text: `${name(move.player)} has nothing that fits (${endsText(prev || frame)}) and cannot draw.`});
    } else if (move.action === "draw" && prev && prev.phase !== "draw-for-double") {
      out.push({kind: "draw", text: `Nothing fits ${endsText(prev)}: ${name(move.player)} draws; ${frame.boneyard} left in the boneyard.`});
    }
  }
  if (frame.bonus) {
    const b = frame.bonus;
    out.push({kind: "bonus", text: `+${fmt(b.points)} for ${name(b.seat)}: the open ends add up to ${fmt(b.end_sum)}.`});
  }
  if (frame.ended === "domino") {
    const who = move ? move.player : round.summary && round.summary.ended_by;
    out.push({kind: "domino", text: `Domino! ${name(who)} plays the last tile and goes out.`});
  } else if (frame.ended === "blocked") {
    out.push({kind: "blocked", text: `Blocked: nobody can play on ${endsText(frame)} and the boneyard is closed. The pips left decide.`});
  }
  return out;
}

/** The legal moves the mover had, each with what it would have scored; the played one marked. */
export function drawChoices(root, game, frame, view = null) {
  root.replaceChildren();
  const choices = frame.choices || [];
  if (!frame.move) {
    root.append(node("p", "hint", "The deal: no move yet."));
    return;
  }
  if (view !== null && frame.move.player !== view) {
    const who = playerName((game.players || [])[view], view);
    root.append(node("p", "hint", `Another player's hand: not seen from ${who}'s seat.`));
    return;
  }
  if (!choices.length) {
    root.append(node("p", "hint", "No choices are recorded for this move."));
    return;
  }
  const players = game.players || [];
  const list = node("ol", "choices-list");
  const best = Math.max(...choices.map((c) => Number(c.score) || 0));
  for (const c of choices) {
    const li = node("li");
    li.dataset.move = moveLabel(c);
    if (c.played) { li.classList.add("played"); li.dataset.played = "true"; }
    const who = choices.some((x) => x.player !== c.player) ? `${playerName(players[c.player], c.player)}: ` : "";
    li.append(node("span", "what", `${who}${moveLabel(c)}`));
    const score = Number(c.score) || 0;
    const s = node("span", "score", score ? `+${fmt(score)}` : "0");
    if (score && score === best) s.classList.add("best");
    li.append(s);
    if (c.ends_round) li.append(node("span", "ends-round", c.ends_round === "domino" ? "goes out" : "blocks"));
    if (c.played) li.append(node("span", "played-mark", "played"));
    list.append(li);
  }
  root.append(list);
}

function scoreTable(players, rows, headers) {
  const table = node("table", "score-table");
  const thead = node("thead");
  const tr = node("tr");
  for (const h of headers) tr.append(node("th", null, h));
  thead.append(tr);
  table.append(thead);
  const body = node("tbody");
  for (const row of rows) {
    const r = node("tr");
    row.forEach((cell, i) => r.append(node(i === 0 ? "th" : "td", null, cell)));
    body.append(r);
  }
  table.append(body);
  return table;
}

/** The round's summary (at its last frame) and, at the very end, the game's. */
export function drawSummary(root, game, rounds, ri, fi, error) {
  root.replaceChildren();
  const round = rounds[ri];
  const last = fi === round.frames.length - 1;
  const players = game.players || [];
  const name = (s) => playerName(players[s], s);
  if (last && round.summary) {
    const s = round.summary;
    const box = node("section", "round-summary");
    box.setAttribute("aria-label", `Round ${round.round} summary`);
    box.append(node("h2", null, `Round ${round.round}: ${s.how === "blocked" || s.blocked ? "blocked" : `domino by ${name(s.ended_by)}`}`));
    const won = (s.winners || []).map(name);
    box.append(node("p", null, won.length ? `${listing(won)} ${won.length > 1 ? "win" : "wins"} the round.` : "Nobody wins the round."));
    const rows = players.map((p, i) => [name(i), fmt((s.pips_left || [])[i]), fmt((s.points || [])[i]),
      fmt((s.bonus || [])[i]), fmt((s.scores || [])[i])]);
    box.append(scoreTable(players, rows, ["player", "pips left", "points", "bonus", "score"]));
    root.append(box);
  }
  const atEnd = ri === rounds.length - 1 && last;
  if (atEnd && game.status === "finished") {
    const box = node("section", "game-summary");
    box.setAttribute("aria-label", "Game summary");
    const winners = (game.winners || []).map(name);
    box.append(node("h2", null, `Game over: ${listing(winners)} ${winners.length > 1 ? "win" : "wins"}`));
    const rows = [];
    for (const r of rounds) {
      if (!r.summary || !r.summary.scores) continue;
      rows.push([`round ${r.round}`, ...r.summary.scores.map(fmt)]);
    }
    rows.push(["final", ...(game.scores || []).map(fmt)]);
    box.append(scoreTable(players, rows, ["", ...players.map((p, i) => name(i))]));
    root.append(box);
  } else if (atEnd && !error && game.status !== "finished") {
    root.append(node("p", "hint unfinished", "The log ends here: the game was not finished."));
  }
}
