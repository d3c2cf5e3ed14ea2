// The score chart of the game summary: each side's running score after every round,
// drawn with plotly (served by the app, as on the statistics pages). plotly.js is large
// and only this chart needs it, so it is loaded the first time the chart is shown.

let loading = null;

/** plotly, loaded once from the app (`url` is the versioned address the page gives). */
export function loadPlotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = url;
      script.async = true;
      script.onload = () => (window.Plotly ? resolve(window.Plotly)
        : reject(new Error("plotly did not load")));
      script.onerror = () => { loading = null; reject(new Error("plotly could not be loaded")); };
      document.head.append(script);
    });
  }
  return loading;
}

// plotly reads a small HTML subset in labels: a name is entity-escaped so that a player
// called "<b>x</b>" shows those characters (plotly turns the entities back when it draws)
const plotText = (value) => String(value ?? "").replaceAll("&", "&amp;")
  .replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** The colour of series `i`: the page's `--series-N` (the table's swatches use the same). */
export function seriesColor(i) {
  const root = document.getElementById("replay") || document.documentElement;
  return getComputedStyle(root).getPropertyValue(`--series-${i % SERIES}`).trim() || "#1f6f5c";
}
export const SERIES = 8;

/**
 * Draw `series` ([{name, x: rounds, y: scores}]) into `el`, with the target as a dashed
 * line; `onRound(round)` is called when a point is clicked.
 */
export async function drawScoreChart(el, series, {target = null, url, reachLoses = false,
  onRound = null} = {}) {
  el.dataset.state = "loading";
  let Plotly;
  try {
    Plotly = await loadPlotly(url);
  } catch (exc) {
    el.dataset.state = "error";
    el.textContent = `The chart could not be drawn: ${exc.message}. The table below has the same numbers.`;
    return;
  }
  const style = getComputedStyle(document.body);
  const font = style.fontFamily;
  const last = Math.max(...series.map((s) => s.x[s.x.length - 1]));
  const traces = series.map((s, i) => ({
    type: "scatter", mode: s.x.length > 40 ? "lines" : "lines+markers", name: plotText(s.name),
    x: s.x, y: s.y, line: {color: seriesColor(i), width: 2.5},
    marker: {size: 6},
    hovertemplate: `${plotText(s.name)}<br>after round %{x}: %{y}<extra></extra>`,
  }));
  const shapes = [];
  const annotations = [];
  if (target) {
    shapes.push({type: "line", xref: "x", yref: "y", x0: 0, x1: last, y0: target, y1: target,
      line: {color: "#5b6670", width: 1.5, dash: "dash"}});
    annotations.push({x: last, y: target, xref: "x", yref: "y", xanchor: "right", yanchor: "bottom",
      showarrow: false, font: {size: 11, color: "#5b6670"},
      text: reachLoses ? `target ${target}: reaching it loses` : `target ${target}`});
  }
  // on a phone the table's headers, with the same colours, are the legend
  const narrow = window.matchMedia("(max-width: 40rem)").matches;
  const layout = {
    autosize: true, height: narrow ? 220 : 300,
    margin: {l: 48, r: 12, t: 8, b: 44},
    paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
    font: {family: font, size: 12, color: "#1d232a"},
    hoverlabel: {font: {family: font}}, dragmode: false, shapes, annotations,
    showlegend: !narrow,
    legend: {x: 0.01, y: 0.99, bgcolor: "rgba(255,255,255,0.7)"},
    xaxis: {title: {text: "round"}, fixedrange: true, gridcolor: "#d7dde2", zeroline: false,
      rangemode: "tozero", dtick: last > 30 ? undefined : 1},
    yaxis: {title: {text: narrow ? "" : "score"}, fixedrange: true, gridcolor: "#d7dde2",
      zeroline: false},
  };
  el.textContent = "";
  await Plotly.react(el, traces, layout, {displayModeBar: false, responsive: true});
  if (onRound && !el.dataset.clickBound) {
    el.on("plotly_click", (event) => { if (event.points[0]) onRound(event.points[0].x); });
    el.dataset.clickBound = "true";
  }
  el.dataset.state = "drawn";
}
