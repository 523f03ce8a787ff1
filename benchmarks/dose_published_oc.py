"""Our BOIN against published operating characteristics (issue 45, item 3): the table of
``docs/dose_anchors.md``, "Checked against published operating characteristics".

For every published table in ``safebandits.papers.dose_anchors.published`` it runs our BOIN on the stated
settings (10,000 trials, seed 20240: the slow test's) and prints one markdown row per published number:
ours, published, the standard error of the difference and ``z``; then the same for BOIN as the BOIN
package runs it (no 1-in-3 stay) on Zhao et al.'s curves (the finding). About 2 CPU minutes.

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
}


def _label(name: str) -> str:
    if name.startswith("selection_d"):
        return f"selecting dose {name[len('selection_d') :]} %"
    if name.startswith("patients_d"):
        return f"patients at dose {name[len('patients_d') :]}"
    return _LABELS[name]


def table(n_trials: int, seed: int, config: dict | None = None, zhao_only: bool = False) -> float:
    """Print the rows; return the largest ``|z|``."""
    print("| table | true toxicity | characteristic | ours | published | SE of difference | z |")
    print("|---|---|---|---|---|---|---|")
    worst = 0.0
    for pub in PUBLISHED:
        if zhao_only and not pub.name.startswith("zhao"):
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
    plain = table(args.trials, args.seed, {"stay_after_one_in_three": False}, zhao_only=True)
    print(f"\nlargest |z|: {plain:.2f}")
    return 0 if worst <= 3.0 else 1


if __name__ == "__main__":
    sys.exit(main())
