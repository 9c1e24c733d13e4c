"""Integration tests run the collection's modules with Ansible against a live cluster.

The cluster comes from KAFKAOPS_BOOTSTRAP_SERVERS (host:port,...) or, inside a Molecule verify
step, from the scenario's inventory (every broker host's address, client port 9092). How to log in:
KAFKAOPS_CONNECTION (a JSON object of the modules' connection options, such as security_protocol,
sasl_mechanism, sasl_username, sasl_password, ssl_cafile), or in Molecule the scenario's client listener
as the collection's admin user (its inventory's password, the CA in its ephemeral folder).
"""

import json
import os
import select
import subprocess
import sys

import pytest
from kafka.admin import (
    ACLFilter,
    ACLOperation,
    ACLPermissionType,
    ACLResourcePatternType,
    ConfigResource,
    ConfigResourceType,
    KafkaAdminClient,
    ResourcePatternFilter,
    ResourceType,
)

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _molecule_bootstrap():
    import testinfra.utils.ansible_runner

    inventory = os.environ["MOLECULE_INVENTORY_FILE"]
    runner = testinfra.utils.ansible_runner.AnsibleRunner(inventory)
    # Brokers that joined in a side effect are in the scenario's group for them (cluster, resilience, kraft).
    hosts = [name for group in ("kafka_broker", "spare_broker", "new_broker", "kraft_joiner")
             for name in runner.get_hosts(group)]
    # Brokers the scenario decommissioned are stopped for good.
    gone = set(runner.get_variables(runner.get_hosts("all")[0]).get("scenario_decommissioned_brokers") or [])
    hosts = [name for name in hosts if runner.get_variables(name).get("kafka_broker_id") not in gone]
    addresses = []
    for name in hosts:
        host = testinfra.get_host(name, ansible_inventory=inventory, connection="ansible")
        addresses.append("%s:9092" % host.interface("eth0").addresses[0])
    return addresses


# The modules' connection options by kafka-python's names for them.
PYTHON_CLIENT_NAMES = {"security_protocol": "security_protocol", "sasl_mechanism": "sasl_mechanism",
                       "sasl_username": "sasl_plain_username", "sasl_password": "sasl_plain_password",
                       "ssl_cafile": "ssl_cafile", "ssl_certfile": "ssl_certfile", "ssl_keyfile": "ssl_keyfile"}


def _molecule_connection():
    # The scenario checks' own reading of the inventory, importable in a Molecule verify step (its conftest's
    # folder is on the path), in kafka-python's names.
    from live_cluster import client_settings

    module_names = {python: module for module, python in PYTHON_CLIENT_NAMES.items()}
    return {module_names[key]: value for key, value in client_settings().items()}


@pytest.fixture(scope="session")
def connection():
    """The modules' connection options besides bootstrap_servers (empty for a PLAINTEXT listener)."""
    given = os.environ.get("KAFKAOPS_CONNECTION")
    if given:
        return json.loads(given)
    if os.environ.get("MOLECULE_INVENTORY_FILE"):
        return _molecule_connection()
    return {}


@pytest.fixture(scope="session")
def client_settings(connection):
    """kafka-python settings that log in as the modules do."""
    return {PYTHON_CLIENT_NAMES[key]: value for key, value in connection.items() if key in PYTHON_CLIENT_NAMES}


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

    def __contains__(self, key):
        # Without it, `key in run` would iterate through __getitem__ with 0, 1, ... and fail on KeyError 0.
        return key in self.result

    def get(self, key, default=None):
        return self.result.get(key, default)

    @property
    def failed(self):
        return bool(self.result.get("failed"))

    @property
    def changed(self):
        return bool(self.result.get("changed"))


def adhoc_environment():
    """The environment of the module runs: the repository's ansible.cfg, not Molecule's (that one enables
    callbacks whose lines would mix in), and the json stdout callback, whose document run_module reads."""
    return dict(os.environ, ANSIBLE_CONFIG=os.path.join(REPOSITORY, "ansible.cfg"), ANSIBLE_LOAD_CALLBACK_PLUGINS="1",
                ANSIBLE_STDOUT_CALLBACK="json", ANSIBLE_NOCOLOR="1")


def adhoc_arguments(module, args, check=False, diff=False):
    """The arguments after `ansible` that run kafkaops.cluster.<module> with args on the controller."""
    arguments = ["localhost", "-i", "localhost,", "-c", "local", "-e", "ansible_python_interpreter=%s" % sys.executable,
                 "-m", "kafkaops.cluster.%s" % module, "-a", json.dumps(args)]
    if check:
        arguments.append("--check")
    if diff:
        arguments.append("--diff")
    return arguments


class _AdHocRunner:
    """One module_runner.py process for the whole session: each `ansible localhost -m ...` runs in a fork of
    it, without importing Ansible again (see module_runner.py). Started on first use, and again if it died."""

    def __init__(self):
        self.process = None

    def run(self, arguments):
        if self.process is None or self.process.poll() is not None:
            runner = os.path.join(os.path.dirname(__file__), "module_runner.py")
            self.process = subprocess.Popen([sys.executable, runner], env=adhoc_environment(), text=True,
                                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.process.stdin.write(json.dumps(arguments) + "\n")
        self.process.stdin.flush()
        # The runner kills a command after 600 s (rc -9 in its answer); past that, the runner itself hangs.
        if not select.select([self.process.stdout], [], [], 660)[0]:
            self.process.kill()
            raise AssertionError("no answer from module_runner.py within 660 s: %s" % arguments)
        answer = self.process.stdout.readline()
        if not answer:
            raise AssertionError("module_runner.py ended with %s" % self.process.wait(timeout=30))
        return json.loads(answer)

    def close(self):
        if self.process is not None:
            self.process.stdin.close()
            self.process.wait(timeout=60)


_RUNNER = _AdHocRunner()


@pytest.fixture(scope="session", autouse=True)
def _stop_the_module_runner():
    yield
    _RUNNER.close()


def run_module(module, args, check=False, diff=False):
    """Run kafkaops.cluster.<module> on the controller with Ansible's ad-hoc command, as a playbook task would."""
    answer = _RUNNER.run(adhoc_arguments(module, args, check, diff))
    output = answer["stdout"] + answer["stderr"]
    try:
        document, unused = json.JSONDecoder().raw_decode(answer["stdout"][answer["stdout"].index("{"):])
        result = document["plays"][0]["tasks"][0]["hosts"]["localhost"]
    except (ValueError, KeyError, IndexError):
        raise AssertionError("could not read the result of %s: %s" % (module, output)) from None
    return ModuleRun(result, output)


@pytest.fixture(scope="session")
def kafka(bootstrap_servers, connection):
    """run(module, check=False, diff=False, **args) with the cluster's bootstrap servers and login filled in."""

    def run(module, check=False, diff=False, **args):
        args.setdefault("bootstrap_servers", bootstrap_servers)
        for key, value in connection.items():
            args.setdefault(key, value)
        # None leaves an option out, as omit does in a playbook.
        return run_module(module, {key: value for key, value in args.items() if value is not None},
                          check=check, diff=diff)

    return run


class ClusterReader:
    """Reads of the cluster made in the test process with kafka-python, to check what a module run did.

    Before-and-after reads go through here rather than through kafka_cluster_info: each Ansible run
    costs seconds of start-up, and a refused input's test needs two reads around two module runs.
    kafka_cluster_info has tests of its own.
    """

    def __init__(self, bootstrap_servers, **settings):
        self.admin = KafkaAdminClient(bootstrap_servers=bootstrap_servers, request_timeout_ms=30000, **settings)

    def broker_ids(self):
        """The live brokers (DescribeCluster v2 also lists fenced ones, KRaft brokers stopped but registered)."""
        return sorted(broker["broker_id"] for broker in self.admin.describe_cluster()["brokers"]
                      if not broker.get("is_fenced"))

    def replicas(self, topic):
        """{partition: replica list} of one topic."""
        described = self.admin.describe_topics([topic])[0]
        return {partition["partition_index"]: list(partition["replica_nodes"]) for partition in described["partitions"]}

    def topics(self, names=None):
        """{name: (partition count, replication factor, {config set on the topic: value})}, internal topics left out."""
        described = [topic for topic in self.admin.describe_topics(names)
                     if not topic.get("is_internal") and not topic.get("error_code")]
        if not described:
            return {}
        configs = self.admin.describe_configs(
            [ConfigResource(ConfigResourceType.TOPIC, topic["name"]) for topic in described], config_filter="all")
        result = {}
        for topic in described:
            entries = configs.get("topic", {}).get(topic["name"], {})
            overrides = {key: entry["value"] for key, entry in entries.items()
                         if entry.get("config_source") == "DYNAMIC_TOPIC_CONFIG"}
            partitions = topic["partitions"]
            result[topic["name"]] = (len(partitions), len(partitions[0]["replica_nodes"]) if partitions else 0,
                                     overrides)
        return result

    @staticmethod
    def principal_filter(principal):
        """A filter matching every ACL of one principal, on any resource."""
        every_resource = ResourcePatternFilter(ResourceType.ANY, None, ACLResourcePatternType.ANY)
        return ACLFilter(principal=principal, host=None, operation=ACLOperation.ANY,
                         permission_type=ACLPermissionType.ANY, resource_pattern=every_resource)

    def acls(self, principal):
        """The ACLs of one principal, sorted, each on one line: User:alice * READ ALLOW topic:orders (literal).

        Read here rather than through kafka_acl, so that a module run is checked by a read of its own.
        """
        found, unused = self.admin.describe_acls(self.principal_filter(principal))
        return sorted("%s %s %s %s %s:%s (%s)" % (
            acl.principal, acl.host, acl.operation.name, acl.permission_type.name,
            acl.resource_pattern.resource_type.name.lower(), acl.resource_pattern.resource_name,
            acl.resource_pattern.pattern_type.name.lower()) for acl in found)

    def close(self):
        self.admin.close()

    def scram_users(self, names=None):
        """{user: {mechanism: iterations}} of the users with SCRAM credentials (only the named ones when given)."""
        users = {}
        for name, described in self.admin.describe_user_scram_credentials().items():
            if names is not None and name not in names:
                continue
            credentials = {info["mechanism"].name.replace("_", "-"): info["iterations"]
                           for info in described["credential_infos"]}
            if credentials:
                users[name] = credentials
        return users


@pytest.fixture(scope="session")
def cluster(bootstrap_servers, client_settings):
    """A ClusterReader on the cluster under test."""
    reader = ClusterReader(bootstrap_servers, **client_settings)
    yield reader
    reader.close()
