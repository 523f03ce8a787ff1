"""Amani et al. (2019), Safe-LUCB: the citation its claims carry and the coverage of its digest's
section 5.

Registered with the engine by the package (:func:`~safebandits.experiments.papers.register_paper`):
``COVERAGE`` maps every numbered item of section 5 of the digest (``safe_lucb.md``) to the claims that
read it, ``UNEVALUATED`` lists the items no experiment reads (and one claim issue 17 added), with the
reason (statuses: :data:`~safebandits.experiments.claims_coverage.UNEVALUATED_STATUS`).
"""

from __future__ import annotations

__all__ = ["COVERAGE", "DIGEST", "ORDER", "PAPER", "UNEVALUATED"]

#: The citation of the paper (the ``paper`` of its claims' metadata and of the scoreboard's rows).
PAPER = "Amani et al. 2019 (Safe-LUCB)"
#: The digest's file stem.
DIGEST = "safe_lucb"
#: Position of the paper in the scoreboard's coverage table.
ORDER = 4

_KARM, _EXPL = "safelucb-karm", "safelucb-exploration"

#: Section-5 items: (number, summary, ((experiment, claim id), ...)), in digest order.
COVERAGE: tuple[tuple[int, str, tuple[tuple[str, str], ...]], ...] = (
    (
        1,
        "Safety: zero violations in phase 1; phase 2 in at most a delta fraction of runs.",
        (
            (_KARM, "karm-safety"),
            (_EXPL, "expl-safety"),
            ("safelucb-rate-gap", "rate-gap-safety"),
            ("safelucb-rate-zero", "rate-zero-safety"),
        ),
    ),
    (
        2,
        "Lemma 1: lambda_min(A_{T'+1}) >= lambda + lambda_- T'/2 w.p. >= 1 - delta.",
        ((_KARM, "karm-lemma1"),),
    ),
    (3, "Remark 1: Sigma and lambda_- of the sampler (algebra).", ()),
    (
        4,
        "Theorem 1: mu in C_t for all t in >= 1 - delta of runs.",
        (("safelucb-confidence", "confidence-theorem1"),),
    ),
    (
        5,
        "Lemma 2: x* in D^s_t after T' >= T_Delta in >= 1 - delta of runs.",
        ((_KARM, "karm-lemma2"), (_EXPL, "expl-certification")),
    ),
    (
        6,
        "Theorem 2: regret O~(sqrt T) with Delta > 0, T' = T_Delta: bound (14); the slope a diagnostic.",
        (("safelucb-rate-gap", "rate-gap-bound"), ("safelucb-rate-gap", "rate-gap-slope")),
    ),
    (
        7,
        "Theorem 3: regret O~(T^(2/3)) with T' = T_0 (Delta = 0): bound (15); the slope a diagnostic.",
        (("safelucb-rate-zero", "rate-zero-bound"), ("safelucb-rate-zero", "rate-zero-slope")),
    ),
    (
        8,
        "Figure 1a: Safe-LUCB(T_Delta) <~ GSLUCB < Safe-LUCB(T_0); GSLUCB close to T_Delta, stops early.",
        (
            (_KARM, "karm-order"),
            (_KARM, "karm-gslucb-close"),
            (_KARM, "karm-gslucb-stops-early"),
            (_KARM, "karm-tdelta-below-t0"),
        ),
    ),
    (
        9,
        "Figure 1b: T' = 0 gives near-linear regret; T' >= T_Delta vanishing per-step regret.",
        ((_EXPL, "expl-linear-without"), (_EXPL, "expl-vanishing-with")),
    ),
    (
        10,
        "Per-step regret R_t/t -> 0 for every variant with T' >= t_delta.",
        ((_KARM, "karm-per-step-decreasing"),),
    ),
)

#: Section-5 items no experiment evaluates: (digest item, wording, status, why).
UNEVALUATED: tuple[tuple[str, str, str, str], ...] = (
    ("safe_lucb §5.3", "Remark 1: Sigma = (eps^2/d)(B^T B)^-1 and lambda_- = eps^2/(d ||B||^2).",
     "proof-only", "algebra, checked by unit tests of the sampler"),
    ("issue 17", "GSLUCB on convex action sets.", "not evaluated",
     "the paper runs GSLUCB on K arms only and its gap bound Delta_t (App. E) is not in the text; on the "
     "convex instance of safelucb-exploration T_0 = t_delta = 4,238 < T_Delta = 4,313, and a valid "
     "Delta_t <= Delta gives T'_t >= T_Delta, so GSLUCB would explore exactly T_0 rounds, as "
     "Safe-LUCB(T_0): no claim there can fail; a convex Delta_t needs the max of UCB_s over the continuous "
     "plausibly-optimal set (a grid is not a valid bound), and SafeLUCB.__init__ refuses convex sets for "
     "GSLUCB"),
)  # fmt: skip
