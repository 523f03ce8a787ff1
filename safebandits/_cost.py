"""What a request will cost, estimated before anything is built, and the limits it is checked against.

Every way a problem arrives (``run FILE.toml``, ``learners --for``, ``study create``, the JSON API, the
dashboard, :func:`~safebandits.study.create_study`) estimates two numbers before it allocates anything
that grows with the problem's size:

* **memory** (bytes): the largest arrays creation builds (a declaration's ``n x n`` kernel matrix, a
  learner's ``n x n`` or ``n^2 x d`` pairwise arrays, ``arms x d`` copies), temporaries included;
* **work** (operations): creating the problem and the learner and answering the first ``ask``
  (eigen-decompositions ``n^3``, kernel matrices ``n^2``, experimental designs ``arms x d^2`` per
  Frank-Wolfe iteration, pairwise designs ``arms^2 x d^2``). Operations are counted so that about
  :data:`OPS_PER_SECOND` take one second on one core of the reference machine (constants calibrated
  there; see docs/limits.md).

Each is checked against a limit (:func:`limits`): :data:`DEFAULT_MAX_MEMORY` and :data:`DEFAULT_MAX_WORK`,
changed with the environment variables ``SAFEBANDITS_MAX_MEMORY`` (bytes) and ``SAFEBANDITS_MAX_WORK``
(operations). A request above either is refused with :class:`~safebandits.exceptions.TooLargeError`
naming the limit and the estimate (the command line: exit status 2; the JSON API: HTTP 413).

Standard library only (the estimators of :mod:`safebandits.algorithms.cost` and the declarations call it).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass

from safebandits.exceptions import ConfigError, TooLargeError

__all__ = [
    "DEFAULT_MAX_INPUT_BYTES",
    "DEFAULT_MAX_MEMORY",
    "DEFAULT_MAX_WORK",
    "ENV_MAX_INPUT_BYTES",
    "ENV_MAX_MEMORY",
    "ENV_MAX_WORK",
    "OPS_PER_SECOND",
    "Cost",
    "check_cost",
    "check_input_file",
    "eigen_cost",
    "input_limit",
    "kernel_matrix_cost",
    "limits",
    "solve_cost",
    "stored_numbers_cost",
    "storing_kernel_view",
]

#: Largest estimated memory of one creation (bytes): 2 GiB.
DEFAULT_MAX_MEMORY = 2 * 1024**3
#: Largest estimated work of one creation and its first ask (operations): about five seconds.
DEFAULT_MAX_WORK = 5e10
#: Operations per second of one core of the reference machine (the unit of the work estimates).
OPS_PER_SECOND = 1e10
#: Environment variables that change the limits.
ENV_MAX_MEMORY = "SAFEBANDITS_MAX_MEMORY"
ENV_MAX_WORK = "SAFEBANDITS_MAX_WORK"
#: Largest input file (an experiment file, a problem view's JSON) read by the command line (bytes): 2 MiB,
#: checked on the file's size before it is parsed (parsing takes seconds per megabyte). The example files
#: are under 10 KiB.
DEFAULT_MAX_INPUT_BYTES = 2 * 1024**2
ENV_MAX_INPUT_BYTES = "SAFEBANDITS_MAX_INPUT_BYTES"


@dataclass(frozen=True, slots=True)
class Cost:
    """An estimate: ``memory`` (bytes) and ``work`` (operations), with what each is made of."""

    memory: float = 0.0
    work: float = 0.0
    memory_of: str = ""
    work_of: str = ""

    def __add__(self, other: Cost) -> Cost:
        return Cost(
            memory=max(self.memory, other.memory),  # (peaks: one step's arrays are freed before the next)
            work=self.work + other.work,
            memory_of=self.memory_of if self.memory >= other.memory else other.memory_of,
            work_of=self.work_of if self.work >= other.work else other.work_of,
        )


def _env_limit(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise ConfigError(
            f"The environment variable {name} must be a positive number. Got {raw!r:.40} instead."
        )
    return value


def limits() -> tuple[float, float]:
    """``(max_memory, max_work)``: the defaults, or the environment's ``SAFEBANDITS_MAX_MEMORY`` and
    ``SAFEBANDITS_MAX_WORK``."""
    return _env_limit(ENV_MAX_MEMORY, DEFAULT_MAX_MEMORY), _env_limit(ENV_MAX_WORK, DEFAULT_MAX_WORK)


def _bytes(n: float) -> str:
    for unit, size in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size:
            return f"{n / size:,.3g} {unit}"
    return f"{n:,.0f} bytes"


def _seconds(ops: float) -> str:
    s = ops / OPS_PER_SECOND
    return f"about {s:,.2g} s" if s < 3600 else f"about {s / 3600:,.2g} h"


def check_cost(cost: Cost, what: str, work_hint: str = "") -> Cost:
    """Refuse ``cost`` above the limits: :class:`TooLargeError` naming the limit and the estimate.

    ``what`` names the request in the user's terms (``"This CovariateProblem"``, ``"Learner 'rage' on
    these 300,000 arms"``); ``work_hint`` is what else would make its work smaller. Returns ``cost``.
    """
    smaller = "Make the problem smaller, or raise the limit (docs/limits.md)."
    max_memory, max_work = limits()
    if cost.memory > max_memory:
        of = f" ({cost.memory_of})" if cost.memory_of else ""
        raise TooLargeError(
            f"{what} is too large: its estimated memory is {_bytes(cost.memory)}{of}, above the limit "
            f"{ENV_MAX_MEMORY} = {_bytes(max_memory)}. {smaller}",
            limit=ENV_MAX_MEMORY,
            estimate=cost.memory,
            maximum=max_memory,
        )
    if cost.work > max_work:
        of = f" ({cost.work_of})" if cost.work_of else ""
        raise TooLargeError(
            f"{what} is too large: its estimated work is {cost.work:.3g} operations{of}, "
            f"{_seconds(cost.work)}, above the limit {ENV_MAX_WORK} = {max_work:.3g}. Make the problem "
            f"smaller{', ' + work_hint if work_hint else ''}, or raise the limit (docs/limits.md).",
            limit=ENV_MAX_WORK,
            estimate=cost.work,
            maximum=max_work,
        )
    return cost


def input_limit() -> float:
    """The largest input (bytes): the default or the environment's ``SAFEBANDITS_MAX_INPUT_BYTES``."""
    return _env_limit(ENV_MAX_INPUT_BYTES, DEFAULT_MAX_INPUT_BYTES)


