"""Issue 43, item 7 (and issue 30): the time left of a sweep comes from the CPU times recorded for the same
experiment, method and point, and says when it is a guess."""

from __future__ import annotations

import itertools
import re

import pytest

from safebandits.experiments import progress as progress_mod
from safebandits.experiments.progress import WARM_UP_FIELD, CostModel, LineProgress, Progress, cost_key


def run(point, label="A", experiment="e", scale="quick"):
    return {"experiment": experiment, "scale": scale, "label": label, "sweep_point": point}


def done(task, cpu, wall=None, warm_up=False):
    return {
        **task,
        "status": "ok",
        "cpu_s": cpu,
        "wall_s": cpu if wall is None else wall,
        WARM_UP_FIELD: warm_up,
    }


def play(bar, tasks, costs, now, warm=()):
    """Finish ``tasks`` one after the other on one worker (each takes its cost); the time left after each
    run and the true time left."""
    lefts, truths = [], []
    for i, (task, cost) in enumerate(zip(tasks, costs)):
        now[0] += cost
        getattr(bar, "update", bar.finish)(done(task, cost, warm_up=i in warm))
        lefts.append(bar.time_left()[0])
        truths.append(sum(costs[i + 1 :]))
    return lefts, truths


def test_progress_lines_when_stderr_is_not_a_terminal(capsys):
    tasks = [run(0)] * 5
    bar = LineProgress(tasks, every=0.0)
    for task in tasks:
        bar.update(done(task, 0.5))
    err = capsys.readouterr().err
    assert err.count("progress: ") == 4 and "1/5 runs" in err and "2 s left" in err


def test_dear_points_last_are_priced_from_the_store():
    """Issue 43: 500 cheap runs (0.1 s) then 100 dear ones (5 s) at another point. Counting runs, the
    time left after the cheap ones is ~10 s against 500 s; priced by the CPU recorded at each point (an
    earlier sweep in the store), it is right from the first run on and only counts down."""
    tasks = [run(0)] * 500 + [run(1)] * 100
    costs = [0.1] * 500 + [5.0] * 100
    history = [(cost_key(run(0)), 0.1), (cost_key(run(1)), 5.0)]
    now = [0.0]
    bar = Progress(tasks, history, clock=lambda: now[0])
    assert bar.time_left() == (pytest.approx(550.0), 0)
    lefts, truths = play(bar, tasks, costs, now)
    assert all(a == pytest.approx(b) for a, b in zip(lefts, truths))
    assert bar.describe() == "0 s left"
    # counted runs (issue 30's estimate) after the cheap half: 500 runs took 50 s, 100 left -> 10 s
    assert 50.0 / 500 * 100 < truths[499] / 40


def test_a_point_without_recorded_cost_is_a_guess_and_says_so():
    tasks = [run(0)] * 4 + [run(1)] * 4
    now = [0.0]
    bar = Progress(tasks, [(cost_key(run(0)), 2.0)], clock=lambda: now[0])
    left, guessed = bar.time_left()
    assert guessed == 4 and left == pytest.approx(16.0)  # point 1 priced at the method's mean
    text = bar.describe()
    assert text.startswith("about 16 s left (a guess for 4 of the 8 runs left")
    for task in tasks[:4]:
        bar.finish(done(task, 2.0))
    bar.finish(done(tasks[4], 3.0))  # the first run at point 1 prices the others there
    assert bar.time_left() == (pytest.approx(9.0), 0) and bar.describe() == "9 s left"


def test_guesses_fall_back_to_the_method_then_to_every_run():
    model = CostModel([run(0, "A"), run(5, "A"), run(0, "B")], [(cost_key(run(0, "A")), 4.0)])
    total, guessed, largest = model.cpu_left()
    assert (total, guessed, largest) == (12.0, 2, 4.0)  # A@5 by A's mean, B@0 by the overall mean
    assert CostModel([run(0)], []).cpu_left()[0] is None  # nothing recorded: no estimate


