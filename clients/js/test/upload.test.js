// The uploader over real HTTP: token, retry with backoff, no retry for a refusal.
// (tests/test_js_client.py runs it against the recorder itself, duplicates included.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { GameLog, upload, UploadError } from "../index.js";
import { botGame } from "../tools/bot-games.js";

function serve(answers) {
  const seen = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      seen.push({ auth: req.headers.authorization, type: req.headers["content-type"], body, url: req.url });
      const [status, payload, headers = {}] = answers[Math.min(seen.length - 1, answers.length - 1)];
      res.writeHead(status, { "Content-Type": "application/json", ...headers });
      res.end(JSON.stringify(payload));
    });
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => resolve({ server, seen, url: `http://127.0.0.1:${server.address().port}` }));
  });
}

const OK = { ok: true, data: { summary: { accepted: 1, duplicate: 0, refused: 0 }, games: [{ status: "accepted" }] } };
const BUSY = { ok: false, status: 503, error: { code: "busy", message: "try later" } };

test("retries 503 with exponential backoff, then returns the report", async () => {
  const { server, seen, url } = await serve([[503, BUSY], [503, BUSY], [200, OK]]);
  const waits = [];
  try {
    const report = await upload({ format: "domino-log/1" }, { url: `${url}/`, token: "t0k", backoffMs: 10, sleep: async (ms) => { waits.push(ms); } });
    assert.deepEqual(report, { ...OK.data, attempts: 3 });
  } finally {
    server.close();
  }
  assert.deepEqual(waits, [10, 20]);
  assert.equal(seen.length, 3);
  assert.equal(seen[0].auth, "Bearer t0k");
  assert.equal(seen[0].url, "/api/games");
  assert.equal(seen[0].type, "application/json");
});

test("honours Retry-After and sends several games as JSON Lines", async () => {
  const { server, seen, url } = await serve([[429, BUSY, { "Retry-After": "2" }], [200, OK]]);
  const waits = [];
  try {
    await upload([{ a: 1 }, { b: 2 }], { url, token: "t", sleep: async (ms) => { waits.push(ms); } });
  } finally {
    server.close();
  }
  assert.deepEqual(waits, [2000]);
  assert.equal(seen[0].type, "application/x-ndjson");
  assert.equal(seen[0].body, '{"a":1}\n{"b":2}\n');
});

test("a refusal of the whole body is not retried", async () => {
  const { server, seen, url } = await serve([[401, { ok: false, status: 401, error: { code: "auth/missing", message: "an upload needs a token" } }]]);
  try {
    await assert.rejects(upload({}, { url, token: "bad", sleep: async () => {} }),
      (err) => err instanceof UploadError && err.status === 401 && /an upload needs a token/.test(err.message));
  } finally {
    server.close();
  }
  assert.equal(seen.length, 1);
});

test("gives up after the last retry when nothing listens", async () => {
  const { server, url } = await serve([[200, OK]]);
  await new Promise((r) => server.close(r));
  const waits = [];
  await assert.rejects(upload({}, { url, token: "t", retries: 2, backoffMs: 1, sleep: async (ms) => { waits.push(ms); } }),
    (err) => err instanceof UploadError && /gave up after 3 attempts: cannot reach/.test(err.message));
  assert.deepEqual(waits, [1, 2]);
});