def check_input_file(path: str | os.PathLike[str], what: str = "input file") -> None:
    """Refuse a file larger than ``SAFEBANDITS_MAX_INPUT_BYTES`` (:class:`TooLargeError`), before it is
    read. A file that cannot be stat'ed passes (its reader says why it cannot be read)."""
    try:
        size = os.stat(path).st_size
    except (OSError, ValueError):
        return
    maximum = input_limit()
    if size > maximum:
        raise TooLargeError(
            f"The {what} {os.fspath(path)!r:.200} is too large: {_bytes(size)} ({size:,} bytes), above the "
            f"limit {ENV_MAX_INPUT_BYTES} = {_bytes(maximum)}. Make the problem smaller, or raise the "
            "limit (docs/limits.md).",
            limit=ENV_MAX_INPUT_BYTES,
            estimate=float(size),
            maximum=maximum,
        )


# -- the estimates of the shared numerical steps (each constant measured on the reference machine) --------

#: Operations per entry of a kernel matrix built from points (pairwise distances, then the kernel).
KERNEL_ENTRY_OPS = 300.0
#: Arrays of ``n x n`` float64 alive at once while a kernel matrix is built (distances, products, result).
KERNEL_ARRAYS = 5
#: Operations of a symmetric eigen-decomposition of an ``n x n`` matrix, per ``n^3``.
EIGEN_OPS = 1.5
#: Operations of a least-squares solve with an ``n x n`` matrix (LAPACK's SVD-based ``gelsd``), per
#: ``n^3``: three to five times an eigen-decomposition's (measured at ``n = 2,000``: 16-27 s against 5 s
#: on the loaded reference machine).
SOLVE_OPS = 5.0


#: A study stores its view as JSON: operations per number to write it, read it back and check it at
#: creation, and to read it again at the first ask (about four passes), and bytes per number while a pass
#: holds the text and its Python lists.
STORED_OPS = 2e4
STORED_BYTES = 80.0
#: ``n x n`` matrices a kernel view holds (the reward and the constraint kernels).
STORED_KERNEL_MATRICES = 2

_STORING_KERNEL_VIEW: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "safebandits_storing_kernel_view", default=False
)


@contextlib.contextmanager
def storing_kernel_view() -> Iterator[None]:
    """Within: the declaration being built will be stored by a study as a kernel view, so its kernel
    matrices' estimate (:func:`kernel_matrix_cost`) includes the stored view's JSON, refused before the
    matrices are built (``study create --problem``, the JSON API, the dashboard)."""
    token = _STORING_KERNEL_VIEW.set(True)
    try:
        yield
    finally:
        _STORING_KERNEL_VIEW.reset(token)


def stored_numbers_cost(numbers: float) -> Cost:
    """The cost of storing ``numbers`` numbers in a study (its JSON written, read back and compared, read
    again)."""
    return Cost(
        memory=STORED_BYTES * numbers,
        work=STORED_OPS * numbers,
        memory_of=f"the study's stored view: {numbers:,.0f} numbers as JSON",
        work_of=f"the study's stored view: {numbers:,.0f} numbers written and read as JSON",
    )


def kernel_matrix_cost(n: int, p: int = 1, count: int = 1) -> Cost:
    """``count`` kernel matrices on ``n`` points of dimension ``p`` (and, within
    :func:`storing_kernel_view`, the study's stored view of them)."""
    n2 = float(n) * float(n)
    cost = Cost(
        memory=(KERNEL_ARRAYS + count - 1) * 8.0 * n2,
        work=count * KERNEL_ENTRY_OPS * n2 * (1.0 + p / 10.0),
        memory_of=f"{count} kernel matri{'x' if count == 1 else 'ces'} of {n:,} x {n:,}",
        work_of=f"{count} kernel matri{'x' if count == 1 else 'ces'} of {n:,} x {n:,}",
    )
    if _STORING_KERNEL_VIEW.get():
        cost = cost + stored_numbers_cost(STORED_KERNEL_MATRICES * n2 + float(n) * p)
    return cost


def _cubic_cost(n: int, arrays: int, ops: float, what: str) -> Cost:
    """A dense factorisation of an ``n x n`` matrix: ``arrays`` matrices of memory, ``ops n^3`` work."""
    return Cost(memory=arrays * 8.0 * float(n) ** 2, work=ops * float(n) ** 3, memory_of=what, work_of=what)


def eigen_cost(n: int, what: str = "an eigen-decomposition") -> Cost:
    """One symmetric eigen-decomposition of an ``n x n`` matrix."""
    return _cubic_cost(n, 3, EIGEN_OPS, f"{what} of {n:,} x {n:,}")


def solve_cost(n: int, what: str = "a least-squares solve") -> Cost:
    """One least-squares solve with an ``n x n`` matrix (a kernel matrix's pseudo-inverse applied)."""
    return _cubic_cost(n, 4, SOLVE_OPS, f"{what} with {n:,} x {n:,}")
