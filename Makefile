# Quick start: `make demo` (a cluster in local containers) and `make test` (everything CI runs).
SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

VENV := .venv
BIN := $(CURDIR)/$(VENV)/bin
export KAFKAOPS_CACHE ?= $(HOME)/.cache/kafkaops
export PATH := $(BIN):$(PATH)
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
# Molecule and ansible-lint find the collection through this path.
export ANSIBLE_COLLECTIONS_PATH := $(CURDIR)/.cache/collections
COLLECTION_LINK := .cache/collections/ansible_collections/kafkaops/cluster
SCENARIOS := combined kraft kraft-secure migration multi-broker cluster resilience secure
# make test runs the scenarios in two lanes side by side (scripts/molecule-lanes.sh). The lanes share two busy
# cores, so a lane's time follows its CPU, but kraft waits more than it computes (throttled moves, faults held):
# with equal CPU-seconds (about 1,800 each in session 33's whole run) the kraft lane ended 4.7 minutes after the
# other, which then ran alone. kraft-secure now ends the migration lane (docs/benchmarks.md, session 34).
# `make molecule SCENARIOS="kraft secure"` runs those in one lane.
LANES := migration,secure,multi-broker,combined,kraft-secure kraft,cluster,resilience
comma := ,
empty :=
space := $(empty) $(empty)

.PHONY: help venv collection engine browser image spark-image spark-jars archive prometheus-agent prerequisites demo lint sanity unit docs docs-check artifact integration-kraft changelog-release molecule test clean

help:
	@echo "make demo    a 3-node ZooKeeper + Kafka cluster in local containers, grown to 4 brokers, verified"
	@echo "make test    lint, unit tests and every Molecule scenario (what CI runs)"
	@echo "make docs    the collection's HTML docs (guides, modules, roles) in .cache/docs/html"
	@echo "make clean   remove the containers, networks and volumes the project started"

$(VENV)/.installed: requirements.txt requirements-verify.txt requirements-dev.txt
	python3 -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -r requirements-dev.txt
	touch $@

