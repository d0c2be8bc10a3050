# Two entry points: `make serve` runs the server, `make test` runs every check.
# Both create ./.venv on first use and install the project into it.
VENV ?= .venv
PY := $(VENV)/bin/python
# Python 3.12+ when the machine has it (mitmproxy 12, for `cursor-byok proxy`).
PYTHON ?= $(shell sh scripts/pick_python.sh)

.PHONY: serve test lint bench clean

# First run: about a minute. Each step says what it does, and pip shows each
# package it fetches, so a slow download is visible rather than a silent wait.
$(VENV)/.installed: pyproject.toml
	@echo "==> Creating the virtual environment in $(VENV) (anew when pyproject.toml changes)"
	$(PYTHON) -m venv --clear $(VENV)
	@echo "==> Updating pip"
	$(PY) -m pip install --quiet --upgrade pip
	@echo "==> Installing cursor-byok and its dependencies (about a minute on a fresh machine)"
	$(PY) -m pip install --disable-pip-version-check -e '.[dev]'
	@echo "==> Compiling the package's bytecode (every start reads it, even with PYTHONDONTWRITEBYTECODE)"
	$(PY) -m compileall -q src
	@echo "==> Installed; $(VENV) is ready"
	touch $@

serve: $(VENV)/.installed
	@echo "==> Starting the server (Ctrl-C stops it)"
	$(PY) -m cursor_byok serve

lint: $(VENV)/.installed
	$(PY) -m ruff check src tests bench
	$(PY) -m ruff format --check src tests bench
	$(PY) -m mypy

test: lint
	$(PY) -m pytest

bench: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[dev,bench]'
	$(PY) bench/startup.py
	$(PY) bench/loop_transitions.py
	$(PY) bench/store_commit.py
	$(PY) bench/tool_output.py
	$(PY) bench/image_history.py
	$(PY) bench/rewinds.py
	$(PY) bench/parse_cost.py
	$(PY) bench/render_cost.py
	$(PY) bench/shell_parse.py
	$(PY) bench/server.py
	$(PY) bench/turn_cost.py
	$(PY) bench/server.py --turns 0 --stacks hypercorn uvicorn uvicorn-fast granian
	$(PY) bench/server.py --levels 200 --turns 0 --clients aiohttp httpx2
	$(PY) bench/proxy.py
	$(PY) bench/cache.py
	$(PY) bench/abuse.py
	$(PY) bench/peer_check.py
	$(PY) bench/web_fetch.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
