"""What the scenario checks share: which checks run in which scenario, and fixtures for the live cluster.

A check that belongs to some scenarios only carries `pytest.mark.scenarios("name", ...)` (on the test,
or as `pytestmark` for a whole module); checks without it run in every scenario. Checks of other
scenarios are deselected, not skipped, and a run that selects no check at all fails, as does one
that skips a check: a scenario whose checks vanished must not pass.
"""

import json
import os
import sys

import pytest
import testinfra.utils.ansible_runner

# tests/integration's playbook_runner runs the checks' playbooks and reads their results, here as there. pytest puts
# a test file's own folder on the import path, so tests/integration's are there only in scenarios that run some of
# them (verifier.additional_files_or_dirs); this puts it there for every scenario, before any check loads.
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "tests", "integration")))

from live_cluster import bootstrap  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "scenarios(*names): run this check only in these Molecule scenarios")


def pytest_collection_modifyitems(config, items):
    scenario = os.environ.get("MOLECULE_SCENARIO_NAME", "")
    selected, deselected = [], []
    for item in items:
        marker = item.get_closest_marker("scenarios")
        (selected if marker is None or scenario in marker.args else deselected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected
    if not selected:
        raise pytest.UsageError("no check selected for scenario %r" % scenario)


def pytest_sessionfinish(session, exitstatus):
    """A skipped check proves nothing (an empty host list, say, skips a check that takes `host`): fail."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and exitstatus == 0:
        reporter.write_line("failing the run: %d checks were skipped: %s"
                            % (len(skipped), ", ".join(report.nodeid for report in skipped)))
        session.exitstatus = 1


@pytest.fixture(scope="session")
def inventory():
    """The scenario's inventory, read the way Ansible reads it."""
    return testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])


@pytest.fixture(scope="session")
def scenario_variables(inventory):
    """The variables every host shares (the scenario's group_vars), read through the first host."""
    return inventory.get_variables(inventory.get_hosts("all")[0])


@pytest.fixture(scope="session")
def saved():
    """saved(name): a JSON file the scenario's playbooks left in its ephemeral folder."""
    folder = os.environ["MOLECULE_EPHEMERAL_DIRECTORY"]

    def read(name):
        with open(os.path.join(folder, name)) as handle:
            return json.load(handle)

    return read


@pytest.fixture(scope="session")
def grown_brokers(inventory):
    """Client addresses of every broker after a side effect that grew the cluster (port 9092 each)."""
    return bootstrap(inventory.get_hosts("kafka_broker") + inventory.get_hosts("new_broker"))
