"""Creating, reopening and listing studies in a storage (:func:`create_study`, :func:`load_study`,
:func:`list_studies`)."""

from __future__ import annotations

import json
import platform
import warnings
from typing import Any

import numpy as np

from safebandits._limits import MAX_OPEN, MAX_SEED, MAX_SNAPSHOT_EVERY
from safebandits._version import __version__
from safebandits.algorithms.base import LearnerConfig, config_to_dict
from safebandits.algorithms.cost import check_learner_cost
from safebandits.algorithms.registry import get_algorithm
from safebandits.exceptions import ConfigError
from safebandits.study.codec import (
    _encode,
    dumps,
    feedback_spec,
    info_from_dict,
    info_to_dict,
    jsonable,
)
from safebandits.study.conservative import is_conservative
from safebandits.study.query import _now
from safebandits.study.session import _SETTINGS_KEY, Study
from safebandits.study.snapshot import DEFAULT_SNAPSHOT_EVERY
from safebandits.study.storage import ConflictError, Storage, open_storage
from safebandits.study.validation import check_study_name

__all__ = ["DEFAULT_STORAGE", "create_study", "list_studies", "load_study"]


DEFAULT_STORAGE = "sqlite:///study.db"

_COLUMNS = "algorithm, task, config_json, info_json, seed"


def create_study(
    name: str,
    algorithm: str,
    info: Any,
    config: LearnerConfig | dict[str, Any] | None = None,
    *,
    storage: str | Storage = DEFAULT_STORAGE,
    seed: int | None = None,
    load_if_exists: bool = False,
    max_open: int = 1,
    split_batches: bool | None = None,
    problem: dict[str, Any] | None = None,
    horizon: int | None = None,
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
) -> Study:
    """Create a study and store it.

    Parameters
    ----------
    name : str
        Unique name of the study in the database.
    algorithm : str
        A registered learner (:func:`safebandits.list_algorithms`).
    info : declared problem, simulated problem or problem view
        A declaration of one's own problem (:class:`~safebandits.problems.declare.LinearProblem`,
        ``KernelProblem``, ... or :func:`~safebandits.problems.settings.problem_from_dict` of an experiment
        file's ``[problem]`` table): the learner gets the view of it that it reads
        (:func:`~safebandits.algorithms.compatibility.view_for`), and the study stores the declaration
        (``to_dict()``) and that kind beside the view (:attr:`Study.declaration`). Or a problem view:
        ``instance.public_info()`` (``privileged_info()`` for the oracle baselines), or one built by hand
        with the problem's arms, known parameters, threshold and safe action. A declaration with its
        truth (``problem.simulate(...)``): the learner reads the declaration's view; a conservative study
        keeps the truth to record the constraint's margin under it each round (:meth:`Study.conservative`),
        other studies drop it.
    config : dict or LearnerConfig, optional
        The learner's config (registry defaults otherwise).
    storage : str, default "sqlite:///study.db"
        Database URL: ``sqlite:///file.db`` or any SQLAlchemy URL (``postgresql://user@host/db``).
    seed : int, optional
        Seed of the learner's randomness (drawn from the OS and stored when omitted).
    load_if_exists : bool, default False
        Return the stored study of that name instead of failing (its stored definition wins).
    max_open : int, default 1
        How many queries may be out at once. ``1``: one open query, which ``ask`` returns again until it is
        told. ``n > 1``: batch decisions are split into single pulls and ``ask`` hands out up to ``n`` of
        them (a sequential learner still has one open query at a time: its next decision depends on the
        answer).
    split_batches : bool, optional
        Split batch decisions into single pulls (default: ``max_open > 1``). With ``max_open=1`` and
        ``split_batches=True`` a person answers a batch one pull at a time.
    problem : dict, optional
        JSON-ready description of the problem for people and the dashboard, e.g.
        ``{"instance": NAME, "params": {...}}`` (a registered instance and its parameters): the dashboard
        shows the queries as that instance's view says (a picture to judge, a record to label). Not used
        by the learner.
    horizon : int, optional
        For a declared problem: the horizon of the view (regret learners are done after that many
        answers); the declaration's own ``horizon`` otherwise. Not allowed with a problem view.
    snapshot_every : int, default 100
        Store a snapshot of the learner every this many answered queries, so that loading the study
        replays only the answers since the last one (0: never; every load then replays every answer).
        A snapshot is a cache of what the answers determine: results are the same either way.

    Raises
    ------
    ConfigError
        Unknown algorithm, invalid config, an info the learner does not accept (for a declared problem:
        a learner that does not fit it, or cannot start on it), or a name in use.

    Examples
    --------
    >>> import tempfile, safebandits as sb
    >>> url = f"sqlite:///{tempfile.mkdtemp()}/s.db"
    >>> doses = sb.LinearProblem(arms=[[1, 0], [0, 1], [1, 1]], threshold=0.5, safe_arm=0, safe_cost=0.1,
    ...                          safe_reward=0.2, feedback="bernoulli", horizon=500)
    >>> study = sb.create_study("mine", "opb", doses, storage=url, seed=0)
    >>> study.declared_kind, type(study.info).__name__
    ('k-armed', 'StagewiseInfo')
    """
    check_study_name(name, new=True)
    entry = get_algorithm(algorithm)
    truth = _truth_of(info)
    info, declared = _declared_view(info, algorithm, horizon, f"Study {name!r} ({algorithm})")
    cfg = config if isinstance(config, LearnerConfig) else entry.config(**(config or {}))
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed <= MAX_SEED:
        raise ConfigError(
            f"The 'seed' of a study must be an integer in [0, 2**63 - 1]. Got {seed!r:.40} instead."
        )
    settings = _settings(max_open, split_batches, problem, snapshot_every, declared)
    if truth is not None and is_conservative(info):  # (the record's margin under the truth only)
        settings["truth"] = truth
    task = entry.task
    info_json = json.dumps(info_to_dict(info), separators=(",", ":"))
    # Fail early: the learner must accept this view, and the view must survive storage exactly.
    try:
        entry.cls(cfg, info_from_dict(json.loads(info_json)), np.random.default_rng(0))
    except (TypeError, AttributeError) as exc:
        raise ConfigError(f"Algorithm {algorithm!r} cannot run on a {type(info).__name__}: {exc}") from None
    feedback_spec(info)
    store = open_storage(storage)
    owned = isinstance(storage, str)
    for attempt in range(3):  # a concurrent creator may win the insert: then read its row
        try:
            row = _insert_study(store, name, algorithm, task, cfg, info_json, seed, load_if_exists, settings)
            break
        except ConflictError:
            if attempt == 2:
                if owned:
                    store.close()
                raise
        except BaseException:
            if owned:
                store.close()
            raise
    return Study(store, name, row)


