"""
A study against a simulated person
==================================

When each answer comes from a person (or a patient, or hardware), hours apart and from several
processes, the learner lives in a database: :func:`safebandits.create_study` stores it, ``ask``
returns the open query, ``tell`` checks and stores the answer, and :func:`safebandits.load_study`
rebuilds the exact state in any process by replaying the stored answers with the stored seed.

Here the learner is G-ACOL (Lindner et al. 2022) on the one-dimensional instance with binary
feedback: the person is shown arm ``x`` and answers +1 ("too much") with probability
``(1 + phi^T x) / 2``, else -1. The person is simulated; a real one would answer through
``safebandits study ask`` / ``safebandits study tell`` or a web form.
"""

import subprocess
import sys
import tempfile
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

import safebandits as sb

HERE = Path(__file__).resolve().parent if "__file__" in globals() else Path.cwd()
instance = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
info = instance.public_info()  # what the learner may know: the arms, not the constraint
url = f"sqlite:///{Path(tempfile.mkdtemp()) / 'study.db'}"


def person(arm: int, query_id: int) -> int:
    """The simulated person: +1 with probability (1 + phi^T x) / 2, with their own randomness."""
    p_plus = (1.0 + float(instance.constraint_values[arm])) / 2.0
    return 1 if np.random.default_rng([12, query_id]).random() < p_plus else -1


# %%
# Ask, answer, stop, come back later
# ----------------------------------
# The session below answers 50 queries and stops with one query open, as a person closing the
# browser would. A later session (any process) reloads the study and finishes it.
study = sb.create_study("pilot", "g-acol", info, storage=url, seed=0)
for _ in range(50):
    query = study.ask()
    study.tell(query.id, person(query.arm, query.id))
open_query = study.ask()  # shown to the person, never answered in this session
study.close()

study = sb.load_study("pilot", url)  # later, elsewhere: the same state, the same open query
assert study.ask().id == open_query.id

# %%
# Answers the study refuses
# -------------------------
# Answers are checked before anything is stored: a binary study takes +1 or -1 only, and an answer is
# final. A refused answer changes nothing; the query stays open.
for bad in (0.5, float("nan"), "yes"):
    try:
        study.tell(open_query.id, bad)
    except (ValueError, TypeError, sb.ProtocolError) as exc:
        print(f"{bad!r}: {type(exc).__name__}: {exc}")
assert study.pending is not None and study.pending.id == open_query.id

# %%
# The person answers the open query and the study goes on to the end.
while not study.done:
    query = study.ask()
    study.tell(query.id, person(query.arm, query.id))
answer = study.recommend()
summary = study.summary()
print({key: summary[key] for key in ("n_queries", "n_answered", "done")})
print(f"recommended arm {answer.arm}; the best feasible arm is {instance.optimal_arm}")
try:
    study.tell(open_query.id, -1)
except sb.ProtocolError as exc:
    print(f"answering query {open_query.id} again: {exc}")

# %%
# Which arms the person was asked about
# -------------------------------------
# In one dimension every arm measures the same unknown ``phi``: an answer about arm ``x`` tells about
# all arms at once, most about the arm of largest ``phi^T x``, whose answers are the least noisy about
# ``phi``. G-ACOL's look-ahead therefore asks about that arm until the feasible set is certified.
history = study.queries()
arms = np.array([q["decision"]["arm"] for q in history])
values = np.asarray(instance.constraint_values)
fig, (ax_seq, ax_count) = plt.subplots(1, 2, figsize=(9, 3.5), layout="constrained")
ax_seq.plot(np.arange(len(arms)), arms, ".", ms=3)
ax_seq.axvline(50, color="k", lw=0.8, ls="--", label="session closed, study reloaded")
ax_seq.set(xlabel="query", ylabel="arm shown", yticks=range(info.n_arms), ylim=(-0.5, info.n_arms - 0.5))
ax_seq.legend(loc="center right", fontsize=8)
ax_count.bar(range(info.n_arms), np.bincount(arms, minlength=info.n_arms))
ax_count.set_xticks(range(info.n_arms), [f"{i}\n({v:.1f})" for i, v in enumerate(values)])
ax_count.axvline(float(np.interp(info.threshold, values, range(info.n_arms))), color="k", lw=0.8, ls=":")
ax_count.set(xlabel="arm (phi^T x)", ylabel="queries", title=f"threshold tau = {info.threshold} (dotted)")
plt.show()

# %%
# Killed with SIGKILL midway
# --------------------------
# ``examples/study_simulated_human.py`` (in the repository) runs the same study in a worker process,
# kills it with SIGKILL while it answers, reloads the study and checks that the queries, answers and
# recommendation equal those of an uninterrupted run.
script = HERE.parent.parent / "examples" / "study_simulated_human.py"
done = subprocess.run(
    [sys.executable, str(script), "--kill-after", "20", "--delay", "0.005"], capture_output=True, text=True
)
print(done.stdout)
assert done.returncode == 0, done.stderr
