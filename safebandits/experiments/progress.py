"""Progress of a sweep and its time left, from the recorded CPU costs of the runs still to do.

The time left is a sum over the runs not yet finished of what each is expected to cost: the mean CPU
seconds recorded for runs of the *same experiment, scale, method and point* (:func:`cost_key`) -- in the
store before the sweep started (an earlier or interrupted sweep) or finished since -- divided by the CPU
seconds the workers deliver per second (``workers`` times the CPU / wall ratio of the runs finished so
far: below 1 on a loaded machine), and at least the dearest run left. A run whose point has no recorded
cost yet is priced at the mean of its experiment and method at the other points, else at the mean of
every recorded run, and the estimate then says it is a guess and for how many of the runs left; with no
recorded cost at all it says it is estimating. The first run of a method in each worker also loads its
compiled kernels: its CPU time prices no other run (runs stored by an earlier sweep carry no such mark).

Counting finished runs (the estimate of issue 30) assumes that every run costs the same, which a sweep
whose dear points come last contradicts (issue 43: 63 s left at 819 s, 79 s left at 1,176 s, done at
1,436 s). The estimate ignores how far the runs in flight have got (their whole cost is still counted)
and, for a Dask scheduler given by address, takes ``workers`` as this machine's cores.
"""

from __future__ import annotations

import math
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "COST_COLUMNS",
    "PROGRESS_EVERY_S",
    "WARM_UP_FIELD",
    "BarProgress",
    "CostModel",
    "LineProgress",
    "Progress",
    "cost_key",
    "progress",
]

#: Seconds between progress lines when stderr is not a terminal (CI logs, ``make run > log``).
PROGRESS_EVERY_S = float(os.environ.get("SAFEBANDITS_PROGRESS_S", "30"))

#: Store columns that identify a run's cost group: its experiment, scale, method and sweep point.
COST_COLUMNS = ("experiment", "scale", "label", "sweep_point")
#: Key of a run record (not stored) set by :func:`~.execute.execute_task` on the first run of a method and
#: instance in its process: its CPU time includes loading the compiled kernels, so it does not price others.
WARM_UP_FIELD = "_warm_up"


def cost_key(run: Any) -> tuple[Any, ...]:
    """``(experiment, scale, method label, sweep point)`` of a :class:`~.spec.RunTask` or of a record."""
    if isinstance(run, Mapping):
        return tuple(run.get(c) for c in COST_COLUMNS)
    return (run.experiment, run.scale, run.label, run.key.sweep_point)


class CostModel:
    """Recorded CPU seconds per cost group (:func:`cost_key`) and the cost of the runs left.

    Parameters
    ----------
    tasks : sequence of RunTask
        The runs to do.
    history : iterable of (key, cpu_s)
        CPU seconds of runs recorded before (e.g. :meth:`~.store.ResultsStore.cpu_costs`).
    """

    def __init__(self, tasks: Sequence[Any], history: Iterable[tuple[tuple[Any, ...], float]] = ()) -> None:
        self.left: Counter[tuple[Any, ...]] = Counter(cost_key(t) for t in tasks)
        self._sum: defaultdict[tuple[Any, ...], float] = defaultdict(float)
        self._n: Counter[tuple[Any, ...]] = Counter()
        for key, cpu in history:
            self.record(key, cpu)

    def record(self, key: tuple[Any, ...], cpu: float | None, *, warm_up: bool = False) -> None:
        """Add one run's recorded CPU seconds (``None`` / NaN: not recorded, ignored). A ``warm_up`` run
        (the first of its method in its worker: it also loaded the compiled kernels) prices nothing."""
        if warm_up or cpu is None or not math.isfinite(float(cpu)) or cpu < 0:
            return
        for k in (key, key[:3], ()):  # the point, the experiment and method, everything
            self._sum[k] += float(cpu)
            self._n[k] += 1

    def finish(self, record: Mapping[str, Any]) -> None:
        """A run of the sweep finished: no longer left; its CPU time is recorded."""
        key = cost_key(record)
        if self.left[key] > 0:
            self.left[key] -= 1
        if record.get("status") == "ok":
            self.record(key, record.get("cpu_s"), warm_up=bool(record.get(WARM_UP_FIELD)))

    def _mean(self, key: tuple[Any, ...]) -> float | None:
        n = self._n.get(key, 0)
        return self._sum[key] / n if n else None

    def cpu_left(self) -> tuple[float | None, int, float]:
        """``(CPU seconds left, runs priced by a guess, largest single run)``; ``None`` when no run's cost is
        recorded yet."""
        total, guessed, largest = 0.0, 0, 0.0
        overall = self._mean(())
        for key, n in self.left.items():
            if n <= 0:
                continue
            cost = self._mean(key)
            if cost is None:
                guessed += n
                cost = self._mean(key[:3])
                cost = overall if cost is None else cost
                if cost is None:
                    return None, guessed, 0.0
            total += n * cost
            largest = max(largest, cost)
        return total, guessed, largest


