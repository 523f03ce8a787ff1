"""Persistent ask / tell studies: a learner whose queries and answers live in a database.

A :class:`Study` is an algorithm (registry name and config), the learner's view of a problem and a seed,
stored under a name. The database is the source of truth: every operation first replays the queries and
answers other processes stored since this process last looked, through a learner built with the stored
seed, so every process holds exactly the state an uninterrupted run would have. The learners are
sequential, so a study has at most one open (pending) query; ``ask`` returns it again until it is told.

A :class:`Study` object holds one database connection: use one per thread (processes may share a
database freely).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import platform
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from safebandits.algorithms.base import BaseLearner, LearnerConfig, config_to_dict
from safebandits.algorithms.registry import get_algorithm
from safebandits.exceptions import ConfigError, ProtocolError, SafeBanditsError
from safebandits.rng import RunKey, learner_rng
from safebandits.study.codec import (
    _decode,
    _encode,
    decision_to_dict,
    dumps,
    feedback_spec,
    info_from_dict,
    info_to_dict,
    jsonable,
    observation_from_dict,
    observation_to_dict,
    parse_observation,
)
from safebandits.study.storage import Storage, Transaction, open_storage
from safebandits.types import BatchObservation, Decision, Observation, Recommendation

__all__ = [
    "DEFAULT_STORAGE",
    "Query",
    "Study",
    "StudyIntegrityError",
    "create_study",
    "list_studies",
    "load_study",
]

DEFAULT_STORAGE = "sqlite:///study.db"


class StudyIntegrityError(SafeBanditsError):
    """The stored queries cannot be replayed (the database was edited, or the library changed)."""


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


@dataclass(frozen=True, slots=True, eq=False)
class Query:
    """An open or answered query of a study.

    Attributes
    ----------
    id : int
        Sequence number of the query in its study (0, 1, 2, ...); pass it to :meth:`Study.tell`.
    decision : Decision
        What to play: ``arm`` (one pull), ``counts`` (a batch of pulls per arm), ``point`` or ``probs``.
    asked_at : str
        UTC time the query was first asked (ISO 8601).
    """

    id: int
    decision: Decision
    asked_at: str = ""

    @property
    def arm(self) -> int | None:
        return self.decision.arm

    @property
    def counts(self) -> np.ndarray | None:
        return self.decision.counts

    @property
    def is_batch(self) -> bool:
        return self.decision.is_batch

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Query):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash((self.id, self.asked_at))

    def to_dict(self) -> dict[str, Any]:
        """``{"id", "arm", "counts", "probs", "point", "n_samples", "asked_at"}`` (JSON-ready)."""
        return {
            "id": self.id,
            **decision_to_dict(self.decision),
            "n_samples": self.decision.n_samples,
            "asked_at": self.asked_at,
        }


class Study:
    """A named ask / tell study stored in a database (build with :func:`create_study` or
    :func:`load_study`).

    Examples
    --------
    >>> import tempfile, safebandits as sb
    >>> url = f"sqlite:///{tempfile.mkdtemp()}/s.db"
    >>> info = sb.make_instance("acol/one-dimensional", noise="binary").public_info()
    >>> study = sb.create_study("demo", "g-acol", info, {"width": "tuned"}, storage=url, seed=0)
    >>> q = study.ask()
    >>> study.tell(q.id, -1)
    >>> sb.load_study("demo", url).summary()["n_answered"]
    1
    """

    def __init__(self, storage: Storage, name: str, row: tuple[Any, ...]) -> None:
        algorithm, task, config_json, info_json, seed = row
        self._storage = storage
        self.name = name
        self.algorithm = algorithm
        self.task = task
        self._entry = get_algorithm(algorithm)
        self.config: LearnerConfig = self._entry.config(**_decode(json.loads(config_json)))
        self.info = info_from_dict(json.loads(info_json))
        self.seed = int(seed)
        self.spec = feedback_spec(self.info)
        self._learner: BaseLearner | None = None
        self._reset()

    # -- state -----------------------------------------------------------------------------------
    def _reset(self) -> None:
        """Forget the in-memory learner; the next operation rebuilds it from the database."""
        self._learner = None
        self._n_seen = 0
        self._n_told = 0
        self._open: Query | None = None
        self._arm_counts: dict[int, int] = {}

    def _new_learner(self) -> BaseLearner:
        rng = learner_rng(RunKey(self.seed, 0, self.algorithm, 0))
        return self._entry.cls(self.config, self.info, rng)

    def _apply_tell(self, obs: Observation | BatchObservation) -> None:
        assert self._open is not None and self._learner is not None
        d = self._open.decision
        self._learner.tell(d, obs)
        self._n_told += 1
        if d.arm is not None:
            self._arm_counts[int(d.arm)] = self._arm_counts.get(int(d.arm), 0) + 1
        self._open = None

    def _sync(self, tx: Transaction) -> None:
        """Replay the rows stored since this process last looked (all of them the first time)."""
        if self._learner is None:
            self._learner = self._new_learner()
        start = self._n_seen - (1 if self._open is not None else 0)
        rows = tx.execute(
            "SELECT seq, decision_json, observation_json, asked_at FROM sb_queries "
            "WHERE study = :s AND seq >= :start ORDER BY seq",
            {"s": self.name, "start": start},
        )
        try:
            for seq, decision_json, obs_json, asked_at in rows:
                if seq < self._n_seen:  # our open query: told elsewhere?
                    if obs_json is not None:
                        self._apply_tell(observation_from_dict(json.loads(obs_json)))
                    continue
                if seq != self._n_seen or self._open is not None:
                    raise StudyIntegrityError(
                        f"Study {self.name!r}: query {seq} follows an unanswered query or a gap."
                    )
                decision = self._learner.ask()
                if decision_to_dict(decision) != json.loads(decision_json):
                    raise StudyIntegrityError(
                        f"Study {self.name!r}: replaying query {seq} gave {decision_to_dict(decision)}, "
                        f"but {decision_json} is stored. The database was edited, or the library version "
                        "changes the algorithm's decisions."
                    )
                self._n_seen += 1
                self._open = Query(int(seq), decision, asked_at)
                if obs_json is not None:
                    self._apply_tell(observation_from_dict(json.loads(obs_json)))
        except BaseException:
            self._reset()
            raise

    @contextlib.contextmanager
    def _transaction(self, write: bool) -> Iterator[Transaction]:
        try:
            with self._storage.transaction(self.name, write=write) as tx:
                self._sync(tx)
                yield tx
        except BaseException:
            # The learner may hold an ask or tell whose transaction did not commit: rebuild next time.
            self._reset()
            raise

    # -- protocol --------------------------------------------------------------------------------
    def ask(self) -> Query:
        """The open query, or a new one if every query is answered.

        Raises
        ------
        ProtocolError
            If the study is done.
        """
        with self._transaction(write=True) as tx:
            if self._open is not None:
                return self._open
            if self._is_done():
                raise ProtocolError(f"Study {self.name!r} is done; see recommend() and summary().")
            decision = self._learner.ask()  # type: ignore[union-attr]
            query = Query(self._n_seen, decision, _now())
            tx.execute(
                "INSERT INTO sb_queries (study, seq, decision_json, asked_at) VALUES (:s, :q, :d, :t)",
                {"s": self.name, "q": query.id, "d": dumps(decision_to_dict(decision)), "t": query.asked_at},
            )
            self._n_seen += 1
            self._open = query
            return query

    def tell(self, query_id: int | str, observation: Any) -> None:
        """Record the answer to query ``query_id``.

        Parameters
        ----------
        query_id : int
            The :attr:`Query.id` returned by :meth:`ask`.
        observation : number, dict, Observation or BatchObservation
            One pull: ``{"reward": r, "constraints": [c_1, ..., c_m]}`` (keys the problem observes), or a
            bare number when it observes exactly one value (e.g. ``-1`` for binary feedback). A batch
            query: ``{"constraint_sums": [[...]], "reward_sums": [...]}`` per arm of the query.

        Raises
        ------
        ConfigError
            Unknown query id, or an answer that is not what the problem observes (missing or extra
            values, wrong shape, NaN, out of range such as not +-1 for binary feedback). Nothing is stored.
        ProtocolError
            The query was already told.
        """
        qid = _query_id(query_id)
        with self._transaction(write=True) as tx:
            rows = tx.execute(
                "SELECT observation_json FROM sb_queries WHERE study = :s AND seq = :q",
                {"s": self.name, "q": qid},
            )
            if not rows:
                raise ConfigError(
                    f"Study {self.name!r} has no query {qid} (queries 0..{self._n_seen - 1} were asked)."
                )
            if rows[0][0] is not None:
                raise ProtocolError(
                    f"Query {qid} of study {self.name!r} was already told; answers are final."
                )
            assert self._open is not None and self._open.id == qid
            obs = parse_observation(observation, self._open.decision, self.spec)
            try:  # the learner's own check too (a learner may observe more than its view says)
                self._learner.check_observation(self._open.decision, obs)  # type: ignore[union-attr]
            except (TypeError, ProtocolError) as exc:
                raise ConfigError(str(exc)) from None
            tx.execute(
                "UPDATE sb_queries SET observation_json = :o, told_at = :t "
                "WHERE study = :s AND seq = :q AND observation_json IS NULL",
                {"o": dumps(observation_to_dict(obs)), "t": _now(), "s": self.name, "q": qid},
            )
            self._apply_tell(obs)

    # -- read-only views -------------------------------------------------------------------------
    def _is_done(self) -> bool:
        if self.task == "pure_exploration":
            return bool(getattr(self._learner, "done", False))
        horizon = getattr(self.info, "horizon", None)
        return horizon is not None and self._n_told >= int(horizon)

    @property
    def done(self) -> bool:
        """Pure exploration: the learner stopped. Regret: the problem's horizon of answers is reached."""
        with self._transaction(write=False):
            return self._is_done()

    @property
    def learner(self) -> BaseLearner:
        """The learner, brought up to date with the database (for read-only diagnostics)."""
        with self._transaction(write=False):
            return self._learner  # type: ignore[return-value]

    @property
    def n_answered(self) -> int:
        """Number of answered queries."""
        with self._transaction(write=False):
            return self._n_told

    @property
    def pending(self) -> Query | None:
        """The open query, if any."""
        with self._transaction(write=False):
            return self._open

    def _recommend(self) -> Recommendation:
        learner = self._learner
        assert learner is not None
        if self.task == "pure_exploration":
            return learner.recommend(anytime=True)
        if self._arm_counts:  # regret learners recommend the arm they played most
            arm = max(sorted(self._arm_counts), key=lambda a: self._arm_counts[a])
        else:
            arm = None
        return Recommendation(
            arm, learner.n_samples, self._is_done(), {"rule": "most played arm", "plays": self._arm_counts}
        )

    def recommend(self) -> Recommendation:
        """The learner's recommendation (final once :attr:`done`, else anytime).

        Pure-exploration learners answer with their own rule; for regret learners it is the arm played
        most often (``None`` for learners that play points only).
        """
        with self._transaction(write=False):
            return self._recommend()

    def summary(self) -> dict[str, Any]:
        """JSON-ready state: counts, open query, recommendation and the learner's read-only diagnostics.

        ``confidence_bounds``, ``safe_set`` and ``diagnostics`` appear where the learner has them; for
        constrained best-arm identification ``feasible_set`` lists the arms certified feasible (upper
        confidence bound at most the threshold).
        """
        with self._transaction(write=False):
            learner = self._learner
            assert learner is not None
            rec = self._recommend()
            out: dict[str, Any] = {
                "name": self.name,
                "algorithm": self.algorithm,
                "task": self.task,
                "seed": self.seed,
                "storage": self._storage.url,
                "config": jsonable(config_to_dict(self.config)),
                "n_queries": self._n_seen,
                "n_answered": self._n_told,
                "n_samples": learner.n_samples,
                "pending": None if self._open is None else self._open.to_dict(),
                "done": self._is_done(),
                "recommendation": {"arm": rec.arm, "final": rec.final, "info": jsonable(rec.info)},
            }
            for name in ("confidence_bounds", "safe_set", "diagnostics"):
                method = getattr(learner, name, None)
                if method is None:
                    continue
                try:
                    value = method()
                except Exception:  # diagnostics of a learner that has not started may be undefined
                    continue
                if name == "confidence_bounds" and isinstance(value, tuple) and len(value) == 2:
                    lower, upper = (np.asarray(v, dtype=float) for v in value)
                    value = {"lower": lower, "upper": upper}
                    threshold = getattr(self.info, "threshold", None)
                    if np.ndim(threshold) == 0 and threshold is not None and upper.ndim == 1:
                        out["feasible_set"] = np.flatnonzero(upper <= float(threshold)).tolist()
                out[name] = jsonable(value)
            return out

    def queries(self) -> list[dict[str, Any]]:
        """Every stored query with its answer (``None`` while open), in order."""
        with self._storage.transaction(self.name) as tx:
            rows = tx.execute(
                "SELECT seq, decision_json, observation_json, asked_at, told_at FROM sb_queries "
                "WHERE study = :s ORDER BY seq",
                {"s": self.name},
            )
        return [
            {
                "id": int(seq),
                "decision": json.loads(d),
                "observation": None if o is None else json.loads(o),
                "asked_at": a,
                "told_at": t,
            }
            for seq, d, o, a, t in rows
        ]

    def export(self) -> dict[str, Any]:
        """The whole study as JSON-ready data: its definition (with the stored problem view) and queries."""
        return {
            "name": self.name,
            "algorithm": self.algorithm,
            "task": self.task,
            "seed": self.seed,
            "config": _encode(config_to_dict(self.config)),
            "info": info_to_dict(self.info),
            "queries": self.queries(),
        }

    def close(self) -> None:
        self._storage.close()

    def __enter__(self) -> Study:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Study(name={self.name!r}, algorithm={self.algorithm!r}, storage={self._storage.url!r})"


