"""The JavaScript library in a real browser: Chromium loads the ES modules over HTTP (the
rulesets file as a JSON module) and reproduces the vectors with the browser's own
SHA-256 (crypto.subtle), without node: the shuffle and deal vectors, and every game of
the round vectors replayed to the engine's scores and winners."""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from recorder.rules import Ruleset

ROOT = Path(__file__).resolve().parent.parent
VECTORS = ROOT / "schemas" / "vectors"

pytestmark = pytest.mark.browser


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def static_url() -> Iterator[str]:
    """The checkout served as static files on localhost (a secure context for crypto.subtle)."""
    handler = functools.partial(_Quiet, directory=str(ROOT))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


RUN = """async () => {
  const lib = await import("/clients/js/index.js");
  const usesSubtle = typeof globalThis.crypto?.subtle?.digest === "function"
    && typeof process === "undefined";
  const shuffleVectors = await (await fetch("/schemas/vectors/shuffle-sha256-fy-1.json")).json();
  const shuffles = [];
  for (const v of shuffleVectors.vectors) {
    if (!v.first_shuffle) continue;
    const stream = new lib.Stream(v.seed);
    const tiles = lib.canonical(v.max_pip, v.sets);
    shuffles.push([await lib.shuffle(tiles, stream), await lib.shuffle(tiles, stream),
                   await stream.below(3)]);
  }
  const dealVectors = await (await fetch("/schemas/vectors/deal-sha256-fy-1.json")).json();
  const deals = [];
  for (const v of dealVectors.deals) {
    deals.push(await lib.deal(v.seed, { ruleset: { preset: v.preset, options: v.options },
                                         players: v.players }));
  }
  const board = lib.Board.forRuleset({ preset: "spilop", options: { bonus: true } });
  const placed = [board.place("6-6"), board.place("6-3", "right"), board.place("3-3")];
  const log = new lib.GameLog({ ruleset: "spilop", players: ["a", "b"], seed: "s" });
  log.startRound();
  log.play(0, "6-6");
  // the rulesets file comes in as a JSON module, and the engine replays whole games
  const rounds = await (await fetch("/schemas/vectors/rounds-sha256-fy-1.json")).json();
  const replayed = [];
  for (const game of rounds.games) replayed.push(await lib.replayLog(game.log));
  const norwegian = lib.resolveRules({ preset: "norwegian", options: { target: 50 } }).toJSON();
  return { usesSubtle, shuffles, deals, placed, log: log.serialize(), replayed, norwegian };
}"""


def test_the_library_reproduces_the_vectors_in_chromium(browser: Any, static_url: str) -> None:
    page = browser.new_page()
    try:
        page.goto(f"{static_url}/clients/js/README.md")
        out = page.evaluate(RUN)
    finally:
        page.close()
    assert out["usesSubtle"] is True
    shuffle = json.loads((VECTORS / "shuffle-sha256-fy-1.json").read_text())["vectors"]
    expected = [[v["first_shuffle"], v["second_shuffle_same_stream"], v["then_below_3"]]
                for v in shuffle if "first_shuffle" in v]
    assert out["shuffles"] == expected
    deals = json.loads((VECTORS / "deal-sha256-fy-1.json").read_text())["deals"]
    assert len(out["deals"]) == len(deals)
    games = json.loads((VECTORS / "rounds-sha256-fy-1.json").read_text())["games"]
    assert [(g["status"], g["scores"], g["winners"]) for g in out["replayed"]] == [
        ("finished", g["scores"], g["winners"]) for g in games]
    assert out["norwegian"] == Ruleset.from_spec(
        {"preset": "norwegian", "options": {"target": 50}}).to_json()
    for got, want in zip(out["deals"], deals, strict=True):
        assert got["hands"] == want["hands"] and got["boneyard"] == want["boneyard"]
        assert (got["redeals"], got["lot"]) == (want["redeals"], want["lot"])
        assert got["opens"]["tile"] == want["opens"]["tile"]
    assert [p["sum"] for p in out["placed"]] == [12, 15, 18]
    assert [p["bonus"] for p in out["placed"]] == [0, 15, 0]
    assert json.loads(out["log"])["rounds"] == [{"moves": [{"player": 0, "action": "play",
                                                            "tile": "6-6"}]}]
