"""
Your own problem, in each setting
=================================

A problem of one's own is *declared* from its public parts only: the actions, the thresholds, the
feedback model, a known safe action, norm bounds. A declaration holds no ground truth, so it is all a
learner needs against a real system. One declaration can fit several settings;
:func:`sb.compatible_learners <safebandits.compatible_learners>` lists the learners that fit it, with
their guarantee, and ``sb.make_learner(name, problem, rng)`` hands each learner the view it reads.

To *simulate* the problem (and score what the learners did), ``problem.simulate(...)`` adds a ground
truth; ``sb.instance_for(simulated, name)`` is then the instance, with its oracle and environment, of the
kind learner ``name`` reads. The settings below are those of :mod:`safebandits.problems.declare`;
``examples/*.toml`` in the repository states the same problems as experiment files.
"""

import os
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import safebandits as sb

SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))
HORIZON = 1_000 if SMALL else 10_000


def show(problem):
    """Print the settings a declaration fits and the learners that fit it."""
    print(f"{type(problem).__name__} fits: {', '.join(problem.kinds)}")
    for c in sb.compatible_learners(problem):
        print(f"  {c.name:<18} {c.kind:<14} {c.guarantee}")


def regret_run(simulated, name, seed=0):
    """One simulated run of regret learner ``name``, scored by the oracle."""
    instance = sb.instance_for(simulated, name, horizon=HORIZON)
    learner = sb.make_learner(name, simulated.problem, np.random.default_rng(seed))
    return sb.run_regret(learner, instance.environment(np.random.default_rng(seed + 1)), instance)


# %%
# Finite arms, a linear reward and a linear cost, a known safe arm
# ----------------------------------------------------------------
# Ten arms in the plane; arm 0 is known to be safe, with known reward and cost. Reward ``theta^T x``
# and cost ``mu^T x`` are unknown. This one declaration fits the per-round setting (Safe-LUCB style
# via the safe-linear view, LC-LUCB), the in-expectation setting (OPLB; OPB on K unstructured arms),
# kernels with a linear kernel (CKB) and transductive identification (BESIDE).
arms = np.array([[0.3, 0.0], [0.9, 0.0], [0.78, 0.45], [0.45, 0.78], [0.0, 0.9],
                 [-0.45, 0.78], [-0.78, 0.45], [-0.9, 0.0], [0.5, 0.3], [0.2, 0.6]])  # fmt: skip
problem = sb.LinearProblem(
    arms=arms,
    threshold=0.5,
    safe_arm=0,
    safe_reward=0.18,
    safe_cost=0.03,
    feedback={"kind": "gaussian", "sigma": 0.1},
    horizon=HORIZON,
)
show(problem)

# %%
# Simulate it with a truth and run one learner per setting: every run is scored against the same two
# comparators (the best arm that is safe every round, and the best policy safe in expectation).
simulated = problem.simulate(reward_param=[0.6, 0.8], cost_params=[[0.1, 0.5]])
fig, ax = plt.subplots(figsize=(6.5, 3.5), layout="constrained")
for name in ["lc-lucb", "oplb", "opb", "ckb-ucb"]:
    out = regret_run(simulated, name)
    print(f"{name:>8}: regret {out.regret:7.1f}, violating rounds {out.violations}")
    ax.plot(out.curves["t"], out.curves["regret"], label=name)
ax.set(
    xlabel="round t", ylabel="regret (each learner's own benchmark)", title="One declaration, four settings"
)
ax.legend()
plt.show()

# %%
# The same declaration as a transductive identification problem (BESIDE): find the best safe arm with
# probability ``1 - delta``, counting samples rather than regret.
# The declaration sets no tolerance ``epsilon``, so the library warns which one the learner's guarantee
# then carries (1% of the cost scale); set ``epsilon`` in the declaration to choose it. ``correct`` is
# the learner's own guarantee (epsilon-relaxed), ``feasible`` the answer under the truth, strictly.
instance = sb.instance_for(simulated, "beside-practical")
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always", sb.DefaultToleranceWarning)
    learner = sb.make_learner("beside-practical", problem, np.random.default_rng(0))
for warning in caught:
    print(f"{warning.category.__name__}: {warning.message}")
out = sb.run(learner, instance.environment(np.random.default_rng(1)), instance, budget=10**6)
print(
    f"beside-practical: arm {out.recommended} after {out.samples} samples, correct: {out.correct}, "
    f"feasible: {out.feasible}"
)

