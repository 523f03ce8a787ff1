"""G-ACOL, Greedy Max Var and Max Rew-U on the distinct arms of ``X``: the same decisions, less work.

The authors' released driving candidates are 1,000 policies of which only 20 are distinct, and every
sample of the look-ahead rules costs ``O(n d)`` over all ``n`` arms (6.5 us on such an instance against
about 0.3 us on its 20 distinct arms). Arms with the same feature vector and the same known reward
(a *group*) are interchangeable for the rules that pull a maximiser, lowest index on ties (``selection``
``"lookahead"``, ``"most_uncertain"`` or ``"max_reward"`` over ``U`` or ``X``; not the uniform rules nor
Max Rew-F, which pull any member):

* every per-arm quantity of a sample is computed by an element-wise loop over the arms (the rank-one
  updates of ``||x||^2_{A^{-1}}`` and ``x^T phi_hat``, the exact refresh, the bounds), so the members of
  a group hold the same bits as its first arm at every sample (checked at the start for the initial
  widths, which numpy computes);
* the sets' rules (:func:`~safebandits.algorithms.pure_exploration._cbai.cbai_update`) are per arm and
  equal within a group (same bounds, same reward), and their ties go to the lowest index, which is a
  group's first arm; so ``r``, its arm and the lowest upper bound are those of the first arms;
* so every maximiser over ``X`` or ``U``, lowest index on ties, is the first arm of a group: the rule
  never pulls another member, those members' counts stay 0, and the exact refresh (normal equations
  summed in arm order, arms without data skipped) adds the same terms in the same order.

Run on the first arm of each group (:func:`distinct_groups`), in their order, the learner therefore
makes the same pulls, with the environment's observation of the same arm of ``X``
(``GACOLState.arm_index``), and reaches the same state; :func:`expanded_ridge` and
:func:`expanded_sets` give it back over all of ``X`` (copies: every member gets its group's values).
Certified skips (Max Rew-U) stay exact: they end at an exact refresh from the same counts and sums.
Only the primal numerics, whose initial state does not depend on the other arms (the Gram numerics
start from ``X X^T``, computed by BLAS over the whole matrix).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from safebandits.algorithms.pure_exploration._cbai import NO_ARM, CBAISets
from safebandits.estimators.ridge import ArmRidge
from safebandits.types import FloatArray, IntArray

__all__ = ["Groups", "distinct_groups", "expanded_ridge", "expanded_sets"]


class Groups(NamedTuple):
    """Groups of equal arms: ``first[g]`` the first arm of group ``g`` (increasing), ``group[k]`` the
    group of arm ``k``."""

    first: IntArray
    group: IntArray


def distinct_groups(arms: FloatArray, rewards: FloatArray, reg: float) -> Groups | None:
    """The groups of arms with the same features and reward, or ``None`` when every arm is distinct or
    a group's initial widths ``||x||^2 / reg`` (as :class:`~safebandits.estimators.ridge.ArmRidge`
    computes them) differ in their bits between the whole matrix and the distinct rows."""
    keys = np.ascontiguousarray(np.column_stack([arms, rewards]))
    rows = keys.view(np.dtype((np.void, keys.dtype.itemsize * keys.shape[1]))).reshape(-1)  # (bits)
    _, first, group = np.unique(rows, return_index=True, return_inverse=True)
    if first.shape[0] == arms.shape[0]:
        return None
    order = np.argsort(first, kind="stable")  # groups in the order of their first arm
    rank = np.empty_like(order)
    rank[order] = np.arange(order.shape[0])
    first = first[order].astype(np.int64)
    group = rank[group.reshape(-1)].astype(np.int64)
    whole = np.einsum("ij,ij->i", arms, arms) / reg
    distinct = np.einsum("ij,ij->i", arms[first], arms[first]) / reg
    if not np.array_equal(whole.view(np.int64), distinct[group].view(np.int64)):
        return None
    return Groups(first, group)


def expanded_ridge(inner: ArmRidge, arms: FloatArray, groups: Groups) -> ArmRidge:
    """The ridge state over all of ``arms`` that the learner would hold without grouping (a copy):
    ``A^{-1}`` and ``theta_hat`` as they are, every arm's width and prediction its group's, the counts
    and sums on the first arms."""
    full = ArmRidge(arms, inner.reg, refresh_every=0, numerics=inner.numerics, check_input=False)
    full.a_inv_state[:] = inner.a_inv_state
    full.theta_state[:] = inner.theta_state
    full.sq_widths[:] = inner.sq_widths[groups.group]
    full.preds[:] = inner.preds[groups.group]
    full.counts[groups.first] = inner.counts
    full.sums[groups.first] = inner.sums
    full.n_updates = inner.n_updates
    return full


def expanded_sets(inner: CBAISets, rewards: FloatArray, groups: Groups) -> CBAISets:
    """``U``, ``F`` and ``r`` over all arms (a copy): every arm in its group's sets, the arms of ``r`` and
    of the lowest upper bound the first arms of their groups."""
    full = CBAISets(rewards, inner.threshold)
    full.in_uncertain[:] = inner.in_uncertain[groups.group]
    full.in_feasible[:] = inner.in_feasible[groups.group]
    live, src = full.state.live[0], inner.state.live[0]
    live["best_reward"] = src["best_reward"]
    live["lowest_ucb"] = src["lowest_ucb"]
    for field in ("best_arm", "lowest_ucb_arm"):
        live[field] = NO_ARM if src[field] == NO_ARM else groups.first[src[field]]
    live["n_uncertain"] = int(np.count_nonzero(full.in_uncertain))
    return full
