"""Conformance suite run over every registered learner (scikit-learn's parametrize_with_checks idea).

Each family maps to a small problem on which its learners are exercised; a new family adds
one entry to ``PROBLEMS``.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from safebandits.algorithms import list_algorithms
from safebandits.algorithms.base import config_from_dict, config_to_dict
from safebandits.classification import half_circle_pool
from safebandits.classification.problem import PoolInstance
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.experiments.regret_loop import run_regret
from safebandits.experiments.simulate import run
from safebandits.problems import list_instances, make_instance
from safebandits.problems.linear import CBAIInfo
from safebandits.problems.transductive import TransductiveInfo
from safebandits.types import BatchObservation, Decision, Observation

# Pool-based classification learners (Algorithm 2 of Camilleri et al. and its passive baseline) have
# their own protocol tests in tests/unit/classification (they need a labelled pool, not a bandit).
# Contextual learners (ask(context): CLUCB, LinUCB) are driven by their own loop
# (safebandits.experiments.conservative_linear; run_regret has no contexts): their learner contract is
# below, and their study contract (certificate, truth, replay / reload, data not pickle) is
# tests/contract/test_contextual_studies.py. They stay out of ENTRIES, whose drivers ask without a context.
CONTEXTUAL = {k: v for k, v in list_algorithms().items() if v.info == ("conservative-linear",)}
ENTRIES = {k: v for k, v in list_algorithms().items() if v.task != "classification" and k not in CONTEXTUAL}
BUDGET = 20_000
REGRET_ROUNDS = 600

#: Small problems a regret learner may accept, tried in order (the first whose info it accepts and
#: on which it plays a few rounds is its contract problem).
REGRET_CANDIDATES = (
    ("stagewise/four-arm", {"tau": 0.5}),
    ("stagewise/cyclic", {"d": 3, "tau": 0.5}),
    ("stagewise/finite-class", {}),
    ("safelucb/karm", {}),
    ("safelucb/2d-convex", {}),
    ("ckb/synthetic", {"n_points": 20, "n_seed": 3}),
    ("dose/six-doses", {"scenario": 4, "max_increase": 0.2}),
    ("conservative/random", {"alpha": 1.0, "default_mean": 0.9}),  # (BudgetFirst explores within T = 600)
)


def cbai_problem(seed: int = 0, sigma: float = 0.05):
    return make_instance("acol/irrelevant-dimensions", d=3, epsilon=0.3, sigma=sigma)


def transductive_problem(seed: int = 0, sigma: float = 0.05):
    # Example 1 with a large tolerance: BESIDE as printed certifies e_1 in round 1 (so its later rounds
    # depend on the data) and every learner stops or varies within the contract budget.
    return make_instance("beside/example1", epsilon=0.5, safety_gap_1=1.5, sigma=sigma)


PROBLEMS = {CBAIInfo: cbai_problem, TransductiveInfo: transductive_problem}


@functools.cache
def pure_exploration_problem(name):
    """The first problem of ``PROBLEMS`` whose learner view the pure-exploration learner accepts."""
    entry = ENTRIES[name]
    for factory in PROBLEMS.values():
        inst = factory()
        try:
            entry.cls(
                entry.config(),
                inst.privileged_info() if entry.privileged else inst.public_info(),
                np.random.default_rng(0),
            )
        except (TypeError, AttributeError, ConfigError):
            continue
        return factory
    raise AssertionError(f"No contract problem accepts the pure-exploration learner {name!r}.")


def _regret_instance(name, params, noisy=False):
    entry = list_instances()[name]
    params = {**params, "T": REGRET_ROUNDS}
    if noisy and "sigma" in entry.parameters:
        params["sigma"] = 1.0
    return make_instance(name, np.random.default_rng(11) if entry.random else None, **params)


@functools.cache
def regret_problem_name(name):
    """The first candidate problem on which the regret learner ``name`` runs."""
    entry = ENTRIES[name]
    for inst_name, params in REGRET_CANDIDATES:
        if inst_name not in list_instances():
            continue
        try:
            inst = _regret_instance(inst_name, params)
            learner = entry.cls(entry.config(), inst.public_info(), np.random.default_rng(0))
            run_regret(learner, inst.environment(np.random.default_rng(0)), inst, budget=5, compiled=False)
        except (ConfigError, TypeError, AttributeError, ValueError):
            continue
        return inst_name, tuple(sorted(params.items()))
    raise AssertionError(f"No contract problem accepts the regret learner {name!r}.")


def problem_for(entry, seed=0, noisy=False):
    if entry.task == "regret":
        inst_name, params = regret_problem_name(entry.name)
        return _regret_instance(inst_name, dict(params), noisy=noisy)
    return pure_exploration_problem(entry.name)(seed, sigma=1.0 if noisy else 0.05)


def build(name, env_seed=0, learner_seed=0, noisy=False, **overrides):
    entry = ENTRIES[name]
    inst = problem_for(entry, noisy=noisy)
    info = inst.privileged_info() if entry.privileged else inst.public_info()
    learner = entry.cls(entry.config(**overrides), info, np.random.default_rng(learner_seed))
    env = inst.environment(np.random.default_rng(env_seed))
    return inst, learner, env


NAMES = sorted(ENTRIES)
pytestmark = pytest.mark.skipif(not NAMES, reason="no learner registered yet")


@pytest.mark.parametrize("name", NAMES)
def test_protocol_order(name):
    _inst, learner, env = build(name)
    with pytest.raises(ProtocolError):
        learner.tell(None, None)
    if ENTRIES[name].task == "pure_exploration":
        assert not learner.done
        with pytest.raises(ProtocolError):
            learner.recommend()
    d = learner.ask()
    with pytest.raises(ProtocolError):
        learner.ask()
    learner.tell(d, env.play(d))


@pytest.mark.parametrize("name", NAMES)
def test_decisions_stay_in_action_set(name):
    inst, learner, env = build(name)
    for _ in range(50):
        if getattr(learner, "done", False):
            break
        d = learner.ask()
        if d.point is not None:
            assert d.point.shape == (inst.dim,) and np.all(np.isfinite(d.point))
        elif d.counts is not None:
            assert d.counts.shape == (inst.n_arms,) and np.all(d.counts >= 0) and d.counts.sum() > 0
        else:
            assert 0 <= d.arm < inst.n_arms
        if d.probs is not None:  # (regret learners: mass 1 - sum on x0 when x0 is not an arm)
            total = d.probs.sum()
            assert np.all(d.probs >= -1e-12) and (total <= 1 + 1e-9)
            if ENTRIES[name].task != "regret" or getattr(inst, "safe_arm", None) is not None:
                assert np.isclose(total, 1.0)
        learner.tell(d, env.play(d))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("compiled", [True, False])
def test_same_key_same_trajectory(name, compiled):
    outs = []
    for _ in range(2):
        inst, learner, env = build(name, env_seed=3, learner_seed=4)
        if ENTRIES[name].task == "regret":
            outs.append(run_regret(learner, env, inst, compiled=compiled))
        else:
            outs.append(run(learner, env, inst, budget=BUDGET, compiled=compiled))
    if ENTRIES[name].task == "regret":
        assert outs[0].regret == outs[1].regret and outs[0].rounds == outs[1].rounds == REGRET_ROUNDS
        assert {k: v.tolist() for k, v in outs[0].curves.items()} == {
            k: v.tolist() for k, v in outs[1].curves.items()
        }
    else:
        assert outs[0].samples == outs[1].samples
        assert outs[0].recommended == outs[1].recommended


@pytest.mark.parametrize("name", [n for n in NAMES if ENTRIES[n].task == "regret"])
def test_compiled_and_ask_tell_agree(name):
    outs = []
    for compiled in (True, False):
        inst, learner, env = build(name, env_seed=3, learner_seed=4)
        outs.append(run_regret(learner, env, inst, compiled=compiled))
    assert outs[0].regret == pytest.approx(outs[1].regret, rel=1e-9, abs=1e-9)
    assert outs[0].violations == outs[1].violations


@pytest.mark.parametrize("name", NAMES)
def test_different_keys_differ(name):
    # Unit noise: at sigma = 0.05 round-based learners stop in the same round for every key.
    samples = set()
    for seed in range(6):
        inst, learner, env = build(name, env_seed=seed, learner_seed=seed, noisy=True)
        if ENTRIES[name].task == "regret":
            # Played actions (not only the policy's pseudo-regret): a randomised policy whose sets barely
            # move in a short horizon (theory radii) is the same for every key, its draws are not.
            out = run_regret(learner, env, inst)
            samples.add((out.regret, out.action_regret))
        else:
            samples.add(run(learner, env, inst, budget=BUDGET).samples)
    assert len(samples) > 1 or BUDGET in samples


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("budget", [1, 17, 500])
def test_budget_honoured(name, budget):
    inst, learner, env = build(name)
    if ENTRIES[name].task == "regret":
        out = run_regret(learner, env, inst, budget=budget)
        assert out.rounds == min(budget, REGRET_ROUNDS) and out.stopped == (budget >= REGRET_ROUNDS)
        assert env.n_samples == out.rounds
        return
    out = run(learner, env, inst, budget=budget)
    assert out.samples <= budget
    assert env.n_samples == out.samples


@pytest.mark.parametrize("name", NAMES)
def test_config_round_trip(name):
    cfg = ENTRIES[name].config()
    assert config_from_dict(type(cfg), config_to_dict(cfg)) == cfg
    assert dataclasses.is_dataclass(cfg)
    field = dataclasses.fields(cfg)[0].name  # (an existing field: not every learner has a delta)
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(cfg, field, getattr(cfg, field))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("bad", [0.0, 1.0, 1.5, float("nan"), -0.1])
def test_bad_delta_rejected(name, bad):
    if "delta" not in config_to_dict(ENTRIES[name].config()):
        pytest.skip("no delta parameter")
    with pytest.raises(ConfigError, match="delta"):
        ENTRIES[name].config(delta=bad)


_CONFIG_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 200),
    st.floats(allow_nan=True, width=64),
    st.text(max_size=8),
    st.tuples(st.integers(0, 5), st.floats(0, 1)),
    st.lists(st.integers(0, 3), max_size=2),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), data=st.data())
def test_shared_config_is_the_fresh_one_value_and_type(name, data):
    """``entry.config`` shares one frozen config per exact set of values; it equals a fresh build field
    by field *with the same types* (``1``, ``1.0`` and ``True`` hash alike), and a refused set of
    values is refused every time (never cached)."""
    entry = ENTRIES[name]
    fields = sorted(config_to_dict(entry.config()))
    chosen = data.draw(st.dictionaries(st.sampled_from(fields), _CONFIG_VALUES, max_size=3))
    values = {**entry.defaults, **chosen}
    try:
        fresh = config_from_dict(entry.cls.config_cls, values)
    except (ConfigError, TypeError, ValueError) as exc:
        for _ in range(2):
            with pytest.raises(type(exc)):
                entry.config(**chosen)
        return
    shared = entry.config(**chosen)
    again = entry.config(**dict(reversed(list(chosen.items()))))
    assert again is shared or not all(
        isinstance(v, (type(None), bool, int, float, str, tuple)) for v in chosen.values()
    )
    got, want = config_to_dict(shared), config_to_dict(fresh)
    assert list(got) == list(want)
    for k in want:
        assert type(got[k]) is type(want[k]), k
        assert repr(got[k]) == repr(want[k]), k  # (-0.0 and 0.0 too)


@pytest.mark.parametrize("name", NAMES)
def test_unknown_config_key_rejected(name):
    with pytest.raises(ConfigError, match="no parameter"):
        ENTRIES[name].config(not_a_parameter=1)


# -- the learner boundary (issue 16, item 4) ---------------------------------------------------------
# Every registered learner refuses bad observations with a clear error and no state change; the next
# valid tell is accepted and the learner then behaves exactly as a twin that never saw the bad tells.

REFUSED = (ConfigError, TypeError, ProtocolError)


def snapshot(value, depth=0, seen=None, ids=True):
    """A comparable image of an object's state (arrays by dtype, shape and bytes; generators by their
    frame position and locals; helper objects by their attributes, a few levels deep). ``ids=False``
    names functions and objects seen twice by type, so that two twin learners compare equal."""
    seen = set() if seen is None else seen
    if not ids:
        return _without_ids(snapshot(value, depth, seen))
    if isinstance(value, np.void):  # a record of a typed state: a view, so compare (a copy of) its bytes
        return ("rec", str(value.dtype), value.tobytes())
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes, np.generic)):
        return value if not isinstance(value, float) or value == value else ("nan",)
    if isinstance(value, np.ndarray):
        return ("nd", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, np.random.Generator):
        return ("rng", repr(value.bit_generator.state))
    if depth > 5 or id(value) in seen or callable(value) or isinstance(value, type):
        return ("ref", id(value))
    seen.add(id(value))
    if inspect.isgenerator(value):
        frame = value.gi_frame
        if frame is None:
            return ("gen-done", id(value))
        return ("gen", frame.f_lasti, snapshot(dict(frame.f_locals), depth + 1, seen))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(snapshot(v, depth + 1, seen) for v in value))
    if isinstance(value, (set, frozenset)):
        return ("set", tuple(sorted(repr(v) for v in value)))
    if isinstance(value, dict):
        return ("dict", tuple((repr(k), snapshot(v, depth + 1, seen)) for k, v in value.items()))
    attrs = {}
    if hasattr(value, "__dict__"):
        attrs.update(vars(value))
    for klass in type(value).__mro__:
        for slot in getattr(klass, "__slots__", ()):
            if isinstance(slot, str) and hasattr(value, slot):
                attrs[slot] = getattr(value, slot)
    return (type(value).__name__, tuple((k, snapshot(v, depth + 1, seen)) for k, v in sorted(attrs.items())))


def _without_ids(image):
    if isinstance(image, tuple):
        if len(image) == 2 and image[0] in ("ref", "gen-done") and isinstance(image[1], int):
            return (image[0],)
        return tuple(_without_ids(v) for v in image)
    return image


def _impossible_single(spec, value):
    """Values impossible under the spec's feedback model (none for real-valued feedback)."""
    if spec.values == "binary":
        return [0.0, 0.5, 2.0]
    if spec.values == "bernoulli":
        return [0.5, -1.0, 2.0]
    if spec.values == "bounded":
        return [spec.bounds[1] + 1.0, spec.bounds[0] - 1.0]
    return []


