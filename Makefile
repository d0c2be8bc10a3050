# Two entry points: `make serve` runs the server, `make test` runs every check.
# Both create ./.venv on first use and install the project into it.
VENV ?= .venv
PY := $(VENV)/bin/python
PYTHON ?= python3

.PHONY: serve test lint bench clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

serve: $(VENV)/.installed
	$(PY) -m cursor_byok serve

lint: $(VENV)/.installed
	$(PY) -m ruff check src tests bench
	$(PY) -m ruff format --check src tests bench
	$(PY) -m mypy

test: lint
	$(PY) -m pytest

bench: $(VENV)/.installed
	$(PY) bench/loop_transitions.py
	$(PY) bench/store_commit.py
	$(PY) bench/parse_cost.py
	$(PY) bench/server.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
