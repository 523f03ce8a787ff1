"""Experiment specs: validation, registry, expansion into run tasks, selection and overrides."""

from __future__ import annotations

import dataclasses
import pickle
import zlib

import pytest

from safebandits.exceptions import ConfigError
from safebandits.experiments.spec import (
    AlgorithmSpec,
    ExperimentSpec,
    PanelSpec,
    apply_overrides,
    expand,
    get_experiment,
    list_experiments,
    parse_assignments,
    register_experiment,
    select,
    sweep_point,
)


def panel(**kw):
    base = dict(name="p", instance="acol/irrelevant-dimensions", fixed={"d": 3}, sweep_param="epsilon",
                values={"quick": (0.2,), "paper": (0.1, 0.2)})  # fmt: skip
    return PanelSpec(**{**base, **kw})


def experiment(**kw):
    base = dict(name="e", title="E", panels=(panel(),), algorithms=(AlgorithmSpec(label="A", name="a"),),
                replicates={"quick": 2, "paper": 3}, budget={"quick": 10, "paper": 100})  # fmt: skip
    return ExperimentSpec(**{**base, **kw})


# -- validation -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw",
    [
        {"algorithms": (AlgorithmSpec(label="A", name="a"), AlgorithmSpec(label="A", name="b"))},
        {"panels": (panel(), panel())},
        {"replicates": {"quick": 0, "paper": 3}},
        {"replicates": {"huge": 1}, "budget": {"huge": 1}},
        {"budget": {"quick": 10}},
        {"figure": "pie"},
        {"figure_labels": ("nope",)},
        {"seed": -1},
        {"panels": ()},
    ],
)
def test_invalid_experiment_raises(kw):
    with pytest.raises(ConfigError):
        experiment(**kw)


@pytest.mark.parametrize(
    "kw",
    [
        {"fixed": {"epsilon": 0.1}},
        {"values": {"quick": ()}},
        {"values": {"quick": (1, 1)}},
        {"values": {"weekly": (1,)}},
        {"name": ""},
    ],
)
def test_invalid_panel_raises(kw):
    with pytest.raises(ConfigError):
        panel(**kw)


def test_missing_scale_in_panel_raises():
    with pytest.raises(ConfigError, match="swept at every scale"):
        experiment(panels=(panel(values={"quick": (0.2,)}),))


def test_specs_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        experiment().name = "x"


# -- sweep points and registry ----------------------------------------------------------------------


def test_sweep_point_is_crc32_of_panel_param_value():
    assert sweep_point("irrelevant-d", "d", 25) == zlib.crc32(b"irrelevant-d:d=25")
    assert sweep_point("p", "epsilon", 0.05) == zlib.crc32(b"p:epsilon=0.05")
    assert sweep_point("p", "d", 5) != sweep_point("q", "d", 5)


def test_registry_holds_the_acol_experiments():
    names = list_experiments()
    assert {"acol-synthetic", "acol-regret-comparison"} <= set(names)
    with pytest.raises(ConfigError, match="Unknown experiment"):
        get_experiment("nope")
    with pytest.raises(ConfigError, match="already registered"):
        register_experiment(get_experiment("acol-synthetic"))


def test_acol_synthetic_matches_the_paper():
    spec = get_experiment("acol-synthetic")
    assert spec.replicates["paper"] == 30 and spec.budget["paper"] >= 10**7
    assert len(spec.algorithms) == 14 and "Max Rew-F (theory)" not in spec.labels
    for base in ("Greedy Max Var", "Adaptive Uniform", "G-ACOL", "G-ACOL Uniform", "Max Rew-U"):
        assert {f"{base} (theory)", f"{base} (tuned)"} <= set(spec.labels)
    values = {p.name: p.values["paper"] for p in spec.panels}
    assert values["irrelevant-epsilon"] == (0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.1)
    assert values["irrelevant-d"] == tuple(range(5, 51, 5))
    assert values["sphere-n"] == values["sphere-d"] == tuple(range(10, 101, 10))
    for p in spec.panels:
        assert p.fixed["sigma"] == 0.05 and set(p.values["quick"]) <= set(p.values["paper"])
    assert spec.algorithm_defaults == {"delta": 0.05}


