"""Declare a problem of one's own from its public parts, then hand each learner the view it needs.

A *declaration* holds what a learner may know before it plays: the actions, the thresholds, the
feedback model, a known safe action, norm bounds. It holds no ground truth. One declaration can fit
several settings of the library; :meth:`Problem.view` turns it into the problem-information type a
family of learners reads (the "info kinds" of :data:`INFO_KINDS`):

================ ============================================== ======================================
kind             learner input                                  learners
================ ============================================== ======================================
cbai             ``CBAIInfo``                                   ACOL, G-ACOL and their baselines
transductive     ``TransductiveInfo``                           BESIDE, RAGE and their baselines
safe-linear      ``SafeLinearInfo`` (ball or polytope)          Safe-LUCB
safe-linear-arms ``SafeLinearInfo`` (finite arms)               Safe-LUCB, GSLUCB
stagewise        ``StagewiseInfo`` (finite points or star set)  LC-LUCB, Safe-LTS, OPLB
k-armed          ``StagewiseInfo`` (``action_set="simplex"``)   OPB (and OPLB)
kernel           ``KernelInfo``                                 CKB, StageOpt, SGP-UCB
function-class   ``FunctionClassInfo``                          OPNLB
pool             ``PoolInfo``                                   FDR-constrained active classification
conservative     ``ConservativeInfo``                           Conservative UCB, UCB, BudgetFirst
================ ============================================== ======================================

Seven declarations cover the settings (:class:`ConservativeProblem`: K arms with a default arm and a tolerance
alpha, the conservative bandit; :class:`ConservativeLinearProblem`: contexts of linear actions with a baseline
policy, info kind ``conservative-linear`` read by CLUCB and LinUCB); :class:`LinearProblem` (finite arms,
linear reward and linear constraints: cbai, transductive, safe-linear-arms, stagewise, k-armed and kernel
views), :class:`SafeLinearProblem` (a ball or polytope whose loss parameter also sets the constraint:
Safe-LUCB), :class:`KernelProblem` (a finite domain with kernels), :class:`FunctionClassProblemSpec` (finite
reward and cost function classes) and :class:`PoolProblem` (records of a data frame to label under an FDR
constraint). ``simulate(...)`` adds a ground truth and returns a :class:`SimulatedProblem`, whose
:meth:`~SimulatedProblem.instance` builds the instance of a kind (with its oracle and environment) for
:func:`safebandits.run`, :func:`safebandits.run_regret` and the experiment runner. Which learners fit a
declaration: :func:`safebandits.compatible_learners`.

How a K-armed linear problem maps onto each kind is recorded in ``docs/decisions/engine.md`` ("One problem,
many settings").
"""

from safebandits.problems.declare.base import (
    DEFAULT_EPSILON_FRACTION,
    FEEDBACK_KINDS,
    INFO_KINDS,
    TOLERANCE_KINDS,
    Feedback,
    Problem,
    SimulatedProblem,
    Tolerance,
    info_kind,
)
from safebandits.problems.declare.base import (
    kernel_feedback as kernel_feedback,
)
from safebandits.problems.declare.base import (
    seeded_kernel_instance as seeded_kernel_instance,
)
from safebandits.problems.declare.conservative import ConservativeProblem
from safebandits.problems.declare.conservative_linear import ConservativeLinearProblem
from safebandits.problems.declare.function_class import FunctionClassProblemSpec
from safebandits.problems.declare.kernel import KernelProblem
from safebandits.problems.declare.linear import LinearProblem
from safebandits.problems.declare.pool import PoolProblem
from safebandits.problems.declare.safe_linear import SafeLinearProblem

__all__ = [
    "DEFAULT_EPSILON_FRACTION",
    "FEEDBACK_KINDS",
    "INFO_KINDS",
    "TOLERANCE_KINDS",
    "ConservativeLinearProblem",
    "ConservativeProblem",
    "Feedback",
    "FunctionClassProblemSpec",
    "KernelProblem",
    "LinearProblem",
    "PoolProblem",
    "Problem",
    "SafeLinearProblem",
    "SimulatedProblem",
    "Tolerance",
    "info_kind",
]
