"""
Ten learners from four papers on one problem
============================================

The comparison nobody offers elsewhere: one problem of one's own, learners from several papers with
different guarantees (safe every round, safe in expectation, soft constraint, PAC identification), run
by the same runner and put on the same axes by the same report.

The problem and the learners are in an experiment file, ``examples/compare_linear_arms.toml`` of the
repository: ten arms in the plane with a known safe arm, a linear reward and a linear cost read off the
same unknown parameter (Safe-LUCB's model), and the learners with their options. ``[truth]`` is used
only to simulate the feedback and score the runs. Three commands do everything::

    safebandits learners --for examples/compare_linear_arms.toml
    safebandits run examples/compare_linear_arms.toml --out results/compare
    safebandits report results/compare

.. literalinclude:: ../../examples/compare_linear_arms.toml
   :language: toml
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
FILE = HERE.parent.parent / "examples" / "compare_linear_arms.toml"
SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))
scale = "quick" if SMALL else "paper"  # quick: the file's [quick] table (400 rounds, 2 replicates)
out = Path(tempfile.mkdtemp(prefix="compare-"))


def safebandits(*args: str) -> str:
    cmd = [sys.executable, "-m", "safebandits.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


# %%
# Which learners fit the problem, and what each guarantees
# --------------------------------------------------------
print(safebandits("learners", "--for", str(FILE)))

# %%
# Run them, then the report
# -------------------------
print(safebandits("run", str(FILE), "--scale", scale, "--out", str(out), "--quiet"))
print(safebandits("report", str(out)))
print(safebandits("results", str(out)))

# %%
# The comparison figure of the report: regret against the per-round-safe optimum and against the best
# policy in expectation, violating rounds, cumulative positive constraint cost, and samples to a
# correct answer for the identification learners; each learner labelled with its guarantee.
# (On a conservative problem the margin under the truth and each learner's rounds below (1 - alpha)
# times the baseline replace the two stage-wise panels.)
(png,) = (out / "report").glob(f"compare-linear-arms-{scale}.png")
fig, ax = plt.subplots(figsize=(12, 7), layout="constrained")
ax.imshow(mpimg.imread(png))
ax.set_axis_off()
plt.show()
