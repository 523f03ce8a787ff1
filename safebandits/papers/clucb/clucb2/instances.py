"""The instance of the CLUCB2 paper's experiments as the library reads them (Garcelon et al. 2020; the
digest ``docs/clucb2.md``): the paper's synthetic problems were not read, so the experiments run the
synthetic problem of the paper CLUCB2 is compared with (Kazerouni et al. 2017, Sec. 5:
``clucb/hundred-arm``), with the conservative constraint verified every ``checkpoint`` rounds and the
baseline's reward floor told to the learners."""

from __future__ import annotations

import dataclasses

import numpy as np

from safebandits._validation import check_int
from safebandits.papers.clucb.instances import hundred_arm
from safebandits.problems.conservative_linear import ConservativeLinearInstance
from safebandits.problems.registry import register_instance

__all__ = ["hundred_arm_checkpoints"]


@register_instance("clucb2/hundred-arm", random=True)
def hundred_arm_checkpoints(
    *,
    rng: np.random.Generator,
    alpha: float = 0.1,
    T: int = 40_000,
    K: int = 100,
    d: int = 4,
    baseline_rank: int = 10,
    sigma: float = 1.0,
    S: float | None = None,
    checkpoint: int = 1,
) -> ConservativeLinearInstance:
    """Kazerouni et al.'s 100 fixed actions in R^4 (:func:`~safebandits.papers.clucb.instances.hundred_arm`,
    the same draws for the same ``rng``), the constraint verified at rounds ``checkpoint, 2 checkpoint,
    ...`` (1: every round), and ``baseline_floor`` the baseline's mean reward (``r_l``: the baseline plays
    one row of the fixed action set, whose reward the learners are told anyway).

    Ours (the paper's synthetic problems were not read): the instance, and the floor -- the checkpoint
    learner counts each round left before the next checkpoint at ``alpha r_l``.
    """
    base = hundred_arm(rng=rng, alpha=alpha, T=T, K=K, d=d, baseline_rank=baseline_rank, sigma=sigma, S=S)
    arms = np.asarray(base.arms)
    floor = float(arms[int(base.baseline_action or 0)] @ base.theta)
    return dataclasses.replace(
        base,
        checkpoint=check_int(checkpoint, "checkpoint", low=1, high=10**9),
        baseline_floor=floor,
        name="clucb2/hundred-arm",
    )
