"""The public names of safebandits: the one list of them.

Type checkers and IDEs read this stub; at run time ``lazy_loader.attach_stub`` reads the same imports and
loads each submodule on the first access of one of its names (``import safebandits`` stays cheap).
"""

from .algorithms._observation import (
    check_observation as check_observation,
    ObservationSpec as ObservationSpec,
    register_observation_spec as register_observation_spec,
)
from .algorithms.base import (
    BaseLearner as BaseLearner,
    config_to_dict as config_to_dict,
    Learner as Learner,
    LearnerConfig as LearnerConfig,
    PureExplorationLearner as PureExplorationLearner,
)
from .algorithms.classification.fdr_active import (
    ActiveFDR as ActiveFDR,
    ActiveFDRConfig as ActiveFDRConfig,
    PassiveFDR as PassiveFDR,
    PassiveFDRConfig as PassiveFDRConfig,
)
from .algorithms.compatibility import (
    assumption_statement as assumption_statement,
    Compatible as Compatible,
    compatible_learners as compatible_learners,
    guarantee_statement as guarantee_statement,
    GUARANTEES as GUARANTEES,
    instance_for as instance_for,
    learner_fit as learner_fit,
    LearnerFit as LearnerFit,
    start_check as start_check,
    StartCheck as StartCheck,
    view_for as view_for,
)
from .algorithms.learning import (
    leave_estimate as leave_estimate,
    LeaveEstimate as LeaveEstimate,
)
from .algorithms.pure_exploration.acol import (
    ACOL as ACOL,
    ACOLConfig as ACOLConfig,
)
from .algorithms.pure_exploration.beside import (
    BESIDE as BESIDE,
    BESIDEConfig as BESIDEConfig,
)
from .algorithms.pure_exploration.beside_practical import (
    BESIDEPractical as BESIDEPractical,
    BESIDEPracticalConfig as BESIDEPracticalConfig,
)
from .algorithms.pure_exploration.g_acol import (
    GACOL as GACOL,
    GACOLConfig as GACOLConfig,
)
from .algorithms.pure_exploration.rage import (
    RAGE as RAGE,
    RAGEConfig as RAGEConfig,
)
from .algorithms.pure_exploration.static_allocation import (
    StaticAllocation as StaticAllocation,
    StaticAllocationConfig as StaticAllocationConfig,
)
from .algorithms.registry import (
    AlgorithmEntry as AlgorithmEntry,
    get_algorithm as get_algorithm,
    list_algorithms as list_algorithms,
    make_learner as make_learner,
    register_algorithm as register_algorithm,
)
from .algorithms.regret.ckb import (
    CKB as CKB,
    CKBConfig as CKBConfig,
)
from .algorithms.regret.gslucb import (
    GSLUCB as GSLUCB,
    GSLUCBConfig as GSLUCBConfig,
)
from .algorithms.regret.lc_lucb import (
    LCLUCB as LCLUCB,
    LCLUCBConfig as LCLUCBConfig,
)
from .algorithms.regret.opb import (
    OPB as OPB,
    OPBConfig as OPBConfig,
)
from .algorithms.regret.oplb import (
    OPLB as OPLB,
    OPLBConfig as OPLBConfig,
)
from .algorithms.regret.opnlb import (
    OPNLB as OPNLB,
    OPNLBConfig as OPNLBConfig,
)
from .algorithms.regret.safe_lts import (
    SafeLTS as SafeLTS,
    SafeLTSConfig as SafeLTSConfig,
)
from .algorithms.regret.safe_lucb import (
    SafeLUCB as SafeLUCB,
    SafeLUCBConfig as SafeLUCBConfig,
)
from .algorithms.regret.sgp_ucb import (
    SGPUCB as SGPUCB,
    SGPUCBConfig as SGPUCBConfig,
)
from .algorithms.regret.stageopt import (
    StageOpt as StageOpt,
    StageOptConfig as StageOptConfig,
)
from .classification.problem import (
    ClassificationRun as ClassificationRun,
    PoolInfo as PoolInfo,
    PoolInstance as PoolInstance,
    run_classification as run_classification,
)
from .datasets import (
    DataNotFoundError as DataNotFoundError,
)
from .exceptions import (
    CannotStartError as CannotStartError,
    ConfigError as ConfigError,
    DefaultToleranceWarning as DefaultToleranceWarning,
    Fix as Fix,
    InfeasibleInstanceError as InfeasibleInstanceError,
    ProtocolError as ProtocolError,
    SafeBanditsError as SafeBanditsError,
    StorageError as StorageError,
    TooLargeError as TooLargeError,
)
from .experiments.regret_loop import (
    RegretOutcome as RegretOutcome,
    run_regret as run_regret,
)
from .experiments.results import (
    load_curves as load_curves,
    load_results as load_results,
)
from .experiments.runner import (
    run_tasks as run_tasks,
    RunSummary as RunSummary,
)
from .experiments.simulate import (
    run as run,
    RunOutcome as RunOutcome,
)
from .experiments.spec import (
    AlgorithmSpec as AlgorithmSpec,
    expand as expand,
    ExperimentSpec as ExperimentSpec,
    get_experiment as get_experiment,
    list_experiments as list_experiments,
    PanelSpec as PanelSpec,
    register_experiment as register_experiment,
    RunTask as RunTask,
)
from .experiments.store import (
    ResultsStore as ResultsStore,
    StoreLockedError as StoreLockedError,
)
from .experiments.user import (
    load_experiment_file as load_experiment_file,
)
from .plotting.report import (
    register_report_figure as register_report_figure,
    write_report as write_report,
)
from .plugins import (
    active_plugins as active_plugins,
    load_plugins as load_plugins,
)
from .problems.declare import (
    ConservativeLinearProblem as ConservativeLinearProblem,
    ConservativeProblem as ConservativeProblem,
    Feedback as Feedback,
    FunctionClassProblemSpec as FunctionClassProblemSpec,
    INFO_KINDS as INFO_KINDS,
    KernelProblem as KernelProblem,
    LinearProblem as LinearProblem,
    PoolProblem as PoolProblem,
    Problem as Problem,
    SafeLinearProblem as SafeLinearProblem,
    SimulatedProblem as SimulatedProblem,
)
from .problems.declare_covariate import (
    CovariateProblem as CovariateProblem,
)
from .problems.settings import (
    problem_from_dict as problem_from_dict,
)
from .problems.environment import (
    ArmEnvironment as ArmEnvironment,
)
from .problems.function_class import (
    FunctionClassInfo as FunctionClassInfo,
    FunctionClassInstance as FunctionClassInstance,
    FunctionClassProblem as FunctionClassProblem,
)
from .problems.kernel import (
    KernelInfo as KernelInfo,
    KernelInstance as KernelInstance,
)
from .problems.linear import (
    CBAIInfo as CBAIInfo,
    LinearCBAIInstance as LinearCBAIInstance,
)
from .problems.noise import (
    BernoulliNoise as BernoulliNoise,
    BinaryNoise as BinaryNoise,
    GaussianNoise as GaussianNoise,
    make_noise as make_noise,
    NoiseModel as NoiseModel,
)
from .problems.registry import (
    InstanceEntry as InstanceEntry,
    list_instances as list_instances,
    make_instance as make_instance,
    register_instance as register_instance,
)
from .problems.safe_linear import (
    DecisionSet as DecisionSet,
    SafeLinearInfo as SafeLinearInfo,
    SafeLinearInstance as SafeLinearInstance,
)
from .problems.stagewise import (
    StagewiseInfo as StagewiseInfo,
    StagewiseInstance as StagewiseInstance,
)
from .problems.transductive import (
    TransductiveInfo as TransductiveInfo,
    TransductiveInstance as TransductiveInstance,
)
from .rng import (
    environment_rng as environment_rng,
    instance_rng as instance_rng,
    learner_rng as learner_rng,
    RunKey as RunKey,
)
from .study.codec import (
    register_info_type as register_info_type,
)
from .study.study import (
    create_study as create_study,
    list_studies as list_studies,
    load_study as load_study,
    NoQueryAvailable as NoQueryAvailable,
    Query as Query,
    Study as Study,
    StudyIntegrityError as StudyIntegrityError,
)
from .types import (
    BatchObservation as BatchObservation,
    Decision as Decision,
    Observation as Observation,
    Recommendation as Recommendation,
)
from ._version import __version__ as __version__
