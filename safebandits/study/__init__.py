"""Persistent ask / tell studies (Optuna-like): a learner whose queries and answers live in a database.

``create_study(name, algorithm, info, config, storage="sqlite:///study.db", seed=0)`` stores a study;
``load_study(name, storage)`` reopens it in any process. See :class:`Study`.
"""

from safebandits.study.codec import (  # FeedbackSpec: the former name of ObservationSpec, kept importable
    FeedbackSpec,  # noqa: F401
    feedback_spec,
    info_from_dict,
    info_to_dict,
    register_info_type,
)
from safebandits.study.storage import SQLAlchemyStorage, SQLiteStorage, open_storage
from safebandits.study.study import (
    DEFAULT_STORAGE,
    Query,
    Study,
    StudyIntegrityError,
    UnknownQuery,
    create_study,
    list_studies,
    load_study,
)

__all__ = [
    "DEFAULT_STORAGE",
    "Query",
    "SQLAlchemyStorage",
    "SQLiteStorage",
    "Study",
    "StudyIntegrityError",
    "UnknownQuery",
    "create_study",
    "feedback_spec",
    "info_from_dict",
    "info_to_dict",
    "list_studies",
    "load_study",
    "open_storage",
    "register_info_type",
]
