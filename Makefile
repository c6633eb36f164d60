# Two entry points for a fresh machine: `make demo` and `make test`.
# Both create (or reuse) a local virtual environment in .venv and install freeattn into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	mkdir -p demo
	$(BIN)/freeattn density attention --beta 1 --gamma-k 1 --points 400 \
		--out demo/attention_density.csv --plot demo/attention_density.png

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/bench_montecarlo.py
	$(BIN)/python benchmarks/bench_coldstart.py
	$(BIN)/python benchmarks/bench_convolution.py
	$(BIN)/python benchmarks/bench_precision.py
	$(BIN)/python benchmarks/bench_readout.py
<<<<<<< HEAD
	$(BIN)/python benchmarks/bench_residual.py
=======
	$(BIN)/python benchmarks/bench_sweep.py
>>>>>>> speed

clean:
	rm -rf $(VENV) demo build *.egg-info