test("a server that accepts and never answers times out, and the attempts are retried", async () => {
  const sockets = [];
  const server = createServer(() => { /* never answers */ });
  server.on("connection", (s) => sockets.push(s));
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${server.address().port}`;
  const waits = [];
  const started = Date.now();
  try {
    await assert.rejects(upload({}, { url, token: "t", retries: 1, timeoutMs: 200, sleep: async (ms) => { waits.push(ms); } }),
      (err) => err instanceof UploadError && err.attempts === 2
        && /gave up after 2 attempts: no answer from http:\/\/127\.0\.0\.1:\d+\/api\/games within 200 ms/.test(err.message)
        && err.cause && err.cause.name === "AbortError");
  } finally {
    for (const s of sockets) s.destroy();
    server.close();
  }
  assert.ok(Date.now() - started < 5000);
  assert.equal(waits.length, 1);
});

test("the network's own reason is kept: ECONNREFUSED in the message and in err.cause", async () => {
  const { server, url } = await serve([[200, OK]]);
  await new Promise((r) => server.close(r));
  await assert.rejects(upload({}, { url, token: "t", retries: 0 }), (err) => {
    assert.match(err.message, /cannot reach .*ECONNREFUSED/);
    assert.equal(err.cause.code, "ECONNREFUSED");
    return true;
  });
});

test("a 500 that carries a report is that report, not a blind resend", async () => {
  const report = { summary: { accepted: 1, duplicate: 0, refused: 1 }, games: [
    { status: "accepted", game_id: "a", id: 1 },
    { status: "refused", game_id: "b", error: { code: "internal/replay", message: "the recorder failed" } }] };
  const failed = { ok: false, status: 500, error: { code: "internal/documents", message: "the recorder failed on 1 of the 2 documents" }, data: report };
  const { server, seen, url } = await serve([[500, failed]]);
  try {
    const got = await upload([{ a: 1 }, { b: 2 }], { url, token: "t", sleep: async () => {} });
    assert.deepEqual(got.games, report.games);
    assert.equal(got.error.code, "internal/documents");
    assert.equal(got.attempts, 1);
  } finally {
    server.close();
  }
  assert.equal(seen.length, 1);
});

test("a game stored by an attempt whose answer was lost is marked in the report", async () => {
  let calls = 0;
  const server = createServer((req, res) => {
    calls += 1;
    req.resume();
    req.on("end", () => {
      if (calls === 1) { req.socket.destroy(); return; }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ ok: true, data: { summary: { accepted: 1, duplicate: 1, refused: 0 }, games: [
        { status: "duplicate", game_id: "a", id: 1 }, { status: "accepted", game_id: "b", id: 2 }] } }));
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  try {
    const got = await upload([{ a: 1 }, { b: 2 }], { url: `http://127.0.0.1:${server.address().port}`, token: "t", sleep: async () => {} });
    assert.equal(got.attempts, 2);
    assert.equal(got.games[0].earlierAttempt, true);
    assert.equal(got.games[1].earlierAttempt, undefined);
  } finally {
    server.close();
  }
});

test("an empty batch is an empty report, sent nowhere", async () => {
  const got = await upload([], { url: "http://127.0.0.1:9", token: "t", fetch: () => { throw new Error("no request"); } });
  assert.deepEqual(got, { summary: { accepted: 0, duplicate: 0, superseded: 0, refused: 0 }, games: [], attempts: 0 });
});

test("finishedOnly sends the games the recorder will call finished, and says which it kept back", async () => {
  const finished = await botGame({ preset: "classic", options: { target: 30 } }, 2, "only-1", () => 0.5);
  const cut = JSON.parse(finished.serialize());
  cut.rounds = [{ ...cut.rounds[0], moves: cut.rounds[0].moves.slice(0, 3) }];
  delete cut.rounds[0].result;
  delete cut.result;
  cut.game_id = "only-2";
  const empty = new GameLog({ ruleset: "classic", players: ["a", "b"], seed: "s", gameId: "only-3" });
  const { server, seen, url } = await serve([[200, OK]]);
  try {
    const got = await upload([finished, cut, empty], { url, token: "t", finishedOnly: true });
    assert.deepEqual(got.skipped, [{ index: 1, game_id: "only-2", status: "unfinished" }, { index: 2, game_id: "only-3", status: "unfinished" }]);
    const none = await upload(cut, { url, token: "t", finishedOnly: true });
    assert.equal(none.attempts, 0);
  } finally {
    server.close();
  }
  assert.equal(seen.length, 1);
  assert.equal(seen[0].body.trim().split("\n").length, 1);
  assert.equal(JSON.parse(seen[0].body).game_id, "only-1");
});
