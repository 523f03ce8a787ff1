"""Learner protocols (ask / tell) and the small base class every learner builds on.

Regret learners implement ``ask(context=None) -> Decision`` and ``tell(decision, observation)``.
Pure-exploration learners add the ``done`` property and ``recommend()``. A round-based learner may
ask for a batch (``Decision.counts``) and is told a :class:`~safebandits.types.BatchObservation`.

The fast path of a simulation has one name, ``simulate(env, n)`` (:meth:`BaseLearner.simulate`, declared
by :class:`Simulating`): it plays on a simulated environment exactly what ask -> ``env.play`` -> tell
would play (same noise rows, same learner random numbers, same state after it), only faster. The base
class's default *is* that ask / tell loop; a learner with compiled kernels overrides it. The engine
(:func:`~safebandits.experiments.simulate.run`, :func:`~safebandits.experiments.regret_loop.run_regret`)
calls it on every :class:`BaseLearner` and nothing else (no attribute guessing).
"""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple, Protocol, runtime_checkable

import numpy as np

from safebandits._numba import Rebinding
from safebandits._validation import check_int
from safebandits.algorithms._catalogue import class_kinds
from safebandits.algorithms._config import LearnerConfig, config_from_dict, config_to_dict, keyed_config
from safebandits.algorithms._driver import SIMULATE
from safebandits.algorithms._observation import (
    ObservationSpec,
    admissible_single,
    check_observation,
    spec_for_info,
)
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.problems.feedback import Sampler
from safebandits.records import ArmEstimates, Certificate, PlayedBlock
from safebandits.types import BatchObservation, Decision, Observation, Recommendation

__all__ = [
    "BaseLearner",
    "CompiledRounds",
    "Learner",
    "LearnerConfig",
    "PureExplorationLearner",
    "Simulating",
    "config_from_dict",
    "config_to_dict",
    "is_simulating",
    "keyed_config",
    "play_ask_tell",
]


@runtime_checkable
class Learner(Protocol):
    """Regret-minimisation protocol."""

    def ask(self, context: Any = None) -> Decision: ...

    def tell(self, decision: Decision, observation: Observation | BatchObservation) -> None: ...

    def cancel(self) -> None:
        """Withdraw the pending decision without playing it."""
        ...


@runtime_checkable
class PureExplorationLearner(Learner, Protocol):
    """Pure-exploration protocol: ask / tell until ``done``, then ``recommend()``."""

    @property
    def done(self) -> bool: ...

    def recommend(self, anytime: bool = False) -> Recommendation: ...


@runtime_checkable
class Simulating(Protocol):
    """The declared fast path of a simulation (every :class:`BaseLearner` has it).

    ``simulate(env, n)`` plays on a simulated environment what the ask / tell loop would play:

    * regret learners: exactly ``n`` rounds (``n >= 0``) of ask -> ``env.play`` -> tell; returns a
      :class:`~safebandits.records.PlayedBlock` of those rounds (points, and the policies, mean points or
      optimistic values the learner reports);
    * pure-exploration learners: rounds until ``done`` or until ``n`` samples in total are used (a batch
      that would exceed ``n`` is not played); returns ``None`` (the outcome is the learner's own state:
      ``n_samples``, ``done``, ``recommend``).
    """

    def simulate(self, env: Any, n: int) -> PlayedBlock | None: ...


class CompiledRounds(NamedTuple):
    """A learner's block of compiled rounds (:meth:`BaseLearner._sim_block`): the shared driver
    (algorithms/_driver.py; ``None`` when the learner played every row itself), its run record, and the
    first row the driver plays (the rows before it the learner played with the sampler)."""

    driver: Any
    run: Any
    start: int


class BaseLearner(Rebinding):
    """Protocol bookkeeping shared by all learners.

    Subclasses implement ``_ask`` and ``_tell``; this class enforces the order ask -> tell, checks every
    observation before any state changes (:meth:`check_observation`, against :meth:`observation_spec`)
    and counts samples. ``Algorithm(config, info, rng)`` is the constructor shape everywhere.

    A refused ``tell`` raises and leaves the learner exactly as it was: the pending decision is kept,
    ``n_samples`` is unchanged, and the same ``tell`` with a valid observation then works. An exception
    raised *inside* ``_tell`` (after the checks passed) may leave the learner half updated: the learner
    is then marked failed, and every later ``ask``, ``tell`` or ``recommend`` raises a ProtocolError
    naming the original error (build a new learner).

    A learner copies (``copy.deepcopy``) and pickles: the compiled kernels it has bound are bound again
    in the copy, and views of its state kept beside it for speed are made again
    (:class:`~safebandits._numba.Rebinding`: a class that keeps such views names them in ``_views``).
    """

    config_cls: ClassVar[type[LearnerConfig]]
    name: ClassVar[str] = ""

    def __init__(self, config: LearnerConfig, info: Any, rng: np.random.Generator) -> None:
        if not isinstance(config, self.config_cls):
            raise TypeError(
                f"{type(self).__name__} expects a {self.config_cls.__name__}, got {type(config).__name__}."
            )
        if not isinstance(rng, np.random.Generator):
            raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}.")
        kinds = class_kinds(type(self))
        if kinds:
            from safebandits.algorithms.compatibility import check_info

            check_info(type(self).__name__, kinds, info)
        self.config = config
        self.info = info
        self.rng = rng
        self.n_samples = 0
        self._pending: Decision | None = None
        self._failure: str | None = None
        self._info_spec = spec_for_info(info)  # (the default observation_spec, computed once)
        self._has_done = hasattr(type(self), "done")  # (pure-exploration learners stop)

    # -- options as applied ------------------------------------------------------------------------
    def applied_config(self) -> dict[str, Any]:
        """Every option as the learner applies it: the config's fields, with each default it resolves when
        built (a ``None`` that takes the problem's value, ``gp_noise="theory"``, ...) replaced by the value
        it uses. A ``None`` field is resolved from the learner's public attribute of the same name when it
        has a plain value (e.g. the transductive learners' ``epsilon``); a learner adds others in
        :meth:`_applied_options`. The study API's create and status replies carry it (issue 40)."""
        out = config_to_dict(self.config)
        for key, value in out.items():
            if value is None and not key.startswith("_"):
                try:
                    got = getattr(self, key, None)
                except Exception:
                    continue
                if isinstance(got, (bool, int, float, str)):
                    out[key] = got
        out.update(self._applied_options())
        return out

    def _applied_options(self) -> dict[str, Any]:
        """Options resolved at construction that :meth:`applied_config` cannot find by name."""
        return {}

    # -- protocol --------------------------------------------------------------------------------
    def _check_usable(self, what: str) -> None:
        if self._failure is not None:
            raise ProtocolError(
                f"{type(self).__name__}.{what} refused: an earlier tell failed inside the learner "
                f"({self._failure}), so its state is undefined. Build a new learner."
            )

    def ask(self, context: Any = None) -> Decision:
        if self._failure is not None:
            self._check_usable("ask")
        if self._pending is not None:
            raise ProtocolError(f"{type(self).__name__}.ask called twice without tell.")
        if self.done if self._has_done else self.__dict__.get("done", False):
            raise ProtocolError(f"{type(self).__name__}.ask called after the learner stopped (done).")
        decision = self._ask(context)
        self._pending = decision
        return decision

    def observation_spec(self) -> ObservationSpec | None:
        """What one pull's observation holds for this learner (reward? ``m``? feedback values?).

        Default: the spec registered for the type of ``self.info``
        (:func:`~safebandits.algorithms._observation.spec_for_info`); ``None`` when unknown, in which
        case only generic checks apply (types, finiteness, shapes against the decision). Override it
        when the learner observes something else than its view says.
        """
        return self._info_spec

    def check_observation(self, decision: Decision, observation: Observation | BatchObservation) -> None:
        """Raise if ``tell(decision, observation)`` would be refused; change nothing.

        Raises
        ------
        ProtocolError
            No pending ask, a decision other than the pending one, or a batch / single mismatch.
        TypeError
            Not an observation, or values that are not real numbers (a string, a bool).
        ConfigError
            A missing value, a wrong shape, NaN or infinity, batch counts other than asked, or a value
            impossible under the learner's feedback model.
        """
        pending = self._pending
        if self._failure is None and pending is not None and decision is pending:  # (the hot path)
            spec = self.observation_spec()
            if decision.counts is None and admissible_single(observation, spec):
                return
            check_observation(decision, observation, spec, type(self).__name__)
            return
        name = type(self).__name__
        self._check_usable("tell")
        if pending is None:
            raise ProtocolError(f"{name}.tell called without a pending ask.")
        raise ProtocolError(
            f"{name}.tell got a decision that was not the pending one (pass the Decision that ask returned)."
        )

    def tell(self, decision: Decision, observation: Observation | BatchObservation) -> None:
        self.check_observation(decision, observation)
        self._pending = None
        self.n_samples += decision.n_samples
        try:
            self._tell(decision, observation)
        except BaseException as exc:
            self._failure = f"{type(exc).__name__}: {exc}"
            raise

    def cancel(self) -> None:
        """Withdraw the pending decision without playing it (e.g. a batch larger than the budget left).

        The learner's state is as before the ``ask``; the next ``ask`` may return the same decision.
        """
        if self._pending is None:
            raise ProtocolError(f"{type(self).__name__}.cancel called without a pending ask.")
        self._pending = None

    def recommend(self, anytime: bool = False) -> Recommendation:
        self._check_usable("recommend")
        done = bool(getattr(self, "done", False))
        if not done and not anytime:
            raise ProtocolError(
                f"{type(self).__name__}.recommend called before done; "
                "pass anytime=True for an anytime answer."
            )
        return self._recommend(final=done)

    # -- read-only views ---------------------------------------------------------------------------
    def arm_estimates(self) -> ArmEstimates | None:
        """The learner's per-arm (or per-action) estimates and confidence intervals now, as one tidy
        :class:`~safebandits.records.ArmEstimates` (what studies and the dashboard show); ``None`` for a
        learner without per-arm estimates or before its first one. Families with estimates override it."""
        return None

    def certificate(self) -> Certificate | None:
        """What the learner certified for the decision it is about to play (issue 40): a
        :class:`~safebandits.records.Certificate` (the safe set it plays in, the action's upper
        confidence bound on each constraint, or the bound on its policy's expected cost), read from the
        state the pending decision was made with. Call it between ``ask`` and ``tell``.

        ``None`` for a learner without a safety promise (registered guarantee other than ``"round"`` or
        ``"expectation"``); every learner with one implements :meth:`_certificate`, and a contract test
        (tests/contract/test_certificates.py) checks every round that the action lies inside it.

        Raises
        ------
        ProtocolError
            No pending ``ask``.
        """
        if self._pending is None:
            raise ProtocolError(
                f"{type(self).__name__}.certificate describes the pending decision: call it between ask "
                "and tell."
            )
        return self._certificate(self._pending)

    def _certificate(self, decision: Decision) -> Certificate | None:
        """The certificate of the pending ``decision`` (learners with a safety promise override it)."""
        return None

    # -- the declared fast path ------------------------------------------------------------------
    def simulate(self, env: Any, n: int) -> PlayedBlock | None:
        """Play on the simulated ``env`` what ask -> ``env.play`` -> tell would (:class:`Simulating`).

        Regret learners: ``n`` rounds, returned as a :class:`~safebandits.records.PlayedBlock`;
        pure-exploration learners: until ``done`` or ``n`` samples in total, returns ``None``. A learner
        without compiled rounds (:meth:`_sim_plays` ``""``) plays the plain loop :func:`play_ask_tell`
        (policy means from the view's ``safe_action`` / ``safe_arm``); a learner with compiled rounds
        plays them on the shared driver in the one loop below (:meth:`_simulate_compiled`), with the
        same trajectory (a parity test per learner).
        """
        n = check_int(n, "n", low=0)
        if self._pending is not None:
            raise ProtocolError(f"{type(self).__name__}.simulate called with a pending ask; tell it first.")
        if self._sim_plays():
            return self._simulate_compiled(env, n)
        info = self.info
        return play_ask_tell(
            self,
            env,
            n,
            safe_action=getattr(info, "safe_action", None),
            safe_arm=getattr(info, "safe_arm", None),
        )

    # -- the compiled simulation: one loop, the learner's hooks ---------------------------------------
    #: Noise codes (:data:`~safebandits.problems.noise.NOISE_CODES`) the compiled rounds take.
    _sim_noise_codes: ClassVar[tuple[int, ...]] = (0, 1, 2, 3)
    #: An environment without compiled feedback for this learner: ``True`` plays the ask / tell loop,
    #: ``False`` raises a :class:`~safebandits.exceptions.ConfigError` saying what is wrong.
    _sim_fallback: ClassVar[bool] = False

    def _simulate_compiled(self, env: Any, n: int) -> PlayedBlock | None:
        """The one simulation loop of every learner on the shared driver (algorithms/_driver.py).

        The environment builds its compiled feedback record (``env.compiled_feedback(plays)``: the
        means table, noise code and sigma; the learner never reads it); then, block by block (one block
        of ``n`` rows for a regret learner; blocks of :meth:`_sim_rows` until ``done`` or ``n`` samples
        for a pure-exploration one): the environment's next variate rows, the learner's run record
        (:meth:`_sim_block`, which may play the first rows itself with a
        :class:`~safebandits.problems.feedback.Sampler`, e.g. warm-start rounds), then the driver from
        row to row with the learner's :meth:`_sim_refill` before each call (the driver stops when a
        buffer of learner random numbers ran out), and the rows played counted on the learner and the
        environment. Regret learners return :meth:`_sim_result`.
        """
        self._sim_start()
        plays = self._sim_plays()
        feedback = self._sim_feedback(env, plays)
        stops = self._has_done
        if feedback is None:
            return play_ask_tell(self, env, n) if stops else self._sim_result(None, env, n)
        rounds = None
        while not (stops and (self.done or self.n_samples >= n)):
            rows = self._sim_rows(n) if stops else n
            variates = np.ascontiguousarray(env.take_variates(rows), dtype=np.float64)
            rounds = self._sim_block(Sampler(feedback, plays, env.noise, variates), rows)
            j, resumed, stalled = rounds.start, False, 0
            while j < rows and not (stops and self.done):
                self._sim_refill(resumed)
                j_next = rounds.driver(rounds.run, feedback, variates, (j, rows, SIMULATE))
                stalled = stalled + 1 if j_next == j else 0
                if stalled > 1:  # (a refill that lets the driver play nothing would loop for ever)
                    raise RuntimeError(
                        f"{type(self).__name__}: the compiled rounds stopped at row {j} again after "
                        "_sim_refill; the refill hook must refill what the select kernel stops for."
                    )
                j, resumed = j_next, True
            self.n_samples += j
            env.n_samples += j
            if not stops:
                break
        return self._sim_result(rounds, env, n) if not stops else None

    def _sim_feedback(self, env: Any, plays: str) -> Any:
        """The environment's compiled feedback record for what this learner plays, checked against the
        learner's problem (:meth:`_sim_shape`, :attr:`_sim_noise_codes`); ``None`` (with
        :attr:`_sim_fallback`) or a :class:`~safebandits.exceptions.ConfigError` saying what is wrong."""
        owner, problem = type(self).__name__, ""
        make = getattr(env, "compiled_feedback", None)
        if make is None:
            problem = f"a {type(env).__name__} has no compiled feedback (compiled_feedback)"
        else:
            try:
                feedback = make(plays)
            except ConfigError as exc:
                problem = str(exc)
            else:
                shape = self._sim_shape(plays)
                if feedback.table.shape != shape:
                    what = "arms x outputs" if plays == "arms" else "dimension x outputs"
                    problem = (
                        f"the environment's means table ({what}) has shape {feedback.table.shape}; "
                        f"this learner's problem has {shape}"
                    )
                elif feedback.noise_code not in self._sim_noise_codes:
                    problem = (
                        f"noise code {feedback.noise_code} is not one this learner compiles "
                        f"({self._sim_noise_codes})"
                    )
                else:
                    return feedback
        if self._sim_fallback:
            return None
        raise ConfigError(f"{owner}.simulate needs a simulated environment of its problem: {problem}.")

    def _sim_plays(self) -> str:
        """What the compiled rounds play (:data:`~safebandits.problems.feedback.PLAYS`: ``"arms"`` or
        ``"points"``); ``""`` (the default): no compiled rounds."""
        return ""

    def _sim_shape(self, plays: str) -> tuple[int, int]:
        """The shape of the environment's means table this learner's problem has (``(n_arms, outputs)``
        or ``(d, outputs)``)."""
        raise NotImplementedError

    def _sim_start(self) -> None:
        """Called once when a compiled simulation starts (e.g. forget a choice prepared for ``ask``)."""

    def _sim_rows(self, budget: int) -> int:
        """Pure-exploration learners: the variate rows of the next block (at most ``budget`` samples in
        all)."""
        return budget - self.n_samples

    def _sim_block(self, sampler: Any, rows: int) -> CompiledRounds:
        """The learner's run over a block of ``rows`` variate rows: its driver, its run record, and the
        rows it played itself first with ``sampler`` (``sampler.sample(action, row)``)."""
        raise NotImplementedError

    def _sim_refill(self, resumed: bool) -> None:
        """Before each driver call: refill the buffers of learner random numbers that ran out
        (``resumed``: not the block's first call, so the previous one stopped short, even with no row
        played)."""

    def _sim_result(self, rounds: CompiledRounds | None, env: Any, n: int) -> PlayedBlock | None:
        """Regret learners: the :class:`~safebandits.records.PlayedBlock` of the ``n`` rounds (``rounds``
        ``None``: the environment had no compiled feedback and :attr:`_sim_fallback` is set)."""
        raise NotImplementedError

    # -- to implement ---------------------------------------------------------------------
    def _ask(self, context: Any) -> Decision:
        raise NotImplementedError

    def _tell(self, decision: Decision, observation: Observation | BatchObservation) -> None:
        raise NotImplementedError

    def _recommend(self, final: bool) -> Recommendation:
        raise NotImplementedError


def is_simulating(learner: Any) -> bool:
    """``isinstance(learner, Simulating)``, decided at once for a :class:`BaseLearner` (the protocol
    check reads the class's attributes on every call: ~10 us, a part of a short run's fixed cost)."""
    if isinstance(learner, BaseLearner) and getattr(learner, "simulate", None) is not None:
        return True
    return isinstance(learner, Simulating)


def play_ask_tell(
    learner: Any, env: Any, n: int, *, safe_action: Any = None, safe_arm: int | None = None
) -> PlayedBlock | None:
    """The plain ask -> ``env.play`` -> tell loop: the semantics of :meth:`BaseLearner.simulate` for any
    learner of the protocol (:class:`Learner`, :class:`PureExplorationLearner`).

    Pure-exploration learners (a ``done`` attribute): rounds until ``done`` or ``n`` samples in total
    (``learner.n_samples``); a batch that would exceed them is cancelled, not played. Returns ``None``.

    Regret learners: ``n`` rounds on a stage-wise environment (``env.point_of``, ``env.arms``). Returns
    a :class:`~safebandits.records.PlayedBlock`: the played ``points``; ``means`` -- the policy's mean
    point ``x_pi`` when the decision carries ``probs`` (:func:`~safebandits.problems.stagewise.
    policy_mean_points` with ``safe_action`` / ``safe_arm``), else the point; ``values`` -- the
    learner's ``last_value`` after each ask, if it has one (else ``None``).
    """
    if hasattr(learner, "done"):
        while not learner.done and learner.n_samples < n:
            decision = learner.ask()
            if decision.n_samples > n - learner.n_samples:
                learner.cancel()  # the batch is abandoned, not played
                break
            learner.tell(decision, env.play(decision))
        return None
    points = np.empty((n, env.arms.shape[1]))
    means = np.empty_like(points)
    values = np.full(n, np.nan) if hasattr(learner, "last_value") else None
    arms = env.arms
    mean_points = None
    for i in range(n):
        decision = learner.ask()
        if values is not None:
            values[i] = learner.last_value
        points[i] = env.point_of(decision)
        if decision.probs is not None:
            if mean_points is None:
                from safebandits.problems.stagewise import policy_mean_points as mean_points
            means[i] = mean_points(np.asarray(decision.probs), arms, safe_action, safe_arm)[0]
        else:
            means[i] = points[i]
        learner.tell(decision, env.play(decision))
    return PlayedBlock(points, None, means, values)