# Two start-up hooks for the test venv's Python, each a module with a .pth file that imports it: it reuses the
# bytecode of the modules Ansible runs on this machine, as the test image's does
# (images/systemd-java/kafkaops_bytecode_cache.py), and Ansible's runs started from here reuse each other's
# module payloads (scripts/kafkaops_ansiballz_cache.py says how), kept in this folder.
export KAFKAOPS_ANSIBALLZ_CACHE := $(CURDIR)/.cache/ansiballz
TEST_HOOKS := images/systemd-java/kafkaops_bytecode_cache.py scripts/kafkaops_ansiballz_cache.py
$(VENV)/.test-hooks: $(TEST_HOOKS) $(VENV)/.installed
	site=$$($(BIN)/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') && \
	  for hook in $(TEST_HOOKS); do name=$$(basename $$hook .py); cp $$hook $$site/ && \
	    echo "import $$name" > $$site/$${name//_/-}.pth; done
	touch $@

venv: $(VENV)/.installed $(VENV)/.test-hooks

# The repository is the collection; Ansible finds it as ansible_collections/kafkaops/cluster.
# Left alone when it is right already: make test's lints run while scenarios resolve the collection through it.
collection:
	@mkdir -p $(dir $(COLLECTION_LINK))
	@[ "$$(readlink $(COLLECTION_LINK))" = ../../../.. ] || ln -sfn ../../../.. $(COLLECTION_LINK)

engine:
	bash scripts/ensure-docker.sh

# Headless Chromium, in which tests/integration/test_report.py opens the report page.
browser:
	bash scripts/ensure-chromium.sh

image: engine
	bash scripts/build-image.sh

# The Spark standalone nodes of the resilience scenario (wheels built with the venv's pip).
spark-image: image venv
	bash scripts/build-spark-image.sh

archive:
	bash scripts/build-kafka-archive.sh all

# The Kafka connector's jars for the Spark jobs, resolved once here rather than by the first scenario
# that runs a job (two lanes could otherwise resolve them into the same folder at once).
spark-jars:
	bash scripts/fetch-spark-jars.sh >/dev/null

# The Prometheus JMX exporter's agent jar, which scenarios with *_prometheus_enabled copy to their hosts.
prometheus-agent:
	bash scripts/fetch-prometheus-agent.sh

prerequisites: venv collection engine browser image spark-image spark-jars archive prometheus-agent

# The demo's files (manifest, plan, report) land here.
DEMO_DIR := $(CURDIR)/.cache/demo
# ZooKeeper mode on Kafka 3.9 by default; inventories/local-kraft runs KRaft on Kafka 4.x.
DEMO_INVENTORY ?= inventories/local

# A cluster of three in local containers, then the whole round an operator runs: verifiable records,
# a fourth broker with a throttled reassignment onto it, and the Spark job proving nothing was lost.
# A new seed per run writes new records, so the demo can be run again on the same cluster.
demo: prerequisites
	mkdir -p $(DEMO_DIR)
	ansible-playbook -i $(DEMO_INVENTORY) playbooks/local_containers.yml
	ansible-playbook -i $(DEMO_INVENTORY) playbooks/site.yml
	ansible-playbook -i $(DEMO_INVENTORY) playbooks/produce.yml -e topic=orders -e records=200000 \
	  -e seed=$$(date +%s) -e manifest=$(DEMO_DIR)/orders-manifest.json -e spark_master='local[2]'
	ansible-playbook -i $(DEMO_INVENTORY) playbooks/scale_out.yml -e broker_list=1,2,3,4 \
	  -e '{"topics": ["orders", "myTopic"]}' -e reassignment_throttle=10485760 \
	  -e plan_file=$(DEMO_DIR)/reassignment-plan.json
	ansible-playbook -i $(DEMO_INVENTORY) playbooks/verify.yml -e manifests=$(DEMO_DIR)/orders-manifest.json \
	  -e report=$(DEMO_DIR)/verify-report.json -e spark_master='local[2]'
	ansible-playbook -i $(DEMO_INVENTORY) playbooks/report.yml -e report_file=$(DEMO_DIR)/cluster-report.html \
	  -e plan_file=$(DEMO_DIR)/reassignment-plan.json -e verify_reports=$(DEMO_DIR)/verify-report.json
	@bash scripts/print-cluster.sh
	@echo "Cluster report (open it in a browser): $(DEMO_DIR)/cluster-report.html"

lint: venv collection
	ruff check plugins tests bench scripts roles/kafka_verify/files molecule images
	ansible-lint --profile production
	antsibull-changelog lint
	@# Jinja logic in roles/ and playbooks/ may only go down (issue 34): lower the ceiling as it does.
	python3 scripts/jinja-logic.py --max 205
	@# Run from the collection's own path, where it finds the collection the way ansible-doc does. Besides the
	@# plugins' and roles' docs it checks the guides (docs/docsite): extra-docs.yml and links.yml, each guide's
	@# reStructuredText and labels, and (--check-extra-docs-refs) that the modules and roles they link to exist.
	cd $(COLLECTION_LINK) && antsibull-docs lint-collection-docs --plugin-docs --check-extra-docs-refs .
	$(MAKE) --no-print-directory sanity

# ansible-test needs the collection at a path ending in ansible_collections/<ns>/<name>, outside
# this git work tree (inside it, ansible-test lists files with git, which ignores .cache).
SANITY_ROOT := $(or $(TMPDIR),/tmp)/kafkaops-sanity
# A venv of its own, with the exact tool versions ansible-test pins (they clash with ansible-lint's).
SANITY_VENV := .venv-sanity
$(SANITY_VENV)/.installed: requirements.txt
	python3 -m venv $(SANITY_VENV)
	$(SANITY_VENV)/bin/pip install -q ansible-core==$$(sed -n 's/^ansible-core==//p' requirements.txt)
	cat $$($(SANITY_VENV)/bin/python -c 'import ansible_test, os; print(os.path.dirname(ansible_test.__file__))')/_data/requirements/sanity.{ansible-doc,import,pep8,pylint,validate-modules,yamllint,runtime-metadata}.txt \
	  | grep -v '^#' | sort -u > $(SANITY_VENV)/requirements.txt
	$(SANITY_VENV)/bin/pip install -q -r $(SANITY_VENV)/requirements.txt
	touch $@

sanity: $(SANITY_VENV)/.installed
	command -v shellcheck >/dev/null || { apt-get update -q >/dev/null && apt-get install -y -q shellcheck >/dev/null; }
	@# ansible-test fetches a pip bootstrap script from a host that is not reachable here; give it ours.
	mkdir -p $(HOME)/.ansible/test/cache
	for version in 24.2 $$($(SANITY_VENV)/bin/python -c 'from ansible_test._internal.python_requirements import PIP_VERSION as v; print(v)' 2>/dev/null); do \
	  cp scripts/sanity-get-pip.py $(HOME)/.ansible/test/cache/get_pip_$${version//./_}.py; done
	rm -rf $(SANITY_ROOT) && mkdir -p $(SANITY_ROOT)/ansible_collections/kafkaops/cluster
	git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t $(SANITY_ROOT)/ansible_collections/kafkaops/cluster
	cd $(SANITY_ROOT)/ansible_collections/kafkaops/cluster && \
	  $(CURDIR)/$(SANITY_VENV)/bin/ansible-test sanity --python 3.11 --color no
	rm -rf $(SANITY_ROOT)

unit: venv archive
	python -m pytest -q --durations=20 tests/unit

# The collection's HTML docs, as antsibull-docs' sphinx-init sets them up but with a conf.py that needs no network
# (scripts/docsite/conf.py says what differs): antsibull-docs writes the RST of every module, plugin and role and
# of the guides in docs/docsite, then Sphinx turns it into HTML; a warning fails the build.
DOCS_DIR := .cache/docs
docs: venv collection
	rm -rf $(DOCS_DIR) && mkdir -p $(DOCS_DIR)
	@# antsibull-docs writes only into a folder no one else may write to.
	mkdir -m 755 $(DOCS_DIR)/rst
	antsibull-docs collection --use-current --squash-hierarchy --fail-on-error --dest-dir $(DOCS_DIR)/rst \
	  kafkaops.cluster
	sphinx-build -q -b html -c scripts/docsite -d $(DOCS_DIR)/doctrees -W --keep-going $(DOCS_DIR)/rst $(DOCS_DIR)/html
	@echo "The collection's docs: $(DOCS_DIR)/html/index.html"

# The built docs opened in headless Chromium, as a user browses them (tests/docs).
docs-check: docs browser
	python -m pytest -q -p no:cacheprovider tests/docs

# A quick loop for working on the admin modules: the integration tests (tests/integration, verify
# included) against Kafka 4.x in KRaft mode, three combined nodes and a broker as JVMs on loopback
# (scripts/kraft-host-cluster.sh), no containers. make test runs the same tests in the kraft scenario
# (a cluster the roles deployed) and in the cluster scenario (ZooKeeper mode).
integration-kraft: venv collection browser archive
	bash scripts/kraft-host-cluster.sh start
	KAFKAOPS_BOOTSTRAP_SERVERS=$$(bash scripts/kraft-host-cluster.sh servers) python -m pytest -q -p no:cacheprovider \
	  tests/integration || { bash scripts/kraft-host-cluster.sh stop; exit 1; }
	bash scripts/kraft-host-cluster.sh stop

# Each scenario's log is kept in .cache/logs; after a failure, what failed is printed last, below the teardown.
# The cluster scenario runs the installed artifact (.cache/installed): its Molecule dependency step builds and
# checks it (scripts/check-artifact.py), in its lane.
RUN_LANES = bash scripts/molecule-lanes.sh $(if $(filter command line,$(origin SCENARIOS)),$(subst $(space),$(comma),$(strip $(SCENARIOS))),$(LANES))
molecule: prerequisites
	$(RUN_LANES)

# The tarball a user installs, checked apart from the repository (see the script); the installed copy
# stays in .cache/installed.
artifact: venv
	python scripts/check-artifact.py

# Cut the changelog of the version in galaxy.yml: antsibull-changelog folds changelogs/fragments into
# changelogs/changelog.yaml and writes CHANGELOG.md. It runs on a copy outside this work tree (inside
# it, antsibull-changelog lists the collection's files with git, which ignores .cache, and would find
# no plugins); the results are copied back.
CHANGELOG_ROOT := $(or $(TMPDIR),/tmp)/kafkaops-changelog
changelog-release: venv
	rm -rf $(CHANGELOG_ROOT) && mkdir -p $(CHANGELOG_ROOT)/ansible_collections/kafkaops/cluster
	git ls-files -z --cached --others --exclude-standard \
	  | xargs -0 cp --parents -t $(CHANGELOG_ROOT)/ansible_collections/kafkaops/cluster
	cd $(CHANGELOG_ROOT)/ansible_collections/kafkaops/cluster && \
	  ANSIBLE_COLLECTIONS_PATH=$(CHANGELOG_ROOT) antsibull-changelog release --date $$(date +%F) \
	    --version $$(sed -n 's/^version: *//p' galaxy.yml)
	cp $(CHANGELOG_ROOT)/ansible_collections/kafkaops/cluster/CHANGELOG.md CHANGELOG.md
	cp $(CHANGELOG_ROOT)/ansible_collections/kafkaops/cluster/changelogs/changelog.yaml changelogs/changelog.yaml
	git rm -qf changelogs/fragments/*.yml
	rm -rf $(CHANGELOG_ROOT)

# Each step of make test runs under scripts/step-usage.py, which ends the run with a table of every step's
# (and scenario's) wall time and CPU-seconds, containers included, and warns when the whole run took longer
# than the budget (CI stops at 90 minutes; 40 leaves room for machines 1.5 to 2 times slower).
STEP := python3 scripts/step-usage.py
TEST_BUDGET_MINUTES := 40
# The lints, unit tests and docs need no container: they run beside the scenarios, which leave the cores partly
# idle while they wait on Kafka, with their output in .cache/logs/lint-and-unit.log (its end printed after
# the lanes when they failed). The docs (built, then opened in a browser) are a step of their own in the table,
# after the lints and unit tests, and run whether those passed or not.
CHECKS_LOG := .cache/logs/lint-and-unit.log
test:
	@$(STEP) begin
	$(STEP) run prerequisites -- $(MAKE) --no-print-directory prerequisites
	@mkdir -p $(dir $(CHECKS_LOG)) && rm -f $(CHECKS_LOG).status
	@# Each failure is caught with || (under the shell's -e a bare failure would end the subshell before it wrote
	@# the status, and an old status file could then pass for this run's).
	@( status=0; $(STEP) run lint-and-unit -- $(MAKE) --no-print-directory lint unit > $(CHECKS_LOG) 2>&1 || status=$$?; \
	   $(STEP) run docs -- $(MAKE) --no-print-directory docs-check >> $(CHECKS_LOG) 2>&1 || status=$$?; \
	   echo $$status > $(CHECKS_LOG).status ) & \
	  echo "lints, sanity, unit tests and docs started beside the scenarios (log: $(CHECKS_LOG))"; \
	  $(STEP) run molecule -- $(RUN_LANES) && lanes=0 || lanes=$$?; \
	  wait; checks=$$(cat $(CHECKS_LOG).status 2>/dev/null || echo "no exit status recorded"); \
	  if [ "$$checks" != 0 ]; then echo "=== lints, sanity, unit tests or docs failed: $$checks (end of $(CHECKS_LOG)) ==="; \
	    tail -n 60 $(CHECKS_LOG); else grep -E '^[0-9]+ passed' $(CHECKS_LOG) | tail -n 2 || true; fi; \
	  $(STEP) table --budget-minutes $(TEST_BUDGET_MINUTES) --markdown .cache/logs/step-usage.md; \
	  [ "$$lanes" -eq 0 ] && [ "$$checks" = 0 ]
	@echo "make test: all passed"

clean:
	-bash scripts/kraft-host-cluster.sh stop
	-$(BIN)/ansible-playbook playbooks/local_containers.yml -e local_containers_state=absent 2>/dev/null
	-for scenario in $(SCENARIOS); do $(BIN)/molecule destroy -s $$scenario >/dev/null 2>&1; done
	-docker ps -aq --filter label=kafkaops.cluster | xargs -r docker rm -f
	-docker network ls -q --filter label=kafkaops.cluster | xargs -r docker network rm
	-for network in $(SCENARIOS) example; do docker network rm kafkaops-$$network >/dev/null 2>&1; done
	-docker volume ls -q --filter label=kafkaops.cluster | xargs -r docker volume rm
