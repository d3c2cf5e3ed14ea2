"""The ``recorder`` command line: replay, validate and simulate logs, and run the service.

Library errors become clean messages here, at the edge; exit codes follow the
contract: 0 when every game is valid, 1 when any is invalid, 2 when an input
cannot be read at all, 3 when the recorder itself failed on a document (a bug,
answered as that document's ``internal/...`` refusal while the others go on).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
from collections.abc import Iterator
from typing import Any, Final

import click

import recorder
from recorder import jsontext
from recorder.errors import (
    InputError,
    InstallationError,
    RecorderError,
    RulesetError,
    internal_error,
)
from recorder.replay import (
    MoveEvent,
    RoundEnd,
    RoundStart,
    invalid_answer,
    number,
    open_game,
    replay,
    walk,
)
from recorder.rules import OPTIONS, PRESETS, Ruleset

EXIT_OK, EXIT_INVALID, EXIT_UNREADABLE, EXIT_FAILED = 0, 1, 2, 3
log = logging.getLogger(__name__)


class _Inputs:
    """The documents of the given paths, one engine answer each, as lines to print.

    The main process reads the inputs in order; the replay, and the text printed for
    each document, are made by ``workers`` processes (0: here), and come back in input
    order, so the output is the same whatever their number. An input that cannot be
    read at all is reported on stderr in its place and remembered, so the command can
    exit 2 after answering for everything it could read. A failure of the recorder
    itself on one document (an exception nobody expected) becomes that document's
    ``internal/...`` answer and is remembered for exit code 3.
    """

    def __init__(self, paths: tuple[str, ...], mode: str, workers: int) -> None:
        self.paths = paths
        self.mode = mode
        self.workers = workers
        self.unreadable = False
        self.failed = False

    def results(self) -> Iterator[list[tuple[str, str]]]:
        """(text to print, engine status) for every document of every input, in order,
        a chunk at a time: the caller prints a chunk with one write, not one a game."""
        from recorder.pool import chunked, ordered_map

        items = _wire_inputs(self.paths)
        if self.workers <= 0:
            chunks: Iterator[list[_Wire]] = ([_answer(item, self.mode)] for item in items)
        else:
            chunks = ordered_map(_answer_chunk,
                                 chunked(items, _wire_size, max_items=ANSWER_CHUNK_ITEMS),
                                 self.workers, initializer=_start_answers,
                                 initargs=(self.mode,))
        try:
            for chunk in chunks:
                done: list[tuple[str, str]] = []
                for answer in chunk:
                    if answer[0] == "unreadable":
                        if done:  # what came before is printed before the complaint
                            yield done
                            done = []
                        _, path, why, failed = answer
                        click.echo(f"recorder: cannot read {path}: {why}", err=True)
                        self.unreadable = True
                        self.failed |= failed
                        continue
                    _, text, status, failed = answer
                    self.failed |= failed
                    done.append((text, status))
                if done:
                    yield done
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()  # the workers stop now, not at the program's exit

    def exit_code(self, any_invalid: bool) -> int:
        if self.failed:
            return EXIT_FAILED
        if self.unreadable:
            return EXIT_UNREADABLE
        return EXIT_INVALID if any_invalid else EXIT_OK


_Wire = tuple[Any, ...]
"""What goes to and from a worker: plain tuples, nothing of the engine."""
ANSWER_CHUNK_ITEMS = 48
"""Documents sent to a worker at once (or 512 KiB of them): a replay is quick, so the
cost of each chunk's round trip counts; 48 spends a quarter less of the main process's
time on it than 16, and still splits a corpus into many chunks."""
_mode = "transcript"


def _wire_inputs(paths: tuple[str, ...]) -> Iterator[_Wire]:
    """Every input's documents in order (lines of JSON Lines unparsed), or why it is unreadable."""
    from recorder.parse import RawLine, iter_path_raw

    for path in paths:
        try:
            for item in iter_path_raw(path):
                if isinstance(item, RawLine):
                    yield ("line", path, item.index, item.number, item.offset, item.chunk)
                else:
                    error = None if item.error is None else item.error.to_dict()
                    yield ("doc", path, item.line, item.doc, error)
        except InputError as exc:
            yield ("unreadable", path, exc.message, False)
        except OSError as exc:
            yield ("unreadable", path, exc.strerror or str(exc), False)
        except Exception as exc:  # a bug of the parser: the other inputs still go on
            log.exception("reading %s failed", path)
            yield ("unreadable", path, internal_error(exc, "parse").message, True)


def _wire_size(item: _Wire) -> int:
    return len(item[5]) if item[0] == "line" else 4096


def _start_answers(mode: str) -> None:
    global _mode
    _mode = mode


def _answer_chunk(chunk: list[_Wire]) -> list[_Wire]:
    """A worker's job: the answers of a chunk of documents."""
    return [_answer(item, _mode) for item in chunk]


def _answer(item: _Wire, mode: str) -> _Wire:
    """``("doc", text, status, failed)`` for a document; an unreadable input passes through.

    ``mode`` is what is printed: ``json`` (the engine's answer), ``transcript``, or a
    line of ``validate`` (``strict``: an unfinished game is a failure).
    """
    from recorder.parse import RawLine, parse_line

    if item[0] == "unreadable":
        return item
    if item[0] == "line":
        path = item[1]
        parsed = parse_line(RawLine(*item[2:]))
        line, doc, error = parsed.line, parsed.doc, parsed.error
    else:
        _, path, line, doc, wire_error = item
        error = None if wire_error is None else RecorderError(
            wire_error["message"], round=wire_error["round"], move=wire_error["move"],
            pointer=wire_error.get("pointer"), code=wire_error["code"])
    where = path if line is None else f"{path}:{line}"
    failed = False
    if error is not None:
        answer = invalid_answer(doc, error)
    else:
        answer = replay(doc)
        code = (answer.get("error") or {}).get("code", "")
        failed = isinstance(code, str) and code.startswith("internal/")
    try:
        if mode == "json":
            text = answer_json(answer)
        elif mode == "transcript":
            text = transcript(doc, answer, where)
        else:
            text = _validate_line(where, answer, doc, strict=mode == "strict")
            if mode == "strict" and answer["status"] == "finished" and answer.get("mismatches"):
                return ("doc", text, "claims", failed)  # a verdict of --strict alone
    except Exception as exc:
        log.exception("writing out the answer for %s failed", where)
        failed = True
        output_error = internal_error(exc, "output")
        text = json.dumps(invalid_answer(doc, output_error), ensure_ascii=False) \
            if mode == "json" else f"{where}: invalid: {output_error.message}"
    return ("doc", text, answer["status"], failed)


_PLAIN_KEYS: Final = frozenset({"game_id", "status", "rounds", "scores", "winners"})
"""The keys of a valid answer whose values hold no text but ``game_id`` and ``status``
(rounds, scores and winners are numbers, lists and flags the engine made)."""
_NOT_PLAIN: Final = re.compile(r'[,:"\\]')


def answer_json(answer: dict[str, Any]) -> str:
    """``json.dumps(answer, ensure_ascii=False)``: the answer as ``replay --json`` prints it.

    A valid answer with plain text (no comma, colon, quote or backslash in its id)
    is written by orjson, compactly, and spaced after the fact: then every comma and
    colon in the text is the JSON's own. ``tests/test_cli.py`` holds the two to the
    same bytes. Anything else goes to the stdlib.
    """
    game_id = answer.get("game_id")
    if answer.keys() <= _PLAIN_KEYS and isinstance(game_id, str) and \
            not _NOT_PLAIN.search(game_id):
        fast = jsontext.fast_dumps(answer)
        if fast is not None:
            return fast.replace(b",", b", ").replace(b":", b": ").decode("utf-8")
    return json.dumps(answer, ensure_ascii=False)


def _workers_option(func: Any) -> Any:
    return click.option(
        "--workers", type=click.IntRange(0, 256), default=None, metavar="N",
        help="Worker processes that replay the games [default: one per core; 0: all in "
             "this process]; the output is the same, in input order.")(func)


def _resolve_workers(workers: int | None) -> int:
    from recorder.pool import default_workers

    return default_workers() if workers is None else workers


def _import_sqlite_utils_without_numpy() -> None:
    """Import sqlite-utils with numpy and pandas hidden, unless numpy is loaded already.

    sqlite-utils imports both when they are installed (the ``scale`` extra's pyarrow
    brings numpy), only to map their scalar types to column types, and the recorder
    never hands it either: every value it stores is a Python int, float, str, bytes or None.
    numpy's import, with the threads its BLAS starts, is about 0.15 s of CPU and 0.06 s
    before a command can start its work: a few percent of a 20,000-round ``import``
    (docs/benchmarks.md, *The start without numpy*).
    Hidden only while sqlite-utils is imported, so anything that needs numpy later
    (dask, pyarrow, DuckDB) imports it as usual.
    """
    if "numpy" in sys.modules or "sqlite_utils" in sys.modules:
        return
    hidden = ("numpy", "pandas")
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes its import fail
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name, 0) is None:
                del sys.modules[name]


class _Main(click.Group):
    """The ``recorder`` group; the service's commands are mounted when first asked for.

    They bring sqlite-utils, tqdm and the web stack, about a quarter of a second of
    imports that ``replay``, ``validate`` and ``deal`` never need.
    """

    _service_mounted = False

    def _mount_service(self) -> None:
        if not self._service_mounted:
            self._service_mounted = True
            _import_sqlite_utils_without_numpy()
            from recorder.cli_service import register

            register(self)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        found = super().get_command(ctx, cmd_name)
        if found is None and not self._service_mounted:
            self._mount_service()
            found = super().get_command(ctx, cmd_name)
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._mount_service()
        return super().list_commands(ctx)


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="domino-recorder",
                      message=f"%(prog)s %(version)s\n{recorder.build_text()}")
def main() -> None:
    """Record, verify and replay domino games written as domino-log/1.

    \b
    Examples:
      recorder replay game.json              a move-by-move transcript
      recorder replay --json games.jsonl     the engine's answer, one JSON line a game
      recorder validate logs/*.json.gz       ok / invalid, with the reason
      recorder simulate --preset spilop -o bonus=true --games 10 > games.jsonl
      recorder deal abc --round 1 --preset spilop --players 2
    """
    # The schema is ours: if the installation lost it, say so now, before any input
    # file can be blamed for it.
    try:
        import recorder.schema  # noqa: F401
    except InstallationError as exc:
        click.echo(f"recorder: {exc}", err=True)
        sys.exit(EXIT_FAILED)


@main.command("replay")
@click.option("--json", "as_json", is_flag=True, help="Print the engine's answer as JSON Lines.")
@_workers_option
@click.argument("files", nargs=-1, required=True)
def replay_cmd(as_json: bool, workers: int | None, files: tuple[str, ...]) -> None:
    """Replay every game in FILES ('-' for stdin; JSON, array, JSON Lines, gzip).

    \b
    Examples:
      recorder replay game.json
      recorder replay --json games.jsonl.gz | jq .status
      cat game.json | recorder replay -
    """
    inputs = _Inputs(files, "json" if as_json else "transcript", _resolve_workers(workers))
    invalid = False
    with _worker_failure(), contextlib.closing(inputs.results()) as results:
        for chunk in results:
            invalid |= any(status == "invalid" for _, status in chunk)
            click.echo("\n".join(text for text, _ in chunk))
    sys.exit(inputs.exit_code(invalid))


@main.command("validate")
@click.option("--strict", is_flag=True,
              help="Count a game that ends unfinished, or claims a figure that differs from "
                   "the engine's, as a failure (exit 1).")
@_workers_option
@click.argument("files", nargs=-1, required=True)
def validate_cmd(strict: bool, workers: int | None, files: tuple[str, ...]) -> None:
    """Check every game in FILES; one line a game, exit 1 if any is invalid.

    A game that ends before anyone reaches the target is valid but unfinished, and a
    game whose claimed results (points, bonus, winners, scores) differ from the
    engine's is valid but mis-scored: each gets a warning that names the first
    differing figure, and with --strict it fails (a logger that stops early, or scores
    otherwise than the engine, shows up here).

    \b
    Examples:
      recorder validate sample_games/*.json
      recorder validate --strict mygame.json
    """
    inputs = _Inputs(files, "strict" if strict else "validate", _resolve_workers(workers))
    invalid = False
    counts = {"finished": 0, "unfinished": 0, "invalid": 0, "claims": 0}
    with _worker_failure(), contextlib.closing(inputs.results()) as results:
        for chunk in results:
            for _, status in chunk:
                counts[status] += 1
                invalid |= status == "invalid" or (strict and status in ("unfinished",
                                                                          "claims"))
            click.echo("\n".join(text for text, _ in chunk))
    differ = f", {counts['claims']} whose claims differ" if counts["claims"] else ""
    click.echo(f"{counts['finished']} finished, {counts['unfinished']} unfinished, "
               f"{counts['invalid']} invalid{differ}", err=True)
    sys.exit(inputs.exit_code(invalid))


@main.command("review")
@click.option("--json", "as_json", is_flag=True,
              help="Print each game's review as one JSON line (docs/review.md).")
@click.option("--view", type=click.Choice(["player", "perfect"]), default="player",
              show_default=True, help="What the mover is taken to know: their own hand "
              "and what the table showed (player), or every hand and the boneyard (perfect).")
@click.option("--samples", type=click.IntRange(1, 1000), default=None, metavar="N",
              help="Deals of the unseen tiles solved per decision, at most, in the player "
                   "view [default: 24].")
@click.option("--seed", default="review", show_default=True,
              help="Seeds the player view's deals: the same seed, the same review.")
@click.option("--no-progress", is_flag=True, help="No progress bar on standard error.")
@click.option("--db", "db_path", type=click.Path(dir_okay=False), default=None, metavar="PATH",
              help="Instead of FILES: review the stored games of this database that need "
                   "it and store each round (docs/review.md, Stored reviews).")
@_workers_option
@click.argument("files", nargs=-1)
def review_cmd(as_json: bool, view: str, samples: int | None, seed: str, no_progress: bool,
               db_path: str | None, workers: int | None, files: tuple[str, ...]) -> None:
    """Judge every decision of the games in FILES: what each legal move was worth.

    A readable report per game (each player's accuracy, the biggest mistakes with the
    better move), or with --json one JSON line per game. The work per game is bounded
    (docs/review.md, "Limits").

    \b
    Examples:
      recorder review game.json
      recorder review --view perfect --json games.jsonl > reviews.jsonl
      recorder review --samples 64 --seed s1 sample_games/classic-2p.jsonl
      recorder review --db instance/recorder.db --workers 2
    """
    from recorder.cli_review import run
    from recorder.review import DEFAULT_SAMPLES, Settings

    settings = Settings(view=view, samples=samples or DEFAULT_SAMPLES, seed=seed)
    if db_path is not None or not files:
        from recorder.cli_reviews import review_db

        sys.exit(review_db(db_path, files, settings, workers, as_json=as_json,
                           progress=not no_progress))
    with _worker_failure():
        code = run(files, settings, _resolve_workers(workers), as_json,
                   progress=not no_progress)
    sys.exit(code)


@contextlib.contextmanager
def _worker_failure() -> Iterator[None]:
    """A worker that died: exit 3 with one clear line (the output so far stands)."""
    from recorder.pool import WorkerFailed

    try:
        yield
    except WorkerFailed as exc:
        click.echo(f"recorder: {exc}", err=True)
        sys.exit(EXIT_FAILED)


def _validate_line(where: str, answer: dict[str, Any], doc: Any = None, *,
                   strict: bool = False) -> str:
    """``name: ok (...)``, ``name: invalid: why``, ``name: unfinished: why`` or
    ``name: claims differ: which`` for one answer.

    An unfinished game and claimed figures that differ from the engine's get a warning
    (with ``strict``, they are the verdict), and claimed scores that part from the
    engine's get a second line saying after which round, and why.
    """
    from recorder.replay import claims_text, part_detail, part_text

    game_id = answer.get("game_id")
    name = game_id if isinstance(game_id, str) and game_id else where
    if answer["status"] == "invalid":
        return f"{name}: invalid: {answer['error']['message']}"
    done = len(answer["rounds"])
    line = f"{name}: ok ({answer['status']}, {done} round{'' if done == 1 else 's'})"
    ids = [p["id"] for p in doc["players"]] if isinstance(doc, dict) else []
    unfinished = answer["status"] == "unfinished" and isinstance(doc, dict)
    mismatches = answer.get("mismatches") or []
    warnings = []
    if unfinished:
        warnings.append(_unfinished_why(doc, answer))
    if mismatches and ids:
        warnings.append(claims_text(mismatches, ids))
    if warnings and strict:
        line = f"{name}: {'unfinished' if unfinished else 'claims differ'}: " + "; ".join(warnings)
    elif warnings:
        refused = " and ".join(x for x, on in (("unfinished games", unfinished),
                                               ("claims that differ", bool(mismatches))) if on)
        line += f"; warning: {'; '.join(warnings)} (--strict refuses {refused})"
    if answer.get("scores_differ") and ids:
        part = answer["scores_differ"]
        named = mismatches[0] if mismatches else None
        detail = part_detail(doc, answer["rounds"], part, ids, named)
        line += f"\n  {part_text(part, ids, detail)}"
    return line


def _unfinished_why(doc: dict[str, Any], answer: dict[str, Any]) -> str:
    """Why a valid game is unfinished: a round cut off, or nobody reached the target yet."""
    rules = Ruleset.from_spec(doc["ruleset"])
    done = len(answer["rounds"])
    if len(doc["rounds"]) > done:
        cut = f"round {done + 1} is cut off before its end"
    elif done == 0:
        return "the game has no rounds"
    else:
        cut = f"the log stops after round {done}"
    best = max(answer["scores"]) if answer["scores"] else 0
    shown = int(best) if float(best).is_integer() else f"{best:.2f}"
    return f"{cut}, and nobody has reached the target {rules.target} (highest score {shown})"


def _parse_option(text: str) -> tuple[str, Any]:
    if "=" not in text:
        raise click.BadParameter(f"{text!r}: write options as NAME=VALUE, like bonus=true")
    name, raw = text.split("=", 1)
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        value = raw
    return name.strip(), value


@main.command("simulate")
@click.option("--preset", type=click.Choice(list(PRESETS)), default="spilop", show_default=True)
@click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A ruleset option (repeatable), e.g. -o bonus=true -o target=150.")
@click.option("--players", type=click.IntRange(1, 8), default=None,
              help="Number of players (default: 2, or 4 with partnerships).")
@click.option("--games", type=click.IntRange(1), default=1, show_default=True)
@click.option("--seed", default="sim", show_default=True,
              help="Game seeds are SEED-1, SEED-2, ...")
@click.option("--bots", default=None, metavar="STYLE,...",
              help="One style a seat: random, heavy, doubles, bonus, blocker, review "
                   "(default: each player's own style).")
@click.option("--bot", default=None, metavar="STYLE",
              help="The same style for every seat, e.g. --bot review (the review's best "
                   "move: docs/review.md).")
@click.option("--explicit-deal", is_flag=True, help="Write each round's deal instead of relying "
              "on the seed.")
@click.option("--max-rounds", type=click.IntRange(1), default=200, show_default=True)
@click.option("--pretty", is_flag=True, help="Indented JSON (one document) instead of JSON Lines.")
@click.option("--engine", type=click.Choice(["openspiel", "dominoes", "all-fives"]),
              default=None, help="Let that engine play the games itself (its own rules and "
              "players; pip install -e '.[engines]'); with it only --players (openspiel: 2 "
              "block, 4 team), --games, --seed, --pretty, --series and -o target=N apply.")
@click.option("--series", is_flag=True, help="dominoes: a whole series to its target instead "
              "of one hand.")
def simulate_cmd(preset: str, options: tuple[str, ...], players: int | None, games: int,
                 seed: str, bots: str | None, bot: str | None, explicit_deal: bool,
                 max_rounds: int, pretty: bool, engine: str | None, series: bool) -> None:
    """Write complete games played by bots, as JSON Lines on stdout.

    \b
    Examples:
      recorder simulate --preset spilop -o bonus=true --players 3 --games 50 > spilop.jsonl
      recorder simulate --preset classic -o draw=one --bots heavy,random --pretty
      recorder simulate --preset kozel -o partnerships=true --players 4
      recorder simulate --preset classic --bots review,heavy --games 20
      recorder simulate --engine openspiel --players 4 --games 100 > team.jsonl
      recorder simulate --engine all-fives -o target=61 --games 20 > all-fives.jsonl
    """
    from recorder.simulate import RoundTooLong, simulate_game

    opts = dict(_parse_option(o) for o in options)
    if engine is not None:
        _simulate_engine(engine, opts, players, games, seed, series, pretty)
        return
    if series:
        raise click.UsageError("--series is for --engine dominoes")
    spec: str | dict[str, Any] = {"preset": preset, "options": opts} if opts else preset
    try:
        rules = Ruleset.from_spec(spec)
        n = players or (4 if rules.partnerships else 2)
        rules.check_players(n)
    except RulesetError as exc:
        raise click.UsageError(exc.message) from None
    if bot is not None and bots is not None:
        raise click.UsageError("give --bot (every seat) or --bots (one a seat), not both")
    styles = bots.split(",") if bots else [bot] * n if bot else None
    for i in range(1, games + 1):
        try:
            doc = simulate_game(spec, n, f"{seed}-{i}", styles, game_id=f"{seed}-{i}",
                                explicit_deal=explicit_deal, max_rounds=max_rounds)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        except RoundTooLong as exc:  # the engine's failure, not the user's: exit 3
            click.echo(f"recorder: {exc}", err=True)
            sys.exit(EXIT_FAILED)
        click.echo(json.dumps(doc, indent=2 if pretty else None, ensure_ascii=False))


@main.command("deal")
@click.argument("seed")
@click.option("--preset", type=click.Choice(list(PRESETS)), default="spilop", show_default=True)
@click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A ruleset option (repeatable), e.g. -o sets=2.")
@click.option("--players", type=click.IntRange(1, 8), required=True,
              help="Number of players.")
@click.option("--round", "round_no", type=click.IntRange(1), default=None,
              help="Deal round R of a game whose seed is SEED, from SEED/R.")
@click.option("--json", "as_json", is_flag=True, help="Print the deal as JSON.")
def deal_cmd(seed: str, preset: str, options: tuple[str, ...], players: int,
             round_no: int | None, as_json: bool) -> None:
    """Show the hands and boneyard the recorder deals from SEED.

    SEED is a round's seed as the recorder uses it; with --round R it is the game's
    seed, and the round is dealt from SEED/R as a log's round R without its own
    seed or deal is. Hands are in canonical order, the boneyard in draw order.

    \b
    Examples:
      recorder deal abc --round 1 --preset spilop --players 2
      recorder deal 'abc/1' --preset classic -o draw=one --players 3 --json
      recorder deal g-7 --round 2 --preset spilop -o sets=2 --players 4
    """
    from recorder.deal import deal_of

    opts = dict(_parse_option(o) for o in options)
    spec: str | dict[str, Any] = {"preset": preset, "options": opts} if opts else preset
    try:
        rules = Ruleset.from_spec(spec)
        rules.check_players(players)
    except RulesetError as exc:
        raise click.UsageError(exc.message) from None
    round_seed = f"{seed}/{round_no}" if round_no is not None else seed
    deal = deal_of(rules, players, round_seed)
    if as_json:
        click.echo(json.dumps(deal, ensure_ascii=False))
        return
    click.echo(f'deal of seed "{round_seed}": {rules.preset}, {players} players, '
               f"{deal['tiles_each']} tiles each")
    for seat, hand in enumerate(deal["hands"]):
        click.echo(f"  seat {seat}: {' '.join(hand)}")
    click.echo(f"  boneyard ({len(deal['boneyard'])}, in draw order): "
               + (" ".join(deal["boneyard"]) or "-"))
    if deal["redeals"]:
        click.echo(f"  redealt {deal['redeals']} time(s): nobody held a double")
    if deal["lot"] is not None:
        click.echo(f"  lot: seat {deal['lot']} opens (several players hold the opening tile)")
    opens = deal["opens"]
    if opens["draw_for_double"]:
        how = "each player draws one tile, from seat 0, until a hand holds one" \
            if rules.no_double == "everyone-draws-for-double" else \
            "the players draw in turn from seat 0 until one draws a double"
        click.echo(f"  opens: nobody holds a double; {how}")
    elif opens["tile"] is None and len(opens["seats"]) == players:
        click.echo("  opens: any player, with any tile")
    elif opens["tile"] is None:
        click.echo(f"  opens: seat {opens['seats'][0]} (or the round's opener), with any tile")
    else:
        seats = " or ".join(f"seat {s}" for s in opens["seats"])
        click.echo(f"  opens: {seats}, with {opens['tile']}")
    if round_no is None and "/" not in seed:
        click.echo(f'  (round n of a game with seed "{seed}" is dealt from "{seed}/n": '
                   "add --round n)")


