// Two variants compared: every figure from one GET /api/stats/compare?a=...&b=... answer.
// The server computes each value, interval, difference and sentence; the page lays them
// out side by side and draws the distributions and the seats.

import {
  API, compareForm, drawChart, el, errorBars, fmtInt, fmtInterval, fmtMetric, fmtShare,
  narrow, palette, plotText, shareAxis, startPage, withQuery,
} from "./common.js";

const page = new URLSearchParams(window.location.search);
let started = null;

function sides() {
  const here = new URLSearchParams(window.location.search);
  return { a: here.get("a") ?? "", b: here.get("b") ?? "" };
}

// A difference as the pages write it: percentage points for shares, the unit for means.
function fmtDifference(value, unit) {
  if (value === null || value === undefined) return "–";
  const sign = value > 0 ? "+" : value < 0 ? "−" : "±";
  if (unit.startsWith("share")) return `${sign}${(Math.abs(value) * 100).toFixed(1)} pts`;
  return `${sign}${fmtMetric(Math.abs(value), unit)}`;
}

function valueCell(figure, unit, side) {
  if (!figure || figure.value === null || figure.value === undefined) {
    return el("td", { class: `num thin side-${side}`, "data-label": side.toUpperCase() },
      el("span", { class: "value" }, "–"),
      el("span", { class: "n" }, figure?.reason ? "no such rule" : `n ${fmtInt(figure?.n ?? 0)}`));
  }
  return el("td", { class: `num side-${side}`, "data-value": figure.value,
    "data-label": side.toUpperCase() },
  el("span", { class: "value" }, fmtMetric(figure.value, unit)),
  el("span", { class: "ci" }, fmtInterval(figure.low, figure.high, unit, { prefix: "" })),
  el("span", { class: "n" }, `n ${fmtInt(figure.n)}`));
}

function drawTable(data) {
  const body = document.querySelector("#compare tbody");
  body.replaceChildren(...(data.rows ?? []).map((row) => {
    const d = row.difference ?? {};
    return el("tr", { "data-key": row.key, class: row.significant ? "clear" : "unclear" },
      el("th", { scope: "row", class: "figure" },
        el("span", { class: "figure-label", title: row.definition }, row.label),
        el("span", { class: "n" }, row.unit)),
      valueCell(row.a, row.unit, "a"),
      valueCell(row.b, row.unit, "b"),
      el("td", { class: "num difference", "data-value": d.value ?? "", "data-label": "A − B" },
        el("span", { class: "value" }, fmtDifference(d.value, row.unit)),
        el("span", { class: "ci" }, d.low === null || d.low === undefined ? ""
          : `${fmtDifference(d.low, row.unit)} to ${fmtDifference(d.high, row.unit)}`)),
      el("td", { class: "sentence" }, row.sentence));
  }));
}

function sideLine(side, letter) {
  return el("span", { class: `side side-${letter}` },
    el("strong", {}, `${letter.toUpperCase()}: ${side.label ?? side.variant}`),
    ` — ${fmtInt(side.games)} game${side.games === 1 ? "" : "s"}, ${fmtInt(side.rounds)} ` +
    `round${side.rounds === 1 ? "" : "s"} under these filters `,
    el("a", { href: side.games_url, class: "games-link" }, "(the games)"));
}

function distribution(id, data, kind, { bucket = 1, unit }) {
  const colors = palette();
  const dist = data.distributions;
  if (!dist) {
    drawChart(id, [], {}, {
      empty: "Distributions are kept over every player's games: clear the player filter.",
    });
    return;
  }
  const tick = (v) => (bucket > 1 ? `${v}–${v + bucket - 1}` : String(v));
  const traces = [["a", colors.accent], ["b", colors.warm]].map(([letter, color]) => {
    const side = data[letter];
    const rows = dist[kind]?.[side.variant] ?? [];
    return {
      type: "bar", name: `${letter.toUpperCase()}: ${plotText(side.label)}`,
      x: rows.map((r) => r.value), y: rows.map((r) => r.share), marker: { color },
      opacity: 0.8,
      customdata: rows.map((r) => [tick(r.value), fmtInt(r.count), fmtShare(r.share)]),
      hovertemplate: `${letter.toUpperCase()}: %{customdata[0]} ${unit}: %{customdata[1]} ` +
        "(%{customdata[2]})<extra></extra>",
    };
  });
  const any = traces.some((t) => t.x.length);
  drawChart(id, traces, {
    barmode: "group", bargap: 0.1,
    showlegend: true,
    legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
    margin: { l: 56, r: 12, t: 36, b: 44, pad: 2 },
    xaxis: { title: { text: bucket > 1 ? `${unit} (buckets of ${bucket})` : unit } },
    yaxis: { ...shareAxis, title: { text: "share" } },
  }, { empty: any ? null : "Nothing to show under these filters." });
}

const ORDINALS = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th"];

