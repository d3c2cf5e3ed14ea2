// The bonus dashboard: every figure and table from one GET /api/stats/bonus answer.
//
// The figures are counted over the variants whose rules have a bonus (the answer's
// `scope`); the page says which, and a filter that leaves none says why.

import {
  API, barTrace, drawChart, el, errorBars, fmtInt, fmtInterval, fmtNumber, fmtShare,
  insideText, palette, playerPage, paddedRange, shareAxis, startPage, tickStep, variantTick,
  withQuery,
} from "./common.js";

function headline(id, value, interval, detail) {
  const box = document.getElementById(id);
  box.querySelector(".headline-value").textContent = value;
  box.querySelector(".headline-interval").textContent = interval;
  box.querySelector(".headline-detail").textContent = detail;
}

const shareHover = "%{customdata[0]} of %{customdata[1]} plays: %{customdata[2]}" +
  "<br>%{customdata[3]}";

function shareRows(rows) {
  return rows.map((r) => [fmtInt(r.bonus_plays), fmtInt(r.plays), fmtShare(r.share),
    fmtInterval(r.low, r.high, "share"), r.games_url ?? ""]);
}

const openGames = (point) => {
  const url = point.customdata?.[4];
  if (url) window.location.href = url;
};

// Which variants the figures are counted over, and which were left out.
function scopeNote(data) {
  const scope = data.scope ?? { variants: [], left_out: [] };
  const note = document.getElementById("scope-note");
  const inside = scope.variants ?? [];
  const out = scope.left_out ?? [];
  const names = (rows) => rows.map((r) => r.label ?? r.variant).join(", ");
  const left = out.length ? el("details", { class: "left-out" },
    el("summary", {}, `Left out: ${fmtInt(data.all_plays - data.plays)} plays of ` +
      `${out.length} variant${out.length === 1 ? "" : "s"} without a bonus rule`),
    names(out)) : "";
  note.replaceChildren(
    `Counted over ${fmtInt(data.plays)} plays of ${inside.length === 1 ? "the variant" :
      `the ${inside.length} variants`} with a bonus rule: ${names(inside)} `,
    el("a", { href: data.games_url, class: "games-link" }, "(their games)"), ".", left,
  );
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
  const labels = rows.map((r) => variantTick(r.label ?? r.variant));
  drawChart("chart-variant", [{
    ...barTrace(labels, rows.map((r) => r.share), {
      horizontal: true,
      customdata: shareRows(rows),
      hover: `%{y}<br>${shareHover}`,
      text: rows.map((r) => fmtShare(r.share)),
    }),
    ...insideText,
    error_x: errorBars(rows),
  }], {
    height: Math.max(160, 60 + 34 * rows.length),
    margin: { l: 8, r: 16, t: 10, b: 30, pad: 2 },
    xaxis: { ...shareAxis, range: paddedRange(rows.map((r) => r.high ?? r.share)) },
    yaxis: { type: "category", automargin: true },
  }, { empty: rows.length ? null : "No plays under these filters.", onClick: openGames });
}

function drawByPlayers(data) {
  const rows = data.by_players ?? [];
  drawChart("chart-players", [{
    ...barTrace(rows.map((r) => `${r.players} players`), rows.map((r) => r.share), {
      customdata: shareRows(rows),
      hover: `%{x}<br>${shareHover}`,
      text: rows.map((r) => fmtShare(r.share)),
    }),
    ...insideText,
    error_y: errorBars(rows),
  }], {
    margin: { l: 50, r: 16, t: 10, b: 30, pad: 2 },
    xaxis: { type: "category" },
    yaxis: { ...shareAxis, range: paddedRange(rows.map((r) => r.high ?? r.share)) },
  }, { empty: rows.length ? null : "No plays under these filters.", onClick: openGames });
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
      name: "share with a bonus (95% interval)",
      yaxis: "y2",
      line: { color: colors.accent, width: 2 },
      marker: { size: 5 },
      error_y: errorBars(rows, { color: colors.accent }),
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
    el("td", { class: "name" }, el("a", { href: playerPage(r.player, params), title: r.player },
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
    missed.chances ? `${fmtShare(missed.share)} of ${fmtInt(missed.chances)} plays with a ` +
      `bonus chance · ${fmtInterval(missed.low, missed.high, "share")}` : "",
    `${fmtNumber(missed.points)} bonus points left on the table`);
  const section = document.getElementById("missed-bonus");
  const examples = missed.examples ?? [];
  document.getElementById("missed-summary").textContent = missed.count
    ? `${fmtInt(missed.count)} plays scored less than the best bonus available to them, ` +
      `${fmtNumber(missed.points)} points in all. ` +
      (examples.length < missed.count ? `The ${examples.length} most recent, each a link to ` +
        "the moment in the replay:" : "")
    : "";
  section.querySelector("tbody").replaceChildren(...examples.map((r) => el("tr", {},
    el("td", { class: "moment" }, el("a", { href: r.url, class: "replay-link" },
      `${r.game_id ?? `Game #${r.game}`} · round ${r.round} · move ${r.move}`)),
    el("td", { class: "name" }, el("a", { href: playerPage(r.player, params), title: r.player },
      r.name ?? r.player)),
    el("td", { class: "num" }, fmtNumber(r.scored)),
    el("td", { class: "num" }, fmtNumber(r.best)),
  )));
  section.querySelector("table").hidden = examples.length === 0;
  section.querySelector(".chart-empty").hidden = examples.length !== 0;
}

startPage({
  api: (params) => withQuery(`${API}/bonus`, params),
  // No game at all, or games of no variant with a bonus rule: the latter says why, and
  // where to look instead.
  isEmpty: (data) => {
    if (!data.scope?.reason) return !data.plays;
    const params = new URLSearchParams(window.location.search);
    params.delete("preset");
    return {
      text: data.scope.reason,
      linksLabel: "Variants with a bonus rule in this store:",
      links: (data.scope.elsewhere ?? []).map((v) => {
        params.set("variant", v.variant);
        return { href: withQuery("/stats/bonus", params), text: v.label };
      }),
    };
  },
  render(data, { params }) {
    scopeNote(data);
    headline("share", fmtShare(data.share), fmtInterval(data.low, data.high, "share"),
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
