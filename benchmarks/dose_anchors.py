"""CRM and BOIN side by side on standard dose-finding scenarios (issue 45, item 3).

Six doses, cohorts of three, target toxicity 0.30 with 36 patients (five curves, the true MTD at doses 2 to
6) and target 0.25 with 60 patients (four curves), CRM, BOIN and the certified dose-escalation design on
the same simulated patients. Prints
the table of ``docs/dose_anchors.md`` and checks the claims stated there; ``--figure PATH`` draws the
selection percentages per dose. ``--scale quick`` runs 50 trials per curve (seconds); ``paper`` 1,000.

    nice python benchmarks/dose_anchors.py --scale paper --json docs/data/dose_anchors.json \\
        --figure docs/images/dose_anchors.png

``--store DIR`` instead reads the runs of the registered experiment ``dose-anchors`` (the published
scenarios; ``safebandits run dose-anchors --scale paper --out DIR``), prints its table and claims, and with
``--figure PREFIX`` draws its two figures (``PREFIX-selection.png``, ``PREFIX-tradeoff.png``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from safebandits.experiments.dose_trials import simulate_trials

#: (name, target, patients, true toxicity per dose): curves in the shape of the BOIN and CRM papers'
#: scenarios (six doses, the MTD's toxicity exactly the target, neighbours 0.1-0.15 away); ours, as the
#: papers' own tables could not be read here (docs/decisions/dose.md).
SCENARIOS: tuple[tuple[str, float, int, tuple[float, ...]], ...] = (
    ("A1", 0.30, 36, (0.12, 0.30, 0.45, 0.58, 0.70, 0.80)),
    ("A2", 0.30, 36, (0.05, 0.12, 0.30, 0.45, 0.60, 0.75)),
    ("A3", 0.30, 36, (0.03, 0.07, 0.15, 0.30, 0.45, 0.60)),
    ("A4", 0.30, 36, (0.02, 0.05, 0.09, 0.16, 0.30, 0.46)),
    ("A5", 0.30, 36, (0.01, 0.03, 0.06, 0.10, 0.18, 0.30)),
    ("B1", 0.25, 60, (0.10, 0.25, 0.40, 0.55, 0.70, 0.80)),
    ("B2", 0.25, 60, (0.04, 0.10, 0.25, 0.40, 0.55, 0.70)),
    ("B3", 0.25, 60, (0.02, 0.06, 0.12, 0.25, 0.40, 0.55)),
    ("B4", 0.25, 60, (0.01, 0.03, 0.07, 0.13, 0.25, 0.40)),
)
DESIGNS = ("boin", "crm", "dose-escalation")
#: The certified design (issue 45, items 2 and 4) reads the declared structure: toxicity non-decreasing and
#: at most 0.2 more per dose step (true of every curve above).
DECLARED = {"max_increase": 0.2, "monotone_cost": True}
TRIALS = {"quick": 50, "paper": 1000}
#: Claims (docs/dose_anchors.md): BOIN's correct selection within this many points of CRM's on every
#: curve (Liu & Yuan 2015: "comparable" average performance) ...
PCS_GAP = 15.0


def run(scale: str, seed: int = 2026) -> list[dict]:
    rows = []
    for name, target, patients, tox in SCENARIOS:
        for design in DESIGNS:
            t0 = time.process_time()
            extra = (
                {"declared": DECLARED}
                if design == "dose-escalation"
                else {"config": {"max_patients": patients}}
            )
            oc = simulate_trials(
                design, tox, target, n_trials=TRIALS[scale], seed=seed, patients=patients, **extra
            )
            row = {
                "scenario": name,
                "target": target,
                "max_patients": patients,
                "toxicity": list(tox),
                **oc.row(),
            }
            row["cpu_s"] = time.process_time() - t0
            rows.append(row)
    return rows


def claims(rows: list[dict]) -> list[tuple[str, bool, str]]:
    by = {(r["scenario"], r["design"]): r for r in rows}
    names = [s[0] for s in SCENARIOS]
    gaps = [abs(by[n, "boin"]["pcs"] - by[n, "crm"]["pcs"]) for n in names]
    boin_above = float(np.mean([by[n, "boin"]["above_mtd"] for n in names]))
    crm_above = float(np.mean([by[n, "crm"]["above_mtd"] for n in names]))
    anchors = [r for r in rows if r["design"] in ("boin", "crm") and r["scenario"] != "A5"]
    least = min(r["trials_above"] for r in anchors)
    certified = [r["trials_above"] for r in rows if r["design"] == "dose-escalation"]
    return [
        (
            f"BOIN's PCS within {PCS_GAP:g} points of CRM's on every curve",
            max(gaps) <= PCS_GAP,
            f"largest gap {max(gaps):.1f}",
        ),
        (
            "BOIN treats fewer patients above the MTD than CRM (mean over curves)",
            boin_above < crm_above,
            f"{boin_above:.2f} vs {crm_above:.2f}",
        ),
        (
            "neither keeps a per-patient promise: a patient above the MTD in >= 5% of trials "
            "on every curve with a dose above it",
            least >= 5.0,
            f"least {least:.1f}%",
        ),
        (
            "dose-escalation keeps its promise: no patient above the MTD (here the limit) in at least "
            "95% of trials on every curve",
            max(certified) <= 5.0,
            f"most {max(certified):.1f}% of trials",
        ),
    ]


def table(rows: list[dict]) -> str:
    head = (
        "| curve | target, N | true toxicity (MTD bold) | design | PCS % | none % | above MTD "
        "| trials above % | toxicities | length | guarantee |"
    )
    out = [head, "|" + "---|" * 11]
    for r in rows:
        tox = ", ".join(
            f"**{p:.2f}**" if i + 1 == r["mtd"] else f"{p:.2f}" for i, p in enumerate(r["toxicity"])
        )
        label = r["design"].upper() if len(r["design"]) < 5 else r["design"]
        out.append(
            f"| {r['scenario']} | {r['target']:.2f}, {r['max_patients']} | {tox} | "
            f"{label} | {r['pcs']:.1f} | {r['none_selected']:.1f} | {r['above_mtd']:.2f} | "
            f"{r['trials_above']:.1f} | {r['toxicities']:.2f} | {r['length']:.1f} | {r['guarantee']} |"
        )
    return "\n".join(out)


def figure(rows: list[dict], path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [s[0] for s in SCENARIOS]
    fig, axes = plt.subplots(2, 5, figsize=(15, 5.5), sharey=True)
    by = {(r["scenario"], r["design"]): r for r in rows}
    for ax, name in zip(axes.flat, names, strict=False):
        x = np.arange(1, 7)
        for off, design in ((-0.27, "boin"), (0.0, "crm"), (0.27, "dose-escalation")):
            r = by[name, design]
            ax.bar(x + off, r["selection"], width=0.27, label=design.upper() if len(design) < 5 else design)
        mtd = by[name, "boin"]["mtd"]
        ax.axvspan(mtd - 0.5, mtd + 0.5, color="0.9", zorder=-1)
        ax.set_title(f"{name} (target {by[name, 'boin']['target']:.2f})")
        ax.set_xticks(x)
    for ax in axes.flat[len(names) :]:
        ax.axis("off")
    axes[0, 0].set_ylabel("selected (%)")
    axes[1, 0].set_ylabel("selected (%)")
    axes[0, 0].legend()
    fig.supxlabel("dose (shaded: the true MTD)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def standard(store: str, figure: str) -> int:
    """The table, claims and figures of the registered experiment's runs in ``store``."""
    from pathlib import Path

    import safebandits.papers.dose_anchors  # noqa: F401  (registers the experiment, if not installed)
    from safebandits.experiments.claims import check_claims
    from safebandits.experiments.results import load_results
    from safebandits.papers.dose_anchors.claims import scenario_table
    from safebandits.papers.dose_anchors.instances import FAMILIES

    df = load_results(store)
    tab = scenario_table(df)
    print(
        "| scenario | true toxicity (MTD bold) | design | PCS % | above MTD | trials above MTD % "
        "| above limit | trials above limit % | toxicities | length | highest dose |"
    )
    print("|" + "---|" * 11)
    for r in tab.itertuples(index=False):
        tox = FAMILIES[r.panel][4][r.scenario]
        cells = ", ".join(f"**{p:.2f}**" if i + 1 == r.mtd else f"{p:.2f}" for i, p in enumerate(tox))
        print(
            f"| {r.panel} {r.scenario} | {cells} | {r.label} | {r.pcs:.1f} | {r.above_mtd:.2f} | "
            f"{r.trials_above:.1f} | {r.above_limit:.2f} | {r.trials_above_limit:.1f} | {r.toxicities:.2f} | "
            f"{r.length:.1f} | {r.highest:.2f} |"
        )
    ok = True
    for c in check_claims(df, "dose-anchors"):
        ok &= c["verdict"] == "pass"
        ev = {k: v for k, v in c["evidence"].items() if k != "scenarios" or not isinstance(v, dict)}
        print(f"- {c['verdict']} ({c.get('margin_se', float('nan')):+.1f} SE): {c['claim']} {ev}")
    if figure:
        from safebandits.papers.dose_anchors.figures import selection_figure, tradeoff_figure

        out, stem = Path(figure).parent, Path(figure).name
        for draw in (selection_figure, tradeoff_figure):
            print(draw(None, df, None, out, stem))
    return 0 if ok else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--scale", choices=tuple(TRIALS), default="quick")
    parser.add_argument("--json", default="")
    parser.add_argument("--figure", default="")
    parser.add_argument("--store", default="")
    args = parser.parse_args(argv)
    if args.store:
        return standard(args.store, args.figure)
    rows = run(args.scale)
    print(table(rows))
    ok = True
    for text, holds, value in claims(rows):
        ok &= holds
        print(f"- [{'x' if holds else ' '}] {text}: {value}")
    print(f"CPU seconds: {sum(r['cpu_s'] for r in rows):.0f}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"scale": args.scale, "rows": rows}, fh, indent=1)
    if args.figure:
        figure(rows, args.figure)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
