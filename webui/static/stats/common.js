// Shared by the statistics pages: the filters in the address, fetching the JSON API,
// drawing plotly figures from its answer, and the page's loading / empty / error states.
//
// Every figure is built from the answer of one /api/stats URL fetched with the page's own
// query string, and that URL is the chart's "JSON" link: the numbers a chart shows are the
// numbers its link returns. The browser formats and lays out; it computes no statistic.

export const FILTERS = ["preset", "variant", "frontend", "players", "player", "since", "until"];
export const API = "/api/stats";

// ---------------------------------------------------------------------------------------
// DOM helpers: everything that came from a log goes in as text, never as markup.

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// plotly reads a small HTML subset in every label (<b>, <br>, <a href>...); a player named
// "<b>x</b>" must show those characters, so label text is entity-escaped before plotly
// sees it (plotly turns the entities back into the characters when it draws).
export function plotText(value) {
  return String(value ?? "")
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;");
}

// A variant's label as an axis tick: on a phone its options go under the preset, one a
// line, so that the plot keeps its width.
export function variantTick(label) {
  const text = plotText(label);
  if (!narrow()) return text;
  return text.replace(" (", "<br>(").replaceAll(", ", ",<br>");
}

// A bar's value written inside its base end, clear of the interval's whiskers at its tip.
export const insideText = {
  textposition: "inside", insidetextanchor: "start", textfont: { color: "#fff" },
};

// ---------------------------------------------------------------------------------------
// Numbers.

const integer = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const decimal = new Intl.NumberFormat("en", { maximumFractionDigits: 2 });

export function fmtInt(value) {
  return value === null || value === undefined ? "–" : integer.format(value);
}

export function fmtNumber(value) {
  return value === null || value === undefined ? "–" : decimal.format(value);
}

export function fmtShare(value, digits = 1) {
  if (value === null || value === undefined) return "–";
  return `${(value * 100).toFixed(digits)}%`;
}

// A 95% interval as the pages write it: "95% CI 17.2% – 26.0%" (nothing without one).
export function fmtInterval(low, high, unit, { prefix = "95% CI " } = {}) {
  if (low === null || low === undefined || high === null || high === undefined) return "";
  return `${prefix}${fmtMetric(low, unit)} – ${fmtMetric(high, unit)}`;
}

// Which way a metric is good for the player, as the API's `better` says.
export function betterText(better) {
  if (better === "higher") return "Higher is better.";
  if (better === "lower") return "Lower is better.";
  return "Neither higher nor lower is better.";
}

// Units as the API names them ("share of games", "points", "ms"...): shares are
// fractions of one and read as percentages.
export function isShareUnit(unit) {
  return String(unit ?? "").toLowerCase().startsWith("share");
}

// A metric's value; `withUnit` adds a unit that is not a share ("3.2 pips").
export function fmtMetric(value, unit, { withUnit = false } = {}) {
  if (value === null || value === undefined) return "–";
  if (isShareUnit(unit)) return fmtShare(value);
  const digits = Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2;
  const text = value.toLocaleString("en", {
    minimumFractionDigits: digits, maximumFractionDigits: digits,
  });
  return withUnit && unit ? `${text} ${unit}` : text;
}

// ---------------------------------------------------------------------------------------
// Filters and addresses.

// The filters in the current address, in a fixed order, empty ones left out.
export function currentFilters(extraKeys = []) {
  const here = new URLSearchParams(window.location.search);
  const out = new URLSearchParams();
  for (const key of [...FILTERS, ...extraKeys]) {
    const value = here.get(key);
    if (value !== null && value.trim() !== "") out.set(key, value.trim());
  }
  return out;
}

