"""The instance zoo of every paper, registered by name on import."""

from safebandits.problems.zoo import (
    acol,  # noqa: F401
    beside,  # noqa: F401
    ckb,  # noqa: F401
    declared,  # noqa: F401
    driving,  # noqa: F401
    fdr,  # noqa: F401
    function_class,  # noqa: F401
    safe_lucb,  # noqa: F401
    stagewise,  # noqa: F401
)
