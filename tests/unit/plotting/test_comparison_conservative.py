"""The comparison figure and tables of a conservative experiment (issue 44 item 5): the conservative record
(the margin under the truth per round, the rounds below ``(1 - alpha)`` times the baseline per learner), not
the stage-wise panels, which a conservative problem does not have."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "conservative_linear.toml"


@pytest.fixture(scope="module")
def conservative_store(tmp_path_factory):
    from safebandits.experiments.results import load_results
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import expand
    from safebandits.experiments.store import ResultsStore
    from safebandits.experiments.user import load_experiment_file

    spec = load_experiment_file(EXAMPLE)
    out = tmp_path_factory.mktemp("conservative") / "r"
    with ResultsStore(out, mode="w") as store:
        run_tasks(list(expand(spec, "quick")), store, workers=1, quiet=True)
        curves = {pk: v for (pk, name), v in store.traces().items() if name == "curve"}
    return spec, load_results(out), curves


def test_the_table_gives_the_conservative_record_and_no_stagewise_columns(conservative_store):
    from safebandits.plotting.comparison import comparison_tables

    _spec, runs, _curves = conservative_store
    (_caption, table), *_ = comparison_tables(runs)
    table = table.set_index("label")
    linucb = runs.loc[runs["label"] == "LinUCB (unconstrained)", "conservative_violations"].astype(int)
    assert linucb.sum() > 0  # (the example's optimist breaks the constraint at this seed)
    assert (
        table.loc["LinUCB (unconstrained)", "rounds below (1 - alpha) x baseline, all runs"] == linucb.sum()
    )
    assert table.loc["CLUCB", "rounds below (1 - alpha) x baseline, all runs"] == 0
    assert not {"violating rounds", "positive constraint cost"} & set(table.columns)


def test_the_figure_has_a_margin_panel_and_the_conservative_violations_per_learner(conservative_store):
    from safebandits.plotting.comparison import comparison_figure

    spec, runs, curves = conservative_store
    fig = comparison_figure(spec, runs, curves)
    titles = {ax.get_title(): ax for ax in fig.axes}
    assert not {t for t in titles if "violating rounds" in t or "positive constraint cost" in t}
    margin = next(ax for t, ax in titles.items() if "margin" in t)
    ys = [line.get_ydata() for line in margin.get_lines()]
    assert any(np.allclose(y, 0.0) for y in ys)  # the zero line
    assert min(float(np.min(y)) for y in ys) < 0  # LinUCB's mean margin dips below it
    bars = next(ax for t, ax in titles.items() if "below (1 - alpha)" in t)
    counts = {tick.get_text(): p.get_width() for tick, p in zip(bars.get_yticklabels(), bars.patches)}
    linucb = runs.loc[runs["label"] == "LinUCB (unconstrained)", "conservative_violations"].astype(float)
    assert counts["LinUCB (unconstrained)"] == pytest.approx(linucb.mean())
    assert counts["CLUCB"] == 0
