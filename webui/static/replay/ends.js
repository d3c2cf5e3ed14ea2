// The open ends in the status line: the number each end shows and, where the rules
// score a bonus, exactly what the open-end sum adds up from (the frame's `sum_terms`,
// computed by the engine), with a legend for what is shown. No rule is decided here.

import {node} from "./text.js";

const END_ORDER = ["left", "right", "up", "down"];

/** "left 4 · right 6": every open end and the number a tile must match there. */
export function endsText(frame) {
  const ends = frame.ends || {};
  const parts = [];
  for (const k of [...END_ORDER, ...Object.keys(ends).filter((k) => !END_ORDER.includes(k))]) {
    if (ends[k] !== null && ends[k] !== undefined) parts.push(`${k} ${ends[k]}`);
  }
  return parts.join(" · ");
}

// what each kind of term looks like, and the legend's words for it
const LEGEND = {
  double: "5|5 a double across its end: both halves count",
  "empty-arm": "dashed: an arm open for play, no tile yet: counts nothing",
  closed: "■ a closed double (black frame on the table): takes no tile, both halves count",
  shut: "✕ a spinner side shut once three are covered: counts nothing",
};

function termText(t, frame) {
  const where = t.ends.join(" & ");
  if (t.kind === "empty-arm") return `${where} ${(frame.ends || {})[t.ends[0]] ?? ""} open`;
  if (t.kind === "shut") return `✕ ${where} shut`;
  const halves = t.halves.join("|");
  return t.kind === "closed" ? `■ ${where} ${halves}` : `${where} ${halves}`;
}

/**
 * Fill the ends line (`#ends`) and its legend for `frame`. The element keeps the number
 * of each open end in its dataset (`data-left`...), as the table's end marks show it.
 */
export function drawEnds(el, legend, frame) {
  el.replaceChildren();
  legend.replaceChildren();
  for (const k of END_ORDER) {
    const v = frame.ends ? frame.ends[k] : null;
    if (v === null || v === undefined) delete el.dataset[k]; else el.dataset[k] = String(v);
  }
  delete el.dataset.sum;
  if (!(frame.board || []).length) {
    el.textContent = "no tile on the table yet";
    return;
  }
  const terms = frame.sum_terms;
  if (!Array.isArray(terms)) { // no bonus rule: the ends are only the numbers to match
    el.append(node("span", "ends-label", "Ends: "), node("span", "ends-open", endsText(frame)));
    return;
  }
  // the bonus rule: the terms that count, added up, then what is open but counts nothing
  el.dataset.sum = String(frame.end_sum);
  el.append(node("span", "ends-label", "Open-end sum: "));
  const counted = terms.filter((t) => t.kind === "counts" || t.kind === "closed");
  const idle = terms.filter((t) => t.kind === "empty-arm" || t.kind === "shut");
  const kinds = new Set();
  counted.forEach((t, i) => {
    if (i) el.append(node("span", "op", " + "));
    const chip = node("span", `term ${t.kind}`, termText(t, frame));
    chip.dataset.points = String(t.points);
    chip.dataset.ends = t.ends.join(",");
    chip.title = `${t.ends.join(" and ")}: ${t.points}`;
    el.append(chip);
    if (t.kind === "counts" && t.halves.length === 2) kinds.add("double");
    if (t.kind === "closed") kinds.add("closed");
  });
  if (!counted.length) el.append(node("span", "term none", "nothing"));
  const sum = node("strong", "sum", ` = ${frame.end_sum}`);
  el.append(sum);
  if (idle.length) {
    el.append(node("span", "op", " · "));
    idle.forEach((t, i) => {
      if (i) el.append(" ");
      const chip = node("span", `term ${t.kind}`, termText(t, frame));
      chip.dataset.points = "0";
      chip.dataset.ends = t.ends.join(",");
      el.append(chip);
      kinds.add(t.kind);
    });
  }
  const words = ["double", "empty-arm", "closed", "shut"].filter((k) => kinds.has(k))
    .map((k) => LEGEND[k]);
  legend.textContent = words.join(" · ");
  legend.hidden = !words.length;
}
