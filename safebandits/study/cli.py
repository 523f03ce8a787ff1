"""``safebandits study create | ask | tell | status | recommend | verify | export | list``: studies
from a shell.

Every command prints JSON on stdout, so a shell loop or a program in another language can drive a
study::

    safebandits study create s1 --algorithm LEARNER --instance INSTANCE --set noise='"binary"'
    safebandits study create mine --algorithm LEARNER --problem my_doses.toml   # one's own [problem] table
    safebandits study ask s1                      # {"id": 0, "arm": 3, ...}
    safebandits study ask s2 --context @ctx.json  # a contextual study: the round's context
    safebandits study tell s1 0 -1                # the answer as JSON: a number, or {"reward": ..., ...}
    safebandits study status s1                   # summary: counts, open query, recommendation, bounds
    safebandits study recommend s1
    safebandits study verify s1                   # replay every answer; compare with the snapshot
    safebandits study export s1 --out s1.json

(LEARNER and INSTANCE: names ``safebandits list`` prints.)

The database is ``--storage URL`` (or the ``SAFEBANDITS_STORAGE`` variable; default
``sqlite:///study.db``). Errors print one line and exit with status 2 (status 1 when the database
could not be read or written). ``list``, ``status``, ``recommend`` and ``export`` only read: they open
the database read-only and never create or change it. Passwords in the URL are never printed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from safebandits._limits import MAX_EXPIRE_SECONDS, MAX_OPEN, MAX_SEED, MAX_SNAPSHOT_EVERY
from safebandits.exceptions import ConfigError
from safebandits.study.codec import jsonable

__all__ = ["study"]

_storage_option = click.option(
    "--storage",
    envvar="SAFEBANDITS_STORAGE",
    default="sqlite:///study.db",
    show_default=True,
    help="Database URL (sqlite:///FILE or a SQLAlchemy URL). Env: SAFEBANDITS_STORAGE.",
)


#: Largest JSON answer or info file read (bytes).
MAX_JSON_BYTES = 64 * 1024 * 1024


def _echo(value: Any) -> None:
    click.echo(json.dumps(jsonable(value), indent=1, allow_nan=False))


def _reader(storage: str) -> Any:
    """The storage opened read-only (never creates or alters the database)."""
    from safebandits.study.storage import open_storage

    return open_storage(storage, create=False, read_only=True)


def _load_json(text: str, what: str) -> Any:
    source = text
    if text == "-":
        text = sys.stdin.read(MAX_JSON_BYTES + 1)
    elif text.startswith("@"):
        path = Path(text[1:])
        if not text[1:] or not path.is_file():
            kind = "a folder" if path.is_dir() else "not a file"
            raise ConfigError(f"The {what} {source!r}: {str(path)!r} is {kind}; give @FILE with a JSON file.")
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read(MAX_JSON_BYTES + 1)
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"The {what} file {str(path)!r} cannot be read: {exc}.") from None
    if len(text) > MAX_JSON_BYTES:
        raise ConfigError(f"The {what} is larger than {MAX_JSON_BYTES // 2**20} MiB.")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"The {what} must be JSON ({exc}); got {text[:80]!r}.") from None
    except RecursionError:
        raise ConfigError(
            f"The {what} is nested too deeply to be an answer ({len(text)} characters)."
        ) from None


@click.group("study")
def study() -> None:
    """Persistent ask / tell studies stored in a database (JSON in and out)."""


@study.command("create")
@click.argument("name")
@click.option("--algorithm", required=True, help="A registered algorithm (safebandits list algorithms).")
@click.option("--instance", help="A registered instance whose public information the study gets.")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Instance parameter. Repeatable.")
@click.option(
    "--info",
    "info_file",
    type=click.Path(exists=True, dir_okay=False),
    help="The problem view as JSON (as written by 'study export': the 'info' object).",
)
@click.option(
    "--problem",
    "problem_file",
    type=click.Path(exists=True, dir_okay=False),
    help="An experiment file (TOML): its [problem] table is declared, the learner gets its view; its "
    "[[learners]] options for ALGORITHM (a name or a label) and its horizon apply.",
)
@click.option("--param", "params", multiple=True, metavar="KEY=VALUE", help="Algorithm config. Repeatable.")
@click.option(
    "--seed", type=click.IntRange(min=0, max=MAX_SEED), help="Learner seed [default: drawn and stored]."
)
@click.option("--instance-seed", type=click.IntRange(min=0, max=MAX_SEED), default=0, show_default=True)
@click.option(
    "--max-open",
    type=click.IntRange(min=1, max=MAX_OPEN),
    default=1,
    show_default=True,
    help="Queries out at once (batches are split into pulls when > 1).",
)
@click.option(
    "--snapshot-every",
    type=click.IntRange(min=0, max=MAX_SNAPSHOT_EVERY),
    default=100,
    show_default=True,
    help="Store the learner's state every N answers, so loading replays only the answers since (0: never).",
)
@_storage_option
def create(
    name: str,
    algorithm: str,
    instance: str | None,
    sets: tuple[str, ...],
    info_file: str | None,
    problem_file: str | None,
    params: tuple[str, ...],
    seed: int | None,
    instance_seed: int,
    max_open: int,
    snapshot_every: int,
    storage: str,
) -> None:
    """Create study NAME for ALGORITHM on an --instance, an --info file or a --problem file."""
    from safebandits.experiments.spec import parse_assignments
    from safebandits.study.options import create_from_options

    if sum(v is not None for v in (instance, info_file, problem_file)) != 1:
        raise ConfigError("Give exactly one of --instance NAME, --info FILE or --problem FILE.toml.")
    if sets and instance is None:
        raise ConfigError("--set applies to --instance only.")
    experiment = None
    if problem_file is not None:
        from safebandits._cost import check_input_file
        from safebandits.experiments.user import tomllib

        check_input_file(problem_file, "experiment file")
        try:
            experiment = tomllib.loads(Path(problem_file).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"Cannot read the experiment file {problem_file!r}: {exc}") from None
    _echo(
        create_from_options(
            name,
            algorithm,
            storage=storage,
            instance=instance,
            instance_params=parse_assignments(sets),
            info=None if info_file is None else _load_json(f"@{info_file}", "info file"),
            experiment=experiment,
            experiment_file=problem_file,
            config=parse_assignments(params),
            seed=seed,
            instance_seed=instance_seed,
            max_open=max_open,
            snapshot_every=snapshot_every,
        )
    )


@study.command("ask")
@click.argument("name")
@click.option(
    "--context",
    "context",
    default=None,
    metavar="JSON",
    help="The round's context of a contextual study (JSON, '-' for stdin, '@FILE'): "
    '{"arms": [[...], ...], "baseline": b, "baseline_reward": r} (a fixed-arms LinearProblem: optional, '
    "the declared one).",
)
@_storage_option
def ask(name: str, context: str | None, storage: str) -> None:
    """Print the open query of NAME (a new one if every query is answered)."""
    from safebandits.study.study import load_study

    value = None if context is None else _load_json(context, "context")
    with load_study(name, storage) as s:
        _echo(s.ask(value).to_dict() if value is not None else s.ask().to_dict())


@study.command("tell", context_settings={"ignore_unknown_options": True})
@click.argument("name")
@click.argument("query_id", type=int)
@click.argument("answer")
@_storage_option
def tell(name: str, query_id: int, answer: str, storage: str) -> None:
    """Record ANSWER (JSON, '-' for stdin, '@FILE') to query QUERY_ID of NAME.

    One pull: a number (e.g. -1 for binary feedback) or {"reward": r, "constraints": [c]}; a batch:
    {"constraint_sums": [[...]], "reward_sums": [...]}.
    """
    from safebandits.study.study import load_study

    value = _load_json(answer, "answer")
    with load_study(name, storage) as s:
        s.tell(query_id, value)
        _echo({"id": query_id, "told": True, "n_answered": s.n_answered, "done": s.done})


@study.command("expire")
@click.argument("name")
@click.option(
    "--older-than",
    type=click.FloatRange(min=0, max=MAX_EXPIRE_SECONDS),
    help="Only queries out for more than SECONDS.",
)
@_storage_option
def expire(name: str, older_than: float | None, storage: str) -> None:
    """Return NAME's abandoned open queries to the pool (ask re-issues them first)."""
    from safebandits.study.study import load_study

    with load_study(name, storage) as s:
        _echo({"expired": s.expire(older_than=older_than)})


