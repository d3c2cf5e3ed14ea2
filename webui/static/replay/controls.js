// The controls: buttons, scrubber, round and speed pickers, the point of view, and the
// keys. They only call the replay's own methods; what to draw is decided there.

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

function own(target) {
  // keys a focused control already uses for itself
  if (!(target instanceof HTMLElement)) return () => false;
  const tag = target.tagName;
  if (tag === "SELECT" || tag === "TEXTAREA") return () => true;
  if (tag === "INPUT") {
    return target.type === "range"
      ? (key) => key !== " " && key !== "PageUp" && key !== "PageDown" && key !== "ArrowUp" && key !== "ArrowDown"
      : () => true;
  }
  if (tag === "BUTTON" || tag === "SUMMARY" || tag === "A") return (key) => key === " ";
  return () => false;
}

export function wireControls(replay, root) {
  const $ = (id) => root.querySelector(`#${id}`);
  $("first").addEventListener("click", () => replay.go(0));
  $("prev").addEventListener("click", () => replay.step(-1));
  $("play").addEventListener("click", () => replay.toggle());
  $("next").addEventListener("click", () => replay.step(1));
  $("last").addEventListener("click", () => replay.go(replay.positions.length - 1));
  const scrub = $("scrubber");
  scrub.addEventListener("input", () => replay.go(Number(scrub.value)));
  $("round-select").addEventListener("change", (e) => replay.toRound(Number(e.target.value)));
  $("speed").addEventListener("change", (e) => replay.setSpeed(Number(e.target.value)));
  $("view").addEventListener("change", (e) => {
    replay.setView(e.target.value === "" ? null : Number(e.target.value));
  });
  const toggle = $("choices-toggle");
  toggle.addEventListener("click", () => {
    const on = toggle.getAttribute("aria-expanded") !== "true";
    replay.setChoices(on);
  });
  const errorJump = $("error-jump");
  if (errorJump) errorJump.addEventListener("click", () => replay.toError());

  document.addEventListener("keydown", (e) => {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const act = KEYS[e.key];
    if (!act || own(e.target)(e.key)) return;
    e.preventDefault();
    act(replay);
  });
}

/** Bring the controls in line with the replay's state (after every step). */
export function syncControls(replay, root) {
  const $ = (id) => root.querySelector(`#${id}`);
  const scrub = $("scrubber");
  scrub.max = String(replay.positions.length - 1);
  scrub.value = String(replay.pos);
  scrub.setAttribute("aria-valuetext", replay.where());
  $("round-select").value = String(replay.current()[0]);
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
