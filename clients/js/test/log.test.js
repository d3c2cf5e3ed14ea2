// The log builder: the document's shape, and refusals where the mistake is made.
import { test } from "node:test";
import assert from "node:assert/strict";
import { GameLog, LogError } from "../index.js";

test("a game serializes with the recorder's key order", () => {
  const log = new GameLog({
    ruleset: { preset: "spilop", options: { bonus: true } },
    players: ["ingaan", { id: "kfnielsen", name: "Kristian" }],
    seed: "g-1", gameId: "g-1", frontend: { name: "my-app", version: "1.0" },
  });
  assert.equal(log.startRound(), 1);
  log.play(0, "6-6");
  log.play(1, "6-3", "right", { ms: 5400 });
  log.draw(0, "2-5");
  log.pass(0);
  log.endRound({ winners: [1] });
  log.finish({ scores: [0, 12], winners: [] });
  const doc = JSON.parse(log.serialize());
  assert.deepEqual(Object.keys(doc), ["format", "game_id", "frontend", "ruleset", "players", "seed", "rounds", "result"]);
  assert.deepEqual(doc.rounds[0].moves, [
    { player: 0, action: "play", tile: "6-6" },
    { player: 1, action: "play", tile: "6-3", end: "right", ms: 5400 },
    { player: 0, action: "draw", tile: "2-5" },
    { player: 0, action: "pass" },
  ]);
  assert.deepEqual(doc.rounds[0].result, { winners: [1] });
  assert.deepEqual(doc.players, [{ id: "ingaan" }, { id: "kfnielsen", name: "Kristian" }]);
});

test("rounds with their own seed or deal", () => {
  const log = new GameLog({ ruleset: "italian", players: ["a", "b"] });
  log.startRound({ seed: "own" });
  log.endRound();
  log.startRound({ deal: { hands: [["0-0"], ["0-1"]], boneyard: [] } });
  assert.deepEqual(log.toJSON().rounds, [
    { seed: "own", moves: [] },
    { deal: { hands: [["0-0"], ["0-1"]], boneyard: [] }, moves: [] },
  ]);
});

test("mistakes are refused where they are made", () => {
  const fresh = () => new GameLog({ ruleset: "spilop", players: ["a", "b"], seed: "s" });
  const cases = [
    [(g) => g.play(0, "6-6"), /no round is open to record a move in; call startRound first/],
    [(g) => { g.startRound(); g.play(2, "6-6"); }, /player is a seat from 0 to 1, not 2/],
    [(g) => { g.startRound(); g.play("0", "6-6"); }, /player is a seat from 0 to 1, not "0"/],
    [(g) => { g.startRound(); g.play(0, "6:6"); }, /"6:6" is not a tile/],
    [(g) => { g.startRound(); g.play(0, "6-6", "top"); }, /"top" is not an end/],
    [(g) => { g.startRound(); g.draw(0, null, { ms: 1.5 }); }, /ms is a whole number/],
    [(g) => { g.startRound(); g.startRound(); }, /round 1 is still open/],
    [(g) => { g.finish(); g.startRound(); }, /the game is finished/],
  ];
  for (const [call, message] of cases) {
    assert.throws(() => call(fresh()), (err) => err instanceof LogError && message.test(err.message));
  }
  assert.throws(() => new GameLog({ ruleset: "spilop", players: ["a", "b"] }).startRound(), /the game has no seed/);
  assert.throws(() => new GameLog({ ruleset: "spilop", players: ["a", "a"] }), /unique/);
});

test("a claim under a name the format does not know is refused where it is made", () => {
  const log = new GameLog({ ruleset: "spilop", players: ["a", "b"], seed: "s" });
  log.startRound();
  assert.throws(() => log.endRound({ points: [0, 12], pipsLeft: [0, 12] }),
    (err) => err instanceof LogError && err.message === 'a round result has no field "pipsLeft" (did you mean "pips_left"?); a round result has winners, points, bonus, blocked, pips_left and ended_by');
  assert.throws(() => log.endRound({ endedBy: 1 }), /did you mean "ended_by"/);
  log.endRound({ points: [0, 12], pips_left: [0, 12], ended_by: undefined });
  assert.deepEqual(log.toJSON().rounds[0].result, { points: [0, 12], pips_left: [0, 12] });
  assert.throws(() => log.finish({ Scores: [0, 12] }), /a game result has no field "Scores" \(did you mean "scores"\?\)/);
  log.finish({ scores: [0, 12], winners: [1] });
});
