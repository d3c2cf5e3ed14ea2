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

/**
 * The player's statistics page, when the page links players (a stored game: the
 * template gives `data-player-url` with PLAYER where the id goes), else null.
 */
export function playerHref(p) {
  const root = document.getElementById("replay");
  const pattern = root && root.dataset.playerUrl;
  if (!pattern || !p || typeof p.id !== "string" || !p.id) return null;
  return pattern.replace("PLAYER", encodeURIComponent(p.id));
}

/** The player's name as a link to their page where there is one, else as text. */
export function nameNode(players, seat, cls = "name") {
  const p = players[seat];
  const href = playerHref(p);
  const n = node(href ? "a" : "span", cls, playerName(p, seat));
  if (href) {
    n.href = href;
    n.classList.add("player-link");
  }
  return n;
}

/** The sides that score together (teams), or one side a seat. */
export function sidesOf(game) {
  const n = (game.players || []).length;
  const sides = game.sides && game.sides.length ? game.sides : null;
  return sides || Array.from({length: n}, (_, i) => [i]);
}

/** "Brygger & Guttorm" for a side of several seats, the name for one. */
export function sideName(game, side) {
  const players = game.players || [];
  return side.map((s) => playerName(players[s], s)).join(" & ");
}
