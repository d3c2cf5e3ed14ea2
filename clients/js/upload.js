// Sending logs to the recorder: POST /api/games with an upload token, retried with
// backoff when the network or the server fails. A resend is safe: the recorder
// knows a game by its frontend and game_id (and always by its content), so a game
// whose first send was stored but whose answer was lost comes back "duplicate".

export class UploadError extends Error {
  constructor(message, { status = null, answer = null } = {}) {
    super(message);
    this.status = status;
    this.answer = answer;
  }
}

const RETRY_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);

function body(docs) {
  if (!Array.isArray(docs)) return { text: JSON.stringify(docs), type: "application/json" };
  return { text: docs.map((d) => JSON.stringify(d)).join("\n") + "\n", type: "application/x-ndjson" };
}

/**
 * Upload one log (an object, or a GameLog) or an array of them.
 * options: {url (the service, like "https://recorder.example"), token, retries = 5,
 * backoffMs = 500, maxBackoffMs = 30000, fetch = globalThis.fetch, sleep, onRetry}.
 * Resolves to the service's report {summary: {accepted, duplicate, refused}, games: [...]};
 * a game the service refuses is in the report, not an exception. Throws UploadError
 * when the body is refused as a whole (400, 401, 403, 413) or every attempt failed.
 */
export async function upload(docs, options) {
  const {
    url, token, retries = 5, backoffMs = 500, maxBackoffMs = 30000,
    fetch = globalThis.fetch, sleep = (ms) => new Promise((r) => setTimeout(r, ms)), onRetry = null,
  } = options || {};
  if (!url) throw new UploadError("upload needs the service's url");
  if (!token) throw new UploadError("upload needs an upload token (recorder token create NAME)");
  const items = Array.isArray(docs) ? docs.map((d) => (d && d.toJSON ? d.toJSON() : d)) : (docs && docs.toJSON ? docs.toJSON() : docs);
  const { text, type } = body(items);
  const endpoint = `${url.replace(/\/+$/, "")}/api/games`;
  let lastError = null;
  for (let attempt = 0; attempt <= retries; attempt += 1) {
    if (attempt > 0) {
      let wait = Math.min(maxBackoffMs, backoffMs * 2 ** (attempt - 1));
      if (lastError && lastError.retryAfter !== undefined) wait = Math.min(maxBackoffMs, lastError.retryAfter);
      if (onRetry) onRetry({ attempt, wait, error: lastError });
      await sleep(wait);
    }
    let response;
    try {
      response = await fetch(endpoint, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": type },
        body: text,
      });
    } catch (err) {
      lastError = new UploadError(`cannot reach ${endpoint}: ${err.message}`);
      continue;
    }
    let answer = null;
    try {
      answer = await response.json();
    } catch {
      answer = null;
    }
    if (response.ok && answer && answer.ok) return answer.data;
    const message = answer && answer.error ? answer.error.message : `HTTP ${response.status}`;
    const error = new UploadError(`the recorder answered ${response.status}: ${message}`, { status: response.status, answer });
    if (!RETRY_STATUS.has(response.status)) throw error;
    const after = Number(response.headers.get("retry-after"));
    if (Number.isFinite(after) && after >= 0 && response.headers.get("retry-after") !== null) error.retryAfter = after * 1000;
    lastError = error;
  }
  throw new UploadError(`gave up after ${retries + 1} attempts: ${lastError.message}`, { status: lastError.status, answer: lastError.answer });
}
