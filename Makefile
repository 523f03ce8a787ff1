# The whole set-up: `make run` and `make test` create .venv and install what they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test
DSTAMP := $(VENV)/.installed-docs
OUT    ?= results/quick

.PHONY: run test test-slow lint bench docs clean quick-archive scoreboard bench-botorch-venv bench-botorch \
	bench-safeopt-venv record-safeopt bench-safeopt

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(TSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(STAMP)

$(DSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	touch $@

run: $(STAMP)
	$(BIN)/safebandits run all --scale quick --out $(OUT)
	@echo "Report: $(OUT)/report/index.html (a summary line per experiment, the skipped experiments and the legend follow)"
	$(BIN)/safebandits report $(OUT)

test: $(TSTAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m pytest -q

test-slow: $(TSTAMP)
	$(BIN)/python -m pytest -q -m slow

lint: $(TSTAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache

# The documentation site: warnings are errors; the example gallery runs at small size.
docs: $(DSTAMP)
	SAFEBANDITS_DOCS_SMALL=1 $(BIN)/python -m sphinx -b html -W --keep-going -E -q docs docs/_build/html
	@echo "Docs: docs/_build/html/index.html"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# The side-by-side with BoTorch (issue 33): its own venv, .venv-botorch (torch pinned first: see the script),
# never needed by `make test`. The light-sensor problem needs the data ($SAFEBANDITS_DATA or
# `safebandits data fetch`); without it the table leaves that problem out with a note.
BOTORCH_VENV := .venv-botorch

$(BOTORCH_VENV)/.installed: pyproject.toml benchmarks/setup_botorch_venv.sh
	VENV=$(BOTORCH_VENV) PYTHON=$(PYTHON) sh benchmarks/setup_botorch_venv.sh
	touch $@

bench-botorch-venv: $(BOTORCH_VENV)/.installed

bench-botorch: $(BOTORCH_VENV)/.installed
	mkdir -p results && nice -n 10 $(BOTORCH_VENV)/bin/python benchmarks/bench_botorch.py --seeds 10 --horizon 300 --jobs 3 --refit-every 10 \
		--runs-log results/bench_botorch.jsonl --out results/bench_botorch.md

# The reference package safeopt 0.16 (issue 40): its own venv, .venv-safeopt (numpy < 1.24, GPy 1.13),
# never needed by `make test`. `record-safeopt` checks the recorded trajectories of
# tests/data/safeopt_reference/ against a new recording; `bench-safeopt` times our SafeOpt beside it.
SAFEOPT_VENV := .venv-safeopt

$(SAFEOPT_VENV)/.installed: benchmarks/setup_safeopt_venv.sh
	VENV=$(SAFEOPT_VENV) sh benchmarks/setup_safeopt_venv.sh
	touch $@

bench-safeopt-venv: $(SAFEOPT_VENV)/.installed

record-safeopt: $(SAFEOPT_VENV)/.installed
	$(SAFEOPT_VENV)/bin/python benchmarks/record_safeopt.py --check

bench-safeopt: $(SAFEOPT_VENV)/.installed $(STAMP)
	nice -n 10 $(BIN)/python benchmarks/bench_safeopt_reference.py --sizes 100,900,10000 --rounds 20

# The scoreboard page from the archived stores only (issue 31): the paper store and the quick store, both
# kept in docs/data. `make quick-archive` re-runs the quick scale of every experiment into a fresh store and
# archives it (about 4-15 minutes on 2 cores); set SAFEBANDITS_DATA to the folder of the data sets so that
# the four experiments on real data run too (without it they are skipped). The paper archive is made the
# same way from a paper-scale run. The paragraph under the page's header (how the stores were made) is
# kept beside them, in $(SCOREBOARD_NOTE).
QUICK_ARCHIVE := docs/data/quick-results.sqlite.xz docs/data/quick-conservative-results.sqlite.xz
# Issue 44: the conservative-bandit experiments' paper scale (cucb-horizon, cucb-alpha; seed 0, the thin
# record) and the CLUCB paper's experiments at quick scale (clucb-alpha, clucb-violations; seed 0), and the
# CLUCB2 paper's (clucb2-regret, clucb2-checkpoints; quick, seed 0); the CLUCB and CLUCB2 papers' at paper
# scale (seed 0).
CONSERVATIVE_ARCHIVES := docs/data/paper-conservative-results.sqlite.xz docs/data/quick-clucb-results.sqlite.xz \
	docs/data/quick-clucb2-results.sqlite.xz docs/data/paper-clucb-results.sqlite.xz \
	docs/data/paper-clucb2-results.sqlite.xz
PAPER_ARCHIVE := docs/data/paper-results.sqlite.xz
# Second seed sets (issue 42): confirmatory runs with new experiment seeds (`safebandits run NAME --seed S`);
# the paper-scale one holds the experiments whose readings changed after seed 0's data, ACOL's excepted
# (seed 1; seed 2 where a reading was fixed after seed 1's runs had begun).
# paper-seed1b: seed 1 at paper scale for the other experiments outside ACOL's two largest (their rows'
# robustness markers). paper-seed1c: seed 1 at paper scale for the conservative-bandit paper's two experiments
# (thin record) and the dose-finding anchors. paper-acol-seed1: seed 1 at paper scale for acol-synthetic and
# acol-driving (the confirmatory runs of their post-hoc readings). paper-clucb-seed1: seed 1 at paper scale
# for the CLUCB and CLUCB2 papers' four experiments.
SEED_ARCHIVES := docs/data/paper-confirm-results.sqlite.xz docs/data/quick-seed1-results.sqlite.xz \
	docs/data/paper-seed1b-results.sqlite.xz docs/data/paper-seed1c-results.sqlite.xz \
	docs/data/paper-acol-seed1-results.sqlite.xz docs/data/paper-clucb-seed1-results.sqlite.xz
# The declared ranges of the unstated settings (issue 42), seed 0, paper scale: `--set SETTING=VALUE` runs
# (paper-clucb-ranges: those of the CLUCB and CLUCB2 papers; paper-acol-ranges: acol-driving's feature
# constants).
RANGE_ARCHIVE := docs/data/paper-ranges-results.sqlite.xz docs/data/paper-clucb-ranges-results.sqlite.xz \
	docs/data/paper-acol-ranges-results.sqlite.xz
# Issue 45: the library's dose-finding anchors (dose-anchors; seed 0, both scales in one store).
ANCHOR_ARCHIVE := docs/data/dose-anchors-results.sqlite.xz
SCOREBOARD_NOTE := docs/data/scoreboard-note.txt

quick-archive: $(STAMP)
	rm -rf results/quick-archive
	$(BIN)/safebandits run all --scale quick --out results/quick-archive
	xz -9 -c results/quick-archive/results.sqlite > $(firstword $(QUICK_ARCHIVE))

scoreboard: $(STAMP)
	$(BIN)/safebandits scoreboard $(PAPER_ARCHIVE) $(QUICK_ARCHIVE) $(SEED_ARCHIVES) $(RANGE_ARCHIVE) \
		$(CONSERVATIVE_ARCHIVES) $(ANCHOR_ARCHIVE) --out docs/scoreboard.md --force \
		--note "$$(cat $(SCOREBOARD_NOTE))"

clean:
	rm -rf $(VENV) $(BOTORCH_VENV) results .pytest_cache docs/_build docs/auto_examples docs/reference
