"""What the classical dose-finding designs (CRM, BOIN) share: a trial of cohorts on K ordered doses.

A design reads a dose problem (a :class:`~safebandits.problems.declare_covariate.CovariateProblem`)
through its ``"dose"`` view (when the structure is declared; the structure itself is unused) or its
``"k-armed"`` view: the K doses in increasing order, the target toxicity ``phi`` as the limit
``threshold``, the known safe (lowest) dose as the start; it observes each patient's toxicity (the first
cost, 0 or 1). It decides once per cohort of ``cohort_size`` patients: ``ask`` returns the same dose until
the cohort is complete, then the design's rule (:meth:`CohortDesign._next_dose`) picks the next cohort's
dose or stops the trial for toxicity. A problem whose feedback is not 0 / 1 toxicity (Bernoulli) is refused
at start (:class:`~safebandits.exceptions.CannotStartError`).

The trial ends after ``max_patients`` patients or at a safety stop; :meth:`CohortDesign.recommend` then
gives the selected maximum tolerated dose (``arm=None`` after a safety stop: no dose is acceptable). The
regret protocol has no end, so a run that goes on after the trial ended treats every later patient at the
selected dose (at the start dose after a safety stop): an expansion cohort at the recommendation, counted
like any other round. ``trial_over`` says when the trial proper ended; the dose-trial runner stops there.

These designs promise nothing per patient (registered guarantee ``"none"``): they carry no certificate.
Choices that the papers leave open: ``docs/decisions/dose.md``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from safebandits._validation import check_array
from safebandits.algorithms.base import BaseLearner
from safebandits.exceptions import CannotStartError, ConfigError, ProtocolError
from safebandits.types import Decision, Observation, Recommendation

__all__ = ["CohortDesign", "check_dose_info"]


def check_dose_info(owner: str, info: Any) -> tuple[int, float, int]:
    """``(K, phi, start)`` of a dose problem's view (``"dose"``: ordered doses; ``"k-armed"``: the doses as
    arms ``I_K``), or a :class:`ConfigError` naming what is wrong."""
    doses = getattr(info, "doses", None)
    if doses is not None:  # (the "dose" view, DoseInfo)
        k, start = int(np.asarray(doses).reshape(-1).shape[0]), int(info.safe_action)
    else:
        arms = check_array(getattr(info, "arms", None), "info.arms", ndim=2, min_rows=1, owner=owner)
        k = arms.shape[0]
        if arms.shape != (k, k) or not np.array_equal(arms, np.eye(k)):
            raise ConfigError(
                f"{owner} reads K ordered doses (the 'dose' view of a dose problem, or its 'k-armed' view: "
                f"arms = I_K). Got arms of shape {arms.shape}."
            )
        start = getattr(info, "safe_arm", None)
        start = 0 if start is None else int(start)
    noise = getattr(info, "noise_kind", None)
    if noise not in ("bernoulli", "binary"):
        raise CannotStartError.build(
            owner,
            f"it reads each patient's toxicity as 0 or 1 (Bernoulli feedback); this problem's feedback is "
            f"{noise!r}",
            notes=("declare Bernoulli feedback (a dose problem's default)",),
        )
    tau = np.atleast_1d(np.asarray(getattr(info, "threshold", None), dtype=float))
    if tau.shape != (1,) or not 0.0 < tau[0] < 1.0:
        raise ConfigError(
            f"{owner} needs one toxicity limit (the target toxicity phi) in (0, 1). Got threshold {tau!r}."
        )
    return k, float(tau[0]), start


class CohortDesign(BaseLearner):
    """A dose-finding trial in cohorts (module docstring); subclasses give the rule and the selection.

    Attributes
    ----------
    n_treated, n_toxic : ndarray of shape (K,)
        Patients treated and toxicities seen at each dose.
    dose : int
        The dose of the current cohort.
    stopped : bool
        The trial stopped for toxicity (even the lowest dose judged too toxic).
    finished_early : bool
        The design ended the trial before ``max_patients`` with a dose selected (a convergence stop,
        such as BOIN's ``early_stop_patients``); set by a subclass's rule.
    """

    def __init__(self, config: Any, info: Any, rng: np.random.Generator) -> None:
        super().__init__(config, info, rng)
        k, phi, start = check_dose_info(type(self).__name__, info)
        self.n_doses, self.target, self.start = k, phi, start
        self.n_treated = np.zeros(k, dtype=np.int64)
        self.n_toxic = np.zeros(k, dtype=np.int64)
        self.dose = start
        self.stopped = False
        self.finished_early = False
        self._in_cohort = 0
        self._cohort_toxic = 0
        self._final: int | None = None  # (the selection, fixed when the trial ends)

    # -- the trial -----------------------------------------------------------------------------------
    @property
    def trial_over(self) -> bool:
        """The trial proper ended: ``max_patients`` treated, a safety stop, or an early end (selected)."""
        return self.stopped or self.finished_early or int(self.n_treated.sum()) >= self.config.max_patients

    def _ask(self, context: Any) -> Decision:
        if context is not None:
            raise ConfigError(f"{type(self).__name__} plays the doses of its problem; pass no context.")
        if self.trial_over:
            rec = self._final
            return Decision(arm=self.start if rec is None else rec)
        return Decision(arm=self.dose)

    def _tell(self, decision: Decision, observation: Observation | Any) -> None:
        if self.trial_over:
            return
        tox = float(np.asarray(observation.constraints, dtype=float).reshape(-1)[0])
        if tox not in (0.0, 1.0):
            raise ConfigError(
                f"{type(self).__name__} observes toxicity as 0 or 1 (Bernoulli feedback). Got {tox!r}."
            )
        j = int(decision.arm)
        self.n_treated[j] += 1
        self.n_toxic[j] += int(tox)
        self._in_cohort += 1
        self._cohort_toxic += int(tox)
        if self._in_cohort < self.config.cohort_size and not self.trial_over:
            return
        had_toxicity = self._cohort_toxic > 0
        self._in_cohort = self._cohort_toxic = 0
        nxt = self._next_dose(had_toxicity)
        if nxt is None:
            self.stopped = True
        else:
            self.dose = nxt
        if self.trial_over:
            self._final = None if self.stopped else self._select()

    # -- the answer -----------------------------------------------------------------------------------
    def recommend(self, anytime: bool = False) -> Recommendation:
        """The selected maximum tolerated dose (``arm``; ``None`` after a safety stop).

        After the trial ended it is final; before, ``anytime=True`` gives the selection on the data so far
        (``final=False``) and without it a :class:`~safebandits.exceptions.ProtocolError` is raised.
        ``info`` holds ``stopped`` (safety stop), ``patients`` and ``toxicities`` per dose.
        """
        self._check_usable("recommend")
        over = self.trial_over
        if not over and not anytime:
            raise ProtocolError(
                f"{type(self).__name__}.recommend called before the trial ended (max_patients "
                f"{self.config.max_patients}, {int(self.n_treated.sum())} treated); pass anytime=True for "
                "the selection on the data so far."
            )
        arm = self._final if over else (None if self.stopped else self._select())
        extras = {
            "stopped": self.stopped,
            "patients": self.n_treated.tolist(),
            "toxicities": self.n_toxic.tolist(),
        }
        return Recommendation(arm=arm, n_samples=self.n_samples, final=over, info=extras)

    # -- the design's rules -------------------------------------------------------------------------
    def _next_dose(self, had_toxicity: bool) -> int | None:
        """The next cohort's dose after a complete cohort (``None``: stop the trial for toxicity)."""
        raise NotImplementedError

    def _select(self) -> int | None:
        """The maximum tolerated dose selected on the data so far."""
        raise NotImplementedError
