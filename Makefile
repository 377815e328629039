# `make run`: a seeded dashboard on http://127.0.0.1:8000, served as deployed (gunicorn, DEBUG off,
# static files through WhiteNoise). `make dev`: the development server, runserver with autoreload
# and DEBUG=1. `make check`: the fast tests, the loop to run while editing. `make test`: every test.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run dev check test lint format bootstrap bootstrap-dev

$(PY):
	$(PYTHON) -m venv $(VENV)

# requirements.txt: what `make run` needs; requirements-dev.txt adds the tests' and tools' own.
$(STAMP): requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(DEV_STAMP): $(STAMP) requirements-dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

bootstrap: $(STAMP)

bootstrap-dev: $(DEV_STAMP)

run: bootstrap
	exec $(PY) manage.py serve

dev: bootstrap
	exec env DEBUG=1 $(PY) manage.py serve --dev

# Test tags (django.test.tag): "browser" drives Chromium; "slow" starts servers, seeds demo data or
# walks every route; "cluster" differs on a Redis Cluster or stands for its app's writes and lists;
# "failover" kills a node of a cluster of its own. The cluster pass runs the "cluster" tests on a
# throwaway 3-primary Redis Cluster (`manage.py test --cluster`), with the catalog in 3 partitions
# so its products and reviews spread over the primaries (docs/cluster.md).
# `make check` and `make test` run test classes in one process per core (--parallel), each with a
# Redis (or a cluster) of its own; TEST_PROCESSES=1 runs them one at a time, and `manage.py test
# --slowest 20` names the slowest classes.
TEST_PROCESSES ?= auto

check: bootstrap-dev
	$(PY) manage.py test --parallel $(TEST_PROCESSES) --exclude-tag browser --exclude-tag slow

test: bootstrap-dev
	$(PY) manage.py test --parallel $(TEST_PROCESSES) --exclude-tag failover
	CATALOG_PARTITIONS=3 $(PY) manage.py test --parallel $(TEST_PROCESSES) --cluster --tag cluster

lint: bootstrap-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: bootstrap-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