class Progress:
    """Progress of a sweep: the runs done, the time elapsed and the time left (module docstring).

    Parameters
    ----------
    tasks : sequence of RunTask
    history : iterable of (key, cpu_s), default ()
    workers : int, default 1
        Runs executed at once.
    clock : callable, default time.monotonic
    """

    def __init__(
        self,
        tasks: Sequence[Any],
        history: Iterable[Any] = (),
        *,
        workers: int = 1,
        clock: Any = time.monotonic,
    ) -> None:
        self.total, self.n = len(tasks), 0
        self.costs = CostModel(tasks, history)
        self.workers = max(1, int(workers))
        self.clock = clock
        self.t0 = clock()
        self._cpu = self._wall = 0.0

    def finish(self, record: Mapping[str, Any]) -> None:
        """Count one finished run (``record``: its store record, with ``cpu_s`` and ``wall_s``)."""
        self.n += 1
        self.costs.finish(record)
        cpu, wall = record.get("cpu_s"), record.get("wall_s")
        if isinstance(cpu, float) and isinstance(wall, float) and math.isfinite(cpu) and wall > 0:
            self._cpu += cpu
            self._wall += wall

    def time_left(self) -> tuple[float | None, int]:
        """``(seconds left, runs left priced by a guess)``; ``None`` while no cost is recorded."""
        left = self.total - self.n
        if left <= 0:
            return 0.0, 0
        cpu, guessed, largest = self.costs.cpu_left()
        if cpu is None:
            return None, guessed
        # CPU seconds a worker gets per second (1 on an idle machine; the runs' CPU / wall ratio so far)
        share = min(1.0, self._cpu / self._wall) if self._cpu > 0 and self._wall > 0 else 1.0
        return max(cpu / min(self.workers, left), largest) / share, guessed

    def describe(self) -> str:
        """The time left in words: ``"120 s left"``, ``"about 120 s left (a guess for 5 of the 40 runs
        left: no CPU time recorded at their point yet)"`` or ``"estimating the time left ..."``."""
        left, guessed = self.time_left()
        if left is None:
            return "estimating the time left (no CPU time recorded yet beyond runs that loaded kernels)"
        if guessed:
            return (
                f"about {left:.0f} s left (a guess for {guessed} of the {self.total - self.n} runs left: no "
                "CPU time recorded at their point yet)"
            )
        return f"{left:.0f} s left"


class LineProgress(Progress):
    """A progress line on stderr every ``every`` seconds (default :data:`PROGRESS_EVERY_S`; stderr is not a
    terminal: CI logs, files)."""

    def __init__(self, tasks: Sequence[Any], history: Iterable[Any] = (), *, every: float | None = None,
                 **kw: Any) -> None:  # fmt: skip
        super().__init__(tasks, history, **kw)
        self.every = PROGRESS_EVERY_S if every is None else every
        self.last = self.t0

    def update(self, record: Mapping[str, Any]) -> None:
        self.finish(record)
        now = self.clock()
        if now - self.last >= self.every and self.n < self.total:
            self.last = now
            print(
                f"progress: {self.n}/{self.total} runs, {now - self.t0:.0f} s elapsed, {self.describe()}",
                file=sys.stderr,
                flush=True,
            )

    def close(self) -> None:
        pass


class BarProgress(Progress):
    """A tqdm bar (stderr is a terminal) whose time left is :meth:`Progress.describe`, not tqdm's."""

    def __init__(self, tasks: Sequence[Any], history: Iterable[Any] = (), *, quiet: bool = False,
                 **kw: Any) -> None:  # fmt: skip
        from tqdm import tqdm

        super().__init__(tasks, history, **kw)
        self.bar = tqdm(
            total=self.total,
            unit="run",
            disable=quiet,
            dynamic_ncols=True,
            bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} [{elapsed}{postfix}]",
        )

    def update(self, record: Mapping[str, Any]) -> None:
        self.finish(record)
        if not self.bar.disable:
            self.bar.set_postfix_str(self.describe(), refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


def progress(
    tasks: Sequence[Any], history: Iterable[Any] = (), *, workers: int = 1, quiet: bool = False
) -> LineProgress | BarProgress:
    """The progress display of a sweep: a bar on a terminal, lines otherwise, nothing when ``quiet``."""
    if not quiet and not sys.stderr.isatty():
        return LineProgress(tasks, history, workers=workers)
    return BarProgress(tasks, history, workers=workers, quiet=quiet)
