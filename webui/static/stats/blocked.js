// The blocked-rounds dashboard: every figure from one GET /api/stats/blocked answer.

import {
  API, barTrace, drawChart, errorBars, fmtInt, fmtInterval, fmtShare, narrow, paddedRange,
  palette, playerPage, plotText, shareAxis, startPage, variantTick, withQuery,
} from "./common.js";

function headline(data) {
  const box = document.getElementById("share");
  box.querySelector(".headline-value").textContent = fmtShare(data.share);
  box.querySelector(".headline-interval").textContent = fmtInterval(data.low, data.high, "share");
  box.querySelector(".headline-detail").textContent =
    `${fmtInt(data.blocked)} of ${fmtInt(data.rounds)} rounds`;
}

const openGames = (point) => {
  const url = Array.isArray(point.customdata) ? point.customdata.at(-1) : point.customdata;
  if (url) window.location.href = url;
};

// Rows: variants; columns: number of players; a cell is the blocked share. A cell of
// fewer rounds than the minimum sample is drawn grey in a trace of its own, so that 1 of
// 4 rounds does not outshine 200 of 2,000.
function drawRules(data) {
  const rows = data.by_rules ?? [];
  const small = narrow();
  const rowKey = (r) => r.label ?? r.variant;
  const rowKeys = [...new Set(rows.map(rowKey))].sort().reverse();
  const counts = [...new Set(rows.map((r) => r.players))].sort((a, b) => a - b);
  const cell = new Map(rows.map((r) => [`${rowKey(r)}|${r.players}`, r]));
  const grids = { z: [], thinZ: [], text: [], thinText: [], custom: [] };
  for (const key of rowKeys) {
    const zRow = [];
    const thinRow = [];
    const tRow = [];
    const thinTRow = [];
    const cRow = [];
    for (const n of counts) {
      const r = cell.get(`${key}|${n}`);
      zRow.push(r && !r.thin ? r.share : null);
      thinRow.push(r && r.thin ? 0 : null);
      // The sample and the interval under the share: 40% of 5 rounds is not 40% of 500.
      const interval = r && r.low !== null ? `${fmtShare(r.low, 0)}–${fmtShare(r.high, 0)}` : "";
      const text = r ? `${fmtShare(r.share)}${small ? "" : ` (${interval})`}<br>` +
        `${fmtInt(r.blocked)}/${fmtInt(r.rounds)}${r.thin ? " · few" : ""}` : "";
      // each trace writes only its own cells
      tRow.push(r && !r.thin ? text : "");
      thinTRow.push(r && r.thin ? text : "");
      cRow.push(r ? [fmtInt(r.blocked), fmtInt(r.rounds), fmtShare(r.share),
        fmtInterval(r.low, r.high, "share"),
        r.thin ? `fewer than ${fmtInt(data.min_sample)} rounds: too few to compare` : "",
        r.games_url] : ["–", "–", "–", "", "", ""]);
    }
    grids.z.push(zRow);
    grids.thinZ.push(thinRow);
    grids.text.push(tRow);
    grids.thinText.push(thinTRow);
    grids.custom.push(cRow);
  }
  const colors = palette();
  const x = counts.map((n) => (small ? `${n}p` : `${n} players`));
  // On a phone a long variant's options go under its preset: the cells keep the width.
  const y = rowKeys.map((key) => variantTick(key));
  const common = {
    type: "heatmap", x, y, customdata: grids.custom,
    texttemplate: "%{text}", xgap: 2, ygap: 2, hoverongaps: false,
    hovertemplate: "%{y}, %{x}<br>%{customdata[0]} of %{customdata[1]} rounds blocked: " +
      "%{customdata[2]}<br>%{customdata[3]}<br>%{customdata[4]}<extra></extra>",
  };
  drawChart("chart-rules", [
    {
      ...common, z: grids.z, text: grids.text, zmin: 0,
      colorscale: [[0, "#ffffff"], [1, colors.warm]],
      showscale: !small, colorbar: { tickformat: ".0%", thickness: 10, outlinewidth: 0 },
    },
    {
      ...common, z: grids.thinZ, text: grids.thinText, zmin: 0, zmax: 1, showscale: false,
      colorscale: [[0, colors.thinCell], [1, colors.thinCell]],
      textfont: { color: colors.muted },
    },
  ], {
    height: Math.max(180, 70 + (small ? 56 : 48) * rowKeys.length),
    margin: { l: 8, r: 8, t: 30, b: 8, pad: 2 },
    xaxis: { type: "category", side: "top", showgrid: false, tickangle: 0 },
    yaxis: { type: "category", showgrid: false, automargin: true },
  }, { empty: rows.length ? null : "No rounds under these filters.", onClick: openGames });
  const thin = rows.filter((r) => r.thin).length;
  document.querySelector("#chart-rules .chart-thin").textContent = thin
    ? `${fmtInt(thin)} cell${thin === 1 ? " has" : "s have"} fewer than ` +
      `${fmtInt(data.min_sample)} rounds (grey, "few"): their share is shown, not coloured.`
    : "";
}

function drawOverTime(data) {
  const rows = data.over_time ?? [];
  const colors = palette();
  const custom = rows.map((r) => [fmtInt(r.blocked), fmtInt(r.rounds), fmtShare(r.share),
    fmtInterval(r.low, r.high, "share"), r.games_url]);
  drawChart("chart-time", [
    {
      type: "bar",
      x: rows.map((r) => r.period),
      y: rows.map((r) => r.rounds),
      name: "rounds",
      marker: { color: colors.band },
      customdata: custom,
      hovertemplate: "%{x}: %{y} rounds<extra></extra>",
    },
    {
      type: "scatter",
      mode: "lines+markers",
      x: rows.map((r) => r.period),
      y: rows.map((r) => r.share),
      name: "share blocked (95% interval)",
      yaxis: "y2",
      line: { color: colors.warm, width: 2 },
      marker: { size: 6 },
      error_y: errorBars(rows, { color: colors.warm }),
      customdata: custom,
      hovertemplate: "%{x}<br>%{customdata[0]} of %{customdata[1]} rounds blocked: " +
        "%{customdata[2]}<br>%{customdata[3]}<extra></extra>",
    },
  ], {
    showlegend: true,
    legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    margin: { l: 62, r: 62, t: 36, b: 8, pad: 2 },
    xaxis: { type: "category", automargin: true },
    // The rounds on the right, under the line of the share, which is drawn over them.
    yaxis: { side: "right", showgrid: false, rangemode: "tozero", title: { text: "rounds" } },
    yaxis2: {
      ...shareAxis, overlaying: "y", tickmode: "auto", side: "left", fixedrange: true,
      title: { text: "share blocked" },
    },
  }, { empty: rows.length ? null : "No rounds under these filters.", onClick: openGames });
}

function drawCounts(id, rows, key, { xTitle, hover, empty }) {
  drawChart(id, [
    barTrace(rows.map((r) => r[key]), rows.map((r) => r.count), {
      hover, color: palette().warm,
      text: rows.length <= 16 ? rows.map((r) => fmtInt(r.count)) : undefined,
    }),
  ], {
    xaxis: { title: { text: xTitle }, dtick: rows.length > 16 ? undefined : 1 },
    yaxis: { title: { text: "blocked rounds" }, rangemode: "tozero" },
  }, { empty: rows.length ? null : empty });
}

const ENDERS_SHOWN = 15;

function drawEnders(data, params) {
  // The API lists every ender, most first; the chart shows the first ones.
  const all = data.enders ?? [];
  const rows = all.slice(0, ENDERS_SHOWN).reverse();
  document.querySelector("#chart-enders .chart-more").textContent = all.length > rows.length
    ? `The ${rows.length} players who ended the most, of ${fmtInt(all.length)} (all in the JSON).`
    : "";
  // Names come from logs: escaped for plotly, and two players of one name stay apart.
  const names = rows.map((r) => r.name ?? r.player);
  const twice = new Set(names.filter((n, i) => names.indexOf(n) !== i));
  const labels = rows.map((r, i) => plotText(twice.has(names[i]) ? `${names[i]} (${r.player})`
    : names[i]));
  drawChart("chart-enders", [
    barTrace(labels, rows.map((r) => r.count), {
      horizontal: true,
      outside: true,
      color: palette().warm,
      customdata: rows.map((r) => r.games_url ?? playerPage(r.player, params)),
      hover: "%{y}: ended %{x} blocked rounds",
      text: rows.map((r) => fmtInt(r.count)),
    }),
  ], {
    height: Math.max(160, 50 + 30 * rows.length),
    margin: { l: 8, r: 16, t: 10, b: 50, pad: 2 },
    xaxis: {
      title: { text: "blocked rounds ended" }, range: paddedRange(rows.map((r) => r.count)),
    },
    yaxis: { type: "category", automargin: true },
  }, {
    empty: rows.length ? null : "No blocked rounds under these filters.",
    onClick: openGames,
  });
}

startPage({
  api: (params) => withQuery(`${API}/blocked`, params),
  isEmpty: (data) => !data.rounds,
  render(data, { params }) {
    headline(data);
    drawRules(data);
    drawOverTime(data);
    drawCounts("chart-margins", data.margins ?? [], "margin", {
      xTitle: "winning margin (pips)",
      hover: "won by %{x} pips: %{y} rounds",
      empty: "No blocked rounds under these filters.",
    });
    drawCounts("chart-certain", data.certain_before_end ?? [], "moves", {
      xTitle: "moves before the end",
      hover: "certain %{x} moves before the end: %{y} rounds",
      empty: "No blocked rounds under these filters.",
    });
    drawEnders(data, params);
    const unknown = data.certain_unknown ?? 0;
    document.querySelector("#chart-certain .chart-unknown").textContent = unknown
      ? `${fmtInt(unknown)} blocked round${unknown === 1 ? "" : "s"} not counted: the search ` +
        "for the certain move gave up on them."
      : "";
  },
});
