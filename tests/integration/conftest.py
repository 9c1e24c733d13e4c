"""Integration tests run the collection's modules with Ansible against a live cluster.

The cluster comes from KAFKAOPS_BOOTSTRAP_SERVERS (host:port,...) or, inside a Molecule verify
step, from the scenario's inventory (every broker host's address, client port 9092). How to log in:
KAFKAOPS_CONNECTION (a JSON object of the modules' connection options, such as security_protocol,
sasl_mechanism, sasl_username, sasl_password, ssl_cafile), or in Molecule the scenario's client listener
as the collection's admin user (its inventory's password, the CA in its ephemeral folder).
"""

import json
import os

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
from module_runs import run_module


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
