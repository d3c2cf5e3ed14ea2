#!/usr/bin/env node
// Bot games logged through the library, as JSON Lines: what a frontend does, end to end.
//
//   node tools/bot-games.js COUNT [PREFIX] > games.jsonl
//
// A small legal-move bot plays spilop and classic games (bonus on and off, one or two
// sets, 2-4 players) to the target: the library deals each round from its seed, the
// Board places tiles and scores the bonus, GameLog writes the log, and the bot keeps
// the hands, the boneyard, the turn and the scores. Every game claims its round and
// game results, so `recorder validate` checks the bot's scores too
// (tests/test_js_client.py replays them all).

import { Board, GameLog, deal, pips, roundSeed } from "../index.js";

const SETUPS = [
  [{ preset: "spilop", options: { bonus: true } }, [2, 3, 4]],
  [{ preset: "spilop", options: { bonus: true, sets: 2 } }, [2, 3, 4]],
  [{ preset: "spilop", options: { bonus: true, spinner_arms: "after-sides" } }, [2, 3]],
  [{ preset: "spilop", options: {} }, [2, 4]],
  [{ preset: "classic", options: {} }, [2, 3, 4]],
  [{ preset: "classic", options: { bonus: true, target: 60 } }, [2, 3]],
];

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const isDouble = (t) => t.split("-")[0] === t.split("-")[1];
const handPips = (hand) => hand.reduce((s, t) => s + pips(t), 0);

function removeTile(hand, tile) {
  const [a, b] = tile.split("-");
  const i = hand.findIndex((t) => t === tile || t === `${b}-${a}`);
  hand.splice(i, 1);
}

/** Points of a finished round, in twelfths (splits among 2, 3 or 4 stay whole). */
function roundPoints(hands, winner, blocked) {
  const left = hands.map(handPips);
  const points = left.map(() => 0);
  if (!blocked) {
    points[winner] = 12 * left.reduce((s, p, i) => (i === winner ? s : s + p), 0);
    return { points, winners: [winner], left };
  }
  const low = Math.min(...left);
  const winners = left.flatMap((p, i) => (p === low ? [i] : []));
  const pot = left.reduce((s, p, i) => (winners.includes(i) ? s : s + p), 0);
  for (const w of winners) points[w] = (12 * pot) / winners.length;
  return { points, winners, left };
}

export async function botGame(ruleset, players, seed, rng) {
  const target = ruleset.options.target ?? 100;
  const ids = Array.from({ length: players }, (_, i) => `bot${i}`);
  const log = new GameLog({ ruleset, players: ids, seed, gameId: seed, frontend: { name: "js-bots", version: "1" } });
  const scores = ids.map(() => 0); // twelfths
  for (let r = 1; r <= 200; r += 1) {
    const dealt = await deal(roundSeed(seed, r), { ruleset, players });
    log.startRound();
    const hands = dealt.hands.map((h) => [...h]);
    const boneyard = dealt.boneyard;
    let drawn = 0;
    const board = Board.forRuleset(ruleset);
    const bonus = ids.map(() => 0);
    const canPlay = (seat) => hands[seat].some((t) => board.fits(t).length > 0);
    const stuck = () => drawn >= boneyard.length && !hands.some((_, s) => canPlay(s));
    let seat;
    let tile;
    if (dealt.opens.drawForDouble) {
      seat = 0;
      for (;;) {
        const t = boneyard[drawn];
        drawn += 1;
        hands[seat].push(t);
        log.draw(seat, t);
        if (isDouble(t)) break;
        seat = (seat + 1) % players;
      }
      tile = hands[seat][hands[seat].length - 1];
    } else {
      seat = dealt.opens.seats[Math.floor(rng() * dealt.opens.seats.length)];
      tile = dealt.opens.tile;
    }
    removeTile(hands[seat], tile);
    bonus[seat] += board.place(tile).bonus;
    log.play(seat, tile, null, { ms: Math.floor(rng() * 3000) });
    let ended = null;
    let blocked = false;
    if (stuck()) {
      ended = seat;
      blocked = true;
    }
    seat = (seat + 1) % players;
    while (ended === null) {
      const options = [];
      for (const t of new Set(hands[seat])) {
        const ends = board.fits(t);
        for (const e of ends) options.push([t, e, ends.length > 1]);
      }
      if (options.length) {
        const [t, e, must] = options[Math.floor(rng() * options.length)];
        removeTile(hands[seat], t);
        bonus[seat] += board.place(t, e).bonus;
        log.play(seat, t, must || rng() < 0.5 ? e : null);
        if (hands[seat].length === 0) {
          ended = seat;
          break;
        }
        if (stuck()) {
          ended = seat;
          blocked = true;
          break;
        }
        seat = (seat + 1) % players;
      } else if (drawn < boneyard.length) {
        const t = boneyard[drawn];
        drawn += 1;
        hands[seat].push(t);
        log.draw(seat, rng() < 0.5 ? t : null);
        if (stuck()) {
          ended = seat;
          blocked = true;
        }
      } else {
        log.pass(seat);
        seat = (seat + 1) % players;
      }
    }
    const { points, winners, left } = roundPoints(hands, ended, blocked);
    ids.forEach((_, p) => { scores[p] += points[p] + 12 * bonus[p]; });
    log.endRound({ winners, points: points.map((x) => x / 12), bonus, blocked, pips_left: left, ended_by: ended });
    if (scores.some((s) => s >= 12 * target)) {
      const best = Math.max(...scores);
      log.finish({ scores: scores.map((s) => s / 12), winners: scores.flatMap((s, i) => (s === best ? [i] : [])) });
      return log;
    }
  }
  log.finish();
  return log;
}

async function main() {
  const count = Number(process.argv[2] || 10);
  const prefix = process.argv[3] || "js-bot";
  const rng = mulberry32(20261130);
  const lines = [];
  for (let i = 0; i < count; i += 1) {
    const [ruleset, counts] = SETUPS[i % SETUPS.length];
    const players = counts[Math.floor(i / SETUPS.length) % counts.length];
    const log = await botGame(ruleset, players, `${prefix}-${i + 1}`, rng);
    lines.push(log.serialize());
  }
  process.stdout.write(lines.join("\n") + "\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
