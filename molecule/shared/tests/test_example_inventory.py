"""Checks of the cluster scenario: inventories/example run over SSH from the installed artifact.

The side effect (molecule/cluster/scale-out.yml) grew the cluster by broker 1004 with
playbooks/scale_out.yml, then changed a setting everywhere; these check the rig is what it claims to
be, that the example's settings reached the services, and what the side effect did.
"""

import itertools
import os
import re

import pytest
import testinfra.utils.ansible_runner
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient
from live_cluster import (broker_instances, describe, expected_broker_ids, instance_addresses,
                          replica_and_leader_counts, settled, throttle_configs_left)

pytestmark = pytest.mark.scenarios("cluster")

# testinfra runs the checks that take `host` on each of these (get_hosts takes one group at a time).
_RUNNER = testinfra.utils.ansible_runner.AnsibleRunner(os.environ["MOLECULE_INVENTORY_FILE"])
testinfra_hosts = sorted({name for group in ("zookeeper", "kafka_broker", "spare_broker")
                          for name in _RUNNER.get_hosts(group)})


@pytest.fixture(scope="module")
def zookeeper_hosts(inventory):
    return inventory.get_hosts("zookeeper")


@pytest.fixture(scope="module")
def broker_hosts(inventory):
    """Every broker host after the side effect: the example's three and the spare that joined."""
    return inventory.get_hosts("kafka_broker") + inventory.get_hosts("spare_broker")


@pytest.fixture(scope="module")
def servers(inventory, broker_hosts):
    return instance_addresses(inventory, broker_hosts)


def test_declared_topics_exist_as_declared(scenario_variables, servers):
    declared = scenario_variables.get("kafka_topics_list") or []
    assert declared, "the cluster scenario declares topics in kafka_topics_list"
    admin = KafkaAdminClient(bootstrap_servers=servers, request_timeout_ms=30000)
    try:
        names = [item["name"] for item in declared]
        described = {topic["name"]: topic for topic in admin.describe_topics(names)}
        configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name) for name in names])
    finally:
        admin.close()
    for item in declared:
        partitions = described[item["name"]]["partitions"]
        assert len(partitions) == item["partitions"]
        assert all(len(partition["replica_nodes"]) == item["replication_factor"] for partition in partitions)
        for key, value in item.get("config", {}).items():
            assert configs["topic"][item["name"]][key]["value"] == str(value)


def test_scale_out_joined_without_restarting_the_others(inventory, saved, broker_hosts):
    for name in inventory.get_hosts("kafka_broker"):
        pids = saved("pids-%s.json" % name)
        assert all(int(pid) > 0 for pid in pids["before"])
        assert pids["before"] == pids["after"], "%s restarted a service during the scale-out" % name
    spare = inventory.get_hosts("spare_broker")[0]
    assert int(inventory.get_variables(spare)["kafka_broker_id"]) in expected_broker_ids(inventory, broker_hosts)


def test_scale_out_ends_telling_the_operator_to_move_the_new_host_into_kafka_broker(inventory, saved):
    """Its last words (issue 37): which host, which broker address, and which groups to move it between."""
    message = saved("scale-out-next-step.json")["message"]
    spare = inventory.get_hosts("spare_broker")[0]
    assert "on %s." % spare in message, message
    assert "from the group spare_broker into kafka_broker" in message, message
    assert "keeping each kafka_broker_id" in message and "refuses an inventory that lacks a broker" in message, message
    assert re.search(r"broker\(s\) [^ ]+:\d+", message), message


