// One player's page: every figure from GET /api/stats/players/<id>. Each metric is drawn
// against the players of the same variant and number of players (a bullet: p10-p90 band,
// median line, the player's value with its confidence interval) and says which way is
// better; a table gives the player's figures per variant and number of players; the
// score history is one chart per variant, in the order the games were played.

import {
  API, betterText, drawChart, el, fmtInt, fmtInterval, fmtMetric, fmtNumber, isShareUnit,
  palette, plotText, startPage, statsIndex, withQuery,
} from "./common.js";

const heading = document.getElementById("player-name");
const playerId = heading.dataset.player;
const apiPath = `${API}/players/${encodeURIComponent(playerId)}`;
const HISTORY_CHARTS = 6;  // variants drawn; the rest are named under the charts
const historyNote = document.getElementById("history-note");
const historyText = historyNote.textContent;

// The metrics' labels, units and definitions: listed once by GET /api/stats.
async function definitions(data) {
  const index = await statsIndex();
  if (Array.isArray(index?.metrics)) return index.metrics;
  return Object.keys(data.metrics ?? {}).map((key) => ({ key, label: key, definition: "" }));
}

// Where the player stands, in words that say which way is good: "better than 80% of 12
// players" for a metric with a better side, "higher than 40% of them" for one of style.
function standing(figure, population) {
  if (!figure || figure.value === null || figure.value === undefined) return "";
  const players = population?.players ? ` of ${fmtInt(population.players)} players` : "";
  if (figure.better && figure.better_than !== null && figure.better_than !== undefined) {
    return `better than ${Math.round(figure.better_than)}%${players}`;
  }
  if (figure.percentile === null || figure.percentile === undefined) return "";
  return `higher than ${Math.round(figure.percentile)}%${players}`;
}

function bulletRange(values, unit) {
  const known = values.filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  if (!known.length) return [0, 1];
  let low = Math.min(...known);
  let high = Math.max(...known);
  if (isShareUnit(unit)) {
    low = Math.max(0, low);
    high = Math.min(1, high);
  }
  const pad = (high - low) * 0.08 || Math.abs(high) * 0.1 || 0.05;
  return [low - pad, high + pad];
}

function bullet(figureId, metric, figure, population) {
  const colors = palette();
  const unit = metric.unit;
  const traces = [];
  const tick = (v) => fmtMetric(v, unit);
  if (population && population.p10 !== null && population.p90 !== null) {
    traces.push({
      type: "bar", orientation: "h", y: [""], base: [population.p10],
      x: [population.p90 - population.p10], width: [0.7],
      marker: { color: colors.band },
      hovertemplate: `players of the variant, 10th to 90th percentile: ${tick(population.p10)}` +
        ` – ${tick(population.p90)}<extra></extra>`,
    });
    traces.push({
      type: "scatter", mode: "markers", y: [""], x: [population.p50],
      marker: { symbol: "line-ns", size: 26, line: { width: 3, color: colors.muted } },
      hovertemplate: `median: ${tick(population.p50)}<extra></extra>`,
    });
  }
  const hasValue = figure && figure.value !== null && figure.value !== undefined;
  if (hasValue) {
    const hasInterval = figure.low !== null && figure.low !== undefined &&
      figure.high !== null && figure.high !== undefined;
    traces.push({
      type: "scatter", mode: "markers", y: [""], x: [figure.value],
      marker: { size: 13, color: colors.accent, line: { width: 2, color: "#fff" } },
      error_x: hasInterval ? {
        type: "data", symmetric: false, array: [figure.high - figure.value],
        arrayminus: [figure.value - figure.low], color: colors.accent, thickness: 2, width: 6,
      } : undefined,
      hovertemplate: `this player: ${tick(figure.value)}` +
        (hasInterval ? ` (95% CI ${tick(figure.low)} – ${tick(figure.high)})` : "") +
        "<extra></extra>",
    });
  }
  const range = bulletRange([
    population?.p10, population?.p90, population?.p50,
    hasValue ? figure.value : null, figure?.low, figure?.high,
  ], unit);
  const better = figure?.better;
  drawChart(figureId, traces, {
    height: 92,
    margin: { l: 14, r: 18, t: 4, b: 24, pad: 0 },
    bargap: 0,
    xaxis: {
      range, tickformat: isShareUnit(unit) ? ".1~%" : undefined, nticks: 5, showgrid: false,
      showline: false, ticks: "outside", ticklen: 3,
    },
    yaxis: { showticklabels: false, showgrid: false, showline: false, range: [-0.6, 0.6] },
    // The better side, on the chart itself: no tooltip needed.
    annotations: better ? [{
      xref: "paper", yref: "paper", x: better === "higher" ? 1 : 0, y: 1,
      xanchor: better === "higher" ? "right" : "left", yanchor: "top", showarrow: false,
      text: better === "higher" ? "better →" : "← better",
      font: { size: 10, color: colors.muted },
    }] : [],
  }, {
    empty: figure?.reason ? "Nothing to compare: no such rule in this variant."
      : traces.length ? null : "No players of this variant to compare with.",
  });
}

function metricCard(metric, index, figure, population) {
  const id = `chart-metric-${index}`;
  const hasValue = figure && figure.value !== null && figure.value !== undefined;
  const n = figure?.n ?? 0;
  const interval = hasValue ? fmtInterval(figure.low, figure.high, metric.unit) : "";
  let missing = `too small a sample (${fmtInt(n)} of ${fmtInt(metric.min_sample)})`;
  if (figure?.reason) missing = `not counted: ${figure.reason}`;
  return el("figure", {
    class: `chart metric${hasValue ? "" : " thin"}`, id, "data-metric": metric.key,
  },
  el("figcaption", {},
    el("span", { class: "chart-title", title: metric.definition ?? "" },
      metric.label ?? metric.key),
    el("a", { class: "json", href: "", title: "The numbers of this chart, as JSON" }, "JSON")),
  el("p", { class: "metric-figures" },
    el("span", { class: "metric-value" },
      hasValue ? fmtMetric(figure.value, metric.unit, { withUnit: true }) : "–"),
    el("span", { class: "metric-percentile" },
      hasValue ? standing(figure, population) : missing)),
  el("p", { class: "metric-better" }, betterText(figure?.better ?? metric.better)),
  el("p", { class: "metric-detail" }, `${interval ? `${interval} · ` : ""}sample ${fmtInt(n)}`),
  el("div", { class: "plot" }),
  el("p", { class: "chart-empty", hidden: true }),
  el("p", { class: "definition" }, metric.definition ?? ""));
}

function comparisonNote(data) {
  const within = data.comparison ?? {};
  const note = document.getElementById("comparison-note");
  if (!within.variant) {
    note.textContent = "";
    return;
  }
  const scope = within.players === null || within.players === undefined
    ? within.label ?? within.variant
    : `${within.label ?? within.variant}, ${fmtInt(within.players)} players`;
  const why = {
    filters: "as the filters say",
    "most games": "the variant and number of players of most of this player's games under " +
      "these filters",
    "filters and most games": "the number of players of most of this player's games of " +
      "that variant",
  }[within.chosen] ?? "";
  note.replaceChildren("Compared within ", el("strong", {}, scope), why ? `: ${why}. ` : ". ",
    "Choose another in the table below, or under Variant and Players.");
}

function metricCell(figure, unit) {
  if (!figure || figure.value === null || figure.value === undefined) {
    return el("td", { class: "num thin" }, el("span", { class: "value" }, "–"),
      el("span", { class: "n" }, `n ${fmtInt(figure?.n ?? 0)}`));
  }
  return el("td", { class: "num", "data-value": figure.value },
    el("span", { class: "value" }, fmtMetric(figure.value, unit)),
    el("span", { class: "ci" }, fmtInterval(figure.low, figure.high, unit, { prefix: "" })),
    el("span", { class: "n" }, `n ${fmtInt(figure.n)}`));
}

function drawBreakdown(data, params, metrics) {
  const units = new Map(metrics.map((m) => [m.key, m.unit]));
  const within = data.comparison ?? {};
  const rows = data.breakdown ?? [];
  document.querySelector("#breakdown tbody").replaceChildren(...rows.map((r) => {
    const here = new URLSearchParams(params);
    here.set("variant", r.variant);
    here.set("players", String(r.players));
    here.delete("preset");
    const current = r.variant === within.variant && r.players === within.players;
    return el("tr", { "data-variant": r.variant, "data-players": r.players,
      class: current ? "current" : null },
    el("th", { scope: "row", class: "variant" }, r.label ?? r.variant),
    el("td", { class: "num" }, fmtInt(r.players)),
    el("td", { class: "num" }, el("a", { href: r.games_url, class: "games-link" },
      fmtInt(r.games))),
    ...["win_rate", "points_per_round", "domino_rate", "pips_left_losing"].map(
      (k) => metricCell(r.metrics?.[k], units.get(k))),
    el("td", {}, current ? el("span", { class: "n" }, "compared above")
      : el("a", { href: withQuery(window.location.pathname, here), class: "compare-within" },
        "compare")),
    );
  }));
}

// The accuracy of the stored reviews: the player's figure, the population's pooled one,
// the spread of the players' own (every number the server's).
function drawAccuracy(data, url) {
  const acc = data.accuracy ?? {};
  const rows = Object.entries(acc.metrics ?? {});
  const units = {best_share: "share"};
  const cell = (figure, unit) => metricCell(figure, unit);
  document.querySelector("#accuracy a.json").setAttribute("href", url);
  document.getElementById("accuracy-empty").hidden = (acc.decisions ?? 0) > 0;
  document.querySelector("#accuracy tbody").replaceChildren(...rows.map(([key, m]) => {
    const pop = m.population ?? {};
    const spread = pop.p50 === null || pop.p50 === undefined ? "–"
      : `${fmtMetric(pop.p50, units[key])} (${fmtMetric(pop.p10, units[key])}–`
        + `${fmtMetric(pop.p90, units[key])}), ${fmtInt(pop.players)} players`;
    return el("tr", { "data-metric": key },
      el("th", { scope: "row" }, m.label),
      cell(m, units[key]), cell(pop, units[key]),
      el("td", { class: "num" }, spread),
      el("td", {}, betterText(m.better)));
  }));
}

const dateText = (g) => (g.dated ? String(g.date ?? "").slice(0, 10)
  : `no date in the log (stored ${String(g.date ?? "").slice(0, 10)})`);

// One chart per variant: scores of 100-point, 500-point and kozel games each on their own
// scale, with the target drawn; x is the game's place in the player's history.
function drawHistory(data) {
  const rows = data.score_history ?? [];
  const variants = data.history_variants ?? [];
  const box = document.getElementById("history-charts");
  const colors = palette();
  const shown = variants.slice(0, HISTORY_CHARTS);
  box.replaceChildren(...shown.map((v, i) => el("figure", {
    class: `chart history${shown.length === 1 ? " wide" : ""}`, id: `chart-history-${i}`,
    "data-variant": v.variant,
  },
  el("figcaption", {}, el("span", { class: "chart-title" }, v.label ?? v.variant),
    el("span", { class: "n" }, `${fmtInt(v.games)} game${v.games === 1 ? "" : "s"}`)),
  el("p", { class: "chart-note" }, v.hands ? `A match of ${fmtInt(v.hands)} round` +
    `${v.hands === 1 ? "" : "s"}: the highest score wins.`
    : `Target ${fmtNumber(v.target)}: reaching it ${v.reaching_target}` +
      (v.reaching_target === "loses" ? " (the lowest score wins)." : ".")),
  el("div", { class: "plot" }),
  el("p", { class: "chart-empty", hidden: true }))));
  shown.forEach((v, i) => {
    const games = rows.filter((g) => g.variant === v.variant);
    const shapes = v.target ? [{
      type: "line", xref: "paper", x0: 0, x1: 1, y0: v.target, y1: v.target,
      line: { color: v.reaching_target === "loses" ? colors.warm : colors.muted, width: 1,
        dash: "dash" },
    }] : [];
    drawChart(`chart-history-${i}`, [{
      type: "scatter",
      mode: games.length > 1 ? "lines+markers" : "markers",
      x: games.map((g) => g.sequence),
      y: games.map((g) => g.score),
      line: { color: colors.line, width: 1.5 },
      marker: {
        size: 9, color: games.map((g) => (g.won ? colors.accent : "#fff")),
        line: { width: 2, color: colors.accent },
      },
      customdata: games.map((g) => [g.url, plotText(g.title), g.won ? "won" : "lost",
        dateText(g)]),
      hovertemplate: "%{customdata[1]}: %{y} points, %{customdata[2]}<br>" +
        "%{customdata[3]}<extra></extra>",
    }], {
      height: 220,
      margin: { l: 52, r: 12, t: 8, b: 40, pad: 2 },
      shapes,
      // every variant's chart on the same axis: a game sits at its place in the history
      xaxis: { title: { text: "game, in the order played" }, tickformat: "d",
        range: [0, rows.length + 1] },
      yaxis: { title: { text: "final score" }, rangemode: "tozero" },
    }, {
      empty: games.length ? null : "No games of this variant under these filters.",
      onClick: (point) => { if (point.customdata?.[0]) window.location.href = point.customdata[0]; },
    });
  });
  const rest = variants.slice(HISTORY_CHARTS);
  const note = historyNote;
  note.textContent = historyText;
  if (rest.length) {
    note.append(` Not drawn: ${rest.map((v) => `${v.label} (${fmtInt(v.games)})`).join(", ")}` +
      "; choose one under Variant.");
  }
  const total = data.player?.games ?? 0;
  if (rows.length < total) {
    note.append(` The latest ${fmtInt(rows.length)} of ${fmtInt(total)} games.`);
  }
}

async function drawRecent(data) {
  const section = document.getElementById("recent-games");
  const rows = data.recent_games ?? [];
  const index = await statsIndex();
  const labels = new Map((index?.filters?.variant ?? []).map((v) => [v.key, v.label]));
  section.querySelector("tbody").replaceChildren(...rows.map((r) => el("tr", {},
    el("td", { class: "nowrap" }, r.dated ? String(r.date ?? "").slice(0, 10) : "no date"),
    el("td", { class: "game" },
      el("a", { href: r.url, class: "replay-link" }, r.title ?? `Game #${r.game}`)),
    el("td", { class: "num" }, fmtNumber(r.score)),
    el("td", {},
      el("span", { class: r.won ? "badge won" : "badge lost" }, r.won ? "won" : "lost")),
    el("td", { class: "variant" }, labels.get(r.variant) ?? r.variant ?? r.preset ?? "",
      el("span", { class: "n" }, ` · ${fmtInt(r.players)} players`)),
  )));
  section.querySelector("table").hidden = rows.length === 0;
  section.querySelector(".chart-empty").hidden = rows.length !== 0;
}

function allGamesLinks(data) {
  const total = data.player?.games ?? 0;
  for (const id of ["all-games", "all-games-bottom"]) {
    const link = document.getElementById(id);
    link.href = data.games_url;
    link.textContent = `All ${fmtInt(total)} game${total === 1 ? "" : "s"} in the games list`;
  }
}

startPage({
  api: (params) => withQuery(apiPath, params),
  isEmpty: (data) => !(data.score_history ?? []).length && !(data.recent_games ?? []).length,
  async render(data, { url, params }) {
    const name = data.player?.name ?? playerId;
    heading.textContent = name;
    const games = data.player?.games;
    const rounds = data.player?.rounds;
    document.getElementById("player-summary").textContent = games === undefined ? ""
      : `${fmtInt(games)} game${games === 1 ? "" : "s"}, ${fmtInt(rounds)} round` +
        `${rounds === 1 ? "" : "s"} under these filters.`;
    allGamesLinks(data);
    document.title = `${name} · Players · Statistics · Domino recorder`;
    comparisonNote(data);
    const list = await definitions(data);
    const section = document.getElementById("metrics");
    section.replaceChildren(...list.map((m, i) => metricCard(
      m, i, data.metrics?.[m.key], data.population?.[m.key])));
    for (const link of section.querySelectorAll("a.json")) link.setAttribute("href", url);
    list.forEach((m, i) => bullet(`chart-metric-${i}`, m, data.metrics?.[m.key],
      data.population?.[m.key]));
    drawAccuracy(data, url);
    drawBreakdown(data, params, list);
    drawHistory(data);
    await drawRecent(data);
  },
});
