"""Whether brokers can leave, and what they still hold (filters plugins/filter/decommission.py)."""

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.kafkaops.cluster.plugins.filter.decommission import (
    kafka_decommission_check,
    kafka_decommission_wait_failure,
    kafka_replicas_on,
)


def cluster(brokers, topics):
    return {"brokers": [{"id": broker} for broker in brokers],
            "topics": dict((name, {"config": config, "partitions": [
                {"partition": number, "leader": replicas[0], "replicas": replicas}
                for number, replicas in enumerate(assignment)]})
                for name, (assignment, config) in topics.items())}


FIVE = cluster([1, 2, 3, 4, 5], {"orders": ([[1, 2, 3], [4, 5, 1]], {"min.insync.replicas": "2"}),
                                 "__consumer_offsets": ([[5, 1, 2]], {})})


def test_two_of_five_can_leave_when_three_hold_every_topic():
    assert kafka_decommission_check(FIVE, "4,5") == dict(ids=[4, 5], leaving=[4, 5], gone=[], remaining=[1, 2, 3],
                                                         problems=[])


def test_an_id_already_gone_is_noted_not_refused():
    check = kafka_decommission_check(FIVE, [5, 6])
    assert (check["leaving"], check["gone"], check["problems"]) == ([5], [6], [])


@pytest.mark.parametrize("broker_ids, default, expected", [
    ("3,4,5", 1, "topic __consumer_offsets: replication factor 3, but only 2 broker(s) would remain (1,2)"),
    ("1,2,3,4,5", 1, "broker_ids: 1,2,3,4,5 would leave no broker"),
])
def test_too_few_remaining_brokers_are_refused_naming_the_topic(broker_ids, default, expected):
    assert expected in kafka_decommission_check(FIVE, broker_ids, default)["problems"][0]


def test_min_insync_replicas_counts_the_default_and_the_topic_setting():
    two = cluster([1, 2, 3], {"audit": ([[1, 2]], {}), "orders": ([[1, 2]], {"min.insync.replicas": "3"})})
    problems = kafka_decommission_check(two, "3", default_min_insync_replicas=1)["problems"]
    assert problems == ["topic orders: min.insync.replicas 3, but only 2 broker(s) would remain; acks=all producers "
                        "would be refused"]
    assert len(kafka_decommission_check(two, "3", default_min_insync_replicas=3)["problems"]) == 2


@pytest.mark.parametrize("broker_ids", ["", [], "four", None])
def test_bad_ids_are_refused_naming_the_field(broker_ids):
    with pytest.raises(AnsibleFilterError, match="broker_ids: "):
        kafka_decommission_check(FIVE, broker_ids)


def test_replicas_and_leaders_left_on_the_brokers():
    assert kafka_replicas_on(FIVE, "4,5") == {"replicas": ["__consumer_offsets-0", "orders-1"],
                                              "leaders": ["__consumer_offsets-0", "orders-1"]}
    assert kafka_replicas_on(FIVE, [6]) == {"replicas": [], "leaders": []}


def test_a_fenced_broker_can_leave_but_does_not_count_as_remaining():
    # KRaft: broker 5 stopped and is still registered, fenced; broker 4 is fenced and stays (down for a while).
    fenced = dict(FIVE, brokers=[{"id": broker} for broker in (1, 2, 3)], fenced_brokers=[4, 5])
    assert kafka_decommission_check(fenced, "5") == dict(ids=[5], leaving=[5], gone=[], remaining=[1, 2, 3],
                                                         problems=[])
    assert "only 2 broker(s) would remain (1,2)" in kafka_decommission_check(fenced, "3,5")["problems"][0]


def test_a_wait_that_saw_an_id_stay_registered_names_it_and_what_to_do():
    # The read answered every time; broker 5 stayed registered, fenced (KRaft, not yet unregistered).
    seen = dict(FIVE, brokers=[{"id": broker} for broker in (1, 2, 3)], fenced_brokers=[5], attempts=30, failed=True)
    assert kafka_decommission_wait_failure(seen, "4,5") == (
        "Brokers 4,5 leaving the cluster within 60 s of their stop did not happen in 30 tries; last seen: still "
        "registered (live or fenced): 5. Their units are stopped; run the playbook again to finish")


def test_a_wait_that_stopped_on_a_failed_read_gives_the_reads_message():
    failed = {"failed": True, "attempts": 1, "msg": "NoBrokersAvailable: no broker of 1:9092 answered"}
    assert kafka_decommission_wait_failure(failed, [4]) == (
        "Brokers 4 leaving the cluster within 60 s of their stop: the wait stopped on a failed read: "
        "NoBrokersAvailable: no broker of 1:9092 answered. Their units are stopped; run the playbook again to finish")


@pytest.mark.parametrize("groups, hostvars, broker_ids, problems", [
    # The first broker host's kafka_broker_min_insync_replicas counts for topics without their own: 3 remain, enough
    # for 3, not for 4.
    ({"kafka_broker": ["k1", "k2"]}, {"k1": {"kafka_broker_min_insync_replicas": 3}, "k2": {}}, "4,5", []),
    ({"kafka_broker": ["k1", "k2"]},
     {"k1": {"kafka_broker_min_insync_replicas": "4"}, "k2": {"kafka_broker_min_insync_replicas": 1}}, "4,5",
     ["topic __consumer_offsets: min.insync.replicas 4, but only 3 broker(s) would remain; acks=all producers would be "
      "refused"]),
    # Unset, or no broker group: the role's default, 1.
    ({"kafka_broker": ["k1"]}, {"k1": {}}, "3,4,5",
     ["topic __consumer_offsets: replication factor 3, but only 2 broker(s) would remain (1,2); lower its replication "
      "factor first, or keep more brokers",
      "topic orders: replication factor 3, but only 2 broker(s) would remain (1,2); lower its replication factor "
      "first, or keep more brokers"]),
    ({}, {}, "5", []),
])
def test_the_plan_takes_the_inventorys_min_insync_replicas(groups, hostvars, broker_ids, problems):
    from ansible_collections.kafkaops.cluster.plugins.filter.decommission import kafka_decommission_plan

    assert kafka_decommission_plan(FIVE, broker_ids, groups, hostvars)["problems"] == problems


@pytest.mark.parametrize("broker_ids, summary", [
    ("4,5", ["Leaving: 4, 5", "Remaining: 1, 2, 3"]),
    # A second run, the brokers already gone.
    ("6", ["Leaving: none (already out of the cluster)", "Remaining: 1, 2, 3, 4, 5"]),
])
def test_the_plan_says_what_leaves_and_names_every_topic_to_move(broker_ids, summary):
    from ansible_collections.kafkaops.cluster.plugins.filter.decommission import kafka_decommission_plan

    plan = kafka_decommission_plan(FIVE, broker_ids, {"kafka_broker": []}, {})
    assert plan["summary"] == summary
    # Internal topics too, in the order the cluster was read.
    assert plan["topics"] == ["orders", "__consumer_offsets"]
    assert plan["ids"] == [int(broker) for broker in broker_ids.split(",")]
