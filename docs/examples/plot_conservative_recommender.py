"""
A recommender with a production policy: conservative exploration
================================================================

A recommender shows one of ten items to each visitor. Production ranks them with its own scorer (a
linear score of four features per item and visitor), and it earns well. A new learner may do better, but
while it learns it must not cost the business much: its **cumulative revenue must never fall below 95%
of what the production scorer would have earned on the same visitors** (``alpha = 0.05``), at any time.
This is *conservative exploration* (Kazerouni et al. 2017): the learner banks the 5% slack that
production's revenue accumulates, and explores only while the bank, estimated pessimistically, covers
the worst a new item could cost; otherwise it plays production's choice.

The problem is declared in an experiment file, ``examples/conservative_linear.toml``; its ``[truth]``
table (the true reward weights ``theta``) is only for the simulation. The declaration holds production's
scorer (``baseline_param``) and ``alpha``, nothing a real system would not know. Three commands run
it::

    safebandits learners --for examples/conservative_linear.toml
    safebandits run examples/conservative_linear.toml --out results/conservative-linear
    safebandits report results/conservative-linear

.. literalinclude:: ../../examples/conservative_linear.toml
   :language: toml
"""

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, NullLocator

import safebandits as sb

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
LINEAR = HERE.parent.parent / "examples" / "conservative_linear.toml"
CHECKPOINT = HERE.parent.parent / "examples" / "conservative_checkpoint.toml"
SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))
scale = "quick" if SMALL else "paper"  # quick: the files' [quick] tables (1,000 visitors, 2 replicates)
out = Path(tempfile.mkdtemp(prefix="conservative-"))


def safebandits(*args: str) -> str:
    cmd = [sys.executable, "-m", "safebandits.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def kept(experiment: str) -> pd.DataFrame:
    """Per learner, over its runs: regret, and the conservative constraint under the truth (the verified
    rounds whose cumulative revenue fell below ``(1 - alpha)`` times production's, and the smallest
    margin)."""
    runs = sb.load_results(out, experiment=experiment)
    table = runs.groupby("label", sort=False).agg(
        runs=("replicate", "size"),
        regret=("regret", "mean"),
        violated_rounds=("conservative_violations", "sum"),
        runs_violating=("conservative_violations", lambda v: int((v > 0).sum())),
        smallest_margin=("conservative_min_margin", "min"),
    )
    table["kept the constraint"] = np.where(table["violated_rounds"] == 0, "yes", "no")
    return table.round(3)


def margin_figure(experiment: str, title: str, checkpoint: int | None = None) -> None:
    """The conservative margin ``sum_s mu_s - (1 - alpha) sum_s r(baseline_s)`` under the truth per round
    (one thin line per run; log rounds: the early rounds are where the bank is thin) and the regret (mean
    over runs) of each learner."""
    curves = sb.load_curves(out, experiment=experiment, curve=["conservative_margin", "regret"])
    labels = list(dict.fromkeys(curves["label"]))
    colours = dict(zip(labels, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), layout="constrained")
    margin = curves[curves["curve"] == "conservative_margin"]
    for (label, _), run in margin.groupby(["label", "replicate"], sort=False):
        left.plot(run["x"], run["y"], color=colours[label], lw=1.0, alpha=0.8)
    left.axhline(0.0, color="black", lw=1.2)
    left.axhspan(-1e6, 0.0, color="tab:red", alpha=0.06, lw=0)
    left.text(0.98, 0.03, "below 0: the constraint is broken", transform=left.transAxes,
              ha="right", va="bottom", fontsize=8, color="tab:red")  # fmt: skip
    if checkpoint:  # the first ten audits (more would grey the log axis)
        for t in range(checkpoint, min(10 * checkpoint, int(margin["x"].max())) + 1, checkpoint):
            left.axvline(t, color="0.6", lw=0.6, ls=":", zorder=0)
    low = min(-1.0, 1.5 * float(margin["y"].min()))
    left.set_ylim(low, 1.2 * float(margin["y"].max()))
    # Symmetric log y: linear within +-1 (the dips below zero are a fraction of one visit's revenue),
    # logarithmic beyond (the bank grows linearly with the visitors).
    left.set_yscale("symlog", linthresh=1.0, linscale=1.5)
    top = float(margin["y"].max())
    ticks = [-1.0, -0.5, 0.0, 0.5, 1.0] + [10.0**k for k in range(1, int(np.log10(max(top, 10.0))) + 1)]
    left.set_yticks([y for y in ticks if low <= y <= 1.2 * top], minor=False)
    left.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}"))
    left.yaxis.set_minor_locator(NullLocator())
    left.set(xscale="log", xlabel="visitor t (log scale)", title="conservative margin under the truth")
    left.set_ylabel("revenue - (1 - alpha) x production's\n(symmetric log scale)")
    regret = curves[curves["curve"] == "regret"].groupby(["label", "x"], sort=False)["y"].mean()
    for label in labels:
        right.plot(regret[label].index, regret[label].to_numpy(), color=colours[label], lw=1.6, label=label)
    right.set(xlabel="visitor t", ylabel="cumulative regret (mean over runs)", title="regret")
    right.legend(fontsize=8)
    for ax in (left, right):
        ax.grid(alpha=0.3)
    fig.suptitle(title)
    plt.show()


