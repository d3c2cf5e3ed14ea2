"""The JavaScript library (clients/js) end to end, with node and the real recorder.

- 500 games of every preset played by a bot through the library's engine and logged
  through it replay as valid, finished games whose claimed results the engine
  confirms; before every move of 200 more the library's legal moves are the engine's;
- the library's rulesets, replay verdicts and refusals (with their reasons) are the
  engine's on random options, mutated logs and moves a buggy frontend might try;
- the uploader against a real recorder service: the answer to the first send is lost
  on the way back, the uploader retries, and the game is stored once (the resend is a
  duplicate).

node is needed: outside CI a missing node skips these tests (saying so); under CI=true
it is a failure.
"""

from __future__ import annotations

import copy
import json
import os
import random
import shutil
import socket
import subprocess
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from logs import every_move

from recorder.engine import END_NAMES, Move
from recorder.errors import IllegalMove, RulesetError
from recorder.replay import MoveEvent, open_game, replay, walk
from recorder.rules import OPTIONS, PRESETS, Ruleset

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "clients" / "js"
NODE = shutil.which("node")


@pytest.fixture(scope="module")
def node() -> str:
    if NODE is None:
        if os.environ.get("CI") == "true":
            pytest.fail("node is missing, and CI=true needs the JavaScript client tested")
        pytest.skip("node is missing: the JavaScript client is not tested here")
    return NODE


def _bots(node: str, count: int, prefix: str, *extra: str) -> list[dict[str, Any]]:
    out = subprocess.run([node, str(JS / "tools" / "bot-games.js"), str(count), prefix, *extra],
                         check=True, capture_output=True, text=True, timeout=300).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_500_bot_games_logged_by_the_library_are_valid(node: str) -> None:
    """Every preset and the options that change a round, played by the library's engine:
    each game replays finished, and every claim the library made is the engine's."""
    docs = _bots(node, 500, "js-bot")
    assert len(docs) == 500
    assert len({d["game_id"] for d in docs}) == 500
    presets = {(d["ruleset"]["preset"], len(d["players"])) for d in docs}
    assert {(p, n) for p, rules in PRESETS.items()
            for n in range(rules.min_players, rules.max_players + 1)} - presets <= {
                ("norwegian", 3), ("norwegian", 4)}
    assert {p for p, _ in presets} == set(PRESETS)
    for doc in docs:
        answer = replay(doc)
        assert answer["status"] == "finished", (doc["game_id"], answer.get("error"))
        assert "mismatches" not in answer, (doc["game_id"], answer["mismatches"])
        assert all("result" in r for r in doc["rounds"])
    results = [r["result"] for d in docs for r in d["rounds"]]
    assert sum(b for r in results for b in r["bonus"]) > 0
    assert any(r["blocked"] for r in results)
    assert any(not float(p).is_integer() for r in results for p in r["points"])
    assert any(m.get("closed") for d in docs for r in d["rounds"] for m in r["moves"])
    assert any("deal" in r for d in docs for r in d["rounds"])


def test_the_librarys_legal_moves_are_the_engines_before_every_move(node: str) -> None:
    games = _bots(node, 200, "js-steps", "--steps")
    compared = 0
    for game in games:
        doc, steps = game["log"], game["steps"]
        for event in walk(doc, open_game(doc)):
            if type(event) is MoveEvent:
                want = steps[event.round - 1][event.move_no - 1]
                assert want == every_move(event.state), (doc["game_id"], event.round,
                                                          event.move_no)
                compared += 1
    assert compared > 10_000


ORACLE = """
import {{ Match, deal, replayLog, resolveRules, roundSeed }} from {lib};
import {{ readFileSync }} from "node:fs";
const tasks = JSON.parse(readFileSync(0, "utf8"));
const out = {{ resolve: [], replay: [], check: [] }};
for (const spec of tasks.resolve) {{
  try {{ out.resolve.push({{ rules: resolveRules(spec).toJSON() }}); }}
  catch (err) {{ out.resolve.push({{ error: [err.name, err.message, err.pointer] }}); }}
}}
for (const doc of tasks.replay) out.replay.push(await replayLog(doc));
for (const {{ doc, at }} of tasks.check) {{
  const match = new Match(doc.ruleset, doc.players.length);
  const reasons = [];
  for (const [r, rdoc] of doc.rounds.entries()) {{
    const dealt = rdoc.deal ?? await deal(roundSeed(doc.seed, r + 1),
      {{ ruleset: doc.ruleset, players: doc.players.length }});
    const round = match.startRound(dealt, {{ opener: rdoc.opener ?? null }});
    for (const [m, move] of rdoc.moves.entries()) {{
      for (const t of at.filter((x) => x.round === r + 1 && x.move === m + 1)) {{
        try {{ round.check(t.try); reasons.push(null); }}
        catch (err) {{ reasons.push(err.message); }}
      }}
      round.apply(move);
    }}
    match.finishRound(round);
  }}
  out.check.push(reasons);
}}
process.stdout.write(JSON.stringify(out));
"""


