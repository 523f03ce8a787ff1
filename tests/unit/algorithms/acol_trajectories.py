"""Reference trajectories of the G-ACOL family, for the bit-identity test of issue 43's faster kernels.

``python tests/unit/algorithms/acol_trajectories.py OUT.npz`` (run with ``PYTHONPATH`` at the code to
record; ``data/acol_trajectories.npz`` was recorded from main at b64bafb, before issue 43) runs every
sequential rule, theory and tuned width, on the :data:`CASES` instances and numerics, compiled (with
certified skips) and ask / tell, and stores each run's fingerprint: samples, recommended arm, and
digests of the bits of the final per-arm counts, sums, squared widths, predictions and sets
(:data:`FIELDS`). The final state's bits
depend on every pull and every set change of the run, so equal fingerprints mean the same decisions.
"""

from __future__ import annotations

import hashlib
import sys

import numpy as np

from safebandits.algorithms import make_learner
from safebandits.experiments.simulate import run
from safebandits.problems import make_instance
from safebandits.problems.linear import LinearCBAIInstance
from safebandits.problems.noise import BinaryNoise

RULES = ("g-acol", "greedy-maxvar", "adaptive-uniform", "g-acol-uniform", "maxrew-u", "maxrew-f")
WIDTHS = ("theory", "tuned")


def duplicated(seed: int, n: int, distinct: int, d: int) -> LinearCBAIInstance:
    """An instance whose ``n`` arms repeat ``distinct`` rows (as the released driving policies do:
    1000 arms, 20 distinct), binary feedback."""
    rng = np.random.default_rng(seed)
    rows = rng.normal(size=(distinct, d))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    arms = rows[rng.integers(0, distinct, n)]
    phi = rng.normal(size=d)
    phi /= 2.0 * np.linalg.norm(phi)
    theta = rng.normal(size=d)
    tau = max(0.05, float(np.min(arms @ phi)) + 0.01)  # (at least one feasible arm)
    return LinearCBAIInstance(
        arms=arms, reward_param=theta, constraint_param=phi, threshold=tau, noise=BinaryNoise(),
        name="duplicated",
    )  # fmt: skip


def distinct_groups_of(inst):
    """The groups of :func:`~safebandits.algorithms.pure_exploration._distinct.distinct_groups` of an
    instance's arms and rewards (ridge 0.1, the learners' default)."""
    from safebandits.algorithms.pure_exploration._distinct import distinct_groups

    return distinct_groups(inst.arms, inst.arms @ inst.reward_param, 0.1)


def instance(case: str, seed: int):
    kind, _, size = case.partition(":")
    if kind == "sphere":
        n, d = (int(v) for v in size.split("x"))
        return make_instance("acol/unit-sphere", rng=np.random.default_rng(seed), n_arms=n, d=d)
    if kind == "irrelevant":
        return make_instance("acol/irrelevant-dimensions", d=int(size), epsilon=0.1)
    if kind == "duplicated":
        n, m, d = (int(v) for v in size.split("x"))
        return duplicated(seed, n, m, d)
    return make_instance("acol/one-dimensional", n_arms=10)


#: (instance, numerics, budget of the compiled run)
CASES = (
    ("sphere:11x10", "auto", 20_000),
    ("sphere:30x30", "auto", 20_000),
    ("sphere:30x30", "primal", 5_000),
    ("sphere:60x20", "auto", 20_000),
    ("sphere:60x20", "gram", 5_000),
    ("irrelevant:10", "auto", 20_000),
    ("one-dimensional", "auto", 20_000),
    ("duplicated:200x12x6", "auto", 20_000),
    ("duplicated:200x12x6", "gram", 3_000),
)
SEEDS = (0, 1)
ASK_TELL_BUDGET = 600


def digest(a: np.ndarray) -> int:
    """The first 8 bytes of the SHA-256 of an array's bytes, as an int64."""
    raw = hashlib.sha256(np.ascontiguousarray(a).tobytes()).digest()[:8]
    return int.from_bytes(raw, "little", signed=True)


#: The entries of a fingerprint.
FIELDS = ("samples", "recommended", "skipped", "counts", "sums", "sq_widths", "preds", "uncertain",
          "feasible")  # fmt: skip


def fingerprint(learner, out) -> np.ndarray:
    ridge, sets = learner.ridge, learner.sets
    rec = learner.recommend(anytime=True).arm
    state = [ridge.counts, ridge.sums, ridge.sq_widths, ridge.preds, sets.in_uncertain, sets.in_feasible]
    scalars = [out.samples, -1 if rec is None else rec, learner.skipped_samples, *map(digest, state)]
    return np.array(scalars, np.int64)


def one(case: str, numerics: str, rule: str, width: str, seed: int, budget: int, compiled: bool):
    inst = instance(case, seed)
    config = {"width": width, "numerics": numerics}
    learner = make_learner(rule, inst.public_info(), np.random.default_rng(seed + 10), config)
    env = inst.environment(np.random.default_rng(seed + 20))
    out = run(learner, env, inst, budget=budget, compiled=compiled)
    return fingerprint(learner, out)


def keys():
    for case, numerics, budget in CASES:
        for rule in RULES:
            for width in WIDTHS:
                for seed in SEEDS:
                    yield case, numerics, rule, width, seed, budget, True
                yield case, numerics, rule, width, SEEDS[0], ASK_TELL_BUDGET, False


def name_of(key) -> str:
    case, numerics, rule, width, seed, _, compiled = key
    return f"{case}|{numerics}|{rule}|{width}|{seed}|{'compiled' if compiled else 'ask-tell'}"


def record() -> dict[str, np.ndarray]:
    """The fingerprint of every run of :func:`keys`, by :func:`name_of`."""
    return {name_of(key): one(*key) for key in keys()}


def save(path: str) -> None:
    runs = record()
    np.savez_compressed(path, names=np.array(list(runs)), fingerprints=np.array(list(runs.values())))


def load(path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return dict(zip(data["names"].tolist(), data["fingerprints"], strict=True))


if __name__ == "__main__":
    save(sys.argv[1])
