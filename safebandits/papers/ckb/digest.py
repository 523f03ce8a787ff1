"""Zhou & Ji (2022), CKB: the citation its claims carry and the coverage of its digest's section 5.

Registered with the engine by the package (:func:`~safebandits.experiments.papers.register_paper`):
``COVERAGE`` maps every numbered item of section 5 of the digest (``ckb.md``) to the claims that read it,
``UNEVALUATED`` lists the items no experiment reads, with the reason (statuses:
:data:`~safebandits.experiments.claims_coverage.UNEVALUATED_STATUS`).
"""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Zhou & Ji 2022 (CKB)"
#: The digest's file stem.
DIGEST = "ckb"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 5

_DATA = ("ckb-synthetic", "ckb-light", "ckb-finance")

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "Sublinear regret of every CKB variant (log-log slope < 1).",
        tuple((e, "ckb-sublinear") for e in _DATA),
    ),
    (
        2,
        "CKB <= (or about) StageOpt and SGP-UCB; clearly lower on finance.",
        (
            ("ckb-synthetic", "ckb-vs-baselines"),
            ("ckb-light", "ckb-vs-baselines"),
            ("ckb-finance", "ckb-vs-baselines-clear"),
        ),
    ),
    (3, "SGP-UCB has a linear-regret initial phase.", (("ckb-sgp-start", "ckb-sgp-linear-start"),)),
    (
        4,
        "V(T) = 0 at T for all algorithms on synthetic and light data (V(T) per run).",
        (("ckb-synthetic", "ckb-v-zero"), ("ckb-light", "ckb-v-zero")),
    ),
    (
        5,
        "Violation counts N small relative to T (synthetic N <= 5; light CKB-UCB N = 0).",
        tuple((e, "ckb-few-violations") for e in _DATA),
    ),
    (
        6,
        "The stronger violation sum [g]_+ is sublinear on light and finance.",
        (
            ("ckb-light", "ckb-strong-violation-sublinear"),
            ("ckb-finance", "ckb-strong-violation-sublinear"),
        ),
    ),
    (
        7,
        "Slackness: with eps > 0, V(T) bounded or zero; regret grows by at most a constant factor.",
        (("ckb-slack-horizons", "ckb-slack"),),
    ),
    (8, "Complexity: CKB O(|X|) per round; StageOpt O(|X|^2).", ()),
    (
        9,
        "Theory checks: the dual stays in [0, rho]; it does not pin at rho; the proof-sketch inequality.",
        tuple((e, "ckb-dual-not-pinned") for e in _DATA),
    ),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("ckb §5.8", "Per-round cost: CKB O(|X|) plus the GP update; StageOpt O(|X|^2).", "benchmark",
     "python benchmarks/bench_ckb_scaling.py (|X| = 250..4000, CPU time; two runs on the loaded 2-core "
     "machine, 2026-11-26): CKB's ask (all its work but the O(1) dual step and the GP update) grows as "
     "|X|^1.32-1.42 over all sizes, |X|^0.8-1.15 over the two largest (the covariance leaves the cache "
     "between 500 and 1000); StageOpt's work apart from the GP update as |X|^1.74-1.82 (|X|^1.79-1.87); "
     "the two rank-one GP updates both share as |X|^2.43-2.49 (dense posterior). Issue 33: with the "
     "low-rank posterior (default above 512 points) and lazy exact updates (CKB-UCB, CKB-Rand, SGP-UCB) "
     "a whole CKB-UCB round at t = 1,000 costs 0.10 / 0.12 / 0.15 / 0.23 / 0.34 ms (median; mean 0.29 / "
     "0.44 / 0.92 / 1.65 / 3.02 ms) at |X| = 1,000 / 2,000 / 5,000 / 10,000 / 20,000 (|X|^0.42, mean "
     "|X|^0.79; eager updates 0.13 / 0.32 / 1.80 / 3.05 / 6.02 ms, |X|^1.32: the factor leaves the "
     "cache), and |X| = 100,000 runs T = 1,000 in 1.02 GB peak RSS (python benchmarks/bench_ckb_scaling.py "
     "--linear, 2026-11-28, load about 6). Machine-dependent timings: no verdict"),
    ("ckb §5.9", "The empirical R+(T) + phi sum g(x_t) inequality of the proof sketch.", "proof-only",
     "a proof step"),
)  # fmt: skip