def test_acol_regret_comparison_matches_the_paper():
    spec = get_experiment("acol-regret-comparison")
    assert spec.figure == "bar-samples" and spec.replicates["paper"] == 30
    assert spec.figure_labels == ("G-ACOL (theory)", "Max Rew-U (theory)", "Max Rew-F (theory)")
    (p,) = spec.panels
    assert p.instance == "acol/one-dimensional" and p.values["paper"] == (0.25,)
    assert len(spec.algorithms) == 16


# -- expansion --------------------------------------------------------------------------------------


def test_expand_counts_keys_and_resolved_defaults(fakes):
    spec = fakes.SPEC
    tasks = expand(spec, "quick")
    assert len(tasks) == 4 * 3 * 2
    assert len({t.pk for t in tasks}) == len({str(t.key) for t in tasks}) == len(tasks)
    t = tasks[0]
    assert t.algorithm_params == {
        "n_stop": 12,
        "delta": 0.05,
        "width": "theory",
        "sleep_s": 0.0,
        "batch": False,
        "parallel_numba": False,
        "hold": "",
    }
    assert t.instance_params["sigma"] == 0.05 and t.instance_params["d"] == 3
    cfg = t.config()
    assert cfg["instance.d"] == 3 and cfg["algorithm.n_stop"] == 12 and cfg["sweep.value"] == 0.2
    assert t.key.sweep_point == sweep_point("fixed-eps", "epsilon", 0.2)


def test_quick_points_equal_paper_runs_of_the_same_value(fakes):
    quick = {(t.panel, t.sweep_value, t.label, t.key.replicate): t for t in expand(fakes.SPEC, "quick")}
    paper = {(t.panel, t.sweep_value, t.label, t.key.replicate): t for t in expand(fakes.SPEC, "paper")}
    shared = set(quick) & set(paper)
    assert len(shared) == len(quick)
    for k in shared:
        assert quick[k].key == paper[k].key
    # Same budget: the same run, whatever the scale it was expanded at.
    q = expand(fakes.SPEC, "quick", budget=50)[0]
    p = next(t for t in expand(fakes.SPEC, "paper", budget=50) if t.key == q.key)
    assert q.pk == p.pk


def test_config_hash_tracks_every_config_value(fakes):
    base = expand(fakes.SPEC, "quick")[0]
    changed = [
        expand(fakes.SPEC, "quick", budget=31)[0],
        expand(apply_overrides(fakes.SPEC, {"algorithm.n_stop": 13})[0], "quick")[0],
        expand(apply_overrides(fakes.SPEC, {"sigma": 0.1})[0], "quick")[0],
    ]
    for t in changed:
        assert t.key == base.key and t.pk != base.pk
    assert expand(fakes.SPEC, "quick")[0].pk == base.pk
    assert expand(fakes.SPEC, "quick", seed=1)[0].key.experiment_seed == 1


def test_algorithm_budgets_override_the_experiment_budget(fakes):
    algs = (
        AlgorithmSpec(label="A", name=fakes.ROUND_ROBIN),
        AlgorithmSpec(label="B", name=fakes.ROUND_ROBIN, budget={"quick": 99}),
    )
    spec = dataclasses.replace(fakes.SPEC, algorithms=algs)
    budgets = {t.label: t.budget for t in expand(spec, "quick")}
    assert budgets == {"A": 30, "B": 99}
    assert {t.budget for t in expand(spec, "paper")} == {100}
    assert {t.budget for t in expand(spec, "quick", budget=7)} == {7}
    with pytest.raises(ConfigError, match="budget"):
        AlgorithmSpec(label="C", name="c", budget={"quick": 0})


def test_a_method_restricted_to_some_panels_runs_only_there(fakes):
    algs = (
        AlgorithmSpec(label="A", name=fakes.ROUND_ROBIN),
        AlgorithmSpec(label="B", name=fakes.ROUND_ROBIN, panels=("sphere-n",)),
    )
    spec = dataclasses.replace(fakes.SPEC, algorithms=algs)
    tasks = expand(spec, "quick", replicates=1)
    assert {t.panel for t in tasks if t.label == "B"} == {"sphere-n"}
    assert {t.panel for t in tasks if t.label == "A"} == {"fixed-eps", "sphere-n"}
    assert len(tasks) == 2 * 2 + 2  # A on both panels (2 values each), B on sphere-n only
    # A keeps the run keys it has without B
    alone = expand(dataclasses.replace(fakes.SPEC, algorithms=algs[:1]), "quick", replicates=1)
    assert [t.pk for t in tasks if t.label == "A"] == [t.pk for t in alone]
    # selecting away B's panel drops B; selecting B keeps its panel only
    assert select(spec, panels=["fixed-eps"]).labels == ["A"]
    sub = select(spec, algorithms=["B"])
    assert {t.panel for t in expand(sub, "quick")} == {"sphere-n"}
    with pytest.raises(ConfigError, match="panels"):
        dataclasses.replace(spec, algorithms=(AlgorithmSpec(label="C", name="c", panels=("nope",)),))
    with pytest.raises(ConfigError, match="panels"):
        AlgorithmSpec(label="C", name="c", panels="sphere-n")
    assert AlgorithmSpec(label="C", name="c").runs_on("anything")


