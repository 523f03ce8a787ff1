"""Studies made from a declared problem (issue 29, "Studies from declarations").

``create_study(name, learner, problem)`` takes a declaration (LinearProblem, KernelProblem, ...): the
learner gets the view of it that it reads, the study stores the declaration and that kind, and a study
reopened elsewhere (another Study object, another process) holds exactly the same learner state.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.algorithms.compatibility import compatible_learners, view_for
from safebandits.exceptions import ConfigError
from safebandits.experiments.user import problem_of_file
from safebandits.problems.declare import KernelProblem, LinearProblem
from safebandits.problems.settings import problem_from_dict
from safebandits.study.codec import info_to_dict

ROOT = Path(__file__).resolve().parents[3]
ARMS = [[0.3, 0.0], [0.9, 0.0], [0.6, 0.6], [0.0, 0.9], [0.5, 0.3]]


def linear(**extra):
    values = dict(
        arms=ARMS, threshold=0.5, safe_arm=0, safe_reward=0.18, safe_cost=0.03,
        feedback={"kind": "gaussian", "sigma": 0.1}, horizon=40, epsilon=0.05,
    )  # fmt: skip
    values.update(extra)
    return LinearProblem(**values)


TRUTH = {"reward_param": [0.6, 0.8], "cost_params": [[0.1, 0.45]]}


def kernel():
    pts = np.linspace(0.0, 1.0, 8)[:, None]
    return KernelProblem(
        kernel={"name": "se", "lengthscale": 0.3}, points=pts, reward_bound=1.0, constraint_bound=1.0,
        slater=0.2, safe_seed=(0,), horizon=30,
    )  # fmt: skip


def kernel_truth():
    x = np.linspace(0.0, 1.0, 8)
    return {"reward": np.sin(3 * x), "constraint": x - 0.6}


#: (learner, declaration, truth): one per family that reads a declaration.
FAMILIES = [
    ("opb", linear, TRUTH),  # k-armed
    ("oplb", linear, TRUTH),  # stage-wise linear
    ("beside-practical", linear, TRUTH),  # transductive
    ("g-acol", lambda: linear(reward_param=[0.6, 0.8]), {"cost_params": [[0.1, 0.45]]}),  # cbai
    ("ckb-ucb", kernel, None),  # kernel
]


def play(study, sim, n, seed=0):
    """Answer ``n`` queries of ``study`` from the simulated truth (the study's own view kind)."""
    env = sim.instance(study.declared_kind).environment(np.random.default_rng(seed))
    for _ in range(n):
        if study.done:
            break
        q = study.ask()
        study.tell(q.id, env.play(q.decision))


def state(study):
    """What must be identical after a reopen: the summary without times, and the stored queries."""
    s = study.summary()
    s.pop("storage")
    for q in s["open_queries"] + ([s["pending"]] if s["pending"] else []):
        q.pop("asked_at")
    queries = [{k: v for k, v in q.items() if k not in ("asked_at", "told_at")} for q in study.queries()]
    return json.loads(json.dumps({"summary": s, "queries": queries}, default=str))


def simulated(name, make, truth):
    problem = make()
    if name == "ckb-ucb":
        return problem, problem.simulate(**kernel_truth())
    return problem, problem.simulate(**truth)


@pytest.mark.parametrize("name,make,truth", FAMILIES, ids=[f[0] for f in FAMILIES])
def test_declared_problem_gives_the_learners_view(tmp_path, name, make, truth):
    url = f"sqlite:///{tmp_path / 's.db'}"
    problem, sim = simulated(name, make, truth)
    study = sb.create_study("mine", name, problem, storage=url, seed=3)
    expected = view_for(problem, name)
    assert info_to_dict(study.info) == info_to_dict(expected)
    kind = next(c.kind for c in compatible_learners(problem) if c.name == name)
    assert study.declared_kind == kind
    assert study.declaration.to_dict() == problem.to_dict()
    play(study, sim, 12)
    before = state(study)
    study.close()
    again = sb.load_study("mine", url)  # a new Study: the learner rebuilt by replay
    assert again.declared_kind == kind
    assert info_to_dict(again.info) == info_to_dict(problem_from_dict(problem.to_dict()).view(kind))
    assert state(again) == before
    assert again.export()["settings"]["declaration"]["problem"] == problem.to_dict()
    # and it goes on exactly as an uninterrupted study
    play(again, sim, 3, seed=1)
    ref = sb.create_study("mine", name, problem, storage=f"sqlite:///{tmp_path / 'ref.db'}", seed=3)
    play(ref, sim, 12)
    play(ref, sim, 3, seed=1)
    assert state(again)["queries"] == state(ref)["queries"]


def test_reopened_in_another_process_is_identical(tmp_path):
    """Studies of five families on declared problems, reopened in a fresh interpreter: same state."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    here = {}
    for name, make, truth in FAMILIES:
        problem, sim = simulated(name, make, truth)
        study = sb.create_study(name, name, problem, storage=url, seed=11)
        play(study, sim, 10)
        if not study.done:
            study.ask()  # one open query too
        here[name] = state(study)
        study.close()
    script = textwrap.dedent(
        f"""
        import json, sys
        import safebandits as sb
        from tests.unit.study.test_declared_study import state
        out = {{}}
        for name in {[f[0] for f in FAMILIES]!r}:
            with sb.load_study(name, {url!r}) as s:
                out[name] = state(s)
        print(json.dumps(out))
        """
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=300, check=False,
        cwd=str(ROOT),
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    there = json.loads(proc.stdout.strip().splitlines()[-1])
    assert there == here


def test_a_simulated_problem_gives_its_declaration_only(tmp_path):
    problem, sim = simulated("opb", linear, TRUTH)
    study = sb.create_study("s", "opb", sim, storage=f"sqlite:///{tmp_path / 's.db'}", seed=0)
    assert study.declaration.to_dict() == problem.to_dict()
    assert "truth" not in json.dumps(study.export()["settings"])


def test_horizon_overrides_the_declared_one(tmp_path):
    study = sb.create_study("s", "opb", linear(), storage=f"sqlite:///{tmp_path / 's.db'}", seed=0, horizon=7)
    assert study.info.horizon == 7
    assert study.export()["settings"]["declaration"]["horizon"] == 7
    with pytest.raises(ConfigError, match="declared problem only"):
        sb.create_study("v", "opb", study.info, storage=f"sqlite:///{tmp_path / 's.db'}", seed=0, horizon=7)


def test_a_learner_that_does_not_fit_or_cannot_start_is_refused(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    with pytest.raises(ConfigError, match="needs a 'cbai' problem"):
        sb.create_study("a", "g-acol", linear(), storage=url, seed=0)  # no known reward parameter
    # examples/in_expectation.toml: no point is pessimistically feasible in LC-LUCB's first round
    doses = problem_of_file(ROOT / "examples" / "in_expectation.toml")
    with pytest.raises(ConfigError, match="cannot start"):
        sb.create_study("b", "lc-lucb", doses, storage=url, seed=0)
    assert not (tmp_path / "s.db").exists()  # refused before the database is touched


# -- Hypothesis: small generated declarations ---------------------------------------------------------
@st.composite
def declarations(draw):
    k = draw(st.integers(2, 5))
    coords = st.floats(-1.0, 1.0, allow_nan=False, allow_subnormal=False).map(lambda v: round(v, 3))
    arms = [[0.2, 0.0]] + [[draw(coords), draw(coords)] for _ in range(k - 1)]
    assume(len({tuple(a) for a in arms}) == k)
    threshold = draw(st.sampled_from([0.3, 0.5, 1.0]))
    feedback = draw(st.sampled_from(["gaussian", "bernoulli"]))
    mu = np.array([draw(st.floats(-0.5, 0.5)), draw(st.floats(-0.5, 0.5))])
    theta = np.array([draw(st.floats(-1.0, 1.0)), draw(st.floats(-1.0, 1.0))])
    a = np.asarray(arms)
    if feedback == "bernoulli":  # means in [0, 1]
        assume(np.all((a @ mu >= 0) & (a @ mu <= 1) & (a @ theta >= 0) & (a @ theta <= 1)))
    safe_cost = float(a[0] @ mu)
    assume(safe_cost < threshold - 0.05)
    problem = LinearProblem(
        arms=arms, threshold=threshold, safe_arm=0, safe_cost=safe_cost, safe_reward=float(a[0] @ theta),
        feedback=feedback if feedback == "bernoulli" else {"kind": "gaussian", "sigma": 0.1}, horizon=20,
        epsilon=0.1,
    )  # fmt: skip
    return problem, problem.simulate(reward_param=theta.tolist(), cost_params=[mu.tolist()])


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(declared=declarations(), pick=st.integers(0, 10_000), seed=st.integers(0, 2**32 - 1))
def test_generated_declarations_reopen_identically(tmp_path_factory, declared, pick, seed):
    problem, sim = declared
    names = [c.name for c in compatible_learners(problem) if c.task != "classification"]
    name = names[pick % len(names)]
    url = f"sqlite:///{tmp_path_factory.mktemp('h') / 's.db'}"
    try:
        study = sb.create_study("h", name, problem, storage=url, seed=seed)
    except ConfigError as exc:  # a learner that cannot start on this draw says so, in one message
        assert "cannot" in str(exc) or "needs" in str(exc), str(exc)
        assume(False)
    kind = study.declared_kind
    assert info_to_dict(study.info) == info_to_dict(problem.view(kind))
    play(study, sim, 6, seed=seed % 1000)
    before = state(study)
    study.close()
    with sb.load_study("h", url) as again:
        assert state(again) == before
        assert again.declaration.to_dict() == problem.to_dict()