def _truth_of(info: Any) -> dict[str, Any] | None:
    """The ground truth of a :class:`~safebandits.problems.declare.SimulatedProblem` as stored data (JSON
    values), else ``None``. A conservative study keeps it to record the margin under the truth each round
    (:mod:`~safebandits.study.conservative`); its learner never reads it."""
    from safebandits.problems.declare import SimulatedProblem

    if not isinstance(info, SimulatedProblem):
        return None
    try:
        return json.loads(json.dumps(jsonable(dict(info.truth)), allow_nan=False))
    except (TypeError, ValueError):
        raise ConfigError(
            "The truth of this SimulatedProblem cannot be stored in a study: it is not plain JSON (finite "
            "numbers and lists)."
        ) from None


def _settings(
    max_open: Any, split_batches: Any, problem: Any, snapshot_every: Any, declared: dict[str, Any] | None
) -> dict[str, Any]:
    """The study settings stored beside the learner's config, checked (see :func:`create_study`)."""
    if (
        isinstance(max_open, bool)
        or not isinstance(max_open, (int, np.integer))
        or not 1 <= max_open <= MAX_OPEN
    ):
        raise ConfigError(
            f"The 'max_open' of a study must be an integer in [1, {MAX_OPEN:,}]. Got {max_open!r:.40} "
            "instead."
        )
    if (
        isinstance(snapshot_every, bool)
        or not isinstance(snapshot_every, (int, np.integer))
        or not 0 <= snapshot_every <= MAX_SNAPSHOT_EVERY
    ):
        raise ConfigError(
            f"The 'snapshot_every' of a study must be an integer in [0, {MAX_SNAPSHOT_EVERY:,}]. Got "
            f"{snapshot_every!r:.40} instead."
        )
    split = max_open > 1 if split_batches is None else split_batches
    if not isinstance(split, (bool, np.bool_)):
        raise ConfigError(f"The 'split_batches' of a study must be a bool. Got {split_batches!r} instead.")
    if problem is not None:
        try:
            problem = json.loads(json.dumps(problem))
        except (TypeError, ValueError):
            raise ConfigError(
                f"The 'problem' of a study must be JSON-ready. Got {problem!r} instead."
            ) from None
    settings = {
        "max_open": int(max_open),
        "split_batches": bool(split),
        "problem": problem,
        "snapshot_every": int(snapshot_every),
    }
    if declared is not None:
        settings["declaration"] = declared
    return settings


