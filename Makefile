# The two commands a new user needs: `make run` and `make test` (README "The two commands").
# Both create .venv on first use. `make run` installs only what running needs (the hashed lock
# requirements/runtime.txt and the project); `make test` adds the dev extra (pyproject.toml).
# Other targets: lint, bench, docs, lock (regenerate the lock files), test-lowest (the suite at
# the lowest versions pyproject.toml allows; CI runs it after `make test`), clean.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
RUN_STAMP := $(VENV)/.installed-run
DEV_STAMP := $(VENV)/.installed-dev
LOCK := requirements/runtime.txt
BUILD_LOCK := requirements/build.txt

# uv resolves the lock files and the lowest-versions environment; it lives in its own venv
# (a tool, not a dependency of the project).
UV_VERSION := 0.13.8
TOOLS := $(VENV)/tools
UV := $(TOOLS)/bin/uv
LOWEST := $(VENV)/lowest

# The suite on 4 processes (pytest-xdist), one test file per process at a time: most tests wait
# on servers they start (Redis, the bot, a fake Slack), so 4 processes on 2 cores finish in
# about half the time of one; a file's tests share module fixtures (a served stack), hence
# loadfile. PYTEST_WORKERS=0 runs it in this process.
PYTEST_WORKERS ?= 4
PYTEST_PARALLEL := $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile)

# pytest exits 5 when it collected no test: say so instead of failing the build on it.
define PYTEST_RC5
rc=$$?; if [ $$rc -eq 5 ]; then echo "pytest collected no test (exit 5): nothing to run" >&2; rc=0; fi; exit $$rc
endef

# `make run` reads .env when it exists (values already in the environment win), without
# printing it: python-dotenv (a dependency of pydantic-settings) parses the same KEY=value
# format as docker compose's env_file.
define RUN_BOT
import runpy
from dotenv import load_dotenv
load_dotenv(".env", override=False)
runpy.run_module("bot", run_name="__main__", alter_sys=True)
endef
export RUN_BOT

.PHONY: run test test-lowest lint bench docs lock clean

$(RUN_STAMP): pyproject.toml $(LOCK)
	@test -x $(PY) || { echo "make: creating $(VENV) with $$($(PYTHON) --version)" >&2; $(PYTHON) -m venv $(VENV) >&2; }
	@echo "make: installing what running needs into $(VENV): the $$(grep -c '^[a-z]' $(LOCK)) pinned," \
	  "hash-checked packages of $(LOCK) and the project itself (the dev tools come with make test)" >&2
	@$(PIP) install -q --require-hashes --no-deps -r $(LOCK) >&2
	@$(PIP) install -q --no-deps -e . >&2
	@touch $@

$(DEV_STAMP): $(RUN_STAMP) pyproject.toml
	@echo "make: installing the dev extra (pytest, hypothesis, ruff, mypy, the manifest validators)" >&2
	@$(PIP) install -q -e '.[dev]' >&2
	@touch $@

## run: the console dialogue (no Slack tokens), or the Slack app when tokens are set
run: $(RUN_STAMP)
	@$(PY) -c "$$RUN_BOT"

## test: hygiene (ruff, mypy strict) then the whole suite (it starts its own throwaway
## redis-server and a fake Slack API)
test: $(DEV_STAMP)
	@$(PY) -m ruff check .
	@$(PY) -m mypy engine dialogue bot
	@command -v redis-server >/dev/null 2>&1 || { \
	  echo "redis-server is not installed; the tests start their own. Install it with: apt-get install redis-server" >&2; exit 1; }
	@$(PY) -m pytest $(PYTEST_PARALLEL); $(PYTEST_RC5)

## test-lowest: the suite with the lowest versions pyproject.toml allows (proves the floors)
test-lowest: $(UV)
	@command -v redis-server >/dev/null 2>&1 || { \
	  echo "redis-server is not installed; the tests start their own. Install it with: apt-get install redis-server" >&2; exit 1; }
	@rm -rf $(LOWEST)
	@$(PYTHON) -m venv $(LOWEST) >&2
	@echo "make: installing the lowest allowed versions into $(LOWEST) (uv --resolution lowest-direct)" >&2
	@$(UV) pip install -q --python $(LOWEST)/bin/python --resolution lowest-direct -e '.[dev]' >&2
	@$(UV) pip list --python $(LOWEST)/bin/python 2>/dev/null | grep -iE \
	  '^(pydantic|pydantic-settings|python-dotenv|transitions|redis|slack-bolt|slack-sdk|gunicorn|prometheus-client|pytest|pytest-xdist|hypothesis|pyyaml|websockets|jsonschema|kubernetes-validate) ' >&2 || true
	@$(LOWEST)/bin/python -m pytest -p no:cacheprovider $(PYTEST_PARALLEL); $(PYTEST_RC5)

$(UV):
	@echo "make: installing uv $(UV_VERSION) into $(TOOLS) (resolves the lock files and the lowest versions)" >&2
	@$(PYTHON) -m venv $(TOOLS) >&2
	@$(TOOLS)/bin/python -m pip install -q --disable-pip-version-check uv==$(UV_VERSION) >&2

## lock: regenerate the hashed lock files from pyproject.toml and requirements/build.in
lock: $(UV)
	$(UV) pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes \
	  --custom-compile-command "make lock" -o $(LOCK)
	$(UV) pip compile requirements/build.in --universal --python-version 3.11 --generate-hashes \
	  --custom-compile-command "make lock" -o $(BUILD_LOCK)

## lint: ruff and mypy (strict on engine/, dialogue/ and bot/)
lint: $(DEV_STAMP)
	@$(PY) -m ruff check .
	@$(PY) -m mypy engine dialogue bot

bench: $(DEV_STAMP)
	@$(PY) bench/engine.py
	@$(PY) bench/dialogue.py
	@$(PY) bench/serve.py
	@$(PY) bench/charts.py

docs: $(DEV_STAMP)
	@$(PY) -m dialogue.diagram > docs/dialogue.md
	@# the README's charts (issue #12), from fixed requests; the paths written go to stderr
	@$(PY) -m engine recommend --model llama-3.1-70b --concurrency 64 --context 8k \
	  --per-user-tokens-per-s 20 --ttft-s 4 --json --charts docs/charts >/dev/null
	@$(PY) -m engine recommend --model llama-3.1-70b --workload full-finetune \
	  --train-tokens 2B --deadline-days 7 --json --charts docs/charts >/dev/null

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
