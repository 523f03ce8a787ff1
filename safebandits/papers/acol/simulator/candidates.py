"""Candidate driving policies: the bandit arms of the driving experiments (Lindner et al. 2022, Sec. 4.3).

Two sources:

- :func:`generate_candidates`: the recipe of the authors' ``scripts/driver_compute_candidate_policies.py``
  (not described in the paper): for every policy, pick one of six environments at random --
  constrained target velocity, constrained target location, constrained blocked (target velocity),
  and the same three as unconstrained problems with the penalty folded into the reward (lambda = 1,
  0.5, 1) -- perturb theta (and phi, tau for the constrained ones) with N(0, 0.1^2) noise and optimise
  with CEM. Policy ``i`` draws from ``SeedSequence(seed, spawn_key=(i,))`` only, so the first ``k``
  policies of a set of ``n`` are the set of ``k``. Sets are cached on disk (:func:`cache_dir`).
- :func:`load_released_candidates`: the authors' released 1000 policies
  (``driver_candidate_policies_1000.npy``; only 20 of them are distinct).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import numpy as np

from safebandits._validation import check_int
from safebandits.datasets import DataNotFoundError, find_dataset
from safebandits.papers.acol.simulator.cem import CEMConfig, cem_batch
from safebandits.papers.acol.simulator.dynamics import CONSTRAINT, DrivingConfig, get_scenario
from safebandits.types import FloatArray

__all__ = [
    "CACHE_ENV",
    "ENVIRONMENTS",
    "RELEASED_FILE",
    "cache_dir",
    "candidate_set",
    "generate_candidates",
    "load_released_candidates",
]

#: Environment variable naming the cache directory of generated candidate sets.
CACHE_ENV = "SAFEBANDITS_CACHE"
RELEASED_FILE = "driver_candidate_policies_1000.npy"

#: The six generation environments: (scenario, constrained, penalty lambda).
ENVIRONMENTS = (
    ("base", True, 0.0),
    ("different-reward", True, 0.0),
    ("different-environment", True, 0.0),
    ("base", False, 1.0),
    ("different-reward", False, 0.5),
    ("different-environment", False, 1.0),
)
PERTURBATION_SD = 0.1


def cache_dir(path: str | os.PathLike[str] | None = None) -> Path:
    """Cache directory: ``path``, else ``$SAFEBANDITS_CACHE``, else ``$XDG_CACHE_HOME/safebandits``
    (``~/.cache/safebandits``)."""
    if path is not None:
        return Path(path).expanduser()
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "safebandits"


def generate_candidates(
    n_policies: int = 1000,
    seed: int = 0,
    *,
    env: DrivingConfig | None = None,
    config: CEMConfig | None = None,
    progress: bool = False,
) -> FloatArray:
    """Generate ``n_policies`` candidate policies with the authors' recipe (seeded, no caching).

    Parameters
    ----------
    n_policies : int >= 1
    seed : int >= 0
    env : DrivingConfig, optional
        Environment and feature constants the policies are optimised under (default: paper preset).
    config : CEMConfig, optional
        CEM iterations / samples / elites (default: the authors' 50 / 50 / 5).
    progress : bool
        tqdm progress bars.

    Returns
    -------
    ndarray of shape (n_policies, horizon, 2)
    """
    n = check_int(n_policies, "n_policies", low=1, owner="generate_candidates")
    seed = check_int(seed, "seed", low=0, owner="generate_candidates")
    env = DrivingConfig() if env is None else env
    rngs = [np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i,))) for i in range(n)]
    which = np.array([int(g.integers(len(ENVIRONMENTS))) for g in rngs])
    thetas, phis, taus = np.zeros((n, 8)), np.zeros((n, 8)), np.zeros(n)
    for i, g in enumerate(rngs):
        name, constrained, lam = ENVIRONMENTS[which[i]]
        base = get_scenario(name, env.horizon).reward - (0.0 if constrained else lam) * CONSTRAINT
        thetas[i] = base + PERTURBATION_SD * g.standard_normal(8)
        if constrained:
            phis[i] = CONSTRAINT + PERTURBATION_SD * g.standard_normal(8)
            taus[i] = 1.0 + PERTURBATION_SD * g.standard_normal()
    out = np.empty((n, env.horizon, 2))
    constrained_all = np.array([ENVIRONMENTS[k][1] for k in which])
    for name in dict.fromkeys(e[0] for e in ENVIRONMENTS):
        idx = np.flatnonzero([ENVIRONMENTS[k][0] == name for k in which])
        if idx.size == 0:
            continue
        res = cem_batch(
            get_scenario(name, env.horizon),
            thetas[idx],
            phis[idx],
            taus[idx],
            constrained_all[idx],
            np.zeros(idx.size),  # penalties are folded into theta above
            [rngs[i] for i in idx],
            config=config,
            env=env,
            progress=progress,
        )
        out[idx] = res.policies
    return out


def _cache_key(n: int, seed: int, env: DrivingConfig, config: CEMConfig) -> str:
    fields = {
        "n": n,
        "seed": seed,
        "env": {f: getattr(env, f) for f in env.__slots__},
        "cem": {f: getattr(config, f) for f in config.__slots__},
        "recipe": 1,
    }
    digest = hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:12]
    return f"driving-candidates-n{n}-seed{seed}-{digest}.npy"


def candidate_set(
    n_policies: int = 1000,
    seed: int = 0,
    *,
    env: DrivingConfig | None = None,
    config: CEMConfig | None = None,
    cache: bool | str | os.PathLike[str] = True,
    progress: bool = False,
) -> FloatArray:
    """A generated candidate set, read from the on-disk cache when present (else generated and saved).

    Parameters
    ----------
    n_policies, seed, env, config, progress
        As :func:`generate_candidates`.
    cache : bool or path, default True
        ``True``: the directory of :func:`cache_dir`; a path: that directory; ``False``: no cache.
    """
    env = DrivingConfig() if env is None else env
    config = CEMConfig() if config is None else config
    if cache is False:
        return generate_candidates(n_policies, seed, env=env, config=config, progress=progress)
    folder = cache_dir(None if cache is True else cache)
    path = folder / _cache_key(n_policies, seed, env, config)
    if path.is_file():
        arr = np.load(path)
        if arr.shape == (n_policies, env.horizon, 2):
            return arr
    arr = generate_candidates(n_policies, seed, env=env, config=config, progress=progress)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=folder, suffix=".npy", delete=False) as fh:
            np.save(fh, arr)
        os.replace(fh.name, path)
    except OSError:  # a read-only cache is not an error: the set is returned uncached
        pass
    return arr


def load_released_candidates(path: str | os.PathLike[str] | None = None) -> FloatArray:
    """The authors' 1000 released candidate policies, shape ``(1000, 20, 2)``.

    Parameters
    ----------
    path : str or Path, optional
        The ``.npy`` file, or a folder holding it (directly or in ``acol_driver/``). Default: the
        lookup of :func:`safebandits.datasets.find_dataset` (``$SAFEBANDITS_DATA``, then the user cache).

    Raises
    ------
    DataNotFoundError
        The file cannot be found.
    """
    if path is not None and Path(path).expanduser().is_file():
        file = Path(path).expanduser()
    else:  # the one lookup of the library: path, $SAFEBANDITS_DATA, the user cache
        file = find_dataset("acol_driver", path) / RELEASED_FILE
    arr = np.load(file, allow_pickle=False)
    if arr.ndim != 3 or arr.shape[2] != 2:
        raise DataNotFoundError(f"{str(file)!r} does not hold policies of shape (n, horizon, 2).")
    return np.asarray(arr, dtype=np.float64)
