# Two commands: `make run` (a seeded dashboard on http://127.0.0.1:8000, served as deployed:
# gunicorn, DEBUG off, static files through WhiteNoise) and `make test`.
# `make dev` is the development server: runserver with autoreload and DEBUG=1.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev

.PHONY: run dev test lint format bootstrap bootstrap-dev

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

# The tests that also run on a throwaway 3-primary Redis Cluster (`manage.py test --cluster`), with the
# catalog in 3 partitions, so its products and reviews spread over the primaries (docs/cluster.md).
CLUSTER_TESTS := tests.school tests.cms tests.catalog tests.orgchart tests.keybrowser \
	tests.core.test_auth tests.core.test_dashboard_feed tests.core.test_plumbing.EventStreamTest tests.core.test_children \
	tests.core.test_commands tests.core.test_security tests.core.test_roles tests.core.test_reversing tests.core.test_smoke \
	tests.core.test_ui tests.core.test_listing tests.core.test_sending tests.core.test_ngrams tests.core.test_contention \
	tests.core.test_properties tests.core.test_hostile tests.core.test_exchange tests.core.test_fuzz tests.core.test_deploy tests.e2e

test: bootstrap-dev
	$(PY) manage.py test
	CATALOG_PARTITIONS=3 $(PY) manage.py test --cluster $(CLUSTER_TESTS)

lint: bootstrap-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: bootstrap-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .
