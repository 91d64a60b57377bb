# The two commands a newcomer runs: `make demo` and `make test`. Both set up .venv.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev
CC := $(BIN)/codecompass
DEMO := .demo

.PHONY: install demo test lint typecheck bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[dev,server,languages]'
	touch $(STAMP)

install: $(STAMP)

demo: install
	@RICH=$$($(BIN)/python -c 'import os, rich; print(os.path.dirname(rich.__file__))'); \
	echo "== Indexing the installed 'rich' package ($$RICH)"; \
	$(CC) index "$$RICH" --data-dir $(DEMO)/rich
	@echo "== Indexing this repository"
	$(CC) index . --data-dir $(DEMO)/self
	@echo '== codecompass search "draw a table with borders and a header row"'
	@$(CC) search "draw a table with borders and a header row" --data-dir $(DEMO)/rich -k 3
	@echo '== codecompass search "Syntax highlighting of source code" --kind class --detail compact'
	@$(CC) search "Syntax highlighting of source code" --data-dir $(DEMO)/rich --kind class --detail compact -k 3
	@echo '== codecompass search "normalize line endings before hashing" --explain (this repo)'
	@$(CC) search "normalize line endings before hashing" --data-dir $(DEMO)/self -k 2 --explain
	@echo '== codecompass callers cell_len (the code graph: who calls it, with confidence and evidence)'
	@$(CC) callers cell_len --data-dir $(DEMO)/rich | head -12
	@echo '== codecompass ask "how does a table measure its columns?" (extractive answer, no LLM)'
	@$(CC) ask "how does a table measure its columns?" --data-dir $(DEMO)/rich -k 4
	@echo '== codecompass status'
	@$(CC) status --data-dir $(DEMO)/self
	@echo '== Next: browse it in the web UI (search, why, graph): $(CC) ui --data-dir $(DEMO)/rich --open'

lint: install
	$(BIN)/ruff check src tests benchmarks scripts
	$(BIN)/ruff format --check src tests benchmarks scripts

typecheck: install
	$(BIN)/mypy

test: lint typecheck
	$(BIN)/pytest

bench: install
	$(BIN)/python benchmarks/index_rich.py

clean:
	rm -rf $(VENV) $(DEMO) .pytest_cache .mypy_cache .ruff_cache
