"""One open study (:class:`Study`): its learner replayed from the database, ask / tell / expire, and
what it shows (summary, queries, recommendation). See :mod:`safebandits.study.study` for the model."""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import warnings
from collections.abc import Iterator
from typing import Any

import numpy as np

from safebandits._limits import MAX_EXPIRE_SECONDS
from safebandits.algorithms._observation import check_observation
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
from safebandits.study.query import NoQueryAvailable, Query, StudyIntegrityError, UnknownQuery, _now
from safebandits.study.snapshot import (
    DEFAULT_SNAPSHOT_EVERY,
    SnapshotError,
    decode_state,
    encode_state,
    library_version,
    next_decision,
    same_state,
)
from safebandits.study.storage import Storage, Transaction
from safebandits.study.validation import check_query_id
from safebandits.study.words import recommendation_words
from safebandits.types import BatchObservation, Decision, Observation, Recommendation

__all__ = ["Study"]


_SETTINGS_KEY = "__study__"  # study settings (max_open, split_batches, problem) stored beside the config


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
        config = json.loads(config_json)
        settings = config.pop(_SETTINGS_KEY, {}) if isinstance(config, dict) else {}
        self.config: LearnerConfig = self._entry.config(**_decode(config))
        self.max_open: int = int(settings.get("max_open", 1))
        self.split_batches: bool = bool(settings.get("split_batches", self.max_open > 1))
        #: Answered queries between two snapshots of the learner (0: never; see :mod:`~.snapshot`).
        self.snapshot_every: int = int(settings.get("snapshot_every", DEFAULT_SNAPSHOT_EVERY))
        self._row = row
        self._use_snapshots = True
        self._snapshot_failed = False
        self.problem: dict[str, Any] | None = settings.get("problem")
        # A study made from a declared problem: {"problem": its to_dict(), "kind": ..., "horizon": ...}
        self._declared: dict[str, Any] | None = settings.get("declaration")
        self.info = info_from_dict(json.loads(info_json))
        self.seed = int(seed)
        self.spec = feedback_spec(self.info)
        self._learner: BaseLearner | None = None
        self._reset()

    @property
    def _handout(self) -> bool:
        """Hand-out mode: ``ask`` never returns a query that is out (else: the one open query again)."""
        return self.max_open > 1 or self.split_batches

    # -- state -----------------------------------------------------------------------------------
    def _reset(self) -> None:
        """Forget the in-memory learner; the next operation rebuilds it from the database."""
        self._learner = None
        self._n_seen = 0  # first seq after the last decision told to the learner
        self._n_told = 0  # answered queries (rows)
        self._n_rows = 0  # stored queries (rows)
        # The learner's decision awaiting answers: (first seq, decision, number of rows, split?) and its
        # rows {seq: [Query, observation dict or None]}.
        self._batch: tuple[int, Decision, int, bool] | None = None
        self._rows: dict[int, list[Any]] = {}
        self._arm_counts: dict[int, int] = {}
        self._snap_seq = 0  # first seq after the stored snapshot of the learner (0: none known)
        self._loaded_from: int | None = None  # the snapshot the learner was restored from (None: replay)
        self._rejected = False  # the stored snapshot could not be used: the next one replaces it
        self._replayed = 0  # decisions this process replayed since its learner was built or restored

    def _new_learner(self) -> BaseLearner:
        rng = learner_rng(RunKey(self.seed, 0, self.algorithm, 0))
        return self._entry.cls(self.config, self.info, rng)

    def _aggregate(self, decision: Decision) -> Observation | BatchObservation:
        """The learner's observation of the awaited decision from its answered rows (in seq order)."""
        rows = [self._rows[s] for s in sorted(self._rows)]
        if len(rows) == 1 and rows[0][0].part_of is None:
            return observation_from_dict(rows[0][1])
        counts = np.asarray(decision.counts, dtype=np.int64)
        k, m = counts.shape[0], self.spec.n_constraints
        c_sums = np.zeros((k, m)) if m > 0 else None
        r_sums = np.zeros(k) if self.spec.reward else None
        for query, obs_dict in rows:
            obs = observation_from_dict(obs_dict)
            arm = int(query.decision.arm)
            if c_sums is not None:
                c_sums[arm] += np.asarray(obs.constraints, dtype=float)
            if r_sums is not None:
                r_sums[arm] += float(obs.reward)
        return BatchObservation(counts=counts, constraint_sums=c_sums, reward_sums=r_sums)

    def _complete_if_answered(self) -> None:
        """Tell the learner the awaited decision once every one of its rows is answered."""
        assert self._batch is not None and self._learner is not None
        first, decision, size, _ = self._batch
        if len(self._rows) < size or any(obs is None for _, obs in self._rows.values()):
            return
        self._learner.tell(decision, self._aggregate(decision))
        if decision.arm is not None:
            self._arm_counts[int(decision.arm)] = self._arm_counts.get(int(decision.arm), 0) + 1
        self._n_seen = first + size
        self._batch = None
        self._rows = {}

    def _complete_at_last_row(self, seq: int) -> None:
        if self._batch is not None and seq == self._batch[0] + self._batch[2] - 1:
            self._complete_if_answered()

    # -- snapshots ---------------------------------------------------------------------------------
    def _restore(self, tx: Transaction) -> BaseLearner | None:
        """The learner of the stored snapshot, with the study's counters set to it; ``None`` when there is
        no snapshot this process may use (then everything is replayed; :mod:`~.snapshot` says when)."""
        if not (self._use_snapshots and getattr(self._storage, "snapshots", False)):
            return None
        rows = tx.execute(
            "SELECT seq, library, check_json, state FROM sb_snapshots WHERE study = :s", {"s": self.name}
        )
        if not rows:
            return None
        learner = self._restored(tx, *rows[0])
        self._rejected = learner is None
        return learner

    def _restored(self, tx: Transaction, seq: Any, library: Any, check: Any, text: Any) -> BaseLearner | None:
        if library != library_version() or not isinstance(seq, int) or seq < 1 or not isinstance(text, str):
            return None
        last = tx.execute(
            "SELECT observation_json FROM sb_queries WHERE study = :s AND seq = :q",
            {"s": self.name, "q": seq - 1},
        )
        if not last or last[0][0] is None:  # (the rows it folds in are not all stored and answered)
            return None
        try:
            state = decode_state(text)
        except SnapshotError:
            return None
        learner, counts = state.get("learner"), state.get("arm_counts")
        if (
            type(learner) is not self._entry.cls
            or config_to_dict(learner.config) != config_to_dict(self.config)
            or not isinstance(counts, dict)
            or next_decision(learner) != check
        ):
            return None
        self._n_seen = self._n_told = self._n_rows = self._snap_seq = self._loaded_from = seq
        self._arm_counts = {int(a): int(n) for a, n in counts.items()}
        return learner

    def _write_snapshot(self, tx: Transaction) -> None:
        """Store the learner's state now (every row before ``_n_seen`` answered and told)."""
        assert self._batch is None and self._learner is not None
        try:
            text = encode_state({"learner": self._learner, "arm_counts": dict(self._arm_counts)})
        except Exception as exc:  # (a plugin's learner that does not pickle: loads replay everything)
            self._snapshot_failed = True
            warnings.warn(
                f"Study {self.name!r}: the learner {type(self._learner).__name__} cannot be saved "
                f"({type(exc).__name__}: {exc}); loading the study replays every answer.",
                RuntimeWarning,
                stacklevel=3,
            )
            return
        tx.execute("DELETE FROM sb_snapshots WHERE study = :s", {"s": self.name})
        tx.execute(
            "INSERT INTO sb_snapshots (study, seq, library, check_json, state, created_at) "
            "VALUES (:s, :q, :l, :c, :x, :t)",
            {"s": self.name, "q": self._n_seen, "l": library_version(), "c": next_decision(self._learner),
             "x": text, "t": _now()},
        )  # fmt: skip
        self._snap_seq = self._n_seen
        self._rejected = False

    def _snapshot_due(self, tx: Transaction) -> bool:
        """Whether the learner's state should be stored now: ``snapshot_every`` answers or more since the
        stored snapshot (another process may have stored a later one: the table says)."""
        if not (
            self._use_snapshots
            and self.snapshot_every > 0
            and not self._snapshot_failed
            and getattr(self._storage, "snapshots", False)
            and self._batch is None
            and self._learner is not None
            and self._n_seen - self._snap_seq >= self.snapshot_every
        ):
            return False
        rows = tx.execute("SELECT seq, library FROM sb_snapshots WHERE study = :s", {"s": self.name})
        if rows and not self._rejected and rows[0][1] == library_version() and isinstance(rows[0][0], int):
            self._snap_seq = max(self._snap_seq, min(rows[0][0], self._n_seen))
        return self._n_seen - self._snap_seq >= self.snapshot_every

    def _sync(self, tx: Transaction) -> None:
        """Replay the rows stored since this process last looked (the first time: since the snapshot,
        or all of them)."""
        if self._learner is None:
            self._learner = self._restore(tx) or self._new_learner()
        start = self._n_seen if self._batch is None else self._batch[0]
        rows = tx.execute(
            "SELECT seq, decision_json, observation_json, asked_at FROM sb_queries "
            "WHERE study = :s AND seq >= :start ORDER BY seq",
            {"s": self.name, "start": start},
        )
        try:
            for seq, decision_json, obs_json, asked_at in rows:
                seq = int(seq)
                known = self._rows.get(seq)
                if known is not None:  # a row of the awaited decision: answered or expired since?
                    query = known[0]
                    if (asked_at or "") != query.asked_at:
                        known[0] = Query(query.id, query.decision, asked_at or "", query.part_of, query.parts)
                    if known[1] is None and obs_json is not None:
                        known[1] = json.loads(obs_json)
                        self._n_told += 1
                    self._complete_at_last_row(seq)
                    continue
                stored = json.loads(decision_json)
                if self._batch is None:
                    if seq != self._n_seen:
                        raise StudyIntegrityError(
                            f"Study {self.name!r}: query {seq} follows an unanswered query or a gap."
                        )
                    decision = self._learner.ask()
                    self._replayed += 1
                    split = "parts" in stored
                    expected = stored.get("batch") if split else stored
                    if decision_to_dict(decision) != expected:
                        raise StudyIntegrityError(
                            f"Study {self.name!r}: replaying query {seq} gave {decision_to_dict(decision)}, "
                            f"but {json.dumps(expected)} is stored. The database was edited, or the library "
                            "version changes the algorithm's decisions."
                        )
                    self._batch = (seq, decision, int(stored["parts"]) if split else 1, split)
                first, decision, size, split = self._batch
                if seq >= first + size:
                    raise StudyIntegrityError(
                        f"Study {self.name!r}: query {seq} follows an unanswered query or a gap."
                    )
                query_decision = Decision(arm=int(stored["arm"])) if split else decision
                query = Query(seq, query_decision, asked_at or "", first if split else None, size)
                obs = None if obs_json is None else json.loads(obs_json)
                self._rows[seq] = [query, obs]
                self._n_told += obs is not None
                self._n_rows = max(self._n_rows, seq + 1)
                self._complete_at_last_row(seq)
        except BaseException:
            self._reset()
            raise

    @contextlib.contextmanager
    def _transaction(self, write: bool) -> Iterator[Transaction]:
        try:
            with self._storage.transaction(self.name, write=write) as tx:
                self._sync(tx)
                yield tx
                due = self._snapshot_due(tx)
                if write and due:
                    self._write_snapshot(tx)
        except BaseException:
            # The learner may hold an ask or tell whose transaction did not commit: rebuild next time.
            self._reset()
            raise
        if not write and due:
            self._snapshot_after_read()

    def _snapshot_after_read(self) -> None:
        """After a read that replayed many answers (a study without a snapshot yet, e.g. one written
        before snapshots existed): store one, so the next load is quick. A cache: never fails the read."""
        if getattr(self._storage, "read_only", True):
            return
        with contextlib.suppress(SafeBanditsError):
            with self._storage.transaction(self.name, write=True) as tx:
                self._sync(tx)
                if self._snapshot_due(tx):
                    self._write_snapshot(tx)

    def verify(self) -> dict[str, Any]:
        """Replay every stored answer from the first, ignoring the snapshot, and check that the learner
        it gives is the one this study holds (restored from its snapshot and the answers since).

        Returns
        -------
        dict
            ``n_answered``, ``snapshot_seq`` (the queries the stored snapshot folds in; 0: none) and
            ``identical`` (True).

        Raises
        ------
        StudyIntegrityError
            The replay gives another learner than the snapshot (or a stored decision is not what the
            algorithm decides).
        """
        for _ in range(5):  # (another process may answer between the two reads: then read again)
            restored, full = (Study(self._storage, self.name, self._row) for _ in range(2))
            full._use_snapshots = False
            with restored._transaction(write=False):
                snapshot_seq = restored._snap_seq
            with full._transaction(write=False):
                pass
            mine = (restored._n_told, restored._n_rows, restored._arm_counts)
            theirs = (full._n_told, full._n_rows, full._arm_counts)
            same = theirs == mine and same_state(full._learner, restored._learner)
            if theirs[1] == mine[1]:
                break
        if not same:
            raise StudyIntegrityError(
                f"Study {self.name!r}: replaying every answer gives another learner than its snapshot "
                f"(after query {snapshot_seq}) and the answers since. The database was edited, or this "
                "library version changes the algorithm's state. Loading with snapshots=False replays "
                "everything."
            )
        return {"n_answered": mine[0], "snapshot_seq": snapshot_seq, "identical": True}

    def _open_queries(self) -> list[Query]:
        return [q for s, (q, obs) in sorted(self._rows.items()) if obs is None and q.asked_at]

    def _issue(self, tx: Transaction, query: Query) -> Query:
        issued = Query(query.id, query.decision, _now(), query.part_of, query.parts)
        tx.execute(
            "UPDATE sb_queries SET asked_at = :t WHERE study = :s AND seq = :q",
            {"t": issued.asked_at, "s": self.name, "q": issued.id},
        )
        self._rows[issued.id][0] = issued
        return issued

    # -- protocol --------------------------------------------------------------------------------
    def ask(self) -> Query:
        """Hand out a query.

        With ``max_open=1`` (the default): the open query, or a new one if every query is answered.
        In hand-out mode (``max_open > 1`` or ``split_batches``): an expired query first, else a new
        one while fewer than ``max_open`` are out and the learner's current decision has pulls left
        (a sequential learner's decision is one pull, so it has at most one open query).

        Raises
        ------
        NoQueryAvailable
            Hand-out mode only: every query that can be handed out now is out.
        ProtocolError
            If the study is done.
        """
        with self._transaction(write=True) as tx:
            if self._batch is not None:
                open_queries = self._open_queries()
                if not self._handout:
                    query = next(iter(self._rows.values()))[0]
                    return query if query.asked_at else self._issue(tx, query)
                free = [q for s, (q, obs) in sorted(self._rows.items()) if obs is None and not q.asked_at]
                if free and len(open_queries) < self.max_open:
                    return self._issue(tx, free[0])
                ids = [q.id for q in open_queries]
                why = (
                    f"the limit of {self.max_open} open queries is reached"
                    if free
                    else "the learner's next decision needs their answers"
                    + (" (it is sequential: one open query at a time)" if self._batch[2] == 1 else "")
                )
                raise NoQueryAvailable(
                    f"Study {self.name!r}: queries {ids} are out and {why}. Answer one, or return "
                    "abandoned ones with study.expire()."
                )
            if self._is_done():
                raise ProtocolError(f"Study {self.name!r} is done; see recommend() and summary().")
            decision = self._learner.ask()  # type: ignore[union-attr]
            first, now = self._n_seen, _now()
            if self.split_batches and decision.is_batch:
                arms = np.repeat(np.arange(len(decision.counts)), np.asarray(decision.counts, dtype=np.int64))
                size = int(arms.size)
                self._batch = (first, decision, size, True)
                for j, arm in enumerate(arms.tolist()):
                    stored: dict[str, Any] = {"arm": int(arm), "part_of": first, "parts": size}
                    if j == 0:
                        stored["batch"] = decision_to_dict(decision)
                    q = Query(first + j, Decision(arm=int(arm)), now if j == 0 else "", first, size)
                    tx.execute(
                        "INSERT INTO sb_queries (study, seq, decision_json, asked_at) "
                        "VALUES (:s, :q, :d, :t)",
                        {"s": self.name, "q": q.id, "d": dumps(stored), "t": q.asked_at},
                    )
                    self._rows[q.id] = [q, None]
            else:
                q = Query(first, decision, now)
                tx.execute(
                    "INSERT INTO sb_queries (study, seq, decision_json, asked_at) VALUES (:s, :q, :d, :t)",
                    {"s": self.name, "q": q.id, "d": dumps(decision_to_dict(decision)), "t": now},
                )
                self._batch = (first, decision, 1, False)
                self._rows[q.id] = [q, None]
            self._n_rows = first + len(self._rows)
            return self._rows[first][0]

    def tell(self, query_id: int | str, observation: Any) -> None:
        """Record the answer to query ``query_id``.

        Parameters
        ----------
        query_id : int
            The :attr:`Query.id` returned by :meth:`ask`.
        observation : number, dict, Observation or BatchObservation
            One pull (including one pull of a split batch): ``{"reward": r, "constraints": [c_1, ...,
            c_m]}`` (keys the problem observes), or a bare number when it observes exactly one value (e.g.
            ``-1`` for binary feedback). A whole batch query: ``{"constraint_sums": [[...]],
            "reward_sums": [...]}`` per arm of the query.

        Raises
        ------
        UnknownQuery
            Unknown query id (a :class:`ConfigError`).
        ConfigError
            An answer that is not what the problem observes (missing or extra values, wrong shape, NaN,
            out of range such as not +-1 for binary feedback). Nothing is stored.
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
                raise UnknownQuery(
                    f"Study {self.name!r} has no query {qid} (queries 0..{self._n_rows - 1} were asked)."
                )
            if rows[0][0] is not None:
                raise ProtocolError(
                    f"Query {qid} of study {self.name!r} was already told; answers are final."
                )
            assert qid in self._rows
            query = self._rows[qid][0]
            # The one check of the answer: parsed and checked against what the study observes, which is
            # what its learner observes (its spec is the study's; a plugin's learner may observe more,
            # and is then checked against its own spec as well). Stored rows are trusted on replay.
            obs = parse_observation(observation, query.decision, self.spec)
            learner = self._learner
            assert learner is not None
            own = learner.observation_spec()
            if own is not None and own != self.spec:
                try:
                    check_observation(query.decision, obs, own, type(learner).__name__)
                except (TypeError, ProtocolError) as exc:
                    raise ConfigError(str(exc)) from None
            obs_dict = observation_to_dict(obs)
            tx.execute(
                "UPDATE sb_queries SET observation_json = :o, told_at = :t "
                "WHERE study = :s AND seq = :q AND observation_json IS NULL",
                {"o": dumps(obs_dict), "t": _now(), "s": self.name, "q": qid},
            )
            # What a replay reads back: the stored JSON, not the in-memory floats.
            self._rows[qid][1] = json.loads(dumps(obs_dict))
            self._n_told += 1
            self._complete_if_answered()

    def expire(self, older_than: float | None = None, ids: Any = None) -> list[int]:
        """Return abandoned open queries to the pool; ``ask`` re-issues them (same id) first.

        Parameters
        ----------
        older_than : float, optional
            Expire the open queries handed out more than this many seconds ago.
        ids : iterable of int, optional
            Expire these open queries. With neither argument, every open query expires.

        Returns
        -------
        list of int
            The ids that expired. An answer to an expired query is still accepted (the first one wins).
        """
        if older_than is not None and (
            isinstance(older_than, bool)
            or not isinstance(older_than, (int, float, np.integer, np.floating))
            or not 0 <= float(older_than) <= MAX_EXPIRE_SECONDS
        ):
            raise ConfigError(
                f"'older_than' must be a number of seconds in [0, {MAX_EXPIRE_SECONDS:.0e}]. Got "
                f"{older_than!r:.40} instead."
            )
        wanted = None if ids is None else {_query_id(i) for i in ids}
        cutoff = None
        if older_than is not None:
            cutoff = _dt.datetime.now(_dt.timezone.utc) - _dt.timedelta(seconds=float(older_than))
        out = []
        with self._transaction(write=True) as tx:
            for q in self._open_queries():
                if wanted is not None and q.id not in wanted:
                    continue
                if cutoff is not None and _dt.datetime.fromisoformat(q.asked_at) > cutoff:
                    continue
                tx.execute(
                    "UPDATE sb_queries SET asked_at = '' WHERE study = :s AND seq = :q",
                    {"s": self.name, "q": q.id},
                )
                self._rows[q.id][0] = Query(q.id, q.decision, "", q.part_of, q.parts)
                out.append(q.id)
        return out

    # -- read-only views -------------------------------------------------------------------------
    @property
    def storage_url(self) -> str:
        """The storage URL with any password replaced by ``***``."""
        return self._storage.url

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
        """The first open query, if any (see :attr:`open_queries` for all of them)."""
        with self._transaction(write=False):
            open_queries = self._open_queries()
            return open_queries[0] if open_queries else None

    @property
    def open_queries(self) -> list[Query]:
        """The queries handed out and not answered yet (not the expired ones), in id order."""
        with self._transaction(write=False):
            return self._open_queries()

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

        ``arm_estimates`` (:meth:`~safebandits.records.ArmEstimates.to_dict`: per-arm estimates and
        intervals), ``confidence_bounds``, ``safe_set`` and ``diagnostics`` appear where the learner has
        them; for constrained best-arm identification ``feasible_set`` lists the arms certified feasible
        (upper confidence bound at most the threshold). A study made from a declared problem has
        ``declaration``: its ``setting`` and the ``kind`` of view the learner reads. The recommendation's
        ``words`` say it in a sentence (:func:`~safebandits.study.words.recommendation_words`).
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
                "n_queries": self._n_rows,
                "n_answered": self._n_told,
                "n_samples": learner.n_samples,
                "max_open": self.max_open,
                "split_batches": self.split_batches,
                "open_queries": [q.to_dict() for q in self._open_queries()],
                "pending": next((q.to_dict() for q in self._open_queries()), None),
                "done": self._is_done(),
                "recommendation": {"arm": rec.arm, "final": rec.final, "info": jsonable(rec.info)},
            }
            if self._declared is not None:  # made from a declared problem: its setting and the view read
                setting = self._declared["problem"].get("setting")
                out["declaration"] = {"setting": setting, "kind": self.declared_kind}
            estimates = _arm_estimates(learner)
            if estimates is not None:
                out["arm_estimates"] = estimates.to_dict()
            horizon = getattr(self.info, "horizon", None)
            out["recommendation"]["words"] = recommendation_words(
                out, horizon if isinstance(horizon, int) else None
            )
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

    def queries(
        self,
        start: int = 0,
        limit: int | None = None,
        *,
        answered: bool | None = None,
        newest_first: bool = False,
    ) -> list[dict[str, Any]]:
        """Stored queries with their answers (``None`` while open), in id order: every one by default, or a
        page of them.

        ``decision`` is what was stored: for one pull of a split batch ``{"arm", "part_of", "parts"}``
        (the first pull also holds the whole ``batch``); ``asked_at`` is ``""`` for a pull not handed out
        (or expired).

        Parameters
        ----------
        start : int, default 0
            Only the queries with ``id >= start``.
        limit : int, optional
            At most this many queries.
        answered : bool, optional
            Only the answered (True) or the unanswered (False) queries.
        newest_first : bool, default False
            Highest id first (with ``limit``: the latest queries).
        """
        start = check_query_id(start)
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or not 0 <= limit <= 2**63 - 1
        ):
            raise ConfigError(f"'limit' must be a non-negative integer or None. Got {limit!r:.40} instead.")
        if answered is not None and not isinstance(answered, bool):
            raise ConfigError(f"'answered' must be True, False or None. Got {answered!r:.40} instead.")
        where = {True: " AND observation_json IS NOT NULL", False: " AND observation_json IS NULL"}
        sql = (
            "SELECT seq, decision_json, observation_json, asked_at, told_at FROM sb_queries "
            f"WHERE study = :s AND seq >= :start{where.get(answered, '')} "
            f"ORDER BY seq{' DESC' if newest_first else ''}"
        )
        params: dict[str, Any] = {"s": self.name, "start": start}
        if limit is not None:
            sql += " LIMIT :limit"
            params["limit"] = int(limit)
        with self._storage.transaction(self.name) as tx:
            rows = tx.execute(sql, params)
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

    def answered_arms(self) -> list[int]:
        """The arm of each answered single-arm query, in id order (what the study played, for curves)."""
        with self._storage.transaction(self.name) as tx:
            rows = tx.execute(
                "SELECT decision_json FROM sb_queries WHERE study = :s AND observation_json IS NOT NULL "
                "ORDER BY seq",
                {"s": self.name},
            )
        arms = (json.loads(r[0]).get("arm") for r in rows)
        return [int(a) for a in arms if a is not None]

    def answer_times(self) -> list[str]:
        """When each answer was stored (UTC, ISO 8601), in that order: the study's pace, read without the
        queries themselves."""
        with self._storage.transaction(self.name) as tx:
            rows = tx.execute(
                "SELECT told_at FROM sb_queries WHERE study = :s AND told_at IS NOT NULL ORDER BY told_at",
                {"s": self.name},
            )
        return [r[0] for r in rows]

    def export(self) -> dict[str, Any]:
        """The whole study as JSON-ready data: its definition (with the stored problem view) and queries."""
        return {
            "name": self.name,
            "algorithm": self.algorithm,
            "task": self.task,
            "seed": self.seed,
            "config": _encode(config_to_dict(self.config)),
            "settings": self._settings(),
            "info": info_to_dict(self.info),
            "queries": self.queries(),
        }

    def _settings(self) -> dict[str, Any]:
        out = {
            "max_open": self.max_open,
            "split_batches": self.split_batches,
            "problem": self.problem,
            "snapshot_every": self.snapshot_every,
        }
        if self._declared is not None:
            out["declaration"] = self._declared
        return out

    @property
    def declaration(self) -> Any | None:
        """The declared problem the study was made from (a :class:`~safebandits.problems.declare.Problem`
        rebuilt from its stored ``to_dict()``), or ``None`` for a study made from a problem view."""
        if self._declared is None:
            return None
        from safebandits.problems.settings import problem_from_dict

        return problem_from_dict(self._declared["problem"])

    @property
    def declared_kind(self) -> str | None:
        """The info kind of the declaration the learner reads (``"k-armed"``, ``"transductive"``, ...), or
        ``None`` for a study made from a problem view."""
        return None if self._declared is None else str(self._declared["kind"])

    def close(self) -> None:
        self._storage.close()

    def __enter__(self) -> Study:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Study(name={self.name!r}, algorithm={self.algorithm!r}, storage={self._storage.url!r})"


def _arm_estimates(learner: Any) -> Any:
    """``learner.arm_estimates()`` where the learner has it and it is defined now, else None."""
    method = getattr(learner, "arm_estimates", None)
    if method is None:
        return None
    try:
        return method()
    except Exception:  # (a plugin's learner whose estimates are undefined in this state)
        return None


def _query_id(value: Any) -> int:
    if isinstance(value, Query):
        return value.id
    return check_query_id(value)
