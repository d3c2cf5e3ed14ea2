// The game's summary under the table, at the last move of the game: who won and why the
// game ended (the frames' words), a chart of the scores over the rounds, and the scores
// after every round as a table that stays readable for a game of a hundred rounds.

import {drawScoreChart, SERIES} from "./chart.js";
import {endedWords} from "./panel.js";
import {fmt, listing, nameNode, node, playerName, sideName, sidesOf} from "./text.js";

/**
 * The columns of the summary: one per team where partners always share a score (a
 * partnership game), else one per seat. Each is {seats, label}.
 */
export function scoreColumns(game, rounds) {
  const sides = sidesOf(game);
  const shared = sides.every((side) => rounds.every((r) => !r.summary
    || side.every((s) => r.summary.scores[s] === r.summary.scores[side[0]])));
  const cols = shared ? sides : (game.players || []).map((_, i) => [i]);
  return cols.map((seats) => ({seats, label: sideName(game, seats)}));
}

function headerCell(game, col, i) {
  const th = node("th", "player-col");
  th.scope = "col";
  th.append(node("span", `swatch s${i % SERIES}`), " ");
  const players = game.players || [];
  col.seats.forEach((s, i) => {
    if (i) th.append(" & ");
    th.append(nameNode(players, s));
  });
  if ((game.winners || []).some((w) => col.seats.includes(w))) {
    th.classList.add("winner");
    th.append(" ", node("span", "won-mark", "won"));
  }
  return th;
}

/** The table of scores after each round, each round a link to its last move. */
function roundsTable(game, rounds, cols) {
  const table = node("table", "rounds-table");
  const thead = node("thead");
  const head = node("tr");
  const corner = node("th", "round-col", "Round");
  corner.scope = "col";
  head.append(corner, node("th", "how-col", "Ended"));
  head.lastChild.scope = "col";
  cols.forEach((col, i) => head.append(headerCell(game, col, i)));
  thead.append(head);
  table.append(thead);
  const body = node("tbody");
  let before = cols.map(() => 0);
  for (const r of rounds) {
    if (!r.summary) continue;
    const tr = node("tr");
    tr.dataset.round = String(r.round);
    const th = node("th", "round-col");
    th.scope = "row";
    const last = r.frames[r.frames.length - 1];
    const a = node("a", null, String(r.round));
    a.href = `#r${r.round}m${last ? last.m : 0}`;
    a.setAttribute("aria-label", `Round ${r.round}: its last move`);
    th.append(a);
    tr.append(th, node("td", `how-col how-${r.summary.how}`, endedWords(game, r.summary)));
    cols.forEach((col, i) => {
      const score = r.summary.scores[col.seats[0]];
      const td = node("td", "score-cell", fmt(score));
      const gain = score - before[i];
      if (gain) td.append(" ", node("span", "gain", gain > 0 ? `+${fmt(gain)}` : fmt(gain)));
      td.dataset.score = String(score);
      tr.append(td);
      before[i] = score;
    });
    body.append(tr);
  }
  table.append(body);
  return table;
}

export class GameSummary {
  constructor(section, game, rounds, error) {
    this.section = section;
    this.game = game;
    this.rounds = rounds;
    this.error = error;
    this.built = false;
  }

  /** Show it (at the last move of the game) or hide it. */
  show(on) {
    this.section.hidden = !on;
    if (on && !this.built) this.build();
  }

  build() {
    this.built = true;
    const {game, rounds} = this;
    const $ = (id) => this.section.querySelector(`#${id}`);
    const players = game.players || [];
    const done = rounds.filter((r) => r.summary);
    const title = $("game-summary-title");
    const why = $("game-over-why");
    if (game.status === "finished") {
      const winners = (game.winners || []).map((s) => playerName(players[s], s));
      title.textContent = winners.length
        ? `${listing(winners)} ${winners.length > 1 ? "win" : "wins"} the game`
        : "Nobody wins the game";
      const lastRound = rounds[rounds.length - 1];
      const lastFrame = lastRound.frames[lastRound.frames.length - 1];
      const mark = (lastFrame.marks || []).find((m) => m.kind === "game-over");
      why.textContent = mark ? mark.text : "";
    } else {
      const lastRound = rounds[rounds.length - 1];
      const lastFrame = lastRound ? lastRound.frames[lastRound.frames.length - 1] : null;
      title.textContent = this.error ? "The log is refused here" : "The game is not finished";
      const stops = this.error ? "The replay stops, before the refused move," : "The log ends";
      const where = lastRound && !lastRound.summary && lastFrame
        ? `${stops} in round ${lastRound.round}, after move ${lastFrame.m}.`
        : `${stops} between rounds.`;
      why.textContent = `${where} ${done.length
        ? `${done.length} ${done.length === 1 ? "round is" : "rounds are"} complete; nobody has won.`
        : "No round is complete, so there are no scores yet."}`;
    }
    why.hidden = !why.textContent;
    const chart = $("score-chart");
    const wrap = $("rounds-table-wrap");
    if (!done.length) {
      chart.hidden = true;
      wrap.hidden = true;
      return;
    }
    const cols = scoreColumns(game, rounds);
    wrap.replaceChildren(roundsTable(game, rounds, cols));
    const rules = game.rules || {};
    const series = cols.map((col) => ({
      name: col.label,
      x: [0, ...done.map((r) => r.round)],
      y: [0, ...done.map((r) => r.summary.scores[col.seats[0]])],
    }));
    const target = rules.hands ? null : rules.target;
    const url = document.getElementById("replay").dataset.plotlyUrl;
    drawScoreChart(chart, series, {target, url, reachLoses: rules.target_mode === "reach-loses",
      onRound: (round) => {
        const r = rounds.find((x) => x.round === round);
        if (r) location.hash = `#r${r.round}m${r.frames[r.frames.length - 1].m}`;
      }});
  }
}
