"""What an open study shows without changing it: progress, open queries, the recommendation, the summary,
the stored queries and the export (the read-only half of :class:`~safebandits.study.session.Study`)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from safebandits.algorithms.base import BaseLearner, config_to_dict
from safebandits.exceptions import ConfigError
from safebandits.study.codec import _encode, info_to_dict, jsonable
from safebandits.study.conservative import MAX_RECORD_ROUNDS, conservative_record, is_conservative
from safebandits.study.query import Query
from safebandits.study.replay import Replayed
from safebandits.study.validation import check_query_id
from safebandits.study.words import recommendation_words
from safebandits.types import Recommendation

__all__ = ["Reading"]


class Reading(Replayed):
    """The read-only views of a study (each brings the learner up to date first, or reads the rows)."""

    # (set by Study.__init__)
    task: str
    max_open: int
    split_batches: bool
    problem: dict[str, Any] | None
    _declared: dict[str, Any] | None

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

    @property
    def applied_config(self) -> dict[str, Any]:
        """Every option of the learner as it applies it (each default it resolved, e.g. ``epsilon`` from
        the problem or ``gp_noise="theory"`` as a number; :meth:`~safebandits.algorithms.base.BaseLearner.
        applied_config`), JSON-ready: the ``config`` of the summary and of the API's create reply."""
        with self._transaction(write=False):
            return self._applied_config(self._learner)

    def _applied_config(self, learner: Any) -> dict[str, Any]:
        applied = getattr(learner, "applied_config", None)
        return jsonable(applied() if callable(applied) else config_to_dict(self.config))

    def summary(self, *, conservative: bool = True) -> dict[str, Any]:
        """JSON-ready state: counts, open query, recommendation and the learner's read-only diagnostics.

        ``arm_estimates`` (:meth:`~safebandits.records.ArmEstimates.to_dict`: per-arm estimates and
        intervals), ``confidence_bounds``, ``safe_set`` and ``diagnostics`` appear where the learner has
        them; for constrained best-arm identification ``feasible_set`` lists the arms certified feasible
        (upper confidence bound at most the threshold). A study made from a declared problem has
        ``declaration``: its ``setting`` and the ``kind`` of view the learner reads. The recommendation's
        ``words`` say it in a sentence (:func:`~safebandits.study.words.recommendation_words`).
        ``assumption_contradicted`` is ``None``, or the flag raised when the learner's confidence intervals
        lie wholly beyond a bound the problem declares (``round``: the answers so far, ``what``, ``text``).
        A conservative study has ``conservative``, its record without the rounds (:meth:`conservative`),
        unless ``conservative=False`` (a caller that reads the record itself, or not at all: it reads
        every answered row).
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
                "config": self._applied_config(learner),
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
            out["assumption_contradicted"] = self._assumption_flag(learner)
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
        if conservative and is_conservative(self.info):  # the record without its rounds (conservative())
            record = self._conservative_record()
            out["conservative"] = {k: v for k, v in record.items() if k != "rounds"}
        return out

    def conservative(self) -> dict[str, Any] | None:
        """The conservative constraint's record of the answered rounds (:func:`~safebandits.study.
        conservative.conservative_record`: per round the learner's pessimistic margin and, with a truth
        attached, the margin under the truth and whether it is violated; the guarantee in the problem's
        numbers), or ``None`` for a study of another problem."""
        if not is_conservative(self.info):
            return None
        return self._conservative_record()

    def _conservative_record(self) -> dict[str, Any]:
        rows = self.queries(answered=True, limit=MAX_RECORD_ROUNDS)
        return conservative_record(self.info, rows, getattr(self, "truth", None), self._guarantee())

    def _guarantee(self) -> str:
        """The learner's guarantee in the study's numbers (the declaration's, else the view's)."""
        from safebandits.algorithms.compatibility import guarantee_statement

        horizon = getattr(self.info, "horizon", None)
        problem = self.declaration if self._declared is not None else self.info
        try:
            options = config_to_dict(self.config)
            return guarantee_statement(problem, self.algorithm, options, horizon=horizon)
        except Exception:  # (a plugin's learner: its registry entry says no more)
            return ""

    def _assumption_flag(self, learner: Any) -> dict[str, Any] | None:
        """The "assumption contradicted" flag of a study now (:mod:`safebandits.experiments.watch`): the
        learner's confidence intervals after ``n_answered`` answers against the bounds its problem
        declares; ``None`` when none lies wholly beyond them. (Bounded outcomes outside their range are
        refused by :meth:`~safebandits.study.session.Study.tell`, never stored.)"""
        from safebandits.experiments.watch import learner_flags

        flags = learner_flags(learner, self.info, self._n_told)
        if not flags:
            return None
        first = flags[0]
        text = f"after {first.round} answers: {first.what}"
        return {"round": first.round, "what": first.what, "text": text}

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
        if getattr(self, "truth", None) is not None:
            out["truth"] = self.truth
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


def _arm_estimates(learner: Any) -> Any:
    """``learner.arm_estimates()`` where the learner has it and it is defined now, else None."""
    method = getattr(learner, "arm_estimates", None)
    if method is None:
        return None
    try:
        return method()
    except Exception:  # (a plugin's learner whose estimates are undefined in this state)
        return None