def _declared_view(
    info: Any, algorithm: str, horizon: int | None, what: str
) -> tuple[Any, dict[str, Any] | None]:
    """For a declared problem: the view learner ``algorithm`` reads and what the study stores of the
    declaration (its ``to_dict()``, the kind and the horizon). A problem view passes through. Either is
    refused when the learner on it would be too large (:func:`check_learner_cost`, before anything else is
    built)."""
    from safebandits.algorithms.compatibility import view_for
    from safebandits.problems.declare import Problem, SimulatedProblem, info_kind
    from safebandits.problems.settings import problem_from_dict

    if isinstance(info, SimulatedProblem):  # a study is played against the world: the truth stays out
        info = info.problem
    if not isinstance(info, Problem):
        if horizon is not None:
            raise ConfigError(
                "The 'horizon' of a study applies to a declared problem only (a problem view has its own)."
            )
        check_learner_cost(info, algorithm, what=what, stored=True)
        return info, None
    horizon = info._horizon(horizon)  # (checked: an integer >= 1)
    view = view_for(info, algorithm, horizon=horizon)
    check_learner_cost(view, algorithm, what=what, stored=True)
    kind = info_kind(view)
    try:
        values = json.loads(json.dumps(info.to_dict(), allow_nan=False))
    except (TypeError, ValueError):
        raise ConfigError(
            f"This {type(info).__name__} cannot be stored in a study: its to_dict() is not plain JSON "
            "(a pool declared from a data frame: declare it from its CSV file)."
        ) from None
    # What is stored must rebuild the very view the learner gets (bit for bit). (A check only: what
    # view_for said about the declaration, e.g. a default tolerance, is not said twice.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rebuilt = problem_from_dict(values).view(kind, horizon=horizon)
    if dumps(info_to_dict(rebuilt)) != dumps(info_to_dict(view)):
        raise ConfigError(
            f"This {type(info).__name__} does not survive storage exactly (its to_dict() rebuilds another "
            f"{kind!r} view); pass the view itself: problem.view({kind!r})."
        )
    return view, {"problem": values, "kind": kind, "horizon": horizon}


def _insert_study(
    store: Storage,
    name: str,
    algorithm: str,
    task: str,
    cfg: LearnerConfig,
    info_json: str,
    seed: int,
    load_if_exists: bool,
    settings: dict[str, Any],
) -> tuple[Any, ...]:
    """Insert the study's row in one transaction, or return the stored row (``load_if_exists``)."""
    with store.transaction(name, write=True) as tx:
        rows = tx.execute(f"SELECT {_COLUMNS} FROM sb_studies WHERE name = :n", {"n": name})
        if rows:
            if not load_if_exists:
                raise ConfigError(
                    f"A study named {name!r} already exists in {store.url}; load it with load_study "
                    "or pick another name."
                )
            row = rows[0]
        else:
            config_json = _encode(config_to_dict(cfg))
            if settings != {"max_open": 1, "split_batches": False, "problem": None}:
                config_json[_SETTINGS_KEY] = settings
            row = (algorithm, task, json.dumps(config_json), info_json, str(int(seed)))
            versions = {
                "safebandits": _version(),
                "numpy": np.__version__,
                "python": platform.python_version(),
            }
            tx.execute(
                "INSERT INTO sb_studies (name, algorithm, task, config_json, info_json, seed, created_at, "
                "versions_json) VALUES (:n, :a, :t, :c, :i, :s, :at, :v)",
                {"n": name, "a": row[0], "t": row[1], "c": row[2], "i": row[3], "s": row[4], "at": _now(),
                 "v": json.dumps(versions)},
            )  # fmt: skip
    return row


def load_study(name: str, storage: str | Storage = DEFAULT_STORAGE, *, snapshots: bool = True) -> Study:
    """Reopen the study ``name`` (in any process); its learner is restored from the latest snapshot and the
    stored queries since are replayed (``snapshots=False``: every stored query is replayed).

    ``storage`` may be an opened storage, e.g. ``open_storage(url, read_only=True)`` to only read.
    """
    if not isinstance(snapshots, bool):
        raise ConfigError(f"'snapshots' must be True or False. Got {snapshots!r:.40} instead.")
    check_study_name(name)
    store = open_storage(storage, create=False)
    owned = isinstance(storage, str)
    try:
        with store.transaction(name) as tx:
            rows = tx.execute(f"SELECT {_COLUMNS} FROM sb_studies WHERE name = :n", {"n": name})
        if not rows:  # (other studies are never listed: their names may be private)
            raise ConfigError(
                f"No study named {name!r} in {store.url}; see `safebandits study list` for the names."
            )
        study = Study(store, name, rows[0])
        study._use_snapshots = snapshots
        with study._transaction(write=False):
            pass
    except BaseException:
        if owned:
            store.close()
        raise
    return study


def list_studies(storage: str | Storage = DEFAULT_STORAGE) -> list[str]:
    """Names of the studies stored in ``storage``."""
    store = open_storage(storage, create=False)
    try:
        with store.transaction() as tx:
            return [r[0] for r in tx.execute("SELECT name FROM sb_studies ORDER BY name")]
    finally:
        if isinstance(storage, str):  # (a storage given open stays open)
            store.close()


def _version() -> str:
    return __version__