def test_acol_budgets_follow_the_cost_per_sample():
    # round-based methods: a long budget at quick scale too (cost per round); sequential rules with
    # certified skips: a long paper budget; G-ACOL and Greedy Max Var: the experiment's budgets
    spec = get_experiment("acol-synthetic")
    long = {"uniform", "g-allocation", "acol", "oracle", "adaptive-uniform", "g-acol-uniform", "maxrew-u"}
    for alg in spec.algorithms:
        if alg.name in ("uniform", "g-allocation", "acol", "oracle"):
            assert alg.budget == {"quick": spec.budget["paper"], "paper": 10**12}
        elif alg.name in long:
            assert alg.budget == {"paper": 10**9}
        else:
            assert alg.name in ("g-acol", "greedy-maxvar")
            assert alg.budget == {} and spec.budget["quick"] < spec.budget["paper"] < 10**9


def test_tasks_pickle(fakes):
    for t in expand(fakes.SPEC, "quick")[:3]:
        assert pickle.loads(pickle.dumps(t)) == t


def test_expand_rejects_bad_inputs(fakes):
    with pytest.raises(ConfigError, match="no scale"):
        expand(dataclasses.replace(fakes.SPEC, replicates={"quick": 1}, budget={"quick": 1}), "paper")
    with pytest.raises(ConfigError, match="replicates"):
        expand(fakes.SPEC, "quick", replicates=0)
    bad = dataclasses.replace(fakes.SPEC, panels=(panel(fixed={"d": 3, "colour": 1}),))
    with pytest.raises(ConfigError, match="colour"):
        expand(bad, "quick")
    bad = dataclasses.replace(fakes.SPEC, algorithms=(AlgorithmSpec(label="X", name="no-such"),))
    with pytest.raises(ConfigError, match="no-such"):
        expand(bad, "quick")
    bad = dataclasses.replace(fakes.SPEC, algorithms=(AlgorithmSpec(label="X", name=fakes.ROUND_ROBIN,
                                                                    params={"colour": 1}),))  # fmt: skip
    with pytest.raises(ConfigError, match="colour"):
        expand(bad, "quick")


# -- selection, --set parsing and overrides ---------------------------------------------------------


def test_select_by_label_name_and_panel():
    spec = get_experiment("acol-synthetic")
    assert select(spec, algorithms=["acol"]).labels == ["ACOL"]
    assert select(spec, algorithms=["g-acol (TUNED)"]).labels == ["G-ACOL (tuned)"]
    assert select(spec, algorithms=["g-acol"]).labels == ["G-ACOL (theory)", "G-ACOL (tuned)"]
    sub = select(spec, panels=["sphere-d"], algorithms=["ACOL", "G-ACOL (theory)"])
    assert sub.panel_names == ["sphere-d"] and sub.figure_labels == ("ACOL", "G-ACOL (theory)")
    assert select(spec, algorithms=["nope"]) is None
    assert select(spec, panels=["nope"]) is None


def test_parse_assignments():
    got = parse_assignments(["a=1e6", "b=true", "c=x", 'd="y"', "e=3", "f=[1, 2]", "g=a=b"])
    assert got == {"a": 1e6, "b": True, "c": "x", "d": "y", "e": 3, "f": [1, 2], "g": "a=b"}
    assert isinstance(got["e"], int)
    for bad in ("novalue", "=3"):
        with pytest.raises(ConfigError, match="key=value"):
            parse_assignments([bad])


def test_overrides_instance_algorithm_and_bare_keys(fakes):
    spec, unmatched = apply_overrides(
        fakes.SPEC, {"instance.sigma": 0.1, "n_stop": 5, "algorithm.width": "tuned"}
    )
    assert not unmatched
    assert all(p.fixed["sigma"] == 0.1 for p in spec.panels)
    assert all(a.params["n_stop"] == 5 and a.params["width"] == "tuned" for a in spec.algorithms)
    # Bare keys: instance parameters win; "d" is fixed in both panels.
    spec, _ = apply_overrides(fakes.SPEC, {"d": 4})
    assert [p.fixed["d"] for p in spec.panels] == [4, 4]
    assert all("d" not in a.params for a in spec.algorithms)
    _, unmatched = apply_overrides(fakes.SPEC, {"nope": 1, "algorithm.sigma": 1})
    assert unmatched == {"nope", "algorithm.sigma"}
    with pytest.raises(ConfigError, match="prefix"):
        apply_overrides(fakes.SPEC, {"learner.x": 1})


def test_setting_a_swept_parameter_needs_a_panel_selection(fakes):
    with pytest.raises(ConfigError, match="swept parameter of panel 'fixed-eps'"):
        apply_overrides(fakes.SPEC, {"epsilon": 0.3})
    _, unmatched = apply_overrides(select(fakes.SPEC, panels=["sphere-n"]), {"epsilon": 0.3})
    assert unmatched == {"epsilon"}  # the unit sphere has no epsilon


def test_setting_the_swept_parameter_of_a_one_point_panel_moves_the_point(fakes):
    """A panel that states its parameter as a sweep of one value (German's q) can be run at another value
    of a declared range; its runs get the new value's sweep point and config."""
    one = dataclasses.replace(fakes.SPEC.panels[0], values={"quick": (0.2,), "paper": (0.2,)})
    spec = dataclasses.replace(fakes.SPEC, panels=(one,))
    moved, unmatched = apply_overrides(spec, {"instance.epsilon": 0.3})
    assert not unmatched
    assert moved.panels[0].values == {"quick": (0.3,), "paper": (0.3,)}
    tasks = expand(moved, "quick")
    assert {t.sweep_value for t in tasks} == {0.3}
    assert {t.key.sweep_point for t in tasks} == {one.point(0.3)} != {one.point(0.2)}
    assert all(t.config()["instance.epsilon"] == 0.3 for t in tasks)
    before = {t.pk for t in expand(spec, "quick")}
    assert before.isdisjoint(t.pk for t in tasks)


# -- data-dependent experiments --------------------------------------------------------------------


def _data_spec(**kw):
    from safebandits.experiments.spec import get_experiment

    return dataclasses.replace(get_experiment("ckb-finance"), **kw)


def test_requires_data_is_validated():
    with pytest.raises(ConfigError, match="requires_data"):
        _data_spec(requires_data=["finance"])
    with pytest.raises(ConfigError, match="requires_data"):
        _data_spec(requires_data=("",))
    with pytest.raises(ConfigError, match="requires_data"):
        _data_spec(requires_data={"huge": ("finance",)})
    with pytest.raises(ConfigError, match="requires_data"):
        _data_spec(requires_data={"paper": "finance"})
    assert _data_spec(requires_data={"paper": ("finance",)}).requires_data == {"paper": ("finance",)}


def test_real_data_experiments_declare_their_data():
    from safebandits.experiments.spec import get_experiment

    assert get_experiment("ckb-light").requires_data == ("light_sensors",)
    assert get_experiment("ckb-finance").requires_data == ("finance",)
    assert get_experiment("ckb-synthetic").requires_data == ()


def test_missing_data_reads_the_environment_and_the_data_dir_parameter(tmp_path, monkeypatch):
    from safebandits.experiments.spec import apply_overrides, missing_data
    from safebandits.problems.kernel import DATA_ENV

    spec = _data_spec()
    monkeypatch.delenv(DATA_ENV, raising=False)
    msg = missing_data(spec)
    assert msg is not None and "finance" in msg and DATA_ENV in msg and "data_dir" in msg
    assert f"{DATA_ENV} is not set" in msg
    monkeypatch.setenv(DATA_ENV, str(tmp_path))
    assert str(tmp_path) in missing_data(spec)  # the folder exists but holds no fin.csv
    (tmp_path / "finance").mkdir()
    (tmp_path / "finance" / "fin.csv").write_text("date,A\n2016-01-04,1.0\n")
    assert missing_data(spec) is None
    monkeypatch.delenv(DATA_ENV)
    with_dir, _ = apply_overrides(spec, {"data_dir": str(tmp_path)})
    assert missing_data(with_dir) is None
    assert missing_data(_data_spec(requires_data=())) is None
