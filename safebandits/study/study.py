"""Persistent ask / tell studies: a learner whose queries and answers live in a database.

A :class:`Study` is an algorithm (registry name and config), the learner's view of a problem and a seed,
stored under a name. The database is the source of truth: every operation first replays the queries and
answers other processes stored since this process last looked, through a learner built with the stored
seed, so every process holds exactly the state an uninterrupted run would have. Loading a study starts
from the latest snapshot of its learner (:mod:`safebandits.study.snapshot`, written every
``snapshot_every`` answers) and replays only the answers stored after it, so the cost of loading does not
grow with the study; :meth:`Study.verify` replays everything from the first answer and compares.

Open queries. By default (``max_open=1``) a study has at most one open query and ``ask`` returns it
again until it is told; a batch decision (an ACOL round, a BESIDE or RAGE allocation, an FDR batch) is
then one query answered with per-arm sums. With ``max_open=n > 1`` (or ``split_batches=True``) a batch
decision is split into single pulls, stored together when the learner draws the batch: ``ask`` hands
out up to ``n`` of them at once (never one that is already out), answers arrive in any order from any
process, and the learner is told the batch once every pull is answered, with the per-arm sums added in
query order -- so the state always equals a replay of the stored answers. A sequential learner's next
decision depends on the previous answer, so for it the limit is one whatever ``max_open`` says (the
learners do not declare look-ahead). :meth:`Study.expire` returns abandoned queries to the pool;
``ask`` re-issues them (same id) before anything else.

A :class:`Study` object holds one database connection: use one per thread (processes may share a
database freely).
"""

from safebandits.study.create import DEFAULT_STORAGE, create_study, list_studies, load_study
from safebandits.study.query import NoQueryAvailable, Query, StudyIntegrityError, UnknownQuery
from safebandits.study.session import Study

__all__ = [
    "DEFAULT_STORAGE",
    "NoQueryAvailable",
    "Query",
    "Study",
    "StudyIntegrityError",
    "UnknownQuery",
    "create_study",
    "list_studies",
    "load_study",
]
