// A typed frontend that uses every export of the library: TypeScript checks it against
// index.d.ts (`tsc -p clients/js`, run by python3 dev.py test), and types.test.js runs it,
// so the declarations are held to what the code does.
import {
  Board, DealError, ENDS, GameLog, GameOverError, IllegalMove, LogError, Match, OPTIONS,
  PRESETS, RULESETS, Round, Rules, RulesetError, Stream, TileSet, UploadError, canonical,
  deal, handPips, isDouble, kindIndex, normalTile, parseTile, pips, replayLog,
  resolveRules, roundSeed, scoreRound, shuffle, sortTiles, tileSet, upload,
} from "../index.js";
import type {
  Applied, BoardMove, Deal, End, EndDetail, Move, Replayed, RoundResult, Ruleset,
  UploadReport,
} from "../index.js";

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`types example: ${what}`);
}

export interface Played {
  game: GameLog;
  replayed: Replayed;
  report: UploadReport;
  emptyArm: EndDetail | undefined;
}

/** A whole game of spilop with bonus, played with the library's engine and logged. */
export async function run(): Promise<Played> {
  const ruleset: Ruleset = { preset: "spilop", options: { bonus: true, target: 60 } };
  const rules: Rules = resolveRules(ruleset);
  check(rules.spinner && rules.stockFloor === 0 && rules.targetMode === "reach-wins", "rules");
  check(PRESETS.norwegian.stockFloor === 2 && RULESETS.format === "domino-rulesets/1", "presets");
  check(OPTIONS["draw"]?.values?.includes("one") === true, "options");
  check(rules.tilesEach(2) === 7 && rules.openingFor(2) === "highest-double", "hands");

  const stream = new Stream("types/1");
  const order: string[] = await shuffle(canonical(6, 1), stream);
  check(order.length === 28 && (await stream.below(3)) < 3, "shuffle");

  const log = new GameLog({ ruleset, players: ["ann", { id: "bo", name: "Bo" }], seed: "types", gameId: "types-1", frontend: { name: "types", version: "1" } });
  const match = new Match(rules, 2);
  for (let n = 1; !match.over && n <= 30; n += 1) {
    const dealt: Deal = await deal(roundSeed("types", n), { ruleset: rules, players: 2 });
    const round: Round = match.startRound(dealt);
    log.startRound();
    while (!round.over) {
      const legal: Move[] = round.legalMoves();
      const move = legal[0];
      if (move === undefined) throw new Error("no legal move");
      const scored: number = round.scoreOf(move);
      const done: Applied = round.apply(move);
      if (move.action === "play" && move.tile) {
        check(done.bonus === scored, "scoreOf");
        log.play(move.player, move.tile, move.end ?? null, { ms: 1200, closed: move.closed === true });
      } else if (move.action === "draw") {
        log.draw(move.player, done.tile ?? null);
      } else {
        log.pass(move.player);
      }
    }
    const result: RoundResult | null = round.result;
    if (result === null) throw new Error("the round is over");
    check(handPips(round.hand(result.ended_by)) === result.pips_left[result.ended_by], "pips");
    check(scoreRound(rules, { pipsLeft: result.pips_left, endedBy: result.ended_by, blocked: result.blocked, lastPlay: round.lastPlay, bonus: result.bonus }).winners.length === result.winners.length, "scoreRound");
    match.finishRound(round);
    log.endRound(result);
  }
  log.finish({ scores: match.scores, winners: match.winners });
  const replayed: Replayed = await replayLog(log);
  check(replayed.status === "finished", "replayLog");

  const board = Board.forRuleset("spilop");
  board.place("6-6");
  const tried: Board = board.clone();
  const placed = tried.place("6-4", "right");
  check(placed.sum === 16 && board.tiles === 1 && tried.line.length === 2, "board");
  const emptyArm: EndDetail | undefined = tried.ends().up;
  const fits: End[] = board.fits("6-1");
  const moves: BoardMove[] = board.legalMoves(["6-1", "2-3"], { boneyard: 3 });
  check(fits.length === 4 && moves.length === 4 && board.scoreOf("6-1", "up") === 0, "fits");
  check(board.check("6-1", "left") === "left" && !board.mayClose() && ENDS.length === 4, "check");
  check(Object.keys(board.openEnds()).length === 4 && board.openEndSum() === 12, "sum");
  try {
    board.place("1-2", "left");
  } catch (err) {
    check(err instanceof IllegalMove && err.code === "move/illegal", "IllegalMove");
  }
  for (const [bad, kind] of [[() => resolveRules({ preset: "spilop", options: { bonnus: true } as never }), RulesetError],
    [() => Round.start("classic", 2, { hands: [["0-0"], ["0-1"]], boneyard: [] }), DealError],
    [() => new GameLog({ ruleset: "spilop", players: [] }), LogError]] as const) {
    try {
      bad();
      check(false, "refused");
    } catch (err) {
      check(err instanceof kind, kind.name);
    }
  }
  check(new GameOverError("over").code === "round/after-end", "GameOverError");
  check(Round.text({ player: 0, action: "play", tile: "3-5", end: "right" }) === "plays 3-5 right", "text");

  const set: TileSet = tileSet(9, 1);
  check(set.kinds === 55 && new TileSet(6, 2).size === 56, "tile sets");
  check(parseTile("6-3")[0] === 6 && normalTile("6-3") === "3-6" && pips("6-3") === 9, "tiles");
  check(isDouble("4-4") && kindIndex(0, 1) === 1 && sortTiles(["6-6", "0-0"])[0] === "0-0", "more tiles");

  const report: UploadReport = await upload([log], {
    url: "http://recorder.test", token: "t0k", timeoutMs: 1000, finishedOnly: true,
    fetch: async () => new Response(JSON.stringify({ ok: true, data: { summary: { accepted: 1, duplicate: 0, refused: 0 }, games: [{ game_id: "types-1", status: "accepted", error: null, id: 1, index: 0, line: 1 }] } }), { status: 200 }),
  });
  check(report.attempts === 1 && report.games[0]?.status === "accepted", "upload");
  try {
    await upload({}, { url: "", token: "t" });
  } catch (err) {
    check(err instanceof UploadError && err.status === null, "UploadError");
  }
  return { game: log, replayed, report, emptyArm };
}
