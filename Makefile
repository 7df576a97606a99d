# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: install run test lint conformance bench bench-full clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

# Install, migrate, publish the bundled skills at HEAD, and serve through gunicorn.
run: install
	$(PY) -m skillsite.localrun prepare
	. var/local.env && $(PY) manage.py migrate --noinput
	. var/local.env && $(PY) manage.py publish HEAD
	. var/local.env && $(PY) -m skillsite.localrun banner --host $(HOST) --port $(PORT)
	. var/local.env && exec $(VENV)/bin/gunicorn --config gunicorn.conf.py --bind $(HOST):$(PORT) skillsite.wsgi

# The whole suite (SQLite; set TEST_DATABASE_URL for PostgreSQL).
test: install
	$(PY) -m pytest -n 2 --dist loadfile

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/actionlint
	DJANGO_SECRET_KEY=lint $(PY) manage.py makemigrations --check --dry-run

# The official MCP conformance suite (npm, with its own Node 22) against a local instance.
conformance: install
	cd conformance && npm ci --silent --no-audit --no-fund
	$(PY) conformance/run.py

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache
