# lcabot: local set-up, demo, tests and benchmarks. Needs python3.11 and pip with access to PyPI.
#
#   make demo                      venv + ingest ../shared/corpus into $(LCABOT_HOME) + ask three dev questions
#                                  + the ISO 14067 report of the coffee study into $(LCABOT_HOME)/reports
#   make demo DOCS=~/my-pdfs       ingest another folder (or files), all as perspective "general"
#   make test                      pytest + ruff + mypy
#   make bench                     ingest throughput, query latency, ask memory, graph build, handler cold import, Slack ack, image size
#   make dev                       the serverless stack on this machine: moto server (S3, SQS, DynamoDB) with the
#                                  resources of template.yaml, feeding the real Lambda handlers (Ctrl-C stops);
#                                  then, in another terminal: .venv/bin/lcabot dev put FILE.pdf / dev ask "…"

PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LCABOT := $(BIN)/lcabot

DOCS ?= ../shared/corpus
QUESTIONS ?= ../shared/eval/dev_questions.jsonl
DEMO_IDS ?= D017 D022 D001
DEMO_STUDY ?= $(wildcard $(DOCS)/studies/nab-maslin-2020-coffee-carbon-footprint.pdf)
LCABOT_HOME ?= .lcabot
export LCABOT_HOME
BENCH_HOME ?= bench/out/home

# The shared corpus keeps its perspective in the folder name (perspectives/<name>/); its other folders
# (guidance/, structured/, studies/) are "general". Any other DOCS is ingested as "general".
CORPUS_PERSPECTIVES := academic industry public eu_funding
CORPUS_GENERAL := guidance structured studies
ifeq ($(words $(DOCS)),1)
CORPUS_LAYOUT := $(wildcard $(DOCS)/perspectives)
endif
ifneq ($(CORPUS_LAYOUT),)
DEMO_PERSPECTIVES := $(foreach p,$(CORPUS_PERSPECTIVES),$(if $(wildcard $(DOCS)/perspectives/$(p)),$(p)))
DEMO_GENERAL := $(wildcard $(addprefix $(DOCS)/,$(CORPUS_GENERAL)))
else
DEMO_PERSPECTIVES :=
DEMO_GENERAL := $(DOCS)
endif

define nl


endef

.PHONY: venv demo test bench dev clean distclean

venv: $(STAMP)

# The stamp is rebuilt when pyproject.toml changes; an existing .venv is reused, never recreated.
# torch is pinned (torch==2.13.0) in pyproject.toml; pip resolves it like any other requirement.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade pip
	$(BIN)/python -m pip install -e '.[test]'
	touch $@

demo: $(STAMP)
	@for d in $(DOCS); do test -e "$$d" || { echo "DOCS: $$d does not exist; the demo needs the shared corpus at ../shared/corpus or DOCS=path/to/pdfs" >&2; exit 1; }; done
	$(foreach p,$(DEMO_PERSPECTIVES),$(LCABOT) ingest $(DOCS)/perspectives/$(p) --perspective $(p)$(nl))
	$(if $(DEMO_GENERAL),$(LCABOT) ingest $(DEMO_GENERAL) --perspective general)
	$(LCABOT) graph stats
	$(BIN)/python scripts/demo_questions.py --questions $(QUESTIONS) $(DEMO_IDS)
	$(if $(DEMO_STUDY),$(LCABOT) report $(DEMO_STUDY) -o $(LCABOT_HOME)/reports)

test: $(STAMP)
	$(BIN)/pytest -q
	$(BIN)/ruff check lcabot lambdas bot_handlers tests bench scripts
	$(BIN)/mypy

bench: $(STAMP)
	rm -rf $(BENCH_HOME)
	$(BIN)/python bench/ingest_throughput.py $(DOCS) --home $(BENCH_HOME)
	$(BIN)/python bench/query_latency.py --home $(BENCH_HOME) --questions $(QUESTIONS)
	$(BIN)/python bench/ask_memory.py --home $(BENCH_HOME)
	$(BIN)/python bench/graph_build.py --home $(BENCH_HOME)
	$(BIN)/python bench/handler_cold_import.py
	$(BIN)/python bench/slack_ack.py
	$(BIN)/python bench/image_size.py
	$(BIN)/python bench/lambda_ingest.py $(DOCS)

dev: $(STAMP)
	$(LCABOT) dev

# Removes the default demo index (.lcabot), never an LCABOT_HOME set elsewhere.
clean:
	rm -rf .lcabot bench/out build .pytest_cache .ruff_cache .mypy_cache lcabot.egg-info
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
