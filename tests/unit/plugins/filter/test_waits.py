"""What the roles' node state reads say when the units they wait for do not settle."""

import pytest
from ansible_collections.kafkaops.cluster.plugins.filter.waits import units_in_transition, units_wait_failure

UNITS = {
    "kafka-broker-2": {"active_state": "active"},
    "kafka-broker-1": {"active_state": "deactivating"},
    "kafka-broker-3": {"active_state": "activating"},
    "kafka-broker-4": {"active_state": "failed"},
}


def test_units_on_their_way_are_named_with_their_state_and_the_settled_ones_are_not():
    assert units_in_transition(UNITS) == ["kafka-broker-1 (deactivating)", "kafka-broker-3 (activating)"]
    assert units_in_transition({"zookeeper": {"active_state": "reloading"}}) == ["zookeeper (reloading)"]


@pytest.mark.parametrize("units", [{}, None, {"kafka-broker-1": {"active_state": "inactive"}}])
def test_no_unit_on_its_way_gives_an_empty_list(units):
    assert units_in_transition(units) == []


def test_retries_used_up_name_the_tries_and_the_units_still_on_their_way():
    # What Ansible hands a rescue when until never held: the module's result, failed, with no message.
    result = {"failed": True, "attempts": 40, "units": UNITS, "files": {}}
    assert units_wait_failure(result, "The broker units of kafka-a") == (
        "The broker units of kafka-a settling within 200 s did not happen in 40 tries; last seen: "
        "kafka-broker-1 (deactivating), kafka-broker-3 (activating)")


def test_a_failed_read_gives_its_own_message():
    result = {"failed": True, "attempts": 1, "msg": "Permission denied: /etc/kafka/broker-1/server.properties"}
    assert units_wait_failure(result, "The controller unit of kc-1", 30) == (
        "The controller unit of kc-1 settling within 30 s: the wait stopped on a failed read: Permission denied: "
        "/etc/kafka/broker-1/server.properties")
