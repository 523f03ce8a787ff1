"""Problem instances (ground truth and oracle answers) and environments."""

from safebandits.problems.environment import ArmEnvironment
from safebandits.problems.linear import CBAIInfo, LinearCBAIInstance
from safebandits.problems.noise import BinaryNoise, GaussianNoise, make_noise
from safebandits.problems.registry import list_instances, make_instance, register_instance

__all__ = [
    "ArmEnvironment",
    "BinaryNoise",
    "CBAIInfo",
    "GaussianNoise",
    "LinearCBAIInstance",
    "list_instances",
    "make_instance",
    "make_noise",
    "register_instance",
]
