// Sending logs to the recorder: POST /api/games with an upload token, retried with
// backoff when the network or the server fails, each attempt bounded by a timeout. A
// resend is safe: the recorder knows a game by its frontend and game_id (and always by
// its content), so a game whose first send was stored but whose answer was lost comes
// back "duplicate", marked as most likely stored by that earlier attempt.

import { replayLog } from "./replay.js";

export class UploadError extends Error {
  /** `cause`: what went wrong underneath (the network's own error, like ECONNREFUSED), when known. */
  constructor(message, { status = null, answer = null, cause = undefined, attempts = null } = {}) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = "UploadError";
    this.status = status;
    this.answer = answer;
    this.attempts = attempts;
  }
}

const RETRY_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

function body(docs) {
  if (!Array.isArray(docs)) return { text: JSON.stringify(docs), type: "application/json" };
  return { text: docs.map((d) => JSON.stringify(d)).join("\n") + "\n", type: "application/x-ndjson" };
}

/** The network's own reason under fetch's "fetch failed": "connect ECONNREFUSED 127.0.0.1:5000". */
function reason(err) {
  let inner = err;
  while (inner && inner.cause && typeof inner.cause === "object") inner = inner.cause;
  const code = inner && inner.code;
  const text = inner && inner.message ? inner.message : String(inner);
  return code && !text.includes(code) ? `${code}: ${text}` : text;
}

/** The report of a batch with nothing to send: the service's summary, every count 0. */
function emptyReport() {
  return { summary: { accepted: 0, duplicate: 0, superseded: 0, refused: 0 }, games: [] };
}

/**
 * Upload one log (an object, or a GameLog) or an array of them.
 * options: {url (the service, like "https://recorder.example"), token, retries = 5,
 * backoffMs = 500, maxBackoffMs = 30000, timeoutMs = 60000 (each attempt), finishedOnly
 * = false, fetch = globalThis.fetch, sleep, onRetry}.
 *
 * Resolves to the service's report {summary: {accepted, duplicate, superseded, refused}, games:
 * [...]}, with `attempts` (how many requests this call made), and `earlierAttempt:
 * true` on each game reported duplicate after an attempt of this call that got no
 * answer (that attempt most likely stored it). A game the service refuses is in the
 * report, not an exception. With `finishedOnly`, games whose replay is not finished
 * (replayLog) are not sent: they are listed in `skipped` ({index, game_id, status}).
 * A 500 that carries a report (code internal/documents: the recorder failed on some
 * documents and handled the others) resolves to that report, with its `error`; the
 * games whose error code starts with internal/ may be sent again.
 *
 * Throws UploadError when the body is refused as a whole (400, 401, 403, 413), or when
 * every attempt failed; `cause` holds the last network error, `attempts` the count.
 */
export async function upload(docs, options) {
  const {
    url, token, retries = 5, backoffMs = 500, maxBackoffMs = 30000, timeoutMs = 60000,
    finishedOnly = false, fetch = globalThis.fetch, sleep = (ms) => new Promise((r) => setTimeout(r, ms)),
    onRetry = null,
  } = options || {};
  if (!url) throw new UploadError("upload needs the service's url");
  if (!token) throw new UploadError("upload needs an upload token (recorder token create NAME)");
  const plain = (d) => (d && typeof d.toJSON === "function" ? d.toJSON() : d);
  let items = Array.isArray(docs) ? docs.map(plain) : plain(docs);
  const skipped = [];
  if (finishedOnly) {
    const all = Array.isArray(items) ? items : [items];
    const kept = [];
    for (const [index, doc] of all.entries()) {
      const { status } = await replayLog(doc);
      if (status === "finished") kept.push(doc);
      else skipped.push({ index, game_id: doc?.game_id ?? null, status });
    }
    items = Array.isArray(items) || kept.length !== 1 ? kept : kept[0];
  }
  const done = (report, attempts) => {
    const out = { ...report, attempts };
    if (finishedOnly) out.skipped = skipped;
    return out;
  };
  if (Array.isArray(items) && items.length === 0) return done(emptyReport(), 0);
  const { text, type } = body(items);
  const endpoint = `${url.replace(/\/+$/, "")}/api/games`;
  let lastError = null;
  let unanswered = false; // an attempt reached for the service and heard nothing back
  for (let attempt = 0; attempt <= retries; attempt += 1) {
    if (attempt > 0) {
      let wait = Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
      if (lastError && lastError.retryAfter !== undefined) wait = Math.min(maxBackoffMs, lastError.retryAfter);
      if (onRetry) onRetry({ attempt, wait, error: lastError });
      await sleep(wait);
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    let response;
    let answer = null;
    try {
      response = await fetch(endpoint, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": type },
        body: text,
        signal: controller.signal,
      });
      try {
        answer = await response.json();
      } catch (err) {
        if (controller.signal.aborted) throw err;
        answer = null;
      }
    } catch (err) {
      clearTimeout(timer);
      unanswered = true;
      lastError = controller.signal.aborted
        ? new UploadError(`no answer from ${endpoint} within ${timeoutMs} ms`, { cause: err })
        : new UploadError(`cannot reach ${endpoint}: ${reason(err)}`, { cause: err.cause ?? err });
      continue;
    }
    clearTimeout(timer);
    if (response.ok && answer && answer.ok) return done(mark(answer.data, unanswered), attempt + 1);
    if (response.status === 500 && answer && answer.data && Array.isArray(answer.data.games)) {
      // the recorder handled every document and failed on some: its report says which
      return done({ ...mark(answer.data, unanswered), error: answer.error ?? null }, attempt + 1);
    }
    const message = answer && answer.error ? answer.error.message : `HTTP ${response.status}`;
    const error = new UploadError(`the recorder answered ${response.status}: ${message}`, { status: response.status, answer, attempts: attempt + 1 });
    if (!RETRY_STATUS.has(response.status)) throw error;
    if (response.status >= 500) unanswered = true; // it may have stored part of the batch
    const after = response.headers.get("retry-after");
    if (after !== null && Number.isFinite(Number(after)) && Number(after) >= 0) error.retryAfter = Number(after) * 1000;
    lastError = error;
  }
  throw new UploadError(`gave up after ${retries + 1} attempts: ${lastError.message}`, {
    status: lastError.status, answer: lastError.answer, cause: lastError.cause, attempts: retries + 1,
  });
}

function mark(report, unanswered) {
  if (!unanswered || !Array.isArray(report.games)) return report;
  return { ...report, games: report.games.map((g) => (g.status === "duplicate" ? { ...g, earlierAttempt: true } : g)) };
}