@st.composite
def bad_single(draw, decision, obs, spec):
    """One refused ``(decision, observation)`` for a single-pull decision with valid answer ``obs``."""
    r, c = obs.reward, obs.constraints
    m = spec.n_constraints
    options = [
        lambda: (Decision(*decision), obs),  # equal but not the pending decision
        lambda: (None, obs),
        lambda: (decision, BatchObservation(counts=np.ones(3, dtype=np.int64))),
        lambda: (decision, draw(st.sampled_from([0.5, "0.5", None, {"reward": r}, (r, c), [r]]))),
        lambda: (decision, obs._replace(reward=draw(st.sampled_from(["0.5", True, np.bool_(False), [0.5]])))),
    ]
    if spec.reward:
        options += [
            lambda: (decision, obs._replace(reward=draw(st.sampled_from([np.nan, np.inf, -np.inf])))),
            lambda: (decision, obs._replace(reward=None)),
        ]
        options += [lambda v=v: (decision, obs._replace(reward=v)) for v in _impossible_single(spec, r)]
    else:
        options.append(lambda: (decision, obs._replace(reward=0.0)))
    if m:

        def nonfinite():
            bad = np.array(c, dtype=np.float64)
            bad[draw(st.integers(0, m - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
            return decision, obs._replace(constraints=bad)

        def impossible():
            bad = np.array(c, dtype=np.float64)
            bad[draw(st.integers(0, m - 1))] = draw(st.sampled_from(_impossible_single(spec, None)))
            return decision, obs._replace(constraints=bad)

        options += [
            nonfinite,
            lambda: (decision, obs._replace(constraints=None)),
            lambda: (decision, obs._replace(constraints=np.append(c, 0.0))),
            lambda: (decision, obs._replace(constraints=np.asarray(c).reshape(1, m))),
            lambda: (decision, obs._replace(constraints=float(c[0]))),
            lambda: (decision, obs._replace(constraints=np.array(["0.5"] * m))),
            lambda: (decision, obs._replace(constraints=np.ones(m, dtype=bool))),
            lambda: (decision, obs._replace(constraints=[str(v) for v in c])),
        ]
        if _impossible_single(spec, None):
            options.append(impossible)
    else:
        options.append(lambda: (decision, obs._replace(constraints=np.ones(1))))
    return draw(st.sampled_from(options))()


@st.composite
def bad_batch(draw, decision, obs, spec):
    """One refused ``(decision, observation)`` for a batch decision with valid answer ``obs``."""
    counts = np.asarray(decision.counts)
    k = counts.shape[0]
    arm = draw(st.integers(0, k - 1))
    cs, rs = obs.constraint_sums, obs.reward_sums
    pulled = np.flatnonzero(counts > 0)
    options = [
        lambda: (Decision(*decision), obs),
        lambda: (decision, Observation(reward=0.0, constraints=np.zeros(spec.n_constraints))),
        lambda: (decision, draw(st.sampled_from([1.0, "0.5", None, {"counts": counts}]))),
        lambda: (decision, obs._replace(counts=counts + np.eye(k, dtype=counts.dtype)[arm])),
        lambda: (decision, obs._replace(counts=np.append(counts, 1))),
        lambda: (decision, obs._replace(counts=counts.astype(np.float64))),
        lambda: (decision, obs._replace(counts=None)),
    ]

    def corrupt(field, arr, how):
        bad = np.array(arr, dtype=np.float64)
        if how == "nan":
            bad.reshape(k, -1)[arm, 0] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        elif how == "empty":  # a nonzero sum over zero pulls
            zero = np.flatnonzero(counts == 0)
            bad.reshape(k, -1)[zero[0], 0] = 1.0
        else:  # a sum the feedback model cannot produce
            i = pulled[draw(st.integers(0, pulled.size - 1))]
            n = float(counts[i])
            bad.reshape(k, -1)[i, 0] = {
                "binary": draw(st.sampled_from([n + 2.0, -n - 2.0, bad.reshape(k, -1)[i, 0] + 1.0])),
                "bernoulli": draw(st.sampled_from([n + 1.0, -1.0, 0.5])),
                "bounded": n * (spec.bounds[1] + 1.0) if spec.bounds else 0.0,
            }[spec.values]
        return decision, obs._replace(**{field: bad})

    for field, arr, wanted in (
        ("constraint_sums", cs, spec.n_constraints > 0),
        ("reward_sums", rs, spec.reward),
    ):
        if not wanted:
            options.append(
                lambda f=field: (decision, obs._replace(**{f: np.zeros((k, 1) if f[0] == "c" else k)}))
            )
            continue
        options += [
            lambda f=field, a=arr: corrupt(f, a, "nan"),
            lambda f=field: (decision, obs._replace(**{f: None})),
            lambda f=field, a=arr: (decision, obs._replace(**{f: np.append(np.asarray(a), 0.0)})),
            lambda f=field, a=arr: (decision, obs._replace(**{f: np.asarray(a).astype(str)})),
        ]
        if np.any(counts == 0) and spec.values == "real":
            options.append(lambda f=field, a=arr: corrupt(f, a, "empty"))
        if spec.values != "real" and pulled.size:
            options.append(lambda f=field, a=arr: corrupt(f, a, "model"))
    return draw(st.sampled_from(options))()


#: Every registered learner, the pool-based classification learners included.
ALL_ENTRIES = list_algorithms()
BOUNDARY_NAMES = sorted(n for n in ALL_ENTRIES if n not in CONTEXTUAL)  # (contextual: below)


def build_any(name):
    """``build`` for every registered learner: a small labelled pool for classification learners."""
    entry = ALL_ENTRIES[name]
    if entry.task != "classification":
        return build(name)
    inst = PoolInstance(half_circle_pool(np.random.default_rng(0), n_points=80, label_noise=0.1), 0.15)
    cheap = {"batch_size": 7, "n_initial": 20}
    if "n_classifiers" in config_to_dict(entry.config()):
        cheap["n_classifiers"] = 2
    learner = entry.cls(entry.config(**cheap), inst.public_info(), np.random.default_rng(0))
    return inst, learner, inst.environment(np.random.default_rng(0))


def _same_decision(a, b):
    from safebandits.study.codec import decision_to_dict

    return decision_to_dict(a) == decision_to_dict(b)


@pytest.mark.parametrize("name", BOUNDARY_NAMES)
@settings(
    max_examples=6,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_refused_tell_changes_nothing(name, data):
    _inst, learner, env = build_any(name)
    _inst2, twin, _env2 = build_any(name)
    spec = learner.observation_spec()
    assert spec is not None, f"{name} declares no observation spec"
    pool = ALL_ENTRIES[name].task == "classification"  # (a pool learner's round fits classifiers)
    warm = 0 if pool else data.draw(st.integers(0, 3), label="rounds before")
    for step in range(warm + (1 if pool else 4)):
        if getattr(learner, "done", False):
            assert twin.done
            break
        d, dt = learner.ask(), twin.ask()
        assert _same_decision(d, dt)
        obs = env.play(d)
        if step == warm:  # a few refused tells in a row, each leaving the learner exactly as it was
            strategy = bad_batch if d.is_batch else bad_single
            for _ in range(data.draw(st.integers(1, 3), label="bad tells")):
                bad_decision, bad_obs = data.draw(strategy(d, obs, spec), label="bad tell")
                before = snapshot(learner)
                with pytest.raises(REFUSED) as err:
                    learner.tell(bad_decision, bad_obs)
                assert type(learner).__name__ in str(err.value) or "tell" in str(err.value)
                assert snapshot(learner) == before, f"a refused tell changed {name}"
                assert learner._pending is d and learner.n_samples == twin.n_samples
        learner.tell(d, obs)
        twin.tell(dt, obs)
    assert learner.n_samples == twin.n_samples
    assert snapshot(learner, ids=False) == snapshot(twin, ids=False), f"{name} differs from its twin"
    if ALL_ENTRIES[name].task == "pure_exploration":
        a, b = learner.recommend(anytime=True), twin.recommend(anytime=True)
        assert (a.arm, a.n_samples, a.final) == (b.arm, b.n_samples, b.final)


@pytest.mark.parametrize("name", BOUNDARY_NAMES)
def test_error_inside_tell_marks_learner_failed(name, monkeypatch):
    _inst, learner, env = build_any(name)
    d = learner.ask()
    obs = env.play(d)

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(learner, "_tell", boom)
    with pytest.raises(RuntimeError, match="boom"):
        learner.tell(d, obs)
    for call in (learner.ask, lambda: learner.tell(d, obs), lambda: learner.recommend(anytime=True)):
        with pytest.raises(ProtocolError, match=r"RuntimeError: boom.*Build a new learner"):
            call()


@pytest.mark.parametrize("name", NAMES)
def test_wrong_run_helper_refused(name):
    inst, learner, env = build(name)
    helper, other = (run, "run_regret") if ENTRIES[name].task == "regret" else (run_regret, "run")
    with pytest.raises(ConfigError, match=other):
        helper(learner, env, inst)
    assert learner.n_samples == 0 and env.n_samples == 0


def _contextual(name, seed, noisy=False):
    from safebandits.problems.conservative_linear import ConservativeLinearInstance
    from safebandits.problems.noise import GaussianNoise

    inst = ConservativeLinearInstance(
        theta=np.array([0.5, 0.8, 0.2]), n_actions=6, alpha=0.1, baseline_param=np.array([0.5, 0.5, 0.5]),
        noise=GaussianNoise(1.0 if noisy else 0.1), horizon=300, checkpoint=10, feature_low=0.2,
        baseline_floor=0.1,
    )  # fmt: skip  # (checkpoints and a baseline floor: the checkpoint learner starts on it too)
    entry = CONTEXTUAL[name]
    learner = entry.cls(entry.config(), inst.public_info(), np.random.default_rng(seed))
    return inst, learner, inst.environment(np.random.default_rng(seed))


@pytest.mark.parametrize("name", sorted(CONTEXTUAL))
def test_contextual_protocol_and_action_set(name):
    inst, learner, env = _contextual(name, 0)
    with pytest.raises(ProtocolError):
        learner.tell(None, None)
    for _ in range(50):
        d = learner.ask(env.context())
        with pytest.raises(ProtocolError):
            learner.ask(env.current)
        assert 0 <= d.arm < inst.n_actions
        obs = env.play(d)
        before = [np.copy(a) for a in learner.state if isinstance(a, np.ndarray)]
        with pytest.raises((ProtocolError, ConfigError)):  # (a refused tell changes nothing)
            learner.tell(d, Observation(reward=float("nan")))
        after = [a for a in learner.state if isinstance(a, np.ndarray)]
        assert all(x.tobytes() == y.tobytes() for x, y in zip(before, after, strict=True))
        learner.tell(d, obs)


@pytest.mark.parametrize("name", sorted(CONTEXTUAL))
def test_contextual_same_key_same_trajectory_different_keys_differ(name):
    from safebandits.experiments.conservative_linear import run_conservative_linear

    def regret(seed):
        inst, learner, _ = _contextual(name, seed, noisy=True)
        return run_conservative_linear(learner, inst, np.random.default_rng(seed)).regret

    assert regret(3) == regret(3)
    assert len({regret(s) for s in range(4)}) > 1
