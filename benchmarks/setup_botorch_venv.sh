#!/usr/bin/env sh
# Make .venv-botorch: this project plus torch (CPU) and BoTorch, for benchmarks/bench_botorch.py (issue 33).
# Never needed by `make test`. Usage (from the repository root):  sh benchmarks/setup_botorch_venv.sh
#
# torch is pinned *first* and on its own: on a machine with a local CPU wheel (pip's find-links) this
# takes that wheel; an unpinned torch would let pip resolve a multi-GB CUDA build from PyPI.
set -eu
PYTHON="${PYTHON:-python3}"
VENV="${VENV:-.venv-botorch}"
TORCH_VERSION="${TORCH_VERSION:-2.13.0}"
BOTORCH_VERSION="${BOTORCH_VERSION:-0.18.1}"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet "torch==$TORCH_VERSION"
"$VENV/bin/python" -m pip install --quiet "torch==$TORCH_VERSION" "botorch==$BOTORCH_VERSION"
"$VENV/bin/python" -m pip install --quiet -e .
"$VENV/bin/python" -c "import torch, botorch; print('torch', torch.__version__, '| botorch', botorch.__version__)"
