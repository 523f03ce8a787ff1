"""Issue 43: the faster G-ACOL kernels take the decisions of the code before them, bit for bit.

``data/acol_trajectories.npz`` holds the fingerprints (samples, recommended arm, digests of the final
counts, sums, widths, predictions and sets) of runs recorded from main before issue 43's kernels
(:mod:`tests.unit.algorithms.acol_trajectories`); every run is repeated here and must match exactly.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.unit.algorithms import acol_trajectories as traj

REFERENCE = Path(__file__).parent / "data" / "acol_trajectories.npz"
KEYS = list(traj.keys())
#: A default-run subset (every rule, both widths, every instance kind); the rest is marked slow.
FAST = {i for i, k in enumerate(KEYS) if k[4] == traj.SEEDS[0] and (k[6] or k[3] == "theory")}


@pytest.fixture(scope="module")
def reference():
    return traj.load(REFERENCE)


@pytest.mark.parametrize(
    "key",
    [k if i in FAST else pytest.param(k, marks=pytest.mark.slow) for i, k in enumerate(KEYS)],
    ids=traj.name_of,
)
def test_run_matches_the_recorded_trajectory(reference, key):
    got = traj.one(*key)
    want = reference[traj.name_of(key)]
    differs = [field for field, a, b in zip(traj.FIELDS, got, want, strict=True) if a != b]
    assert not differs, f"{differs} differ (got {got.tolist()}, recorded {want.tolist()})"


def test_reference_covers_every_key(reference):
    assert sorted(reference) == sorted(traj.name_of(k) for k in KEYS)
