"""
Dose finding, safe for every patient
====================================

The canonical safe-bandit application: five doses, each patient's outcome is a Bernoulli efficacy
(response) and a Bernoulli toxicity, and no patient may get a dose whose toxicity probability is above
the limit 0.30. The lowest dose is known to be below it.

Per-round safety needs structure that links the doses: on five unstructured arms, giving the safe dose
reveals nothing about the others. A **covariate declaration** (``setting = "covariate"``,
:class:`~safebandits.problems.declare_covariate.CovariateProblem`) states that structure: a covariate per
action (the dose in mg), a kernel on it, and bounds on how rough the efficacy and toxicity curves may be
(RKHS norms ``B`` and ``G``, and a Lipschitz constant of the toxicity). It routes to the learners that
promise safety at every round (StageOpt, SGP-UCB) and, for comparison, to those that are only safe in
expectation (OPB, OPLB) or keep a soft constraint (CKB). Three commands run it::

    safebandits learners --for examples/dose_finding.toml
    safebandits run examples/dose_finding.toml --out results/dose
    safebandits report results/dose

.. literalinclude:: ../../examples/dose_finding.toml
   :language: toml
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt
import pandas as pd

import safebandits as sb
from safebandits.algorithms.compatibility import per_round_safety_note
from safebandits.plotting.comparison import comparison_tables

HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
FILE = HERE.parent.parent / "examples" / "dose_finding.toml"
SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))
scale = "quick" if SMALL else "paper"  # quick: the file's [quick] table (1,000 patients, 4 replicates)
out = Path(tempfile.mkdtemp(prefix="dose-"))


def safebandits(*args: str) -> str:
    cmd = [sys.executable, "-m", "safebandits.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


# %%
# Which learners fit, and what each guarantees
# --------------------------------------------
print(safebandits("learners", "--for", str(FILE)))

# %%
# Without a model that links the doses, nothing can promise per-round safety. The same doses declared
# without the safe dose's toxicity (so no Slater constant for the kernel learners) leave only the
# in-expectation and soft learners, and the library says so:
bare = sb.CovariateProblem(covariates=[10, 20, 30, 40, 50], threshold=0.3, safe_action=0)
print(per_round_safety_note(bare))

# %%
# Run them, then the report
# -------------------------
print(safebandits("run", str(FILE), "--scale", scale, "--out", str(out), "--quiet"))
print(safebandits("report", str(out)))

# %%
# Per learner: the rounds that gave a dose above the limit (violating rounds, per run and over all
# runs), the regret against the best dose below the limit, and whether the final plays (the last 10% of
# the patients) are below the limit. The dose-escalation design, StageOpt and SGP-UCB give no patient a
# dose above the limit; the design certifies 20 mg from the known safe cost and the declared step (0.20
# per 10 mg) and gives it from the second cohort on, while with their bounds StageOpt and SGP-UCB cannot
# certify any dose above 10 mg within the trial.
# OPB and OPLB keep the *expected* toxicity of the dose distribution they play below the limit (0 rounds
# with expected cost above tau) while single patients get toxic doses; CKB lets the violation grow
# sublinearly and ends on doses above the limit.
runs = sb.load_results(out)
with pd.option_context("display.width", 200, "display.max_columns", 20):
    for caption, table in comparison_tables(runs):
        print(caption)
        print(table.drop(columns=["guarantee", "T", "wall s"]).round(3).to_string(index=False))

# %%
# The comparison figure of the report: cumulative regret against the best dose below the limit and
# against the best policy in expectation, and cumulative rounds above the limit, each learner labelled
# with its guarantee.
(png,) = (out / "report").glob(f"dose-finding-{scale}.png")
fig, ax = plt.subplots(figsize=(12, 7), layout="constrained")
ax.imshow(mpimg.imread(png))
ax.set_axis_off()
plt.show()
