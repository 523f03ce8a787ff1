"""OPB's default ``bound="auto"`` (issue 45, item 1): on a declared problem with feedback in [0, 1] the
tightest bound under which OPB's guarantee is stated (``"kl"``), else the paper's index; an explicit bound
always wins, a bound that does not hold for the declared feedback is refused, paper runs keep their keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms import make_learner
from safebandits.algorithms.base import keyed_config
from safebandits.algorithms.compatibility import bound_statement, guarantee_statement
from safebandits.algorithms.regret.opb import AUTO_BOUND, OPBConfig, resolve_bound
from safebandits.exceptions import ConfigError
from safebandits.experiments.user import load_experiment_file
from safebandits.problems.declare.linear import LinearProblem
from safebandits.problems.zoo.declared import declaration, declared
from tests.unit.algorithms.test_opb import k_armed, play_ask_tell

DOSE = Path(__file__).resolve().parents[3] / "examples" / "dose_finding.toml"
FEEDBACKS = ("gaussian", "subgaussian", "bernoulli", "binary")
BOUNDS = ("auto", "sub-gaussian", "kl", "beta-mixture")


def _dose_problem():
    return declaration(load_experiment_file(DOSE).panels[0].fixed["problem"])


def _linear(feedback: str) -> LinearProblem:
    return LinearProblem(
        arms=np.eye(3),
        threshold=0.5,
        safe_arm=0,
        safe_cost=0.1,
        safe_reward=0.2,
        feedback=feedback,
        horizon=500,
    )


def test_auto_is_kl_on_the_declared_dose_example_and_runs_as_kl():
    problem = _dose_problem()
    learner = make_learner("opb", problem, np.random.default_rng(3))
    assert AUTO_BOUND == "kl" and learner.bound == "kl"
    assert learner.applied_config()["bound"] == "kl" and learner.config.bound == "auto"
    explicit = make_learner("opb", problem, np.random.default_rng(3), {"bound": "kl"})
    fixed = dict(load_experiment_file(DOSE).panels[0].fixed)
    sim = declared(problem=fixed["problem"], truth=fixed["truth"], T=600)
    inst = sim.instance("k-armed")
    _, probs_auto = play_ask_tell(learner, inst.environment(np.random.default_rng(4)), 600)
    _, probs_kl = play_ask_tell(explicit, inst.environment(np.random.default_rng(4)), 600)
    np.testing.assert_array_equal(probs_auto, probs_kl)
    assert learner.diagnostics()["bound"] == "kl" and "bound" not in explicit.diagnostics()
    sub = make_learner("opb", problem, np.random.default_rng(3), {"bound": "sub-gaussian"})
    _, probs_sub = play_ask_tell(sub, inst.environment(np.random.default_rng(4)), 600)
    assert not np.array_equal(probs_auto, probs_sub)  # (the default changed what ran)


def test_auto_keeps_the_papers_index_on_paper_instances_and_unbounded_feedback():
    inst = k_armed([0.15, 0.3, 0.45], [0.05, 0.1, 0.2], 0.3, T=1000)  # (Bernoulli, a paper instance)
    info = inst.public_info()
    assert not info.declared and info.noise_kind == "bernoulli"
    auto = make_learner("opb", info, np.random.default_rng(1))
    paper = make_learner("opb", info, np.random.default_rng(1), {"bound": "sub-gaussian"})
    assert auto.bound == "sub-gaussian" and "bound" in auto.diagnostics()
    _, a = play_ask_tell(auto, inst.environment(np.random.default_rng(2)), 500)
    _, b = play_ask_tell(paper, inst.environment(np.random.default_rng(2)), 500)
    np.testing.assert_array_equal(a, b)
    for feedback in ("gaussian", "subgaussian", "binary"):  # (declared, but not known to lie in [0, 1])
        assert make_learner("opb", _linear(feedback), np.random.default_rng(0)).bound == "sub-gaussian"
    assert make_learner("opb", _linear("bernoulli"), np.random.default_rng(0)).bound == "kl"


def test_an_explicit_bound_wins_and_an_invalid_one_is_refused():
    problem = _dose_problem()
    for bound in ("sub-gaussian", "kl", "beta-mixture"):
        learner = make_learner("opb", problem, np.random.default_rng(0), {"bound": bound})
        assert learner.bound == bound and learner.applied_config()["bound"] == bound
    with pytest.raises(ConfigError, match=r"bound='kl' needs costs observed in \[0, 1\].*'gaussian'"):
        make_learner("opb", _linear("gaussian"), np.random.default_rng(0), {"bound": "kl"})


def test_paper_runs_keep_their_keys_and_state_the_papers_bound():
    from safebandits.experiments.spec import expand, get_experiment

    for name in ("opb-random", "opb-four-arm"):
        tasks = [t for t in expand(get_experiment(name), "quick") if t.algorithm == "opb"]
        assert tasks and all("bound" not in t.algorithm_params for t in tasks)
        assert all("algorithm.bound" not in t.config() for t in tasks)
    assert "bound" not in keyed_config(OPBConfig(bound="sub-gaussian"))
    assert keyed_config(OPBConfig())["bound"] == "auto"  # (a user's run under the new default: its own key)


def test_the_statements_name_the_bound_its_source_and_its_guarantee():
    problem = _dose_problem()
    text = bound_statement(problem, "opb")
    assert text.startswith("cost bound 'kl' (the default 'auto' on your declared bernoulli feedback")
    assert "Garivier and Cappe 2011" in text and "regret bound is expected to carry over" in text
    assert text in guarantee_statement(problem, "opb")
    mixture = bound_statement(problem, "opb", {"bound": "beta-mixture"})
    assert "(your choice)" in mixture and "no regret bound is stated" in mixture
    assert bound_statement(_linear("gaussian"), "opb").startswith("cost bound 'sub-gaussian' (the default")
    assert bound_statement(problem, "opb", {"bound": "clopper"}) == ""  # (refused: the start check says why)
    assert "toxicity bound 'beta-mixture'" in bound_statement(problem, "dose-escalation")
    assert bound_statement(problem, "stageopt") == ""  # (no per-action bound)


@settings(max_examples=40, deadline=None)
@given(feedback=st.sampled_from(FEEDBACKS), bound=st.sampled_from(BOUNDS), declared_view=st.booleans())
def test_any_declared_law_and_bound_is_resolved_or_refused_clearly(feedback, bound, declared_view):
    problem = _linear(feedback)
    info = problem.view("k-armed")
    if not declared_view:  # (the same numbers as a paper instance's view)
        import dataclasses

        info = dataclasses.replace(info, declared=False)
    unit = feedback == "bernoulli"
    try:
        learner = make_learner("opb", info, np.random.default_rng(0), {"bound": bound})
    except ConfigError as exc:
        assert bound in ("kl", "beta-mixture") and not unit
        assert f"bound={bound!r}" in str(exc) and repr(feedback) in str(exc) and "[0, 1]" in str(exc)
        return
    expected = bound if bound != "auto" else ("kl" if unit and declared_view else "sub-gaussian")
    assert learner.bound == expected == resolve_bound(bound, info)
    assert learner.applied_config()["bound"] == expected


def test_a_study_on_a_declared_problem_reports_the_bound_that_runs(tmp_path):
    import safebandits as sb

    url = f"sqlite:///{tmp_path}/s.db"
    with sb.create_study("doses", "opb", _linear("bernoulli"), storage=url, seed=0) as study:
        assert study.applied_config["bound"] == "kl"
    with sb.load_study("doses", url) as study:  # (the stored view keeps the declaration's mark)
        assert study.applied_config["bound"] == "kl" and study.info.declared
