# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000

# What `manage.py check --deploy` sees in `make lint`: a production configuration behind TLS.
PRODUCTION_LIKE_ENV = DJANGO_SECRET_KEY=lint-$$(head -c 48 /dev/urandom | od -An -tx1 | tr -d ' \n') \
	DJANGO_ALLOWED_HOSTS=skills.example.com DJANGO_PROXY_SSL_HEADER=X-Forwarded-Proto \
	DJANGO_SECURE_SSL_REDIRECT=1 DJANGO_SECURE_HSTS_SECONDS=31536000 \
	DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS=1 DJANGO_SECURE_HSTS_PRELOAD=1 \
	SKILLS_READ_TOKENS=lint-token DATABASE_URL=sqlite:///:memory:

.PHONY: install run test test-fast lint conformance bench bench-full bench-search bench-sizes bench-profile clean

# Two stamps: `make run` installs the runtime dependencies only; everything else (tests,
# lint, benchmarks) the development extras too. Once .installed exists it serves `make run`
# as well (the dev extras include the runtime ones).
$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-run

# -qq: setuptools' ten-line notice about editable installs is not for a person serving.
$(VENV)/.installed-run: pyproject.toml
	@echo "Installing the runtime dependencies into $(VENV) (once; about 20 s)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -m pip install -qq --upgrade pip
	@$(PY) -m pip install -qq -e .
	@touch $@

install: $(VENV)/.installed

# Install, migrate, publish HEAD of the skills repository (SKILLS_REPO_PATH when set, else this
# project with its bundled skills/), and serve through gunicorn. Locally, serving another
# repository than last time is what SKILLS_REPO_PATH asks for: hence --switch-repository, which
# changes nothing while the repository stays the same (docs/reference.md#commands).
# check-port comes first: a taken address is one line and no banner, never gunicorn retrying.
# The steps are not echoed (@): what a person reads is README's "What make run prints".
run: $(VENV)/.installed-run
	@$(PY) -m skillsite.localrun check-port --host $(HOST) --port $(PORT)
	@$(PY) -m skillsite.localrun prepare
	@. var/local.env && $(PY) -m skillsite.localrun migrate
	@. var/local.env && $(PY) manage.py publish HEAD --repo "$${SKILLS_REPO_PATH:-.}" --switch-repository
	@. var/local.env && $(PY) -m skillsite.localrun banner --host $(HOST) --port $(PORT)
	@. var/local.env && exec $(VENV)/bin/gunicorn --config gunicorn.conf.py --bind $(HOST):$(PORT) skillsite.wsgi

# The whole suite (SQLite; set TEST_DATABASE_URL for PostgreSQL).
test: install
	$(PY) -m pytest -n 2 --dist loadfile

# The edit-test loop: everything but the suites that start gunicorn (e2e) and the load, crash
# and hypothesis ones (reliability).
test-fast: install
	$(PY) -m pytest -n 2 --dist loadfile -q -m "not e2e and not reliability"

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	DJANGO_SECRET_KEY=lint $(VENV)/bin/mypy
	$(VENV)/bin/actionlint
	$(VENV)/bin/actionlint templates/skills-repo/.github/workflows/*.yml
	DJANGO_SECRET_KEY=lint $(PY) manage.py makemigrations --check --dry-run
	$(PRODUCTION_LIKE_ENV) $(PY) manage.py check --deploy --fail-level WARNING

# Benchmarks (docs/benchmarks.md); they need wrk and GNU time: apt-get install -y wrk time
bench: install
	$(PY) -m bench.run --quick --skills 1000

bench-full: install
	$(PY) -m bench.run --skills 10000

# Search quality on bench/search/ (docs/benchmarks.md, "Search quality"); no server, seconds.
bench-search: install
	$(PY) -m bench.search.run

# Answer sizes against a client's output cap (docs/benchmarks.md, "Answer sizes"); seconds.
bench-sizes: install
	$(PY) -m bench.answer_sizes

# Where each call's time goes (docs/benchmarks.md, "Where the time goes, session 4"): py-spy on
# every operation, warm and cold, one Markdown table of shares by layer; about 2 min.
bench-profile: install
	$(VENV)/bin/py-spy --version >/dev/null 2>&1 || $(PY) -m pip install --quiet py-spy
	$(PY) -m bench.profile_table --skills 1000

# The official MCP conformance suite (npm, with its own Node 22) against a local instance.
conformance: install
	cd conformance && npm ci --silent --no-audit --no-fund
	$(PY) conformance/run.py

clean:
	rm -rf $(VENV) var .pytest_cache .ruff_cache .mypy_cache
