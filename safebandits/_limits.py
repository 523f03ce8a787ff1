"""Caps shared by every way an input arrives (CLI options, experiment files, the Python API, study
creation), checked before anything is allocated: absurd sizes are refused, not attempted.

Constants only (no import), so the command line reads them without loading numpy.
"""

from __future__ import annotations

__all__ = [
    "MAX_BOX_CANDIDATES",
    "MAX_BOX_DIMENSION",
    "MAX_BUDGET",
    "MAX_EXPIRE_SECONDS",
    "MAX_KERNEL_POINTS",
    "MAX_OPEN",
    "MAX_REPLICATES",
    "MAX_REQUEST_BYTES",
    "MAX_SEED",
    "MAX_SNAPSHOT_EVERY",
    "MAX_WORKERS",
]

#: Replicates per point of a sweep, and worker processes.
MAX_REPLICATES = 1_000_000
MAX_WORKERS = 4096
#: Largest sample budget or horizon (rounds) of one run.
MAX_BUDGET = 10**12
#: Largest seed: a signed 64-bit integer (stored as such by every study backend).
MAX_SEED = 2**63 - 1
#: Largest number of open queries of a study.
MAX_OPEN = 1_000_000
#: Largest interval between two snapshots of a study's learner (answered queries).
MAX_SNAPSHOT_EVERY = 1_000_000
#: Longest age (seconds, ~31.7 years) ``study expire --older-than`` accepts.
MAX_EXPIRE_SECONDS = 1e9
#: Most points of a kernel problem built on a grid (its n x n kernel matrix: 200 MB at 5,000).
MAX_KERNEL_POINTS = 5000
#: Largest request body of the dashboard's JSON API (bytes): an answer, or a study's problem view.
MAX_REQUEST_BYTES = 8 * 1024 * 1024
#: Largest dimension of a continuous (box) domain of a kernel problem: the acquisition is searched by
#: random candidates and L-BFGS-B, whose coverage of a box degrades quickly with its dimension.
MAX_BOX_DIMENSION = 20
#: Most random candidates of one acquisition search on a box (an m x t cross-kernel per round).
MAX_BOX_CANDIDATES = 100_000
