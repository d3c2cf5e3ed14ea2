// The uploader over real HTTP: token, retry with backoff, no retry for a refusal.
// (tests/test_js_client.py runs it against the recorder itself, duplicates included.)
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { upload, UploadError } from "../index.js";

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
    assert.deepEqual(report, OK.data);
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
