// The words around the table: what the move was and why it matters, the choices the
// mover had, and the round's summary. The sentences about rules (why a player drew or
// passed, how a round ended, why the game is over) are the frames' own (`move.why`,
// `marks`): the server words them, this module places them.

import {signed} from "./review.js";
import {fmt, listing, nameNode, node, playerName} from "./text.js";

function moveLabel(c) {
  if (c.action !== "play") return c.action;
  const label = c.end ? `${c.tile} ${c.end}` : String(c.tile);
  return c.closed ? `${label} closed` : label;
}

/** How a round ended, in a few words: "domino by Inga", "blocked", "Inga reaches the target". */
export function endedWords(game, summary) {
  if (!summary) return "";
  const name = playerName((game.players || [])[summary.ended_by], summary.ended_by);
  if (summary.how === "blocked") return "blocked";
  if (summary.how === "target") return `${name} reaches the target`;
  return `domino by ${name}`;
}

/** Whether a mark may be shown from `view`'s seat: a missed bonus tells of a hand. */
export function visibleMark(mark, frame, view) {
  return mark.kind !== "missed-bonus" || view === null || (frame.move && frame.move.player === view);
}

/**
 * What happened at this frame, as a short headline and an explanation; `kind` picks the
 * look (play, draw, pass, bonus, missed-bonus, domino, blocked, target, game-over, deal).
 */
export function describe(game, round, frame, view = null) {
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
    return out;
  }
  // from another seat's point of view a drawn tile is not seen
  const hidden = view !== null && view !== move.player && move.public_text;
  out.push({kind: move.action, text: (hidden ? move.public_text : move.text)
    || `${name(move.player)} ${move.action}s`});
  if (move.why) out.push({kind: move.action, text: move.why.text, code: move.why.code});
  for (const mark of frame.marks || []) {
    if (visibleMark(mark, frame, view)) out.push({kind: mark.kind, text: mark.text});
  }
  return out;
}

/**
 * The legal moves the mover had, each with what it would have scored, and with the
 * review's `values` (review.js) what each was worth to the end of the round; the played
 * one marked.
 */
export function drawChoices(root, game, frame, view = null, values = null) {
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
  const missed = (frame.marks || []).find((m) => m.kind === "missed-bonus");
  if (missed) root.append(node("p", "missed-line", missed.text));
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
    if (score && score === best) { s.classList.add("best"); li.dataset.best = "true"; }
    li.append(s);
    if (c.ends_round) {
      const words = {domino: "goes out", blocked: "blocks", target: "reaches the target"};
      li.append(node("span", "ends-round", words[c.ends_round] || c.ends_round));
    }
    const v = values ? values.byLabel.get(moveLabel(c)) : null;
    if (v && typeof v.value === "number") {
      const worth = node("span", "value", signed(v.value) || "0");
      worth.title = v.se ? `expected round margin, ± ${fmt(v.se)} (standard error)`
        : "expected round margin";
      if (v.se) worth.append(node("span", "se", ` ±${fmt(v.se)}`));
      if (v.best) { worth.classList.add("best-value"); li.dataset.bestValue = "true"; }
      li.dataset.value = String(v.value);
      li.append(worth);
    }
    if (c.played) li.append(node("span", "played-mark", "played"));
    list.append(li);
  }
  root.append(list);
  if (values) {
    const d = values.decision;
    const line = d.class == null ? "This decision was left unvalued (a limit of the review)."
      : `Values: the expected round margin after each move (points, the mover's side), `
        + `${d.samples > 1 ? `averaged over ${d.samples} deals of the unseen tiles` : "every hand known"}.`;
    root.append(node("p", "hint values-note", line));
  }
}

function scoreTable(rows, headers) {
  const table = node("table", "score-table");
  const thead = node("thead");
  const tr = node("tr");
  for (const h of headers) tr.append(node("th", null, h));
  thead.append(tr);
  table.append(thead);
  const body = node("tbody");
  for (const row of rows) {
    const r = node("tr");
    row.forEach((cell, i) => {
      const c = node(i === 0 ? "th" : "td");
      if (cell instanceof Node) c.append(cell); else c.textContent = cell;
      r.append(c);
    });
    body.append(r);
  }
  table.append(body);
  return table;
}

/** The round's summary at its last frame: how it ended, who won, each player's numbers. */
export function drawRoundSummary(root, game, rounds, ri, fi) {
  root.replaceChildren();
  const round = rounds[ri];
  const last = fi === round.frames.length - 1;
  const players = game.players || [];
  const name = (s) => playerName(players[s], s);
  if (!last || !round.summary) return;
  const s = round.summary;
  const box = node("section", "round-summary");
  box.dataset.how = s.how;
  box.setAttribute("aria-label", `Round ${round.round} summary`);
  box.append(node("h2", null, `Round ${round.round}: ${endedWords(game, s)}`));
  const won = (s.winners || []).map(name);
  box.append(node("p", null, won.length ? `${listing(won)} ${won.length > 1 ? "win" : "wins"} the round.` : "Nobody wins the round."));
  const over = (round.frames[fi].marks || []).find((m) => m.kind === "game-over");
  if (over) box.append(node("p", "game-over-line", over.text));
  const rows = players.map((p, i) => [nameNode(players, i), fmt((s.pips_left || [])[i]),
    fmt((s.points || [])[i]), fmt((s.bonus || [])[i]), fmt((s.scores || [])[i])]);
  box.append(scoreTable(rows, ["player", "pips left", "points", "bonus", "score"]));
  root.append(box);
}
