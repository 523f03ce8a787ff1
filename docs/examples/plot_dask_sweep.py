"""
A sweep on a Dask cluster
=========================

A sweep too big for one machine runs on `Dask <https://distributed.dask.org>`_: each run is one Dask
task, results stream back to the ``safebandits run`` command, which alone writes the results store.
Here a scheduler and two single-threaded worker processes are started by hand on this machine, as
one would start them on the nodes of a cluster (``dask scheduler``, ``dask worker``); on a real
cluster only where they run changes (see :doc:`/cluster` for SLURM and Kubernetes recipes).
``safebandits run NAME --executor dask --workers 2`` starts such a local cluster by itself.
Needs the extra ``pip install 'safebandits[distributed]'``.

A run is a pure function of its key (experiment seed, sweep point, algorithm, replicate), so the
results are the same whatever the executor and the number of workers: the example checks this against
a run in one local process.
"""

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import matplotlib.pyplot as plt

import safebandits as sb

SMALL = bool(os.environ.get("SAFEBANDITS_DOCS_SMALL"))
horizon = 2_000 if SMALL else 20_000
sweep = ["opb-four-arm", "--set", f"T={horizon}", "--quiet"]
tmp = Path(tempfile.mkdtemp())


def safebandits(*args: str) -> str:
    cmd = [sys.executable, "-m", "safebandits.cli", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


# %%
# Start a scheduler and workers, point ``run`` at the scheduler
# -------------------------------------------------------------
# The scheduler writes its address to a file; workers and ``safebandits run --scheduler FILE`` read it.
dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
scheduler_file = tmp / "scheduler.json"
scheduler = subprocess.Popen(
    [*dask, "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
    stderr=subprocess.DEVNULL,
)
workers = subprocess.Popen(
    [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
     "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
    stderr=subprocess.DEVNULL,
)  # fmt: skip
try:
    while not scheduler_file.exists():
        time.sleep(0.1)
    print(safebandits("run", *sweep, "--out", str(tmp / "dask"), "--executor", "dask",
                      "--scheduler", str(scheduler_file)))  # fmt: skip
finally:
    for proc in (workers, scheduler):
        proc.terminate()
        proc.wait(timeout=30)

# %%
# The same sweep in one local process gives the same numbers
# ---------------------------------------------------------------
print(safebandits("run", *sweep, "--out", str(tmp / "local"), "--workers", "1"))
columns = ["label", "sweep.value", "replicate", "regret", "violations"]
on_dask = sb.load_results(tmp / "dask")[columns].sort_values(columns[:3]).reset_index(drop=True)
on_pool = sb.load_results(tmp / "local")[columns].sort_values(columns[:3]).reset_index(drop=True)
print(on_dask)
assert on_dask.equals(on_pool), "executors disagree"
print("Dask and the local run stored identical results.")

# %%
# The results, by threshold
# -------------------------
fig, ax = plt.subplots(figsize=(5, 3.5), layout="constrained")
for tau, group in on_dask.groupby("sweep.value"):
    ax.plot(group["replicate"], group["regret"], "o", label=f"tau = {tau}")
ax.set(xlabel="replicate", ylabel=f"OPB regret after {horizon} rounds", title="opb-four-arm on Dask")
ax.legend()
plt.show()
