"""The nodes' states gathered from a play's hosts, and what the upgrade reads besides (plugin_utils/_node_states.py)."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.plugin_utils._node_states import (
    NodeStateError,
    node_states,
    upgrade_inventory,
    zookeeper_mode,
)


def broker(host, broker_id, mode="zookeeper"):
    return {"host": host, "broker_id": broker_id, "mode": mode}


HOSTS = {
    "b1": {"kafka_broker_node_state": [broker("b1", 1), broker("b1", 11)], "kafka_distribution_version": "3.9.2"},
    "b2": {"kafka_broker_node_state": [broker("b2", 2)], "kafka_distribution_version": "3.9.2",
           "kafka_broker_properties": {"inter.broker.protocol.version": 3.8}},
    "c1": {"kafka_controller_node_state": {"host": "c1", "node_id": 9001}, "kafka_distribution_version": "3.9.2"},
    # Combined mode: a host in both groups holds both states.
    "x1": {"kafka_broker_node_state": [broker("x1", 3)], "kafka_controller_node_state": {"host": "x1", "node_id": 3},
           "kafka_distribution_version": "4.4.0"},
}


@pytest.mark.parametrize("brokers, controllers, play, expected_brokers, expected_controllers", [
    # In the groups' order, whatever the play's; a host's brokers one after another.
    (["b2", "b1"], ["c1"], ["c1", "b1", "b2"], [2, 1, 11], [9001]),
    # Hosts not in the play (--limit, or failed) are left out; a host listed twice counts once.
    (["b1", "b2", "b1"], ["c1"], ["b1"], [1, 11], []),
    (["x1", "b1"], ["x1"], ["b1", "x1"], [3, 1, 11], [3]),
    ([], [], ["b1"], [], []),
])
def test_states_come_from_the_play_hosts_in_group_order(brokers, controllers, play, expected_brokers,
                                                        expected_controllers):
    states = node_states(brokers, controllers, play, HOSTS)
    assert [item["broker_id"] for item in states["brokers"]] == expected_brokers
    assert [item["node_id"] for item in states["controllers"]] == expected_controllers


@pytest.mark.parametrize("hosts, name", [
    ({"b1": {}}, "b1: kafka_broker_node_state is not set; the host's node_state.yml (role kafka_broker)"),
    ({"b1": {"kafka_broker_node_state": []}, "c1": {}}, "c1: kafka_controller_node_state is not set"),
])
def test_a_play_host_without_its_state_is_named(hosts, name):
    with pytest.raises(NodeStateError, match=name.replace("(", r"\(").replace(")", r"\)")):
        node_states(["b1"], ["c1"], ["b1", "c1"], hosts)


@pytest.mark.parametrize("modes, expected", [
    (["zookeeper", "zookeeper"], True),
    (["zookeeper", "migration"], False),
    (["kraft"], False),
    ([], False),
])
def test_zookeeper_mode_needs_every_broker_in_it(modes, expected):
    assert zookeeper_mode([broker("b", n, mode) for n, mode in enumerate(modes)]) is expected


@pytest.mark.parametrize("brokers, expected_pin", [
    (["b2", "b1"], "3.8"),
    (["b1", "b2"], ""),
    ([], ""),
])
def test_the_upgrade_reads_each_hosts_archive_and_the_first_brokers_pin(brokers, expected_pin):
    found = upgrade_inventory(brokers, ["b1", "x1"], HOSTS)
    assert found == {"targets": {"b1": "3.9.2", "x1": "4.4.0"}, "pinned_protocol": expected_pin}


def test_a_host_that_unpacked_no_archive_is_named():
    with pytest.raises(NodeStateError, match="^b9: kafka_distribution_version is not set"):
        upgrade_inventory(["b1"], ["b1", "b9"], dict(HOSTS, b9={}))