def _simulate_engine(engine: str, opts: dict[str, Any], players: int | None, games: int,
                     seed: str, series: bool, pretty: bool) -> None:
    """``simulate --engine``: the engine itself plays, its adapter writes the logs."""
    from recorder import adapters

    kwargs: dict[str, Any] = {}
    if players is not None:
        kwargs["players"] = players
    unknown = sorted(set(opts) - {"target"})
    if unknown or ("target" in opts and engine == "openspiel"):
        name = unknown[0] if unknown else "target"
        raise click.UsageError(f"-o {name}: with --engine {engine} the engine's own rules "
                               "apply" + ("" if engine == "openspiel" else
                                          "; only -o target=N may change"))
    if "target" in opts:
        target = opts["target"]
        if isinstance(target, bool) or not isinstance(target, int) or target < 1:
            raise click.UsageError("-o target must be a whole number of 1 or more")
        kwargs["target"] = target
    if series:
        if engine != "dominoes":
            raise click.UsageError("--series is for --engine dominoes")
        kwargs["series"] = True
    elif engine == "dominoes" and "target" in kwargs:
        raise click.UsageError("-o target=N with --engine dominoes needs --series")
    try:
        for doc in adapters.simulate(engine, games, seed, **kwargs):
            click.echo(json.dumps(doc, indent=2 if pretty else None, ensure_ascii=False))
    except adapters.EngineMissing as exc:
        raise click.UsageError(str(exc)) from None
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


@main.command("rules")
@click.argument("preset", required=False)
@click.option("-o", "--option", "options", multiple=True, metavar="NAME=VALUE",
              help="A ruleset option (repeatable): show the preset with it, e.g. -o sets=2.")
@click.option("--json", "as_json", is_flag=True,
              help="As JSON: with PRESET every rule of the ruleset, house rules included; "
                   "without, the rulesets file (every preset and option, "
                   "schemas/rulesets-1.json).")
def rules_cmd(preset: str | None, options: tuple[str, ...], as_json: bool) -> None:
    """Show a preset's rules, or the options vocabulary when no preset is named.

    \b
    Examples:
      recorder rules            every option, its values and meaning, and the presets
      recorder rules kozel      the rules of the kozel preset
      recorder rules spilop -o sets=2 --json   a ruleset as a log's options resolve it
      recorder rules --json     the rulesets file that other languages read
    """
    from recorder.rules import rulesets_json

    if preset is None:
        if options:
            raise click.UsageError("-o needs a PRESET to apply to")
        if as_json:
            click.echo(rulesets_json(), nl=False)
            return
        for name, opt in OPTIONS.items():
            values = " | ".join(opt.choices) if opt.choices else opt.kind
            click.echo(f"{name:16} {values}\n{'':16} {opt.help}")
        click.echo(f"\npresets (recorder rules PRESET): {', '.join(PRESETS)}")
        return
    opts = dict(_parse_option(o) for o in options)
    spec: str | dict[str, Any] = {"preset": preset, "options": opts} if opts else preset
    try:
        rules = Ruleset.from_spec(spec)
    except RulesetError as exc:
        raise click.UsageError(exc.message) from None
    if as_json:
        click.echo(json.dumps(rules.to_json(), ensure_ascii=False))
        return
    for key, value in rules.describe().items():
        click.echo(f"{key:16} {value}")


