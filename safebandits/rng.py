"""Run keys and the derivation of random generators from them.

A run is identified by ``RunKey(experiment_seed, sweep_point, algorithm_id, replicate)``.
The learner's stream depends on all four; the environment's stream (instance draws and
noise) leaves the algorithm out, so every algorithm meets the same instance and noise.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

__all__ = ["RunKey", "algorithm_id", "environment_rng", "instance_rng", "learner_rng"]

_LEARNER, _ENVIRONMENT, _INSTANCE = 0, 1, 2


def algorithm_id(label: str) -> int:
    """Stable 32-bit id of an algorithm label (CRC32; never Python's salted ``hash``)."""
    return zlib.crc32(label.encode("utf-8")) & 0xFFFFFFFF


@dataclass(frozen=True, slots=True)
class RunKey:
    """Identity of one run; the results store's primary key is its string form."""

    experiment_seed: int
    sweep_point: int
    algorithm: str
    replicate: int

    @property
    def algorithm_id(self) -> int:
        return algorithm_id(self.algorithm)

    def __str__(self) -> str:
        return f"{self.experiment_seed}/{self.sweep_point}/{self.algorithm}/{self.replicate}"


def _seed_sequence(entropy: int, *spawn_key: int) -> np.random.SeedSequence:
    return np.random.SeedSequence(entropy=int(entropy), spawn_key=tuple(int(k) for k in spawn_key))


def learner_rng(key: RunKey) -> np.random.Generator:
    """Generator of the learner's own randomness (tie-breaking, random exploration)."""
    ss = _seed_sequence(key.experiment_seed, key.sweep_point, key.algorithm_id, key.replicate, _LEARNER)
    return np.random.Generator(np.random.PCG64(ss))


def environment_rng(key: RunKey) -> np.random.Generator:
    """Generator of the environment's noise; independent of the algorithm."""
    ss = _seed_sequence(key.experiment_seed, key.sweep_point, key.replicate, _ENVIRONMENT)
    return np.random.Generator(np.random.PCG64(ss))


def instance_rng(key: RunKey) -> np.random.Generator:
    """Generator of random instance construction; independent of the algorithm."""
    ss = _seed_sequence(key.experiment_seed, key.sweep_point, key.replicate, _INSTANCE)
    return np.random.Generator(np.random.PCG64(ss))
