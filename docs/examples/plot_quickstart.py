"""
Quick start: one learner, one problem, ask / tell
=================================================

Every learner of the library speaks the same protocol: ``ask`` for a decision, play it, ``tell`` the
observation. Pure-exploration learners (here G-ACOL, Lindner et al. 2022) stop by themselves and
``recommend`` an arm; regret learners (here LC-LUCB and Safe-LTS, Pacchiano et al.) play to a
horizon. ``sb.run`` and ``sb.run_regret`` drive the loop and score it with the instance's oracle,
which the learner never sees.
"""

import os

import matplotlib.pyplot as plt
import numpy as np

import safebandits as sb

SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))

# %%
# Constrained best-arm identification by hand
# -------------------------------------------
# The instance holds the ground truth; the learner gets only its public part.
instance = sb.make_instance("acol/irrelevant-dimensions", d=5, epsilon=0.1)
learner = sb.make_learner("g-acol", instance.public_info(), np.random.default_rng(0), {"width": "tuned"})
env = instance.environment(np.random.default_rng(1))
while not learner.done:
    decision = learner.ask()
    learner.tell(decision, env.play(decision))
answer = learner.recommend()
print(
    f"recommended arm {answer.arm} (best feasible: {instance.optimal_arm}) after {learner.n_samples} samples"
)

# %%
# Regret with a stage-wise constraint
# -----------------------------------
# ``sb.run_regret`` plays to the horizon and keeps curves on a log grid of rounds: regret against the
# best action that is safe every round, the running mean cost of the played actions, and more.
horizon = 2_000 if SMALL else 20_000
instance = sb.make_instance("stagewise/cyclic", d=3, tau=0.5, T=horizon)
fig, (ax_regret, ax_cost) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
for name in ["lc-lucb", "safe-lts"]:
    learner = sb.make_learner(name, instance.public_info(), np.random.default_rng(0))
    out = sb.run_regret(learner, instance.environment(np.random.default_rng(1)), instance)
    print(f"{name}: regret {out.regret:.1f}, violating rounds {out.violations} of {out.rounds}")
    t = np.asarray(out.curves["t"])
    ax_regret.plot(t, out.curves["regret"], label=name)
    ax_cost.plot(t, np.asarray(out.curves["cost"])[:, 0], label=name)
ax_cost.axhline(0.5, color="k", lw=0.8, ls="--", label="threshold tau")
ax_regret.set(xlabel="round t", ylabel="cumulative regret", xscale="log", yscale="log")
ax_cost.set(xlabel="round t", ylabel="mean cost of played actions", xscale="log")
ax_regret.legend()
ax_cost.legend()
plt.show()
