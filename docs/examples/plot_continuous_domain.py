"""
A continuous domain: searching a box
====================================

A controller gain, a dose, a learning rate live on continuous ranges, not on a list of points. A kernel
problem can declare a **box** in ``R^d`` as its domain (``domain = {lower = [...], upper = [...]}``),
with a named kernel (squared-exponential or Matérn) that is evaluated anywhere. Learners then play
points of the box.

* **CKB** (soft constraint, Zhou & Ji 2022) maximises its acquisition over the box the way the paper's
  footnote 4 says: random candidates, then L-BFGS-B inside the box, to an accuracy of ``C / sqrt(t)``
  in round ``t``. The option ``accuracy_c`` sets ``C`` (by default ``max(B, G)``).
* **StageOpt** and **SafeOpt** (safe in every round) grow their Lipschitz safe set from the safe seed
  over candidate points drawn in the box (the seed plus ``box_points`` uniform points, then more drawn
  around the certified points every ``box_grow_every`` rounds). Every point they play is one of these
  candidates and has been certified safe.

This is the problem of ``examples/kernel_box.toml``: a reward ``f`` and a constraint ``g`` (feasible
where ``g <= 0``) on ``[0, 1]^2``, both sums of kernel bumps (functions in the kernel's RKHS).

.. literalinclude:: ../../examples/kernel_box.toml
   :language: toml
   :lines: 8-26
"""

import os
import sys
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import safebandits as sb

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
FILE = HERE.parent.parent / "examples" / "kernel_box.toml"
SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))
HORIZON = 120 if SMALL else 400

# %%
# The declaration and its simulation truth
# ----------------------------------------
# The ``[problem]`` table is a :class:`~safebandits.KernelProblem` with a ``domain``; the ``[truth]``
# table gives ``f`` and ``g`` as ``sum_i w_i k(x, c_i) + offset``. The oracle finds the constrained
# optimum ``x* = argmax_{g(x) <= 0} f(x)`` on the box (a Sobol' design refined by SLSQP).
tables = tomllib.loads(FILE.read_text())
problem = sb.problem_from_dict({**tables["problem"], "horizon": HORIZON})
simulated = problem.simulate(**tables["truth"])
instance = simulated.instance("kernel")
x_star = instance.optimal_point
print(f"x* = {np.round(x_star, 3)}, f(x*) = {instance.optimal_value:.3f}")
print(f"best policy (a distribution over the box with E g <= 0): E f = {instance.optimal_policy_value:.3f}")
print("learners that fit:", ", ".join(c.name for c in sb.compatible_learners(problem)))


# %%
# Play each learner, keeping the points
# -------------------------------------
# The plain ask / tell loop: each decision carries the point of the box to play (``decision.point``).
def play(name, seed=0, options=None):
    learner = sb.make_learner(name, problem, np.random.default_rng(seed), options)
    env = instance.environment(np.random.default_rng(seed + 1))
    points = []
    for _ in range(HORIZON):
        decision = learner.ask()
        points.append(np.array(decision.point))
        learner.tell(decision, env.play(decision))
    return learner, np.array(points)


# Both surrogate GPs take ``lambda = 0.01`` (``gp_noise``; the paper's default is 1, far above this
# problem's noise variance 0.05^2, and makes every learner slow at this size).
runs = {
    "CKB-UCB": play("ckb-ucb", options={"gp_noise": 0.01}),
    "StageOpt": play("stageopt", options={"gp_noise": 0.01}),
}
tail = slice(-HORIZON // 5, None)
print(f"{'learner':<9} {'regret':>7} {'violating rounds':>17} {'sum [g]+':>9} {'mean g, last 20%':>17}")
for label, (_, pts) in runs.items():
    f, g = instance.reward(pts), instance.constraint(pts)
    regret = float(np.sum(instance.optimal_value - f))
    violation = float(np.sum(np.maximum(g, 0)))
    print(f"{label:<9} {regret:7.2f} {int(np.sum(g > 0)):17d} {violation:9.3f} {g[tail].mean():17.3f}")
ckb = runs["CKB-UCB"][0]
print({k: round(v, 4) for k, v in ckb.diagnostics().items() if k.startswith("box_") or k == "accuracy_c"})

# %%
# Where they looked
# -----------------
# The reward ``f`` (contours), the feasible region ``g <= 0`` (unshaded) with its boundary ``g = 0``
# (black), ``x*`` (star) and the points played, coloured by round.
#
# CKB's constraint is soft and its benchmark is the best *policy*: a distribution over the box whose
# mean ``g`` is at most 0 (here it beats ``f(x*)``, printed above). After exploring the whole box, CKB-UCB
# plays a cluster inside the infeasible region, near the peak of ``f``, balanced by plays in the feasible
# lower-left corner, where ``g`` is most negative. Many rounds violate; the mean of ``g`` over the last
# rounds is small against the range of ``g`` but still positive at this size: the violation cancels only
# as the horizon grows (sublinear cumulative violation, Theorem 1). StageOpt never leaves its certified
# safe set (grey dots: the candidates certified by the end): it plays no unsafe point and pays with
# regret while the set grows towards ``x*``.
grid = np.linspace(0.0, 1.0, 161)
xx, yy = np.meshgrid(grid, grid)
flat = np.column_stack([xx.ravel(), yy.ravel()])
f_grid = instance.reward(flat).reshape(xx.shape)
g_grid = instance.constraint(flat).reshape(xx.shape)

fig, axes = plt.subplots(1, 2, figsize=(11, 5), layout="constrained", sharey=True)
for ax, (label, (learner, pts)) in zip(axes, runs.items()):
    cs = ax.contourf(xx, yy, f_grid, levels=20, cmap="Blues")
    ax.contourf(xx, yy, g_grid, levels=[0.0, np.inf], colors="none", hatches=["//"])
    ax.contour(xx, yy, g_grid, levels=[0.0], colors="black", linewidths=2)
    if label == "StageOpt":
        safe = learner.box_points[learner.safe]
        ax.scatter(safe[:, 0], safe[:, 1], s=4, color="0.45", label="certified safe candidates")
    sc = ax.scatter(pts[:, 0], pts[:, 1], c=np.arange(1, HORIZON + 1), cmap="autumn", s=18,
                    edgecolors="black", linewidths=0.3, label="points played")  # fmt: skip
    ax.plot(*x_star, marker="*", color="gold", markeredgecolor="black", markersize=18, label="x*")
    ax.set_title(f"{label}: {HORIZON} rounds")
    ax.set_xlabel("x1")
    ax.legend(loc="upper left", fontsize=8)
axes[0].set_ylabel("x2")
fig.colorbar(cs, ax=axes, label="reward f", shrink=0.8)
fig.colorbar(sc, ax=axes, label="round", shrink=0.8)
fig.suptitle("Hatched: g > 0 (infeasible); black line: g = 0")
plt.show()
