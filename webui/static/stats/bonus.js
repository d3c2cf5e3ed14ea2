// The bonus dashboard: every figure and table from one GET /api/stats/bonus answer.

import {
  API, barTrace, drawChart, el, fmtInt, fmtNumber, fmtShare, palette, playerPage, plotText,
  paddedRange, shareAxis, startPage, tickStep, withQuery,
} from "./common.js";

function headline(id, value, detail) {
  const box = document.getElementById(id);
  box.querySelector(".headline-value").textContent = value;
  box.querySelector(".headline-detail").textContent = detail;
}

const shareHover = "%{customdata[0]} of %{customdata[1]} plays: %{customdata[2]}";

function shareRows(rows) {
  return rows.map((r) => [fmtInt(r.bonus_plays), fmtInt(r.plays), fmtShare(r.share)]);
}

function drawValues(data) {
  const rows = data.values ?? [];
  drawChart("chart-values", [
    barTrace(rows.map((r) => String(r.value)), rows.map((r) => r.count), {
      hover: "%{y} bonus plays scored %{x}",
      text: rows.map((r) => fmtInt(r.count)),
    }),
  ], {
    xaxis: { type: "category", title: { text: "points scored" } },
    yaxis: { title: { text: "bonus plays" }, rangemode: "tozero" },
  }, { empty: rows.length ? null : "No play scored a bonus under these filters." });
}

function drawByVariant(data) {
  const rows = [...(data.by_variant ?? [])].reverse();  // largest first when drawn top-down
  const labels = rows.map((r) => plotText(r.label ?? r.variant));
  drawChart("chart-variant", [
    barTrace(labels, rows.map((r) => r.share), {
      horizontal: true,
      outside: true,
      customdata: shareRows(rows),
      hover: `%{y}<br>${shareHover}`,
      text: rows.map((r) => fmtShare(r.share)),
    }),
  ], {
    height: Math.max(160, 60 + 34 * rows.length),
    margin: { l: 8, r: 16, t: 10, b: 30, pad: 2 },
    xaxis: { ...shareAxis, range: paddedRange(rows.map((r) => r.share)) },
    yaxis: { type: "category", automargin: true },
  }, { empty: rows.length ? null : "No plays under these filters." });
}

function drawByPlayers(data) {
  const rows = data.by_players ?? [];
  drawChart("chart-players", [
    barTrace(rows.map((r) => `${r.players} players`), rows.map((r) => r.share), {
      outside: true,
      customdata: shareRows(rows),
      hover: `%{x}<br>${shareHover}`,
      text: rows.map((r) => fmtShare(r.share)),
    }),
  ], {
    margin: { l: 50, r: 16, t: 10, b: 30, pad: 2 },
    xaxis: { type: "category" },
    yaxis: { ...shareAxis, range: paddedRange(rows.map((r) => r.share)) },
  }, { empty: rows.length ? null : "No plays under these filters." });
}

// Moves past the API's move_cap share its bucket: that tick reads "40+".
function moveTicks(rows, cap) {
  const step = tickStep(rows.length);
  const moves = rows.map((r) => r.move);
  const vals = moves.filter((m) => m % step === 0 || m === 1 || m === cap);
  return {
    tickvals: vals,
    ticktext: vals.map((m) => (cap && m === cap ? `${m}+` : String(m))),
  };
}

function drawByMove(data) {
  const rows = data.by_move ?? [];
  const colors = palette();
  const cap = data.move_cap;
  drawChart("chart-move", [
    {
      type: "bar",
      x: rows.map((r) => r.move),
      y: rows.map((r) => r.plays),
      name: "plays",
      marker: { color: colors.band },
      hovertemplate: "move %{x}: %{y} plays<extra></extra>",
    },
    {
      type: "scatter",
      mode: "lines+markers",
      x: rows.map((r) => r.move),
      y: rows.map((r) => r.share),
      name: "share with a bonus",
      yaxis: "y2",
      line: { color: colors.accent, width: 2 },
      marker: { size: 5 },
      customdata: shareRows(rows),
      hovertemplate: `move %{x}<br>${shareHover}<extra></extra>`,
    },
  ], {
    showlegend: true,
    legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    margin: { l: 62, r: 62, t: 36, b: 50, pad: 2 },
    xaxis: { title: { text: "move in the round" }, ...moveTicks(rows, cap) },
    yaxis: { side: "right", showgrid: false, rangemode: "tozero", title: { text: "plays" } },
    yaxis2: {
      ...shareAxis, overlaying: "y", tickmode: "auto", side: "left", fixedrange: true,
      title: { text: "share with a bonus" },
    },
  }, { empty: rows.length ? null : "No plays under these filters." });
}

function drawTopScorers(data, params) {
  const section = document.getElementById("top-scorers");
  const rows = data.top_scorers ?? [];
  section.querySelector("tbody").replaceChildren(...rows.map((r, i) => el("tr", {},
    el("td", {}, i + 1),
    el("td", {}, el("a", { href: playerPage(r.player, params), title: r.player },
      r.name ?? r.player)),
    el("td", { class: "num" }, fmtNumber(r.bonus_points)),
    el("td", { class: "num" }, fmtInt(r.bonus_plays)),
    el("td", { class: "num" }, fmtInt(r.plays)),
  )));
  section.querySelector("table").hidden = rows.length === 0;
  section.querySelector(".chart-empty").hidden = rows.length !== 0;
}

function drawMissed(data, params) {
  const missed = data.missed ?? { count: 0, points: 0, examples: [] };
  headline("missed", fmtInt(missed.count),
    `${fmtNumber(missed.points)} bonus points left on the table`);
  const section = document.getElementById("missed-bonus");
  const examples = missed.examples ?? [];
  document.getElementById("missed-summary").textContent = missed.count
    ? `${fmtInt(missed.count)} plays scored less than the best bonus available to them, ` +
      `${fmtNumber(missed.points)} points in all. ` +
      (examples.length < missed.count ? `The ${examples.length} most recent:` : "")
    : "";
  section.querySelector("tbody").replaceChildren(...examples.map((r) => el("tr", {},
    el("td", { class: "moment" }, el("a", { href: r.url, class: "replay-link" },
      `game ${r.game} · round ${r.round} · move ${r.move}`)),
    el("td", {}, el("a", { href: playerPage(r.player, params), title: r.player },
      r.name ?? r.player)),
    el("td", { class: "num" }, fmtNumber(r.scored)),
    el("td", { class: "num" }, fmtNumber(r.best)),
  )));
  section.querySelector("table").hidden = examples.length === 0;
  section.querySelector(".chart-empty").hidden = examples.length !== 0;
}

startPage({
  api: (params) => withQuery(`${API}/bonus`, params),
  isEmpty: (data) => !data.plays,
  render(data, { params }) {
    headline("share", fmtShare(data.share),
      `${fmtInt(data.bonus_plays)} of ${fmtInt(data.plays)} plays` +
      (data.bonus_points !== undefined ? `, ${fmtNumber(data.bonus_points)} bonus points` : ""));
    drawValues(data);
    drawByVariant(data);
    drawByPlayers(data);
    drawByMove(data);
    drawTopScorers(data, params);
    drawMissed(data, params);
  },
});
