// A whole log replayed by the library's engine: the rules' verdict the recorder will give
// (finished, unfinished or refused), each round's result, the scores and the winners,
// before the log is sent. The recorder also checks the document's shape against the
// schema, and words its refusals with the players' ids and what was legal.

import { deal } from "./deal.js";
import { IllegalMove } from "./errors.js";
import { Match } from "./round.js";

function refusal(err, round, move) {
  return { status: "invalid", error: { round, move, message: err.message, code: err.code ?? "log/invalid" } };
}

/**
 * Replay a log (a GameLog or its document) as the recorder does. Resolves to
 * {game_id, status: "finished" | "unfinished", rounds, scores, winners}, the rounds as
 * Round.result gives them; or {game_id, status: "invalid", error: {round, move,
 * message, code}} for the first move (or round, or ruleset) the rules refuse, the
 * reason worded as the engine words it (seats as "seat 1").
 */
export async function replayLog(log) {
  const doc = log && typeof log.toJSON === "function" ? log.toJSON() : log;
  const gameId = doc?.game_id ?? null;
  const out = (answer) => ({ game_id: gameId, ...answer });
  let match;
  try {
    match = new Match(doc.ruleset, Array.isArray(doc.players) ? doc.players.length : 0);
  } catch (err) {
    return out(refusal(err, 0, 0));
  }
  const rounds = [];
  let cutOff = 0;
  for (const [i, rdoc] of (doc.rounds || []).entries()) {
    const r = i + 1;
    if (match.over) {
      return out(refusal({ message: `round ${r}: the game ended after round ${r - 1}; no round may follow`, code: "round/after-end" }, r, 0));
    }
    if (cutOff) {
      return out(refusal({ message: `round ${r}: round ${cutOff} is not finished, so no round may follow it`, code: "round/after-end" }, r, 0));
    }
    let round;
    try {
      let dealt = rdoc.deal ?? null;
      if (dealt === null) {
        const seed = rdoc.seed ?? (doc.seed === null || doc.seed === undefined ? null : `${doc.seed}/${r}`);
        if (seed === null) throw Object.assign(new Error("the round has no seed or deal, and the game has no seed"), { code: "round/deal" });
        dealt = await deal(seed, { ruleset: match.rules, players: match.players });
      }
      round = match.startRound(dealt, { opener: rdoc.opener ?? null });
    } catch (err) {
      return out(refusal({ message: `round ${r}: ${err.message}`, code: err.code }, r, 0));
    }
    for (const [m, move] of (rdoc.moves || []).entries()) {
      try {
        round.apply(move);
      } catch (err) {
        if (!(err instanceof IllegalMove)) throw err;
        return out(refusal(err, r, m + 1));
      }
    }
    if (!round.over) {
      cutOff = r;
      continue;
    }
    match.finishRound(round);
    rounds.push(round.result);
  }
  return out({ status: match.over ? "finished" : "unfinished", rounds, scores: match.scores, winners: [...match.winners] });
}
