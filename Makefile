# The two commands a new user needs: `make run` and `make test`.
# Both create .venv and install the project on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint bench docs clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV) >&2
	@$(PY) -m pip install -q --disable-pip-version-check --upgrade pip >&2
	@$(PY) -m pip install -q --disable-pip-version-check -e '.[dev]' >&2
	@touch $(STAMP)

## run: the console dialogue (no Slack tokens), or the Slack app when tokens are set
run: $(STAMP)
	@$(PY) -m bot

## test: hygiene (ruff, mypy) then the whole suite (it starts its own throwaway
## redis-server and a fake Slack API)
test: $(STAMP)
	@$(PY) -m ruff check .
	@$(PY) -m mypy engine dialogue bot
	@command -v redis-server >/dev/null 2>&1 || { \
	  echo "redis-server is not installed; the tests start their own. Install it with: apt-get install redis-server" >&2; exit 1; }
	@$(PY) -m pytest; rc=$$?; if [ $$rc -eq 5 ]; then echo "no tests collected"; rc=0; fi; exit $$rc

## lint: ruff and mypy (strict on engine/ and dialogue/)
lint: $(STAMP)
	@$(PY) -m ruff check .
	@$(PY) -m mypy engine dialogue bot

bench: $(STAMP)
	@$(PY) bench/engine.py
	@$(PY) bench/dialogue.py
	@$(PY) bench/serve.py

docs: $(STAMP)
	@$(PY) -m dialogue.diagram > docs/dialogue.md

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
