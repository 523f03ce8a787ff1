"""Which claims evaluate each section-5 item of the five digests (issue 17).

Every quantitatively checkable claim a digest lists in its section 5 is either read by one or more claims
of the experiments (``claims``: pairs ``(experiment, claim id)`` of :data:`CLAIM_META`) or is listed in
:data:`~safebandits.experiments.claims_meta.UNEVALUATED` with the reason no experiment reads it (a proof
step, an instance the paper's text does not give, a benchmark). The scoreboard prints this table with
the verdicts of the claims, so a reader sees at once which statements of each paper were checked and
how they came out. ``tests/unit/experiments/test_claims_coverage.py`` checks that every pair names a
registered claim, that every UNEVALUATED item is listed here, and (when the digests are present beside
the project) that every numbered item of each digest's section 5 has a row.
"""

from __future__ import annotations

from dataclasses import dataclass

from safebandits.experiments.claims_meta import ACOL, BESIDE, CKB, SAFE_LUCB, STAGEWISE

__all__ = ["DIGEST_ITEMS", "DigestItem", "digest_of"]

#: Digest file stem of each paper (``../shared/spec/<stem>.md`` in the workplace).
DIGESTS = {ACOL: "acol", BESIDE: "beside", STAGEWISE: "stagewise", SAFE_LUCB: "safe_lucb", CKB: "ckb"}


@dataclass(frozen=True)
class DigestItem:
    """One numbered item of a digest's section 5.

    Parameters
    ----------
    paper : str
        The paper (a key of :data:`DIGESTS`).
    number : int
        The item's number in section 5.
    summary : str
        What the item states, in a line.
    claims : tuple of (str, str)
        ``(experiment, claim id)`` pairs that read it; empty when no experiment does (then the item is
        in UNEVALUATED with the reason).
    """

    paper: str
    number: int
    summary: str
    claims: tuple[tuple[str, str], ...] = ()

    @property
    def key(self) -> str:
        """``"<digest> §5.<number>"``, the form UNEVALUATED uses."""
        return f"{DIGESTS[self.paper]} §5.{self.number}"


def _items(paper: str, *rows: tuple[int, str, tuple[tuple[str, str], ...]]) -> tuple[DigestItem, ...]:
    return tuple(DigestItem(paper, n, summary, claims) for n, summary, claims in rows)


_SYN, _REG, _DRV, _ROB = "acol-synthetic", "acol-regret-comparison", "acol-driving", "acol-robustness"
_KARM, _EXPL = "safelucb-karm", "safelucb-exploration"
_BESIDE_EXPERIMENTS = (
    "beside-mab",
    "beside-linear",
    "beside-hard",
    "beside-example1",
    "beside-vacuous",
    "beside-worst-case",
)
_CKB_DATA = ("ckb-synthetic", "ckb-light", "ckb-finance")

