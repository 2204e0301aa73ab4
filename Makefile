# Two entry points, as in the README: `make demo` and `make test`. Both set up .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
OUT    ?= out

.PHONY: setup demo test bench clean

# the install compiles the proof checker's kernels (setup.py, with ziglang from PyPI): an edited
# kernel source installs again
$(VENV)/.installed: pyproject.toml setup.py validate/proof/build.py \
		$(wildcard validate/proof/*.c validate/proof/*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $@

setup: $(VENV)/.installed

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
	rm -rf $(VENV) $(OUT) *.egg-info validate/proof/_kernels*.so