def test_warm_up_runs_do_not_price_and_the_estimate_never_starts_at_the_compile_time(capsys):
    """Issue 30's sweep: the first run of each of 10 methods compiles (30 s), the others take 0.1 s. The
    warm-up runs price nothing: the line says it is estimating, then the time left is within 50% of the
    truth and only counts down."""
    tasks = [run(0, label=f"m{m}") for m in range(10) for _ in range(100)]
    order = [tasks[m * 100] for m in range(10)] + [
        t for m in range(10) for t in tasks[m * 100 + 1 : m * 100 + 100]
    ]
    costs = [30.0] * 10 + [0.1] * 990
    now = [0.0]
    bar = LineProgress(tasks, every=5.0, clock=lambda: now[0])
    lefts, truths = play(bar, order, costs, now, warm=range(10))
    err = capsys.readouterr().err
    assert "estimating the time left" in err.splitlines()[0]
    assert all(left is None for left in lefts[:10])
    known = [(a, b) for a, b in zip(lefts, truths) if a is not None and b > 1.0]
    assert known and max(a / b for a, b in known) < 1.5 and min(a / b for a, b in known) > 0.67
    printed = [float(m) for m in re.findall(r"(\d+) s left", err)]
    assert printed and all(a >= b for a, b in itertools.pairwise(printed))


def test_loaded_machine_and_several_workers():
    """Time left = CPU left / (workers x the CPU share a run gets), and at least the dearest run left."""
    tasks = [run(0)] * 10
    bar = Progress(tasks, [(cost_key(run(0)), 1.0)], workers=4)
    assert bar.time_left()[0] == pytest.approx(10.0 / 4)
    bar.finish(done(run(0), 1.0, wall=2.0))  # half a core per worker
    assert bar.time_left()[0] == pytest.approx(9.0 / 4 / 0.5)
    for _ in range(8):
        bar.finish(done(run(0), 1.0, wall=2.0))
    assert bar.time_left()[0] == pytest.approx(2.0)  # one run left: its own cost, not a quarter of it


def test_run_tasks_reads_the_stores_cpu_times(tmp_path, monkeypatch, capsys, fakes):
    """A resumed sweep prices its runs with the CPU times the store has for the same points (and a store
    written before ``cpu_s`` gives none)."""
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import expand
    from safebandits.experiments.store import ResultsStore

    tasks = [t for t in expand(fakes.SPEC, "quick") if t.label != "Boom"]
    with ResultsStore(tmp_path, mode="w") as store:
        run_tasks(tasks[:3], store, workers=1, quiet=True)
        history = store.cpu_costs(progress_mod.COST_COLUMNS)
        assert len(history) == 3 and all(cpu >= 0 for _, cpu in history)
        assert {k for k, _ in history} == {cost_key(t) for t in tasks[:3]}
        monkeypatch.setattr(progress_mod, "PROGRESS_EVERY_S", 0.0)
        run_tasks(tasks, store, workers=1)
    err = capsys.readouterr().err
    assert "progress: 1/" in err and " s left" in err
    with ResultsStore(tmp_path / "empty", mode="w") as store:
        assert store.cpu_costs(progress_mod.COST_COLUMNS) == []


def test_the_bar_shows_the_same_time_left_not_tqdms(capsys):
    from safebandits.experiments.progress import BarProgress

    tasks = [run(0)] * 3 + [run(1)] * 2
    bar = BarProgress(tasks, [(cost_key(run(0)), 1.0)])
    bar.bar.mininterval = 0.0
    bar.update(done(run(0), 1.0))
    text = bar.describe()
    bar.close()
    err = capsys.readouterr().err
    assert text.startswith("about 4 s left (a guess for 2 of the 4 runs left") and text in err
    assert "<" not in err.split("|")[-1]  # (tqdm's own remaining-time estimate, "elapsed<remaining", is gone)