# %%
# Feasibility best-arm identification (ACOL family)
# -------------------------------------------------
# When the reward parameter is *known* and only the constraint is learned, ``reward_param`` in the
# declaration adds the ``cbai`` view: find the best feasible arm with probability ``1 - delta``.
bai = sb.LinearProblem(
    arms=arms, threshold=0.5, reward_param=[0.6, 0.8], feedback={"kind": "gaussian", "sigma": 0.1}
)

print("fits:", bai.kinds)
sim_bai = bai.simulate(cost_params=[[0.1, 0.5]])
for name, options in [("g-acol", {"width": "tuned"}), ("acol", {})]:
    instance = sb.instance_for(sim_bai, name)
    learner = sb.make_learner(name, bai, np.random.default_rng(0), options)
    out = sb.run(learner, instance.environment(np.random.default_rng(1)), instance)
    print(f"{name:>7}: arm {out.recommended} after {out.samples} samples, correct: {out.correct}")

# %%
# A finite domain with kernels and a soft constraint (CKB)
# --------------------------------------------------------
# 21 points on [0, 1] with a squared-exponential kernel; reward ``f`` and constraint ``g <= 0`` are
# unknown functions of bounded RKHS norm. CKB needs no safe seed; the safe baselines need one.
points = np.linspace(0.0, 1.0, 21)[:, None]
kernel_problem = sb.KernelProblem(
    kernel={"name": "se", "lengthscale": 0.2},
    points=points,
    reward_bound=1.0,
    constraint_bound=1.0,
    slater=0.4,
    safe_seed=[0],
    horizon=HORIZON,
)
show(kernel_problem)
x = points[:, 0]
sim_kernel = kernel_problem.simulate(reward=0.8 * np.sin(np.pi * x), constraint=0.9 * x - 0.4)
for name in ["ckb-ucb", "stageopt"]:
    out = regret_run(sim_kernel, name)
    print(f"{name:>9}: regret {out.regret:7.1f}, positive constraint cost {out.positive_cost[0]:.1f}")

# %%
# Finite function classes (OPNLB)
# -------------------------------
# Three candidate reward functions and three candidate cost functions on four actions; one of each
# is true. Bernoulli feedback; arm 0 is the known safe arm.
fc = sb.FunctionClassProblemSpec(
    reward_class=[[0.1, 0.9, 0.5, 0.3], [0.1, 0.2, 0.8, 0.6], [0.1, 0.5, 0.5, 0.9]],
    cost_class=[[0.0, 0.9, 0.3, 0.5], [0.0, 0.3, 0.9, 0.2], [0.0, 0.6, 0.6, 0.8]],
    threshold=0.5,
    safe_arm=0,
    safe_reward=0.1,
    safe_cost=0.0,
    horizon=HORIZON,
)
show(fc)
out = regret_run(fc.simulate(true_reward=1, true_cost=1), "opnlb")
print(f"opnlb: regret against the best policy {out.policy_regret:.1f}, violations {out.policy_violations}")

# %%
# A pool of records to label under an FDR constraint
# ---------------------------------------------------
# From one's own data frame: which records to send for labelling so that the final classifier's
# false-discovery rate is at most ``q``. Without the label column, ``from_frame`` gives what is known
# before labelling; with ``label=`` it also returns the labels, which only the simulation reads.
rng = np.random.default_rng(0)
frame = pd.DataFrame({"age": rng.uniform(20, 70, 200), "income": rng.lognormal(3.5, 0.4, 200)})
frame["approved"] = (frame["income"] + rng.normal(0, 8, 200) > 40).astype(int)
pool = sb.PoolProblem.from_frame(frame.drop(columns="approved"), q=0.2)
show(pool)
pool, labels = sb.PoolProblem.from_frame(frame, q=0.2, label="approved")
sim_pool = pool.simulate(eta=labels)
for name in ["fdr-active", "fdr-passive"]:
    instance = sb.instance_for(sim_pool, name)
    learner = sb.make_learner(name, pool, np.random.default_rng(0))
    out = sb.run_classification(learner, instance.environment(np.random.default_rng(1)), instance, budget=100)
    print(f"{name:>11}: after {out.labels} labels", {k: round(v, 3) for k, v in out.final.items()})
