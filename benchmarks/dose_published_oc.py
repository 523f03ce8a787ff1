"""Our BOIN and CRM against published operating characteristics (issue 45, item 3): the tables of
``docs/dose_anchors.md``, "Checked against published operating characteristics".

For every published table in ``safebandits.papers.dose_anchors.published`` it runs our design (BOIN or
CRM) on the stated settings (10,000 trials, seed 20240: the slow test's) and prints one markdown row per
published number: ours, published, the standard error of the difference and ``z``; then the same for BOIN
as the BOIN package runs it (no 1-in-3 stay) on Zhao et al.'s curves, and for the published CRM without
its trial-ending rules (the findings). About 4 CPU minutes.

    nice python benchmarks/dose_published_oc.py [--trials 10000] [--seed 20240]

The exit status is 0 when every ``|z| <= 3`` in the first table.
"""

from __future__ import annotations

import argparse
import sys

from safebandits.papers.dose_anchors.published import PUBLISHED, reproduce

_LABELS = {
    "pcs": "PCS %",
    "over_selection": "selecting above MTD %",
    "none_selected": "no dose selected %",
    "patients_below": "patients below MTD",
    "patients_at": "patients at MTD",
    "patients_over": "patients above MTD",
    "length": "patients per trial",
    "toxicities": "toxicities per trial",
    "share_at": "share of a trial's patients at MTD %",
    "share_over": "share of a trial's patients above MTD %",
    "toxicity_rate_over": "toxicities among patients above MTD %",
}


def _label(name: str) -> str:
    if name.startswith("selection_d"):
        return f"selecting dose {name[len('selection_d') :]} %"
    if name.startswith("patients_d"):
        return f"patients at dose {name[len('patients_d') :]}"
    return _LABELS[name]


def table(n_trials: int, seed: int, config: dict | None = None, only: str = "") -> float:
    """Print the rows (of the tables whose name starts with ``only``); return the largest ``|z|``."""
    print("| table | true toxicity | characteristic | ours | published | SE of difference | z |")
    print("|---|---|---|---|---|---|---|")
    worst = 0.0
    for pub in PUBLISHED:
        if not pub.name.startswith(only):
            continue
        tox = ", ".join(f"{p:g}" for p in pub.toxicity)
        for c in reproduce(pub, n_trials=n_trials, seed=seed, config=config):
            worst = max(worst, abs(c.z))
            print(
                f"| {pub.name} | {tox} | {_label(c.characteristic)} | {c.ours:.2f} | {c.published:g} | "
                f"{c.se:.2f} | {c.z:+.1f} |"
            )
    return worst


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trials", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=20240)
    args = parser.parse_args()
    worst = table(args.trials, args.seed)
    print(f"\nlargest |z|: {worst:.2f}\n")
    print("BOIN as the BOIN package runs it (no 1-in-3 stay), Zhao et al.'s settings otherwise:\n")
    plain = table(args.trials, args.seed, {"stay_after_one_in_three": False}, only="zhao")
    print(f"\nlargest |z|: {plain:.2f}\n")
    print("The published CRM without its trial-ending rules (to 30 patients), its settings otherwise:\n")
    no_stop = {"stop_patients_any": None, "stop_patients_lowest": None}
    crm = table(args.trials, args.seed, no_stop, only="precautionary")
    print(f"\nlargest |z|: {crm:.2f}")
    return 0 if worst <= 3.0 else 1


if __name__ == "__main__":
    sys.exit(main())
