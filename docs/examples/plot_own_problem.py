"""
Your own problem
================

A problem of one's own is built from its arrays. The library separates what a learner may know
(``instance.public_info()``: the arms, the threshold, the noise model, a known safe action) from the
ground truth used to simulate it and score the answer (the unknown parameters). On a real system the
truth is unknown: the learner is driven by hand or through a :doc:`study <plot_study_simulated_human>`,
and only its public part is needed.

Two settings are shown: constrained best-arm identification with a linear constraint (ACOL family,
Lindner et al. 2022), and a K-armed bandit whose cost must stay below a threshold in expectation
(OPB, Pacchiano et al.).
"""

import os

import matplotlib.pyplot as plt
import numpy as np

import safebandits as sb
from safebandits.problems.noise import make_noise
from safebandits.problems.stagewise import StagewiseInstance

SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))

# %%
# Best feasible arm under an unknown linear constraint
# ----------------------------------------------------
# Eight recipes described by three features; the reward of each is known (``theta``), whether it is
# acceptable is not: ``phi^T x <= tau`` with ``phi`` unknown, and each query returns ``phi^T x``
# plus Gaussian noise. The learners find the best acceptable recipe with probability ``1 - delta``.
rng = np.random.default_rng(3)
arms = rng.uniform(0.0, 1.0, size=(8, 3))
instance = sb.LinearCBAIInstance(
    arms=arms,
    reward_param=np.array([1.0, 0.5, 0.2]),  # known to the learners
    constraint_param=np.array([0.6, -0.2, 0.5]),  # unknown: only the simulation uses it
    threshold=0.5,
    noise=make_noise("gaussian", sigma=0.1),
    name="recipes",
)
print("feasible:", instance.constraint_values <= 0.5, "best feasible arm:", instance.optimal_arm)

samples = {}
for name, options in [("g-acol", {"width": "tuned"}), ("acol", {}), ("uniform", {}), ("greedy-maxvar", {})]:
    learner = sb.make_learner(name, instance.public_info(), np.random.default_rng(0), options)
    out = sb.run(learner, instance.environment(np.random.default_rng(1)), instance, budget=10**7)
    samples[name] = out.samples
    print(f"{name:>14}: arm {out.recommended} after {out.samples} samples (correct: {out.correct})")

fig, ax = plt.subplots(figsize=(6, 3), layout="constrained")
ax.barh(list(samples), list(samples.values()))
ax.set(xscale="log", xlabel="samples to a certified answer", title="Own problem: eight recipes")
plt.show()

# %%
# A K-armed bandit with a cost constraint in expectation
# ------------------------------------------------------
# Five treatments with Bernoulli reward and Bernoulli cost (e.g. a side effect); treatment 0 is the
# known safe default with reward 0.2 and cost 0. The policy played each round must have expected cost at
# most ``tau = 0.3``.
rewards = np.array([0.2, 0.5, 0.6, 0.8, 0.9])
costs = np.array([0.0, 0.1, 0.25, 0.4, 0.7])
horizon = 3_000 if SMALL else 50_000
bandit = StagewiseInstance(
    arms=np.eye(5),
    safe_action=np.eye(5)[0],
    reward_param=rewards,
    cost_params=costs[None, :],
    threshold=np.array([0.3]),
    noise=make_noise("bernoulli"),
    action_set="simplex",
    horizon=horizon,
    known_safe_values=True,
    name="treatments",
)
learner = sb.make_learner("opb", bandit.public_info(), np.random.default_rng(0))
out = sb.run_regret(learner, bandit.environment(np.random.default_rng(1)), bandit)
print(f"OPB: regret against the best policy {out.policy_regret:.1f} over {out.rounds} rounds;")
print(f"     largest expected cost of a played policy {out.max_policy_cost[0]:.3f} (tau = 0.3)")

t = np.asarray(out.curves["t"])
fig, (ax_r, ax_c) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
ax_r.plot(t, out.curves["policy_regret"])
ax_r.set(xlabel="round t", ylabel="regret against the best policy")
ax_c.plot(t, np.asarray(out.curves["policy_cost"])[:, 0], label="expected cost of the policy played")
ax_c.axhline(0.3, color="k", ls="--", lw=0.8, label="tau")
ax_c.set(xlabel="round t", ylabel="cost", xscale="log")
ax_c.legend()
plt.show()