function drawSeats(data) {
  const colors = palette();
  const counts = [...new Set([...data.a.seats, ...data.b.seats].map((s) => s.players))]
    .sort((x, y) => x - y);
  const box = document.getElementById("seat-charts");
  box.replaceChildren(...counts.map((n) => el("figure", {
    class: `chart${counts.length === 1 ? " wide" : ""}`, id: `chart-turns-${n}` },
  el("figcaption", {}, el("span", { class: "chart-title" },
    `Round wins by turn, ${n} players`)),
  el("p", { class: "chart-note" }, "1st: the player who made the round's first play."),
  el("div", { class: "plot" }), el("p", { class: "chart-empty", hidden: true }))));
  for (const n of counts) {
    const traces = [];
    const evens = [];
    for (const [letter, color] of [["a", colors.accent], ["b", colors.warm]]) {
      const rows = data[letter].seats.filter((s) => s.players === n && s.kind === "turn");
      const values = rows.map((s) => s.round_wins);
      traces.push({
        type: "bar", name: `${letter.toUpperCase()}: ${plotText(data[letter].label)}`,
        x: rows.map((s) => ORDINALS[s.position] ?? `${s.position + 1}th`),
        y: values.map((v) => v.value), marker: { color }, opacity: 0.85,
        error_y: errorBars(values, { value: "value" }),
        customdata: values.map((v) => [fmtInt(v.k), fmtInt(v.n),
          fmtInterval(v.low, v.high, "share")]),
        hovertemplate: `${letter.toUpperCase()}, %{x}: won %{customdata[0]} of ` +
          "%{customdata[1]} rounds, %{y:.1%}<br>%{customdata[2]}<extra></extra>",
      });
      rows.forEach((s) => evens.push(s.even));
    }
    const even = evens.find((v) => v !== null && v !== undefined);
    drawChart(`chart-turns-${n}`, traces, {
      barmode: "group",
      showlegend: true,
      legend: { orientation: "h", x: 0, y: 1.02, yanchor: "bottom" },
      margin: { l: 56, r: 12, t: 36, b: 36, pad: 2 },
      xaxis: { type: "category" },
      yaxis: { ...shareAxis, title: { text: "rounds won" } },
      shapes: even ? [{ type: "line", xref: "paper", x0: 0, x1: 1, y0: even, y1: even,
        line: { color: colors.muted, width: 1, dash: "dash" } }] : [],
    }, {
      empty: traces.some((t) => t.y.some((v) => v !== null && v !== undefined)) ? null
        : `Too few rounds of ${n} players to compare: each turn needs ` +
          `${fmtInt(data.seat_min_sample?.round_wins)} rounds.`,
    });
  }
  const seatRows = counts.flatMap((n) => {
    const positions = [...new Set([...data.a.seats, ...data.b.seats]
      .filter((s) => s.players === n && s.kind === "seat").map((s) => s.position))].sort();
    return positions.map((p) => {
      const find = (letter) => data[letter].seats.find((s) => s.players === n &&
        s.kind === "seat" && s.position === p);
      const a = find("a");
      const b = find("b");
      return el("tr", {},
        el("td", { class: "num" }, fmtInt(n)),
        el("td", {}, `seat ${p + 1}`),
        valueCell(a?.wins, "share of games", "a"), valueCell(b?.wins, "share of games", "b"),
        valueCell(a?.points_per_round, "points", "a"), valueCell(b?.points_per_round, "points", "b"));
    });
  });
  document.querySelector("#seat-table tbody").replaceChildren(...seatRows);
}

function render(data, { url }) {
  const line = document.getElementById("compare-sides");
  line.replaceChildren(sideLine(data.a, "a"), " ", sideLine(data.b, "b"));
  document.querySelector("#compare thead .side-a").textContent = `A: ${data.a.label}`;
  document.querySelector("#compare thead .side-b").textContent = `B: ${data.b.label}`;
  drawTable(data);
  distribution("chart-round-moves", data, "round_moves",
    { unit: "moves", bucket: data.distributions?.round_moves_bucket ?? 1 });
  distribution("chart-game-rounds", data, "game_rounds", { unit: "rounds" });
  distribution("chart-game-moves", data, "game_moves",
    { unit: "moves", bucket: data.distributions?.game_moves_bucket ?? 1 });
  drawSeats(data);
  for (const link of document.querySelectorAll("a.json")) link.setAttribute("href", url);
  if (narrow()) document.getElementById("filter-box").open = false;
}

started = startPage({
  api: (params) => {
    const { a, b } = sides();
    if (!a || !b) return null;
    const query = new URLSearchParams(params);
    query.set("a", a);
    query.set("b", b);
    return withQuery(`${API}/compare`, query);
  },
  idle: { title: "Choose two variants to compare.",
    text: "Pick them above; the filters below apply to both." },
  isEmpty: (data) => !data.a.rounds && !data.b.rounds,
  extraKeys: ["a", "b"],
  render,
});

compareForm({
  defaults: [page.get("a") ?? "", page.get("b") ?? ""],
  onChoose: (target) => {
    history.pushState(null, "", target);
    started.reload();
  },
});
window.addEventListener("popstate", () => compareForm());
