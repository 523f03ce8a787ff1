"""safebandits: bandits whose constraints are unknown.

Learn which actions are safe or feasible while finding the best one.

Every public name is importable from here (``safebandits.__all__`` lists them) but the submodules are
loaded lazily, on first access of a name (PEP 562 module ``__getattr__``): ``import safebandits`` costs
a few milliseconds and loads neither numpy, pandas, matplotlib nor numba. Type checkers and IDEs see the
names through the ``TYPE_CHECKING`` imports below.

Examples
--------
>>> import safebandits as sb
>>> "g-acol" in sb.list_algorithms()
True
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from safebandits._version import __version__

# Public name -> module that defines it. Keep in step with the TYPE_CHECKING block (a test checks it).
_EXPORTS: dict[str, str] = {
    # exceptions
    **dict.fromkeys(
        (
            "CannotStartError",
            "ConfigError",
            "DefaultToleranceWarning",
            "Fix",
            "InfeasibleInstanceError",
            "ProtocolError",
            "SafeBanditsError",
            "StorageError",
        ),
        "safebandits.exceptions",
    ),
    "StoreLockedError": "safebandits.experiments.store",
    "DataNotFoundError": "safebandits.datasets",
    # records of the ask / tell protocol
    **dict.fromkeys(("BatchObservation", "Decision", "Observation", "Recommendation"), "safebandits.types"),
    # seeds
    **dict.fromkeys(("RunKey", "environment_rng", "instance_rng", "learner_rng"), "safebandits.rng"),
    # writing a learner, and the learner registry
    **dict.fromkeys(
        ("BaseLearner", "Learner", "LearnerConfig", "PureExplorationLearner", "config_to_dict"),
        "safebandits.algorithms.base",
    ),
    **dict.fromkeys(
        ("AlgorithmEntry", "get_algorithm", "list_algorithms", "make_learner", "register_algorithm"),
        "safebandits.algorithms.registry",
    ),
    # the learners and their configs
    **dict.fromkeys(("ACOL", "ACOLConfig"), "safebandits.algorithms.pure_exploration.acol"),
    **dict.fromkeys(("GACOL", "GACOLConfig"), "safebandits.algorithms.pure_exploration.g_acol"),
    **dict.fromkeys(
        ("StaticAllocation", "StaticAllocationConfig"),
        "safebandits.algorithms.pure_exploration.static_allocation",
    ),
    **dict.fromkeys(("BESIDE", "BESIDEConfig"), "safebandits.algorithms.pure_exploration.beside"),
    **dict.fromkeys(
        ("BESIDEPractical", "BESIDEPracticalConfig"),
        "safebandits.algorithms.pure_exploration.beside_practical",
    ),
    **dict.fromkeys(("RAGE", "RAGEConfig"), "safebandits.algorithms.pure_exploration.rage"),
    **dict.fromkeys(("SafeLUCB", "SafeLUCBConfig"), "safebandits.algorithms.regret.safe_lucb"),
    **dict.fromkeys(("GSLUCB", "GSLUCBConfig"), "safebandits.algorithms.regret.gslucb"),
    **dict.fromkeys(("LCLUCB", "LCLUCBConfig"), "safebandits.algorithms.regret.lc_lucb"),
    **dict.fromkeys(("SafeLTS", "SafeLTSConfig"), "safebandits.algorithms.regret.safe_lts"),
    **dict.fromkeys(("OPB", "OPBConfig"), "safebandits.algorithms.regret.opb"),
    **dict.fromkeys(("OPLB", "OPLBConfig"), "safebandits.algorithms.regret.oplb"),
    **dict.fromkeys(("OPNLB", "OPNLBConfig"), "safebandits.algorithms.regret.opnlb"),
    **dict.fromkeys(("CKB", "CKBConfig"), "safebandits.algorithms.regret.ckb"),
    **dict.fromkeys(("StageOpt", "StageOptConfig"), "safebandits.algorithms.regret.stageopt"),
    **dict.fromkeys(("SGPUCB", "SGPUCBConfig"), "safebandits.algorithms.regret.sgp_ucb"),
    **dict.fromkeys(
        ("ActiveFDR", "ActiveFDRConfig", "PassiveFDR", "PassiveFDRConfig"),
        "safebandits.algorithms.classification.fdr_active",
    ),
    # problems: the instance registry, instances, learner views and noise models
    **dict.fromkeys(
        ("InstanceEntry", "list_instances", "make_instance", "register_instance"),
        "safebandits.problems.registry",
    ),
    "ArmEnvironment": "safebandits.problems.environment",
    **dict.fromkeys(("CBAIInfo", "LinearCBAIInstance"), "safebandits.problems.linear"),
    **dict.fromkeys(("TransductiveInfo", "TransductiveInstance"), "safebandits.problems.transductive"),
    **dict.fromkeys(
        ("DecisionSet", "SafeLinearInfo", "SafeLinearInstance"), "safebandits.problems.safe_linear"
    ),
    **dict.fromkeys(("StagewiseInfo", "StagewiseInstance"), "safebandits.problems.stagewise"),
    **dict.fromkeys(("KernelInfo", "KernelInstance"), "safebandits.problems.kernel"),
    **dict.fromkeys(
        ("FunctionClassInfo", "FunctionClassInstance", "FunctionClassProblem"),
        "safebandits.problems.function_class",
    ),
    **dict.fromkeys(("PoolInfo", "PoolInstance"), "safebandits.classification.problem"),
    **dict.fromkeys(
        ("BernoulliNoise", "BinaryNoise", "GaussianNoise", "NoiseModel", "make_noise"),
        "safebandits.problems.noise",
    ),
    # your own problem: declarations, compatible learners, experiment files, the observation check
    **dict.fromkeys(
        (
            "Feedback",
            "FunctionClassProblemSpec",
            "INFO_KINDS",
            "KernelProblem",
            "LinearProblem",
            "PoolProblem",
            "Problem",
            "SafeLinearProblem",
            "SimulatedProblem",
            "problem_from_dict",
        ),
        "safebandits.problems.declare",
    ),
    **dict.fromkeys(("CovariateProblem",), "safebandits.problems.declare_covariate"),
    **dict.fromkeys(
        (
            "GUARANTEES",
            "Compatible",
            "LearnerFit",
            "StartCheck",
            "compatible_learners",
            "guarantee_statement",
            "instance_for",
            "learner_fit",
            "start_check",
            "view_for",
        ),
        "safebandits.algorithms.compatibility",
    ),
    **dict.fromkeys(
        ("load_experiment_file",),
        "safebandits.experiments.user",
    ),
    **dict.fromkeys(
        (
            "ObservationSpec",
            "check_observation",
            "register_observation_spec",
        ),
        "safebandits.algorithms._observation",
    ),
    # run helpers (one learner on one instance)
    **dict.fromkeys(("RunOutcome", "run"), "safebandits.experiments.simulate"),
    **dict.fromkeys(("RegretOutcome", "run_regret"), "safebandits.experiments.regret_loop"),
    **dict.fromkeys(("ClassificationRun", "run_classification"), "safebandits.classification.problem"),
    # experiments: registration, sweeps, the results store, loaders and the report
    **dict.fromkeys(
        (
            "AlgorithmSpec",
            "ExperimentSpec",
            "PanelSpec",
            "RunTask",
            "expand",
            "get_experiment",
            "list_experiments",
            "register_experiment",
        ),
        "safebandits.experiments.spec",
    ),
    **dict.fromkeys(("RunSummary", "run_tasks"), "safebandits.experiments.runner"),
    "ResultsStore": "safebandits.experiments.store",
    **dict.fromkeys(("load_curves", "load_results"), "safebandits.experiments.results"),
    **dict.fromkeys(("register_report_figure", "write_report"), "safebandits.plotting.report"),
    # plugins
    **dict.fromkeys(("active_plugins", "load_plugins"), "safebandits.plugins"),
    # studies (persistent ask / tell)
    **dict.fromkeys(
        (
            "NoQueryAvailable",
            "Query",
            "Study",
            "StudyIntegrityError",
            "create_study",
            "list_studies",
            "load_study",
        ),
        "safebandits.study.study",
    ),
    "register_info_type": "safebandits.study.codec",
}

__all__ = [
    "ACOL",
    "BESIDE",
    "CKB",
    "GACOL",
    "GSLUCB",
    "GUARANTEES",
    "INFO_KINDS",
    "LCLUCB",
    "OPB",
    "OPLB",
    "OPNLB",
    "RAGE",
    "SGPUCB",
    "ACOLConfig",
    "ActiveFDR",
    "ActiveFDRConfig",
    "AlgorithmEntry",
    "AlgorithmSpec",
    "ArmEnvironment",
    "BESIDEConfig",
    "BESIDEPractical",
    "BESIDEPracticalConfig",
    "BaseLearner",
    "BatchObservation",
    "BernoulliNoise",
    "BinaryNoise",
    "CBAIInfo",
    "CKBConfig",
    "CannotStartError",
    "ClassificationRun",
    "Compatible",
    "ConfigError",
    "CovariateProblem",
    "DataNotFoundError",
    "Decision",
    "DecisionSet",
    "DefaultToleranceWarning",
    "ExperimentSpec",
    "Feedback",
    "Fix",
    "FunctionClassInfo",
    "FunctionClassInstance",
    "FunctionClassProblem",
    "FunctionClassProblemSpec",
    "GACOLConfig",
    "GSLUCBConfig",
    "GaussianNoise",
    "InfeasibleInstanceError",
    "InstanceEntry",
    "KernelInfo",
    "KernelInstance",
    "KernelProblem",
    "LCLUCBConfig",
    "Learner",
    "LearnerConfig",
    "LearnerFit",
    "LinearCBAIInstance",
    "LinearProblem",
    "NoQueryAvailable",
    "NoiseModel",
    "OPBConfig",
    "OPLBConfig",
    "OPNLBConfig",
    "Observation",
    "ObservationSpec",
    "PanelSpec",
    "PassiveFDR",
    "PassiveFDRConfig",
    "PoolInfo",
    "PoolInstance",
    "PoolProblem",
    "Problem",
    "ProtocolError",
    "PureExplorationLearner",
    "Query",
    "RAGEConfig",
    "Recommendation",
    "RegretOutcome",
    "ResultsStore",
    "RunKey",
    "RunOutcome",
    "RunSummary",
    "RunTask",
    "SGPUCBConfig",
    "SafeBanditsError",
    "SafeLTS",
    "SafeLTSConfig",
    "SafeLUCB",
    "SafeLUCBConfig",
    "SafeLinearInfo",
    "SafeLinearInstance",
    "SafeLinearProblem",
    "SimulatedProblem",
    "StageOpt",
    "StageOptConfig",
    "StagewiseInfo",
    "StagewiseInstance",
    "StartCheck",
    "StaticAllocation",
    "StaticAllocationConfig",
    "StorageError",
    "StoreLockedError",
    "Study",
    "StudyIntegrityError",
    "TransductiveInfo",
    "TransductiveInstance",
    "__version__",
    "active_plugins",
    "check_observation",
    "compatible_learners",
    "config_to_dict",
    "create_study",
    "environment_rng",
    "expand",
    "get_algorithm",
    "get_experiment",
    "guarantee_statement",
    "instance_for",
    "instance_rng",
    "learner_fit",
    "learner_rng",
    "list_algorithms",
    "list_experiments",
    "list_instances",
    "list_studies",
    "load_curves",
    "load_experiment_file",
    "load_plugins",
    "load_results",
    "load_study",
    "make_instance",
    "make_learner",
    "make_noise",
    "problem_from_dict",
    "register_algorithm",
    "register_experiment",
    "register_info_type",
    "register_instance",
    "register_observation_spec",
    "register_report_figure",
    "run",
    "run_classification",
    "run_regret",
    "run_tasks",
    "start_check",
    "view_for",
    "write_report",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'safebandits' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # (next access skips __getattr__)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})


if TYPE_CHECKING:  # pragma: no cover - what type checkers and IDEs see
    from safebandits.algorithms._observation import (
        ObservationSpec,
        check_observation,
        register_observation_spec,
    )
    from safebandits.algorithms.base import (
        BaseLearner,
        Learner,
        LearnerConfig,
        PureExplorationLearner,
        config_to_dict,
    )
    from safebandits.algorithms.classification.fdr_active import (
        ActiveFDR,
        ActiveFDRConfig,
        PassiveFDR,
        PassiveFDRConfig,
    )
    from safebandits.algorithms.compatibility import (
        GUARANTEES,
        Compatible,
        LearnerFit,
        StartCheck,
        compatible_learners,
        guarantee_statement,
        instance_for,
        learner_fit,
        start_check,
        view_for,
    )
    from safebandits.algorithms.pure_exploration.acol import ACOL, ACOLConfig
    from safebandits.algorithms.pure_exploration.beside import BESIDE, BESIDEConfig
    from safebandits.algorithms.pure_exploration.beside_practical import (
        BESIDEPractical,
        BESIDEPracticalConfig,
    )
    from safebandits.algorithms.pure_exploration.g_acol import GACOL, GACOLConfig
    from safebandits.algorithms.pure_exploration.rage import RAGE, RAGEConfig
    from safebandits.algorithms.pure_exploration.static_allocation import (
        StaticAllocation,
        StaticAllocationConfig,
    )
    from safebandits.algorithms.registry import (
        AlgorithmEntry,
        get_algorithm,
        list_algorithms,
        make_learner,
        register_algorithm,
    )
    from safebandits.algorithms.regret.ckb import CKB, CKBConfig
    from safebandits.algorithms.regret.gslucb import GSLUCB, GSLUCBConfig
    from safebandits.algorithms.regret.lc_lucb import LCLUCB, LCLUCBConfig
    from safebandits.algorithms.regret.opb import OPB, OPBConfig
    from safebandits.algorithms.regret.oplb import OPLB, OPLBConfig
    from safebandits.algorithms.regret.opnlb import OPNLB, OPNLBConfig
    from safebandits.algorithms.regret.safe_lts import SafeLTS, SafeLTSConfig
    from safebandits.algorithms.regret.safe_lucb import SafeLUCB, SafeLUCBConfig
    from safebandits.algorithms.regret.sgp_ucb import SGPUCB, SGPUCBConfig
    from safebandits.algorithms.regret.stageopt import StageOpt, StageOptConfig
    from safebandits.classification.problem import (
        ClassificationRun,
        PoolInfo,
        PoolInstance,
        run_classification,
    )
    from safebandits.datasets import DataNotFoundError
    from safebandits.exceptions import (
        CannotStartError,
        ConfigError,
        DefaultToleranceWarning,
        Fix,
        InfeasibleInstanceError,
        ProtocolError,
        SafeBanditsError,
        StorageError,
    )
    from safebandits.experiments.regret_loop import RegretOutcome, run_regret
    from safebandits.experiments.results import load_curves, load_results
    from safebandits.experiments.runner import RunSummary, run_tasks
    from safebandits.experiments.simulate import RunOutcome, run
    from safebandits.experiments.spec import (
        AlgorithmSpec,
        ExperimentSpec,
        PanelSpec,
        RunTask,
        expand,
        get_experiment,
        list_experiments,
        register_experiment,
    )
    from safebandits.experiments.store import ResultsStore, StoreLockedError
    from safebandits.experiments.user import (
        load_experiment_file,
    )
    from safebandits.plotting.report import register_report_figure, write_report
    from safebandits.plugins import active_plugins, load_plugins
    from safebandits.problems.declare import (
        INFO_KINDS,
        Feedback,
        FunctionClassProblemSpec,
        KernelProblem,
        LinearProblem,
        PoolProblem,
        Problem,
        SafeLinearProblem,
        SimulatedProblem,
        problem_from_dict,
    )
    from safebandits.problems.declare_covariate import CovariateProblem
    from safebandits.problems.environment import ArmEnvironment
    from safebandits.problems.function_class import (
        FunctionClassInfo,
        FunctionClassInstance,
        FunctionClassProblem,
    )
    from safebandits.problems.kernel import KernelInfo, KernelInstance
    from safebandits.problems.linear import CBAIInfo, LinearCBAIInstance
    from safebandits.problems.noise import BernoulliNoise, BinaryNoise, GaussianNoise, NoiseModel, make_noise
    from safebandits.problems.registry import InstanceEntry, list_instances, make_instance, register_instance
    from safebandits.problems.safe_linear import DecisionSet, SafeLinearInfo, SafeLinearInstance
    from safebandits.problems.stagewise import StagewiseInfo, StagewiseInstance
    from safebandits.problems.transductive import TransductiveInfo, TransductiveInstance
    from safebandits.rng import RunKey, environment_rng, instance_rng, learner_rng
    from safebandits.study.codec import register_info_type
    from safebandits.study.study import (
        NoQueryAvailable,
        Query,
        Study,
        StudyIntegrityError,
        create_study,
        list_studies,
        load_study,
    )
    from safebandits.types import BatchObservation, Decision, Observation, Recommendation
