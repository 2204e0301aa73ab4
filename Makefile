# Two entry points, as in the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
OUT    ?= out

.PHONY: setup demo test bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

# the proof checker's numba kernels compiled and cached once, so no check pays for it
$(VENV)/.kernels: $(VENV)/.installed $(wildcard validate/proof/*.py)
	$(BIN)/python -m puzzlesat.validate.proof.drat
	touch $@

setup: $(VENV)/.kernels

# The main job: publish the default suite, verify it byte for byte, solve it with the reference
# solver (DRAT proofs for UNSAT answers) and validate every answer down to the puzzle.
demo: setup
	$(BIN)/puzzlesat publish suites/demo.toml -o $(OUT)/demo -j 2
	$(BIN)/puzzlesat verify $(OUT)/demo
	$(BIN)/puzzlesat solve-suite $(OUT)/demo $(OUT)/demo-results -j 2 --proof
	$(BIN)/puzzlesat validate-suite $(OUT)/demo $(OUT)/demo-results -o $(OUT)/demo-verdicts.csv

test: setup
	$(BIN)/python -m pytest -q

bench: setup
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[bench]'
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) $(OUT) *.egg-info
