"""
Write a learner as a plugin and run it in a sweep
=================================================

A learner of one's own is a class with ``_ask`` and ``_tell`` on top of
:class:`safebandits.BaseLearner` (which enforces the ask -> tell order and counts samples),
a frozen config dataclass, and one decorator, :func:`safebandits.register_algorithm`. An
experiment of one's own is an :class:`safebandits.ExperimentSpec` given to
:func:`safebandits.register_experiment`. Put both in a module, and the command line
loads it with ``--plugin`` (from the current folder, before or after the subcommand; worker
processes import it too): the sweep then gets the library's runner, results store, resume, Dask
executor and report for free. The module below is ``docs/examples/safe_ucb_plugin.py``:

.. literalinclude:: ../examples/safe_ucb_plugin.py
   :language: python

The user guide page :doc:`/user_guide/writing_a_learner` explains each part.
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.image as mpimg
import matplotlib.pyplot as plt

HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))
out = Path(tempfile.mkdtemp(prefix="safe-ucb-demo-"))


def safebandits(*args: str) -> str:
    """Run the ``safebandits`` command from the plugin's folder, as a user would in a shell."""
    cmd = [sys.executable, "-m", "safebandits.cli", "--plugin", "safe_ucb_plugin", *args]
    done = subprocess.run(cmd, cwd=HERE, capture_output=True, text=True, check=True)
    return done.stdout


# %%
# Run the sweep
# -------------
# Two thresholds ``tau``, two learners, two replicates each; ``--set T=...`` sets the horizon. In a
# shell this is ``safebandits --plugin safe_ucb_plugin run safe-ucb-demo --out DIR``.
horizon = 3_000 if SMALL else 50_000
print(safebandits("run", "safe-ucb-demo", "--out", str(out), "--set", f"T={horizon}", "--quiet"))

# %%
# Report and results
# ------------------
# ``report`` writes ``DIR/report/index.html`` with one figure per curve kind; ``results`` prints one
# line per method (``--csv FILE`` writes every run).
print(safebandits("report", str(out)))
print(safebandits("results", str(out)))

# %%
# The report's figures: both learners are safe in expectation and are scored against the best policy;
# OPB optimises over all policies, the plugin over mixtures of two arms.
for name in ["regret", "cost"]:
    (png,) = (out / "report").glob(f"safe-ucb-demo-quick-{name}.png")
    fig, ax = plt.subplots(figsize=(8, 4), layout="constrained")
    ax.imshow(mpimg.imread(png))
    ax.set_axis_off()
plt.show()