export function withQuery(path, params) {
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

// plotly error bars from each value's interval (values without one get none).
export function errorBars(rows, { value = "share", color } = {}) {
  const plus = [];
  const minus = [];
  for (const r of rows) {
    const v = r[value];
    const ok = v !== null && v !== undefined && r.low !== null && r.low !== undefined;
    plus.push(ok ? r.high - v : 0);
    minus.push(ok ? v - r.low : 0);
  }
  return {
    type: "data", symmetric: false, array: plus, arrayminus: minus, thickness: 1.5,
    width: 4, color: color ?? palette().ink, visible: true,
  };
}

export function playerPage(id, params) {
  const kept = new URLSearchParams(params);
  kept.delete("player");
  return withQuery(`/stats/players/${encodeURIComponent(id)}`, kept);
}

// Links that carry the filters along (the stats tabs, the overview's cards).
function updateKeptLinks(params) {
  for (const link of document.querySelectorAll("a[data-keep-filters]")) {
    const url = new URL(link.getAttribute("href"), window.location.href);
    link.setAttribute("href", withQuery(url.pathname, params));
  }
}

function fillSelect(select, choices, current) {
  const keep = select.options[0];
  select.replaceChildren(keep);
  let found = false;
  for (const choice of choices) {
    const value = typeof choice === "object" ? String(choice.key) : String(choice);
    const label = typeof choice === "object" ? String(choice.label ?? choice.key) : value;
    found ||= value === current;
    select.append(el("option", { value }, label));
  }
  // A shared link may name a value that is not (or no longer) in the data: keep it, so
  // the form shows what the charts are filtered by and the API can say what is wrong.
  if (current && !found) select.append(el("option", { value: current }, current));
  select.value = current;
}

function setFormValues(form, params) {
  for (const control of form.elements) {
    if (!control.name || !FILTERS.includes(control.name)) continue;
    const value = params.get(control.name) ?? "";
    if (control.tagName === "SELECT" && ![...control.options].some((o) => o.value === value)) {
      control.append(el("option", { value }, value));
    }
    control.value = value;
  }
}

function formFilters(form) {
  const out = new URLSearchParams();
  const data = new FormData(form);
  for (const key of FILTERS) {
    const value = data.get(key);
    if (typeof value === "string" && value.trim() !== "") out.set(key, value.trim());
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Fetching.

export class ApiProblem extends Error {}

export async function getJSON(url, { signal } = {}) {
  let response;
  try {
    response = await fetch(url, { headers: { Accept: "application/json" }, signal });
  } catch (error) {
    if (error.name === "AbortError") throw error;
    throw new ApiProblem("The statistics service did not answer; try again in a moment.");
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    throw new ApiProblem(`The statistics service answered ${response.status} without data.`);
  }
  if (!response.ok || !body || body.ok === false) {
    const message = body?.error?.message ?? `the service answered ${response.status}`;
    throw new ApiProblem(response.status === 400 ? `Bad filter: ${message}` : message);
  }
  return body.data;
}

// ---------------------------------------------------------------------------------------
// Drawing.

function cssColor(name, fallback) {
  const value = getComputedStyle(document.documentElement).getPropertyValue(name).trim();
  return value || fallback;
}

export function palette() {
  return {
    ink: cssColor("--ink", "#1d232a"),
    muted: cssColor("--muted", "#5b6670"),
    line: cssColor("--line", "#d7dde2"),
    accent: cssColor("--accent", "#1f6f5c"),
    accentSoft: cssColor("--accent-soft", "#a9d3c7"),
    warm: cssColor("--warm", "#c26a1b"),
    band: cssColor("--band", "#e4ecea"),
    thinCell: cssColor("--thin-cell", "#eceff1"),
  };
}

// A phone-sized screen: charts shorten their labels.
export const narrow = () => window.matchMedia("(max-width: 40rem)").matches;

function baseLayout(extra) {
  const colors = palette();
  const font = getComputedStyle(document.body).fontFamily;
  const axis = {
    automargin: false, fixedrange: true, gridcolor: colors.line, linecolor: colors.line,
    zeroline: false, tickfont: { size: narrow() ? 11 : 12 },
  };
  return {
    autosize: true,
    height: 280,
    // Fixed margins, room for the axis titles: plotly's automargin redraws a chart until
    // its labels fit, which doubles the drawing time; only axes of names or labels use it.
    margin: { l: 62, r: 16, t: 10, b: 50, pad: 2 },
    paper_bgcolor: "rgba(0,0,0,0)",
    plot_bgcolor: "rgba(0,0,0,0)",
    font: { family: font, size: 12, color: colors.ink },
    hoverlabel: { font: { family: font } },
    showlegend: false,
    dragmode: false,
    bargap: 0.25,
    ...extra,
    xaxis: { ...axis, ...(extra.xaxis ?? {}) },
    yaxis: { ...axis, ...(extra.yaxis ?? {}) },
  };
}

const CONFIG = { displayModeBar: false, responsive: true, scrollZoom: false };

// Draw (or redraw in place) one chart of a <figure class="chart">; an empty series shows
// the figure's own empty message instead of an empty frame.
export function drawChart(figureId, traces, layout = {}, { empty = null, onClick = null } = {}) {
  const figure = document.getElementById(figureId);
  const plot = figure.querySelector(".plot");
  const emptyNote = figure.querySelector(".chart-empty");
  if (empty) {
    window.Plotly.purge(plot);
    plot.hidden = true;
    emptyNote.textContent = empty;
    emptyNote.hidden = false;
    figure.dataset.state = "empty";
    return;
  }
  plot.hidden = false;
  emptyNote.hidden = true;
  // A screen reader hears the chart's title; its numbers are behind the JSON link.
  const title = figure.querySelector(".chart-title")?.textContent ?? "";
  plot.setAttribute("role", "img");
  plot.setAttribute("aria-label", `Chart: ${title}. Its numbers are at the JSON link.`);
  window.Plotly.react(plot, traces, baseLayout(layout), CONFIG);
  if (onClick && !plot.dataset.clickBound) {
    plot.on("plotly_click", (event) => onClick(event.points[0]));
    plot.dataset.clickBound = "true";
  }
  figure.dataset.state = "drawn";
}

export function barTrace(x, y, {
  horizontal = false, hover, text, color, customdata, outside = false,
} = {}) {
  return {
    type: "bar",
    x: horizontal ? y : x,
    y: horizontal ? x : y,
    orientation: horizontal ? "h" : "v",
    marker: { color: color ?? palette().accent },
    text,
    textposition: text ? (outside ? "outside" : "auto") : "none",
    cliponaxis: false,
    customdata,
    hovertemplate: hover ? `${hover}<extra></extra>` : undefined,
  };
}

// One tick a move on a laptop, fewer on a phone or a long axis.
export function tickStep(count) {
  const room = narrow() ? 12 : 30;
  return count <= room ? 1 : Math.ceil(count / room / 5) * 5;
}

// Percent axes: shares arrive as fractions of one.
export const shareAxis = { tickformat: ".1~%", rangemode: "tozero" };

// Room past the longest bar for a label written outside it.
export function paddedRange(values) {
  const top = Math.max(0, ...values.filter((v) => Number.isFinite(v)));
  return [0, (top || 1) * (narrow() ? 1.3 : 1.15)];
}

// ---------------------------------------------------------------------------------------
// The page: filters <-> address <-> fetch <-> draw.

function setState(state, message = "") {
  const status = document.getElementById("status");
  const problem = document.getElementById("problem");
  const empty = document.getElementById("empty");
  const dashboard = document.getElementById("dashboard");
  document.body.dataset.state = state;
  if (state === "empty") {
    // A filter that leaves no game a figure can be counted over says why, not "no games";
    // a page waiting for a choice says what to choose ({title, text}).
    const given = typeof message === "object" && message ? message
      : { text: typeof message === "string" ? message : "" };
    document.getElementById("empty-title").textContent = given.title ??
      (given.text ? "Nothing to count under these filters." : "No games match these filters.");
    const why = document.getElementById("empty-reason");
    why.textContent = given.text ?? "";
    for (const [i, link] of (given.links ?? []).entries()) {
      why.append(i ? ", " : ` ${given.linksLabel ?? ""} `, el("a", { href: link.href }, link.text));
    }
    if (given.links?.length) why.append(".");
    why.hidden = !given.text;
    document.getElementById("empty-hint").hidden = Boolean(given.title);
  }
  status.textContent = state === "loading" ? "Loading…" : "";
  status.hidden = state !== "loading";
  problem.textContent = state === "error" ? message : "";
  problem.hidden = state !== "error";
  if (state === "error") document.getElementById("filter-box").open = true;
  empty.hidden = state !== "empty";
  dashboard.hidden = !(state === "ready" || (state === "loading" && dashboard.dataset.drawn));
  dashboard.setAttribute("aria-busy", state === "loading" ? "true" : "false");
}

// The filters in force, on the line that opens and closes the form (closed on a phone).
function summarize(params) {
  const parts = [...params.entries()].map(([key, value]) => `${key} ${value}`);
  document.getElementById("filter-summary").textContent =
    parts.length ? `: ${parts.join(" · ")}` : ": none";
}

let indexPromise = null;

// Counters made by an older version (or being made again) are partial: say so on every page.
async function countersNotice() {
  const index = await statsIndex();
  const counters = index?.counters;
  const note = document.getElementById("counters-notice");
  if (!note || !counters?.rebuild_needed) return;
  note.textContent = counters.version === "rebuilding"
    ? "The figures are being counted again (recorder stats rebuild): until it ends they " +
      "cover only part of the games."
    : "Some figures of this store were counted by an older version of the recorder and " +
      "are missing or zero: run recorder stats rebuild to count them again.";
  note.hidden = false;
}

// The player filter takes an id; typing part of a name offers the matching players, and a
// name typed in full is taken as that player's id when exactly one player has it.
const people = new Map();

async function searchPeople(text) {
  const data = await getJSON(`${API}/people?q=${encodeURIComponent(text)}`).catch(() => null);
  for (const p of data?.players ?? []) people.set(p.id, p);
  return data?.players ?? [];
}

function playerSearch(form) {
  const input = form.querySelector("input[name=player]");
  const list = document.getElementById("player-choices");
  if (!input || !list) return;
  let timer = null;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    const text = input.value.trim();
    if (!text) return;
    timer = setTimeout(async () => {
      const found = await searchPeople(text);
      if (input.value.trim() !== text) return;
      list.replaceChildren(...found.map((p) => el("option", {
        value: p.id, label: `${p.name ?? p.id} · ${fmtInt(p.games)} game${p.games === 1 ? "" : "s"}`,
      })));
    }, 150);
  });
}

async function resolvePlayer(value) {
  if (!value || people.has(value)) return value;
  const found = await searchPeople(value);
  if (found.some((p) => p.id === value)) return value;
  const named = found.filter((p) => String(p.name ?? "").toLowerCase() === value.toLowerCase());
  return named.length === 1 ? named[0].id : value;
}

// GET /api/stats once per page: the choices for the filter selects and the endpoints.
export function statsIndex() {
  indexPromise ??= getJSON(API).catch(() => null);
  return indexPromise;
}

async function fillFilterChoices(form, params) {
  const index = await statsIndex();
  const choices = index?.filters ?? {};
  for (const select of form.querySelectorAll("select[data-options]")) {
    const key = select.dataset.options;
    if (Array.isArray(choices[key])) fillSelect(select, choices[key], params.get(key) ?? "");
  }
  // The date pickers open on the stored games' first and last days.
  for (const input of form.querySelectorAll("input[type=date]")) {
    if (choices.since) input.min = choices.since;
    if (choices.until) input.max = choices.until;
  }
  form.dataset.ready = "true";
}

// Start a dashboard. `api(params)` gives the JSON URL for the filters, `isEmpty(data)` says
// when nothing matched (true, or a sentence that says why), `render(data, context)` draws.
// `extraKeys` are address parameters that belong to the page (a table's sort order, the
// two variants compared): kept when the filters change, and not sent as filters. `api` may
// answer null until the page has what it needs; `idle` then says what to choose.
export function startPage({ api, isEmpty, render, extraKeys = [], idle = null }) {
  const form = document.getElementById("filters");
  if (narrow()) document.getElementById("filter-box").open = false;
  let controller = null;

  async function load() {
    const params = currentFilters();
    const url = api(params);
    updateKeptLinks(params);
    summarize(params);
    if (!url) {  // the page needs a choice first (the two variants to compare)
      controller?.abort();
      setState("empty", idle);
      return;
    }
    for (const link of document.querySelectorAll("a.json")) link.setAttribute("href", url);
    controller?.abort();
    controller = new AbortController();
    const mine = controller;
    setState("loading");
    delete document.body.dataset.rendered;
    let data;
    try {
      data = await getJSON(url, { signal: mine.signal });
    } catch (error) {
      if (error.name === "AbortError") return;
      setState("error", error instanceof ApiProblem ? error.message : String(error));
      return;
    }
    if (mine !== controller) return;
    const empty = isEmpty(data);
    if (empty) {
      setState("empty", empty);
      return;
    }
    // Shown before drawing: plotly measures the container it draws into.
    setState("ready");
    await render(data, { params, url });
    if (mine !== controller) return;
    document.getElementById("dashboard").dataset.drawn = "true";
    // Tests and scripts wait for this: the figures on the page are those of `url`.
    document.body.dataset.rendered = url;
  }

  async function navigate(params) {
    const extras = new URLSearchParams(window.location.search);
    for (const key of extraKeys) {
      if (extras.get(key)) params.set(key, extras.get(key));
    }
    if (params.get("player")) {
      const id = await resolvePlayer(params.get("player"));
      params.set("player", id);
      const input = form.querySelector("input[name=player]");
      if (input) input.value = id;
    }
    const target = withQuery(window.location.pathname, params);
    if (target !== window.location.pathname + window.location.search) {
      history.pushState(null, "", target);
    }
    load();
  }

  form.addEventListener("change", () => navigate(formFilters(form)));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    navigate(formFilters(form));
  });
  document.getElementById("clear-filters").addEventListener("click", (event) => {
    event.preventDefault();
    form.reset();
    setFormValues(form, new URLSearchParams());
    navigate(new URLSearchParams());
  });
  window.addEventListener("popstate", () => {
    setFormValues(form, currentFilters());
    load();
  });

  fillFilterChoices(form, currentFilters());
  playerSearch(form);
  countersNotice();
  load();
  return { reload: load, navigate };
}

// ---------------------------------------------------------------------------------------
// The two-variant picker of the variants and compare pages.

// Fill the picker's selects with the stored variants, chosen as the address says (or as
// `defaults` suggest); submitting opens the comparison with the page's filters.
export async function compareForm({ defaults = [], onChoose = null } = {}) {
  const form = document.getElementById("compare-form");
  if (!form) return null;
  const index = await statsIndex();
  const choices = index?.filters?.variant ?? [];
  const here = new URLSearchParams(window.location.search);
  ["a", "b"].forEach((name, i) => {
    const select = form.elements[name];
    const current = here.get(name) ?? select.value ?? defaults[i] ?? "";
    fillSelect(select, choices, current || defaults[i] || "");
  });
  form.dataset.ready = "true";
  if (!form.dataset.bound) {
    form.dataset.bound = "true";
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const params = currentFilters();
      params.delete("variant");
      params.set("a", form.elements.a.value);
      params.set("b", form.elements.b.value);
      const target = withQuery("/stats/compare", params);
      if (onChoose) onChoose(target);
      else window.location.href = target;
    });
  }
  return form;
}
