// The controls: buttons, the two scrubbers (rounds, and moves within the round), the
// round and speed pickers, the point of view, the keys, and taps and swipes on the
// table. They only call the replay's own methods; what to draw is decided there.

const KEYS = {
  ArrowLeft: (r) => r.step(-1),
  ArrowRight: (r) => r.step(1),
  ArrowUp: (r) => r.round(-1),
  PageUp: (r) => r.round(-1),
  ArrowDown: (r) => r.round(1),
  PageDown: (r) => r.round(1),
  Home: (r) => r.go(0),
  End: (r) => r.go(r.positions.length - 1),
  " ": (r) => r.toggle(),
};

// the element last pressed with a mouse or a finger: a button focused so is not the
// keyboard's, and gives space back to the page
let pressed = null;

/**
 * Whether the focused element keeps `key` for itself. A picker keeps ↑ ↓ (and space,
 * which opens it) only while it has the keyboard's focus: ← → always step, and once a
 * choice is made with the mouse the picker lets go of the focus (see `release`). A
 * button keeps space only when it was reached with the keyboard: after clicking Next,
 * space plays and pauses.
 */
function owns(target, key) {
  if (!(target instanceof HTMLElement)) return false;
  const tag = target.tagName;
  if (tag === "TEXTAREA") return true;
  if (tag === "SELECT") return key !== "ArrowLeft" && key !== "ArrowRight";
  if (tag === "INPUT") {
    if (target.type !== "range") return true;
    // the move slider covers one round: its arrows step through the game as the page's
    // do (on into the next round); Home and End and the round slider's keys are theirs
    if (target.id === "scrubber") return key === "Home" || key === "End";
    return !(key === " " || key === "PageUp" || key === "PageDown");
  }
  if (tag === "BUTTON" || tag === "SUMMARY" || tag === "A") {
    return key === " " && target !== pressed;
  }
  return false;
}

/** After a choice made with the mouse or a finger, the picker gives the keys back. */
function release(select) {
  let pointer = false;
  select.addEventListener("pointerdown", () => { pointer = true; });
  select.addEventListener("keydown", () => { pointer = false; });
  select.addEventListener("change", () => {
    if (pointer) select.blur();
    pointer = false;
  });
}

/** Taps and swipes on the table: right half or a swipe left steps on, the other way back. */
function wireTouch(replay, table) {
  let start = null;
  table.addEventListener("pointerdown", (e) => {
    if (e.pointerType === "mouse" || !e.isPrimary) return;
    start = {x: e.clientX, y: e.clientY, t: e.timeStamp};
  });
  table.addEventListener("pointercancel", () => { start = null; });
  table.addEventListener("pointerup", (e) => {
    if (!start || e.pointerType === "mouse" || !e.isPrimary) return;
    const dx = e.clientX - start.x;
    const dy = e.clientY - start.y;
    const quick = e.timeStamp - start.t < 600;
    start = null;
    if (Math.abs(dx) > 40 && Math.abs(dx) > 1.5 * Math.abs(dy)) { // a swipe
      replay.pause();
      replay.step(dx < 0 ? 1 : -1);
    } else if (Math.abs(dx) < 12 && Math.abs(dy) < 12 && quick) { // a tap
      const box = table.getBoundingClientRect();
      replay.pause();
      replay.step(e.clientX >= box.left + box.width / 2 ? 1 : -1);
    }
  });
}

export function wireControls(replay, root) {
  const $ = (id) => root.querySelector(`#${id}`);
  $("first").addEventListener("click", () => replay.go(0));
  $("prev").addEventListener("click", () => replay.step(-1));
  $("play").addEventListener("click", () => replay.toggle());
  $("next").addEventListener("click", () => replay.step(1));
  $("last").addEventListener("click", () => replay.go(replay.positions.length - 1));
  const scrub = $("scrubber");
  scrub.addEventListener("input", () => {
    const [ri] = replay.current();
    replay.go(replay.starts[ri] + Number(scrub.value));
  });
  const roundScrub = $("round-scrubber");
  roundScrub.addEventListener("input", () => replay.toRound(Number(roundScrub.value)));
  $("round-select").addEventListener("change", (e) => replay.toRound(Number(e.target.value)));
  $("speed").addEventListener("change", (e) => replay.setSpeed(Number(e.target.value)));
  $("view").addEventListener("change", (e) => {
    replay.setView(e.target.value === "" ? null : Number(e.target.value));
  });
  for (const id of ["round-select", "speed", "view"]) release($(id));
  const toggle = $("choices-toggle");
  toggle.addEventListener("click", () => {
    const on = toggle.getAttribute("aria-expanded") !== "true";
    replay.setChoices(on);
  });
  const errorJump = $("error-jump");
  if (errorJump) errorJump.addEventListener("click", () => replay.toError());
  wireTouch(replay, $("table"));

  document.addEventListener("pointerdown", (e) => {
    pressed = e.target instanceof Element ? e.target.closest("button, summary, a") : null;
  }, true);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Tab") pressed = null; // the keyboard takes the focus from here on
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const act = KEYS[e.key];
    if (!act || owns(e.target, e.key)) return;
    e.preventDefault();
    act(replay);
  });
}

/** Bring the controls in line with the replay's state (after every step). */
export function syncControls(replay, root) {
  const $ = (id) => root.querySelector(`#${id}`);
  const [ri, fi] = replay.current();
  const round = replay.rounds[ri];
  const scrub = $("scrubber");
  scrub.max = String(round.frames.length - 1);
  scrub.value = String(fi);
  scrub.setAttribute("aria-valuetext", replay.where());
  $("scrub-value").textContent = `${round.frames[fi].m} of ${round.frames[round.frames.length - 1].m}`;
  const roundScrub = $("round-scrubber");
  roundScrub.max = String(replay.rounds.length - 1);
  roundScrub.value = String(ri);
  roundScrub.setAttribute("aria-valuetext", `Round ${round.round} of ${replay.rounds.length}`);
  $("round-scrub-value").textContent = `${round.round} of ${replay.rounds.length}`;
  $("round-scrub").hidden = replay.rounds.length < 2;
  $("round-select").value = String(ri);
  const play = $("play");
  play.setAttribute("aria-label", replay.playing ? "Pause" : "Play");
  play.classList.toggle("playing", replay.playing);
  // aria-disabled, not disabled: a focused button keeps its focus at either end
  const atStart = replay.pos === 0;
  const atEnd = replay.pos === replay.positions.length - 1;
  $("prev").setAttribute("aria-disabled", String(atStart));
  $("first").setAttribute("aria-disabled", String(atStart));
  $("next").setAttribute("aria-disabled", String(atEnd));
  $("last").setAttribute("aria-disabled", String(atEnd));
}