# ---------------------------------------------------------------------- transcript
def _fmt(x: Any) -> str:
    if isinstance(x, float):
        return f"{x:.2f}"
    return str(x)


def _ends(state: Any) -> str:
    ends = state.open_ends()
    return " ".join(f"{k[0].upper()}{v}" for k, v in ends.items())


def transcript(doc: Any, answer: dict[str, Any], where: str = "") -> str:
    """A compact move-by-move account of a game, with scores after each round."""
    lines: list[str] = []
    game_id = answer.get("game_id")
    name = game_id if isinstance(game_id, str) and game_id else where
    error = answer.get("error") or {}
    if answer["status"] == "invalid" and (
            error.get("round", 0) == 0 or str(error.get("code")).startswith("internal/")):
        return f"{name}: invalid: {answer['error']['message']}"
    try:
        game = open_game(doc)
    except RecorderError:  # a shape error in a later round: no move can be shown
        return f"{name}: invalid: {answer['error']['message']}"
    ids = game.players
    lines.append(f"{name}: {game.rules.preset}, {len(ids)} players ({', '.join(ids)})")
    pending: MoveEvent | None = None

    def seated(seat: object) -> bool:  # a refused move may name a seat nobody has
        return isinstance(seat, int) and 0 <= seat < len(ids)

    def flush(state: Any) -> None:
        nonlocal pending
        if pending is None:
            return
        mv = pending.move
        who = ids[mv.player] if seated(mv.player) else f"seat {mv.player!r}"
        text = f"  {pending.move_no:3}. {who} {mv.text()}"
        if mv.action == "play" and seated(mv.player):
            text = f"{text:34} {_ends(state)}"
            if state.rules.bonus:
                text += f"  sum {state.open_end_sum()}"
            gained = state.bonus[mv.player] - pending_bonus
            if gained:
                text += f"   bonus +{_fmt(number(gained))}"
        lines.append(text)
        pending = None

    pending_bonus = 0
    state = None
    try:
        for event in walk(doc, game):
            if pending is not None:
                flush(event.state)
            state = event.state
            if type(event) is RoundStart:
                deal = "explicit deal" if not state.deal.seeded else "seeded deal"
                lines.append(f"round {event.round} ({deal}, boneyard {state.boneyard_left()})")
            elif type(event) is MoveEvent:
                pending = event
                pending_bonus = state.bonus[event.move.player] \
                    if seated(event.move.player) else 0
            elif type(event) is RoundEnd:
                res = event.result
                how = "blocked" if res.blocked else f"domino by {ids[res.ended_by]}"
                if not res.blocked and res.pips_left[res.ended_by]:  # target_check: play
                    how = f"target reached by {ids[res.ended_by]}"
                who = ", ".join(ids[w] for w in res.winners) or "nobody"
                scores = " ".join(_fmt(number(s)) for s in game.match.scores)
                lines.append(f"  = {how}; winners {who}; points "
                             f"{' '.join(_fmt(number(p)) for p in res.points)}; "
                             f"scores {scores}")
    except RecorderError as exc:
        if state is not None:
            flush(state)
        lines.append(f"  ! invalid: {exc.message}")
        return "\n".join(lines)
    if state is not None:
        flush(state)
        if not state.over:
            lines.append(f"  ~ round cut off after {state.moves} moves: checked, not counted")
    status = answer["status"]
    if status == "finished":
        winners = ", ".join(ids[w] for w in answer["winners"])
        lines.append(f"finished: {winners} won; scores "
                     + " ".join(_fmt(s) for s in answer["scores"]))
    else:
        lines.append("unfinished; scores " + " ".join(_fmt(s) for s in answer["scores"]))
    from recorder.replay import claim_text, part_detail, part_text

    for m in answer.get("mismatches", []):
        lines.append(f"  note: {claim_text(m, ids)}")
    if answer.get("scores_differ"):
        part = answer["scores_differ"]
        detail = part_detail(doc, answer["rounds"], part, ids)
        lines.append(f"  note: {part_text(part, ids, detail)}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover
    main()
