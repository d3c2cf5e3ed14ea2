// The players list: one table from GET /api/stats/players, sortable by any column.
//
// The sort order lives in the address too (?sort=KEY&order=asc|desc) so a sorted view is a
// link; those two parameters belong to the page and are not sent to the API.

import {
  API, betterText, el, fmtInt, fmtMetric, playerPage, startPage, withQuery,
} from "./common.js";

const table = document.getElementById("players-table");
const more = document.getElementById("show-all");
const FIRST_ROWS = 100;  // a large store has thousands of players: the rest on request
let last = null;  // the last answer and filters, to re-sort without fetching again
let showAll = false;

more.addEventListener("click", () => {
  showAll = true;
  render();
});

function sortState() {
  const here = new URLSearchParams(window.location.search);
  return { key: here.get("sort") || "games", order: here.get("order") === "asc" ? "asc" : "desc" };
}

function setSort(key) {
  const current = sortState();
  const order = current.key === key && current.order === "desc" ? "asc" : "desc";
  const here = new URLSearchParams(window.location.search);
  here.set("sort", key);
  here.set("order", order);
  history.replaceState(null, "", withQuery(window.location.pathname, here));
  render();
}

function columns(data) {
  return [
    { key: "name", label: "Player",
      title: "The name the player last played under; the id is in the link",
      value: (p) => String(p.name ?? p.id).toLowerCase(), text: true },
    { key: "games", label: "Games", title: "Games played under these filters",
      value: (p) => p.games },
    { key: "rounds", label: "Rounds", title: "Rounds played under these filters",
      value: (p) => p.rounds },
    ...(data.metrics ?? []).map((m) => ({
      key: m.key, label: m.label ?? m.key, title: `${m.definition ?? ""} ${betterText(m.better)}`,
      metric: m, value: (p) => p.metrics?.[m.key]?.value ?? null,
    })),
  ];
}

function compare(column, order) {
  const sign = order === "asc" ? 1 : -1;
  return (a, b) => {
    const x = column.value(a);
    const y = column.value(b);
    // Hidden values (too small a sample) go last whichever the direction.
    if (x === null && y === null) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    if (column.text) return sign * String(x).localeCompare(String(y));
    return sign * (x - y);
  };
}

function headerCell(column, sort) {
  const active = column.key === sort.key;
  const arrow = active ? (sort.order === "asc" ? "▲" : "▼") : "";
  const button = el("button", {
    type: "button", class: "sort", "data-sort": column.key, title: column.title,
  }, column.label, el("span", { class: "arrow", "aria-hidden": "true" }, arrow));
  button.addEventListener("click", () => setSort(column.key));
  return el("th", {
    scope: "col",
    class: column.key === "name" ? "name" : "num",
    "aria-sort": active ? (sort.order === "asc" ? "ascending" : "descending") : "none",
  }, button);
}

function metricCell(metric, figure) {
  const minimum = metric.min_sample ?? 0;
  if (!figure || figure.value === null || figure.value === undefined) {
    const n = figure?.n ?? 0;
    return el("td", {
      class: "num thin",
      "data-n": n,
      title: `Too small a sample: ${n} of the ${minimum} needed`,
    }, el("span", { class: "value" }, "–"), el("span", { class: "n" }, `n ${fmtInt(n)}`));
  }
  const hasInterval = figure.low !== null && figure.low !== undefined;
  const interval = hasInterval
    ? `95% confidence interval ${fmtMetric(figure.low, metric.unit)} – ` +
      `${fmtMetric(figure.high, metric.unit)}, `
    : "";
  // The interval is written in the cell, not only in its tooltip: a phone has no hover.
  return el("td", {
    class: "num", "data-value": figure.value, "data-n": figure.n,
    title: `${interval}sample ${fmtInt(figure.n)}`,
  }, el("span", { class: "value" }, fmtMetric(figure.value, metric.unit)),
  hasInterval ? el("span", { class: "ci" },
    `${fmtMetric(figure.low, metric.unit)}–${fmtMetric(figure.high, metric.unit)}`) : null,
  el("span", { class: "n" }, `n ${fmtInt(figure.n)}`));
}

function render() {
  if (!last) return;
  const { data, params } = last;
  const cols = columns(data);
  let sort = sortState();
  if (!cols.some((c) => c.key === sort.key)) sort = { key: "games", order: "desc" };
  const column = cols.find((c) => c.key === sort.key);
  const sorted = [...(data.players ?? [])].sort(compare(column, sort.order));
  const rows = showAll ? sorted : sorted.slice(0, FIRST_ROWS);
  more.hidden = rows.length === sorted.length;
  more.textContent = `Show all ${fmtInt(sorted.length)} players`;

  const focused = document.activeElement?.dataset?.sort;
  table.tHead.rows[0].replaceChildren(...cols.map((c) => headerCell(c, sort)));
  if (focused) table.tHead.querySelector(`button[data-sort="${CSS.escape(focused)}"]`)?.focus();

  const metrics = data.metrics ?? [];
  table.tBodies[0].replaceChildren(...rows.map((p) => el("tr", { "data-player": p.id },
    el("th", { scope: "row", class: "name" },
      el("a", { href: playerPage(p.id, params), title: p.id }, p.name ?? p.id)),
    el("td", { class: "num" }, fmtInt(p.games)),
    el("td", { class: "num" }, fmtInt(p.rounds)),
    ...metrics.map((m) => metricCell(m, p.metrics?.[m.key])),
  )));
  document.querySelector("#definitions dl").replaceChildren(...metrics.flatMap((m) => [
    el("dt", {}, m.label ?? m.key),
    el("dd", {}, m.definition ?? "", " ", betterText(m.better), " ",
      el("span", { class: "n" }, `(${m.unit}; shown from a sample of ${fmtInt(m.min_sample)})`)),
  ]));
  const count = (data.players ?? []).length;
  document.getElementById("player-count").textContent =
    `${fmtInt(count)} player${count === 1 ? "" : "s"}`;
}

startPage({
  api: (params) => withQuery(`${API}/players`, params),
  isEmpty: (data) => !(data.players ?? []).length,
  extraKeys: ["sort", "order"],
  render(data, { params }) {
    last = { data, params };
    showAll = false;
    render();
  },
});