#: Section-5 items of every digest, in digest order.
DIGEST_ITEMS: tuple[DigestItem, ...] = (
    *_items(
        ACOL,
        (
            1,
            "Correctness: every method returns x* in every seed.",
            ((_SYN, "1-correct"), (_REG, "1-correct")),
        ),
        (
            2,
            "Ordering with guarantees: Oracle <= ACOL < G-Allocation, Uniform; ACOL occasionally <= Oracle.",
            ((_SYN, "2-ordering"),),
        ),
        (
            3,
            "d-dependence: ACOL and Oracle flat in d; Uniform and G-Allocation grow with d.",
            ((_SYN, "3-d-dependence"),),
        ),
        (4, "epsilon-dependence: samples grow about as 1/eps^2.", ((_SYN, "4b-eps-dependence"),)),
        (
            5,
            "Theory vs static: adaptive-CI methods with theory beta are worse, e.g. G-ACOL (theory) > ACOL.",
            ((_SYN, "5-g-acol-theory"),),
        ),
        (
            6,
            "Tuning: orders of magnitude fewer samples; G-ACOL (tuned) best except Max Rew-U on the sphere.",
            (
                (_SYN, "4-tuning"),
                (_SYN, "6a-g-acol-tuned-best"),
                (_SYN, "6b-max-rew-u-sphere"),
                (_SYN, "6c-g-acol-tuned-comparable"),
            ),
        ),
        (
            7,
            "1-D regret comparison: G-ACOL < Max Rew-U < Max Rew-F in samples.",
            ((_REG, "7-regret-ordering"),),
        ),
        (
            8,
            "Driving: ACOL best with guarantees (about 10^5 samples); tuned heuristics about 10^3, "
            "100% correct above a beta threshold.",
            (
                (_DRV, "8a-guarantees-correct"),
                (_DRV, "8b-acol-best"),
                (_DRV, "8c-tuned-correct-above"),
                (_DRV, "8d-tuned-saves"),
            ),
        ),
        (
            9,
            "Figure 4: constrained reward >= every feasible penalised one; the lambda needed differs.",
            (
                (_ROB, "9a-constrained-beats-penalised"),
                (_ROB, "9b-lambda-differs"),
                (_ROB, "9c-smallest-feasible-lambda-worse"),
            ),
        ),
        (10, "Bound computation: H_CLB <= d/(C+_min)^2; 1/eps^2 for irrelevant dimensions.", ()),
    ),
    *_items(
        BESIDE,
        (
            1,
            "(eps, delta)-PAC: the rate of answers outside Z_eps is <= delta.",
            (
                *((e, "pac") for e in _BESIDE_EXPERIMENTS),
                ("beside-hard", "pac-alg1"),
                ("beside-example1", "pac-alg1"),
            ),
        ),
        (
            2,
            "MAB: BESIDE <= BASELINE for every K; the ratio reaches about 2 at K = 100.",
            (("beside-mab", "mab-never-worse"), ("beside-mab", "mab-2x")),
        ),
        (
            3,
            "Random linear instances: BESIDE significantly below BASELINE.",
            (("beside-linear", "linear-beats-baseline"),),
        ),
        (
            4,
            "Hard instance I1: slopes about -2 (BESIDE) vs -3 (XY_diff-only); the gap widens as eps -> 0.",
            (
                ("beside-hard", "hard-slopes"),
                ("beside-hard", "hard-beside-better-small-eps"),
                ("beside-hard", "hard-slope-alg1"),
            ),
        ),
        (5, "Instance I2: XY_safe-only needs eps^-3/2, BESIDE eps^-1.", ()),
        (
            6,
            "Vacuous constraint: BESIDE returns z* at RAGE's rate up to logs (Corollary 1).",
            (("beside-vacuous", "vacuous-returns-best"), ("beside-vacuous", "vacuous-rage-rate")),
        ),
        (
            7,
            "Worst case X = Z: pulls independent of m beyond the log (Corollary 2).",
            (("beside-worst-case", "worst-case-log-m"),),
        ),
        (
            8,
            "Example 1: BESIDE never pays 1/Delta(e2)^2 nor 1/Delta_safe(e3)^2.",
            (
                ("beside-example1", "example1-no-delta-e2"),
                ("beside-example1", "example1-no-dsafe-e3"),
                ("beside-example1", "example1-no-delta-e2-alg1"),
                ("beside-example1", "example1-no-dsafe-e3-alg1"),
            ),
        ),
        (
            9,
            "Adult: active beats passive at 500, 750, 2000 labels; half the labels for a given FDR.",
            (("fdr-adult", "adult-ticks"), ("fdr-adult", "adult-half")),
        ),
        (
            10,
            "German: active higher precision and recall at 170-600 labels; half the labels.",
            (("fdr-german", "german-ticks"), ("fdr-german", "german-half")),
        ),
        (
            11,
            "Half circle: target precision or recall with far fewer labels.",
            (("fdr-halfcircle", "halfcircle-recall"), ("fdr-halfcircle", "halfcircle-precision")),
        ),
    ),
    *_items(
        STAGEWISE,
        (
            1,
            "Safety (high probability): LC-LUCB never plays a cost above tau.",
            (("stagewise-cyclic", "e1-safety"), ("stagewise-ball", "e2-safety")),
        ),
        (
            2,
            "Safety in expectation: OPB, OPLB, OPNLB policies have E_pi[c] <= tau every round.",
            (
                ("opb-random", "e3-safety"),
                ("opb-four-arm", "e4-safety"),
                ("oplb-random", "oplb-safety"),
                ("opnlb-finite", "opnlb-safety"),
            ),
        ),
        (
            3,
            "Optimism: the selected optimistic value >= the optimal true value on the good event.",
            (
                ("stagewise-cyclic", "e1-optimism"),
                ("stagewise-ball", "e2-optimism"),
                ("oplb-random", "oplb-optimism"),
                ("opnlb-finite", "opnlb-optimism"),
                ("stagewise-optimism", "opt-theory"),
                ("stagewise-optimism", "opt-ablation-fails"),
            ),
        ),
        (
            4,
            "Regret O~(sqrt T): log-log slope <= about 0.5 at large T.",
            (
                ("stagewise-cyclic", "e1-slope"),
                ("opb-random", "e3-slope"),
                ("opb-four-arm", "e4-slope"),
                ("oplb-random", "oplb-slope"),
                ("opnlb-finite", "opnlb-slope"),
            ),
        ),
        (
            5,
            "Dependence on tau: R(0.2) > R(0.5) > R(0.8).",
            (
                ("stagewise-cyclic", "e1-tau-order"),
                ("opb-random", "e3-tau-order"),
                ("opb-four-arm", "e4-tau-order"),
            ),
        ),
        (
            6,
            "LC-LUCB <= Safe-LTS in E1 for every (d, tau) and on average in E2.",
            (("stagewise-cyclic", "e1-vs-safe-lts"), ("stagewise-ball", "e2-vs-safe-lts")),
        ),
        (
            7,
            "Cost convergence: about 0.561 at tau = 0.8, d = 10; approaches tau from below when tau <= 0.5.",
            (("stagewise-cyclic", "e1-cost-0561"), ("stagewise-cyclic", "e1-cost-tau")),
        ),
        (
            8,
            "Lower-bound instance: regret >~ (1 - r0)/(21 (tau - c0)^2).",
            (("stagewise-lower-bound", "lb-regret"),),
        ),
        (9, "Unit-testable algebra (closed forms, LP support, stopping-time bounds).", ()),
    ),
    *_items(
        SAFE_LUCB,
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
            "Theorem 2: regret O~(sqrt T) with Delta > 0, T' = T_Delta.",
            (("safelucb-rate-gap", "rate-gap-slope"),),
        ),
        (
            7,
            "Theorem 3: regret O~(T^(2/3)) with T' = T_0 (Delta = 0 instance).",
            (("safelucb-rate-zero", "rate-zero-slope"),),
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
    ),
    *_items(
        CKB,
        (
            1,
            "Sublinear regret of every CKB variant (log-log slope < 1).",
            tuple((e, "ckb-sublinear") for e in _CKB_DATA),
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
            "V(T) = 0 at T for all algorithms, averaged over 50 runs.",
            tuple((e, "ckb-v-zero") for e in _CKB_DATA),
        ),
        (
            5,
            "Violation counts N small relative to T (synthetic N <= 5; light CKB-UCB N = 0).",
            tuple((e, "ckb-few-violations") for e in _CKB_DATA),
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
            tuple((e, "ckb-dual-not-pinned") for e in _CKB_DATA),
        ),
    ),
)


def digest_of(paper: str) -> tuple[DigestItem, ...]:
    """The section-5 items of one paper's digest, in order."""
    return tuple(i for i in DIGEST_ITEMS if i.paper == paper)