# %%
# Which learners fit, and what each promises
# ------------------------------------------
# ``learners --for`` prints, per learner, its guarantee in the file's numbers. CLUCB (and its variant
# CLUCB2, which plays the most optimistic item the bank allows) promise the 95% floor at every visitor
# with probability ``1 - delta``; LinUCB is the same learner without the constraint, the contrast.
print(safebandits("learners", "--for", str(LINEAR)))

# %%
# Run the learners the file lists
# -------------------------------
print(safebandits("run", str(LINEAR), "--scale", scale, "--out", str(out), "--quiet"))

# %%
# Did each run keep the constraint under the truth? ``violated_rounds`` counts the visitors after which
# the cumulative revenue was below 95% of production's on the same visitors (summed over the runs;
# ``runs_violating``: the runs with at least one), ``smallest_margin`` is the lowest value of revenue
# minus 0.95 x production's revenue over all runs and visitors.
with pd.option_context("display.width", 200, "display.max_columns", 20):
    print(kept("conservative-linear"))

# %%
# The margin starts at zero and must stay above it (the y axis is linear between -1 and 1, logarithmic
# beyond: the dips are a fraction of one visit's revenue, the bank grows with the visitors). CLUCB keeps
# it above zero from the first visitor: it plays production's choice until the banked 5%, estimated
# pessimistically, covers an exploratory item, so its margin is thin early on and then grows. LinUCB
# explores from the first visitor and drives the margin below zero in its first tens of visitors: that
# lost revenue is what the constraint forbids. Production's scorer is close to the truth here, so
# staying near it also costs CLUCB little regret; the price of the constraint is paid in problems where
# production is poor (the bank then grows slowly and the learner explores late).
margin_figure("conservative-linear", "Ten items per visitor, never below 95% of production's revenue")

# %%
# The checkpoint variant: audited every 100 visitors
# --------------------------------------------------
# Often revenue is audited once a day, not after every visitor. ``examples/conservative_checkpoint.toml``
# declares the same kind of recommender (six items, ``alpha = 0.02``) with ``checkpoint = 100``: the
# cumulative revenue must be at least 98% of production's **at every audit** (visitors 100, 200, ...).
# That is a weaker promise: between two audits the revenue may dip below the floor, as long as it is
# back above it at the next audit. The checkpoint learner (CLUCB2 with checkpoints, Garcelon et al.
# 2020) uses that: it needs a floor on what production earns per visitor (``baseline_floor = 0.3``), so
# that the visitors left before the next audit, served by production if need be, are sure to earn back
# ``alpha x 0.3`` each, and it may spend that margin on exploration between audits. The every-round
# learners (CLUCB2, CLUCB) on the same file keep the stronger promise, so they keep this one too.
#
# .. literalinclude:: ../../examples/conservative_checkpoint.toml
#    :language: toml
print(safebandits("run", str(CHECKPOINT), "--scale", scale, "--out", str(out), "--quiet"))

# %%
# On this file the constraint is verified at the audits only (the promise the checkpoint learner
# makes): ``violated_rounds`` counts the audits below 98% of production's revenue and
# ``smallest_margin`` is the smallest margin at an audit.
with pd.option_context("display.width", 200, "display.max_columns", 20):
    print(kept("conservative-checkpoint"))

# %%
# The first ten audits are the dotted vertical lines. Under the checkpoint promise a margin below zero
# between two audits is allowed; below zero *at* an audit is a violation. LinUCB's runs are below zero
# at some of the first audits. On this problem the checkpoint learner hardly uses its freedom: its
# margin stays above zero throughout and its regret is that of CLUCB2 verified every round (the two
# curves nearly coincide). Production's scorer is nearly the truth here, so CLUCB, which
# stays closest to it, has the least regret of all.
title = "Audited every 100 visitors: never below 98% of production's at an audit"
every = tomllib.loads(CHECKPOINT.read_text())["problem"]["checkpoint"]  # 100 visitors
margin_figure("conservative-checkpoint", title, checkpoint=every)
