// Small text helpers shared by the page's modules.

/** A point figure: whole numbers as they are, thirds and halves with two decimals. */
export function fmt(x) {
  if (typeof x !== "number" || !Number.isFinite(x)) return x == null ? "" : String(x);
  return Number.isInteger(x) ? String(x) : x.toFixed(2);
}

/** How a player is called on the page: the name when the log gives one, else the id. */
export function playerName(p, seat) {
  if (!p) return `seat ${seat}`;
  return p.name || p.id || `seat ${seat}`;
}

/** "a, b and c". */
export function listing(items) {
  if (items.length <= 1) return items.join("");
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}

/** A new element with a class and text (never markup). */
export function node(tag, cls = null, text = null) {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== null && text !== undefined) n.textContent = String(text);
  return n;
}
