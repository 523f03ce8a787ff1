"""Core records: EstimateSnapshot (a diagnostic estimate: arrays for the user, JSON for the store)."""

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from safebandits.records import EstimateSnapshot, to_stored

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False, allow_subnormal=True)


@settings(max_examples=60, deadline=None)
@given(d=st.integers(1, 6), data=st.data())
def test_snapshot_json_is_the_stored_string(d, data):
    """to_json is json.dumps of the lists (the string the store kept before snapshots were objects);
    ``a_inv`` gives ``a = inv(a_inv)``; the arrays are copies."""
    theta = data.draw(arrays(np.float64, d, elements=finite))
    root = data.draw(arrays(np.float64, (d, d), elements=st.floats(-2, 2)))
    a = root @ root.T + np.eye(d)
    beta = data.draw(finite)
    snap = EstimateSnapshot(theta, beta, a=a)
    assert snap.to_json() == json.dumps({"theta": theta.tolist(), "a": a.tolist(), "beta": float(beta)})
    assert to_stored(snap) == snap.to_json() and to_stored(3.5) == 3.5
    a[...] = 0.0
    assert np.all(np.diag(snap.a) >= 1.0)  # (a copy: A = R R^T + I keeps its diagonal)
    inv = np.linalg.inv(snap.a)
    from_inv = EstimateSnapshot(snap.theta, beta, a_inv=inv)
    np.testing.assert_array_equal(from_inv.a, np.linalg.inv(inv))
    assert from_inv == EstimateSnapshot(snap.theta, beta, a=np.linalg.inv(inv))


def test_snapshot_needs_exactly_one_matrix():
    with pytest.raises(ValueError, match="exactly one"):
        EstimateSnapshot(np.zeros(2), 1.0)
    with pytest.raises(ValueError, match="exactly one"):
        EstimateSnapshot(np.zeros(2), 1.0, a=np.eye(2), a_inv=np.eye(2))
    snap = EstimateSnapshot(np.zeros(2), 1.0, a=np.eye(2))
    assert snap != EstimateSnapshot(np.ones(2), 1.0, a=np.eye(2)) and snap != "x"
    assert "d=2" in repr(snap)
    with pytest.raises(TypeError):
        hash(snap)
