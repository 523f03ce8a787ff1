"""Estimators: online ridge regression, confidence widths, and bounds on bounded outcomes."""

from safebandits.estimators.bounded import lower_bound, samples_until_below, upper_bound
from safebandits.estimators.confidence import adaptive_width, adaptive_width_scalar, static_width
from safebandits.estimators.ridge import (
    ArmRidge,
    OnlineRidge,
    arm_ridge_refresh,
    arm_ridge_update,
    cholesky_inverse,
)

__all__ = [
    "ArmRidge",
    "OnlineRidge",
    "adaptive_width",
    "adaptive_width_scalar",
    "arm_ridge_refresh",
    "arm_ridge_update",
    "cholesky_inverse",
    "lower_bound",
    "samples_until_below",
    "static_width",
    "upper_bound",
]
