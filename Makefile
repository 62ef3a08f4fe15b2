# Two entry points do all set-up on a fresh machine:
#   make demo   build the datasets, score the control judges, serve the leaderboard (local stores);
#               afterwards `source .venv/bin/activate` puts `dhp` on PATH
#   make test   install everything (venv, extras, chromium) and run the test suite, lint and strict typing
SHELL := /bin/bash
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
DHP_SOURCES ?= $(abspath ../shared/sources)
OUT ?= out
PYTEST_ARGS ?=
# The suite on parallel workers (pytest-xdist): one per core, at most 4; a file at a time on one worker (its
# module fixtures are made once), in the order tests/conftest.py gives (files with slow tests first); the 15
# slowest tests are listed after the suite (what to trim when CI nears its 15 minutes).
PYTEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); echo $$(( n < 4 ? n : 4 )))
PYTEST = $(BIN)/python -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder --durations=15
# What CI, `make test` and the Space install: the exact versions of requirements/lock.txt (pip constraints),
# within the package's own compatible ranges. `make test LOCK=` resolves freshly instead; `make lock` refreshes it.
LOCK ?= requirements/lock.txt

.PHONY: setup browser demo test test-fast lint typecheck check clean lock

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# The editable install follows source edits by itself; it is redone only when pyproject.toml changes
# (new dependency or package), recorded by the stamp file.
STAMP := $(VENV)/.dhp-installed
setup: $(STAMP)

# torch: the CPU wheel shipped on this kind of machine when present, else the registry's.
$(STAMP): pyproject.toml $(LOCK) | $(BIN)/python
	@if ls /opt/wheels/torch-*.whl >/dev/null 2>&1; then \
	  $(BIN)/pip install -q --find-links /opt/wheels "torch==$$(ls /opt/wheels/torch-*.whl | head -1 | sed -E 's/.*torch-([0-9.]+).*/\1/')"; \
	fi
	$(BIN)/pip install -q $(if $(LOCK),-c $(LOCK)) -e '.[dev,local,build,report,board]'
	touch $@

# Refresh the lock on purpose: resolve the newest compatible releases in a scratch venv and pin them.
lock:
	rm -rf .lock-venv && $(PY) -m venv .lock-venv && .lock-venv/bin/python -m pip install -q --upgrade pip
	@if ls /opt/wheels/torch-*.whl >/dev/null 2>&1; then \
	  .lock-venv/bin/pip install -q --find-links /opt/wheels "torch==$$(ls /opt/wheels/torch-*.whl | head -1 | sed -E 's/.*torch-([0-9.]+).*/\1/')"; \
	fi
	.lock-venv/bin/pip install -q '.[dev,local,build,report,board]'
	{ echo "# pip constraints: exact versions CI, make test and the Space install (make lock refreshes them)"; \
	  .lock-venv/bin/pip freeze --exclude dhp-bench | sed -E 's/^(torch==[0-9.]+)\+[a-z0-9]+$$/\1/'; } > requirements/lock.txt
	rm -rf .lock-venv

# Debian's chromium for the browser tests (Playwright drives it through executable_path).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else echo "chromium missing: install Debian's chromium package (browser tests will be skipped)"; fi; }

# Sources: DHP_SOURCES when that folder exists (what `dhp build --sources DIR` takes), else downloaded, else the
# small sample shipped in the package (marked as a sample everywhere); Story Cloze (on request) with STORY_CLOZE=FILE.
STORY_CLOZE ?=
demo: setup
	DHP_SOURCES="$(DHP_SOURCES)" STORY_CLOZE="$(STORY_CLOZE)" PYTHON="$(BIN)/python" bash scripts/demo.sh "$(OUT)"

# The whole suite, with lint and strict typing run once beside it (their output follows the suite's).
test: setup browser
	@{ { $(LINT) && $(TYPECHECK); } >.checks.log 2>&1 && echo "lint and typecheck: clean" \
	  || { cat .checks.log; echo "lint and typecheck: FAILED"; exit 1; }; } & pid=$$!; \
	$(PYTEST) $(PYTEST_ARGS); suite=$$?; wait $$pid; lint=$$?; rm -f .checks.log; \
	[ $$suite = 0 ] && [ $$lint = 0 ]

test-fast: setup
	$(PYTEST) -m "not slow and not browser" $(PYTEST_ARGS)

LINT = $(BIN)/ruff check dhp tests benchmarks && $(BIN)/ruff format --check dhp tests benchmarks
TYPECHECK = $(BIN)/mypy --explicit-package-bases dhp tests benchmarks
lint: setup
	$(LINT)

typecheck: setup
	$(TYPECHECK)

check: lint typecheck test

clean:
	rm -rf $(OUT) build dist *.egg-info
