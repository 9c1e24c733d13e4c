"""Integration tests run the collection's modules with Ansible against a live cluster.

The cluster comes from KAFKAOPS_BOOTSTRAP_SERVERS (host:port,...) or, inside a Molecule verify
step, from the scenario's inventory (every broker host's address, client port 9092).
"""

import json
import os
import subprocess
import sys

import pytest

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _molecule_bootstrap():
    import testinfra.utils.ansible_runner

    inventory = os.environ["MOLECULE_INVENTORY_FILE"]
    runner = testinfra.utils.ansible_runner.AnsibleRunner(inventory)
    hosts = runner.get_hosts("kafka_broker") + runner.get_hosts("spare_broker")
    addresses = []
    for name in hosts:
        host = testinfra.get_host(name, ansible_inventory=inventory, connection="ansible")
        addresses.append("%s:9092" % host.interface("eth0").addresses[0])
    return addresses


@pytest.fixture(scope="session")
def bootstrap_servers():
    given = os.environ.get("KAFKAOPS_BOOTSTRAP_SERVERS")
    if given:
        return [server.strip() for server in given.split(",") if server.strip()]
    if os.environ.get("MOLECULE_INVENTORY_FILE"):
        return _molecule_bootstrap()
    pytest.fail("set KAFKAOPS_BOOTSTRAP_SERVERS=host:port,... or run inside a Molecule verify step")


class ModuleRun:
    """The outcome of one module run through Ansible: its result dict and the raw output."""

    def __init__(self, result, output):
        self.result = result
        self.output = output

    def __getitem__(self, key):
        return self.result[key]

    def get(self, key, default=None):
        return self.result.get(key, default)

    @property
    def failed(self):
        return bool(self.result.get("failed"))

    @property
    def changed(self):
        return bool(self.result.get("changed"))


def run_module(module, args, check=False, diff=False):
    """Run kafkaops.cluster.<module> on the controller with ansible, as a playbook task would."""
    # The repository's ansible.cfg, not Molecule's: that one enables callbacks whose lines would mix in.
    env = dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPOSITORY, "ansible.cfg"), ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
               ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_NOCOLOR="1")
    command = ["ansible", "localhost", "-i", "localhost,", "-c", "local",
               "-e", "ansible_python_interpreter=%s" % sys.executable,
               "-m", "kafkaops.cluster.%s" % module, "-a", json.dumps(args)]
    if check:
        command.append("--check")
    if diff:
        command.append("--diff")
    completed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)
    output = completed.stdout + completed.stderr
    try:
        document, unused = json.JSONDecoder().raw_decode(completed.stdout[completed.stdout.index("{"):])
        result = document["plays"][0]["tasks"][0]["hosts"]["localhost"]
    except (ValueError, KeyError, IndexError):
        raise AssertionError("could not read the result of %s: %s" % (module, output)) from None
    return ModuleRun(result, output)


@pytest.fixture(scope="session")
def kafka(bootstrap_servers):
    """run(module, check=False, diff=False, **args) with the cluster's bootstrap servers filled in."""

    def run(module, check=False, diff=False, **args):
        args.setdefault("bootstrap_servers", bootstrap_servers)
        # None leaves an option out, as omit does in a playbook.
        return run_module(module, {key: value for key, value in args.items() if value is not None},
                          check=check, diff=diff)

    return run