def _oracle(node: str, tasks: dict[str, Any]) -> dict[str, Any]:
    script = ORACLE.format(lib=json.dumps((JS / "index.js").as_uri()))
    done = subprocess.run([node, "--input-type=module", "-e", script], input=json.dumps(tasks),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _specs(rng: random.Random, count: int) -> list[Any]:
    """Rulesets as frontends write them, right and wrong: every option with good and bad
    values, in random pairs over random presets."""
    values: dict[str, list[Any]] = {
        "bool": [True, False, None, 1, "true"],
        "int": [0, 1, 2, 3, 7, 50, 101, 1000, -1, 2.5, "5", None],
        "choice": [None, "none", "lot", 3],
        "per-players-int": [5, 7, {"2": 7, "4": 5}, {"default": 6}, {"x": 1}, {"9": 7}, 0],
        "per-players-choice": ["free", {"default": "free", "4": "highest-double"}, {"2": 1}],
        "pips": [[5, 1, 2, 3, 4, 6, 0], [6, 5], [], [0, 0, 1, 2, 3, 4, 5]],
    }
    specs: list[Any] = []
    names = list(OPTIONS)
    for _ in range(count):
        options: dict[str, Any] = {}
        for _ in range(rng.randint(0, 3)):
            name = rng.choice([*names, "bonnus", "stockFloor", "Target"])
            opt = OPTIONS.get(name)
            pool = values[opt.kind] + list(opt.choices) if opt else [True, 2]
            options[name] = rng.choice(pool)
        specs.append({"preset": rng.choice([*PRESETS, "spilop", "spillop"]), "options": options})
    return specs


def test_the_librarys_rulesets_answer_as_the_engine_on_random_options(node: str) -> None:
    specs = _specs(random.Random(17), 600)
    got = _oracle(node, {"resolve": specs, "replay": [], "check": []})["resolve"]
    refused = 0
    for spec, answer in zip(specs, got, strict=True):
        try:
            rules = Ruleset.from_spec(spec)
        except RulesetError as exc:
            refused += 1
            assert answer.get("error") == ["RulesetError", exc.message, exc.pointer], spec
        else:
            assert answer.get("rules") == rules.to_json(), spec
    assert 100 < refused < 550


def _mutations(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    bad = copy.deepcopy(doc)
    rdoc = rng.choice(bad["rounds"])
    m = rng.randrange(len(rdoc["moves"]))
    move = rdoc["moves"][m]
    change = rng.choice(["player", "end", "tile", "drop", "pass"])
    if move["action"] != "play" and change in ("end", "tile"):
        change = "player"  # an end or tile on a draw or pass is a shape error: the schema's
    if change == "player":
        move["player"] = (move["player"] + 1) % len(bad["players"])
    elif change == "end":
        move["end"] = rng.choice(["left", "right", "up", "down"])
    elif change == "tile":
        move["tile"] = rng.choice(["0-0", "1-2", "6-6", "3-4"])
    elif change == "drop":
        del rdoc["moves"][m]
    else:
        rdoc["moves"][m] = {"player": move["player"], "action": "pass"}
    return bad


def test_the_librarys_replay_gives_the_engines_verdict(node: str) -> None:
    rng = random.Random(5)
    docs = _bots(node, 120, "js-replay")
    docs += [_mutations(d, rng) for d in docs]
    docs += [{**d, "rounds": d["rounds"][:1]} for d in docs[:40]]
    got = _oracle(node, {"resolve": [], "replay": docs, "check": []})["replay"]
    invalid = 0
    for doc, mine in zip(docs, got, strict=True):
        answer = replay(doc)
        assert mine["status"] == answer["status"], (doc["game_id"], answer.get("error"), mine)
        if answer["status"] == "invalid":
            invalid += 1
            error = answer["error"]
            assert (mine["error"]["round"], mine["error"]["move"]) == (error["round"],
                                                                      error["move"])
            assert mine["error"]["code"] == error["code"]
        else:
            assert mine["rounds"] == answer["rounds"]
            assert mine["scores"] == answer["scores"] and mine["winners"] == answer["winners"]
    assert invalid > 50


def test_the_librarys_refusals_are_the_engines_words(node: str) -> None:
    """Moves a buggy frontend might try, at random points of bot games: the library
    refuses exactly what the engine refuses, with the engine's reason."""
    rng = random.Random(9)
    docs = _bots(node, 60, "js-check")
    tasks = []
    expected: list[list[str | None]] = []
    for doc in docs:
        at: list[dict[str, Any]] = []
        reasons: list[str | None] = []
        for event in walk(doc, open_game(doc)):
            if type(event) is not MoveEvent or rng.random() > 0.3:
                continue
            state = event.state
            seat = rng.randrange(state.players)
            tile = rng.choice(state.tiles.kind_name)
            for tried in (Move(seat, "play", tile, rng.choice([None, *END_NAMES])),
                          Move(seat, rng.choice(["draw", "pass"])),
                          Move(seat, "play", tile, None, True)):
                at.append({"round": event.round, "move": event.move_no, "try": tried.to_json()})
                try:
                    state.check(tried)
                    reasons.append(None)
                except IllegalMove as exc:
                    reasons.append(exc.message)
        tasks.append({"doc": doc, "at": at})
        expected.append(reasons)
    got = _oracle(node, {"resolve": [], "replay": [], "check": tasks})["check"]
    assert got == expected
    kinds = {r.split(":")[0].split(" (")[0] for rs in expected for r in rs if r}
    assert len(kinds) > 25, kinds


class LosesFirstAnswer:
    """A TCP relay to the service that drops the service's first answer.

    The first request reaches the service (which stores the game) but the client
    sees the connection close without an answer, as when a network fails on the
    way back. Later connections are relayed whole.
    """

    def __init__(self, target_port: int) -> None:
        self.target = target_port
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            drop = self.connections == 1
            threading.Thread(target=self._relay, args=(client, drop), daemon=True).start()

    def _relay(self, client: socket.socket, drop: bool) -> None:
        with client, socket.create_connection(("127.0.0.1", self.target)) as upstream:
            request = _read_request(client)
            upstream.sendall(request)
            answer = _read_all(upstream)
            if not drop:
                client.sendall(answer)

    def close(self) -> None:
        self.sock.close()


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    while len(body) < length:
        body += conn.recv(65536)
    # one request a connection: ask the service to close after answering
    head = b"\r\n".join(x for x in head.split(b"\r\n")
                        if not x.lower().startswith(b"connection:"))
    return head + b"\r\nConnection: close\r\n\r\n" + body


def _read_all(conn: socket.socket) -> bytes:
    data = b""
    while chunk := conn.recv(65536):
        data += chunk
    return data


@pytest.fixture
def service(start_server: Callable[..., str], db_path: Path, token: str) -> Iterator[Any]:
    url = start_server(db_path)
    yield url, token


UPLOAD = """
import {{ upload }} from {lib};
import {{ readFileSync }} from "node:fs";
const doc = JSON.parse(readFileSync({path}, "utf8"));
const retries = [];
const report = await upload(doc, {{ url: {url}, token: {token}, backoffMs: 50,
  onRetry: (r) => retries.push(r.error ? r.error.message : null) }});
console.log(JSON.stringify({{ report, retries }}));
"""


def _upload(node: str, url: str, token: str, path: Path) -> dict[str, Any]:
    script = UPLOAD.format(lib=json.dumps((JS / "index.js").as_uri()), path=json.dumps(str(path)),
                           url=json.dumps(url), token=json.dumps(token))
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_resend_after_a_lost_answer_is_a_duplicate_not_a_second_game(
        node: str, service: tuple[str, str], tmp_path: Path, db_path: Path) -> None:
    from recorder import storage
    from recorder.tokens import create_token

    url, _ = service
    db = storage.connect(db_path)
    token = create_token(db, "js-bots", ["upload"])[1]  # the frontend the bot games name
    db.close()
    out = subprocess.run([node, str(JS / "tools" / "bot-games.js"), "1", "upload"], check=True,
                         capture_output=True, text=True, timeout=60).stdout
    path = tmp_path / "game.json"
    path.write_text(out)
    port = int(url.rsplit(":", 1)[1])
    relay = LosesFirstAnswer(port)
    try:
        first = _upload(node, f"http://127.0.0.1:{relay.port}", token, path)
    finally:
        relay.close()
    assert len(first["retries"]) == 1 and "cannot reach" in first["retries"][0]
    assert first["report"]["summary"] == {"accepted": 0, "duplicate": 1,
                                          "superseded": 0, "refused": 0}
    # the report says it took two requests, and that the first most likely stored it
    assert first["report"]["attempts"] == 2
    assert first["report"]["games"][0]["earlierAttempt"] is True
    again = _upload(node, url, token, path)
    assert again["retries"] == []
    assert again["report"]["summary"] == {"accepted": 0, "duplicate": 1,
                                          "superseded": 0, "refused": 0}
    assert again["report"]["attempts"] == 1 and "earlierAttempt" not in again["report"]["games"][0]
    with urllib.request.urlopen(f"{url}/api/games") as response:
        assert json.loads(response.read())["meta"]["total"] == 1
    from recorder import storage

    database = storage.connect(db_path)
    try:
        assert database["games"].count == 1
    finally:
        database.close()


def test_a_refused_token_is_not_retried(node: str, service: tuple[str, str],
                                        tmp_path: Path) -> None:
    url, _ = service
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"format": "domino-log/1"}))
    script = UPLOAD.format(lib=json.dumps((JS / "index.js").as_uri()), path=json.dumps(str(path)),
                           url=json.dumps(url), token=json.dumps("not-a-token"))
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode != 0
    assert "the recorder answered 401" in done.stderr


def test_an_empty_batch_reports_every_count_the_service_reports(node: str) -> None:
    """A batch with nothing to send is answered by the library itself: its summary has the
    service's counts (``superseded`` was missing), so a client reads both alike."""
    from recorder.ingest import Tally

    script = (f"import {{ upload }} from {json.dumps((JS / 'index.js').as_uri())};\n"
              "const r = await upload([], { url: 'http://127.0.0.1:9', token: 't' });\n"
              "console.log(JSON.stringify(r.summary));")
    done = subprocess.run([node, "--input-type=module", "-e", script], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == Tally().as_dict()
