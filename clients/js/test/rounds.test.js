// The library's round and match against the recorder's engine, on the round vectors of
// schemas/vectors: before every move the legal moves and what each play would score,
// the engine's reason for refused moves, each round's result and the running scores.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Board, IllegalMove, Match, Round, deal, handPips, isDouble, resolveRules, roundSeed, scoreRound } from "../index.js";

const dir = new URL("../../../schemas/vectors/", import.meta.url);
const { games } = JSON.parse(readFileSync(fileURLToPath(new URL("rounds-sha256-fy-1.json", dir)), "utf8"));

const text = (m) => `${m.player} ${m.action === "play" ? m.tile : m.action}${m.end ? ` ${m.end}` : ""}${m.closed ? " closed" : ""}`;

/** What the engine's reason says once replay has named the players: seats stay seats here. */
async function play(game, each) {
  const doc = game.log;
  const match = new Match(doc.ruleset, doc.players.length);
  for (const [r, rdoc] of doc.rounds.entries()) {
    const dealt = await deal(roundSeed(doc.seed, r + 1), { ruleset: doc.ruleset, players: doc.players.length });
    const round = match.startRound(dealt, { opener: rdoc.opener ?? null });
    await each(round, rdoc, game.rounds[r], r + 1, match);
    match.finishRound(round);
  }
  return match;
}

test("the round vectors cover every preset", () => {
  const presets = new Set(games.map((g) => resolveRules(g.log.ruleset).preset));
  assert.equal(presets.size, 9);
  assert.ok(games.length >= 20);
});

test("legal moves, scores, refusals, results and scores are the engine's", async () => {
  let steps = 0;
  let refusals = 0;
  for (const game of games) {
    const where = game.log.game_id;
    const match = await play(game, (round, rdoc, want, r) => {
      const tries = new Map(want.refusals.map((x) => [x.move, x]));
      rdoc.moves.forEach((m, i) => {
        const step = want.steps[i];
        const at = `${where} round ${r} move ${i + 1}`;
        assert.equal(step.move, i + 1, at);
        const legal = round.legalMoves();
        assert.deepEqual(legal.map(text), step.legal, at);
        if (step.bonus) assert.deepEqual(legal.map((x) => round.scoreOf(x)), step.bonus, at);
        const refused = tries.get(i + 1);
        if (refused) {
          assert.throws(() => round.check(refused.try), (err) => err instanceof IllegalMove && err.message === refused.reason, `${at}: ${refused.reason}`);
          assert.equal(round.isLegal(refused.try), false);
          refusals += 1;
        }
        const copy = round.clone();
        round.apply(m);
        assert.equal(copy.moves, round.moves - 1, `${at}: a clone is not touched`);
        steps += 1;
      });
      assert.ok(round.over, `${where} round ${r} is over`);
      assert.deepEqual({ ...round.result }, want.result, `${where} round ${r}`);
      assert.deepEqual(round.pipsLeft(), round.result.pips_left);
      round.counts.forEach((_, s) => assert.equal(handPips(round.hand(s)), want.result.pips_left[s]));
    });
    assert.deepEqual(match.scores, game.scores, where);
    assert.deepEqual(match.winners, game.winners, where);
    assert.ok(match.over, where);
  }
  assert.ok(steps > 1500, `${steps} steps`);
  assert.ok(refusals > 100, `${refusals} refusals`);
});

test("each round's result from its pips alone (scoreRound) is the engine's", async () => {
  for (const game of games) {
    await play(game, (round, rdoc) => {
      for (const m of rdoc.moves) round.apply(m);
      const { result } = round;
      const rules = resolveRules(game.log.ruleset);
      const again = scoreRound(rules, {
        pipsLeft: result.pips_left, endedBy: result.ended_by, blocked: result.blocked,
        lastPlay: round.lastPlay, bonus: result.bonus, pot: round.pot,
      });
      if (!(rules.targetCheck === "play" && !result.blocked && result.pips_left[result.ended_by])) {
        assert.deepEqual({ ...again }, { ...result }, game.log.game_id);
      }
    });
  }
});

test("a board's legal moves for a hand are the round's", async () => {
  for (const game of games) {
    await play(game, (round, rdoc) => {
      for (const m of rdoc.moves) {
        if (round.phase === "play") {
          const seat = round.turn;
          const mine = round.legalMoves(seat).map(({ player, ...rest }) => rest);
          const rules = round.rules;
          const hand = round.hand(seat);
          const got = round.board.legalMoves(hand, {
            boneyard: round.boneyardLeft(), drew: round.drew, draw: rules.draw, stockFloor: rules.stockFloor,
          });
          assert.deepEqual(got, mine);
          for (const x of got) if (x.action === "play") assert.equal(round.board.scoreOf(x.tile, x.end, { closed: x.closed }), round.scoreOf({ player: seat, ...x }));
        }
        round.apply(m);
      }
    });
  }
});

test("isDouble and handPips", () => {
  assert.equal(isDouble("4-4"), true);
  assert.equal(isDouble("4-5"), false);
  assert.equal(handPips(["6-6", "0-1", "3-5"]), 21);
  assert.equal(handPips([]), 0);
});

test("a round refuses what the recorder refuses, with its words", async () => {
  const dealt = await deal("words/1", { ruleset: "spilop", players: 2 });
  const round = Round.start("spilop", 2, dealt);
  const seat = round.turn;
  assert.throws(() => round.check({ player: 1 - seat, action: "play", tile: dealt.opens.tile }), /^Error|not this player's turn: seat \d opens with \d-\d$/);
  assert.throws(() => round.check({ player: 5, action: "pass" }), { message: "there is no seat 5; seats go from 0 to 1" });
  assert.throws(() => round.check({ player: "0", action: "pass" }), { message: "there is no seat '0'; seats go from 0 to 1" });
  assert.throws(() => round.check({ player: seat, action: "play", tile: dealt.opens.tile, end: "left" }), { message: "the first tile of a round takes no end" });
  assert.throws(() => round.check({ player: seat, action: "play", tile: "7-7" }), { message: '"7-7" is not a tile of double-six (pips go from 0 to 6)' });
  const board = new Board({ spinner: true });
  board.place("6-6");
  assert.equal(board.clone().place("6-4", "right").sum, 16);
  assert.equal(board.tiles, 1, "the clone was played on, not the board");
});