def test_scale_out_spread_the_declared_topics_with_the_fewest_moves(inventory, saved, scenario_variables, servers,
                                                                    broker_hosts):
    summary = saved("reassignment-summary.json")
    # The declared topics hold no records here, so the default balance (auto) weighs nothing and falls back to
    # replica counts, reaching their proven minimum of moves (the kraft scenario's integration tests show the
    # bytes balance on a live cluster).
    assert summary["balance"] == "replicas", summary
    assert summary["balance_chosen"] == "auto: the selected partitions hold no data", summary
    assert summary["replica_moves"] == summary["lower_bound"] > 0
    assert len(saved("reassignment-plan.json")["partitions"]) == summary["partitions_changed"]
    topics = [item["name"] for item in scenario_variables["kafka_topics_list"]]
    targets = expected_broker_ids(inventory, broker_hosts)
    brokers, partitions = describe(servers, topics)
    assert brokers == targets
    replicas, unused = replica_and_leader_counts(partitions, targets)
    spare = inventory.get_variables(inventory.get_hosts("spare_broker")[0])
    assert replicas[int(spare["kafka_broker_id"])] > 0, replicas
    assert settled(lambda: throttle_configs_left(servers, targets, topics), lambda left: left == []) == []


# The scenario runs inventories/example over SSH: these check the rig is what it claims to be and
# that the example's settings reached the services.
def test_the_play_ran_the_installed_artifact_over_ssh_as_a_sudo_user(host, inventory):
    variables = inventory.get_variables(host.backend.host)
    assert variables["ansible_connection"] == "ssh" and variables["ansible_user"] == "admin"
    assert host.run("printenv SUDO_USER").stdout.strip() == "admin"
    collections = os.environ["ANSIBLE_COLLECTIONS_PATH"]
    installed = os.path.join(collections, "ansible_collections", "kafkaops", "cluster")
    assert not os.path.islink(installed) and os.path.isfile(os.path.join(installed, "MANIFEST.json"))


def test_nodes_do_not_resolve_each_others_inventory_names(host, zookeeper_hosts):
    for name in zookeeper_hosts:
        if name != host.backend.host:
            assert host.run("getent hosts %s" % name).rc != 0, "%s resolves %s" % (host.backend.host, name)


def test_configs_use_the_addresses_ansible_reaches_the_nodes_by(host, inventory, zookeeper_hosts, broker_hosts):
    name = host.backend.host
    variables = inventory.get_variables(name)
    if name in zookeeper_hosts:
        zoo_cfg = host.file("/etc/zookeeper/zoo.cfg").content_string
        for member in zookeeper_hosts:
            assert "=%s:2888:3888\n" % inventory.get_variables(member)["ansible_host"] in zoo_cfg
    for broker_id, port in broker_instances(inventory, name, broker_hosts):
        properties = host.file("/etc/kafka/broker-%d/server.properties" % broker_id).content_string
        assert "INTERNAL://%s:%d," % (variables["ansible_host"], port + 10000) in properties
        # Ids above 1000 need reserved.broker.max.id raised, or the broker refuses to start.
        assert "reserved.broker.max.id=%d\n" % broker_id in properties
        assert "broker.rack=%s\n" % variables["kafka_broker_rack"] in properties
        connect = [line for line in properties.splitlines() if line.startswith("zookeeper.connect=")]
        assert connect and connect[0].endswith(variables["kafka_broker_zookeeper_chroot"])


def test_config_change_restarted_every_broker_one_at_a_time(saved, zookeeper_hosts, broker_hosts):
    rolled = [saved("rolled-%s.json" % name) for name in broker_hosts]
    for record in rolled:
        if record["after_scale_out"] is not None:
            assert record["pid"] != record["after_scale_out"], "a broker kept running with the old settings"
    _assert_one_at_a_time(record["started_monotonic_us"] for record in rolled)

    zookeeper = [record for record in rolled if record["zookeeper_pid"] is not None]
    assert len(zookeeper) == len(zookeeper_hosts)
    for record in zookeeper:
        assert record["zookeeper_pid"] != record["zookeeper_after_scale_out"]
    _assert_one_at_a_time(record["zookeeper_started_monotonic_us"] for record in zookeeper)


def _assert_one_at_a_time(start_times_us):
    """Serial restarts: each node started only after the one before was serving again, which
    takes seconds; nodes restarted together would start within a second of each other."""
    starts = sorted(int(start) for start in start_times_us)
    gaps = [(later - earlier) / 1e6 for earlier, later in itertools.pairwise(starts)]
    assert min(gaps) >= 2, "restart start times too close together: %s s" % gaps