@study.command("status")
@click.argument("name")
@_storage_option
def status(name: str, storage: str) -> None:
    """Print the summary of NAME: counts, open query, recommendation, confidence bounds, safe set."""
    from safebandits.study.study import load_study

    with load_study(name, _reader(storage)) as s:
        _echo(s.summary())


@study.command("verify")
@click.argument("name")
@_storage_option
def verify(name: str, storage: str) -> None:
    """Replay every answer of NAME from the first and check it gives the learner its snapshot holds."""
    from safebandits.study.study import load_study

    with load_study(name, _reader(storage)) as s:
        _echo({"name": name, **s.verify()})


@study.command("recommend")
@click.argument("name")
@_storage_option
def recommend(name: str, storage: str) -> None:
    """Print the recommendation of NAME (final once done, else anytime), with it in words."""
    from safebandits.study.study import load_study

    with load_study(name, _reader(storage)) as s:
        rec = s.recommend()
        words = s.summary()["recommendation"]["words"]
        _echo(
            {"arm": rec.arm, "final": rec.final, "n_samples": rec.n_samples, "info": rec.info, "words": words}
        )


@study.command("export")
@click.argument("name")
@click.option("--out", type=click.Path(dir_okay=False), help="Write to FILE instead of stdout.")
@click.option(
    "--force", is_flag=True, help="Replace an existing --out file (never a database, whatever --force says)."
)
@_storage_option
def export(name: str, out: str | None, force: bool, storage: str) -> None:
    """Print (or write) NAME's definition, problem view and every query with its answer.

    --out never replaces an existing file unless --force, and never a database (the study's own storage
    included); the file is written whole to a temporary file and renamed into place.
    """
    from safebandits._output import check_output_file, write_output
    from safebandits.study.study import load_study

    protect = _storage_files(storage)
    path = None if out is None else check_output_file(out, "--out", force=force, protect=protect)
    with load_study(name, _reader(storage)) as s:
        text = json.dumps(s.export(), indent=1)
    if path is None:
        click.echo(text)
    else:
        write_output(path, text + "\n", force=force, protect=protect)
        _echo({"name": name, "out": out})


@study.command("list")
@_storage_option
def list_cmd(storage: str) -> None:
    """Print the names of the studies in the database."""
    from safebandits.study.study import list_studies

    store = _reader(storage)
    try:
        _echo(list_studies(store))
    finally:
        store.close()


def _storage_files(storage: str) -> list[tuple[Path, str]]:
    """The files of a SQLite study storage (never an output of a command)."""
    if storage.partition("://")[0].partition("+")[0] != "sqlite" or ":///" not in storage:
        return []
    path = Path(storage.partition(":///")[2].partition("?")[0])
    return [
        (Path(f"{path}{suffix}"), "the study's own storage") for suffix in ("", "-wal", "-shm", "-journal")
    ]
