"""The warehouse answers every stats URL as the SQLite store does, holding the same games.

One archive per module: the sample games and simulated games of every preset (options,
two to four players, three frontends, dates over three months and some logs without a
date, players whose ids and names need care: accents, capitals, ``%`` and ``_``, a name
given and then left out). It is stored three ways, each by its real command: ``recorder
import`` into SQLite; ``recorder batch facts`` (two workers) into one folder; ``recorder
export --parquet`` of that SQLite store into another. (The store's games are then given
the time the batch stored its games at: a game without a date of its own is dated by
it, so the two hold the same rows.) Every stats URL is then asked of
the three, with every filter alone, every pair of filters, some triples and all of them,
and the answers are compared key for key (numbers to 1e-9: sums taken in another order).
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("duckdb")

from click.testing import CliRunner
from conftest import make_game, subprocess_env, write_jsonl

from recorder import batch, parquet, storage, warehouse
from recorder.cli import main
from webui import create_app

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_games"
MIX: list[tuple[Any, int, int]] = [
    ("spilop", 2, 3), ("spilop", 3, 2), ("spilop", 4, 2),
    ({"preset": "spilop", "options": {"bonus": True}}, 3, 8),
    ({"preset": "spilop", "options": {"bonus": True}}, 2, 3),
    ("classic", 2, 8), ("classic", 3, 2), ("classic", 4, 2),
    ({"preset": "classic", "options": {"draw": "one"}}, 3, 3),
    ({"preset": "classic", "options": {"partnerships": True}}, 4, 2),
    ("kozel", 2, 2), ("kozel", 3, 2),
    ({"preset": "kozel", "options": {"partnerships": True}}, 4, 2),
    ("italian", 2, 2), ("italian", 3, 2), ("norwegian", 2, 3),
    ("openspiel-block", 2, 2), ("openspiel-team", 4, 2), ("dominoes-partners", 4, 2),
    ("all-fives", 2, 3),
]
"""(ruleset, players, games): every preset, its options, two to four players."""
FRONTENDS = ("front-a", "front-b", "table-app")
DAYS = ("2026-09-03T08:00:00Z", "2026-09-15T23:59:59Z", "2026-09-30T12:00:00Z",
        "2026-10-01T00:00:00Z", "2026-10-14T17:30:00Z", "2026-10-31T22:00:00Z",
        "2026-11-02T09:15:00Z", "2026-11-16T11:00:00Z", "2026-11-29T20:45:00Z", None)
PEOPLE = [("Émile", "Émile Zola"), ("ZOË_9", "Zoë"), ("per%cent", "Per Cent"),
          ("nomen", "Nomen Nescio")]
"""Players put in some seats: an accent (which SQLite's LIKE does not fold), capitals,
the characters LIKE treats specially, and ``nomen``, whose later logs give no name."""
TODAY = datetime.now(UTC).strftime("%Y-%m-%d")
CONFIG = {"TESTING": True, "RATELIMIT_ENABLED": False}
"""The apps asked: a thousand asks a minute of one client address is the test's, not abuse."""


def simulated() -> list[dict[str, Any]]:
    docs = []
    for i, (ruleset, players, count) in enumerate(MIX):
        for k in range(count):
            n = len(docs)
            doc = make_game(f"wh-{i}-{k}", ruleset=ruleset, players=players,
                            frontend=FRONTENDS[n % len(FRONTENDS)],
                            started_at=DAYS[n % len(DAYS)])
            if n % 3 == 0:
                pid, name = PEOPLE[(n // 3) % len(PEOPLE)]
                doc["players"][n % players] = {"id": pid, "name": name}
                if pid == "nomen" and n > 30:
                    doc["players"][n % players] = {"id": pid}
            docs.append(doc)
    return docs


def _stored_at(db: Path, out: Path) -> bool:
    """Give the store's games the time the batch stored its own at, as the folder holds
    them (a game without a date is dated by it: the pages show it); False when the two
    stored them on different days (midnight passed), which the counters count apart."""
    import sqlite3

    (when,) = set(parquet.read_dataset(str(out), "games", ["imported_at"])
                  .column("imported_at").to_pylist())
    with sqlite3.connect(db) as conn:
        days = {r[0][:10] for r in conn.execute("SELECT imported_at FROM games")}
        conn.execute("UPDATE games SET imported_at = ?, played_at = coalesce(started_at, ?)",
                     [when, when])
    return days == {when[:10]}


@pytest.fixture(scope="module")
def stores(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The archive stored three ways; the apps that read each (one SQLite file for all)."""
    for _ in range(2):  # again if the store and the batch fell on two days (midnight)
        folder = tmp_path_factory.mktemp("warehouse")
        sources = [str(SAMPLES), str(write_jsonl(folder / "simulated.jsonl", simulated()))]
        db = folder / "recorder.db"
        result = CliRunner().invoke(main, ["import", "--db", str(db), *sources],
                                    catch_exceptions=False)
        assert result.exit_code == 0, result.output
        done = subprocess.run(
            [sys.executable, "-m", "recorder.cli", "batch", "facts", *sources, "--out",
             str(folder / "batch"), "--workers", "2", "--shard-bytes", "65536"],
            cwd=folder, env=subprocess_env(), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        same_day = _stored_at(db, folder / "batch")
        result = CliRunner().invoke(main, ["export", "--parquet", str(folder / "export"),
                                           "--db", str(db)], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        if same_day:
            break
    apps = {"sqlite": create_app({**CONFIG, "DATABASE": str(db)})}
    for name in ("batch", "export"):
        apps[name] = create_app({**CONFIG, "DATABASE": str(db),
                                 "WAREHOUSE": str(folder / name)})
    return {"folder": folder, "db": db, "sources": sources,
            "clients": {name: app.test_client() for name, app in apps.items()}}


# ---------------------------------------------------------------------------------------
# The asks.

VALUES: dict[str, list[str]] = {
    "preset": ["classic", "spilop", "kozel", "all-fives", "nope"],
    "variant": ["spilop bonus=true", "classic", "classic draw=one",
                "kozel partnerships=true"],
    "frontend": ["front-a", "table-app", "test-frontend", "nope"],
    "players": ["2", "3", "4"],
    "player": ["ingaan", "Émile", "nomen", "nobody"],
    "since": ["2026-09-15", "2026-10-01", "2026-11-03", TODAY],
    "until": ["2026-10-31", "2026-11-20", "2026-09-30"],
}
"""Values of every filter: some that select much, some little, some nothing."""
FIGURES = ("/api/stats/bonus", "/api/stats/blocked", "/api/stats/variants",
           "/api/stats/players")


def combinations() -> list[dict[str, str]]:
    """No filter; each filter alone with each of its values; every pair of filters (two
    value choices each); some triples; all seven at once."""
    out: list[dict[str, str]] = [{}]
    out += [{name: v} for name, values in VALUES.items() for v in values]
    names = list(VALUES)
    for a, b in itertools.combinations(names, 2):
        out.append({a: VALUES[a][0], b: VALUES[b][0]})
        out.append({a: VALUES[a][-1 if a != "since" else 1], b: VALUES[b][1]})
    for a, b, c in (("preset", "players", "since"), ("variant", "frontend", "until"),
                    ("player", "since", "until"), ("preset", "player", "until"),
                    ("frontend", "players", "player")):
        out.append({a: VALUES[a][0], b: VALUES[b][0], c: VALUES[c][0]})
    out.append({"preset": "classic", "frontend": "front-a", "players": "2",
                "player": "ingaan", "since": "2026-09-01", "until": "2026-11-30"})
    out.append({name: values[0] for name, values in VALUES.items()})
    return out


def asks() -> list[tuple[str, dict[str, str]]]:
    """Every stats URL with the filter combinations, and the answers that are errors."""
    out: list[tuple[str, dict[str, str]]] = [("/api/stats", {}), ("/api/stats",
                                                                   {"preset": "classic"})]
    for flt in combinations():
        out += [(url, flt) for url in FIGURES]
        without_variant = {k: v for k, v in flt.items() if k != "variant"}
        for a, b in (("classic", "spilop bonus=true"), ("classic", "classic draw=one")):
            out.append(("/api/stats/compare", {**without_variant, "a": a, "b": b}))
    for player in ("ingaan", "Émile", "nomen", "per%cent", "kfnielsen"):
        for flt in combinations()[::3]:
            if "player" not in flt:
                out.append((f"/api/stats/players/{player}", flt))
    for q in ("in", "IN", "é", "É", "émile", "ÉMILE", "%", "_", "per%", "Zo", "zz"):
        out.append(("/api/stats/people", {"q": q}))
    out += [  # errors answer alike too
        ("/api/stats/players/nobody", {}), ("/api/stats/players/ingaan", {"player": "x"}),
        ("/api/stats/compare", {"a": "classic", "b": "nope"}),
        ("/api/stats/compare", {"a": "classic", "b": "classic"}),
        ("/api/stats/compare", {"a": "classic"}), ("/api/stats/bonus", {"players": "9"}),
        ("/api/stats/blocked", {"since": "yesterday"}),
        ("/api/stats/variants", {"since": "2026-11-01", "until": "2026-10-01"}),
        ("/api/stats/players", {"colour": "red"}), ("/api/stats/people", {"q": ""}),
    ]
    return out


def differences(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two answers differ, key for key; numbers of type float to 1e-9."""
    if isinstance(a, dict) and isinstance(b, dict):
        if a.keys() != b.keys():
            return [f"{path}: keys {sorted(set(a) ^ set(b))}"]
        return [d for key in a for d in differences(a[key], b[key], f"{path}.{key}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items against {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{path}[{i}]")]
    if isinstance(a, float) and isinstance(b, float):
        if math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12):
            return []
    elif type(a) is type(b) and a == b:
        return []
    return [f"{path}: {a!r} against {b!r}"]


def compare_all(clients: dict[str, Any], which: str) -> tuple[int, list[str]]:
    found: list[str] = []
    answered = 0
    for url, args in asks():
        base = clients["sqlite"].get(url, query_string=args)
        other = clients[which].get(url, query_string=args)
        answered += base.status_code == 200
        where = f"{url}?{args}"
        if base.status_code != other.status_code:
            found.append(f"{where}: status {base.status_code} against {other.status_code}")
            continue
        found += [f"{where} {d}" for d in differences(base.get_json(), other.get_json())]
    return answered, found


@pytest.mark.parametrize("which", ["batch", "export"])
def test_every_stats_url_answers_as_the_sqlite_store_does(stores: dict[str, Any],
                                                          which: str) -> None:
    answered, found = compare_all(stores["clients"], which)
    assert not found, f"{len(found)} differences, the first: " + "\n".join(found[:12])
    assert answered > 500  # figures, not only refusals


def test_the_asks_see_figures_not_just_empty_answers(stores: dict[str, Any]) -> None:
    """The comparison means something: the figures are there, and the filters narrow."""
    c = stores["clients"]["batch"]
    everything = c.get("/api/stats/bonus").get_json()["data"]
    assert everything["bonus_plays"] > 50 and everything["share"] is not None
    assert everything["missed"]["examples"] and everything["top_scorers"]
    narrowed = c.get("/api/stats/bonus", query_string={"player": "ingaan"}).get_json()["data"]
    assert 0 < narrowed["plays"] < everything["plays"]
    ranged = c.get("/api/stats/blocked", query_string={
        "since": "2026-09-15", "until": "2026-10-31"}).get_json()["data"]
    whole = c.get("/api/stats/blocked").get_json()["data"]
    assert 0 < ranged["rounds"] < whole["rounds"]
    variants = c.get("/api/stats/variants").get_json()["data"]["variants"]
    shown = [v for v in variants if v["figures"]["blocked_share"]["value"] is not None]
    assert len(variants) >= 15 and len(shown) >= 3
    people = c.get("/api/stats/people", query_string={"q": "É"}).get_json()["data"]
    assert [p["id"] for p in people["players"]] == ["Émile"]
    # as SQLite's LIKE, only ASCII letters are folded: "é" is not in "Émile" nor "Émile Zola"
    assert c.get("/api/stats/people", query_string={"q": "é"}).get_json()["data"][
        "players"] == []
    assert {p["id"] for p in c.get("/api/stats/people", query_string={"q": "zo"})
            .get_json()["data"]["players"]} == {"ZOË_9", "Émile"}  # ZOË_9 and Émile Zola
    nomen = c.get("/api/stats/players/nomen").get_json()["data"]["player"]
    assert nomen["name"] == "Nomen Nescio"  # the latest name given, not the nameless logs


def test_a_second_run_adds_its_games_and_is_read_without_a_restart(
        stores: dict[str, Any], tmp_path: Path) -> None:
    """Batch again over the same sources and a new file: the new games' counters are a
    file of their own, summed with the first run's; the open app sees them, and answers
    as the store that imported the same file does."""
    folder: Path = stores["folder"]
    out = tmp_path / "again"
    subprocess.run(["cp", "-r", str(folder / "batch"), str(out)], check=True)
    db = tmp_path / "again.db"
    db.write_bytes(stores["db"].read_bytes())
    sqlite = create_app({**CONFIG, "DATABASE": str(db)}).test_client()
    served = create_app({**CONFIG, "DATABASE": str(db), "WAREHOUSE": str(out)})
    client = served.test_client()
    before = client.get("/api/stats/blocked").get_json()["data"]["rounds"]
    extra = [make_game(f"again-{i}", ruleset="classic", players=2,
                       started_at="2026-10-20T10:00:00Z") for i in range(6)]
    extra[0]["players"][0] = {"id": "nomen"}  # no name again: the first run's stays
    new = str(write_jsonl(tmp_path / "new.jsonl", extra))
    result = CliRunner().invoke(main, ["import", "--db", str(db), new],
                                catch_exceptions=False)
    assert result.exit_code == 0, result.output
    done = subprocess.run(
        [sys.executable, "-m", "recorder.cli", "batch", "facts", *stores["sources"], new,
         "--out", str(out), "--workers", "1"],
        cwd=tmp_path, env=subprocess_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "6 accepted" in done.stdout
    runs = sorted(p.name for p in (out / "stats_rounds").glob("part-run-*.parquet"))
    assert len(runs) == 2
    after = client.get("/api/stats/blocked").get_json()["data"]["rounds"]
    assert after == before + sum(len(d["rounds"]) for d in extra)
    found = []
    for url, args in asks()[::4]:
        a, b = sqlite.get(url, query_string=args), client.get(url, query_string=args)
        found += [f"{url} {args} {d}" for d in differences(a.get_json(), b.get_json())]
    assert not found, "\n".join(found[:10])


class Stopped(BaseException):
    """The client stopped, as by a kill: nothing of the run catches it."""


def test_a_run_stopped_before_its_counters_are_written_writes_them_when_run_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The client stopped after publishing every shard, in the middle of writing the
    run's counters: the same command again writes them, the same as an unstopped run."""
    import pyarrow.parquet as pq
    from distributed import Client, LocalCluster

    sources = [str(SAMPLES)]
    real = warehouse.roll_up
    calls = []

    def stopped(fs: Any, root: str, parts: Any, tag: str, **kw: Any) -> Any:
        calls.append(tag)
        if len(calls) == 1:  # one table written, then the client is gone
            real(fs, root, {"stats_rounds": parts["stats_rounds"],
                            "stats_players": parts["stats_players"]}, tag, **kw)
            raise Stopped
        return real(fs, root, parts, tag, **kw)

    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                      dashboard_address=batch.LOOPBACK) as local, Client(local) as client:
        whole = batch.run(sources, str(tmp_path / "whole"), "facts", client=client)
        monkeypatch.setattr(warehouse, "roll_up", stopped)
        with pytest.raises(Stopped):
            batch.run(sources, str(tmp_path / "stopped"), "facts", client=client)
        assert (tmp_path / "stopped" / "_batch" / "commit.json").exists()
        assert (tmp_path / "stopped" / "stats_players" / f"part-{calls[0]}.parquet").exists()
        again = batch.run(sources, str(tmp_path / "stopped"), "facts", client=client)
    assert whole.tally.accepted == again.tally.accepted > 100
    assert calls == [calls[0]] * 2  # the same run: the same files, written again whole
    for name in parquet.COUNTERS:
        rows = {}
        for which in ("whole", "stopped"):
            files = sorted((tmp_path / which / name).glob("part-run-*.parquet"))
            assert len(files) == 1, (which, name)
            table = pq.read_table(files[0])
            # the time the run stored its games at, and the day of the undated ones
            table = table.drop_columns([c for c in ("period", "day", "played_at", "value")
                                        if c in table.column_names])
            rows[which] = sorted(map(repr, table.to_pylist()))
        assert rows["whole"] == rows["stopped"], name


@pytest.mark.parametrize("make, message", [
    (lambda p: p.mkdir(), "holds no datasets of 'recorder batch facts'"),
    (lambda p: batch.open_state(*parquet.filesystem(str(p)), "replay"),
     "holds the verdicts of 'batch replay'"),
    (lambda p: _without_counters(p), "holds no statistics' counters"),
])
def test_a_folder_the_pages_cannot_read_is_refused_in_words(
        tmp_path: Path, make: Any, message: str) -> None:
    folder = tmp_path / "dir"
    make(folder)
    with pytest.raises(warehouse.WarehouseError, match=message):
        create_app({**CONFIG, "DATABASE": str(tmp_path / "r.db"),
                    "WAREHOUSE": str(folder)})
    result = CliRunner().invoke(main, ["serve", "--db", str(tmp_path / "serve.db"),
                                       "--warehouse", str(folder)])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "serve.db").exists()  # refused before anything was made


def _without_counters(folder: Path) -> None:
    """A folder of facts as the batch wrote it before the counters were kept."""
    batch.open_state(*parquet.filesystem(str(folder)), "facts")
    for name in parquet.COUNTERS:
        for path in (folder / name).glob("*"):
            path.unlink()
        (folder / name).rmdir()


def test_an_empty_warehouse_answers_as_an_empty_store(tmp_path: Path) -> None:
    batch.open_state(*parquet.filesystem(str(tmp_path / "empty")), "facts")
    storage.connect(tmp_path / "r.db").close()
    sqlite = create_app({**CONFIG, "DATABASE": str(tmp_path / "r.db")}).test_client()
    served = create_app({**CONFIG, "DATABASE": str(tmp_path / "r.db"),
                         "WAREHOUSE": str(tmp_path / "empty")}).test_client()
    for url in ("/api/stats", *FIGURES):
        a, b = sqlite.get(url), served.get(url)
        assert a.status_code == b.status_code == 200
        assert not differences(a.get_json(), b.get_json()), url
    index = served.get("/api/stats").get_json()["data"]
    assert index["counters"]["rebuild_needed"] is False


@pytest.mark.parametrize("how", ["serve", "create_app"])
def test_without_the_scale_extra_the_warehouse_says_what_to_install(
        tmp_path: Path, how: str) -> None:
    if how == "serve":
        call = (f"from recorder.cli import main\n"
                f"main(['serve', '--no-samples', '--warehouse', {str(tmp_path)!r}])\n")
    else:
        call = "import webui\nwebui.create_app()\n"
    code = ("import sys\n"
            "for name in ('duckdb', 'pyarrow'):\n"
            "    sys.modules[name] = None\n" + call)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True,
        timeout=120, env=subprocess_env(RECORDER_WAREHOUSE=str(tmp_path),
                                        RECORDER_DB=str(tmp_path / "r.db")))
    assert done.returncode != 0
    assert "pip install 'domino-recorder[scale]'" in done.stderr
    if how == "serve":
        assert done.returncode == 3
        assert len(done.stderr.splitlines()) == 1
    else:  # the app's factory fails with the same words (at the end of its traceback)
        assert done.stderr.strip().splitlines()[-1].startswith("RuntimeError: WAREHOUSE")


def _rows(folder: Path, name: str) -> Iterator[dict[str, Any]]:
    import pyarrow.parquet as pq

    for path in sorted((folder / name).glob("*.parquet")):
        yield from pq.read_table(path).to_pylist()


def test_the_counters_datasets_hold_the_stores_tables(stores: dict[str, Any]) -> None:
    """The export copies each counter table row for row, and the batch's rows sum to the
    same; the layout's types are the datasets' (every file reads with its schema)."""
    import sqlite3

    folder: Path = stores["folder"]
    with sqlite3.connect(stores["db"]) as conn:
        for name in ("stats_rounds", "stats_seats", "stats_missed"):
            cols = parquet.COUNTERS[name].names
            stored = sorted(conn.execute(f"SELECT {', '.join(cols)} FROM {name}"))
            exported = sorted(tuple(r.values()) for r in _rows(folder / "export", name))
            assert exported == stored, name
    for which in ("batch", "export"):
        for name, schema in parquet.COUNTERS.items():
            import pyarrow.parquet as pq

            for path in (folder / which / name).glob("*.parquet"):
                assert pq.read_schema(path).remove_metadata() == schema, (which, name)
    meta = list(_rows(folder / "batch", "stats_meta"))
    assert meta == [{"key": "counters", "value": storage.COUNTERS_VERSION}]
    assert json.loads((folder / "batch" / "_batch" / "state.json").read_text())["kind"] == \
        "facts"


@pytest.mark.parametrize("which", ["sqlite", "batch"])
def test_a_players_latest_games_are_those_of_one_read_of_all_their_games(
        stores: dict[str, Any], which: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The latest games are read in growing windows of the player's games: with a window
    of a few games, the filters that pass few of them need several, and the answer is
    still the latest games that pass, as one join of all of them gives."""
    from webui import api_stats
    from webui.db import get_stats

    monkeypatch.setattr(api_stats, "HISTORY", 3)
    app = stores["clients"][which].application
    windows: list[int] = []
    for flt in ({}, {"preset": "kozel"}, {"players": "4"}, {"until": "2026-09-30"},
                {"frontend": "nope"}, {"variant": "classic draw=one", "players": "3"}):
        with app.test_request_context("/api/stats/bonus", query_string=flt):
            sf = api_stats.stats_filter()
            db = get_stats()
            where, params = api_stats.query.where(sf, api_stats.query.games_as("g"),
                                                  db.dialect)
            every = [r[0] for r in db.rows(
                "SELECT g.id FROM players p JOIN games g ON g.id = p.game WHERE "
                f"p.player_id = ? AND {where} ORDER BY p.game DESC", ["ingaan", *params])]
            theirs = [r[0] for r in db.rows(
                "SELECT game FROM players WHERE player_id = ? ORDER BY game DESC", ["ingaan"])]
            got = api_stats._player_games(db, "ingaan", sf)
            assert sorted(g["game"] for g in got) == sorted(every[:3]), flt
            assert len(got) == min(3, len(every))
            windows.append(theirs.index(every[2]) if len(every) >= 3 else len(theirs))
    assert len(theirs) > 30  # more than one window of 30 games: 30, then all
    assert max(windows) >= 30  # some filter passed fewer than 3 of the latest 30
