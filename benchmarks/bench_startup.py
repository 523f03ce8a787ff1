"""Start-up cost: ``import safebandits`` and ``safebandits --help``, next to their targets (issue 16).

Usage::

    .venv/bin/python benchmarks/bench_startup.py              # 7 cold runs of each
    .venv/bin/python benchmarks/bench_startup.py --runs 15 --importtime

Each measurement is a fresh interpreter (``subprocess``), timed from outside as wall time: the median
of ``--runs`` runs (after one unmeasured run that warms the file cache and writes the bytecode), so
"cold" means a new process, not an empty disk cache. Rows:

* ``python -c pass``: the interpreter alone (the floor under both targets);
* ``import safebandits``: target 0.3 s;
* ``safebandits --help`` (the installed console script, else ``python -m safebandits.cli``): target 0.5 s;
* ``safebandits --version`` and ``safebandits run --help``, for information;
* ``import safebandits; sb.make_learner`` (loads the learners: what the first real use costs).

``--importtime`` also prints the ten slowest modules of ``import safebandits`` and of ``--help``
(``python -X importtime``). The numbers depend on the machine and its load: the table prints the load
average beside them. Not collected by pytest; no timing asserts anywhere (style.md).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
ROOT = Path(__file__).resolve().parents[1]


def _cli() -> list[str]:
    script = Path(PY).with_name("safebandits")
    if script.exists():
        return [str(script)]
    found = shutil.which("safebandits")
    return [found] if found else [PY, "-m", "safebandits.cli"]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SAFEBANDITS_PLUGINS"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    return env


def median_wall(cmd: list[str], runs: int) -> tuple[float, float]:
    """Median and minimum wall time (s) of ``cmd`` over ``runs`` fresh processes, after one warm-up."""
    env = _env()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), min(times)


def slowest_imports(cmd: list[str], n: int = 10) -> list[tuple[int, str]]:
    """The ``n`` largest cumulative import times (us) of ``python -X importtime`` for ``cmd``."""
    proc = subprocess.run([PY, "-X", "importtime", *cmd], capture_output=True, text=True, env=_env())
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = line.removeprefix("import time:").split("|")
        if not name.startswith("  "):  # top-level imports only (the cumulative time covers the nested)
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:n]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="measured runs per command (median)")
    parser.add_argument("--importtime", action="store_true", help="also list the slowest imports")
    args = parser.parse_args()
    cli = _cli()
    rows = [
        ("python -c pass", [PY, "-c", "pass"], None),
        ("import safebandits", [PY, "-c", "import safebandits"], 0.3),
        ("safebandits --help", [*cli, "--help"], 0.5),
        ("safebandits --version", [*cli, "--version"], None),
        ("safebandits run --help", [*cli, "run", "--help"], None),
        ("import + load learners", [PY, "-c", "import safebandits as sb; sb.list_algorithms()"], None),
    ]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Start-up time: median of {args.runs} cold runs (load average {load:.2f}, {os.cpu_count()} cores)")
    print(f"{'command':<26}{'median [s]':>12}{'min [s]':>10}{'target [s]':>12}  verdict")
    for label, cmd, target in rows:
        med, low = median_wall(cmd, args.runs)
        verdict = "" if target is None else ("within" if med <= target else "OVER")
        shown = "" if target is None else f"{target:.2f}"
        print(f"{label:<26}{med:>12.3f}{low:>10.3f}{shown:>12}  {verdict}")
    if args.importtime:
        for label, cmd in (
            ("import safebandits", ["-c", "import safebandits"]),
            ("safebandits --help", ["-c", "from safebandits.cli import main; main(['--help'])"]),
        ):
            print(f"\nSlowest top-level imports of {label} (python -X importtime, cumulative):")
            for us, name in slowest_imports(cmd):
                print(f"  {us / 1000:8.1f} ms  {name}")


if __name__ == "__main__":
    main()
