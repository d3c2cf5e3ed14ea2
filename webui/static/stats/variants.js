// The variants dashboard: every variant's figures from GET /api/stats/variants, as charts
// (how rounds end, the first player's rounds, points per round) and one table; and the
// picker that opens the comparison of two of them.

import {
  API, compareForm, drawChart, el, errorBars, fmtInt, fmtInterval, fmtMetric, insideText,
  narrow, paddedRange, palette, shareAxis, startPage, variantTick, withQuery,
} from "./common.js";

const COLUMNS = ["domino_share", "blocked_share", "target_share", "round_moves", "game_rounds",
  "game_moves", "first_round_wins", "first_game_wins", "points_per_round", "bonus_share"];

const openGames = (point) => {
  const url = Array.isArray(point.customdata) ? point.customdata.at(-1) : point.customdata;
  if (url) window.location.href = url;
};

function label(row) {
  return variantTick(row.label ?? row.variant);
}

function drawEnds(rows) {
  const colors = palette();
  const ordered = [...rows].reverse();
  const parts = [
    ["domino_share", "by a domino", colors.accent],
    ["blocked_share", "blocked", colors.warm],
    ["target_share", "on the target", colors.ink],
  ];
  drawChart("chart-ends", parts.map(([key, name, color]) => ({
    type: "bar", orientation: "h", name,
    y: ordered.map(label),
    // below the minimum sample a variant has no value: no bar, rather than a loud one
    x: ordered.map((r) => r.figures[key]?.value ?? 0),
    marker: { color },
    customdata: ordered.map((r) => [fmtInt(r.figures[key]?.k ?? 0), fmtInt(r.rounds),
      fmtInterval(r.figures[key]?.low, r.figures[key]?.high, "share"), r.games_url]),
    hovertemplate: `%{y}<br>ended ${name}: %{customdata[0]} of %{customdata[1]} rounds, ` +
      "%{x:.1%}<br>%{customdata[2]}<extra></extra>",
  })), {
    barmode: "stack",
    showlegend: true,
    legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    height: Math.max(180, 80 + (narrow() ? 40 : 30) * rows.length),
    margin: { l: 8, r: 16, t: 30, b: 30, pad: 2 },
    xaxis: { ...shareAxis, range: [0, 1] },
    yaxis: { type: "category", automargin: true },
  }, { empty: rows.length ? null : "No rounds under these filters.", onClick: openGames });
}

function drawFigure(id, rows, key, unit) {
  const colors = palette();
  const shown = rows.filter((r) => r.figures[key]?.value !== null &&
    r.figures[key]?.value !== undefined).reverse();
  const values = shown.map((r) => r.figures[key]);
  const traces = [{
    type: "bar", orientation: "h", y: shown.map(label), x: values.map((v) => v.value),
    marker: { color: colors.accentSoft },
    error_x: errorBars(values, { value: "value", color: colors.ink }),
    text: values.map((v) => fmtMetric(v.value, unit)),
    ...insideText, textfont: { color: colors.ink },
    customdata: shown.map((r, i) => [fmtInterval(values[i].low, values[i].high, unit),
      fmtInt(values[i].n), r.games_url]),
    hovertemplate: "%{y}: %{text}<br>%{customdata[0]} · sample %{customdata[1]}<extra></extra>",
  }];
  if (values.some((v) => v.even !== undefined && v.even !== null)) {
    traces.push({
      type: "scatter", mode: "markers", y: shown.map(label), x: values.map((v) => v.even),
      name: "if playing first did not matter",
      marker: { symbol: "line-ns", size: 18, line: { width: 2, color: colors.warm } },
      hovertemplate: "%{y}: %{x:.1%} if playing first did not matter<extra></extra>",
    });
  }
  const share = unit.startsWith("share");
  drawChart(id, traces, {
    height: Math.max(160, 60 + (narrow() ? 40 : 28) * shown.length),
    margin: { l: 8, r: 24, t: 10, b: 30, pad: 2 },
    xaxis: share ? { ...shareAxis, range: paddedRange(values.map((v) => v.high)) }
      : { rangemode: "tozero", range: paddedRange(values.map((v) => v.high)) },
    yaxis: { type: "category", automargin: true },
  }, {
    empty: shown.length ? null : "No variant has a large enough sample under these filters.",
    onClick: openGames,
  });
}

function cell(figure, unit) {
  if (!figure || figure.value === null || figure.value === undefined) {
    const why = figure?.reason ?? `too small a sample (n ${fmtInt(figure?.n ?? 0)})`;
    return el("td", { class: "num thin", title: why }, el("span", { class: "value" }, "–"),
      el("span", { class: "n" }, figure?.reason ? "no such rule" : `n ${fmtInt(figure?.n ?? 0)}`));
  }
  return el("td", { class: "num", "data-value": figure.value,
    title: `${fmtInterval(figure.low, figure.high, unit)}, sample ${fmtInt(figure.n)}` },
  el("span", { class: "value" }, fmtMetric(figure.value, unit)),
  el("span", { class: "ci" }, fmtInterval(figure.low, figure.high, unit, { prefix: "" })),
  el("span", { class: "n" }, `n ${fmtInt(figure.n)}`));
}

function drawTable(data) {
  const about = new Map((data.figures ?? []).map((f) => [f.key, f]));
  const table = document.getElementById("variants");
  table.tHead.rows[0].replaceChildren(
    el("th", { scope: "col", class: "name" }, "Variant"),
    el("th", { scope: "col", class: "num" }, "Games"),
    el("th", { scope: "col", class: "num" }, "Rounds"),
    ...COLUMNS.map((k) => el("th", { scope: "col", class: "num", title: about.get(k)?.definition,
      tabindex: "0" }, about.get(k)?.label ?? k)));
  table.tBodies[0].replaceChildren(...(data.variants ?? []).map((r) => el("tr",
    { "data-variant": r.variant },
    el("th", { scope: "row", class: "name" }, el("a", { href: r.games_url }, r.label ?? r.variant)),
    el("td", { class: "num" }, fmtInt(r.games)),
    el("td", { class: "num" }, fmtInt(r.rounds)),
    ...COLUMNS.map((k) => cell(r.figures[k], about.get(k)?.unit ?? "")))));
  document.querySelector("#definitions dl").replaceChildren(...COLUMNS.flatMap((k) => [
    el("dt", {}, about.get(k)?.label ?? k), el("dd", {}, about.get(k)?.definition ?? "")]));
}

startPage({
  api: (params) => withQuery(`${API}/variants`, params),
  isEmpty: (data) => !(data.variants ?? []).length,
  render(data) {
    const rows = [...(data.variants ?? [])].sort((x, y) =>
      String(x.label).localeCompare(String(y.label)));
    const busiest = [...rows].sort((x, y) => y.games - x.games).map((r) => r.variant);
    compareForm({ defaults: busiest.slice(0, 2) });
    drawEnds(rows);
    drawFigure("chart-first", rows, "first_round_wins", "share of rounds");
    drawFigure("chart-points", rows, "points_per_round", "points");
    drawTable(data);
    if (narrow()) document.getElementById("definitions").open = false;
  },
});
