// The upload page: each chosen or dropped file goes to POST /api/games with the page's
// token, one after another, and the per-game answer is shown as a table. The server
// decides everything; this script only sends files and draws what comes back.

const form = document.getElementById("upload-form");
const tokenInput = document.getElementById("token");
const remember = document.getElementById("remember");
const fileInput = document.getElementById("files");
const dropzone = document.getElementById("dropzone");
const chosen = document.getElementById("chosen");
const problem = document.getElementById("problem");
const reports = document.getElementById("reports");
const sendButton = document.getElementById("send");

const STORAGE_KEY = "recorder.uploadToken";
let queued = [];

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function showProblem(message) {
  problem.textContent = message;
  problem.hidden = !message;
}

// Mirrors recorder.ingest.locate: the error's place first, as docs/format.md writes it.
function locate(error) {
  if (!error) return "";
  const message = String(error.message ?? "");
  const r = error.round || 0;
  const m = error.move || 0;
  if (message.startsWith("round ") || (!r && !m)) return message;
  return m ? `round ${r}, move ${m}: ${message}` : `round ${r}: ${message}`;
}

function contentType(name) {
  const lower = name.toLowerCase();
  if (lower.endsWith(".gz")) return "application/gzip";
  if (lower.endsWith(".jsonl") || lower.endsWith(".ndjson")) return "application/x-ndjson";
  return "application/json";
}

function gameLink(id) {
  const template = form.dataset.gameUrl;
  return template.replace(/0$/, String(id));
}

// A refused game opens on the watch page, played up to the move the engine refused: the
// file goes to POST /watch in a form of its own (nothing is stored), with the game's place
// in the file.
function watchButton(file, index) {
  const button = el("button", { type: "button", class: "watch-error secondary" },
    "Watch up to the error");
  button.addEventListener("click", () => {
    const post = el("form", {
      method: "post", action: form.dataset.watch, enctype: "multipart/form-data", hidden: "",
    });
    const input = el("input", { type: "file", name: "file" });
    const chosen = new DataTransfer();
    chosen.items.add(file);
    input.files = chosen.files;
    post.append(input, el("input", { type: "hidden", name: "index", value: String(index) }));
    document.body.append(post);
    post.submit();
  });
  return button;
}

function renderReport(name, data, file = null) {
  const { summary, games } = data;
  const rows = games.map((game) => {
    let details = "";
    if (game.status === "refused") {
      details = el("span", {}, locate(game.error));
      if (file && game.index != null && game.error?.code !== "input/unreadable") {
        details.append(" ", watchButton(file, game.index));
      }
    } else if (game.id) details = el("a", { href: gameLink(game.id) }, `game #${game.id}`);
    return el(
      "tr",
      { "data-status": game.status },
      el("td", {}, (game.index ?? 0) + 1),
      el("td", {}, el("bdi", {}, game.game_id ?? "—")),
      el("td", {}, el("span", { class: `badge ${game.status}` }, game.status)),
      el("td", {}, details),
    );
  });
  return el(
    "article",
    { class: "report", "data-file": name },
    el("h2", {}, name),
    el(
      "p",
      { class: "summary" },
      el("span", { class: "count accepted" }, `${summary.accepted} accepted`),
      el("span", { class: "count duplicate" }, `${summary.duplicate} duplicate`),
      ...(summary.superseded
        ? [el("span", { class: "count superseded" }, `${summary.superseded} superseded`)]
        : []),
      el("span", { class: "count refused" }, `${summary.refused} refused`),
    ),
    el(
      "table",
      { class: "games" },
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "game"),
        el("th", {}, "status"), el("th", {}, "details"))),
      el("tbody", {}, ...rows),
    ),
  );
}

function renderFailure(name, message) {
  return el(
    "article",
    { class: "report", "data-file": name },
    el("h2", {}, name),
    el("p", { class: "problem" }, message),
  );
}

function setQueue(files) {
  queued = Array.from(files);
  chosen.textContent = queued.map((f) => f.name).join(", ");
}

async function send(file, token) {
  let response;
  try {
    response = await fetch(form.dataset.api, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": contentType(file.name) },
      body: file,
    });
  } catch (err) {
    return { ok: false, status: 0, message: `the server could not be reached (${err})` };
  }
  let body = null;
  try {
    body = await response.json();
  } catch {
    body = null;
  }
  if (response.ok && body && body.ok) return { ok: true, data: body.data };
  // 500 with a report: the recorder failed on some documents; the others were handled
  if (body && Array.isArray(body.data?.games)) {
    return { ok: true, data: body.data, warning: body.error?.message ?? "" };
  }
  const message = body?.error?.message ?? `the server answered ${response.status}`;
  return { ok: false, status: response.status, message, code: body?.error?.code };
}

async function uploadQueued() {
  const token = tokenInput.value.trim();
  if (!token) {
    showProblem("Paste your upload token first.");
    tokenInput.focus();
    return;
  }
  if (!queued.length) {
    showProblem("Choose or drop at least one file.");
    return;
  }
  if (remember.checked) localStorage.setItem(STORAGE_KEY, token);
  else localStorage.removeItem(STORAGE_KEY);
  showProblem("");
  sendButton.disabled = true;
  form.classList.add("busy");
  const files = queued;
  setQueue([]);
  try {
    for (const file of files) {
      const result = await send(file, token);
      if (result.ok) {
        reports.prepend(renderReport(file.name, result.data, file));
        if (result.warning) reports.prepend(renderFailure(file.name, result.warning));
      } else {
        reports.prepend(renderFailure(file.name, result.message));
        // a token the server refuses stops the queue; a file of another frontend does not
        if (result.status === 401 || (result.status === 403 && result.code !== "auth/frontend")) {
          showProblem(result.message);
          break;
        }
      }
    }
  } finally {
    sendButton.disabled = false;
    form.classList.remove("busy");
    fileInput.value = "";
  }
}

const saved = localStorage.getItem(STORAGE_KEY);
if (saved) {
  tokenInput.value = saved;
  remember.checked = true;
}

fileInput.addEventListener("change", () => setQueue(fileInput.files));

for (const type of ["dragenter", "dragover"]) {
  dropzone.addEventListener(type, (event) => {
    event.preventDefault();
    dropzone.classList.add("over");
  });
}
dropzone.addEventListener("dragleave", () => dropzone.classList.remove("over"));
dropzone.addEventListener("drop", (event) => {
  event.preventDefault();
  dropzone.classList.remove("over");
  setQueue(event.dataTransfer.files);
  if (tokenInput.value.trim()) uploadQueued();
});

form.addEventListener("submit", (event) => {
  event.preventDefault();
  uploadQueued();
});
form.dataset.ready = "true";
