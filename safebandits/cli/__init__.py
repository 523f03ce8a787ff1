"""Command-line interface: ``safebandits list | run | learners | report | results | bounds | data | study |
dashboard``, and the commands other packages add (entry-point group ``safebandits.commands``: a paper's
own tools).

Examples
--------
::

    safebandits list
    safebandits run all --scale quick --out results/quick
    safebandits run EXPERIMENT --panel PANEL --algorithm LEARNER --algorithm oracle --replicates 5
    safebandits run EXPERIMENT --set delta=0.1 --workers 2
    safebandits run EXPERIMENT --executor dask --scheduler tcp://head-node:8786
    safebandits report results/quick
    safebandits learners --for examples/compare_linear_arms.toml
    safebandits run examples/compare_linear_arms.toml --out results/mine
    safebandits results results/quick --csv runs.csv
    safebandits scoreboard results/paper --out docs/scoreboard.md
    safebandits bounds INSTANCE --set d=20 --set epsilon=0.05
    safebandits data fetch DATASET DATASET
    safebandits data list --verify
    safebandits study create s1 --algorithm LEARNER --instance INSTANCE --storage sqlite:///s.db

EXPERIMENT, PANEL, LEARNER and INSTANCE are names ``safebandits list`` prints (the registered ones: the
installed papers' and one's own), DATASET one ``safebandits data list`` prints.

The group and its error discipline are :mod:`safebandits.cli.group`; the commands
:mod:`safebandits.cli.sweeps` (list, run, learners, bounds) and :mod:`safebandits.cli.stores` (report,
scoreboard, merge, results, data, dashboard). ``safebandits study ...`` (persistent ask / tell studies)
lives in :mod:`safebandits.study.cli`. A package
adds a command by naming it in the entry-point group :data:`COMMANDS_GROUP` of its distribution
(``mytool = "mypackage.commands:mytool"``); it is imported when it is used (``--help``
lists it without importing it).

Exit status (also in ``safebandits --help`` and the README): 0 success; 1 the command ran but failed
(runs failed: the sweep finishes, says how many and where to read why; a database could not be written,
e.g. disk full; an internal error); 2 a usage or input error (unknown experiment, bad ``--set`` value, a
file that is not a store, a store being written by another run): one line naming the problem and the
fix, and nothing written. No traceback is printed unless ``--debug`` (or ``SAFEBANDITS_DEBUG=1``).
"""

from __future__ import annotations

from safebandits.cli import stores, sweeps  # noqa: F401  (their commands join the group on import)
from safebandits.cli.group import _LAZY_COMMANDS as _LAZY_COMMANDS
from safebandits.cli.group import COMMANDS_GROUP, cli, main
from safebandits.cli.group import _entry_commands as _entry_commands

__all__ = ["COMMANDS_GROUP", "cli", "main"]