def _query_id(value: Any) -> int:
    if isinstance(value, Query):
        return value.id
    if isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"A query id is a non-negative integer; got {value!r}.")
    try:
        qid = int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"A query id is a non-negative integer; got {value!r}.") from None
    if qid != value and str(qid) != str(value).strip():
        raise ConfigError(f"A query id is a non-negative integer; got {value!r}.")
    if qid < 0:
        raise ConfigError(f"A query id is a non-negative integer; got {value!r}.")
    return qid


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
) -> Study:
    """Create a study and store it.

    Parameters
    ----------
    name : str
        Unique name of the study in the database.
    algorithm : str
        A registered learner (:func:`safebandits.list_algorithms`).
    info : problem view
        ``instance.public_info()`` (or ``privileged_info()`` for the oracle baselines), or a view built by
        hand with the problem's arms, known parameters, threshold and safe action.
    config : dict or LearnerConfig, optional
        The learner's config (registry defaults otherwise).
    storage : str, default "sqlite:///study.db"
        Database URL: ``sqlite:///file.db`` or any SQLAlchemy URL (``postgresql://user@host/db``).
    seed : int, optional
        Seed of the learner's randomness (drawn from the OS and stored when omitted).
    load_if_exists : bool, default False
        Return the stored study of that name instead of failing (its stored definition wins).

    Raises
    ------
    ConfigError
        Unknown algorithm, invalid config, an info the learner does not accept, or a name in use.
    """
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"A study name must be a non-empty string; got {name!r}.")
    entry = get_algorithm(algorithm)
    cfg = config if isinstance(config, LearnerConfig) else entry.config(**(config or {}))
    if seed is None:
        seed = int(np.random.SeedSequence().entropy)  # type: ignore[arg-type]
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ConfigError(f"The 'seed' of a study must be a non-negative integer. Got {seed!r} instead.")
    task = entry.task
    info_json = json.dumps(info_to_dict(info), separators=(",", ":"))
    # Fail early: the learner must accept this view, and the view must survive storage exactly.
    try:
        entry.cls(cfg, info_from_dict(json.loads(info_json)), np.random.default_rng(0))
    except (TypeError, AttributeError) as exc:
        raise ConfigError(f"Algorithm {algorithm!r} cannot run on a {type(info).__name__}: {exc}") from None
    feedback_spec(info)
    store = open_storage(storage)
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
            row = (algorithm, task, json.dumps(_encode(config_to_dict(cfg))), info_json, str(int(seed)))
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
    return Study(store, name, row)


def load_study(name: str, storage: str | Storage = DEFAULT_STORAGE) -> Study:
    """Reopen the study ``name`` (in any process); its learner is rebuilt by replaying the stored queries."""
    store = open_storage(storage, create=False)
    with store.transaction(name) as tx:
        rows = tx.execute(f"SELECT {_COLUMNS} FROM sb_studies WHERE name = :n", {"n": name})
        if not rows:
            names = [r[0] for r in tx.execute("SELECT name FROM sb_studies ORDER BY name")]
    if not rows:
        store.close()
        raise ConfigError(f"No study named {name!r} in {store.url}. Studies there: {names or 'none'}.")
    study = Study(store, name, rows[0])
    with study._transaction(write=False):
        pass
    return study


def list_studies(storage: str | Storage = DEFAULT_STORAGE) -> list[str]:
    """Names of the studies stored in ``storage``."""
    store = open_storage(storage, create=False)
    with store.transaction() as tx:
        return [r[0] for r in tx.execute("SELECT name FROM sb_studies ORDER BY name")]


def _version() -> str:
    from safebandits import __version__

    return __version__
