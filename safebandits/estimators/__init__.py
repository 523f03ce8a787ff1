"""Estimators: online ridge regression and confidence widths."""

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
    "static_width",
]
