from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from safebandits.classification.oracles import (
    classifier_metrics,
    fdr,
    fdr_constraint_vector,
    fit_logistic,
    risk,
    threshold_cerm,
)


@pytest.mark.parametrize("seed", range(5))
def test_risk_and_fdr_identities_match_direct_computation(seed):
    rng = np.random.default_rng(seed)
    n = 200
    eta = rng.random(n)
    z = (rng.random(n) < 0.3).astype(float)
    # direct: expected 0/1 loss under Y ~ Ber(eta), uniform x
    direct_risk = np.mean(np.where(z == 1, 1.0 - eta, eta))
    assert risk(z, eta) == pytest.approx(direct_risk)
    # the printed form z^T (2 eta - 1) is not the risk (typo), but ranks classifiers in reverse
    z2 = (rng.random(n) < 0.3).astype(float)
    assert (risk(z, eta) < risk(z2, eta)) == (z @ (2 * eta - 1) > z2 @ (2 * eta - 1))
    # FDR: expected fraction of false positives among predicted positives
    direct_fdr = np.sum(z * (1.0 - eta)) / np.sum(z)
    assert fdr(z, eta) == pytest.approx(direct_fdr)
    # constraint form: FDR <= q  <=>  mu^T z <= 0
    for q in (0.1, direct_fdr, 0.9):
        assert (fdr(z, eta) <= q + 1e-12) == (fdr_constraint_vector(eta, q) @ z <= 1e-9)
    # Monte Carlo check of the risk with drawn labels
    y = rng.random((4000, n)) < eta
    assert np.mean(z != y) == pytest.approx(risk(z, eta), abs=0.01)


def test_metrics_edge_cases():
    eta = np.array([1.0, 0.0, 1.0, 0.0])
    m = classifier_metrics(np.zeros(4), eta)
    assert (m.fdr, m.precision, m.recall, m.accuracy) == (0.0, 1.0, 0.0, 0.5)
    m = classifier_metrics(np.array([1.0, 1.0, 0.0, 0.0]), eta)
    assert (m.fdr, m.precision, m.recall, m.accuracy) == (0.5, 0.5, 0.5, 0.5)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("q", [0.05, 0.15, 0.3])
def test_cerm_meets_the_fdr_bound_and_is_the_best_threshold(seed, q):
    rng = np.random.default_rng(seed)
    n = 150
    scores = np.round(rng.normal(size=n), 1)  # ties
    labels = (rng.random(n) < expit(2 * scores - 0.5)).astype(float)
    t = threshold_cerm(scores, labels, q)
    z = (scores >= t).astype(float)
    assert fdr(z, labels) <= q + 1e-12  # on its training labels
    # brute force over every threshold
    best = 0.0  # predicting no positive: gain 0
    for c in np.unique(scores):
        zc = scores >= c
        if fdr(zc, labels) <= q + 1e-12:
            best = max(best, float(zc @ (2 * labels - 1)))
    assert z @ (2 * labels - 1) == pytest.approx(best)


def test_cerm_soft_labels_and_infeasible():
    s = np.linspace(-3, 3, 101)
    t = threshold_cerm(s, expit(s), 0.15)
    z = s >= t
    assert fdr(z, expit(s)) <= 0.15 and z.sum() > 0
    assert threshold_cerm([1.0, 0.5], [0.0, 0.0], 0.2) == np.inf


def test_logistic_erm_real_labels():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 3))
    w = np.array([2.0, -1.0, 0.0])
    y = (rng.random(400) < expit(x @ w)).astype(float)
    model = fit_logistic(x, y, alpha=1e-3)
    assert np.corrcoef(model.coef, w)[0, 1] > 0.95
    # linear in the labels: perturbed labels outside [0, 1] still give a finite, bounded fit
    noisy = fit_logistic(x, y + rng.normal(scale=2.0, size=400), alpha=1.0)
    assert np.all(np.isfinite(noisy.params))
    # first-order optimality of the penalised objective
    xa = np.hstack([x, np.ones((400, 1))])
    grad = xa.T @ (expit(xa @ model.params) - y) + 1e-3 * model.params
    assert np.abs(grad).max() < 1e-3
    with pytest.raises(ValueError, match="alpha"):
        fit_logistic(x, y, alpha=0.0)
