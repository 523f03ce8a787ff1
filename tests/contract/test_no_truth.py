"""No learner can reach an instance's truth (issue 32, item 2): a contract every registered learner, and
every future one, is held to.

* **Modules.** The modules of a learner (its class's module and those of the classes it derives from in
  ``safebandits.algorithms``) and of its compiled kernels (the shared driver's ``select`` / ``update`` /
  ``played`` / ``skip`` / ``prepare``, and the modules they come from) never read an attribute that
  holds truth (``.params``, ``.means``, ``.table``, ``.reward_param``, ...), never read anything of an
  ``env`` but ``play``, never import a truth-holding name of ``safebandits.problems`` (environments,
  instances, the compiled feedback, the means kernels), and never define ``simulate`` (the one loop is
  the base class's).
* **Kernels.** The shared driver hands a learner's kernels its own state, the row and the observation:
  no learner kernel is called with the environment or the variates (the driver's loop, read as code);
  a skip hook gets the compiled sampler, whose numba type has one method, ``sample(arm, row)``: no
  attribute, no item, no unpacking compiles. After a simulation of every learner, the types its driver
  was compiled for hold the environment's record in the ``env`` argument alone.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import sys

import numba
import numpy as np
import pytest

from safebandits.algorithms import _driver
from safebandits.algorithms._driver import Driver, make_driver
from safebandits.algorithms.base import BaseLearner
from safebandits.experiments.regret_loop import run_regret
from safebandits.experiments.simulate import run
from safebandits.problems.feedback import CompiledFeedback, SamplerType, new_sampler
from safebandits.problems.noise import observe_code
from tests.contract.test_learners import ENTRIES, NAMES, build

#: Names under which a learner module could hold the truth, and what it may use of each: an environment
#: only to play a decision (the ask / tell loop), a sampler only to sample; nothing of an instance or of
#: a compiled feedback record.
HOLDERS = {
    "env": {"play"},
    "environment": {"play"},
    "sampler": {"sample"},
    "instance": set(),
    "inst": set(),
    "feedback": set(),
}
#: Names of safebandits.problems a learner module must not import.
TRUTH_NAMES = frozenset(
    {
        "row_means",
        "CompiledFeedback",
        "compiled_feedback",
        "new_sampler",
        "arm_means",
        "point_means",
        "Sampler",
    }
)
#: Learner kernels (the driver's names for them) and the arguments the environment lives in.
LEARNER_KERNELS = frozenset({"_select", "_update", "_skip", "_played", "_prepare"})
ENV_NAMES = frozenset({"env", "variates"})


#: Modules of safebandits.algorithms that are the engine, not a learner: the one simulate loop (it hands
#: the environment to the driver) and the driver (it plays against it), the registry and catalogue.
ENGINE = {"base", "_driver", "registry", "_catalogue", "_config", "_observation", "compatibility"}


def _algorithm_imports(module: str) -> set[str]:
    """The modules of safebandits.algorithms that ``module`` imports (the engine's left out)."""
    out = set()
    for node in ast.walk(ast.parse(inspect.getsource(sys.modules[module]))):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("safebandits.algorithms."):
            if node.module.rsplit(".", 1)[-1] not in ENGINE:
                out.add(node.module)
    return out


def _learner_modules(cls: type) -> set[str]:
    """The modules of a learner class and of its bases in safebandits.algorithms, of its drivers'
    kernels, and the modules of safebandits.algorithms they import (where the kernels' callees live)."""
    mods = {c.__module__ for c in cls.__mro__ if c.__module__.startswith("safebandits.algorithms")}
    mods.discard(BaseLearner.__module__)
    for name in list(mods):
        for value in vars(sys.modules[name]).values():
            if isinstance(value, Driver):
                for kernel in value.kernels.values():
                    if kernel is not None:
                        mods.add(kernel.py_func.__module__)
    for name in list(mods):
        mods |= {m for m in _algorithm_imports(name) if importlib.import_module(m)}
    return {m for m in mods if m.rsplit(".", 1)[-1] not in ENGINE}


def violations(source: str) -> list[str]:
    """What in ``source`` (a learner module) reads instance truth (the module docstring's rules)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            value = node.value
            holder = value.id if isinstance(value, ast.Name) else getattr(value, "attr", None)
            if holder in HOLDERS and node.attr not in HOLDERS[holder]:
                out.append(f"line {node.lineno}: reads {holder}.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("safebandits.problems"):
            for alias in node.names:
                name = alias.name
                if name in TRUTH_NAMES or name.endswith(("Environment", "Instance")) or name == "feedback":
                    out.append(f"line {node.lineno}: imports {name} from {node.module}")
            if node.module in ("safebandits.problems.feedback", "safebandits.problems.environment"):
                out.append(f"line {node.lineno}: imports from {node.module}")
        elif isinstance(node, ast.FunctionDef) and node.name == "simulate":
            out.append(f"line {node.lineno}: defines simulate (the one loop is BaseLearner's)")
    return out


MODULES = sorted(set().union(*(_learner_modules(ENTRIES[n].cls) for n in NAMES))) if NAMES else []


@pytest.mark.parametrize("module", MODULES)
def test_no_learner_module_reads_instance_truth(module):
    source = inspect.getsource(importlib.import_module(module))
    assert violations(source) == [], f"{module} reads instance truth"


def test_the_rules_catch_what_a_learner_reading_truth_would_write():
    """The check is not vacuous: each way a learner module used to reach the truth is caught."""
    caught = [
        "params = np.ascontiguousarray(env.params, dtype=np.float64)",
        "means = np.asarray(env.means)",
        "y = env.noise.observe(x @ env.params, variates[j])",
        "from safebandits.problems.stagewise import row_means",
        "from safebandits.problems.environment import ArmEnvironment",
        "y = observe_code(env.noise_code, env.sigma, env.means[arm], variates[start + s, 0])",
        "class A:\n    def simulate(self, env, n):\n        pass",
        "return np.dot(run.points[j], sampler.table)",
    ]
    for line in caught:
        assert violations(line), line
    assert violations("decision = self.ask()\nobs = env.play(decision)\ny = sampler.sample(arm, j)") == []


def test_every_registered_learner_simulates_on_the_one_loop():
    assert all(ENTRIES[n].cls.simulate is BaseLearner.simulate for n in NAMES)


def _calls(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)]


@pytest.mark.parametrize("skip", [False, True])
@pytest.mark.parametrize("played", [False, True])
def test_the_driver_never_hands_the_environment_to_a_learner_kernel(skip, played):
    """The driver's loop as code: learner kernels get no ``env`` and no ``variates``; the environment's
    record goes to the environment's means kernel and to the sampler alone."""
    source = _driver._LOOP.format(
        name="x",
        skip=_driver._SKIP if skip else "",
        sampler=_driver._SAMPLER if skip else "",
        prepare="_prepare(run)",
        played="_played(st, j)" if played else _driver._PLAYED["arms"],
    )
    calls = _calls(ast.parse(source))
    kernel_calls = [c for c in calls if c.func.id in LEARNER_KERNELS]
    assert {c.func.id for c in kernel_calls} >= {"_select", "_update", "_prepare"}
    for call in kernel_calls:
        names = {n.id for a in call.args for n in ast.walk(a) if isinstance(n, ast.Name)}
        assert not names & ENV_NAMES, (call.func.id, names)
    env_users = {c.func.id for c in calls if any(isinstance(a, ast.Name) and a.id == "env" for a in c.args)}
    assert env_users <= {"_means", "new_sampler"}
    assert "means" not in inspect.signature(make_driver).parameters  # (a learner cannot give its own)


def test_the_compiled_sampler_shows_no_means():
    env = CompiledFeedback(np.array([[0.25], [-0.5], [0.75]]), 0, 0.3)
    variates = np.random.default_rng(1).standard_normal((6, 1))

    @numba.njit(cache=False)
    def draw(env, variates, arm, row):
        return new_sampler(env, variates).sample(arm, row)

    for arm in range(3):
        for row in range(6):
            expected = observe_code.py_func(0, 0.3, env.table[arm, 0], variates[row, 0])
            assert draw(env, variates, arm, row) == expected

    def attempt(body):
        ns = {"new_sampler": new_sampler}
        exec(f"def f(env, variates):\n    s = new_sampler(env, variates)\n    {body}\n", ns)
        return numba.njit(cache=False)(ns["f"])

    for body in (
        "return s.table",
        "return s.feedback",
        "return s.variates",
        "return s[0]",
        "a, b = s\n    return a",
    ):
        with pytest.raises(numba.core.errors.TypingError):
            attempt(body)(env, variates)


def _types_in(typ, seen=None):
    """Every numba type inside ``typ`` (fields of records, items of tuples)."""
    seen = [] if seen is None else seen
    seen.append(typ)
    inner = list(getattr(typ, "types", ()) or ())
    inner += [t for _, t in getattr(typ, "_fields", ()) or ()]
    for t in inner:
        if isinstance(t, numba.types.Type) and t not in seen:
            _types_in(t, seen)
    return seen


@pytest.mark.parametrize("name", NAMES)
def test_compiled_kernels_receive_the_learners_state_only(name):
    """After a compiled simulation, each driver of the learner's modules was compiled with the
    environment's record as its ``env`` argument and nowhere in the learner's block."""
    inst, learner, env = build(name, env_seed=3, learner_seed=4)
    if ENTRIES[name].task == "regret":
        run_regret(learner, env, inst, compiled=True)
    else:
        run(learner, env, inst, budget=2_000, compiled=True)
    feedback_type = numba.typeof(CompiledFeedback(np.zeros((1, 1)), 0, 0.0))
    for module in _learner_modules(type(learner)):
        for driver in [v for v in vars(sys.modules[module]).values() if isinstance(v, Driver)]:
            for sig in driver.loop.signatures:
                block, env_type = sig[0], sig[1]
                assert env_type == feedback_type
                inside = _types_in(block)
                assert feedback_type not in inside
                assert not any(isinstance(t, SamplerType) for t in inside)
