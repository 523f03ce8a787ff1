"""``safebandits study create | ask | tell | status | recommend | verify | export | list``: studies
from a shell.

Every command prints JSON on stdout, so a shell loop or a program in another language can drive a
study::

    safebandits study create s1 --algorithm g-acol --instance acol/one-dimensional --set noise='"binary"'
    safebandits study create mine --algorithm opb --problem my_doses.toml   # one's own [problem] table
    safebandits study ask s1                      # {"id": 0, "arm": 3, ...}
    safebandits study tell s1 0 -1                # the answer as JSON: a number, or {"reward": ..., ...}
    safebandits study status s1                   # summary: counts, open query, recommendation, bounds
    safebandits study recommend s1
    safebandits study verify s1                   # replay every answer; compare with the snapshot
    safebandits study export s1 --out s1.json

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
from safebandits.study.codec import info_from_dict, jsonable

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
    import numpy as np

    from safebandits.algorithms.registry import get_algorithm
    from safebandits.experiments.spec import parse_assignments
    from safebandits.problems.registry import list_instances, make_instance
    from safebandits.study.study import create_study

    if sum(v is not None for v in (instance, info_file, problem_file)) != 1:
        raise ConfigError("Give exactly one of --instance NAME, --info FILE or --problem FILE.toml.")
    if problem_file is not None:
        if sets:
            raise ConfigError("--set applies to --instance only.")
        _create_declared(name, algorithm, problem_file, params, seed, max_open, snapshot_every, storage)
        return
    entry = get_algorithm(algorithm)
    if instance is not None:
        entries = list_instances()
        if instance not in entries:
            raise ConfigError(f"Unknown instance {instance!r}. Known instances: {', '.join(entries)}.")
        rng = np.random.default_rng(instance_seed) if entries[instance].random else None
        inst = make_instance(instance, rng, **parse_assignments(sets))
        info = inst.privileged_info() if entry.privileged else inst.public_info()
    else:
        if sets:
            raise ConfigError("--set applies to --instance only.")
        info = info_from_dict(_load_json(f"@{info_file}", "info file"))
    problem = None
    if instance is not None:  # the dashboard draws queries from it (e.g. driving policies)
        problem = {"instance": instance, "params": parse_assignments(sets), "instance_seed": instance_seed}
    s = create_study(
        name,
        algorithm,
        info,
        parse_assignments(params),
        storage=storage,
        seed=seed,
        max_open=max_open,
        problem=problem,
        snapshot_every=snapshot_every,
    )
    _echo(
        {"name": s.name, "algorithm": s.algorithm, "task": s.task, "seed": s.seed, "storage": s.storage_url}
    )


def _learner_of_file(raw: dict[str, Any], algorithm: str, source: str) -> tuple[str, dict[str, Any]]:
    """The registered name and options of ALGORITHM in a file's ``[[learners]]`` (by label, then by name);
    the name itself with no options when the file does not list it."""
    learners = raw.get("learners") or []
    if not isinstance(learners, list):
        raise ConfigError(f"{source}: 'learners' must be an array of tables ([[learners]]).")
    tables = [t for t in learners if isinstance(t, dict)]
    by_label = [t for t in tables if t.get("label") == algorithm]
    by_name = [t for t in tables if t.get("name") == algorithm and not t.get("label")] or [
        t for t in tables if t.get("name") == algorithm
    ]
    found = by_label or by_name
    if len(found) > 1:
        labels = ", ".join(repr(t.get("label") or t.get("name")) for t in found)
        raise ConfigError(
            f"{source}: {len(found)} [[learners]] are named {algorithm!r} ({labels}); "
            "give --algorithm one of their labels."
        )
    if not found:
        return algorithm, {}
    table = found[0]
    options = table.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{source}: learner {algorithm!r}: 'options' must be a table.")
    return str(table.get("name")), dict(options)


def _create_declared(
    name: str,
    algorithm: str,
    problem_file: str,
    params: tuple[str, ...],
    seed: int | None,
    max_open: int,
    snapshot_every: int,
    storage: str,
) -> None:
    """``study create --problem FILE.toml``: a study on the file's declared problem."""
    from safebandits.experiments.spec import parse_assignments
    from safebandits.experiments.user import _plain_toml, problem_of_file, tomllib
    from safebandits.study.study import create_study

    declared = problem_of_file(problem_file)
    raw = _plain_toml(tomllib.loads(Path(problem_file).read_text(encoding="utf-8")))
    learner, options = _learner_of_file(raw, algorithm, problem_file)
    options.update(parse_assignments(params))  # --param wins over the file's options
    horizon = raw.get("horizon")
    if horizon is not None and (isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1):
        raise ConfigError(f"{problem_file}: horizon must be an integer >= 1; got {horizon!r}.")
    try:
        s = create_study(
            name,
            learner,
            declared,
            options,
            storage=storage,
            seed=seed,
            max_open=max_open,
            horizon=horizon,
            snapshot_every=snapshot_every,
        )
    except ConfigError as exc:  # one line, naming the file
        raise ConfigError(f"{problem_file}: {' '.join(str(exc).split())}") from None
    _echo(
        {"name": s.name, "algorithm": s.algorithm, "task": s.task, "seed": s.seed, "kind": s.declared_kind,
         "storage": s.storage_url}
    )  # fmt: skip


@study.command("ask")
@click.argument("name")
@_storage_option
def ask(name: str, storage: str) -> None:
    """Print the open query of NAME (a new one if every query is answered)."""
    from safebandits.study.study import load_study

    with load_study(name, storage) as s:
        _echo(s.ask().to_dict())


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
