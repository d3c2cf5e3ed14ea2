// One player's page: every figure from GET /api/stats/players/<id>, each metric drawn
// against the population under the same filters (a bullet: p10-p90 band, median line,
// the player's value with its confidence interval).

import {
  API, drawChart, el, fmtInt, fmtMetric, fmtNumber, isShareUnit, palette, startPage,
  statsIndex, withQuery,
} from "./common.js";

const heading = document.getElementById("player-name");
const playerId = heading.dataset.player;
const apiPath = `${API}/players/${encodeURIComponent(playerId)}`;

// The metrics' labels, units and definitions: listed once by GET /api/stats.
async function definitions(data) {
  const index = await statsIndex();
  if (Array.isArray(index?.metrics)) return index.metrics;
  return Object.keys(data.metrics ?? {}).map((key) => ({ key, label: key, definition: "" }));
}

function ordinal(n) {
  const rounded = Math.round(n);
  const tens = rounded % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th"
    : ({ 1: "st", 2: "nd", 3: "rd" })[rounded % 10] ?? "th";
  return `${rounded}${suffix}`;
}

function percentileText(percentile) {
  if (percentile === null || percentile === undefined) return "";
  return `${ordinal(percentile)} percentile`;
}

function bulletRange(values, unit) {
  const known = values.filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  let low = Math.min(...known);
  let high = Math.max(...known);
  if (!known.length) return [0, 1];
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
      hovertemplate: `population, 10th to 90th percentile: ${tick(population.p10)} – ` +
        `${tick(population.p90)}<extra></extra>`,
    });
    traces.push({
      type: "scatter", mode: "markers", y: [""], x: [population.p50],
      marker: { symbol: "line-ns", size: 26, line: { width: 3, color: colors.muted } },
      hovertemplate: `population median: ${tick(population.p50)}<extra></extra>`,
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
  drawChart(figureId, traces, {
    height: 92,
    margin: { l: 14, r: 18, t: 4, b: 24, pad: 0 },
    bargap: 0,
    xaxis: {
      range, tickformat: isShareUnit(unit) ? ".1~%" : undefined, nticks: 5, showgrid: false,
      showline: false, ticks: "outside", ticklen: 3,
    },
    yaxis: { showticklabels: false, showgrid: false, showline: false, range: [-0.6, 0.6] },
  }, { empty: traces.length ? null : "No population figures under these filters." });
}

function metricCard(metric, index, figure, population) {
  const id = `chart-metric-${index}`;
  const hasValue = figure && figure.value !== null && figure.value !== undefined;
  const n = figure?.n ?? 0;
  const interval = hasValue && figure.low !== null && figure.low !== undefined
    ? `95% CI ${fmtMetric(figure.low, metric.unit)} – ${fmtMetric(figure.high, metric.unit)} · `
    : "";
  const card = el("figure", {
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
      hasValue ? percentileText(figure.percentile)
        : `too small a sample (${fmtInt(n)} of ${fmtInt(metric.min_sample)})`)),
  el("p", { class: "metric-detail" }, `${interval}sample ${fmtInt(n)}` +
    (population?.players ? ` · against ${fmtInt(population.players)} players` : "")),
  el("div", { class: "plot" }),
  el("p", { class: "chart-empty", hidden: true }),
  el("p", { class: "definition" }, metric.definition ?? ""));
  return card;
}

function drawHistory(data) {
  const rows = data.score_history ?? [];
  const colors = palette();
  const x = rows.map((r) => r.date ?? `game ${r.game}`);
  const markers = rows.map((r) => (r.won ? colors.accent : "#fff"));
  drawChart("chart-history", [{
    type: "scatter",
    mode: rows.length > 1 ? "lines+markers" : "markers",
    x,
    y: rows.map((r) => r.score),
    line: { color: colors.line, width: 1.5 },
    marker: { size: 9, color: markers, line: { width: 2, color: colors.accent } },
    customdata: rows.map((r) => [r.url, r.game, r.won ? "won" : "lost"]),
    hovertemplate: "%{x}: %{y} points, %{customdata[2]} (game %{customdata[1]})<extra></extra>",
  }], {
    margin: { l: 62, r: 16, t: 10, b: 36, pad: 2 },
    yaxis: { title: { text: "final score" }, rangemode: "tozero" },
  }, {
    empty: rows.length ? null : "No games under these filters.",
    onClick: (point) => { if (point.customdata?.[0]) window.location.href = point.customdata[0]; },
  });
}

async function drawRecent(data) {
  const section = document.getElementById("recent-games");
  const rows = data.recent_games ?? [];
  const index = await statsIndex();
  const labels = new Map((index?.filters?.variant ?? []).map((v) => [v.key, v.label]));
  section.querySelector("tbody").replaceChildren(...rows.map((r) => el("tr", {},
    el("td", { class: "nowrap" }, String(r.date ?? "").slice(0, 10)),
    el("td", { class: "nowrap" },
      el("a", { href: r.url, class: "replay-link" }, `game ${r.game}`)),
    el("td", { class: "num" }, fmtNumber(r.score)),
    el("td", {},
      el("span", { class: r.won ? "badge won" : "badge lost" }, r.won ? "won" : "lost")),
    el("td", { class: "variant" }, labels.get(r.variant) ?? r.variant ?? r.preset ?? "",
      el("span", { class: "n" }, ` · ${fmtInt(r.players)} players`)),
  )));
  section.querySelector("table").hidden = rows.length === 0;
  section.querySelector(".chart-empty").hidden = rows.length !== 0;
}

startPage({
  api: (params) => withQuery(apiPath, params),
  isEmpty: (data) => !(data.score_history ?? []).length && !(data.recent_games ?? []).length,
  async render(data, { url }) {
    const name = data.player?.name ?? playerId;
    heading.textContent = name;
    const games = data.player?.games;
    const rounds = data.player?.rounds;
    document.getElementById("player-summary").textContent = games === undefined ? ""
      : `${fmtInt(games)} game${games === 1 ? "" : "s"}, ${fmtInt(rounds)} round` +
        `${rounds === 1 ? "" : "s"} under these filters.`;
    document.title = `${name} · Players · Statistics · Domino recorder`;
    const list = await definitions(data);
    const section = document.getElementById("metrics");
    section.replaceChildren(...list.map((m, i) => metricCard(
      m, i, data.metrics?.[m.key], data.population?.[m.key])));
    for (const link of section.querySelectorAll("a.json")) link.setAttribute("href", url);
    list.forEach((m, i) => bullet(`chart-metric-${i}`, m, data.metrics?.[m.key],
      data.population?.[m.key]));
    drawHistory(data);
    await drawRecent(data);
  },
});
