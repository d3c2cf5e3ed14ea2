#!/usr/bin/env node
// Bot games logged through the library, as JSON Lines: what a frontend does, end to end.
//
//   node tools/bot-games.js COUNT [PREFIX] > games.jsonl
//   node tools/bot-games.js COUNT PREFIX --steps > steps.jsonl   (each game's legal moves too)
//
// A bot that picks a legal move at random plays every preset, and the options that
// change how a round goes (draw rules, stock floor, spinner arms, closed doubles,
// partnerships, the target and its mode, each blocked scoring, a fixed number of
// hands, two sets, another tile set), to the end of the game. The library does all the
// rules: deal() deals each round from its seed (or the bot writes the deal), Match and
// Round give the legal moves, what a play scores and each round's result, and GameLog
// writes the log, claiming every round's result and the game's. `recorder validate`
// checks all of it (tests/test_js_client.py replays them all, and with --steps compares
// the legal moves before every move with the engine's).

import { GameLog, Match, deal, roundSeed } from "../index.js";

export const SETUPS = [
  [{ preset: "spilop", options: { bonus: true } }, [2, 3, 4]],
  [{ preset: "spilop", options: { bonus: true, sets: 2 } }, [2, 3, 4]],
  [{ preset: "spilop", options: { bonus: true, spinner_arms: "after-sides" } }, [2, 3]],
  [{ preset: "spilop", options: {} }, [2, 4]],
  [{ preset: "classic", options: {} }, [2, 3, 4]],
  [{ preset: "classic", options: { bonus: true, target: 60 } }, [2, 3]],
  [{ preset: "classic", options: { partnerships: true, draw: "none", target: 60 } }, [4]],
  [{ preset: "classic", options: { draw: "one", target: 60 } }, [2, 3]],
  [{ preset: "kozel", options: {} }, [2, 3, 4]],
  [{ preset: "kozel", options: { partnerships: true } }, [4]],
  [{ preset: "italian", options: { target: 60 } }, [2, 3, 4]],
  [{ preset: "norwegian", options: { target: 60 } }, [2]],
  [{ preset: "openspiel-block", options: {} }, [2]],
  [{ preset: "openspiel-team", options: {} }, [4]],
  [{ preset: "dominoes-partners", options: { target: 60 } }, [4]],
  [{ preset: "all-fives", options: { target: 61 } }, [2]],
  [{ preset: "all-fives", options: { target: 61, spinner_max_arms: 4 } }, [2]],
  [{ preset: "classic", options: { blocked_scoring: "lowest-takes-all", draw: "none", target: 60 } }, [3]],
  [{ preset: "spilop", options: { bonus: true, hands: 3 } }, [3]],
  [{ preset: "classic", options: { max_pip: 9, hand_size: 9, opening: "highest-tile", target: 80 } }, [3]],
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

const pick = (rng, items) => items[Math.floor(rng() * items.length)];
const text = (m) => `${m.player} ${m.action === "play" ? m.tile : m.action}${m.end ? ` ${m.end}` : ""}${m.closed ? " closed" : ""}`;

/**
 * One whole game played by the bot and logged. `steps`, when given, collects the legal
 * moves before every move (as "seat tile end" texts), per round.
 */
export async function botGame(ruleset, players, seed, rng, steps = null) {
  const ids = Array.from({ length: players }, (_, i) => `bot${i}`);
  const log = new GameLog({ ruleset, players: ids, seed, gameId: seed, frontend: { name: "js-bots", version: "2" } });
  const match = new Match(ruleset, players);
  for (let r = 1; r <= 100 && !match.over; r += 1) {
    const dealt = await deal(roundSeed(seed, r), { ruleset: match.rules, players });
    const seatOpening = match.rules.openingFor(players) === "seat";
    const opener = seatOpening && rng() < 0.5 ? Math.floor(rng() * players) : null;
    const explicit = rng() < 0.2;
    log.startRound({ deal: explicit ? { hands: dealt.hands, boneyard: dealt.boneyard } : null, opener });
    const round = match.startRound(explicit ? { hands: dealt.hands, boneyard: dealt.boneyard } : dealt, { opener });
    const seen = [];
    while (!round.over) {
      const legal = round.legalMoves();
      seen.push(legal.map(text));
      const move = pick(rng, legal);
      const ms = Math.floor(rng() * 3000);
      if (move.action === "play") {
        // the end may be left out when it is the only one that takes the tile
        const ends = new Set(legal.filter((m) => m.player === move.player && m.tile === move.tile).map((m) => m.end));
        const end = ends.size > 1 || rng() < 0.5 ? move.end ?? null : null;
        round.apply({ ...move, end });
        log.play(move.player, move.tile, end, { ms, closed: move.closed === true });
      } else if (move.action === "draw") {
        const { tile } = round.apply(move);
        log.draw(move.player, rng() < 0.5 ? tile : null, { ms });
      } else {
        round.apply(move);
        log.pass(move.player, { ms });
      }
    }
    if (steps) steps.push(seen);
    match.finishRound(round);
    log.endRound(round.result);
  }
  log.finish(match.over ? { scores: match.scores, winners: match.winners } : null);
  return log;
}

async function main() {
  const count = Number(process.argv[2] || 10);
  const prefix = process.argv[3] || "js-bot";
  const withSteps = process.argv.includes("--steps");
  const rng = mulberry32(20261201);
  for (let i = 0; i < count; i += 1) {
    const [ruleset, counts] = SETUPS[i % SETUPS.length];
    const players = counts[Math.floor(i / SETUPS.length) % counts.length];
    const steps = withSteps ? [] : null;
    const log = await botGame(ruleset, players, `${prefix}-${i + 1}`, rng, steps);
    process.stdout.write(`${withSteps ? JSON.stringify({ log: log.toJSON(), steps }) : log.serialize()}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await main();
}
