"""Whether the inventory and the cluster agree on the brokers (filters plugins/filter/inventory.py)."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.cluster.plugins.filter.inventory import (
    kafka_inventory_broker_ids,
    kafka_inventory_drift,
)


def cluster(live, topics=None, fenced=()):
    return {"brokers": [{"id": broker, "host": "10.0.0.%d" % broker, "port": 9092} for broker in live],
            "fenced_brokers": list(fenced),
            "topics": dict((name, {"partitions": [{"partition": number, "replicas": replicas}
                                                  for number, replicas in enumerate(assignment)]})
                           for name, assignment in (topics or {}).items())}


INVENTORY = {"k1": [1], "k2": [2], "k3": [3]}


def test_agreement_has_no_problem():
    drift = kafka_inventory_drift(cluster([1, 2, 3], {"orders": [[1, 2, 3]]}), INVENTORY)
    assert drift == dict(missing=[], unknown=[], problems=[],
                         summary="The inventory names every broker the cluster knows (1, 2, 3)")


@pytest.mark.parametrize("live, fenced, inventory, summary", [
    # Registered brokers, live and fenced, in order, each once.
    ([3, 1], [2, 3], {"k1": [1], "k2": [2], "k3": [3]}, "The inventory names every broker the cluster knows (1, 2, 3)"),
    # New brokers of the inventory (scale-out) are named after them.
    ([1], [], {"k1": [1], "k4": [5, 4]}, "The inventory names every broker the cluster knows (1) and new ones: 4, 5"),
    ([], [], {"k1": [1]}, "The inventory names every broker the cluster knows () and new ones: 1"),
])
def test_the_summary_names_the_registered_brokers_and_the_new_ones(live, fenced, inventory, summary):
    assert kafka_inventory_drift(cluster(live, fenced=fenced), inventory)["summary"] == summary


def test_a_zookeeper_registration_the_inventory_lacks_is_named_with_its_address():
    # After the demo's scale-out: broker 4 registered in ZooKeeper, its host only in new_broker.
    drift = kafka_inventory_drift(cluster([1, 2, 3, 4], {"orders": [[4, 1, 2]]}), INVENTORY,
                                  playbook="migrate_to_kraft")
    assert [item["id"] for item in drift["missing"]] == [4]
    [problem] = drift["problems"]
    assert problem.startswith("broker 4 (registered, at 10.0.0.4:9092, holding replicas of 1 partition(s) such as "
                              "orders-0) is not in the inventory's kafka_broker group; migrate_to_kraft would leave")
    assert "kafka_broker_id: 4" in problem and "decommission -e broker_ids=4" in problem


def test_a_fenced_kraft_broker_counts_as_known():
    drift = kafka_inventory_drift(cluster([1, 2, 3], fenced=[5]), INVENTORY)
    assert drift["missing"] == [{"id": 5, "where": "registered and fenced (stopped)"}]


def test_a_dead_broker_named_only_by_replica_lists_counts_as_known():
    # ZooKeeper mode: a stopped broker has no registration, but its replicas are still assigned to it.
    drift = kafka_inventory_drift(cluster([1, 2], {"orders": [[1, 7], [7, 2]]}), {"k1": [1], "k2": [2]})
    assert drift["missing"] == [{"id": 7, "where": "registered nowhere (down), still named as a replica, holding "
                                                   "replicas of 2 partition(s) such as orders-0"}]


@pytest.mark.parametrize("new_brokers, leaving, problems", [
    ("allowed", [], 0),
    ("refused", [], 1),
    ("refused", [4], 0),
    ("refused", "4,5", 0),
])
def test_inventory_brokers_the_cluster_does_not_know(new_brokers, leaving, problems):
    drift = kafka_inventory_drift(cluster([1, 2, 3]), dict(INVENTORY, k4=[4]), new_brokers=new_brokers,
                                  leaving=leaving, playbook="upgrade")
    assert drift["unknown"] == [{"id": 4, "host": "k4"}]
    assert len(drift["problems"]) == problems
    if problems:
        assert "broker 4 (inventory host k4) is not known to the cluster: upgrade needs" in drift["problems"][0]


def test_a_bad_choice_is_refused():
    with pytest.raises(AnsibleFilterError, match="new_brokers: 'maybe'"):
        kafka_inventory_drift(cluster([1]), {"k1": [1]}, new_brokers="maybe")


def test_ids_per_host_as_the_role_numbers_them():
    hostvars = {
        # The role ran here: its worked-out instances win.
        "k1": {"__kafka_broker_instances": [{"broker_id": 11, "port": 9092}], "kafka_broker_id": 99},
        # Outside the play (--limit): the inventory's instances, or its id, or the position plus one.
        "k2": {"kafka_broker_instances": [{"broker_id": 21, "port": 9092}, {"broker_id": 22, "port": 9093}]},
        "k3": {"kafka_broker_id": "31"},
        "k4": {},
    }
    assert kafka_inventory_broker_ids(["k1", "k2", "k3", "k4"], hostvars) == {
        "k1": [11], "k2": [21, 22], "k3": [31], "k4": [4]}
    # The hosts a scale-out adds, numbered by their place in the whole group, as one list.
    assert kafka_inventory_broker_ids(["k1", "k2", "k3", "k4"], hostvars, only=["k4", "k2"], flat=True) == [4, 21, 22]
    assert kafka_inventory_broker_ids(["k1", "k2", "k3", "k4"], hostvars, flat=True) == [4, 11, 21, 22, 31]


def test_a_bad_id_names_the_host():
    with pytest.raises(AnsibleFilterError, match="k1: kafka_broker_id: expected a broker id"):
        kafka_inventory_broker_ids(["k1"], {"k1": {"kafka_broker_id": "one"}})
