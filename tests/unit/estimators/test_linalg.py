"""smallest_eigenvalue: numpy.linalg.eigvalsh(a)[0], bit for bit, on the fast path and the fallback."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.estimators import linalg
from safebandits.estimators.linalg import smallest_eigenvalue


@settings(max_examples=300, deadline=None)
@given(
    d=st.integers(1, 24),
    seed=st.integers(0, 2**32 - 1),
    scale=st.sampled_from([1e-12, 1e-3, 1.0, 1e6]),
    kind=st.sampled_from(["gram", "indefinite", "diagonal", "asymmetric", "zeros"]),
)
def test_same_bits_as_numpy_eigvalsh(d, seed, scale, kind):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((d + 3, d))
    a = {
        "gram": 0.5 * np.eye(d) + x.T @ x,  # (a ridge Gram matrix)
        "indefinite": (lambda m: m + m.T)(rng.standard_normal((d, d))),
        "diagonal": np.diag(rng.standard_normal(d)),
        "asymmetric": rng.standard_normal((d, d)),  # (only the lower triangle is read, by both)
        "zeros": np.zeros((d, d)),
    }[kind] * scale
    want = np.linalg.eigvalsh(a)[0]
    got = smallest_eigenvalue(a)
    assert type(got) is float
    assert np.float64(got).tobytes() == want.tobytes()


def test_non_float64_and_fallback_paths(monkeypatch):
    a = np.array([[2.0, 1.0], [1.0, 3.0]])
    want = float(np.linalg.eigvalsh(a)[0])
    assert smallest_eigenvalue(a.astype(np.float32)) == float(np.linalg.eigvalsh(a.astype(np.float32))[0])
    assert smallest_eigenvalue(np.asfortranarray(a)) == want
    monkeypatch.setattr(linalg, "_EIGVALSH_LO", None)  # (a numpy without the private routine)
    assert smallest_eigenvalue(a) == want
    with pytest.raises(np.linalg.LinAlgError):
        smallest_eigenvalue(np.ones((2, 3)))


def test_nan_entries_give_what_numpy_gives():
    a = np.array([[np.nan, 0.0], [0.0, 1.0]])
    with np.errstate(invalid="ignore"):
        want = np.linalg.eigvalsh(a)[0]
        assert np.float64(smallest_eigenvalue(a)).tobytes() == want.tobytes()
