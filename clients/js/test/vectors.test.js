// The library reproduces every vector of schemas/vectors: shuffle, deal, board.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Board, canonical, deal, roundSeed, shuffle, Stream } from "../index.js";

const dir = new URL("../../../schemas/vectors/", import.meta.url);
const load = (name) => JSON.parse(readFileSync(fileURLToPath(new URL(name, dir)), "utf8"));

test("the shuffle vectors", async () => {
  const { vectors } = load("shuffle-sha256-fy-1.json");
  for (const v of vectors) {
    const stream = new Stream(v.seed);
    if (v.first_ten_u32) {
      const words = [];
      for (let i = 0; i < 10; i += 1) words.push(await stream.u32());
      assert.deepEqual(words, v.first_ten_u32);
      continue;
    }
    const tiles = canonical(v.max_pip, v.sets);
    assert.deepEqual(await shuffle(tiles, stream), v.first_shuffle, `first shuffle of ${v.seed}`);
    assert.deepEqual(await shuffle(tiles, stream), v.second_shuffle_same_stream, `second shuffle of ${v.seed}`);
    assert.equal(await stream.below(3), v.then_below_3);
  }
});

test("the deal vectors", async () => {
  const { deals } = load("deal-sha256-fy-1.json");
  assert.ok(deals.length >= 20);
  for (const v of deals) {
    const seed = roundSeed(v.game_seed, v.round);
    assert.equal(seed, v.seed);
    const got = await deal(seed, { ruleset: { preset: v.preset, options: v.options }, players: v.players });
    const why = `${v.why} (${v.seed})`;
    assert.equal(got.tilesEach, v.tiles_each, why);
    assert.deepEqual(got.hands, v.hands, why);
    assert.deepEqual(got.boneyard, v.boneyard, why);
    assert.equal(got.redeals, v.redeals, why);
    assert.equal(got.lot, v.lot, why);
    assert.deepEqual(got.opens, { seats: v.opens.seats, tile: v.opens.tile, drawForDouble: v.opens.draw_for_double }, why);
  }
});

test("the board vectors: open ends, sums and bonus after every play", () => {
  const { games } = load("boards-sha256-fy-1.json");
  let plays = 0;
  for (const game of games) {
    const doc = game.log;
    doc.rounds.forEach((round, r) => {
      const board = Board.forRuleset(doc.ruleset);
      const expected = game.plays[r];
      let i = 0;
      round.moves.forEach((move, m) => {
        if (move.action !== "play") return;
        const want = expected[i];
        i += 1;
        const got = board.place(move.tile, move.end ?? null, { closed: move.closed === true });
        const where = `${doc.game_id} round ${r + 1} move ${m + 1}`;
        assert.equal(want.move, m + 1, where);
        assert.equal(got.end, want.end, where);
        assert.deepEqual(board.openEnds(), want.ends, where);
        assert.equal(got.sum, want.sum, where);
        assert.equal(got.bonus, want.bonus, where);
        plays += 1;
      });
      assert.equal(i, expected.length);
    });
  }
  assert.ok(plays > 500);
});
