"""One open study (:class:`Study`): ask / tell / expire, each one transaction. Its learner, replayed from
the database, is kept by :mod:`~safebandits.study.replay`; what it shows (summary, queries,
recommendation) is :mod:`~safebandits.study.reading`. See :mod:`safebandits.study.study` for the model."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from typing import Any

import numpy as np

from safebandits._limits import MAX_EXPIRE_SECONDS
from safebandits.algorithms._observation import check_observation
from safebandits.algorithms.base import BaseLearner, LearnerConfig
from safebandits.algorithms.registry import get_algorithm
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.study.codec import (
    _decode,
    decision_to_dict,
    dumps,
    feedback_spec,
    info_from_dict,
    observation_to_dict,
    parse_observation,
)
from safebandits.study.conservative import (
    check_declared,
    context_to_dict,
    declared_context,
    is_conservative,
    is_contextual,
    parse_context,
    round_record,
    same_context,
)
from safebandits.study.query import NoQueryAvailable, Query, UnknownQuery, _now
from safebandits.study.reading import Reading
from safebandits.study.snapshot import DEFAULT_SNAPSHOT_EVERY
from safebandits.study.storage import Storage, Transaction
from safebandits.study.validation import check_query_id
from safebandits.types import Decision

__all__ = ["Study"]


_SETTINGS_KEY = "__study__"  # study settings (max_open, split_batches, problem) stored beside the config


class Study(Reading):
    """A named ask / tell study stored in a database (build with :func:`create_study` or
    :func:`load_study`).

    Examples
    --------
    >>> import tempfile, safebandits as sb
    >>> url = f"sqlite:///{tempfile.mkdtemp()}/s.db"
    >>> doses = sb.LinearProblem(arms=[[1, 0], [0, 1], [1, 1]], threshold=0.5, safe_arm=0, safe_cost=0.1,
    ...                          safe_reward=0.2, feedback="bernoulli", horizon=500)
    >>> study = sb.create_study("demo", "opb", doses, storage=url, seed=0)
    >>> q = study.ask()
    >>> study.tell(q.id, {"reward": 1, "constraints": [0]})
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
        #: The ground truth a conservative study was made with (for its record only: the learner never
        #: reads it), ``None`` for a study played against the world.
        self.truth: dict[str, Any] | None = settings.get("truth")
        self.info = info_from_dict(json.loads(info_json))
        self.seed = int(seed)
        self.spec = feedback_spec(self.info)
        self._learner: BaseLearner | None = None
        self._reset()

    @property
    def _contextual(self) -> bool:
        """The study asks with the round's context (:mod:`~safebandits.study.conservative`)."""
        return is_contextual(self.info)

    @property
    def _conservative(self) -> bool:
        """The study records the conservative constraint per round."""
        return is_conservative(self.info)

    def _check_context(self, context: Any) -> Any:
        """The checked context of an ``ask`` (``None`` when none is given; the declared one when the
        study's declaration fixes the actions, and a context given must then be that one)."""
        fixed = self._fixed_context if self._contextual else None
        if context is None:
            return fixed
        if not self._contextual:
            raise ConfigError(
                f"Study {self.name!r} takes no context: its problem ({type(self.info).__name__}) shows no "
                "context each round. Call ask() without one."
            )
        ctx = parse_context(context, self.info, self.name)
        if fixed is not None:
            check_declared(ctx, fixed, self.name)
        return ctx

    @property
    def _fixed_context(self) -> Any:
        """The context every round shows when the declaration fixes the actions (a LinearProblem's
        conservative view), else ``None`` (:func:`~safebandits.study.conservative.declared_context`)."""
        if not hasattr(self, "_fixed"):
            self._fixed = declared_context(self.declaration, self.declared_kind)
        return self._fixed

    @property
    def _handout(self) -> bool:
        """Hand-out mode: ``ask`` never returns a query that is out (else: the one open query again)."""
        return self.max_open > 1 or self.split_batches

    def _open_queries(self) -> list[Query]:
        return [q for s, (q, obs) in sorted(self._rows.items()) if obs is None and q.asked_at]

    def _issue(self, tx: Transaction, query: Query) -> Query:
        issued = dataclasses.replace(query, asked_at=_now())
        tx.execute(
            "UPDATE sb_queries SET asked_at = :t WHERE study = :s AND seq = :q",
            {"t": issued.asked_at, "s": self.name, "q": issued.id},
        )
        self._rows[issued.id][0] = issued
        return issued

    # -- protocol --------------------------------------------------------------------------------
    def ask(self, context: Any = None) -> Query:
        """Hand out a query.

        With ``max_open=1`` (the default): the open query, or a new one if every query is answered.
        In hand-out mode (``max_open > 1`` or ``split_batches``): an expired query first, else a new
        one while fewer than ``max_open`` are out and the learner's current decision has pulls left
        (a sequential learner's decision is one pull, so it has at most one open query).

        Parameters
        ----------
        context : dict or ConservativeContext, optional
            The round's context, for a study whose problem shows one each round (a conservative
            contextual linear problem): ``{"arms": [[...], ...], "baseline": b, "baseline_reward": r}``
            (:func:`~safebandits.study.conservative.parse_context` says what is checked). It is stored
            with the query. A study of a declaration that fixes the actions (a ``LinearProblem``'s
            conservative view: its arms every round, ``safe_arm`` the baseline, ``safe_reward`` its
            reward) fills the context in from the declaration; one given anyway must be that one. While
            a query is open, ``ask()`` or ``ask`` with the same context returns it again; another
            context is refused (tell the open query first). Other studies take none.

        Raises
        ------
        ConfigError
            A context refused (the field named), missing where the problem shows one, or given where it
            shows none.
        NoQueryAvailable
            Hand-out mode only: every query that can be handed out now is out.
        ProtocolError
            If the study is done, or a query asked with another context is open.
        """
        ctx = self._check_context(context)
        with self._transaction(write=True) as tx:
            if self._batch is not None:
                open_queries = self._open_queries()
                if not self._handout:
                    return self._open_again(tx, ctx)
                free = [q for s, (q, obs) in sorted(self._rows.items()) if obs is None and not q.asked_at]
                if free and len(open_queries) < self.max_open:
                    self._check_same_context(free[0], ctx)
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
            if self._contextual and ctx is None:
                parse_context(None, self.info, self.name)  # (raises: the context is needed, and its form)
            learner = self._learner
            assert learner is not None
            decision = learner.ask(ctx) if ctx is not None else learner.ask()
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
                self._store_decision(tx, learner, decision, ctx, first, now)
            self._n_rows = first + len(self._rows)
            return self._rows[first][0]

    def _open_again(self, tx: Transaction, ctx: Any) -> Query:
        """The one open query again (re-issued if it expired); refused when ``ctx`` is another context
        than the one it was asked with."""
        query = next(iter(self._rows.values()))[0]
        self._check_same_context(query, ctx)
        return query if query.asked_at else self._issue(tx, query)

    def _check_same_context(self, query: Query, ctx: Any) -> None:
        """Refuse handing out ``query`` (open, or expired and waiting) for another context than its own:
        the learner's decision was made for that context."""
        if ctx is not None and not same_context(query.context, ctx):
            raise ProtocolError(
                f"Study {self.name!r}: query {query.id} is open, asked with another context; tell its "
                "answer first (or ask() without a context to see it again)."
            )

    def _store_decision(
        self, tx: Transaction, learner: Any, decision: Decision, ctx: Any, first: int, now: str
    ) -> None:
        """Store a whole decision as query ``first``: with the round's context (a contextual study) and
        what the learner certified (a conservative study's record of the round)."""
        row = decision_to_dict(decision)
        if ctx is not None:
            row["context"] = context_to_dict(ctx)
        if self._conservative:
            base = ctx.baseline if ctx is not None else int(self.info.default_arm)
            row["record"] = round_record(learner, decision.arm, base)
        q = Query(first, decision, now, context=row.get("context"))
        tx.execute(
            "INSERT INTO sb_queries (study, seq, decision_json, asked_at) VALUES (:s, :q, :d, :t)",
            {"s": self.name, "q": q.id, "d": dumps(row), "t": now},
        )
        self._batch = (first, decision, 1, False)
        self._rows[q.id] = [q, None]

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
                self._rows[q.id][0] = dataclasses.replace(q, asked_at="")
                out.append(q.id)
        return out

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
    return check_query_id(value)
