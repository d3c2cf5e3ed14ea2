// The recorder's deal of a round seed: hands, boneyard, redeals, lot and who opens,
// exactly as `recorder deal` shows it.

import { canonical, shuffle, Stream } from "./shuffle.js";
import { resolveRules } from "./rules.js";
import { parseTile, sortTiles } from "./tiles.js";

const MAX_REDEALS = 1000;

function isDouble(t) {
  const [a, b] = parseTile(t);
  return a === b;
}

function heldBy(hands, tile) {
  const out = [];
  hands.forEach((hand, seat) => {
    if (hand.includes(tile)) out.push(seat);
  });
  return out;
}

function firstHeld(hands, candidates) {
  const held = new Set(hands.flat());
  return candidates.find((t) => held.has(t)) ?? null;
}

/** Tiles from the highest "rank" down: pip sum, then the higher half (3-6 beats 4-5). */
function rankOrder(maxPip) {
  return canonical(maxPip, 1).sort((x, y) => {
    const [a, b] = parseTile(x);
    const [c, d] = parseTile(y);
    return (c + d) - (a + b) || Math.max(c, d) - Math.max(a, b);
  });
}

/**
 * Deal a round from its seed (the round seed, like "abc/1": see roundSeed).
 * `ruleset` is the log's ruleset field. Resolves to
 * {seed, tilesEach, hands, boneyard, redeals, lot, opens: {seats, tile, drawForDouble}}:
 * hands in canonical order, the boneyard in draw order. A player count the rules do
 * not allow throws RulesetError, as the recorder refuses it.
 */
export async function deal(seed, { ruleset, players }) {
  const rules = resolveRules(ruleset);
  rules.checkPlayers(players);
  const each = rules.tilesEach(players);
  const tiles = canonical(rules.maxPip, rules.sets);
  const stream = new Stream(seed);
  const opening = rules.openingFor(players);
  const needsDouble = opening === "highest-double" || opening === "double-zero-first";
  let redeals = 0;
  let order;
  let hands;
  for (;;) {
    order = await shuffle(tiles, stream);
    hands = [];
    for (let s = 0; s < players; s += 1) hands.push(order.slice(s * each, (s + 1) * each));
    if (needsDouble && rules.noDouble === "redeal" && !hands.flat().some(isDouble)) {
      redeals += 1;
      if (redeals > MAX_REDEALS) throw new Error("no double after 1000 redeals");
      continue;
    }
    break;
  }
  const boneyard = order.slice(players * each);
  const opens = { seats: [], tile: null, drawForDouble: false };
  let lot = null;
  if (opening === "free") {
    opens.seats = hands.map((_, s) => s);
  } else if (opening === "seat") {
    opens.seats = [0]; // or the seat the round names as its opener
  } else {
    let tile = null;
    if (opening === "double-zero-first") tile = firstHeld(hands, ["0-0"]);
    if (tile === null && needsDouble) {
      const order = rules.doubleOrder.length ? rules.doubleOrder : Array.from({ length: rules.maxPip + 1 }, (_, i) => rules.maxPip - i);
      tile = firstHeld(hands, order.map((v) => `${v}-${v}`));
      if (tile === null && (rules.noDouble === "draw-for-double" || rules.noDouble === "everyone-draws-for-double")) {
        opens.drawForDouble = true;
      }
    }
    if (!opens.drawForDouble) {
      if (tile === null) tile = firstHeld(hands, rankOrder(rules.maxPip));
      let holders = heldBy(hands, tile);
      if (holders.length > 1 && rules.tieBreak === "lot") {
        lot = holders[await stream.below(holders.length)];
        holders = [lot];
      }
      opens.seats = holders;
      opens.tile = tile;
    }
  }
  return {
    seed,
    tilesEach: each,
    hands: hands.map((h) => sortTiles(h, rules.maxPip)),
    boneyard,
    redeals,
    lot,
    opens,
  };
}

/** The seed of round n (1-based) of a game seeded `gameSeed`: "<gameSeed>/<n>". */
export function roundSeed(gameSeed, n) {
  return `${gameSeed}/${n}`;
}
