# Two entry points for a fresh machine: `make demo` and `make test`.
# Both create (or reuse) a local virtual environment in .venv and install freeattn into it.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: install demo test test-slow bench docs gallery clean

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

# The slow property suite (issue 21: the -m slow points, every check) on both cores; a point's
# checks stay on one worker (they share its law and its reference quadrature).
test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow -n 2 --dist loadgroup tests/properties

# Each benchmark's output is also recorded in docs/bench/ for the site's performance page.
bench: $(STAMP)
	$(BIN)/python docs/record_bench.py benchmarks/run.py
	$(BIN)/python docs/record_bench.py benchmarks/bench_montecarlo.py
	$(BIN)/python docs/record_bench.py benchmarks/bench_coldstart.py
	$(BIN)/python docs/record_bench.py benchmarks/bench_convolution.py
	$(BIN)/python docs/record_bench.py benchmarks/bench_precision.py
	$(BIN)/python benchmarks/bench_classic.py
	$(BIN)/python docs/record_bench.py benchmarks/bench_readout.py
	$(BIN)/python benchmarks/bench_residual.py
	$(BIN)/python benchmarks/bench_sweep.py

# The documentation site (mkdocs.yml): warnings are errors; the notebook runs at build time.
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/python -m mkdocs build --strict --site-dir site

# Regenerates every reproduced table and figure (docs/img/, docs/gallery/) and docs/gallery.md.
gallery: $(STAMP)
	MPLBACKEND=Agg $(BIN)/python docs/make_gallery.py

clean:
	rm -rf $(VENV) demo build site *.egg-info
