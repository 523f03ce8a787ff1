#!/usr/bin/env sh
# Make .venv-safeopt: the reference package `safeopt` 0.16 (Berkenkamp et al.) with GPy, for
# benchmarks/record_safeopt.py (the recorded trajectories of tests/data/safeopt_reference/) and
# benchmarks/bench_safeopt_reference.py (issue 40). Never needed by `make test`; this project is not
# installed in it (the recording script needs numpy only besides the reference).
# Usage (from the repository root):  sh benchmarks/setup_safeopt_venv.sh
#
# safeopt 0.16 (2020) needs numpy < 1.24 (it uses np.float / np.int), matplotlib < 3.8 and, on
# Python >= 3.10, the alias collections.Sequence, which the recording script sets before importing it.
set -eu
PYTHON="${PYTHON:-python3.11}"
VENV="${VENV:-.venv-safeopt}"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "numpy==1.23.5" "scipy==1.10.1" "matplotlib==3.7.5" \
    "GPy==1.13.2" "safeopt==0.16"
"$VENV/bin/python" -c "import numpy, scipy, GPy; print('numpy', numpy.__version__, '| scipy', scipy.__version__, '| GPy', GPy.__version__)"
